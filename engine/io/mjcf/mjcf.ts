/**
 * MJCF importer (SPEC §5.2). Stages: read + `<include>` ({@link loadMjcfTree}) → compiler settings and
 * default classes → mesh / heightfield assets loaded through the resolver → one pass over the body tree
 * that plans bodies, joints, shapes → equality, contact, actuator, keyframe sections → build into the
 * {@link ModelBuilder}. Any failure throws an {@link ImportError}; the builder is then left unchanged.
 *
 * Mapping decisions (documented here once):
 * - Frames: pos + one of quat (MJCF order w x y z), axisangle, euler (compiler eulerseq; lower case
 *   intrinsic, upper case extrinsic), xyaxes, zaxis; angles in compiler units (degrees by default).
 * - A body with several joints becomes a chain of massless intermediate bodies (one joint each, in
 *   file order) ending at the real body; a body without joints is welded to its parent (fixed joint).
 *   Hinge/slide axes and anchors (`pos`) are in the body frame; `ref` offsets joint_q (q_ours = qpos − ref).
 * - Mass: `<inertial>` when present (inertiafromgeom auto/false), else the geoms' mass at their density
 *   (default 1000; `mass=` sets the density from the geom volume). Mesh geoms use the convex hull's volume.
 * - Geoms: sizes follow MuJoCo (capsule/cylinder [r, half-length], box half-sizes, ellipsoid radii, plane
 *   half-sizes with 0 = infinite), `fromto` for capsule/cylinder/box/ellipsoid. Colliding = not
 *   (contype = conaffinity = 0). Colliding meshes are convex_mesh shapes holding the hull (MuJoCo
 *   collides with hulls), plus a visual copy of the full mesh when the geom is visible. Visible = group < 3.
 *   Mesh assets: STL / OBJ or inline vertex/face, `scale` baked in (a negative determinant flips the
 *   winding), refpos/refquat applied. hfield assets: `elevation` or a MuJoCo `.bin` file, normalized to
 *   [0, 1] like MuJoCo, as heightfield shapes (PNG files are not read). Sites: massless, non-colliding,
 *   hidden site shapes.
 *   friction[0] → mu; a geom without `friction` (its own or its class's) gets MuJoCo's default 1 unless
 *   the importing scene sets `mu` for the asset. solref/solimp/condim/margin are not mapped (stiffness
 *   and damping come from the scene's shape defaults); a warning says so.
 * - contype/conaffinity: every colliding geom gets collision group 1; MuJoCo's bitmask test, the
 *   same-weld-group and parent-weld filters and `<contact><exclude>` are realized exactly inside the
 *   asset as filter pairs. Against shapes outside the asset (a scene ground) every colliding geom
 *   collides (an approximation when the file uses non-default bitmasks).
 * - Joints: damping → damping, armature → armature, frictionloss → friction, range (limited / autolimits)
 *   → limits; stiffness and springref → the joint's passive spring τ = −k·(q − springref), explicit in
 *   the free motion as in MuJoCo (hinge and slide; ball-joint stiffness is unsupported).
 *   Ball-joint range: a cone limit on the rotation angle (range[1]; ConeMode.ROTATION). Ball- or
 *   free-joint frictionloss is unsupported (named, not stored).
 * - Actuators (joint transmission): position kp/kv → target_ke = kp·gear², target_kd = kv·gear²;
 *   velocity kv → target_kd = kv·gear²; general with affine bias (force g0·ctrl + b0 + b1·l + b2·l̇):
 *   b1 < 0 a position servo (kp = −b1, kv = −b2), b1 = 0 and b2 < 0 a velocity servo (kv = −b2), their
 *   target (g0·ctrl + b0)/(k·gear); motor / general without bias record an effort actuator. forcerange
 *   (or motor ctrlrange × gear) → effort_limit. ctrl of a keyframe sets the PD target. A position
 *   servo's `dampratio` (or a general one's biasprm[2] > 0) becomes kv = dampratio·2·√(kp·m₀/gear²),
 *   m₀ the joint's inertia at qpos0 (MuJoCo's dof_M0, from the authored body poses).
 * - Body `gravcomp` → the body's gravity compensation (a force −gravcomp·m·g at its COM); a joint's
 *   `actuatorgravcomp` (routing it through the actuator) is reported as unsupported.
 * - Equality: connect → ball, weld → weld, joint → coupler (polycoef[0] offset, polycoef[1] ratio;
 *   higher terms unsupported). Fixed tendons: their range → a tendon-limit constraint (spring, damping,
 *   friction loss unsupported). Spatial tendons (site paths with pulleys; limits, spring, damping;
 *   geom wrapping unsupported: straight segments) and actuators with a tendon or slider-crank
 *   transmission: `./transmissions.ts`. Contact pairs, tendon/flex equalities: unsupported.
 * - Keyframes: qpos (free: p + quat wxyz → p + quat xyzw, moved by `xform`; ball wxyz → xyzw) and qvel
 *   (free: MuJoCo's body-origin velocity and body-frame ω → the COM's velocity and ω in the world) are
 *   exposed per builder joint; `opts.keyframe` applies one as the initial state.
 */
import { readableModelName } from '../model_name';
import {
  meshMassProperties,
  ModelError,
  shapeMassProperties,
  ShapeType,
  type JointDofConfig,
  type ModelBuilder,
  type ShapeConfig,
  type ShapeTypeName,
} from '../../model';
import { ImportError } from '../assets/errors';

/** MuJoCo's default sliding friction coefficient (geom `friction` "1 0.005 0.0001") */
const MUJOCO_DEFAULT_FRICTION = 1;
import {
  IDENTITY_POSE,
  axisAngleQuat,
  eulerQuat,
  matQuat,
  pose,
  poseInv,
  poseMul,
  quatMult,
  rotate,
  rotateTensor,
  zAxisQuat,
  type Pose,
  type Quat,
} from '../assets/frames';
import {
  ImportLog,
  readAsset,
  readSourceText,
  withRollback,
  type ImportedKeyframe,
  type ImportOptions,
  type ImportResult,
  type ImportSource,
} from '../assets/importer';
import { decodeText, type AssetResolver } from '../assets/resolver';
import { rethrowOutside } from '../assets/confined';
import { joinPath } from '../assets/resolvers';
import { generalServo, servoJointGains, type MujocoServo } from '../assets/mujoco_actuator';
import {
  convexHull,
  extensionOf,
  imageFile,
  parseMeshBytes,
  parseObjWithTexcoords,
  scaleMesh,
  type ImageFile,
  type ObjTexcoords,
  type TriMesh,
} from '../mesh';
import { assertElementCounts, numberTokens, type XmlElement } from '../xml/xml';
import { LIMITS, limitMessage } from '../limits';
import { timeStepProblem } from '../model_check';
import { DefaultClasses, elError, loadMjcfTree, readCompiler, type CompilerSettings } from './document';
import {
  readLengthActuator,
  readSpatialTendon,
  type LengthActuatorLaw,
  type MjcfSite,
  type MjcfTransmissionContext,
} from './transmissions';

// ------------------------------------------------------------------------------------------- plan types

type JointKind = 'hinge' | 'slide' | 'ball' | 'free';

interface PJoint {
  name: string;
  kind: JointKind;
  pos: number[];
  axis: number[];
  ref: number;
  dof: Partial<JointDofConfig>;
  springref: number;
  stiffness: number;
  /** ball joints: the largest rotation angle (range[1]) [rad] */
  cone?: number;
  el: XmlElement;
}

interface PShape {
  type: ShapeTypeName;
  size: number[];
  X: Pose;
  cfg: Partial<ShapeConfig>;
  label: string;
  color?: number[];
  mesh?: string;
  /** the 2D texture of the geom's material (a <texture> name), drawn on a mesh's coordinates */
  texture?: string;
  hfield?: string;
  colliding: boolean;
  contype: number;
  conaffinity: number;
  /** mesh geom: also add a visual copy of the full mesh */
  visualCopy?: boolean;
  /** the <geom> / <site> element, for errors */
  el?: XmlElement;
}

/** runs a builder call; a ModelError it throws is reported at the element it came from */
function located<T>(el: XmlElement | undefined, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ModelError && el) throw elError(el, e.message);
    throw e;
  }
}

interface PBody {
  index: number;
  name: string;
  label: string;
  parent: number; // -1 world
  /** pose in the parent body frame */
  local: Pose;
  world: Pose;
  joints: PJoint[];
  shapes: PShape[];
  inertial?: { mass: number; com: number[]; inertia: number[] };
  /** gravity compensation (MuJoCo's body `gravcomp`) */
  gravcomp: number;
  mocap: boolean;
  el: XmlElement;
}

interface MeshAsset {
  name: string;
  file?: string;
  scale: number[];
  refpos: number[];
  refquat: Quat;
  inline?: TriMesh;
  el: XmlElement;
}

// ------------------------------------------------------------------------------------------- parsing helpers

/** attributes where ±inf is meaningful (an unbounded side of a range) */
const INFINITE_OK = new Set(['range', 'ctrlrange', 'forcerange', 'actuatorfrcrange', 'lengthrange']);

class Reader {
  constructor(
    readonly cs: CompilerSettings,
    readonly defs: DefaultClasses,
  ) {}

  /** the element's attribute, else its class default for `kind` */
  attr(el: XmlElement, cls: string, name: string, kind = el.name): string | undefined {
    const v = el.attrs[name];
    if (v !== undefined) return v;
    return this.defs.attrs(el.attrs.class ?? cls, kind)[name];
  }

  nums(el: XmlElement, cls: string, name: string, kind = el.name): number[] | undefined {
    const s = this.attr(el, cls, name, kind);
    if (s === undefined) return undefined;
    const t = s.trim();
    if (t === '') return [];
    const out = numberTokens(t);
    if (out.some((v) => Number.isNaN(v)))
      throw elError(el, `<${el.name} ${name}="${s.slice(0, 60)}">: expected numbers`);
    // ±inf means "unbounded" only in ranges; anywhere else it would poison the model
    if (!INFINITE_OK.has(name) && out.some((v) => !Number.isFinite(v)))
      throw elError(el, `<${el.name} ${name}="${s.slice(0, 60)}">: expected finite numbers`);
    return out;
  }

  /** exactly n numbers (or undefined) */
  vec(el: XmlElement, cls: string, name: string, n: number, kind = el.name): number[] | undefined {
    const v = this.nums(el, cls, name, kind);
    if (v === undefined) return undefined;
    if (v.length < n) throw elError(el, `<${el.name} ${name}> needs ${n} numbers, got ${v.length}`);
    return v.slice(0, n);
  }

  num(el: XmlElement, cls: string, name: string, kind = el.name): number | undefined {
    return this.nums(el, cls, name, kind)?.[0];
  }

