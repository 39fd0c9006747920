/**
 * URDF importer (SPEC §5.2). Reads the XML into a plain description ({@link parseUrdf}), loads the
 * meshes it references, then adds bodies, shapes, joints and mimic couplers to a {@link ModelBuilder}
 * ({@link importUrdf}); a failure leaves the builder untouched.
 *
 * Conventions (following Newton's URDF importer, which SAP Warp uses):
 * - every link is a body; a joint's `<origin>` is its parent frame X_p, the child link frame is the
 *   joint frame (X_c = identity), the axis is in the joint frame (default x);
 * - the root link is welded to the world (fixed joint `fixed_base` at `xform`) unless `floating`
 *   (free joint `floating_base`);
 * - `<inertial>` gives mass, COM and the inertia tensor rotated by the origin's rpy into the link frame;
 *   a link without `<inertial>` (or with `ignore_inertial_definitions`) gets its mass from its
 *   collision geometry at the shape density; a moving subtree that would still be massless gets a tiny
 *   mass (1e-3 kg, inertia 1e-6 kg·m²) and a warning;
 * - visual geometry becomes non-colliding, massless, visible shapes; collision geometry colliding shapes,
 *   visible only when the link has no (loadable) visual, with `force_show_colliders`, and never with
 *   `hide_collision_shapes`; a visual mesh that is missing or unreadable is a warning, and the link's
 *   colliders are shown instead; meshes are STL, OBJ or COLLADA: a COLLADA visual becomes one shape per
 *   material, in the file's diffuse colour (the `<material>` colour only where the file has none, as
 *   RViz draws it), a COLLADA collider one mesh of all its triangles;
 * - joint types: revolute, continuous (revolute without limits), prismatic, fixed, floating (free;
 *   only under the world), planar (two prismatic DOFs in the plane normal to the axis, through a
 *   massless intermediate body);
 * - `<limit>` lower/upper/effort/velocity → limit_lower/limit_upper/effort_limit/velocity_limit;
 *   `<dynamics>` damping → joint damping, friction → joint (Coulomb) friction;
 * - `<mimic joint multiplier offset>` → coupler q(this) = multiplier·q(leader) + offset.
 */
import { readableModelName } from '../model_name';
import {
  JointType,
  meshMassProperties,
  shapeMassProperties,
  ShapeType,
  type JointDofConfig,
  type ModelBuilder,
  type ShapeConfig,
  type ShapeTypeName,
} from '../../model';
import { ImportError, MeshError } from '../assets/errors';
import { IDENTITY_POSE, pose, poseMul, rotateTensor, rpyQuat, type Pose } from '../assets/frames';
import {
  ImportLog,
  readAsset,
  parseNumbers,
  readSourceText,
  withRollback,
  type ImportOptions,
  type ImportResult,
  type ImportSource,
} from '../assets/importer';
import { rethrowOutside } from '../assets/confined';
import { decodeText, dirname, type AssetResolver } from '../assets/resolver';
import { basename, joinPath, parsePackageUri } from '../assets/resolvers';
import {
  MESH_EXTENSIONS,
  convexHull,
  extensionOf,
  imageFile,
  mergeParts,
  objMaterialLibraries,
  parseMeshParts,
  parseMtl,
  parseObjParts,
  scaleMesh,
  type ImageFile,
  type MeshPart,
  type MtlMaterial,
  type TriMesh,
} from '../mesh';
import { assertElementCounts, childNamed, childrenNamed, parseXml, type XmlElement } from '../xml/xml';

// ------------------------------------------------------------------------------------------- model

export type UrdfGeometry =
  | { kind: 'box'; size: [number, number, number] }
  | { kind: 'cylinder'; radius: number; length: number }
  | { kind: 'capsule'; radius: number; length: number }
  | { kind: 'sphere'; radius: number }
  | { kind: 'mesh'; filename: string; scale: [number, number, number] };

export interface UrdfGeom {
  name?: string;
  origin: Pose;
  geometry: UrdfGeometry;
  color?: [number, number, number];
  line: number;
}

export interface UrdfLink {
  name: string;
  inertial?: { origin: Pose; mass?: number; inertia?: number[] };
  visuals: UrdfGeom[];
  collisions: UrdfGeom[];
  line: number;
}

export interface UrdfJoint {
  name: string;
  type: 'revolute' | 'continuous' | 'prismatic' | 'fixed' | 'floating' | 'planar';
  parent: string;
  child: string;
  origin: Pose;
  axis: [number, number, number];
  limit?: { lower?: number; upper?: number; effort?: number; velocity?: number };
  dynamics?: { damping?: number; friction?: number };
  mimic?: { joint: string; multiplier: number; offset: number };
  line: number;
}

export interface UrdfRobot {
  name: string;
  links: UrdfLink[];
  joints: UrdfJoint[];
  /** elements recognized and ignored (transmission, gazebo, …) */
  ignored: string[];
}

