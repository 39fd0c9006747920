/**
 * UsdPhysics → ModelBuilder. Reads a composed {@link UsdStage} and adds bodies, shapes, joints,
 * equality constraints (loop closures) and collision filters to a builder.
 *
 * Conventions and conversions:
 * - everything is brought to metres, kilograms and z-up: the stage's metersPerUnit and
 *   kilogramsPerUnit scale lengths, masses, inertias and densities; a Y-up stage is rotated +90°
 *   about x; then the caller's root transform (`xform`) applies;
 * - body frames are the rigid part of the body prim's world transform; scale in the hierarchy goes
 *   into shape sizes, mesh vertices and joint anchor positions;
 * - revolute limits, angular drive targets and angular drive gains are authored per degree and are
 *   converted to radians;
 * - joints form a spanning forest rooted at the world: joints to the world first, then one root per
 *   remaining component (an ArticulationRootAPI body, else the first body in traversal order) with a
 *   free joint (floating) or a fixed one (`floating: false`); joints that close loops (and joints with
 *   `physics:excludeFromArticulation`) become equality constraints: fixed → weld, revolute/spherical
 *   → ball (a revolute closure keeps only its anchor coincidence);
 * - generic `PhysicsJoint`s (D6) follow the schema's axis rules (`d6.ts`): one joint where one fits,
 *   else a chain of single-DOF joints through massless bodies; one with no LimitAPI / DriveAPI at all
 *   is read as fixed (Newton's reading, which SAP Warp's UR10 scene relies on);
 * - a floating root body's `physics:velocity` (its COM's, parent space) and `physics:angularVelocity`
 *   (deg/s) become its free joint's initial velocity; a velocity on an articulated link is a warning;
 * - the PhysicsScene's `newton:timeStepsPerSecond` (else `physxScene:timeStepsPerSecond`, else
 *   `mjc:option:timestep`) is the result's `timestep`.
 */
import { readableModelName } from '../model_name';
import {
  ModelError,
  shapeMassProperties,
  ShapeType,
  type JointDofConfig,
  type ModelBuilder,
  type ShapeConfig,
} from '../../model';
import type { AssetResolver } from '../assets/resolver';
import { rethrowOutside } from '../assets/confined';
import { LIMITS, limitMessage } from '../limits';
import { withRollback, type ImportOptions, type ImportResult, type Importer } from '../assets/importer';
import { convexHull, imageFile, splitAtSeams, type ImageFile } from '../mesh';
import { openStage, openStageFromText, type UsdPrim, type UsdStage } from './compose';
import { UsdError, type UsdLimits } from './errors';
import { NumArray, UsdReference, asNumber, asString, asTuple } from './values';
import {
  applyMjcServos,
  dampedServoKd,
  readMjcActuators,
  type MjcDampedServo,
  type MjcJointActuator,
  type MjcServoPrim,
} from './mjc_actuators';
import { addD6Chain, chainCoordinates, planD6, type D6ChainJoint, type D6Step } from './d6';
import { linearToSrgb, lookOf, type UsdLook, type UsdTextureRef } from './shading';
import {
  decompose,
  localXform,
  mat4FromPose,
  mat4FromQuatWXYZ,
  mat4Identity,
  mat4Invert,
  mat4Mul,
  mat4Point,
  mat4RotateAxis,
  mat4Scale,
  poseOf,
  quatFromMat3,
  rigidInverse,
  type Mat4,
  type XformIssue,
} from './xform';

/** material overrides applied to every imported collider */
export interface UsdMaterialOverrides {
  /** contact stiffness [N/m] */
  ke?: number;
  /** dissipation time scale [s] */
  tau?: number;
  /** Coulomb friction [-] */
  mu?: number;
  /** contact margin [m] */
  margin?: number;
  /** contact gap [m] */
  gap?: number;
}

/** a mesh returned by {@link UsdImportOptions.mesh_fallback}, in the mesh prim's local units */
export interface UsdFallbackMesh {
  /** (V × 3) vertices */
  vertices: ArrayLike<number>;
  /** (T × 3) triangle indices, counter-clockwise from outside */
  triangles: ArrayLike<number>;
}

/** what {@link UsdImportOptions.mesh_fallback} is asked for */
export interface UsdMeshRequest {
  /** the composed mesh prim path */
  primPath: string;
  /** the prim's name */
  name: string;
  /** the references authored on the prim (their layers may be missing): asset path and target prim */
  references: { assetPath: string; primPath: string }[];
  /** whether the mesh is a collider */
  collider: boolean;
}

/**
 * Options of {@link importUsd} (every field optional): the shared importer options plus USD-specific
 * ones. `shape_cfg` (any shape config field) and `material` override every collider's settings.
 */
export interface UsdImportOptions extends Omit<ImportOptions, 'resolver'> {
  /** material overrides for every collider (merged under `shape_cfg`) */
  material?: UsdMaterialOverrides;
  /** rotate Y-up stages to z-up (default true) */
  apply_up_axis?: boolean;
  /** set builder.gravity from the PhysicsScene (default false; the value is always returned) */
  apply_gravity?: boolean;
  /** provides geometry for meshes whose points are missing (e.g. a missing geometry library layer) */
  mesh_fallback?: (req: UsdMeshRequest) => Promise<UsdFallbackMesh | null> | UsdFallbackMesh | null;
  /** reader limits */
  limits?: Partial<UsdLimits>;
  /** the resolver (only read by {@link importUsdAsset}; {@link importUsd} takes it as an argument) */
  resolver?: AssetResolver;
}

/** what an import added to the builder (the shared {@link ImportResult} plus stage facts) */
export interface UsdImportResult extends ImportResult {
  /** stage facts */
  stage: { upAxis: 'Y' | 'Z'; metersPerUnit: number; kilogramsPerUnit: number; layers: number };
}

/** the collision-relevant geometry prim types */
const GEOM_TYPES = new Set([
  'Cube',
  'Sphere',
  'Capsule',
  'Capsule_1',
  'Cylinder',
  'Cylinder_1',
  'Cone',
  'Plane',
  'Mesh',
]);

const DEG = Math.PI / 180;
const BIG = 1e30;

/**
 * Imports a USD asset (USDA, USDC or USDZ, with its sublayers, references and payloads) into the
 * builder.
 * @param entryPath the entry layer, as the resolver names files
 */
export async function importUsd(
  builder: ModelBuilder,
  entryPath: string,
  resolver: AssetResolver,
  opts: UsdImportOptions = {},
): Promise<UsdImportResult> {
  const stage = await openStage(entryPath, resolver, { limits: opts.limits });
  return importUsdStage(builder, stage, opts);
}

/**
 * The {@link Importer} adapter for the importer registry (`registerImporter('usd', importUsdAsset)`):
 * file sources are read through `opts.resolver`; inline text is parsed as a USDA root layer (its
 * references resolve relative to `source.path`).
 */
export const importUsdAsset: Importer = async (builder, source, opts = {}) => {
  const o = opts as UsdImportOptions;
  const file = source.path ?? 'inline.usda';
  const resolver = o.resolver;
  return withRollback(builder, file, async () => {
    let stage: UsdStage;
    if (source.text !== undefined) {
      stage = await openStageFromText(source.text, file, resolver, { limits: o.limits });
    } else {
      if (!resolver) throw new UsdError('asset', { layer: file }, 'a resolver is needed to read USD files');
      stage = await openStage(file, resolver, { limits: o.limits });
    }
    return importUsdStage(builder, stage, o);
  });
};

/** imports an already composed stage (see {@link openStage}) */
export async function importUsdStage(
  builder: ModelBuilder,
  stage: UsdStage,
  opts: UsdImportOptions = {},
): Promise<UsdImportResult> {
  const imp = new UsdPhysicsImporter(builder, stage, opts);
  await imp.collect();
  return withRollback(builder, stage.rootLayer.identifier, () => {
    try {
      return imp.build();
    } catch (e) {
      // a builder error (bad pose, size, axis) is reported at the prim being mapped
      if (e instanceof ModelError && imp.at) {
        throw new UsdError('schema', { layer: imp.at.layer, primPath: imp.at.path }, e.message);
      }
      throw e;
    }
  });
}

/** a texture image read for a visual mesh, with the primvar of the mesh's texture coordinates */
interface TextureImage extends ImageFile {
  primvar: string;
}

interface BodyInfo {
  prim: UsdPrim;
  /** builder index (set in build) */
  index: number;
  /** rigid world pose as a matrix */
  X: Mat4;
  pose: number[];
  kinematic: boolean;
}

interface ShapeInfo {
  prim: UsdPrim;
  body: number; // local body slot (-1 static)
  collider: boolean;
  index: number;
}

interface JointRec {
  prim: UsdPrim;
  /** 'd6': a generic joint built as the chain `chain` */
  type: 'fixed' | 'revolute' | 'prismatic' | 'ball' | 'free' | 'd6';
  b0: number; // local body slot or -1
  b1: number;
  F0: Mat4;
  F1: Mat4;
  axis: [number, number, number];
  dof: Partial<JointDofConfig>;
  q0?: number;
  /** spherical joints: the swing cone of `axis` (coneAngle0Limit, coneAngle1Limit) [rad] */
  cone?: [number, number];
  excluded: boolean;
  collisionEnabled: boolean;
  revoluteClosure: boolean;
  /** a 'd6' joint's steps (body0 → body1) and their joints' axes and DOF parameters */
  steps?: D6Step[];
  chain?: D6ChainJoint[];
  /** the MjcActuator servos driving the joint */
  actuators?: MjcJointActuator[];
  /** its damped servos, resolved once the tree is built */
  damped?: MjcDampedServo[];
}

class UsdPhysicsImporter {
  /** the prim being mapped, so a builder error can name it */
  at: UsdPrim | null = null;
  private readonly warnings: string[] = [];
  private readonly unsupported: string[] = [];
  private readonly world = new Map<UsdPrim, Mat4>();
  private readonly C: Mat4;
  private readonly mpu: number;
  private readonly kpu: number;
  private readonly ignore: RegExp[];
  private readonly prefix: string;
  private readonly overrides: Partial<ShapeConfig>;