  angle(v: number): number {
    return this.cs.degrees ? (v * Math.PI) / 180 : v;
  }

  /** the orientation of an element (one of quat, axisangle, euler, xyaxes, zaxis), xyzw */
  orientation(el: XmlElement, cls: string, kind = el.name): Quat {
    const given = ['quat', 'axisangle', 'euler', 'xyaxes', 'zaxis'].filter(
      (k) => this.attr(el, cls, k, kind) !== undefined,
    );
    if (given.length > 1) throw elError(el, `<${el.name}> gives ${given.join(' and ')}; use one orientation`);
    const k = given[0];
    if (k === undefined) return [0, 0, 0, 1];
    if (k === 'quat') {
      const q = this.vec(el, cls, 'quat', 4, kind)!;
      const n = Math.hypot(q[0], q[1], q[2], q[3]);
      if (!(n > 0) || !Number.isFinite(n)) throw elError(el, 'quat must be non-zero and finite');
      return [q[1] / n, q[2] / n, q[3] / n, q[0] / n]; // wxyz → xyzw
    }
    if (k === 'axisangle') {
      const a = this.vec(el, cls, 'axisangle', 4, kind)!;
      if (!(Math.hypot(a[0], a[1], a[2]) > 0)) throw elError(el, 'axisangle needs a non-zero axis');
      return axisAngleQuat(a, this.angle(a[3]));
    }
    if (k === 'euler') {
      const e = this.vec(el, cls, 'euler', 3, kind)!;
      return eulerQuat(
        e.map((v) => this.angle(v)),
        this.cs.eulerseq,
      );
    }
    if (k === 'xyaxes') {
      const v = this.vec(el, cls, 'xyaxes', 6, kind)!;
      const x = norm(v.slice(0, 3));
      let y = v.slice(3, 6);
      const d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
      y = norm([y[0] - d * x[0], y[1] - d * x[1], y[2] - d * x[2]]);
      if (!x.every(Number.isFinite) || !y.every(Number.isFinite))
        throw elError(el, 'xyaxes must span a plane');
      const z = cross(x, y);
      return matQuat([x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]]);
    }
    return zAxisQuat(this.vec(el, cls, 'zaxis', 3, kind)!);
  }

  pose(el: XmlElement, cls: string, kind = el.name): Pose {
    return pose(this.vec(el, cls, 'pos', 3, kind) ?? [0, 0, 0], this.orientation(el, cls, kind));
  }

  /** limited = true / false / auto (auto: limited when a range is given and autolimits is on) */
  limited(el: XmlElement, cls: string, flag: string, rangeAttr: string, kind = el.name): boolean {
    const v = this.attr(el, cls, flag, kind) ?? 'auto';
    if (v === 'true') return true;
    if (v === 'false') return false;
    const hasRange = this.attr(el, cls, rangeAttr, kind) !== undefined;
    if (hasRange && !this.cs.autolimits && this.attr(el, cls, flag, kind) === undefined) return false;
    return hasRange;
  }
}

function norm(v: number[]): number[] {
  const n = Math.hypot(v[0], v[1], v[2]);
  return [v[0] / n, v[1] / n, v[2] / n];
}
function cross(a: readonly number[], b: readonly number[]): number[] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
const maxAbs = (r: number[]) => Math.max(Math.abs(r[0]), Math.abs(r[1]));

// ------------------------------------------------------------------------------------------- importer

/**
 * Imports an MJCF model into the builder. File sources (and `<include>`s, mesh files) are read through
 * `opts.resolver`; mesh paths resolve against the compiler's meshdir (relative to the main file).
 */
export async function importMjcf(
  builder: ModelBuilder,
  source: ImportSource,
  opts: ImportOptions = {},
): Promise<ImportResult> {
  const file = source.path;
  const { text, path } = await readSourceText(source, opts.resolver, 'MJCF');
  const root = await loadMjcfTree(text, path, opts.resolver);
  assertElementCounts(root, { body: 'max_bodies', geom: 'max_shapes', site: 'max_shapes' });
  const cs = readCompiler(root);
  const defs = new DefaultClasses(root);
  const rd = new Reader(cs, defs);
  const log = new ImportLog();
  const meshes = readMeshAssets(root, rd, log);
  const texcoords = new Map<string, ObjTexcoords>();
  const loaded = await loadMeshFiles(meshes, path, cs, opts.resolver, texcoords);
  const hfields = await readHfields(root, rd, path, cs, opts.resolver);
  const textures = await readTextures(root, path, cs, opts.resolver);
  const result = await withRollback(builder, file, () =>
    new MjcfBuilder(builder, root, rd, opts, log, meshes, loaded, hfields, texcoords, textures).build(),
  );
  // `<mujoco model>` names the model; without it (or with MuJoCo's placeholder), the file does
  result.name = readableModelName(root.attrs.model, path ?? file, 'mujoco');
  return result;
}

/**
 * reads the image of every 2D `<texture file>` that a material uses (each once); the value is the
 * reason when it cannot be drawn (missing, not an image browsers decode, another texture type)
 */