const JOINT_TYPES = ['revolute', 'continuous', 'prismatic', 'fixed', 'floating', 'planar'] as const;

// ------------------------------------------------------------------------------------------- parse

/**
 * a `<visual>` / `<collision>` element's shape label under its link: `visual_<name>` when the file
 * names it, else `visual` (the link's only one) or `visual<k>` (the k-th of the link's)
 */
function geometryLabel(
  kind: 'visual' | 'collision',
  name: string | undefined,
  k: number,
  count: number,
): string {
  if (name) return `${kind}_${name}`;
  return count > 1 ? `${kind}${k}` : kind;
}

/** parses URDF text into a {@link UrdfRobot}; throws {@link ImportError} with line/column */
export function parseUrdf(text: string, file?: string): UrdfRobot {
  const root = parseXml(text, { file });
  const err = (el: XmlElement, reason: string): ImportError =>
    new ImportError(reason, file, el.line, el.column);
  if (root.name !== 'robot') throw err(root, `expected a <robot> root element, got <${root.name}>`);
  assertElementCounts(root, { link: 'max_bodies', collision: 'max_shapes', visual: 'max_shapes' });
  const nums = (el: XmlElement, attr: string, n: number, dflt?: number[]): number[] | undefined => {
    const v = parseNumbers(el.attrs[attr], `<${el.name} ${attr}>`, {
      file,
      line: el.line,
      column: el.column,
    });
    if (v === undefined) return dflt;
    if (v.length !== n) throw err(el, `<${el.name} ${attr}> needs ${n} numbers, got ${v.length}`);
    if (v.some((x) => !Number.isFinite(x))) throw err(el, `<${el.name} ${attr}> must be finite`);
    return v;
  };
  const num = (el: XmlElement, attr: string): number | undefined => {
    const s = el.attrs[attr];
    if (s === undefined) return undefined;
    const t = s.trim().toLowerCase();
    const v = t === 'inf' || t === '+inf' ? Infinity : t === '-inf' ? -Infinity : Number(t);
    if (Number.isNaN(v) || t === '') throw err(el, `<${el.name} ${attr}="${s}"> is not a number`);
    return v;
  };
  const origin = (el: XmlElement): Pose => {
    const o = childNamed(el, 'origin');
    if (!o) return [...IDENTITY_POSE] as Pose;
    const xyz = nums(o, 'xyz', 3, [0, 0, 0])!;
    const rpy = nums(o, 'rpy', 3, [0, 0, 0])!;
    return pose(xyz, rpyQuat(rpy[0], rpy[1], rpy[2]));
  };
  // named top-level materials
  const materials = new Map<string, [number, number, number]>();
  const colorOf = (m: XmlElement | undefined): [number, number, number] | undefined => {
    if (!m) return undefined;
    const c = childNamed(m, 'color');
    const rgba = c ? nums(c, 'rgba', 4) : undefined;
    if (rgba) return [rgba[0], rgba[1], rgba[2]];
    return m.attrs.name !== undefined ? materials.get(m.attrs.name) : undefined;
  };
  for (const m of childrenNamed(root, 'material')) {
    const c = colorOf(m);
    if (c && m.attrs.name) materials.set(m.attrs.name, c);
  }
  const geom = (g: XmlElement): UrdfGeom | undefined => {
    const ge = childNamed(g, 'geometry');
    if (!ge || ge.children.length === 0) return undefined;
    const s = ge.children[0];
    let geometry: UrdfGeometry;
    const positive = (v: number | undefined, what: string): number => {
      if (v === undefined || !(v >= 0) || !Number.isFinite(v))
        throw err(s, `<${s.name}> needs a finite ${what} ≥ 0`);
      return v;
    };
    switch (s.name) {
      case 'box': {
        const size = nums(s, 'size', 3, [1, 1, 1])!;
        if (size.some((v) => v < 0)) throw err(s, '<box size> must be ≥ 0');
        geometry = { kind: 'box', size: [size[0], size[1], size[2]] };
        break;
      }
      case 'cylinder':
      case 'capsule':
        geometry = {
          kind: s.name,
          radius: positive(num(s, 'radius'), 'radius'),
          length: positive(num(s, 'length') ?? num(s, 'height'), 'length'),
        };
        break;
      case 'sphere':
        geometry = { kind: 'sphere', radius: positive(num(s, 'radius'), 'radius') };
        break;
      case 'mesh': {
        const filename = s.attrs.filename;
        if (!filename) throw err(s, '<mesh> needs a filename');
        const sc =
          s.attrs.scale !== undefined
            ? nums(s, 'scale', s.attrs.scale.trim().split(/\s+/).length)
            : [1, 1, 1];
        const scale: [number, number, number] =
          sc!.length === 1
            ? [sc![0], sc![0], sc![0]]
            : sc!.length === 3
              ? [sc![0], sc![1], sc![2]]
              : [NaN, 0, 0];
        if (!scale.every((v) => Number.isFinite(v) && v !== 0))
          throw err(s, '<mesh scale> needs 1 or 3 non-zero numbers');
        geometry = { kind: 'mesh', filename, scale };
        break;
      }
      default:
        throw err(s, `unknown geometry <${s.name}>`);
    }
    return {
      name: g.attrs.name,
      origin: origin(g),
      geometry,
      color: colorOf(childNamed(g, 'material')),
      line: g.line,
    };
  };

  const links: UrdfLink[] = [];
  const names = new Set<string>();
  for (const l of childrenNamed(root, 'link')) {
    const name = l.attrs.name;
    if (!name) throw err(l, '<link> needs a name');
    if (names.has(name)) throw err(l, `duplicate link '${name}'`);
    names.add(name);
    const inEl = childNamed(l, 'inertial');
    let inertial: UrdfLink['inertial'];
    if (inEl) {
      const massEl = childNamed(inEl, 'mass');
      const mass = massEl ? num(massEl, 'value') : undefined;
      if (mass !== undefined && !(mass >= 0 && Number.isFinite(mass))) {
        throw err(massEl!, `mass must be a finite number ≥ 0; got ${mass}`);
      }
      const iEl = childNamed(inEl, 'inertia');
      let inertia: number[] | undefined;
      if (iEl) {
        const g = (k: string) => num(iEl, k) ?? 0;
        const [xx, yy, zz, xy, xz, yz] = [g('ixx'), g('iyy'), g('izz'), g('ixy'), g('ixz'), g('iyz')];
        inertia = [xx, xy, xz, xy, yy, yz, xz, yz, zz];
        if (inertia.some((v) => !Number.isFinite(v))) throw err(iEl, 'inertia must be finite');
      }
      inertial = { origin: origin(inEl), mass, inertia };
    }
    const visuals = childrenNamed(l, 'visual')
      .map(geom)
      .filter((g): g is UrdfGeom => g !== undefined);
    const collisions = childrenNamed(l, 'collision')
      .map(geom)
      .filter((g): g is UrdfGeom => g !== undefined);
    links.push({ name, inertial, visuals, collisions, line: l.line });
  }
  if (links.length === 0) throw err(root, 'the robot has no <link>');

  const joints: UrdfJoint[] = [];
  const jointNames = new Set<string>();
  const childOf = new Map<string, string>();
  for (const j of childrenNamed(root, 'joint')) {
    const name = j.attrs.name;
    if (!name) throw err(j, '<joint> needs a name');
    if (jointNames.has(name)) throw err(j, `duplicate joint '${name}'`);
    jointNames.add(name);
    const type = j.attrs.type as UrdfJoint['type'];
    if (!JOINT_TYPES.includes(type)) {
      throw err(j, `joint '${name}': unknown type '${j.attrs.type}' (allowed: ${JOINT_TYPES.join(', ')})`);
    }
    const parent = childNamed(j, 'parent')?.attrs.link;
    const child = childNamed(j, 'child')?.attrs.link;
    if (!parent || !child) throw err(j, `joint '${name}' needs <parent link> and <child link>`);
    if (!names.has(parent)) throw err(j, `joint '${name}': unknown parent link '${parent}'`);
    if (!names.has(child)) throw err(j, `joint '${name}': unknown child link '${child}'`);
    if (childOf.has(child))
      throw err(j, `link '${child}' is the child of two joints ('${childOf.get(child)}', '${name}')`);
    childOf.set(child, name);
    const axEl = childNamed(j, 'axis');
    const axis = (axEl ? nums(axEl, 'xyz', 3, [1, 0, 0]) : [1, 0, 0])!;
    if (type !== 'fixed' && type !== 'floating' && !(Math.hypot(axis[0], axis[1], axis[2]) > 0)) {
      throw err(axEl ?? j, `joint '${name}': the axis must be non-zero`);
    }
    const lim = childNamed(j, 'limit');
    const dyn = childNamed(j, 'dynamics');
    const mim = childNamed(j, 'mimic');
    if (mim && !mim.attrs.joint) throw err(mim, `joint '${name}': <mimic> needs a joint`);
    joints.push({
      name,
      type,
      parent,
      child,
      origin: origin(j),
      axis: [axis[0], axis[1], axis[2]],
      limit: lim
        ? {
            lower: num(lim, 'lower'),
            upper: num(lim, 'upper'),
            effort: num(lim, 'effort'),
            velocity: num(lim, 'velocity'),
          }
        : undefined,
      dynamics: dyn ? { damping: num(dyn, 'damping'), friction: num(dyn, 'friction') } : undefined,
      mimic: mim
        ? { joint: mim.attrs.joint, multiplier: num(mim, 'multiplier') ?? 1, offset: num(mim, 'offset') ?? 0 }
        : undefined,
      line: j.line,
    });
  }
  // cycles: walking up from any link must reach a root
  const jointByChild = new Map(joints.map((j) => [j.child, j]));
  for (const l of links) {
    let cur = l.name;
    for (let k = 0; k <= links.length; k++) {
      const j = jointByChild.get(cur);
      if (!j) break;
      cur = j.parent;
      if (k === links.length)
        throw new ImportError(`the joints form a cycle through link '${l.name}'`, file, l.line);
    }
  }
  const known = new Set(['link', 'joint', 'material']);
  const ignored = [...new Set(root.children.map((c) => c.name).filter((n) => !known.has(n)))];
  return { name: readableModelName(root.attrs.name, file, 'robot'), links, joints, ignored };
}