  private readonly bodies: BodyInfo[] = [];
  private readonly bodyOf = new Map<UsdPrim, number>();
  private readonly colliders: UsdPrim[] = [];
  private readonly visuals: UsdPrim[] = [];
  private readonly jointPrims: UsdPrim[] = [];
  private readonly groups: UsdPrim[] = [];
  private readonly filteredPairPrims: UsdPrim[] = [];
  private readonly artRoots: UsdPrim[] = [];
  private readonly mjcActuators: UsdPrim[] = [];
  private readonly scenes: UsdPrim[] = [];
  private readonly fallbackMeshes = new Map<UsdPrim, { points: Float64Array; tris: Int32Array }>();
  /** meshes without points (skipped), reported once */
  private readonly pointless = { colliders: [] as string[], visuals: [] as string[] };
  /** bodies that have visual shapes (their colliders are hidden by default) */
  private readonly visualBodies = new Set<number>();
  /** each geometry prim's bound material, as drawn */
  private readonly looks = new Map<UsdPrim, UsdLook>();
  /** the images of textured visual meshes that could be read */
  private readonly images = new Map<UsdPrim, TextureImage>();
  /** builder texture index of each image (by resolved path) */
  private readonly textureIndex = new Map<string, number>();

  constructor(
    private readonly builder: ModelBuilder,
    private readonly stage: UsdStage,
    private readonly opts: UsdImportOptions,
  ) {
    this.mpu = stage.metersPerUnit;
    this.kpu = stage.kilogramsPerUnit;
    if (!(this.mpu > 0) || !Number.isFinite(this.mpu)) {
      throw new UsdError(
        'schema',
        { layer: stage.rootLayer.identifier },
        `invalid metersPerUnit ${this.mpu}`,
      );
    }
    let C = mat4Scale(this.mpu, this.mpu, this.mpu);
    if (stage.upAxis === 'Y' && opts.apply_up_axis !== false) C = mat4Mul(mat4RotateAxis(0, 90), C);
    if (opts.xform) {
      if (opts.xform.length !== 7 || opts.xform.some((x) => !Number.isFinite(x))) {
        throw new UsdError(
          'schema',
          { layer: stage.rootLayer.identifier },
          'xform must be [px, py, pz, qx, qy, qz, qw]',
        );
      }
      C = mat4Mul(mat4FromPose(opts.xform), C);
    }
    this.C = C;
    this.ignore = (opts.ignore_paths ?? []).map((p) => {
      try {
        return new RegExp(`^(?:${p})`);
      } catch (e) {
        throw new UsdError(
          'schema',
          { layer: stage.rootLayer.identifier },
          `bad ignore_paths pattern '${p}': ${(e as Error).message}`,
        );
      }
    });
    this.prefix = opts.label_prefix ?? '';
    this.overrides = { ...opts.material, ...opts.shape_cfg };
    this.warnings.push(...stage.warnings);
    if (opts.collapse_fixed_joints)
      this.unsupported.push('collapse_fixed_joints: fixed joints are kept as joints');
  }

  private label(p: UsdPrim): string {
    if (!this.prefix) return p.name;
    return this.prefix.endsWith('/') ? this.prefix + p.name : `${this.prefix}/${p.name}`;
  }

  // ------------------------------------------------------------------ attribute helpers

  private num(p: UsdPrim, name: string): number | undefined {
    return asNumber(p.attr(name));
  }
  private tok(p: UsdPrim, name: string): string | undefined {
    return asString(p.attr(name));
  }
  private vec3(p: UsdPrim, name: string): number[] | undefined {
    return asTuple(p.attr(name), 3);
  }
  private quat(p: UsdPrim, name: string): number[] | undefined {
    return asTuple(p.attr(name), 4);
  }
  /** gravity compensation of a body: MuJoCo's `mjc:gravcomp`, else PhysX's `disableGravity` as 1 */
  private gravcomp(p: UsdPrim): number | undefined {
    const g = this.num(p, 'mjc:gravcomp');
    if (g !== undefined) return g;
    return p.attr('physxRigidBody:disableGravity') === true ? 1 : undefined;
  }
  /** first of several alias attributes that has a number */
  private alias(p: UsdPrim, names: string[]): { name: string; value: number } | undefined {
    for (const n of names) {
      const v = this.num(p, n);
      if (v !== undefined) return { name: n, value: v };
    }
    return undefined;
  }

  /** world matrix of a prim (column-vector convention, model units and axes) */
  worldOf(p: UsdPrim | null): Mat4 {
    if (!p || p.path === '/') return this.C;
    const have = this.world.get(p);
    if (have) return have;
    const issues: XformIssue[] = [];
    const { m, reset } = localXform((n) => p.attr(n), issues);
    for (const i of issues) this.warnings.push(`<${p.path}> ${i.op}: ${i.reason}`);
    const w = mat4Mul(reset ? this.C : this.worldOf(p.parent), m);
    this.world.set(p, w);
    return w;
  }

  // ------------------------------------------------------------------ collection

  async collect(): Promise<void> {
    const skip = (p: UsdPrim) => this.ignore.some((r) => r.test(p.path));
    for (const p of this.stage.traverse(skip)) {
      const t = p.typeName;
      if (t === 'PhysicsScene') this.scenes.push(p);
      if (p.hasApi('PhysicsArticulationRootAPI')) this.artRoots.push(p);
      if (p.hasApi('PhysicsRigidBodyAPI') && p.attr('physics:rigidBodyEnabled') !== false) {
        const X = this.rigid(this.worldOf(p));
        const kinematic = p.attr('physics:kinematicEnabled') === true;
        this.bodyOf.set(p, this.bodies.length);
        this.bodies.push({ prim: p, index: -1, X, pose: poseOf(X), kinematic });
      }
      if (/^Physics\w*Joint$/.test(t)) this.jointPrims.push(p);
      if (t === 'PhysicsCollisionGroup') this.groups.push(p);
      if (t === 'MjcActuator') this.mjcActuators.push(p);
      if (p.props.has('physics:filteredPairs')) this.filteredPairPrims.push(p);
      if (GEOM_TYPES.has(t)) {
        const isCollider = p.hasApi('PhysicsCollisionAPI') && p.attr('physics:collisionEnabled') !== false;
        if (isCollider) this.colliders.push(p);
        else if (this.opts.load_visual_shapes !== false && this.renderable(p)) this.visuals.push(p);
      } else if (p.hasApi('PhysicsCollisionAPI')) {
        this.warnings.push(
          `<${p.path}> has PhysicsCollisionAPI but is a '${t || 'typeless'}' prim, not a geometry prim`,
        );
      }
    }
    // meshes whose points are missing: ask the fallback
    for (const p of [...this.colliders, ...this.visuals]) {
      if (p.typeName !== 'Mesh') continue;
      const pts = p.attr('points');
      if (pts instanceof NumArray && pts.length > 0) continue;
      const refs: { assetPath: string; primPath: string }[] = [];
      for (const s of p.sources) {
        const op = s.spec.listOp('references');
        if (!op) continue;
        for (const r of [...op.explicit, ...op.prepend, ...op.append, ...op.add]) {
          if (r instanceof UsdReference) refs.push({ assetPath: r.assetPath, primPath: r.primPath });
        }
      }
      const collider = this.colliders.includes(p);
      const fb = this.opts.mesh_fallback
        ? await this.opts.mesh_fallback({ primPath: p.path, name: p.name, references: refs, collider })
        : null;
      if (fb) {
        const tris = Int32Array.from(fb.triangles);
        const nv = fb.vertices.length / 3;
        for (const i of tris) {
          if (!(i >= 0 && i < nv))
            throw new UsdError('schema', { primPath: p.path }, `fallback mesh index ${i} out of range`);
        }
        this.fallbackMeshes.set(p, { points: Float64Array.from(fb.vertices), tris });
      }
    }
    await this.collectLooks();
  }

  /**
   * reads the looks of the geometry prims and the images of textured visual meshes (each file
   * once); an image that cannot be read, or that browsers do not decode, is a warning and its mesh
   * keeps a plain colour
   */
  private async collectLooks(): Promise<void> {
    const read = new Map<string, ImageFile | string>();
    for (const p of this.colliders) {
      const look = lookOf(this.stage, p);
      if (look) this.looks.set(p, look);
    }
    for (const p of this.visuals) {
      const look = lookOf(this.stage, p);
      if (!look) continue;
      this.looks.set(p, look);
      const t = look.texture;
      if (!t || p.typeName !== 'Mesh') continue;
      const key = `${t.layer}|${t.file}`;
      let r = read.get(key);
      if (r === undefined) {
        r = await this.readImage(t);
        read.set(key, r);
        if (typeof r === 'string') this.warnings.push(`<${t.input}>: texture '${t.file}' not drawn (${r})`);
      }
      if (typeof r !== 'string') this.images.set(p, { ...r, primvar: t.primvar });
    }
  }

  private async readImage(t: UsdTextureRef): Promise<ImageFile | string> {
    if (/<UDIM>|<UVTILE>/i.test(t.file)) return 'tiled (UDIM) textures are not read';
    if (!this.stage.readAsset) return 'the stage has no file reader';
    try {
      const { path, bytes } = await this.stage.readAsset(t.layer, t.file);
      const f = imageFile(path, bytes);
      return typeof f === 'string' ? `${path} is ${f}` : f;
    } catch (e) {
      rethrowOutside(e);
      return e instanceof Error ? e.message : String(e);
    }
  }