async function readTextures(
  root: XmlElement,
  path: string,
  cs: CompilerSettings,
  resolver: AssetResolver | undefined,
): Promise<Map<string, ImageFile | string>> {
  const out = new Map<string, ImageFile | string>();
  const assets = root.children.filter((c) => c.name === 'asset');
  const used = new Set<string>();
  for (const a of assets)
    for (const m of a.children)
      if (m.name === 'material' && m.attrs.texture !== undefined) used.add(m.attrs.texture);
  for (const a of assets) {
    for (const t of a.children) {
      const name =
        t.attrs.name ?? t.attrs.file?.slice(t.attrs.file.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');
      if (t.name !== 'texture' || name === undefined || !used.has(name)) continue;
      // MuJoCo's default type is 'cube'; only 2D textures map onto a mesh's coordinates
      if ((t.attrs.type ?? 'cube') !== '2d') {
        out.set(name, `a '${t.attrs.type ?? 'cube'}' texture (only 2d textures are drawn on meshes)`);
        continue;
      }
      const file = t.attrs.file;
      if (!file) {
        out.set(name, 'a builtin texture (only image files are drawn)');
        continue;
      }
      if (!resolver) {
        out.set(name, 'no resolver to read texture files');
        continue;
      }
      const target = assetTarget(resolver, path, cs.texturedir, file);
      try {
        const f = imageFile(target, await readAsset(resolver, target));
        out.set(name, typeof f === 'string' ? `${target} is ${f}` : f);
      } catch (e) {
        rethrowOutside(e);
        out.set(name, `${target}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
  return out;
}

interface HfieldData {
  nrow: number;
  ncol: number;
  size: number[];
  data: Float64Array;
}

/** most samples in one heightfield */
export const MAX_HFIELD_SAMPLES = LIMITS.max_hfield_samples;

/**
 * `<hfield>` assets: `elevation` (nrow × ncol values) or a MuJoCo binary `.bin` file (int32 nrow,
 * int32 ncol, float32 data), normalized to [0, 1] as MuJoCo does; none of them: a flat field.
 * Image files (PNG) are not read.
 */
/**
 * the resolver path of a file the model at `modelPath` names, under a compiler directory (meshdir,
 * texturedir) unless the name is absolute
 */
function assetTarget(
  resolver: AssetResolver,
  modelPath: string,
  compilerDir: string | undefined,
  file: string,
): string {
  const rel = compilerDir && !file.startsWith('/') ? joinPath(compilerDir, file) : file;
  // through the resolver for absolute paths too, so a confined one sees the reference and its file
  return resolver.resolve(modelPath || '_', rel);
}

async function readHfields(
  root: XmlElement,
  rd: Reader,
  path: string,
  cs: CompilerSettings,
  resolver: AssetResolver | undefined,
): Promise<Map<string, HfieldData | string>> {
  const out = new Map<string, HfieldData | string>();
  for (const asset of root.children.filter((c) => c.name === 'asset')) {
    for (const h of asset.children.filter((c) => c.name === 'hfield')) {
      const file = h.attrs.file;
      const name =
        h.attrs.name ?? (file ? file.slice(file.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '') : undefined);
      if (!name) throw elError(h, '<hfield> needs a name or a file');
      const size = rd.vec(h, 'main', 'size', 4);
      if (!size || size.some((v) => !(v >= 0) || !Number.isFinite(v)))
        throw elError(h, '<hfield> needs size="rx ry top base" ≥ 0');
      let nrow = rd.num(h, 'main', 'nrow') ?? 0;
      let ncol = rd.num(h, 'main', 'ncol') ?? 0;
      let raw: ArrayLike<number> | undefined = rd.nums(h, 'main', 'elevation');
      if (file) {
        if (!resolver) {
          out.set(name, 'no resolver to read hfield files');
          continue;
        }
        const target = assetTarget(resolver, path, cs.meshdir, file);
        if (extensionOf(target) !== '.bin') {
          out.set(name, `${target}: only MuJoCo .bin heightfield files are read`);
          continue;
        }
        try {
          const bytes = await readAsset(resolver, target);
          const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          nrow = bytes.length >= 8 ? dv.getInt32(0, true) : 0;
          ncol = bytes.length >= 8 ? dv.getInt32(4, true) : 0;
          if (!(
            nrow > 0 &&
            ncol > 0 &&
            nrow * ncol <= MAX_HFIELD_SAMPLES &&
            bytes.length === 8 + 4 * nrow * ncol
          )) {
            throw new Error(`bad .bin heightfield header (${nrow} × ${ncol}, ${bytes.length} bytes)`);
          }
          const f = new Float64Array(nrow * ncol);
          for (let i = 0; i < f.length; i++) f[i] = dv.getFloat32(8 + 4 * i, true);
          raw = f;
        } catch (e) {
          rethrowOutside(e);
          out.set(name, `${target}: ${e instanceof Error ? e.message : String(e)}`);
          continue;
        }
      }
      if (!(
        Number.isInteger(nrow) &&
        Number.isInteger(ncol) &&
        nrow >= 2 &&
        ncol >= 2 &&
        nrow * ncol <= MAX_HFIELD_SAMPLES
      )) {
        throw elError(
          h,
          `<hfield> needs integer nrow, ncol ≥ 2 and nrow·ncol ≤ max_hfield_samples = ${MAX_HFIELD_SAMPLES}`,
        );
      }
      const data = new Float64Array(nrow * ncol);
      if (raw) {
        if (raw.length !== nrow * ncol)
          throw elError(h, `<hfield> elevation has ${raw.length} values, expected ${nrow * ncol}`);
        let lo = Infinity,
          hi = -Infinity;
        for (let i = 0; i < raw.length; i++) {
          if (!Number.isFinite(raw[i])) throw elError(h, '<hfield> elevation must be finite');
          lo = Math.min(lo, raw[i]);
          hi = Math.max(hi, raw[i]);
        }
        for (let i = 0; i < raw.length; i++) data[i] = hi > lo ? (raw[i] - lo) / (hi - lo) : 0;
      }
      out.set(name, { nrow, ncol, size, data });
    }
  }
  return out;
}

function readMeshAssets(root: XmlElement, rd: Reader, log: ImportLog): Map<string, MeshAsset> {
  const out = new Map<string, MeshAsset>();
  for (const asset of root.children.filter((c) => c.name === 'asset')) {
    for (const m of asset.children.filter((c) => c.name === 'mesh')) {
      const file = m.attrs.file;
      const name =
        m.attrs.name ?? (file ? file.slice(file.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '') : undefined);
      if (!name) throw elError(m, '<mesh> needs a name or a file');
      if (out.has(name)) throw elError(m, `duplicate mesh '${name}'`);
      const scale = rd.vec(m, 'main', 'scale', 3) ?? [1, 1, 1];
      if (scale.some((s) => s === 0 || !Number.isFinite(s)))
        throw elError(m, 'mesh scale must be finite and non-zero');
      const vertex = rd.nums(m, 'main', 'vertex');
      const face = rd.nums(m, 'main', 'face');
      let inline: TriMesh | undefined;
      if (!file) {
        if (!vertex || vertex.length < 12 || vertex.length % 3)
          throw elError(m, '<mesh> needs a file or ≥ 4 vertices');
        if (!face) {
          // MuJoCo: vertices without faces are the mesh's convex hull (drawn, collided and weighed so)
          try {
            inline = convexHull(vertex, `mesh '${name}'`, (w) => log.warn(w));
          } catch (e) {
            throw elError(m, `<mesh vertex> without faces: ${e instanceof Error ? e.message : String(e)}`);
          }
        } else {
          if (
            face.length % 3 ||
            face.some((i) => !(Number.isInteger(i) && i >= 0 && i < vertex.length / 3))
          ) {
            throw elError(m, '<mesh face> needs vertex index triples');
          }
          inline = { vertices: Float64Array.from(vertex), triangles: Int32Array.from(face) };
        }
      }
      out.set(name, {
        name,
        file,
        scale,
        refpos: rd.vec(m, 'main', 'refpos', 3) ?? [0, 0, 0],
        refquat: ((): Quat => {
          const q = rd.vec(m, 'main', 'refquat', 4);
          return q ? [q[1], q[2], q[3], q[0]] : [0, 0, 0, 1];
        })(),
        inline,
        el: m,
      });
    }
  }
  return out;
}

async function loadMeshFiles(
  meshes: Map<string, MeshAsset>,
  path: string,
  cs: CompilerSettings,
  resolver: AssetResolver | undefined,
  texcoords: Map<string, ObjTexcoords>,
): Promise<Map<string, TriMesh | string>> {
  const out = new Map<string, TriMesh | string>();
  await Promise.all(
    [...meshes.values()].map(async (m) => {
      if (m.inline) {
        out.set(m.name, m.inline);
        return;
      }
      if (!resolver) {
        out.set(m.name, 'no resolver to read mesh files');
        return;
      }
      const target = assetTarget(resolver, path, cs.meshdir, m.file!);
      try {
        const ext = extensionOf(target);
        if (ext !== '.stl' && ext !== '.obj')
          throw new Error(`mesh format '${ext}' is not read (STL and OBJ are)`);
        const bytes = await readAsset(resolver, target);
        if (ext === '.obj') {
          // an OBJ's texture coordinates are kept for textured visuals
          const r = parseObjWithTexcoords(decodeText(bytes, target), target);
          out.set(m.name, r.mesh);
          if (r.texcoords) texcoords.set(m.name, r.texcoords);
        } else out.set(m.name, parseMeshBytes(bytes, target));
      } catch (e) {
        rethrowOutside(e);
        out.set(m.name, `${target}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }),
  );
  return out;
}

class MjcfBuilder {
  readonly prefix: string;
  readonly xform: Pose;
  readonly bodies: PBody[] = [];
  readonly jointByName = new Map<string, { body: number; k: number }>();
  readonly bodyByName = new Map<string, number>();
  readonly worldShapes: PShape[] = [];
  readonly sites: { body: number; shape: PShape }[] = [];
  /** named sites (also when sites are not loaded as shapes): MJCF body (-1 world), pose in it */
  readonly siteByName = new Map<string, { body: number; X: Pose } | null>();
  /** tendon name → builder spatial or fixed tendon index */
  readonly tendonByName = new Map<string, { spatial: boolean; index: number }>();
  readonly result: ImportResult;
  readonly ignored = new Set<string>();
  /** per MJCF body: builder body index; per (body, joint k): builder joint index */
  readonly builderBody: number[] = [];
  readonly builderJoint = new Map<string, number>();
  /** colliding shapes: builder shape index → MJCF body (-1 world) and bitmasks */
  readonly colliders: { shape: number; body: number; contype: number; conaffinity: number }[] = [];
  readonly meshCache = new Map<string, { index: number; mesh: TriMesh }>();
  /** builder texture of each image file (by resolved path) */
  readonly textureIndex = new Map<string, number>();
  readonly hfieldCache = new Map<string, number>();
  readonly excludes: [number, number][] = [];
  /** joints whose gravity compensation MuJoCo routes through their actuator */
  readonly actuatorGravcomp: string[] = [];
  readonly actuatorGains = new Map<
    number,
    { ke: number; kd: number; effort?: number; targetScale: number; targetOffset: number }
  >();

  constructor(
    readonly b: ModelBuilder,
    readonly root: XmlElement,
    readonly rd: Reader,
    readonly opts: ImportOptions,
    readonly log: ImportLog,
    readonly meshAssets: Map<string, MeshAsset>,
    readonly meshData: Map<string, TriMesh | string>,
    readonly hfieldData: Map<string, HfieldData | string>,
    readonly texcoordData: Map<string, ObjTexcoords>,
    readonly textureFiles: Map<string, ImageFile | string>,
  ) {
    this.prefix = opts.label_prefix ?? '';
    this.xform = [...(opts.xform ?? IDENTITY_POSE)] as Pose;
    this.result = {
      name: root.attrs.model ?? 'mujoco',
      bodies: [],
      joints: [],
      shapes: [],
      equalities: [],
      tendons: [],
      keyframes: [],
      actuators: [],
      warnings: log.warnings,
      unsupported: log.unsupported,
    };
  }

  build(): ImportResult {
    this.readOption();
    for (const wb of this.root.children.filter((c) => c.name === 'worldbody')) {
      this.walk(wb, -1, [...this.xform] as Pose, [...IDENTITY_POSE] as Pose, 'main');
    }
    this.emitBodies();
    if (this.bodies.some((p) => p.gravcomp !== 0)) {
      for (const j of this.actuatorGravcomp)
        this.log.unsupportedFeature(
          `joint '${j}': actuatorgravcomp (the compensation acts as a passive force, outside the actuator's force range)`,
        );
    }
    this.readContact();
    this.readEquality();
    this.readTendons();
    this.readActuators();
    this.applyFilters();
    this.readKeyframes();
    const known = new Set([
      'compiler',
      'option',
      'size',
      'default',
      'asset',
      'worldbody',
      'contact',
      'equality',
      'actuator',
      'tendon',
      'keyframe',
    ]);
    for (const c of this.root.children) if (!known.has(c.name)) this.ignored.add(`<${c.name}>`);
    if (this.ignored.size) this.log.warn(`ignored MJCF elements: ${[...this.ignored].sort().join(', ')}`);
    return this.result;
  }

  // ---------------------------------------------------------------------------- option

  readOption(): void {
    for (const o of this.root.children.filter((c) => c.name === 'option')) {
      const ts = this.rd.num(o, 'main', 'timestep');
      const bad = ts === undefined ? undefined : timeStepProblem(ts);
      if (bad) throw elError(o, `<option timestep="${o.attrs.timestep}">: ${bad}`);
      if (ts !== undefined) this.result.timestep = ts;
      const g = this.rd.vec(o, 'main', 'gravity', 3);
      if (g) this.result.gravity = [g[0], g[1], g[2]];
    }
  }

  // ---------------------------------------------------------------------------- tree

  /** walks worldbody / body / frame children; `frame` is the pose of the current frame in body `body` */
  walk(el: XmlElement, body: number, frameWorld: Pose, frameLocal: Pose, cls: string): void {
    for (const c of el.children) {
      const childCls = c.attrs.childclass ?? cls;
      switch (c.name) {
        case 'body': {
          const ccls = c.attrs.childclass ?? cls;
          if (c.attrs.childclass !== undefined && !this.rd.defs.has(c.attrs.childclass)) {
            throw elError(c, `unknown childclass '${c.attrs.childclass}'`);
          }
          const local = poseMul(frameLocal, this.rd.pose(c, ccls, 'body'));
          const parentWorld = body < 0 ? (this.xform as Pose) : this.bodies[body].world;
          const world = poseMul(parentWorld, local);
          const index = this.bodies.length;
          const name = c.attrs.name ?? '';
          const p: PBody = {
            index,
            name,
            label: `${this.prefix}${name || `body${index}`}`,
            parent: body,
            local,
            world,
            joints: [],
            shapes: [],
            gravcomp: this.rd.num(c, ccls, 'gravcomp') ?? 0,
            mocap: c.attrs.mocap === 'true',
            el: c,
          };
          if (name) {
            if (this.bodyByName.has(name)) throw elError(c, `duplicate body '${name}'`);
            this.bodyByName.set(name, index);
          }
          this.bodies.push(p);
          this.readBodyContent(c, p, ccls);
          this.walk(c, index, world, [...IDENTITY_POSE] as Pose, ccls);
          break;
        }
        case 'frame': {
          const fl = poseMul(frameLocal, this.rd.pose(c, childCls, 'frame'));
          const fw = body < 0 ? poseMul(this.xform, fl) : poseMul(this.bodies[body].world, fl);
          this.walk(c, body, fw, fl, childCls);
          break;
        }
        case 'geom':
          if (body < 0) this.readGeom(c, cls, frameLocal, undefined);
          break;
        case 'site':
          if (body < 0) this.readSite(c, cls, frameLocal, -1);
          break;
        case 'joint':
        case 'freejoint':
        case 'inertial':
          if (body < 0) throw elError(c, `<${c.name}> is not allowed in the worldbody`);
          break;
        case 'camera':
        case 'light':
          break;
        case 'replicate':
        case 'attach':
        case 'composite':
        case 'flexcomp':
        case 'plugin':
          this.log.unsupportedFeature(`<${c.name}> at ${c.file ?? ''}:${c.line}`);
          break;
        default:
          this.ignored.add(`<${c.name}>`);
      }
    }
  }

  /** geoms, sites, joints and inertial of a body (geoms/sites inside frames come through `walk`) */
  readBodyContent(el: XmlElement, p: PBody, cls: string): void {
    const rd = this.rd;
    const scan = (container: XmlElement, frame: Pose, ccls: string) => {
      for (const c of container.children) {
        const ecls = c.attrs.class ?? ccls;
        if (c.attrs.class !== undefined && !rd.defs.has(c.attrs.class))
          throw elError(c, `unknown class '${c.attrs.class}'`);
        switch (c.name) {
          case 'geom':
            this.readGeom(c, ecls, frame, p);
            break;
          case 'site':
            this.readSite(c, ecls, frame, p.index);
            break;
          case 'frame':
            scan(
              c,
              poseMul(frame, rd.pose(c, c.attrs.childclass ?? ccls, 'frame')),
              c.attrs.childclass ?? ccls,
            );
            break;
          case 'joint':
          case 'freejoint':
            if (container !== el) throw elError(c, 'joints cannot be inside a <frame>');
            p.joints.push(this.readJoint(c, ecls, p));
            break;
          case 'inertial': {
            if (p.inertial) throw elError(c, 'a body has at most one <inertial>');
            const mass = rd.num(c, ecls, 'mass');
            if (mass === undefined || !(mass >= 0) || !Number.isFinite(mass))
              throw elError(c, '<inertial> needs a finite mass ≥ 0');
            const fp = rd.pose(c, ecls);
            const full = rd.vec(c, ecls, 'fullinertia', 6);
            const diag = rd.vec(c, ecls, 'diaginertia', 3);
            let I: number[];
            if (full) {
              const [xx, yy, zz, xy, xz, yz] = full;
              I = [xx, xy, xz, xy, yy, yz, xz, yz, zz];
            } else if (diag) I = [diag[0], 0, 0, 0, diag[1], 0, 0, 0, diag[2]];
            else throw elError(c, '<inertial> needs diaginertia or fullinertia');
            p.inertial = { mass, com: [fp[0], fp[1], fp[2]], inertia: rotateTensor(fp.slice(3), I) };
            break;
          }
        }
      }
    };
    scan(el, [...IDENTITY_POSE] as Pose, cls);
  }

  readJoint(c: XmlElement, cls: string, p: PBody): PJoint {
    const rd = this.rd;
    const name = c.attrs.name ?? '';
    if (c.name === 'freejoint') {
      return {
        name,
        kind: 'free',
        pos: [0, 0, 0],
        axis: [0, 0, 1],
        ref: 0,
        dof: {},
        springref: 0,
        stiffness: 0,
        el: c,
      };
    }
    const type = rd.attr(c, cls, 'type') ?? 'hinge';
    if (!['hinge', 'slide', 'ball', 'free'].includes(type)) throw elError(c, `unknown joint type '${type}'`);
    const kind = type as JointKind;
    const axis = rd.vec(c, cls, 'axis', 3) ?? [0, 0, 1];
    if ((kind === 'hinge' || kind === 'slide') && !(Math.hypot(axis[0], axis[1], axis[2]) > 0)) {
      throw elError(c, 'joint axis must be non-zero');
    }
    const ang = (v: number) => (kind === 'hinge' ? rd.angle(v) : v);
    const ref = ang(rd.num(c, cls, 'ref') ?? 0);
    const dof: Partial<JointDofConfig> = {};
    let cone: number | undefined;
    const damping = rd.num(c, cls, 'damping');
    if (damping !== undefined) dof.damping = damping;
    const armature = rd.num(c, cls, 'armature');
    if (armature !== undefined) dof.armature = armature;
    if (rd.attr(c, cls, 'actuatorgravcomp') === 'true') this.actuatorGravcomp.push(name || p.label);
    const fl = rd.num(c, cls, 'frictionloss');
    if (fl !== undefined && fl > 0 && kind !== 'hinge' && kind !== 'slide') {
      this.log.unsupportedFeature(
        `joint '${name || p.label}': frictionloss on a ${kind} joint is not simulated (dry friction acts on hinges and slides)`,
      );
    } else if (fl !== undefined) dof.friction = fl;
    if (rd.limited(c, cls, 'limited', 'range')) {
      const r = rd.vec(c, cls, 'range', 2);
      if (!r) throw elError(c, `a limited joint needs a range`);
      if (kind === 'hinge' || kind === 'slide') {
        if (r[0] > r[1]) throw elError(c, `joint range lower ${r[0]} > upper ${r[1]}`);
        dof.limit_lower = ang(r[0]) - ref;
        dof.limit_upper = ang(r[1]) - ref;
      } else if (kind === 'ball') {
        // MuJoCo limits the ball's rotation angle by range[1] (range[0] is to be 0)
        if (r[0] !== 0)
          this.log.warn(
            `ball joint '${name || p.label}': range[0] = ${r[0]} is ignored (MuJoCo uses range[1] only)`,
          );
        const max = rd.angle(r[1]);
        if (!(max > 0)) throw elError(c, `a ball joint's range[1] (its largest rotation angle) must be > 0`);
        if (max < Math.PI) cone = max;
      }
    }
    if (rd.limited(c, cls, 'actuatorfrclimited', 'actuatorfrcrange')) {
      const fr = rd.vec(c, cls, 'actuatorfrcrange', 2);
      if (!fr) throw elError(c, `actuatorfrclimited needs an actuatorfrcrange`);
      dof.effort_limit = maxAbs(fr);
    }
    const stiffness = rd.num(c, cls, 'stiffness') ?? 0;
    const springref = ang(rd.num(c, cls, 'springref') ?? 0) - ref;
    if (ref !== 0)
      this.log.warn(`joints with ref ≠ 0: joint_q is measured from the reference pose (q = qpos − ref)`);
    return {
      name,
      kind,
      pos: rd.vec(c, cls, 'pos', 3) ?? [0, 0, 0],
      axis,
      ref,
      dof,
      springref,
      stiffness,
      cone,
      el: c,
    };
  }

  readGeom(c: XmlElement, cls: string, frame: Pose, p: PBody | undefined): void {
    const rd = this.rd;
    const type = rd.attr(c, cls, 'type') ?? 'sphere';
    const name = c.attrs.name ?? '';
    const owner = p ? p.label : `${this.prefix}world`;
    const label = `${owner}/${name || `geom${p?.shapes.length ?? this.worldShapes.length}`}`;
    const contype = rd.num(c, cls, 'contype') ?? 1;
    const conaffinity = rd.num(c, cls, 'conaffinity') ?? 1;
    const group = rd.num(c, cls, 'group') ?? 0;
    const colliding = contype !== 0 || conaffinity !== 0;
    if (!colliding && this.rd.cs.discardvisual) return;
    let X = poseMul(frame, rd.pose(c, cls, 'geom'));
    const size = rd.nums(c, cls, 'size') ?? [];
    const fromto = rd.vec(c, cls, 'fromto', 6);
    let st: ShapeTypeName;
    let sz: number[];
    const need = (n: number) => {
      if (size.length < n) throw elError(c, `a ${type} geom needs ${n} size value(s), got ${size.length}`);
      if (size.slice(0, n).some((v) => !(v >= 0) || !Number.isFinite(v)))
        throw elError(c, `${type} size must be finite and ≥ 0`);
    };
    let half = 0;
    if (fromto) {
      if (!['capsule', 'cylinder', 'box', 'ellipsoid'].includes(type))
        throw elError(c, `fromto does not apply to a ${type} geom`);
      const a = fromto.slice(0, 3),
        e = fromto.slice(3, 6);
      const d = [e[0] - a[0], e[1] - a[1], e[2] - a[2]];
      half = Math.hypot(d[0], d[1], d[2]) / 2;
      if (!(half > 0)) throw elError(c, 'fromto end points coincide');
      X = poseMul(frame, pose([(a[0] + e[0]) / 2, (a[1] + e[1]) / 2, (a[2] + e[2]) / 2], zAxisQuat(d)));
    }
    switch (type) {
      case 'sphere':
        need(1);
        [st, sz] = ['sphere', [size[0]]];
        break;
      case 'capsule':
      case 'cylinder':
        need(fromto ? 1 : 2);
        [st, sz] = [type, [size[0], fromto ? half : size[1]]];
        break;
      case 'box':
      case 'ellipsoid':
        need(fromto ? 2 : 3);
        [st, sz] = [type, fromto ? [size[0], size[1], half] : [size[0], size[1], size[2]]];
        break;
      case 'plane':
        if (p) {
          this.log.unsupportedFeature(`geom '${label}': a plane on a moving body is not built`);
          return;
        }
        [st, sz] = ['plane', [size[0] ?? 0, size[1] ?? 0, 0]];
        break;
      case 'mesh':
      case 'sdf': {
        if (type === 'sdf') {
          this.log.unsupportedFeature(`geom '${label}': sdf geoms`);
          return;
        }
        const mname = rd.attr(c, cls, 'mesh');
        if (!mname) throw elError(c, 'a mesh geom needs a mesh');
        if (!this.meshAssets.has(mname)) throw elError(c, `unknown mesh '${mname}'`);
        [st, sz] = ['mesh', [1, 1, 1]];
        break;
      }
      case 'hfield': {
        const hname = rd.attr(c, cls, 'hfield');
        if (!hname) throw elError(c, 'an hfield geom needs an hfield');
        if (!this.hfieldData.has(hname)) throw elError(c, `unknown hfield '${hname}'`);
        [st, sz] = ['heightfield', [0, 0, 0]];
        break;
      }
      default:
        throw elError(c, `unknown geom type '${type}'`);
    }
    const cfg: Partial<ShapeConfig> = { ...(this.opts.shape_cfg ?? {}) };
    const friction = rd.nums(c, cls, 'friction');
    if (friction && friction.length) cfg.mu = friction[0];
    else if (cfg.mu === undefined) cfg.mu = MUJOCO_DEFAULT_FRICTION;
    let visible = group < 3;
    if (colliding) {
      if (this.opts.hide_collision_shapes) visible = false;
      else if (this.opts.force_show_colliders) visible = true;
    }
    cfg.is_visible = visible;
    cfg.has_shape_collision = colliding;
    if (!colliding) cfg.has_particle_collision = false;
    if (rd.attr(c, cls, 'solref') !== undefined || rd.attr(c, cls, 'solimp') !== undefined) {
      this.log.warn(
        'geom solref/solimp are not mapped; contact stiffness and damping come from the shape defaults (ke, tau)',
      );
    }
    const density = rd.num(c, cls, 'density');
    if (density !== undefined) cfg.density = density;
    const mass = rd.num(c, cls, 'mass');
    const color = this.colorOf(c, cls);
    const shape: PShape = {
      type: st,
      size: sz,
      X,
      cfg,
      label,
      color,
      mesh: st === 'mesh' ? rd.attr(c, cls, 'mesh') : undefined,
      texture: st === 'mesh' ? this.materialOf(c, cls)?.attrs.texture : undefined,
      hfield: st === 'heightfield' ? rd.attr(c, cls, 'hfield') : undefined,
      colliding,
      contype,
      conaffinity,
      el: c,
    };
    if (mass !== undefined) (shape as PShape & { mass?: number }).mass = mass;
    if (!p) this.worldShapes.push(shape);
    else {
      if (!colliding && p.inertial && this.opts.load_visual_shapes === false) return;
      p.shapes.push(shape);
    }
  }

  /** the <material> element a geom names (directly or through its class), if any */
  materialOf(c: XmlElement, cls: string): XmlElement | undefined {
    const mat = this.rd.attr(c, cls, 'material');
    if (mat === undefined) return undefined;
    for (const a of this.root.children.filter((x) => x.name === 'asset')) {
      const m = a.children.find((x) => x.name === 'material' && x.attrs.name === mat);
      if (m) return m;
    }
    return undefined;
  }

  colorOf(c: XmlElement, cls: string): number[] | undefined {
    const rgba = this.rd.vec(c, cls, 'rgba', 4);
    if (rgba && c.attrs.rgba !== undefined) return rgba.slice(0, 3);
    const m = this.materialOf(c, cls);
    const mr = m ? this.rd.vec(m, 'main', 'rgba', 4) : undefined;
    if (mr) return mr.slice(0, 3);
    return rgba?.slice(0, 3);
  }

  readSite(c: XmlElement, cls: string, frame: Pose, body: number): void {
    const rd = this.rd;
    const type = rd.attr(c, cls, 'type') ?? 'sphere';
    const size = rd.nums(c, cls, 'size') ?? [0.005];
    let st: ShapeTypeName = 'sphere';
    let sz = [size[0] ?? 0.005];
    let X = poseMul(frame, rd.pose(c, cls, 'site'));
    const fromto = rd.vec(c, cls, 'fromto', 6);
    if (type === 'capsule' || type === 'cylinder') {
      st = type;
      if (fromto) {
        const d = [fromto[3] - fromto[0], fromto[4] - fromto[1], fromto[5] - fromto[2]];
        X = poseMul(
          frame,
          pose(
            [(fromto[0] + fromto[3]) / 2, (fromto[1] + fromto[4]) / 2, (fromto[2] + fromto[5]) / 2],
            zAxisQuat(d),
          ),
        );
        sz = [size[0] ?? 0.005, Math.hypot(d[0], d[1], d[2]) / 2];
      } else sz = [size[0] ?? 0.005, size[1] ?? 0.005];
    } else if (type === 'box' || type === 'ellipsoid') {
      st = type;
      sz = [size[0] ?? 0.005, size[1] ?? size[0] ?? 0.005, size[2] ?? size[0] ?? 0.005];
    }
    // (a duplicated name is ambiguous: kept as null, an error where a tendon or actuator names it)
    if (c.attrs.name !== undefined)
      this.siteByName.set(c.attrs.name, this.siteByName.has(c.attrs.name) ? null : { body, X });
    if (this.opts.load_sites === false) return;
    const owner = body >= 0 ? this.bodies[body].label : `${this.prefix}world`;
    this.sites.push({
      body,
      shape: {
        type: st,
        size: sz,
        X,
        cfg: { is_site: true, is_visible: false, has_shape_collision: false, density: 0 },
        label: `${owner}/${c.attrs.name ?? 'site'}`,
        colliding: false,
        contype: 0,
        conaffinity: 0,
        el: c,
      },
    });
  }

  // ---------------------------------------------------------------------------- emit

  /** a builder mesh for a mesh asset (hull or full), cached */
  meshFor(name: string, hull: boolean): { index: number; mesh: TriMesh } | string {
    const key = `${name}|${hull}`;
    const hit = this.meshCache.get(key);
    if (hit) return hit;
    const data = this.meshData.get(name);
    if (data === undefined || typeof data === 'string') return data ?? 'not loaded';
    const a = this.meshAssets.get(name)!;
    let m = this.placeMesh(a, data);
    if (hull) m = convexHull(m.vertices, a.file ?? name, (w) => this.log.warn(w));
    const index = this.b.addMesh({
      vertices: m.vertices,
      triangles: m.triangles,
      label: `${this.prefix}${name}${hull ? '/hull' : ''}`,
    });
    const out = { index, mesh: m };
    this.meshCache.set(key, out);
    return out;
  }

  /** a mesh asset's vertices as the model uses them: scaled, relative to its reference frame */
  placeMesh(a: MeshAsset, data: TriMesh): TriMesh {
    const m = scaleMesh(data, a.scale);
    if (!(a.refpos.some((v) => v !== 0) || a.refquat[3] !== 1)) return m;
    // vertices relative to the reference frame: v' = R(refquat)⁻¹ (v − refpos)
    const inv: Quat = [-a.refquat[0], -a.refquat[1], -a.refquat[2], a.refquat[3]];
    const v = new Float64Array(m.vertices.length);
    for (let i = 0; i < v.length; i += 3) {
      const r = rotate(inv, [
        m.vertices[i] - a.refpos[0],
        m.vertices[i + 1] - a.refpos[1],
        m.vertices[i + 2] - a.refpos[2],
      ]);
      v.set(r, i);
    }
    return { vertices: v, triangles: m.triangles };
  }

  /**
   * the builder mesh that draws a mesh asset with a 2D texture (split at texture seams, with its
   * coordinates), cached; the reason when it cannot be drawn textured
   */
  texturedMeshFor(name: string, texture: string): { index: number; mesh: TriMesh } | string {
    const key = `${name}|tex|${texture}`;
    const hit = this.meshCache.get(key);
    if (hit) return hit;
    const file = this.textureFiles.get(texture);
    if (file === undefined) return `no <texture name="${texture}">`;
    if (typeof file === 'string') return file;
    const tc = this.texcoordData.get(name);
    if (!tc) return `mesh '${name}' has no texture coordinates`;
    let image = this.textureIndex.get(file.path);
    if (image === undefined) {
      image = this.b.addTexture({ mime: file.mime, bytes: file.bytes, label: file.path });
      this.textureIndex.set(file.path, image);
    }
    const m = this.placeMesh(this.meshAssets.get(name)!, tc.mesh);
    const index = this.b.addMesh({
      vertices: m.vertices,
      triangles: m.triangles,
      uv: tc.uv,
      texture: image,
      label: `${this.prefix}${name}/textured`,
    });
    const out = { index, mesh: m };
    this.meshCache.set(key, out);
    return out;
  }

  /**
   * the textured mesh a visual mesh geom draws with, and its colour (the material's tint, else
   * white, times the image, as MuJoCo draws it); undefined without a texture, or with a warning
   * when the texture cannot be drawn (the geom then draws its plain mesh in its colour)
   */
  texturedVisual(s: PShape): { index: number; mesh: TriMesh; color: number[] } | undefined {
    if (s.texture === undefined) return undefined;
    const t = this.texturedMeshFor(s.mesh!, s.texture);
    if (typeof t === 'string') {
      this.log.warn(`geom '${s.label}': texture '${s.texture}' not drawn (${t}); it keeps a plain colour`);
      return undefined;
    }
    return { ...t, color: s.color ?? [1, 1, 1] };
  }

  /** the builder heightfield of an hfield asset (cached), or the reason it is missing */
  hfieldFor(name: string): number | string {
    const hit = this.hfieldCache.get(name);
    if (hit !== undefined) return hit;
    const h = this.hfieldData.get(name);
    if (h === undefined || typeof h === 'string') return h ?? 'not loaded';
    const index = this.b.addHeightfield({ ...h, label: `${this.prefix}${name}` });
    this.hfieldCache.set(name, index);
    return index;
  }

  /** adds one planned shape to builder body `body` (-1 world); returns the shape indices */
  addShape(s: PShape, body: number, mjBody: number): void {
    const b = this.b;
    const cfg = { ...s.cfg };
    const massAttr = (s as PShape & { mass?: number }).mass;
    let meshIndex: number | undefined;
    let hfieldIndex: number | undefined;
    let type: ShapeTypeName = s.type;
    let color = s.color;
    if (s.type === 'heightfield') {
      const h = this.hfieldFor(s.hfield!);
      if (typeof h === 'string') {
        this.log.unsupportedFeature(`geom '${s.label}': hfield '${s.hfield}' not loaded (${h})`);
        return;
      }
      hfieldIndex = h;
    } else if (s.type === 'mesh') {
      const hullMode = (this.opts.mesh_collision ?? 'convex_hull') === 'convex_hull';
      const collider = s.colliding;
      // a visual draws its material's texture where it has one
      const textured = collider ? undefined : this.texturedVisual(s);
      if (textured) color = textured.color;
      const m = textured ?? this.meshFor(s.mesh!, collider && hullMode);
      if (typeof m === 'string') {
        const msg = `geom '${s.label}': mesh '${s.mesh}' not loaded (${m})`;
        if (collider) this.log.unsupportedFeature(`${msg}; the collider is left out`);
        else this.log.warn(`${msg}; visual left out`);
        return;
      }
      meshIndex = m.index;
      if (collider && hullMode) {
        type = 'convex_mesh';
        // a visible collider shows the full mesh through a visual copy; the hull itself stays hidden
        if (cfg.is_visible && this.opts.load_visual_shapes !== false && !this.opts.force_show_colliders) {
          const look = this.texturedVisual(s);
          const full = look ?? this.meshFor(s.mesh!, false);
          if (typeof full !== 'string') {
            this.result.shapes.push(
              b.addShape({
                body,
                type: 'mesh',
                mesh: full.index,
                size: [1, 1, 1],
                X_bs: s.X,
                label: `${s.label}/visual`,
                color: look?.color ?? s.color,
                cfg: {
                  ...cfg,
                  density: 0,
                  has_shape_collision: false,
                  has_particle_collision: false,
                  is_visible: true,
                },
              }),
            );
            cfg.is_visible = false;
          }
        }
      }
      if (massAttr !== undefined) {
        const vol = meshMassProperties(m.mesh.vertices, m.mesh.triangles, [1, 1, 1], 1).mass;
        cfg.density = vol > 0 ? massAttr / vol : 0;
      }
    } else if (massAttr !== undefined) {
      const vol = shapeMassProperties(
        ShapeType[type.toUpperCase() as keyof typeof ShapeType],
        s.size,
        1,
      ).mass;
      cfg.density = vol > 0 ? massAttr / vol : 0;
    }
    const idx = b.addShape({
      body,
      type,
      size: s.size,
      X_bs: s.X,
      mesh: meshIndex,
      hfield: hfieldIndex,
      label: s.label,
      color,
      cfg,
    });
    this.result.shapes.push(idx);
    if (s.colliding)
      this.colliders.push({ shape: idx, body: mjBody, contype: s.contype, conaffinity: s.conaffinity });
  }

  emitBodies(): void {
    const b = this.b;
    const opts = this.opts;
    const useInertial = this.rd.cs.inertiafromgeom !== 'true';
    for (const s of this.worldShapes) {
      located(s.el, () => this.addShape({ ...s, X: poseMul(this.xform, s.X) }, -1, -1));
    }
    for (const p of this.bodies) {
      const parentB = p.parent < 0 ? -1 : this.builderBody[p.parent];
      const parentWorld = p.parent < 0 ? this.xform : this.bodies[p.parent].world;
      let joints = p.joints;
      const top = p.parent < 0;
      if (top && opts.floating === true && joints.length === 0) {
        joints = [
          {
            name: '',
            kind: 'free',
            pos: [0, 0, 0],
            axis: [0, 0, 1],
            ref: 0,
            dof: {},
            springref: 0,
            stiffness: 0,
            el: p.el,
          },
        ];
      }
      if (p.mocap) {
        this.log.unsupportedFeature(`body '${p.label}': mocap bodies are welded to the world`);
        joints = [];
      }
      const free = joints.filter((j) => j.kind === 'free');
      if (free.length && (joints.length > 1 || !top)) {
        throw elError(free[0].el, 'a free joint must be the only joint of a top-level body');
      }
      if (free.length && opts.floating === false) {
        this.log.warn(`body '${p.label}': free joint welded to the world (floating: false)`);
        joints = [];
      }
      // mass
      let mass: number | undefined, com: number[] | undefined, inertia: number[] | undefined;
      const cs = this.rd.cs;
      if (p.inertial && useInertial && !opts.ignore_inertial_definitions) {
        ({ mass, com, inertia } = p.inertial);
      } else if (cs.inertiafromgeom === 'false') {
        mass = 0;
        inertia = [0, 0, 0, 0, 0, 0, 0, 0, 0];
      }
      if (mass !== undefined && cs.boundmass > 0 && mass < cs.boundmass) mass = cs.boundmass;
      if (inertia && cs.boundinertia > 0)
        for (const k of [0, 4, 8]) inertia[k] = Math.max(inertia[k], cs.boundinertia);
      // intermediate massless bodies for all but the last joint
      let parent = parentB;
      let Xp = top ? poseMul(this.xform, p.local) : p.local; // the body frame (at q = 0) in the parent
      const n = joints.length;
      for (let k = 0; k < n; k++) {
        const j = joints[k];
        const last = k === n - 1;
        const child = last
          ? b.addBody({ label: p.label, X_wb: p.world, mass, com, inertia, gravcomp: p.gravcomp })
          : b.addBody({
              label: `${p.label}/dof${k}`,
              X_wb: p.world,
              mass: 0,
              inertia: [0, 0, 0, 0, 0, 0, 0, 0, 0],
            });
        this.result.bodies.push(child);
        located(j.el, () => this.addJoint(j, k, p, parent, child, Xp));
        parent = child;
        Xp = [...IDENTITY_POSE] as Pose;
      }
      if (n === 0) {
        const child = b.addBody({
          label: p.label,
          X_wb: p.world,
          mass,
          com,
          inertia,
          gravcomp: p.gravcomp,
        });
        this.result.bodies.push(child);
        this.result.joints.push(
          b.addJoint({
            type: 'fixed',
            parent: parentB,
            child,
            X_p: top ? poseMul(parentWorld, p.local) : p.local,
            label: `${p.label}_weld`,
          }),
        );
        parent = child;
      }
      this.builderBody[p.index] = parent;
      for (const s of p.shapes) {
        if (!s.colliding && p.inertial && useInertial && opts.load_visual_shapes === false) continue;
        located(s.el ?? p.el, () => this.addShape(s, parent, p.index));
      }
    }
    for (const { body, shape } of this.sites) {
      const X_bs = body < 0 ? poseMul(this.xform, shape.X) : shape.X;
      this.result.shapes.push(
        located(shape.el, () =>
          this.b.addShape({
            body: body < 0 ? -1 : this.builderBody[body],
            type: shape.type,
            size: shape.size,
            X_bs,
            label: shape.label,
            cfg: shape.cfg,
          }),
        ),
      );
    }
    this.checkMassless();
  }

  addJoint(j: PJoint, k: number, p: PBody, parent: number, child: number, Xp: Pose): void {
    const b = this.b;
    const label = `${this.prefix}${j.name || `${p.name || `body${p.index}`}_${j.kind}${k}`}`;
    let index: number;
    if (j.kind === 'free') {
      index = b.addJoint({ type: 'free', parent: -1, child, label });
    } else {
      const anchor = pose(j.pos);
      const dof: Partial<JointDofConfig> = { ...j.dof };
      if (j.stiffness !== 0) {
        if (j.kind === 'ball') this.log.unsupportedFeature(`joint '${label}': ball-joint stiffness`);
        else {
          // MuJoCo's passive spring: explicit, unlimited, separate from any actuator
          dof.stiffness = j.stiffness;
          dof.spring_ref = j.springref;
        }
      }
      index = b.addJoint({
        type: j.kind === 'hinge' ? 'revolute' : j.kind === 'slide' ? 'prismatic' : 'ball',
        parent,
        child,
        X_p: poseMul(Xp, anchor),
        X_c: anchor,
        axis: j.kind === 'ball' ? [1, 0, 0] : j.axis,
        label,
        ...dof,
        ...(j.cone !== undefined ? { cone_mode: 'rotation' as const, cone_limit: j.cone } : {}),
      });
    }
    this.result.joints.push(index);
    if (j.name) {
      if (this.jointByName.has(j.name)) throw elError(j.el, `duplicate joint '${j.name}'`);
      this.jointByName.set(j.name, { body: p.index, k });
    }
    this.builderJoint.set(`${p.index}:${k}`, index);
    (j as PJoint & { builder?: number }).builder = index;
  }

  /** moving bodies whose whole subtree has no mass get a tiny one */
  checkMassless(): void {
    const b = this.b;
    const mine = new Set(this.result.bodies);
    const massOf = new Map<number, number>();
    // the shapes of each body, grouped once (linear in bodies + shapes)
    const shapesOf = new Map<number, (typeof b.shapes)[number][]>();
    for (const s of b.shapes) {
      if (!mine.has(s.body)) continue;
      (shapesOf.get(s.body) ?? shapesOf.set(s.body, []).get(s.body)!).push(s);
    }
    for (const i of this.result.bodies) {
      const rec = b.bodies[i];
      let m = rec.mass ?? 0;
      if (rec.mass === undefined) {
        for (const s of shapesOf.get(i) ?? []) {
          if (!(s.cfg.density > 0)) continue;
          m +=
            s.mesh >= 0
              ? b.meshMass(s.mesh, s.size, s.cfg.density).mass
              : shapeMassProperties(s.type, s.size, s.cfg.density).mass;
        }
      }
      massOf.set(i, m);
    }
    const children = new Map<number, number[]>();
    for (const j of b.joints)
      if (mine.has(j.child))
        (children.get(j.parent) ?? children.set(j.parent, []).get(j.parent)!).push(j.child);
    const memo = new Map<number, number>();
    const subtree = (i: number): number => {
      let m = memo.get(i);
      if (m === undefined) {
        m = (massOf.get(i) ?? 0) + (children.get(i) ?? []).reduce((s, c) => s + subtree(c), 0);
        memo.set(i, m);
      }
      return m;
    };
    for (const j of b.joints) {
      if (!mine.has(j.child) || j.type === 0) continue;
      if (subtree(j.child) > 0) continue;
      const rec = b.bodies[j.child];
      rec.mass = 1e-3;
      rec.inertia = [1e-6, 0, 0, 0, 1e-6, 0, 0, 0, 1e-6];
      this.log.warn(
        `body '${rec.label}' moves (joint '${j.label}') but nothing beyond it has mass; it gets 1e-3 kg and 1e-6 kg·m²`,
      );
    }
  }

  // ---------------------------------------------------------------------------- sections

  bodyRef(el: XmlElement, attr: string): number {
    const name = el.attrs[attr];
    if (name === undefined) throw elError(el, `<${el.name}> needs ${attr}`);
    if (name === 'world') return -1;
    const i = this.bodyByName.get(name);
    if (i === undefined) throw elError(el, `unknown body '${name}'`);
    return i;
  }

  jointRef(el: XmlElement, attr: string): number {
    const name = el.attrs[attr];
    if (name === undefined) throw elError(el, `<${el.name}> needs ${attr}`);
    const j = this.jointByName.get(name);
    if (!j) throw elError(el, `unknown joint '${name}'`);
    return this.builderJoint.get(`${j.body}:${j.k}`)!;
  }

  readContact(): void {
    for (const sec of this.root.children.filter((c) => c.name === 'contact')) {
      for (const c of sec.children) {
        if (c.name === 'exclude') this.excludes.push([this.bodyRef(c, 'body1'), this.bodyRef(c, 'body2')]);
        else if (c.name === 'pair')
          this.log.unsupportedFeature(
            `<contact><pair> (${c.attrs.geom1} / ${c.attrs.geom2}): explicit contact pairs are not built`,
          );
      }
    }
  }

  readEquality(): void {
    const b = this.b;
    const rd = this.rd;
    for (const sec of this.root.children.filter((c) => c.name === 'equality')) {
      for (const c of sec.children) {
        const cls = c.attrs.class ?? 'main';
        const label = `${this.prefix}${c.attrs.name ?? `${c.name}${this.result.equalities.length}`}`;
        if ((rd.attr(c, cls, 'active') ?? 'true') === 'false') {
          this.log.warn(`equality '${label}' is inactive; skipped`);
          continue;
        }
        if (rd.attr(c, cls, 'solref') !== undefined || rd.attr(c, cls, 'solimp') !== undefined) {
          this.log.warn('equality solref/solimp are not mapped (constraints are near-rigid)');
        }
        const bb = (i: number) => (i < 0 ? -1 : this.builderBody[i]);
        const worldOf = (i: number): Pose => (i < 0 ? ([...IDENTITY_POSE] as Pose) : this.bodies[i].world);
        if (c.name === 'connect') {
          if (c.attrs.site1 !== undefined) {
            this.log.unsupportedFeature(`equality '${label}': site-based connect`);
            continue;
          }
          const b1 = this.bodyRef(c, 'body1');
          const b2 = c.attrs.body2 !== undefined ? this.bodyRef(c, 'body2') : -1;
          const anchor = rd.vec(c, cls, 'anchor', 3) ?? [0, 0, 0];
          const pw = poseMul(worldOf(b1), pose(anchor));
          const a2 = poseMul(poseInv(worldOf(b2)), pw);
          this.result.equalities.push(
            b.addEquality({
              type: 'ball',
              body0: bb(b1),
              body1: bb(b2),
              anchor0: anchor,
              anchor1: [a2[0], a2[1], a2[2]],
              label,
            }),
          );
        } else if (c.name === 'weld') {
          if (c.attrs.site1 !== undefined) {
            this.log.unsupportedFeature(`equality '${label}': site-based weld`);
            continue;
          }
          const b1 = this.bodyRef(c, 'body1');
          const b2 = c.attrs.body2 !== undefined ? this.bodyRef(c, 'body2') : -1;
          const rp = rd.vec(c, cls, 'relpose', 7);
          const given = rp && rp.slice(3).some((v) => v !== 0);
          if ((rd.num(c, cls, 'torquescale') ?? 1) !== 1)
            this.log.warn(`equality '${label}': torquescale ignored`);
          this.result.equalities.push(
            b.addEquality({
              type: 'weld',
              body0: bb(b1),
              body1: bb(b2),
              relpose: given ? [rp![0], rp![1], rp![2], rp![4], rp![5], rp![6], rp![3]] : undefined,
              label,
            }),
          );
        } else if (c.name === 'joint') {
          const j0 = this.jointRef(c, 'joint1');
          const j1 = c.attrs.joint2 !== undefined ? this.jointRef(c, 'joint2') : j0;
          const pc = rd.nums(c, cls, 'polycoef') ?? [0, 1, 0, 0, 0];
          if (pc.slice(2).some((v) => v !== 0))
            this.log.unsupportedFeature(`equality '${label}': polycoef terms above linear`);
          const scalar = (j: number) => b.joints[j].type === 2 || b.joints[j].type === 3;
          if (!scalar(j0) || !scalar(j1)) {
            this.log.unsupportedFeature(`equality '${label}': joint coupling needs hinge or slide joints`);
            continue;
          }
          this.result.equalities.push(
            b.addEquality({
              type: 'coupler',
              joint0: j0,
              joint1: j1,
              ratio: c.attrs.joint2 !== undefined ? (pc[1] ?? 1) : 0,
              offset: pc[0] ?? 0,
              label,
            }),
          );
        } else {
          this.log.unsupportedFeature(`equality <${c.name}> '${label}'`);
        }
      }
    }
  }

  /** what the spatial-tendon and length-actuator readers need (engine/io/mjcf/transmissions.ts) */
  transmissionContext(): MjcfTransmissionContext {
    const springrefJoints: string[] = [];
    for (const p of this.bodies)
      for (const j of p.joints) if (j.springref !== 0) springrefJoints.push(j.name || p.label);
    return {
      b: this.b,
      rd: this.rd,
      log: this.log,
      prefix: this.prefix,
      springrefJoints,
      site: (el, name) => this.siteRef(el, name),
    };
  }

  /** a named site in builder terms (its body, point and z axis in the body frame, authored world point) */
  siteRef(el: XmlElement, name: string | undefined): MjcfSite {
    if (name === undefined) throw elError(el, `<${el.name}> needs a site`);
    const s = this.siteByName.get(name);
    if (s === undefined) throw elError(el, `unknown site '${name}'`);
    if (s === null) throw elError(el, `site name '${name}' is not unique`);
    const X = s.body < 0 ? poseMul(this.xform, s.X) : s.X;
    const W = s.body < 0 ? X : poseMul(this.bodies[s.body].world, s.X);
    return {
      body: s.body < 0 ? -1 : this.builderBody[s.body],
      point: [X[0], X[1], X[2]],
      zaxis: rotate([X[3], X[4], X[5], X[6]], [0, 0, 1]),
      world: [W[0], W[1], W[2]],
    };
  }

  /**
   * Fixed tendons: l = Σ coef·qpos over hinge and slide joints (qpos = q + ref, so the builder's
   * offset is Σ coef·ref); a limited range becomes a SAP tendon-limit constraint with the joints'
   * default limit stiffness (solreflimit / solimplimit are not mapped, as for joint limits). Tendon
   * springs, damping and friction loss, and spatial tendons, are not built.
   */
  readTendons(): void {
    const rd = this.rd;
    for (const sec of this.root.children.filter((c) => c.name === 'tendon')) {
      for (const t of sec.children) {
        const label = `${this.prefix}${t.attrs.name ?? `tendon${this.result.tendons!.length}`}`;
        if (t.name === 'spatial') {
          const index = readSpatialTendon(this.transmissionContext(), t, label);
          (this.result.spatial_tendons ??= []).push(index);
          if (t.attrs.name !== undefined) this.tendonByName.set(t.attrs.name, { spatial: true, index });
          continue;
        }
        if (t.name !== 'fixed') {
          this.log.unsupportedFeature(
            `tendon <${t.name}> '${label}': only fixed and spatial tendons are built`,
          );
          continue;
        }
        const cls = t.attrs.class ?? 'main';
        const joints: { joint: number; coef: number }[] = [];
        let offset = 0;
        for (const e of t.children) {
          if (e.name !== 'joint') continue;
          const name = e.attrs.joint;
          const pj = name === undefined ? undefined : this.jointByName.get(name);
          if (!pj) throw elError(e, name === undefined ? '<joint> needs joint' : `unknown joint '${name}'`);
          const j = this.bodies[pj.body].joints[pj.k];
          if (j.kind !== 'hinge' && j.kind !== 'slide')
            throw elError(
              e,
              `tendon '${label}': joint '${name}' is a ${j.kind} joint (fixed tendons take hinge and slide joints)`,
            );
          const coef = rd.num(e, cls, 'coef', 'tendon');
          if (coef === undefined) throw elError(e, `tendon '${label}': <joint joint="${name}"> needs coef`);
          joints.push({ joint: this.jointRef(e, 'joint'), coef });
          offset += coef * j.ref;
        }
        if (joints.length === 0) throw elError(t, `fixed tendon '${label}' has no <joint>`);
        for (const [attr, what] of [
          ['stiffness', 'spring'],
          ['damping', 'damping'],
          ['frictionloss', 'friction loss'],
        ] as const) {
          const v = rd.num(t, cls, attr, 'tendon') ?? 0;
          if (v !== 0)
            this.log.unsupportedFeature(`tendon '${label}': ${what} (${attr}="${v}") is not built`);
        }
        let lower = -Infinity;
        let upper = Infinity;
        if (rd.limited(t, cls, 'limited', 'range', 'tendon')) {
          const r = rd.vec(t, cls, 'range', 2, 'tendon');
          if (!r) throw elError(t, `a limited tendon needs a range`);
          if (r[0] > r[1]) throw elError(t, `tendon range lower ${r[0]} > upper ${r[1]}`);
          // (tendon lengths are never angles: the range is not converted from degrees)
          [lower, upper] = r;
        }
        if (
          rd.attr(t, cls, 'solreflimit', 'tendon') !== undefined ||
          rd.attr(t, cls, 'solimplimit', 'tendon') !== undefined
        )
          this.log.warn(
            'tendon solreflimit/solimplimit are not mapped (limits use the default limit stiffness)',
          );
        const index = located(t, () => this.b.addTendon({ label, joints, offset, lower, upper }));
        this.result.tendons!.push(index);
        if (t.attrs.name !== undefined) this.tendonByName.set(t.attrs.name, { spatial: false, index });
      }
    }
  }

  readActuators(): void {
    const rd = this.rd;
    const b = this.b;
    // per joint: the summed gains and the targets at ctrl = 0
    const actuated = new Map<number, { ke: number; kd: number; pos: number; vel: number }>();
    for (const sec of this.root.children.filter((c) => c.name === 'actuator')) {
      for (const a of sec.children) {
        const cls = a.attrs.class ?? 'main';
        const name = a.attrs.name ?? `${a.name}${this.result.actuators!.length}`;
        const viaLength = a.attrs.joint === undefined && (a.attrs.tendon ?? a.attrs.cranksite) !== undefined;
        if (a.attrs.joint === undefined && !viaLength) {
          this.log.unsupportedFeature(
            `actuator '${name}': only joint, tendon and slider-crank transmissions are built`,
          );
          continue;
        }
        const joint = viaLength ? -1 : this.jointRef(a, 'joint');
        const rec = viaLength ? undefined : b.joints[joint];
        if (rec && rec.type !== 2 && rec.type !== 3) {
          this.log.unsupportedFeature(`actuator '${name}': only hinge/slide joints are actuated`);
          continue;
        }
        const gear = rd.nums(a, cls, 'gear', 'actuator')?.[0] ?? 1;
        const ctrlrange = rd.limited(a, cls, 'ctrllimited', 'ctrlrange', 'actuator')
          ? (rd.vec(a, cls, 'ctrlrange', 2, 'actuator') as [number, number])
          : undefined;
        const forcerange = rd.limited(a, cls, 'forcelimited', 'forcerange', 'actuator')
          ? (rd.vec(a, cls, 'forcerange', 2, 'actuator') as [number, number])
          : undefined;
        // a servo's force gear·(ctrlGain·ctrl + ctrlBias − kp·gear·q − kv·gear·q̇)
        let servo: MujocoServo | undefined;
        const shortcut = a.name;
        if (shortcut === 'motor') servo = { kind: 'motor', kp: 0, kv: 0, ctrlGain: 1, ctrlBias: 0 };
        else if (shortcut === 'position') {
          const kp = rd.num(a, cls, 'kp', 'actuator') ?? 1;
          const kv = rd.num(a, cls, 'kv', 'actuator') ?? 0;
          servo = { kind: 'position', kp, kv, ctrlGain: kp, ctrlBias: 0 };
          const dr = rd.num(a, cls, 'dampratio', 'actuator');
          if (dr !== undefined && dr !== 0) {
            if (kv !== 0) throw elError(a, `actuator '${name}': kv and dampratio cannot both be defined`);
            if (!(dr > 0)) throw elError(a, `actuator '${name}': dampratio must be ≥ 0; got ${dr}`);
            servo.dampratio = dr;
          }
        } else if (shortcut === 'velocity') {
          const kv = rd.num(a, cls, 'kv', 'actuator') ?? 1;
          servo = { kind: 'velocity', kp: 0, kv, ctrlGain: kv, ctrlBias: 0 };
        } else if (shortcut === 'general') {
          servo = generalServo(
            rd.attr(a, cls, 'gaintype', 'actuator') ?? 'fixed',
            rd.attr(a, cls, 'biastype', 'actuator') ?? 'none',
            rd.nums(a, cls, 'gainprm', 'actuator') ?? [1],
            rd.nums(a, cls, 'biasprm', 'actuator') ?? [0, 0, 0],
          );
        }
        if (!servo) {
          this.log.unsupportedFeature(`actuator '${name}' (<${shortcut}>): this gain/bias form is not built`);
          continue;
        }
        if (!rec) {
          if (servo.dampratio !== undefined) {
            this.log.unsupportedFeature(
              `actuator '${name}': dampratio on a tendon or slider-crank is not built`,
            );
            continue;
          }
          const law: LengthActuatorLaw = {
            kind: servo.kind,
            gain: servo.ctrlGain,
            bias: [servo.ctrlBias, -servo.kp, -servo.kv],
          };
          const idx = located(a, () =>
            readLengthActuator(
              this.transmissionContext(),
              a,
              name,
              law,
              gear,
              ctrlrange,
              forcerange,
              this.tendonByName,
            ),
          );
          if (idx !== undefined)
            this.result.actuators!.push({
              name,
              kind: servo.kind,
              joint: -1,
              gear,
              ctrlrange,
              forcerange,
              length_actuator: idx,
            });
          continue;
        }
        const kind = servo.kind;
        const g2 = gear * gear;
        let kv = servo.kv;
        if (servo.dampratio !== undefined) {
          // kv = dampratio·2·√(kp·m) with m the joint's inertia at qpos0 reflected through the gear
          const m0 = this.b.dofInertiaAtAuthoredPose(joint);
          kv = g2 > 1e-15 ? servo.dampratio * 2 * Math.sqrt((servo.kp * m0) / g2) : 0;
        }
        const { ke, kd, effort, targetScale, targetOffset } = servoJointGains(
          servo,
          kv,
          gear,
          forcerange,
          ctrlrange,
        );
        const gain = kind === 'motor' ? servo.ctrlGain : 1;
        const acc = actuated.get(joint) ?? { ke: 0, kd: 0, pos: 0, vel: 0 };
        if (kind === 'position') {
          if (acc.ke > 0)
            this.log.warn(`joint '${rec.label}': several position actuators; their gains add up`);
          acc.ke += ke;
          acc.kd += kd;
          acc.pos = targetOffset;
        } else if (kind === 'velocity') {
          acc.kd += kd;
          acc.vel = targetOffset;
        }
        actuated.set(joint, acc);
        if (effort !== undefined) rec.dof.effort_limit = Math.min(rec.dof.effort_limit, effort);
        this.actuatorGains.set(this.result.actuators!.length, {
          ke,
          kd,
          effort,
          targetScale,
          targetOffset,
        });
        this.result.actuators!.push({ name, kind, joint, gear: gear * gain, ctrlrange, forcerange });
      }
    }
    for (const [joint, acc] of actuated) {
      const dof = b.joints[joint].dof;
      if (acc.ke > 0) {
        dof.target_ke = acc.ke;
        dof.target_pos = acc.pos;
      }
      if (acc.kd > 0) dof.target_kd = acc.kd;
      if (acc.ke === 0 && acc.kd > 0) dof.target_vel = acc.vel;
    }
  }

  // ---------------------------------------------------------------------------- collision filters

  applyFilters(): void {
    const b = this.b;
    const cols = this.colliders;
    if (cols.length < 2) return;
    // weld group of each MJCF body: nearest ancestor-or-self with a joint (-1: the world)
    const jointType = new Map<number, number>();
    for (const j of b.joints) jointType.set(j.child, j.type);
    const builtJoint = (i: number) => (jointType.get(this.builderBody[i]) ?? 0) !== 0;
    const weld = new Map<number, number>();
    const weldOf = (i: number): number => {
      if (i < 0) return -1;
      const hit = weld.get(i);
      if (hit !== undefined) return hit;
      const p = this.bodies[i];
      const w = builtJoint(i) ? i : weldOf(p.parent);
      weld.set(i, w);
      return w;
    };
    const parentWeld = (w: number) => (w < 0 ? -2 : weldOf(this.bodies[w].parent));
    const excluded = new Set(this.excludes.map(([x, y]) => `${Math.min(x, y)},${Math.max(x, y)}`));
    const parentOf = new Map<number, number>();
    for (const j of b.joints) parentOf.set(j.child, j.parent);
    const selfOff = this.opts.enable_self_collisions === false;
    // per collider, once: its builder body and weld group
    const body = cols.map((c) => b.shapes[c.shape].body);
    const welds = cols.map((c) => weldOf(c.body));
    let added = 0;
    for (let i = 0; i < cols.length; i++) {
      for (let k = i + 1; k < cols.length; k++) {
        const A = cols[i],
          B = cols[k];
        const ba = body[i],
          bb = body[k];
        if (ba === bb) continue; // filtered by the pipeline
        const wa = welds[i],
          wb = welds[k];
        // both welded to the world: the pipeline never pairs two static shapes
        if (wa === -1 && wb === -1) continue;
        if (ba >= 0 && bb >= 0 && (parentOf.get(ba) === bb || parentOf.get(bb) === ba)) continue; // idem
        let filter = wa === wb;
        if (!filter && wa >= 0 && wb >= 0) filter = parentWeld(wa) === wb || parentWeld(wb) === wa;
        if (!filter) filter = (A.contype & B.conaffinity) === 0 && (B.contype & A.conaffinity) === 0;
        if (!filter && excluded.size > 0)
          filter = excluded.has(`${Math.min(A.body, B.body)},${Math.max(A.body, B.body)}`);
        if (!filter && selfOff) filter = ba >= 0 && bb >= 0;
        if (filter) {
          if (++added > LIMITS.max_filter_pairs) {
            throw elError(
              this.root,
              limitMessage(`the contact filters of ${cols.length} colliding geoms`, 'max_filter_pairs'),
            );
          }
          b.addFilterPair(A.shape, B.shape);
        }
      }
    }
  }

  // ---------------------------------------------------------------------------- keyframes

  readKeyframes(): void {
    const rd = this.rd;
    const b = this.b;
    // qpos layout in file order: bodies in document order, their joints in order
    const layout: { j: PJoint; p: PBody }[] = [];
    for (const p of this.bodies) for (const j of p.joints) layout.push({ j, p });
    const keys: ImportedKeyframe[] = [];
    const nu = this.root.children
      .filter((c) => c.name === 'actuator')
      .reduce((n, sec) => n + sec.children.length, 0);
    for (const sec of this.root.children.filter((c) => c.name === 'keyframe')) {
      for (const k of sec.children.filter((c) => c.name === 'key')) {
        const qpos = rd.nums(k, 'main', 'qpos') ?? [];
        const qvel = rd.nums(k, 'main', 'qvel') ?? [];
        const key: ImportedKeyframe = {
          name: k.attrs.name || `key${keys.length}`,
          time: rd.num(k, 'main', 'time') ?? 0,
          joint_q: [],
          joint_qd: [],
          ctrl: rd.nums(k, 'main', 'ctrl') ?? [],
        };
        let qi = 0,
          vi = 0;
        for (const { j, p } of layout) {
          const bj = (j as PJoint & { builder?: number }).builder;
          const nq = j.kind === 'free' ? 7 : j.kind === 'ball' ? 4 : 1;
          const nv = j.kind === 'free' ? 6 : j.kind === 'ball' ? 3 : 1;
          const q = qpos.slice(qi, qi + nq);
          const v = qvel.slice(vi, vi + nv);
          qi += nq;
          vi += nv;
          if (bj === undefined) continue; // welded (floating: false, mocap)
          if (q.length === nq) {
            let out: number[];
            if (j.kind === 'free') {
              const X = poseMul(this.xform, [q[0], q[1], q[2], q[4], q[5], q[6], q[3]]);
              out = [...X];
            } else if (j.kind === 'ball') out = [q[1], q[2], q[3], q[0]];
            else out = [q[0] - j.ref];
            key.joint_q.push({ joint: bj, q: out });
          }
          if (v.length === nv && v.some((x) => x !== 0)) {
            let out = [...v];
            if (j.kind === 'free') {
              // MuJoCo: the body origin's velocity (world), ω in the body frame; ours: the COM's
              // velocity and ω, both in the world: v_C = v_O + ω × (R·c). Without a qpos the body
              // stands at qpos0, its authored pose (xform included)
              const rq =
                q.length === 7 ? quatMult(this.xform.slice(3), [q[4], q[5], q[6], q[3]]) : p.world.slice(3);
              const w = rotate(rq, v.slice(3, 6));
              const wxr = cross(w, rotate(rq, b.bodyMassProperties(b.joints[bj].child).com));
              const vo = rotate(this.xform.slice(3), v.slice(0, 3));
              out = [vo[0] + wxr[0], vo[1] + wxr[1], vo[2] + wxr[2], ...w];
            }
            key.joint_qd.push({ joint: bj, qd: out });
          }
        }
        // MuJoCo's sizes: qpos nq, qvel nv, ctrl nu (each may be left out)
        const sizes: [string, number, number][] = [
          ['qpos', qpos.length, qi],
          ['qvel', qvel.length, vi],
          ['ctrl', key.ctrl.length, nu],
        ];
        for (const [field, got, want] of sizes)
          if (got !== 0 && got !== want)
            throw elError(k, `<key name="${key.name}">: ${field} has ${got} values; the model has ${want}`);
        keys.push(key);
      }
    }
    this.result.keyframes = keys;
    const sel = this.opts.keyframe;
    if (sel === undefined) return;
    const key = typeof sel === 'number' ? keys[sel] : keys.find((k) => k.name === sel);
    if (!key)
      throw new ImportError(
        `keyframe '${sel}' not found (have: ${keys.map((k) => k.name).join(', ') || 'none'})`,
      );
    b.time0 = key.time;
    for (const { joint, q } of key.joint_q) b.jointQ(joint).splice(0, q.length, ...q);
    for (const { joint, qd } of key.joint_qd) b.jointQd(joint).splice(0, qd.length, ...qd);
    key.ctrl.forEach((u, i) => {
      const act = this.result.actuators![i];
      if (act?.length_actuator !== undefined) {
        b.lengthActuators[act.length_actuator].ctrl0 = u;
        return;
      }
      const g = this.actuatorGains.get(i);
      if (!act || !g) return;
      const dof = b.joints[act.joint].dof;
      if (act.kind === 'position') dof.target_pos = u * g.targetScale + g.targetOffset;
      else if (act.kind === 'velocity') dof.target_vel = u * g.targetScale + g.targetOffset;
    });
  }
}