// ------------------------------------------------------------------------------------------- import

interface LoadedMesh {
  /** the file's triangles by material (one part for STL and OBJ) */
  parts?: MeshPart[];
  /** the whole mesh welded by position, where the parts were split from it by material (OBJ) */
  whole?: TriMesh;
  /** per part, the image of a textured part that could be read (by resolved path) */
  images?: (ImageFile | undefined)[];
  error?: string;
  /** the file exists but is not a readable mesh: fatal for a collider (a visual is only left out) */
  corrupt?: ImportError;
}

/**
 * reads the images of a mesh file's textured parts (each path once, through `cache`); an image
 * that is missing or not one browsers decode leaves its part untextured, with a warning
 */
async function loadImages(
  parts: MeshPart[],
  meshPath: string,
  resolver: AssetResolver,
  cache: Map<string, Promise<ImageFile | string>>,
  warnings: string[],
): Promise<(ImageFile | undefined)[]> {
  return Promise.all(
    parts.map(async (p) => {
      if (!p.textured) return undefined;
      let path = p.textured.image;
      try {
        path = resolver.resolve(meshPath, p.textured.image);
      } catch (e) {
        rethrowOutside(e);
        warnings.push(`${meshPath}: texture '${p.textured.image}' not drawn (${errorText(e)})`);
        return undefined;
      }
      let hit = cache.get(path);
      if (!hit) {
        hit = readAsset(resolver, path).then(
          (bytes) => imageFile(path, bytes),
          (e: unknown) => errorText(e),
        );
        cache.set(path, hit);
      }
      const img = await hit;
      if (typeof img === 'string') {
        warnings.push(`${meshPath}: texture ${path} not drawn (${img}); its part keeps a plain colour`);
        return undefined;
      }
      return img;
    }),
  );
}