  /**
   * a textured visual mesh's drawn vertices: one per distinct (point, texture coordinate), with the
   * coordinates of primvar `name` (faceVarying or vertex interpolation, indexed or not); a string
   * says why the primvar cannot be used
   */
  private texturedMesh(
    p: UsdPrim,
    verts: Float64Array,
    tris: Int32Array,
    corners: Int32Array,
    name: string,
  ): { vertices: Float64Array; triangles: Int32Array; uv: Float32Array } | string {
    const prop = p.props.get(`primvars:${name}`);
    const st = prop?.value;
    if (!(st instanceof NumArray) || st.width !== 2 || st.length === 0)
      return `no texture coordinates primvars:${name} (2 values per element)`;
    const indices = p.attr(`primvars:${name}:indices`);
    const index = indices instanceof NumArray ? indices.data : undefined;
    const count = index ? index.length : st.length;
    const faceVertices = (p.attr('faceVertexIndices') as NumArray).length;
    let interp = asString(prop!.meta('interpolation'));
    if (interp !== 'faceVarying' && interp !== 'vertex' && interp !== 'varying')
      interp = count === faceVertices ? 'faceVarying' : count === verts.length / 3 ? 'vertex' : interp;
    const perCorner = interp === 'faceVarying';
    if (!perCorner && interp !== 'vertex' && interp !== 'varying')
      return `primvars:${name} has ${interp ?? 'no'} interpolation with ${count} elements`;
    const need = perCorner ? faceVertices : verts.length / 3;
    if (count < need)
      return `primvars:${name} has ${count} elements for ${need} ${perCorner ? 'face vertices' : 'points'}`;
    const S = st.data;
    const cornerUv = new Float64Array(tris.length * 2);
    for (let i = 0; i < tris.length; i++) {
      let e = perCorner ? corners[i] : tris[i];
      if (index) e = index[e];
      if (!(e >= 0 && e < st.length)) return `primvars:${name} index ${e} outside its ${st.length} values`;
      const u = S[2 * e],
        v = S[2 * e + 1];
      if (!Number.isFinite(u) || !Number.isFinite(v)) return `primvars:${name} element ${e} is not finite`;
      cornerUv[2 * i] = u;
      cornerUv[2 * i + 1] = v;
    }
    return splitAtSeams(verts, tris, cornerUv);
  }

  /** whether a prim is drawn: not a guide/proxy, not invisible (inherited) */
  private renderable(p: UsdPrim): boolean {
    const purpose = this.tok(p, 'purpose');
    if (purpose === 'guide' || purpose === 'proxy') return false;
    for (let q: UsdPrim | null = p; q && q.path !== '/'; q = q.parent) {
      if (this.tok(q, 'visibility') === 'invisible') return false;
      const pp = this.tok(q, 'purpose');
      if (q !== p && (pp === 'guide' || pp === 'proxy')) return false;
    }
    return true;
  }

  /** the rigid part of a matrix (as a matrix) */
  private rigid(m: Mat4): Mat4 {
    return mat4FromPose(poseOf(m));
  }

  /** the nearest body at or above a prim (local slot), or -1 */
  private ownerBody(p: UsdPrim): number {
    for (let q: UsdPrim | null = p; q; q = q.parent) {
      const b = this.bodyOf.get(q);
      if (b !== undefined) return b;
    }
    return -1;
  }

  // ------------------------------------------------------------------ build

  build(): UsdImportResult {
    const b = this.builder;
    const result: UsdImportResult = {
      // the default prim names the model, unless it is a placeholder ("root", "World"): then the file
      name: readableModelName(this.stage.defaultPrim, this.stage.rootLayer.identifier, 'stage'),
      bodies: [],
      joints: [],
      shapes: [],
      equalities: [],
      warnings: this.warnings,
      unsupported: this.unsupported,
      stage: {
        upAxis: this.stage.upAxis,
        metersPerUnit: this.mpu,
        kilogramsPerUnit: this.kpu,
        layers: this.stage.rootStack.layers.length,
      },
    };
    result.gravity = this.gravity();
    if (result.gravity && this.opts.apply_gravity) b.gravity = [...result.gravity];
    const dt = this.timeStep();
    if (dt !== undefined) result.timestep = dt;

    // collider ownership, needed for mass decisions
    const colliderBody = this.colliders.map((c) => this.ownerBody(c));
    const bodyHasColliders = new Uint8Array(this.bodies.length);
    for (const k of colliderBody) if (k >= 0) bodyHasColliders[k] = 1;

    // bodies
    for (let k = 0; k < this.bodies.length; k++) {
      const info = this.bodies[k];
      this.at = info.prim;
      info.index = b.addBody({
        label: this.label(info.prim),
        X_wb: info.pose,
        ...this.massOf(info, bodyHasColliders[k] === 1),
        gravcomp: this.gravcomp(info.prim),
      });
      result.bodies.push(info.index);
    }

    // shapes
    for (const v of this.visuals) {
      const o = this.ownerBody(v);
      if (o >= 0) this.visualBodies.add(o);
    }
    const shapeInfos: ShapeInfo[] = [];
    this.colliders.forEach((c, i) => {
      for (const s of this.addGeom(c, colliderBody[i], true))
        shapeInfos.push({ prim: c, body: colliderBody[i], collider: true, index: s });
    });
    for (const v of this.visuals) {
      const owner = this.ownerBody(v);
      for (const s of this.addGeom(v, owner, false))
        shapeInfos.push({ prim: v, body: owner, collider: false, index: s });
    }
    result.shapes = shapeInfos.map((s) => s.index);
    this.showCollidersWhereNoVisualDrew(shapeInfos);
    for (const [kind, list] of [
      ['collider', this.pointless.colliders],
      ['visual', this.pointless.visuals],
    ] as const) {
      if (list.length) {
        this.warnings.push(
          `${list.length} ${kind} mesh${list.length > 1 ? 'es' : ''} without points skipped, first <${list[0]}>`,
        );
      }
    }

    // joints
    const joints = this.parseJoints();
    const comp = this.buildTree(joints, result);

    // collision filters
    this.filters(
      shapeInfos.filter((s) => s.collider),
      comp,
    );
    return result;
  }

  /**
   * the PhysicsScene's time step [s]: 1 / `newton:timeStepsPerSecond`, else 1 /
   * `physxScene:timeStepsPerSecond`, else MuJoCo's `mjc:option:timestep`; a second one that
   * disagrees is warned of
   */
  private timeStep(): number | undefined {
    const sc = this.scenes[0];
    if (!sc) return undefined;
    const found: { name: string; dt: number }[] = [];
    for (const name of [
      'newton:timeStepsPerSecond',
      'physxScene:timeStepsPerSecond',
      'mjc:option:timestep',
    ]) {
      const v = this.num(sc, name);
      if (v === undefined) continue;
      if (!(Number.isFinite(v) && v > 0)) {
        this.warnings.push(`<${sc.path}> ${name} = ${v} is not a positive number; ignored`);
        continue;
      }
      found.push({ name, dt: name.endsWith('timeStepsPerSecond') ? 1 / v : v });
    }
    if (!found.length) return undefined;
    for (const f of found.slice(1)) {
      if (Math.abs(f.dt - found[0].dt) > 1e-12 * found[0].dt) {
        this.warnings.push(
          `<${sc.path}> ${f.name} gives a time step of ${f.dt} s, ${found[0].name} ${found[0].dt} s; using ${found[0].dt} s`,
        );
      }
    }
    return found[0].dt;
  }

  private gravity(): [number, number, number] | undefined {
    const sc = this.scenes[0];
    if (!sc) return undefined;
    let dir = this.vec3(sc, 'physics:gravityDirection') ?? [0, 0, 0];
    const up = this.stage.upAxis === 'Y' ? [0, 1, 0] : [0, 0, 1];
    if (Math.hypot(dir[0], dir[1], dir[2]) === 0) dir = [-up[0], -up[1], -up[2]];
    let mag = this.num(sc, 'physics:gravityMagnitude');
    if (mag === undefined || !Number.isFinite(mag) || mag < 0) mag = 9.81 / this.mpu;
    const n = Math.hypot(dir[0], dir[1], dir[2]);
    // directions rotate with the up-axis conversion only (not with the asset's root transform)
    const R =
      this.stage.upAxis === 'Y' && this.opts.apply_up_axis !== false ? mat4RotateAxis(0, 90) : mat4Identity();
    const g = mat4Point(
      R,
      (dir[0] / n) * mag * this.mpu,
      (dir[1] / n) * mag * this.mpu,
      (dir[2] / n) * mag * this.mpu,
    );
    return [g[0], g[1], g[2]];
  }

  /** MassAPI of a body → BodyDesc mass fields */
  private massOf(
    info: BodyInfo,
    hasColliders: boolean,
  ): { mass?: number; com?: number[]; inertia?: number[] } {
    const p = info.prim;
    const mass = this.opts.ignore_inertial_definitions ? undefined : this.num(p, 'physics:mass');
    const out: { mass?: number; com?: number[]; inertia?: number[] } = {};
    if (mass !== undefined && mass !== 0 && !(mass > 0 && Number.isFinite(mass)))
      this.warnings.push(
        `<${p.path}>: physics:mass = ${mass} is not a finite number ≥ 0; ignored, ` +
          (hasColliders ? `the mass comes from the colliders' density` : 'using 1 kg'),
      );
    if (mass !== undefined && mass > 0 && Number.isFinite(mass)) {
      out.mass = mass * this.kpu;
      const com = this.vec3(p, 'physics:centerOfMass');
      if (com && com.every((x) => Number.isFinite(x))) {
        const w = mat4Point(this.worldOf(p), com[0], com[1], com[2]);
        const l = mat4Point(rigidInverse(info.X), w[0], w[1], w[2]);
        out.com = l;
      }
      const d = this.vec3(p, 'physics:diagonalInertia');
      if (d && d.some((x) => !Number.isFinite(x) || x < 0)) {
        throw new UsdError(
          'schema',
          { layer: p.layer, primPath: `${p.path}.physics:diagonalInertia` },
          `diagonalInertia must be finite and ≥ 0; got (${d.join(', ')})`,
        );
      }
      if (d && d.some((x) => x > 0)) {
        const s = this.kpu * this.mpu * this.mpu;
        let qa = this.quat(p, 'physics:principalAxes') ?? [1, 0, 0, 0];
        if (!qa.every((x) => Number.isFinite(x)) || Math.hypot(qa[0], qa[1], qa[2], qa[3]) === 0) {
          qa = [1, 0, 0, 0];
          this.warnings.push(`<${p.path}>: principalAxes is not a finite non-zero quaternion; identity used`);
        }
        const R = mat4FromQuatWXYZ(qa[0], qa[1], qa[2], qa[3]);
        const I = new Array<number>(9).fill(0);
        for (let r = 0; r < 3; r++)
          for (let c = 0; c < 3; c++) {
            let v = 0;
            for (let k = 0; k < 3; k++) v += R[r * 4 + k] * d[k] * s * R[c * 4 + k];
            I[r * 3 + c] = v;
          }
        out.inertia = I;
      }
    } else if (!hasColliders) {
      out.mass = 1;
      this.warnings.push(`<${p.path}>: rigid body without mass or colliders; using 1 kg`);
    } else if (this.vec3(p, 'physics:diagonalInertia')?.some((x) => x > 0)) {
      this.warnings.push(
        `<${p.path}>: diagonalInertia without mass is ignored (mass comes from the colliders)`,
      );
    }
    return out;
  }

  // ------------------------------------------------------------------ shapes

  /** the physics material bound to a collider (`material:binding:physics`, else `material:binding`) */
  private materialOf(p: UsdPrim): UsdPrim | undefined {
    for (const rel of ['material:binding:physics', 'material:binding']) {
      for (let q: UsdPrim | null = p; q && q.path !== '/'; q = q.parent) {
        const t = q.rel(rel);
        if (!t || t.length === 0) continue;
        const m = this.stage.prim(t[0]);
        if (m && m.hasApi('PhysicsMaterialAPI')) return m;
        break; // the nearest binding decides for this purpose
      }
    }
    return undefined;
  }

  /** adds the shape(s) of one geometry prim; returns builder shape indices */
  private addGeom(p: UsdPrim, owner: number, collider: boolean): number[] {
    this.at = p;
    const b = this.builder;
    const bodyIndex = owner >= 0 ? this.bodies[owner].index : -1;
    const Xb = owner >= 0 ? this.bodies[owner].X : mat4Identity();
    const M = mat4Mul(rigidInverse(Xb), this.worldOf(p));
    const dec = decompose(M);
    if (dec.shear > 1e-6) this.warnings.push(`<${p.path}>: sheared transform; shear ignored`);
    const [sx, sy, sz] = dec.s.map(Math.abs);
    const cfg: Partial<ShapeConfig> = {};
    const mat = collider ? this.materialOf(p) : undefined;
    if (collider) {
      cfg.has_shape_collision = true;
      cfg.is_visible = this.opts.force_show_colliders
        ? true
        : this.opts.hide_collision_shapes
          ? false
          : !(owner >= 0 ? this.visualBodies.has(owner) : false);
      const mu = mat
        ? (this.num(mat, 'physics:dynamicFriction') ?? this.num(mat, 'physics:staticFriction'))
        : undefined;
      if (mu !== undefined && mu >= 0) cfg.mu = mu;
      const rest = mat ? this.num(mat, 'physics:restitution') : undefined;
      if (rest !== undefined && rest !== 0)
        this.unsupported.push(`<${mat!.path}> restitution ${rest} (SAP contact has none)`);
    } else {
      cfg.has_shape_collision = false;
      cfg.is_visible = true;
      cfg.density = 0;
    }
    const linear = (() => {
      // a bound material's diffuse colour, as renderers draw it; else the prim's displayColor
      const look = this.looks.get(p);
      if (look?.color && !look.texture) return look.color;
      const c = p.attr('primvars:displayColor');
      let rgb: number[] | undefined;
      if (c instanceof NumArray && c.width === 3 && c.length >= 1) rgb = [c.data[0], c.data[1], c.data[2]];
      else if (Array.isArray(c) && c.length === 3) rgb = c as number[];
      // a color is cosmetic: an unusable one falls back to the default with a warning
      if (rgb && !rgb.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        this.warnings.push(
          `<${p.path}>: displayColor (${rgb.join(', ')}) is not a finite color; default used`,
        );
        return undefined;
      }
      return rgb;
    })();
    const color = linear && linearToSrgb(linear);
    const label = this.label(p);
    const add = (
      type: 'box' | 'sphere' | 'capsule' | 'cylinder' | 'cone' | 'plane' | 'ellipsoid',
      size: number[],
      R: number[],
      t: number[],
    ) => {
      const q = quatFromMat3(R);
      if (collider) this.setDensity(cfg, p, owner, type, size, mat);
      return b.addShape({
        body: bodyIndex,
        type,
        size,
        X_bs: [t[0], t[1], t[2], ...q],
        label,
        color,
        cfg: { ...cfg, ...this.shapeOverrides(collider) },
      });
    };
    const axisRot = (axis: string): number[] => {
      // maps local z onto the named axis
      if (axis === 'X') return [0, 0, 1, 0, 1, 0, -1, 0, 0];
      if (axis === 'Y') return [1, 0, 0, 0, 0, 1, 0, -1, 0];
      return [1, 0, 0, 0, 1, 0, 0, 0, 1];
    };
    const mul3 = (A: number[], B: number[]) => {
      const out = new Array<number>(9);
      for (let r = 0; r < 3; r++)
        for (let c = 0; c < 3; c++)
          out[r * 3 + c] = A[r * 3] * B[c] + A[r * 3 + 1] * B[3 + c] + A[r * 3 + 2] * B[6 + c];
      return out;
    };
    const axisScale = (axis: string): [number, number] => {
      const along = axis === 'X' ? sx : axis === 'Y' ? sy : sz;
      const perp = axis === 'X' ? [sy, sz] : axis === 'Y' ? [sx, sz] : [sx, sy];
      if (Math.abs(perp[0] - perp[1]) > 1e-6 * Math.max(perp[0], perp[1])) {
        this.warnings.push(`<${p.path}>: non-uniform radial scale; using the larger`);
      }
      return [along, Math.max(perp[0], perp[1])];
    };
    switch (p.typeName) {
      case 'Cube': {
        const size = this.num(p, 'size') ?? 2;
        return [add('box', [(size / 2) * sx, (size / 2) * sy, (size / 2) * sz], dec.R, dec.t)];
      }
      case 'Sphere': {
        const r = this.num(p, 'radius') ?? 1;
        const uniform = Math.abs(sx - sy) <= 1e-6 * sx && Math.abs(sx - sz) <= 1e-6 * sx;
        return [
          uniform
            ? add('sphere', [r * sx], dec.R, dec.t)
            : add('ellipsoid', [r * sx, r * sy, r * sz], dec.R, dec.t),
        ];
      }
      case 'Capsule':
      case 'Capsule_1':
      case 'Cylinder':
      case 'Cylinder_1':
      case 'Cone': {
        const axis = this.tok(p, 'axis') ?? 'Z';
        const isCyl = p.typeName.startsWith('Cylinder');
        const isCone = p.typeName === 'Cone';
        let radius = this.num(p, 'radius') ?? (isCyl || isCone ? 1 : 0.5);
        if (p.typeName.endsWith('_1')) {
          const rt = this.num(p, 'radiusTop'),
            rb = this.num(p, 'radiusBottom');
          if (rt !== undefined && rb !== undefined && rt !== rb)
            this.unsupported.push(
              `<${p.path}> tapered ${p.typeName} (radiusTop ≠ radiusBottom); using the larger`,
            );
          radius = Math.max(rt ?? radius, rb ?? radius);
        }
        const height = this.num(p, 'height') ?? (isCyl || isCone ? 2 : 1);
        const [sa, sp] = axisScale(axis);
        const R = mul3(dec.R, axisRot(axis));
        const type = isCone ? 'cone' : isCyl ? 'cylinder' : 'capsule';
        return [add(type, [radius * sp, (height / 2) * sa], R, dec.t)];
      }
      case 'Plane': {
        const axis = this.tok(p, 'axis') ?? 'Z';
        const R = mul3(dec.R, axisRot(axis));
        if (owner >= 0) this.warnings.push(`<${p.path}>: a plane collider on a moving body`);
        return [add('plane', [0, 0, 0], R, dec.t)];
      }
      case 'Mesh':
        return this.addMeshGeom(p, bodyIndex, owner, M, dec, collider, cfg, label, color, mat);
    }
    return [];
  }

  private shapeOverrides(collider: boolean): Partial<ShapeConfig> {
    if (!collider) return {};
    const o: Partial<ShapeConfig> = {};
    for (const [k, v] of Object.entries(this.overrides))
      if (v !== undefined) (o as Record<string, unknown>)[k] = v;
    return o;
  }

  /** collider density: collider MassAPI (mass or density), the bound material, the body's MassAPI density */
  private setDensity(
    cfg: Partial<ShapeConfig>,
    p: UsdPrim,
    owner: number,
    type: number | string,
    size: number[],
    mat: UsdPrim | undefined,
    meshVolume?: number,
  ): void {
    const dscale = this.kpu / this.mpu ** 3;
    const m = this.num(p, 'physics:mass');
    for (const [attr, v] of [
      ['mass', m],
      ['density', this.num(p, 'physics:density')],
    ] as const)
      if (v !== undefined && v !== 0 && !(v > 0 && Number.isFinite(v)))
        this.warnings.push(
          `<${p.path}>: physics:${attr} = ${v} is not a finite number ≥ 0; ignored; the first valid density of the collider, its material, its body or UsdPhysics' default 1000 kg/m³ is used`,
        );
    if (m !== undefined && m > 0 && Number.isFinite(m)) {
      const vol =
        meshVolume ??
        shapeMassProperties(
          typeof type === 'number' ? type : ShapeType[type.toUpperCase() as keyof typeof ShapeType],
          size,
          1,
        ).mass;
      if (vol > 0) {
        cfg.density = (m * this.kpu) / vol;
        return;
      }
    }
    const d = this.num(p, 'physics:density');
    if (d !== undefined && d > 0 && Number.isFinite(d)) {
      cfg.density = d * dscale;
      return;
    }
    const md = mat ? this.num(mat, 'physics:density') : undefined;
    if (md !== undefined && md > 0) {
      cfg.density = md * dscale;
      return;
    }
    const bd = owner >= 0 ? this.num(this.bodies[owner].prim, 'physics:density') : undefined;
    if (bd !== undefined && bd > 0) {
      cfg.density = bd * dscale;
      return;
    }
    cfg.density = 1000; // UsdPhysics' default, SI
  }