/**
 * the materials of the MTL files an OBJ names (`mtllib`), each map's folder relative to the OBJ; a
 * missing or bad MTL file is a warning and its materials are not drawn
 */
async function objMaterials(
  text: string,
  objPath: string,
  resolver: AssetResolver,
  warnings: string[],
): Promise<Map<string, MtlMaterial & { mapDir?: string }>> {
  const out = new Map<string, MtlMaterial & { mapDir?: string }>();
  for (const lib of objMaterialLibraries(text)) {
    try {
      const path = resolver.resolve(objPath, lib);
      const mapDir = lib.slice(0, lib.lastIndexOf('/') + 1);
      for (const [name, m] of parseMtl(decodeText(await readAsset(resolver, path), path), path))
        if (!out.has(name)) out.set(name, { ...m, mapDir });
    } catch (e) {
      rethrowOutside(e);
      warnings.push(
        `${objPath}: material library '${lib}' not read (${errorText(e)}); its faces keep a plain colour`,
      );
    }
  }
  return out;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** loads every mesh file referenced (once per resolved path), keeping failures as messages */
async function loadMeshes(
  robot: UrdfRobot,
  base: string,
  resolver: AssetResolver | undefined,
  wantVisual: boolean,
  drawVisual: boolean,
  warnings: string[],
): Promise<Map<string, LoadedMesh>> {
  // the meshes drawn as visuals: their textures are read too
  const visualRefs = new Set<string>();
  if (drawVisual)
    for (const l of robot.links)
      for (const g of l.visuals) if (g.geometry.kind === 'mesh') visualRefs.add(g.geometry.filename);
  const images = new Map<string, Promise<ImageFile | string>>();
  const refs = new Set<string>();
  for (const l of robot.links) {
    for (const g of [...l.collisions, ...(wantVisual ? l.visuals : [])]) {
      if (g.geometry.kind === 'mesh') refs.add(g.geometry.filename);
    }
  }
  const out = new Map<string, LoadedMesh>();
  await Promise.all(
    [...refs].map(async (ref) => {
      if (!resolver) {
        out.set(ref, { error: 'no resolver to read mesh files' });
        return;
      }
      let path = ref;
      try {
        path = resolver.resolve(base, ref);
        const ext = extensionOf(path);
        if (!(MESH_EXTENSIONS as readonly string[]).includes(ext)) {
          out.set(ref, { error: `mesh format '${ext}' is not read (${MESH_EXTENSIONS.join(', ')} are)` });
          return;
        }
        const bytes = await readAsset(resolver, path);
        // an OBJ visual draws its MTL materials (colliders need only the shape)
        let loaded: LoadedMesh;
        if (ext === '.obj' && visualRefs.has(ref)) {
          const text = decodeText(bytes, path);
          const obj = parseObjParts(text, path, await objMaterials(text, path, resolver, warnings));
          // a collider of an OBJ split by material is the file welded by position
          loaded = { parts: obj.parts, whole: obj.mesh };
        } else loaded = { parts: parseMeshParts(bytes, path) };
        const parts = loaded.parts!;
        if (visualRefs.has(ref) && parts.some((p) => p.textured))
          loaded.images = await loadImages(parts, path, resolver, images, warnings);
        out.set(ref, loaded);
      } catch (e) {
        rethrowOutside(e);
        const pkg = parsePackageUri(ref.trim());
        const why = e instanceof Error ? e.message : String(e);
        // a folder named like the package above the URDF is the package: then only the file is missing
        const root = pkg && /file not found/.test(why) ? packageRoot(base, pkg.name) : undefined;
        out.set(ref, {
          error:
            pkg && /file not found/.test(why)
              ? root !== undefined
                ? `${ref}: file not found in package '${pkg.name}' (the folder ${root}; looked for ${joinPath(root, pkg.rest)})`
                : `${ref}: package '${pkg.name}' not found (no package map entry and no folder '${pkg.name}' beside or above the file; looked for ${path})`
              : `${path}: ${why}`,
          corrupt: e instanceof MeshError ? e : undefined,
        });
      }
    }),
  );
  return out;
}

/** the nearest folder above `base` named `name` (a package found by its folder), if any */
function packageRoot(base: string, name: string): string | undefined {
  for (let d = dirname(base), guard = 0; guard < 64 && d !== '' && d !== '/'; guard++) {
    if (basename(d) === name) return d;
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return undefined;
}

/** mass of one planned shape at its density (for the massless-subtree check) */
function plannedMass(type: number, size: number[], mesh: TriMesh | undefined, density: number): number {
  if (!(density > 0)) return 0;
  if (mesh) return meshMassProperties(mesh.vertices, mesh.triangles, [1, 1, 1], density).mass;
  return shapeMassProperties(type, size, density).mass;
}

/**
 * Imports a URDF into the builder. File sources are read through `opts.resolver`; mesh paths
 * (relative, `package://`, `model://`) resolve against the URDF's path.
 */
export async function importUrdf(
  builder: ModelBuilder,
  source: ImportSource,
  opts: ImportOptions = {},
): Promise<ImportResult> {
  const file = source.path;
  const { text, path } = await readSourceText(source, opts.resolver, 'URDF');
  const robot = parseUrdf(text, file);
  const log = new ImportLog();
  const wantVisual = (opts.load_visual_shapes ?? true) || (opts.parse_visuals_as_colliders ?? false);
  const drawVisual = (opts.load_visual_shapes ?? true) && !(opts.parse_visuals_as_colliders ?? false);
  const imageWarnings: string[] = [];
  const meshes = await loadMeshes(robot, path, opts.resolver, wantVisual, drawVisual, imageWarnings);
  for (const w of imageWarnings.sort()) log.warn(w);
  return withRollback(builder, file, () => buildUrdf(builder, robot, meshes, opts, log));
}

function buildUrdf(
  b: ModelBuilder,
  robot: UrdfRobot,
  meshes: Map<string, LoadedMesh>,
  opts: ImportOptions,
  log: ImportLog,
): ImportResult {
  const prefix = opts.label_prefix ?? '';
  const xform = (opts.xform ?? IDENTITY_POSE) as Pose;
  const asVisualColliders = opts.parse_visuals_as_colliders ?? false;
  const loadVisual = (opts.load_visual_shapes ?? true) && !asVisualColliders;
  const meshMode = opts.mesh_collision ?? 'mesh';
  const baseCfg: Partial<ShapeConfig> = { ...(opts.shape_cfg ?? {}) };
  const density = baseCfg.density ?? b.default_shape.density;
  if (robot.ignored.length)
    log.warn(`ignored URDF elements: ${robot.ignored.map((n) => `<${n}>`).join(', ')}`);
  if (opts.collapse_fixed_joints) {
    log.unsupportedFeature('collapse_fixed_joints: fixed joints are kept (bodies are not merged)');
  }

  // kinematic order: roots first, then depth-first
  const childrenOf = new Map<string, UrdfJoint[]>();
  const isChild = new Set<string>();
  for (const j of robot.joints) {
    if (!childrenOf.has(j.parent)) childrenOf.set(j.parent, []);
    childrenOf.get(j.parent)!.push(j);
    isChild.add(j.child);
  }
  const roots = robot.links.filter((l) => !isChild.has(l.name));
  if (roots.length > 1) {
    log.warn(`${roots.length} root links (${roots.map((l) => l.name).join(', ')}); each gets the base joint`);
  }
  const linkByName = new Map(robot.links.map((l) => [l.name, l]));
  const worldPose = new Map<string, Pose>();
  const order: { link: UrdfLink; joint?: UrdfJoint }[] = [];
  const visit = (l: UrdfLink, joint: UrdfJoint | undefined, X: Pose) => {
    worldPose.set(l.name, X);
    order.push({ link: l, joint });
    for (const j of childrenOf.get(l.name) ?? []) visit(linkByName.get(j.child)!, j, poseMul(X, j.origin));
  };
  for (const r of roots) visit(r, undefined, [...xform] as Pose);

  // bodies and shapes
  const result: ImportResult = {
    name: robot.name,
    bodies: [],
    joints: [],
    shapes: [],
    equalities: [],
    warnings: log.warnings,
    unsupported: log.unsupported,
  };
  const bodyOf = new Map<string, number>();
  const plannedMassOf = new Map<string, number>();
  const collidersOf = new Map<number, number[]>();
  const meshCache = new Map<string, { index: number; mesh: TriMesh }>();
  const textureOf = new Map<string, number>();
  /**
   * the model mesh of a file (all of it, or one part when `part` is given; `textured`: the part's
   * textured copy with its image), scaled, added once and shared
   */
  const addMeshShapeData = (
    ref: string,
    scale: number[],
    hull: boolean,
    part?: number,
    textured = false,
  ): { index: number; mesh: TriMesh } | undefined => {
    const loaded = meshes.get(ref);
    const parts = loaded?.parts;
    if (!parts) return undefined;
    const key = `${ref}|${part ?? ''}|${scale.join(',')}|${hull ? 'hull' : 'mesh'}|${textured ? 'tex' : ''}`;
    const hit = meshCache.get(key);
    if (hit) return hit;
    // the whole file (colliders, single-part visuals) or one material's part
    const k = part ?? 0;
    const tex = textured ? parts[k].textured : undefined;
    const image = textured ? loaded.images?.[k] : undefined;
    const src = tex
      ? tex.mesh
      : part !== undefined
        ? parts[part].mesh
        : parts.length === 1
          ? parts[0].mesh
          : (loaded.whole ?? mergeParts(parts));
    let tri = scaleMesh(src, scale);
    if (hull) tri = convexHull(tri.vertices, ref, (w) => log.warn(w));
    const base = ref.slice(ref.lastIndexOf('/') + 1);
    let texture: number | undefined;
    if (tex && image) {
      texture = textureOf.get(image.path);
      if (texture === undefined) {
        texture = b.addTexture({ mime: image.mime, bytes: image.bytes, label: image.path });
        textureOf.set(image.path, texture);
      }
    }
    const index = b.addMesh({
      vertices: tri.vertices,
      triangles: tri.triangles,
      label: `${prefix}${base}${part === undefined ? '' : `#${parts[part].name ?? part}`}`,
      uv: tex?.uv,
      texture,
    });
    const out = { index, mesh: tri };
    meshCache.set(key, out);
    return out;
  };

  const shapeOf = (g: UrdfGeom): { type: ShapeTypeName; size: number[] } | undefined => {
    const s = g.geometry;
    switch (s.kind) {
      case 'box':
        return { type: 'box', size: [s.size[0] / 2, s.size[1] / 2, s.size[2] / 2] };
      case 'cylinder':
        return { type: 'cylinder', size: [s.radius, s.length / 2] };
      case 'capsule':
        return { type: 'capsule', size: [s.radius, s.length / 2] };
      case 'sphere':
        return { type: 'sphere', size: [s.radius] };
      case 'mesh':
        return undefined;
    }
  };

  const missingVisuals: { link: string; reason: string }[] = [];
  for (const { link } of order) {
    const inl = opts.ignore_inertial_definitions ? undefined : link.inertial;
    const body = b.addBody({
      label: `${prefix}${link.name}`,
      X_wb: worldPose.get(link.name),
      mass: inl ? (inl.mass ?? 0) : undefined,
      com: inl ? inl.origin.slice(0, 3) : undefined,
      inertia: inl?.inertia ? rotateTensor(inl.origin.slice(3), inl.inertia) : undefined,
    });
    bodyOf.set(link.name, body);
    result.bodies.push(body);
    let mass = 0;
    // visuals first (they decide whether colliders are shown)
    let visualsOk = 0;
    const visualFailed: string[] = [];
    if (loadVisual) {
      for (const [k, g] of link.visuals.entries()) {
        const cfg: Partial<ShapeConfig> = {
          ...baseCfg,
          density: 0,
          has_shape_collision: false,
          has_particle_collision: false,
          is_visible: true,
        };
        const label = `${prefix}${link.name}/${geometryLabel('visual', g.name, k, link.visuals.length)}`;
        if (g.geometry.kind === 'mesh') {
          const { filename, scale } = g.geometry;
          const parts = meshes.get(filename)?.parts;
          if (!parts) {
            visualFailed.push(meshes.get(filename)?.error ?? filename);
            continue;
          }
          // one shape per material; its texture, else the file's colour, else the URDF's
          const images = meshes.get(filename)?.images;
          parts.forEach((p, k) => {
            const textured = images?.[k] !== undefined;
            const m = addMeshShapeData(filename, scale, false, parts.length === 1 ? undefined : k, textured)!;
            result.shapes.push(
              b.addShape({
                body,
                type: 'mesh',
                mesh: m.index,
                size: [1, 1, 1],
                X_bs: g.origin,
                cfg,
                // a texture is drawn as authored: white times the image
                color: textured ? [1, 1, 1] : (p.color ?? g.color),
                label: parts.length === 1 ? label : `${label}/${p.name ?? k}`,
              }),
            );
          });
        } else {
          const sd = shapeOf(g)!;
          result.shapes.push(
            b.addShape({ body, type: sd.type, size: sd.size, X_bs: g.origin, cfg, color: g.color, label }),
          );
        }
        visualsOk++;
      }
      for (const f of visualFailed) missingVisuals.push({ link: link.name, reason: f });
    }
    const show = opts.hide_collision_shapes
      ? false
      : (opts.force_show_colliders ?? false) || visualsOk === 0 || visualFailed.length > 0;
    const colliders = asVisualColliders ? link.visuals : link.collisions;
    const own: number[] = [];
    for (const [k, g] of colliders.entries()) {
      const cfg: Partial<ShapeConfig> = { ...baseCfg, has_shape_collision: true, is_visible: show };
      const label = `${prefix}${link.name}/${geometryLabel('collision', g.name, k, colliders.length)}`;
      if (g.geometry.kind === 'mesh') {
        const hull = meshMode === 'convex_hull';
        const m = addMeshShapeData(g.geometry.filename, g.geometry.scale, hull);
        if (!m) {
          const corrupt = meshes.get(g.geometry.filename)?.corrupt;
          if (corrupt) throw corrupt;
          log.unsupportedFeature(
            `link '${link.name}': collision mesh not loaded (${meshes.get(g.geometry.filename)?.error ?? g.geometry.filename}); the collider is left out`,
          );
          continue;
        }
        own.push(
          b.addShape({
            body,
            type: hull ? 'convex_mesh' : 'mesh',
            mesh: m.index,
            size: [1, 1, 1],
            X_bs: g.origin,
            cfg,
            color: g.color,
            label,
          }),
        );
        mass += plannedMass(ShapeType.MESH, [1, 1, 1], m.mesh, density);
      } else {
        const sd = shapeOf(g)!;
        own.push(
          b.addShape({ body, type: sd.type, size: sd.size, X_bs: g.origin, cfg, color: g.color, label }),
        );
        mass += plannedMass(
          ShapeType[sd.type.toUpperCase() as keyof typeof ShapeType],
          sd.size,
          undefined,
          density,
        );
      }
    }
    result.shapes.push(...own);
    collidersOf.set(body, own);
    if (inl) mass = inl.mass ?? 0;
    plannedMassOf.set(link.name, mass);
  }

  if (missingVisuals.length) {
    // each whole reason once, with the links it hit
    const byReason = new Map<string, string[]>();
    for (const m of missingVisuals) byReason.set(m.reason, [...(byReason.get(m.reason) ?? []), m.link]);
    log.warn(
      `visual meshes not loaded on ${missingVisuals.length} link(s); their collision shapes are shown instead: ` +
        [...byReason].map(([reason, links]) => `${links.join(', ')} (${reason})`).join('; '),
    );
  }

  // massless moving subtrees
  const subtreeMass = (name: string): number =>
    (plannedMassOf.get(name) ?? 0) +
    (childrenOf.get(name) ?? []).reduce((s, j) => s + subtreeMass(j.child), 0);
  const fixTiny = (name: string, why: string) => {
    const rec = b.bodies[bodyOf.get(name)!];
    rec.mass = 1e-3;
    rec.inertia = [1e-6, 0, 0, 0, 1e-6, 0, 0, 0, 1e-6];
    rec.com = rec.com ?? [0, 0, 0];
    log.warn(
      `link '${name}' ${why} but nothing beyond it has mass; it gets 1e-3 kg and 1e-6 kg·m² so the mass matrix stays positive definite`,
    );
  };

  // base joints
  for (const r of roots) {
    const child = bodyOf.get(r.name)!;
    if (opts.floating) {
      result.joints.push(b.addJoint({ type: 'free', parent: -1, child, label: `${prefix}floating_base` }));
      if (subtreeMass(r.name) === 0) fixTiny(r.name, 'floats');
    } else {
      result.joints.push(
        b.addJoint({ type: 'fixed', parent: -1, child, X_p: xform, label: `${prefix}fixed_base` }),
      );
    }
  }

  // joints
  const jointIndex = new Map<string, number>();
  for (const { link, joint: j } of order) {
    if (!j) continue;
    const parent = bodyOf.get(j.parent)!;
    const child = bodyOf.get(link.name)!;
    const label = `${prefix}${j.name}`;
    const dof: Partial<JointDofConfig> = {};
    if (j.limit?.effort !== undefined) dof.effort_limit = j.limit.effort;
    if (j.limit?.velocity !== undefined) dof.velocity_limit = j.limit.velocity;
    if (j.dynamics?.damping !== undefined) dof.damping = j.dynamics.damping;
    if (j.dynamics?.friction !== undefined) dof.friction = j.dynamics.friction;
    const limited = j.type === 'revolute' || j.type === 'prismatic' || j.type === 'planar';
    if (limited && j.limit?.lower !== undefined) dof.limit_lower = j.limit.lower;
    if (limited && j.limit?.upper !== undefined) dof.limit_upper = j.limit.upper;
    if (dof.limit_lower !== undefined && dof.limit_upper !== undefined && dof.limit_lower > dof.limit_upper) {
      throw new ImportError(
        `<joint name="${j.name}"> <limit>: lower ${dof.limit_lower} > upper ${dof.limit_upper}`,
        undefined, // the file: withRollback adds it
        j.line,
      );
    }
    const moving = j.type !== 'fixed';
    if (moving && subtreeMass(link.name) === 0) fixTiny(link.name, `moves (joint '${j.name}')`);
    let index: number;
    switch (j.type) {
      case 'revolute':
      case 'continuous':
      case 'prismatic':
        index = b.addJoint({
          type: j.type === 'prismatic' ? 'prismatic' : 'revolute',
          parent,
          child,
          X_p: j.origin,
          axis: j.axis,
          label,
          ...dof,
        });
        break;
      case 'fixed':
        index = b.addJoint({ type: 'fixed', parent, child, X_p: j.origin, label });
        break;
      case 'floating':
        log.unsupportedFeature(
          `joint '${j.name}': a floating joint below link '${j.parent}' is realized as fixed (free joints attach to the world only)`,
        );
        index = b.addJoint({ type: 'fixed', parent, child, X_p: j.origin, label });
        break;
      case 'planar': {
        // two prismatic DOFs spanning the plane normal to the axis, through a massless body
        const n = j.axis.map((v) => v / Math.hypot(...j.axis));
        const helper = Math.abs(n[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
        const u = normalize(cross(helper, n));
        const v = cross(n, u);
        const mid = b.addBody({
          label: `${prefix}${j.name}/planar_u`,
          X_wb: worldPose.get(link.name),
          mass: 0,
          inertia: [0, 0, 0, 0, 0, 0, 0, 0, 0],
        });
        result.bodies.push(mid);
        result.joints.push(
          b.addJoint({
            type: 'prismatic',
            parent,
            child: mid,
            X_p: j.origin,
            axis: u,
            label: `${label}/u`,
            ...dof,
          }),
        );
        index = b.addJoint({ type: 'prismatic', parent: mid, child, axis: v, label: `${label}/v`, ...dof });
        break;
      }
    }
    jointIndex.set(j.name, index);
    result.joints.push(index);
  }

  // mimic couplers
  for (const j of robot.joints) {
    if (!j.mimic) continue;
    const follower = jointIndex.get(j.name);
    const leader = jointIndex.get(j.mimic.joint);
    if (leader === undefined) {
      log.warn(`joint '${j.name}': mimic refers to unknown joint '${j.mimic.joint}'; no coupling`);
      continue;
    }
    const scalar = (k: number) =>
      b.joints[k].type === JointType.REVOLUTE || b.joints[k].type === JointType.PRISMATIC;
    if (follower === undefined || !scalar(follower) || !scalar(leader)) {
      log.unsupportedFeature(`joint '${j.name}': mimic needs two 1-DOF joints`);
      continue;
    }
    result.equalities.push(
      b.addEquality({
        type: 'coupler',
        joint0: follower,
        joint1: leader,
        ratio: j.mimic.multiplier,
        offset: j.mimic.offset,
        label: `${prefix}mimic_${j.name}`,
      }),
    );
  }

  // self-collision filtering
  if (opts.enable_self_collisions === false) {
    const all = [...collidersOf.entries()];
    for (let i = 0; i < all.length; i++)
      for (let k = i + 1; k < all.length; k++)
        for (const a of all[i][1]) for (const c of all[k][1]) b.addFilterPair(a, c);
  }
  return result;
}

function cross(a: readonly number[], c: readonly number[]): number[] {
  return [a[1] * c[2] - a[2] * c[1], a[2] * c[0] - a[0] * c[2], a[0] * c[1] - a[1] * c[0]];
}
function normalize(a: number[]): number[] {
  const n = Math.hypot(a[0], a[1], a[2]);
  return [a[0] / n, a[1] / n, a[2] / n];
}