  /**
   * a body whose visual prims all failed to draw (missing or pointless meshes) shows its colliders
   * instead, as URDF links do, rather than nothing at all
   */
  private showCollidersWhereNoVisualDrew(shapes: ShapeInfo[]): void {
    if (this.opts.hide_collision_shapes) return;
    const drawn = new Set(shapes.filter((s) => !s.collider && s.body >= 0).map((s) => s.body));
    const shown = new Set<number>();
    for (const s of shapes) {
      if (!s.collider || s.body < 0 || !this.visualBodies.has(s.body) || drawn.has(s.body)) continue;
      this.builder.shapes[s.index].cfg.is_visible = true;
      shown.add(s.body);
    }
    if (shown.size) {
      const names = [...shown].map((k) => this.bodies[k].prim.path);
      this.warnings.push(
        `visual meshes not drawn on ${shown.size} bod${shown.size === 1 ? 'y' : 'ies'}; their collision shapes are shown instead: ` +
          names.slice(0, 8).join(', ') +
          (names.length > 8 ? `, … (${names.length - 8} more)` : ''),
      );
    }
  }

  private addMeshGeom(
    p: UsdPrim,
    bodyIndex: number,
    owner: number,
    M: Mat4,
    dec: ReturnType<typeof decompose>,
    collider: boolean,
    cfg: Partial<ShapeConfig>,
    label: string,
    color: number[] | undefined,
    mat: UsdPrim | undefined,
  ): number[] {
    const b = this.builder;
    const fb = this.fallbackMeshes.get(p);
    let points: ArrayLike<number>;
    let tris: Int32Array;
    let corners: Int32Array | undefined;
    if (fb) {
      points = fb.points;
      tris = fb.tris;
    } else {
      const pts = p.attr('points');
      if (!(pts instanceof NumArray) || pts.width !== 3 || pts.length === 0) {
        (collider ? this.pointless.colliders : this.pointless.visuals).push(p.path);
        return [];
      }
      points = pts.data;
      const t = this.triangulate(p, pts.length);
      if (!t) return [];
      tris = t.tris;
      corners = t.corners;
    }
    if (tris.length === 0) {
      this.warnings.push(`<${p.path}>: mesh has no faces`);
      return [];
    }
    const nv = points.length / 3;
    const forced =
      this.opts.mesh_collision === 'convex_hull'
        ? 'convexHull'
        : this.opts.mesh_collision === 'mesh'
          ? 'none'
          : undefined;
    const approx = collider ? (forced ?? this.tok(p, 'physics:approximation') ?? 'none') : 'none';
    const skipApprox = this.opts.skip_mesh_approximation === true;
    if (collider && !skipApprox && (approx === 'boundingSphere' || approx === 'boundingCube')) {
      // fitted in the prim's local frame (scale applied), posed like the prim
      const [sx, sy, sz] = dec.s;
      let lo = [Infinity, Infinity, Infinity],
        hi = [-Infinity, -Infinity, -Infinity];
      for (let i = 0; i < nv; i++) {
        const v = [points[3 * i] * sx, points[3 * i + 1] * sy, points[3 * i + 2] * sz];
        lo = lo.map((x, k) => Math.min(x, v[k]));
        hi = hi.map((x, k) => Math.max(x, v[k]));
      }
      const c = lo.map((x, k) => (x + hi[k]) / 2);
      const R = dec.R;
      const t = [0, 1, 2].map((r) => dec.t[r] + R[r * 3] * c[0] + R[r * 3 + 1] * c[1] + R[r * 3 + 2] * c[2]);
      const q = quatFromMat3(R);
      if (approx === 'boundingCube') {
        const size = hi.map((x, k) => Math.abs(x - lo[k]) / 2);
        this.setDensity(cfg, p, owner, 'box', size, mat);
        return [
          b.addShape({
            body: bodyIndex,
            type: 'box',
            size,
            X_bs: [t[0], t[1], t[2], ...q],
            label,
            color,
            cfg: { ...cfg, ...this.shapeOverrides(true) },
          }),
        ];
      }
      let r = 0;
      for (let i = 0; i < nv; i++) {
        const v = [points[3 * i] * sx - c[0], points[3 * i + 1] * sy - c[1], points[3 * i + 2] * sz - c[2]];
        r = Math.max(r, Math.hypot(v[0], v[1], v[2]));
      }
      this.setDensity(cfg, p, owner, 'sphere', [r], mat);
      return [
        b.addShape({
          body: bodyIndex,
          type: 'sphere',
          size: [r],
          X_bs: [t[0], t[1], t[2], ...q],
          label,
          color,
          cfg: { ...cfg, ...this.shapeOverrides(true) },
        }),
      ];
    }
    // vertices in the body frame (the full relative transform, scale included)
    const verts = new Float64Array(nv * 3);
    for (let i = 0; i < nv; i++) {
      const v = mat4Point(M, points[3 * i], points[3 * i + 1], points[3 * i + 2]);
      verts[3 * i] = v[0];
      verts[3 * i + 1] = v[1];
      verts[3 * i + 2] = v[2];
    }
    for (let i = 0; i < verts.length; i++) {
      if (Number.isFinite(verts[i])) continue;
      const reason = Number.isFinite(points[i])
        ? `point ${Math.floor(i / 3)} is not finite after the prim's transform`
        : `point ${Math.floor(i / 3)} is not finite (${points[i]})`;
      if (collider) throw new UsdError('schema', { layer: p.layer, primPath: `${p.path}.points` }, reason);
      this.warnings.push(`<${p.path}>: ${reason}; the visual mesh is skipped`);
      return [];
    }
    if (dec.s[0] * dec.s[1] * dec.s[2] < 0) {
      for (const a of corners ? [tris, corners] : [tris]) {
        for (let i = 0; i < a.length; i += 3) {
          const t = a[i + 1];
          a[i + 1] = a[i + 2];
          a[i + 2] = t;
        }
      }
    }
    // a textured visual: drawn from its own vertices, split where the texture coordinates differ
    const image = collider ? undefined : this.images.get(p);
    if (image && corners) {
      const tm = this.texturedMesh(p, verts, tris, corners, image.primvar);
      if (typeof tm === 'string') {
        this.warnings.push(
          `<${p.path}>: texture ${image.path} not drawn (${tm}); the mesh keeps a plain colour`,
        );
      } else {
        let texture = this.textureIndex.get(image.path);
        if (texture === undefined) {
          texture = b.addTexture({ mime: image.mime, bytes: image.bytes, label: image.path });
          this.textureIndex.set(image.path, texture);
        }
        const mesh = b.addMesh({ ...tm, label, texture });
        return [
          b.addShape({
            body: bodyIndex,
            type: 'mesh',
            size: [1, 1, 1],
            mesh,
            label,
            // a texture is drawn as authored: its tint (white by default) times the image
            color: linearToSrgb(this.looks.get(p)?.color ?? [1, 1, 1]),
            cfg: { ...cfg, ...this.shapeOverrides(false) },
          }),
        ];
      }
    }
    let type: 'mesh' | 'convex_mesh' = 'mesh';
    let mv: ArrayLike<number> = verts;
    let mt: ArrayLike<number> = tris;
    if (collider && !skipApprox && (approx === 'convexHull' || approx === 'convexDecomposition')) {
      try {
        const h = convexHull(verts, `<${p.path}> (${p.layer})`, (w) => this.warnings.push(w));
        type = 'convex_mesh';
        mv = h.vertices;
        mt = h.triangles;
        if (approx === 'convexDecomposition')
          this.unsupported.push(`<${p.path}> convexDecomposition approximated by one convex hull`);
      } catch (e) {
        this.warnings.push(
          `<${p.path}>: no convex hull (${e instanceof Error ? e.message : String(e)}); kept as a triangle mesh`,
        );
      }
    } else if (
      collider &&
      !skipApprox &&
      approx !== 'none' &&
      approx !== 'meshSimplification' &&
      approx !== 'sdf'
    ) {
      this.warnings.push(`<${p.path}>: unknown approximation '${approx}'; kept as a triangle mesh`);
    }
    const mesh = b.addMesh({ vertices: mv, triangles: mt, label });
    if (collider) this.setDensity(cfg, p, owner, 'mesh', [1, 1, 1], mat, meshVolume(mv, mt));
    return [
      b.addShape({
        body: bodyIndex,
        type,
        size: [1, 1, 1],
        mesh,
        label,
        color,
        cfg: { ...cfg, ...this.shapeOverrides(collider) },
      }),
    ];
  }

  /**
   * fan-triangulates faceVertexCounts/faceVertexIndices; null (with a warning) when malformed.
   * `corners[i]` is the face-vertex (faceVarying element) of triangle corner `tris[i]`.
   */
  private triangulate(p: UsdPrim, nv: number): { tris: Int32Array; corners: Int32Array } | null {
    const counts = p.attr('faceVertexCounts');
    const idx = p.attr('faceVertexIndices');
    if (!(counts instanceof NumArray) || !(idx instanceof NumArray)) {
      this.warnings.push(`<${p.path}>: mesh without faceVertexCounts/faceVertexIndices`);
      return null;
    }
    const left = this.tok(p, 'orientation') === 'leftHanded';
    // the counts must add up to the indices given, before anything is allocated from them
    let nt = 0,
      total = 0;
    for (let f = 0; f < counts.data.length; f++) {
      const c = counts.data[f];
      if (!(Number.isInteger(c) && c >= 0)) {
        throw new UsdError(
          'schema',
          { layer: p.layer, primPath: `${p.path}.faceVertexCounts` },
          `face ${f} has ${c} vertices`,
        );
      }
      total += c;
      if (c >= 3) nt += c - 2;
    }
    if (total > idx.data.length) {
      throw new UsdError(
        'schema',
        { layer: p.layer, primPath: `${p.path}.faceVertexCounts` },
        `faceVertexCounts add up to ${total} indices; faceVertexIndices has ${idx.data.length}`,
      );
    }
    if (nt > LIMITS.max_mesh_triangles) {
      throw new UsdError(
        'limit',
        { layer: p.layer, primPath: p.path },
        limitMessage(`a mesh of ${nt} triangles`, 'max_mesh_triangles'),
      );
    }
    const out = new Int32Array(nt * 3);
    const corners = new Int32Array(nt * 3);
    let o = 0,
      k = 0;
    const I = idx.data;
    for (let f = 0; f < counts.data.length; f++) {
      const c = counts.data[f];
      if (k + c > I.length)
        throw new UsdError(
          'schema',
          { layer: p.layer, primPath: p.path },
          'faceVertexCounts exceed faceVertexIndices',
        );
      for (let j = 1; j + 1 < c; j++) {
        const a = I[k],
          b2 = I[k + j],
          c2 = I[k + j + 1];
        if (!(a < nv && b2 < nv && c2 < nv && a >= 0 && b2 >= 0 && c2 >= 0)) {
          throw new UsdError(
            'schema',
            { layer: p.layer, primPath: p.path },
            `face vertex index out of range (${nv} points)`,
          );
        }
        corners[o] = k;
        out[o++] = a;
        corners[o] = left ? k + j + 1 : k + j;
        out[o++] = left ? c2 : b2;
        corners[o] = left ? k + j : k + j + 1;
        out[o++] = left ? b2 : c2;
      }
      k += c;
    }
    return { tris: out, corners };
  }

  // ------------------------------------------------------------------ joints

  private bodySlotOfTarget(path: string | undefined, joint: UsdPrim): { slot: number; frame: Mat4 } {
    if (!path) return { slot: -1, frame: this.C };
    const prim = this.stage.prim(path);
    if (!prim) {
      this.warnings.push(`<${joint.path}>: body target <${path}> does not exist; using the world`);
      return { slot: -1, frame: this.C };
    }
    return { slot: this.ownerBody(prim), frame: this.worldOf(prim) };
  }

  private jointFrame(frame: Mat4, pos: number[] | undefined, rot: number[] | undefined): Mat4 {
    const p = pos ?? [0, 0, 0];
    const wp = mat4Point(frame, p[0], p[1], p[2]);
    const d = decompose(frame);
    const r = rot && Math.hypot(rot[0], rot[1], rot[2], rot[3]) > 0 ? rot : [1, 0, 0, 0];
    const Rl = mat4FromQuatWXYZ(r[0], r[1], r[2], r[3]);
    const Rw = mat4Identity();
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) Rw[i * 4 + j] = d.R[i * 3 + j];
    const m = mat4Mul(Rw, Rl);
    m[3] = wp[0];
    m[7] = wp[1];
    m[11] = wp[2];
    return m;
  }

  private parseJoints(): JointRec[] {
    const out: JointRec[] = [];
    const autoLimits = this.scenes[0]?.attr('mjc:compiler:autoLimits') !== false;
    const actuators = readMjcActuators(this.mjcActuators, autoLimits, this.warnings, this.unsupported);
    for (const j of this.jointPrims) {
      if (j.attr('physics:jointEnabled') === false) continue;
      const t0 = j.rel('physics:body0') ?? [];
      const t1 = j.rel('physics:body1') ?? [];
      if (t0.length > 1 || t1.length > 1)
        this.warnings.push(`<${j.path}>: several body targets; using the first`);
      const A = this.bodySlotOfTarget(t0[0], j);
      const B = this.bodySlotOfTarget(t1[0], j);
      if (A.slot === B.slot) {
        this.warnings.push(
          `<${j.path}>: joins ${A.slot < 0 ? 'the world to itself' : 'a body to itself'}; ignored`,
        );
        continue;
      }
      const F0 = this.jointFrame(
        A.frame,
        this.vec3(j, 'physics:localPos0'),
        this.quat(j, 'physics:localRot0'),
      );
      const F1 = this.jointFrame(
        B.frame,
        this.vec3(j, 'physics:localPos1'),
        this.quat(j, 'physics:localRot1'),
      );
      const rec: JointRec = {
        prim: j,
        type: 'fixed',
        b0: A.slot,
        b1: B.slot,
        F0,
        F1,
        axis: [1, 0, 0],
        dof: {},
        excluded: j.attr('physics:excludeFromArticulation') === true,
        collisionEnabled: j.attr('physics:collisionEnabled') === true,
        revoluteClosure: false,
      };
      const axisVec = (tok: string | undefined): [number, number, number] =>
        tok === 'Y' ? [0, 1, 0] : tok === 'Z' ? [0, 0, 1] : [1, 0, 0];
      const lim = (v: number | undefined, scale: number): number | undefined =>
        v === undefined || Number.isNaN(v)
          ? undefined
          : v <= -BIG
            ? -Infinity
            : v >= BIG
              ? Infinity
              : v * scale;
      switch (j.typeName) {
        case 'PhysicsRevoluteJoint':
        case 'PhysicsPrismaticJoint': {
          const angular = j.typeName === 'PhysicsRevoluteJoint';
          rec.type = angular ? 'revolute' : 'prismatic';
          rec.axis = axisVec(this.tok(j, 'physics:axis'));
          const s = angular ? DEG : this.mpu;
          const lo = lim(this.num(j, 'physics:lowerLimit'), s) ?? -Infinity;
          const hi = lim(this.num(j, 'physics:upperLimit'), s) ?? Infinity;
          this.setLimits(rec, lo, hi);
          this.applyDrive(rec, j, angular ? 'angular' : 'linear', angular, actuators);
          this.applyAliases(rec, j, angular);
          rec.q0 = this.jointState(j, angular ? 'angular' : 'linear', angular);
          break;
        }
        case 'PhysicsSphericalJoint': {
          rec.type = 'ball';
          rec.axis = axisVec(this.tok(j, 'physics:axis'));
          // the swing cone of the axis [deg]: negative (the default) or huge = none on that side; a cone
          // of 0 (a locked swing) has no row direction at rest, and is held at 0.001 rad instead
          const cone = (name: string): number => {
            const c = this.num(j, name);
            if (c === undefined || Number.isNaN(c) || c < 0 || c * DEG >= Math.PI) return Infinity;
            if (c * DEG < 1e-3) {
              this.warnings.push(`<${j.path}> ${name} ${c}° is taken as 0.001 rad`);
              return 1e-3;
            }
            return c * DEG;
          };
          const c0 = cone('physics:coneAngle0Limit'),
            c1 = cone('physics:coneAngle1Limit');
          if (c0 < Infinity || c1 < Infinity) rec.cone = [c0, c1];
          this.applyAliases(rec, j, true);
          break;
        }
        case 'PhysicsFixedJoint':
          rec.type = 'fixed';
          break;
        case 'PhysicsDistanceJoint':
          this.unsupported.push(`<${j.path}> PhysicsDistanceJoint (ignored)`);
          continue;
        case 'PhysicsJoint': {
          const r = this.genericJoint(rec, j, actuators);
          if (!r) continue;
          break;
        }
        default:
          this.unsupported.push(`<${j.path}> ${j.typeName} (ignored)`);
          continue;
      }
      out.push(rec);
    }
    for (const [target, servos] of actuators) {
      for (const a of servos) {
        this.unsupported.push(
          `<${a.prim.path}> MjcActuator targets <${target}>, not a revolute or prismatic joint without a PhysicsDriveAPI (not built)`,
        );
      }
    }
    return out;
  }

  private setLimits(rec: JointRec, lo: number, hi: number): void {
    if (lo > hi) {
      this.warnings.push(`<${rec.prim.path}>: lower limit above upper limit; limits ignored`);
      return;
    }
    rec.dof.limit_lower = lo;
    rec.dof.limit_upper = hi;
  }

  /**
   * A generic joint (D6) by its axes ({@link planD6}): one joint where one fits, else a chain.
   * Without any LimitAPI or DriveAPI instance it is read as fixed, as Newton (and so SAP Warp's UR10
   * scene) reads it; the schema's reading, six free axes, is the same as leaving the joint out.
   */
  private genericJoint(rec: JointRec, j: UsdPrim, actuators: Map<string, MjcServoPrim[]>): boolean {
    if (!j.apiSchemas.some((a) => a.startsWith('PhysicsLimitAPI:') || a.startsWith('PhysicsDriveAPI:'))) {
      rec.type = 'fixed';
      this.warnings.push(
        `<${j.path}>: generic PhysicsJoint without LimitAPI/DriveAPI read as fixed (the schema would leave all six axes free)`,
      );
      return true;
    }
    const plan = planD6(
      j,
      this.mpu,
      (n) => this.num(j, n),
      (m) => this.unsupported.push(m),
    );
    const unit = (i: number): [number, number, number] => [i === 0 ? 1 : 0, i === 1 ? 1 : 0, i === 2 ? 1 : 0];
    switch (plan.kind) {
      case 'fixed':
        rec.type = 'fixed';
        return true;
      case 'ball':
        rec.type = 'ball';
        this.applyAliases(rec, j, true);
        return true;
      case 'revolute':
      case 'prismatic': {
        const a = plan.axis;
        rec.type = plan.kind;
        rec.axis = unit(a.index);
        this.setLimits(rec, a.lower, a.upper);
        this.applyDrive(rec, j, a.name, a.angular, actuators);
        this.applyAliases(rec, j, a.angular);
        rec.q0 = this.jointState(j, a.name, a.angular);
        return true;
      }
      case 'free':
      case 'chain': {
        // six free axes to the world are a free joint; between two bodies, a chain
        if (plan.kind === 'free' && (rec.b0 < 0 || rec.b1 < 0)) {
          rec.type = 'free';
          return true;
        }
        rec.type = 'd6';
        rec.steps = plan.steps;
        rec.chain = plan.steps.map((s) => {
          const dof: Partial<JointDofConfig> = {};
          const a = s.axis;
          if (a) {
            if (a.lower > -Infinity || a.upper < Infinity) {
              dof.limit_lower = a.lower;
              dof.limit_upper = a.upper;
            }
            this.applyDrive(rec, j, a.name, a.angular, new Map(), dof);
          }
          this.applyAliases(rec, j, s.type !== 'prismatic', dof, s.type === 'ball');
          return { type: s.type, axis: unit(a?.index ?? 0), dof, name: a?.name ?? 'rot' };
        });
        return true;
      }
    }
  }

  private applyDrive(
    rec: JointRec,
    j: UsdPrim,
    inst: string,
    angular: boolean,
    actuators: Map<string, MjcServoPrim[]>,
    d: Partial<JointDofConfig> = rec.dof,
  ): void {
    if (j.hasApi(`PhysicsDriveAPI:${inst}`)) {
      const pre = `drive:${inst}:physics:`;
      const gs = angular ? (this.kpu * this.mpu * this.mpu) / DEG : this.kpu;
      const ks = this.num(j, pre + 'stiffness');
      const kd = this.num(j, pre + 'damping');
      if (ks !== undefined) d.target_ke = ks * gs;
      if (kd !== undefined) d.target_kd = kd * gs;
      const tp = this.num(j, pre + 'targetPosition');
      const tv = this.num(j, pre + 'targetVelocity');
      if (tp !== undefined) d.target_pos = tp * (angular ? DEG : this.mpu);
      if (tv !== undefined) d.target_vel = tv * (angular ? DEG : this.mpu);
      const mf = this.num(j, pre + 'maxForce');
      if (mf !== undefined && mf > 0 && mf < BIG)
        d.effort_limit = mf * this.kpu * this.mpu * (angular ? this.mpu : 1);
      // PhysX's acceleration drive: gains per unit inertia (scaled by M(q)_dd each step)
      if (this.tok(j, pre + 'type') === 'acceleration') d.drive_acceleration = true;
      return;
    }
    const servos = actuators.get(j.path);
    if (servos) {
      const applied = applyMjcServos(d, servos, this.warnings);
      rec.actuators = applied.actuators;
      if (applied.damped.length) rec.damped = applied.damped;
      actuators.delete(j.path);
    }
  }

  /** PhysX / MuJoCo / Newton attribute aliases of per-DOF parameters */
  private applyAliases(
    rec: JointRec,
    j: UsdPrim,
    angular: boolean,
    d: Partial<JointDofConfig> = rec.dof,
    ball = rec.type === 'ball',
  ): void {
    const arm = this.alias(j, ['physxJoint:armature', 'mjc:armature', 'newton:armature']);
    if (arm && arm.value >= 0)
      d.armature = arm.value * this.kpu * this.mpu * this.mpu * (angular ? 1 : 1 / (this.mpu * this.mpu));
    const fr = this.alias(j, ['mjc:frictionloss', 'newton:friction', 'physxJoint:jointFriction']);
    if (fr && fr.value > 0 && ball) {
      // (a ball joint's three DOFs carry none of SAP's joint-friction constraints)
      this.unsupported.push(
        `<${j.path}> ${fr.name} ${fr.value} on a spherical joint is not simulated (dry friction acts on revolute and prismatic joints)`,
      );
    } else if (fr && fr.value >= 0) d.friction = fr.value;
    const dm = this.alias(j, ['mjc:damping', 'newton:damping']);
    if (dm && dm.value >= 0) d.damping = dm.value;
    const vl = this.alias(j, ['physxJoint:maxJointVelocity', 'newton:velocityLimit']);
    if (vl && vl.value > 0 && vl.value < BIG) {
      d.velocity_limit =
        vl.name === 'physxJoint:maxJointVelocity' && angular
          ? vl.value * DEG
          : vl.value * (angular ? 1 : this.mpu);
    }
    const fmax = this.num(j, 'mjc:actuatorfrcrange:max');
    const fmin = this.num(j, 'mjc:actuatorfrcrange:min');
    if (fmax !== undefined || fmin !== undefined) {
      // MuJoCo clamps each actuator to its forceRange, then their sum on the joint to this range
      const e = Math.max(Math.abs(fmax ?? 0), Math.abs(fmin ?? 0));
      if (e > 0) d.effort_limit = Math.min(d.effort_limit ?? Infinity, e);
    }
    const el = this.num(j, 'newton:effortLimit');
    if (d.effort_limit === undefined && el !== undefined && el > 0 && el < BIG) d.effort_limit = el;
  }

  /** spanning forest + loop closures; returns each local body's component id */
  private buildTree(joints: JointRec[], result: UsdImportResult): Int32Array {
    const b = this.builder;
    const nb = this.bodies.length;
    const adj: number[][] = Array.from({ length: nb + 1 }, () => []); // slot+1; 0 = world
    const floating = this.opts.floating;
    joints.forEach((j, e) => {
      if (j.excluded) return;
      if (floating === true && j.type === 'fixed' && (j.b0 < 0 || j.b1 < 0)) {
        this.warnings.push(`<${j.prim.path}>: fixed joint to the world dropped (floating: true)`);
        j.excluded = true;
        (j as { dropped?: boolean }).dropped = true;
        return;
      }
      adj[j.b0 + 1].push(e);
      adj[j.b1 + 1].push(e);
    });
    const inTree = new Uint8Array(nb);
    const comp = new Int32Array(nb).fill(-1);
    const used = new Uint8Array(joints.length); // 1 tree, 2 loop
    const loops: number[] = [];
    const jointIndex = new Map<number, number>();
    const damped: [number, MjcDampedServo[]][] = [];
    const addTreeJoint = (e: number, parent: number, child: number) => {
      const j = joints[e];
      this.at = j.prim;
      const reversed = j.b1 !== child;
      const Fp = reversed ? j.F1 : j.F0;
      const Fc = reversed ? j.F0 : j.F1;
      const Xp = parent < 0 ? Fp : mat4Mul(rigidInverse(this.bodies[parent].X), Fp);
      const Xc = mat4Mul(rigidInverse(this.bodies[child].X), Fc);
      const axis: [number, number, number] = reversed ? [-j.axis[0], -j.axis[1], -j.axis[2]] : j.axis;
      if (j.type === 'd6') {
        this.addChain(j, parent, child, Xp, Xc, reversed, result);
        return;
      }
      if (j.type === 'free') {
        const ji = b.addJoint({
          type: 'free',
          parent: -1,
          child: this.bodies[child].index,
          label: this.label(j.prim),
        });
        jointIndex.set(e, ji);
        result.joints.push(ji);
        return;
      }
      const ji = b.addJoint({
        type: j.type,
        parent: parent < 0 ? -1 : this.bodies[parent].index,
        child: this.bodies[child].index,
        X_p: poseOf(Xp),
        X_c: poseOf(Xc),
        axis,
        label: this.label(j.prim),
        collision_filter_parent: !j.collisionEnabled,
        ...j.dof,
        ...(j.cone ? { cone_mode: 'swing' as const, cone_limit: j.cone } : {}),
      });
      jointIndex.set(e, ji);
      result.joints.push(ji);
      for (const a of j.actuators ?? []) (result.actuators ??= []).push({ ...a, joint: ji });
      if (j.damped) damped.push([ji, j.damped]);
      if (j.type === 'revolute' || j.type === 'prismatic') {
        let q = j.q0;
        if (q === undefined) q = this.initialQ(j.type, parent, child, Xp, Xc, axis);
        if (q !== 0 && Number.isFinite(q)) b.jointQ(ji)[0] = q;
      }
    };
    const bfs = (start: number, c: number) => {
      const queue = [start];
      while (queue.length) {
        const u = queue.shift()!;
        if (u >= 0) comp[u] = c;
        for (const e of adj[u + 1]) {
          if (used[e]) continue;
          const j = joints[e];
          const v = j.b0 === u ? j.b1 : j.b0;
          if (v < 0 || inTree[v]) {
            used[e] = 2;
            loops.push(e);
            continue;
          }
          used[e] = 1;
          inTree[v] = 1;
          addTreeJoint(e, u, v);
          queue.push(v);
        }
      }
    };
    // kinematic bodies are welded to the world
    for (let k = 0; k < nb; k++) {
      if (!this.bodies[k].kinematic) continue;
      this.unsupported.push(
        `<${this.bodies[k].prim.path}> kinematic body (fixed to the world at its authored pose)`,
      );
      inTree[k] = 1;
      const ji = b.addJoint({
        type: 'fixed',
        parent: -1,
        child: this.bodies[k].index,
        X_p: this.bodies[k].pose,
        label: `${this.label(this.bodies[k].prim)}_kinematic`,
      });
      result.joints.push(ji);
    }
    let ncomp = 0;
    // everything reachable from the world (and from kinematic bodies)
    const worldComp = ncomp++;
    bfs(-1, worldComp);
    for (let k = 0; k < nb; k++) if (this.bodies[k].kinematic) bfs(k, worldComp);
    // remaining components: articulation roots first, then traversal order
    const order: number[] = [];
    const pushed = new Set<number>();
    for (const r of this.artRoots) {
      const direct = this.bodyOf.get(r);
      if (direct !== undefined) {
        order.push(direct);
        pushed.add(direct);
        continue;
      }
      for (let k = 0; k < nb; k++) {
        if (this.bodies[k].prim.path.startsWith(r.path + '/')) {
          if (!pushed.has(k)) {
            order.push(k);
            pushed.add(k);
          }
          break;
        }
      }
    }
    for (let k = 0; k < nb; k++) if (!pushed.has(k)) order.push(k);
    const moving = new Set<number>(); // bodies whose authored velocity is applied
    for (const r of order) {
      if (inTree[r]) continue;
      inTree[r] = 1;
      const c = ncomp++;
      const body = this.bodies[r];
      const fixed = floating === false;
      const ji = b.addJoint({
        type: fixed ? 'fixed' : 'free',
        parent: -1,
        child: body.index,
        X_p: fixed ? body.pose : undefined,
        label: this.label(body.prim) + (fixed ? '_fixed' : '_free'),
      });
      result.joints.push(ji);
      const qd = fixed ? undefined : this.initialVelocity(body.prim);
      if (qd) {
        b.jointQd(ji).splice(0, 6, ...qd);
        moving.add(r);
      }
      bfs(r, c);
    }
    for (let k = 0; k < nb; k++) {
      if (!moving.has(k) && this.initialVelocity(this.bodies[k].prim)) {
        this.warnings.push(
          `<${this.bodies[k].prim.path}>: initial velocity ignored (only a floating root body's is applied; joints start at rest)`,
        );
      }
    }
    // excluded joints close loops too
    joints.forEach((j, e) => {
      if (!used[e] && j.excluded && !(j as { dropped?: boolean }).dropped) loops.push(e);
    });
    for (const e of loops) this.closeLoop(joints[e], result);
    // a damping ratio needs the joint's inertia at the authored pose: the whole tree is built now
    for (const [ji, servos] of damped) {
      const dof = b.joints[ji].dof;
      dof.target_kd = (dof.target_kd ?? 0) + dampedServoKd(servos, b.dofInertiaAtAuthoredPose(ji));
    }
    return comp;
  }

  /** a JointStateAPI instance's authored position [rad or m] (degrees or stage lengths in the file) */
  private jointState(j: UsdPrim, inst: string, angular: boolean): number | undefined {
    const st = this.num(j, `state:${inst}:physics:position`);
    return st !== undefined && Number.isFinite(st) ? st * (angular ? DEG : this.mpu) : undefined;
  }

  /** a generic joint's chain between tree parent and child (joint frames Xp, Xc in their bodies) */
  private addChain(
    j: JointRec,
    parent: number,
    child: number,
    Xp: Mat4,
    Xc: Mat4,
    reversed: boolean,
    result: UsdImportResult,
  ): void {
    // the coordinates that reproduce the authored poses, or the authored joint state
    const q = chainCoordinates(j.steps!, mat4Mul(rigidInverse(j.F0), j.F1));
    j.steps!.forEach((s, k) => {
      const st = s.axis && this.jointState(j.prim, s.axis.name, s.axis.angular);
      if (st !== undefined) q[k] = st;
    });
    const made = addD6Chain(
      this.builder,
      {
        parent: parent < 0 ? -1 : this.bodies[parent].index,
        parentPose: parent < 0 ? mat4Identity() : this.bodies[parent].X,
        child: this.bodies[child].index,
        childPose: this.bodies[child].X,
        Xp,
        Xc,
        reversed,
        label: this.label(j.prim),
        collision_filter_parent: !j.collisionEnabled,
      },
      j.chain!,
      q,
    );
    result.joints.push(...made.joints);
    result.bodies.push(...made.bodies);
  }

  /**
   * A floating body's authored initial velocity (RigidBodyAPI `physics:velocity`, the COM's, in
   * the parent's space [units/s], and `physics:angularVelocity` [deg/s]) as its free joint's
   * [v_C; ω] in the world [m/s, rad/s]; undefined when none is authored or both are zero.
   */
  private initialVelocity(p: UsdPrim): number[] | undefined {
    const v = this.vec3(p, 'physics:velocity') ?? [0, 0, 0];
    const w = this.vec3(p, 'physics:angularVelocity') ?? [0, 0, 0];
    if (![...v, ...w].some((x) => x !== 0)) return undefined;
    if (![...v, ...w].every(Number.isFinite)) {
      throw new UsdError('schema', { primPath: p.path }, 'physics:velocity / angularVelocity must be finite');
    }
    // parent space: its linear part carries units, scale and the up axis; ω turns with its rotation
    const P = p.parent ? this.worldOf(p.parent) : this.C;
    const R = decompose(P).R;
    const row = (M: ArrayLike<number>, stride: number, r: number, x: number[]) =>
      M[r * stride] * x[0] + M[r * stride + 1] * x[1] + M[r * stride + 2] * x[2];
    const d2r = Math.PI / 180;
    return [0, 1, 2].map((r) => row(P, 4, r, v)).concat([0, 1, 2].map((r) => row(R, 3, r, w) * d2r));
  }

  /** the joint coordinate that reproduces the authored body poses (0 when consistent) */
  private initialQ(
    type: 'revolute' | 'prismatic',
    parent: number,
    child: number,
    Xp: Mat4,
    Xc: Mat4,
    axis: number[],
  ): number {
    const Wp = parent < 0 ? mat4Identity() : this.bodies[parent].X;
    const F = mat4Mul(Wp, Xp);
    const Mm = mat4Mul(this.bodies[child].X, Xc);
    const inv = mat4Invert(F);
    if (!inv) return 0;
    const rel = mat4Mul(inv, Mm);
    let q: number;
    if (type === 'prismatic') q = rel[3] * axis[0] + rel[7] * axis[1] + rel[11] * axis[2];
    else {
      const qq = quatFromMat3([rel[0], rel[1], rel[2], rel[4], rel[5], rel[6], rel[8], rel[9], rel[10]]);
      q = 2 * Math.atan2(qq[0] * axis[0] + qq[1] * axis[1] + qq[2] * axis[2], qq[3]);
      if (q > Math.PI) q -= 2 * Math.PI;
    }
    return Math.abs(q) < 1e-6 ? 0 : q;
  }

  private closeLoop(j: JointRec, result: UsdImportResult): void {
    this.at = j.prim;
    const b = this.builder;
    const Xp = j.b0 < 0 ? j.F0 : mat4Mul(rigidInverse(this.bodies[j.b0].X), j.F0);
    const Xc = j.b1 < 0 ? j.F1 : mat4Mul(rigidInverse(this.bodies[j.b1].X), j.F1);
    const a0 = [Xp[3], Xp[7], Xp[11]];
    const a1 = [Xc[3], Xc[7], Xc[11]];
    if (![...Xp, ...Xc].every((x) => Number.isFinite(x))) {
      throw new UsdError(
        'schema',
        { layer: j.prim.layer, primPath: j.prim.path },
        'the joint frames (physics:localPos0/1, localRot0/1) are not finite',
      );
    }
    const body0 = j.b0 < 0 ? -1 : this.bodies[j.b0].index;
    const body1 = j.b1 < 0 ? -1 : this.bodies[j.b1].index;
    const label = this.label(j.prim);
    if (j.type === 'fixed') {
      // relpose = A0⁻¹ · X_p · X_c⁻¹ · A1 (anchor frames carry the body orientation)
      const inv = mat4Invert(Xc)!;
      const rel = mat4Mul(
        mat4Mul(mat4Mul(mat4FromPose([-a0[0], -a0[1], -a0[2], 0, 0, 0, 1]), Xp), inv),
        mat4FromPose([a1[0], a1[1], a1[2], 0, 0, 0, 1]),
      );
      result.equalities.push(
        b.addEquality({ type: 'weld', body0, body1, anchor0: a0, anchor1: a1, relpose: poseOf(rel), label }),
      );
    } else if (j.type === 'revolute' || j.type === 'ball') {
      if (j.type === 'revolute') {
        this.warnings.push(
          `<${j.prim.path}>: revolute loop closure as a ball constraint (its axis is not enforced)`,
        );
      }
      result.equalities.push(b.addEquality({ type: 'ball', body0, body1, anchor0: a0, anchor1: a1, label }));
    } else {
      this.unsupported.push(`<${j.prim.path}> ${j.type} joint closing a loop (ignored)`);
      return;
    }
    if (!j.collisionEnabled && j.b0 >= 0 && j.b1 >= 0) {
      (this.loopFilter ??= []).push([j.b0, j.b1]);
    }
  }

  private loopFilter?: [number, number][];

  // ------------------------------------------------------------------ filters

  private filters(colliders: ShapeInfo[], comp: Int32Array): void {
    const b = this.builder;
    const seen = new Set<number>();
    const ns = b.shapes.length;
    let budget = 200_000;
    const pair = (x: ShapeInfo, y: ShapeInfo) => {
      if (x.index === y.index || x.body === y.body) return;
      if (x.body < 0 && y.body < 0) return;
      const key = x.index < y.index ? x.index * ns + y.index : y.index * ns + x.index;
      if (seen.has(key)) return;
      if (--budget < 0) return;
      seen.add(key);
      b.addFilterPair(x.index, y.index);
    };
    const under = (root: string) =>
      colliders.filter((c) => c.prim.path === root || c.prim.path.startsWith(root + '/'));
    // collision groups
    const members = new Map<string, ShapeInfo[]>();
    for (const g of this.groups) {
      const inc = g.rel('collection:colliders:includes') ?? [];
      const exc = new Set(g.rel('collection:colliders:excludes') ?? []);
      const set = new Set<ShapeInfo>();
      for (const p of inc) for (const c of under(p)) set.add(c);
      for (const p of exc) for (const c of under(p)) set.delete(c);
      members.set(g.path, [...set]);
      if (g.attr('physics:invertFilteredGroups') === true) {
        this.unsupported.push(`<${g.path}> invertFilteredGroups`);
      }
    }
    for (const g of this.groups) {
      const A = members.get(g.path) ?? [];
      for (const other of g.rel('physics:filteredGroups') ?? []) {
        const B = members.get(other);
        if (!B) continue;
        for (const x of A) for (const y of B) pair(x, y);
      }
    }
    // filtered pairs
    for (const p of this.filteredPairPrims) {
      const A = under(p.path);
      for (const t of p.rel('physics:filteredPairs') ?? [])
        for (const x of A) for (const y of under(t)) pair(x, y);
    }
    // loop-closing joints without collisions between their bodies
    for (const [b0, b1] of this.loopFilter ?? []) {
      const A = colliders.filter((c) => c.body === b0);
      const B = colliders.filter((c) => c.body === b1);
      for (const x of A) for (const y of B) pair(x, y);
    }
    // self collisions
    const selfOn = this.opts.enable_self_collisions !== false;
    const disabledComps = new Set<number>();
    for (let k = 0; k < this.bodies.length; k++) {
      if (!selfOn) disabledComps.add(comp[k]);
    }
    if (selfOn) {
      for (const r of this.artRoots) {
        if (r.attr('physxArticulation:enabledSelfCollisions') === false) {
          for (let k = 0; k < this.bodies.length; k++) {
            const bp = this.bodies[k].prim.path;
            if (bp === r.path || bp.startsWith(r.path + '/')) disabledComps.add(comp[k]);
          }
        }
      }
    }
    if (disabledComps.size) {
      const byComp = new Map<number, ShapeInfo[]>();
      for (const c of colliders) {
        if (c.body < 0) continue;
        const k = comp[c.body];
        if (!disabledComps.has(k)) continue;
        let l = byComp.get(k);
        if (!l) byComp.set(k, (l = []));
        l.push(c);
      }
      for (const l of byComp.values())
        for (let i = 0; i < l.length; i++) for (let k = i + 1; k < l.length; k++) pair(l[i], l[k]);
    }
    if (budget < 0) this.warnings.push('more than 200000 filtered shape pairs; the rest were dropped');
  }
}

/** signed volume of a closed triangle mesh (≥ 0 when outward-facing) */
function meshVolume(v: ArrayLike<number>, t: ArrayLike<number>): number {
  let vol = 0;
  for (let i = 0; i < t.length; i += 3) {
    const a = 3 * t[i],
      b = 3 * t[i + 1],
      c = 3 * t[i + 2];
    vol +=
      v[a] * (v[b + 1] * v[c + 2] - v[b + 2] * v[c + 1]) -
      v[a + 1] * (v[b] * v[c + 2] - v[b + 2] * v[c]) +
      v[a + 2] * (v[b] * v[c + 1] - v[b + 1] * v[c]);
  }
  return Math.abs(vol / 6);
}
