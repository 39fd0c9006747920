/**
 * ModelBuilder: mutable authoring of one world (bodies, shapes, joints), replicated into
 * `num_worlds` copies and frozen into a {@link SapModel} by `finalize()`.
 *
 * Mass: a body's mass and inertia come from its shapes' densities; an explicit `mass` rescales the
 * shape-derived distribution to that total (or, without shapes, uses `inertia` or a solid-sphere guess).
 * `default_body_armature` is added to the diagonal of the body inertia.
 */
import {
  f64,
  mat3MulVec,
  quatNormalize,
  quatToMat3,
  rotateInertia,
  transformInverse,
  transformMul,
} from '../math';
import { ModelError } from './errors';
import { meshMassProperties, shapeMassProperties } from './mass';
import type { ModelTexture, SapModel } from './model';
import {
  lengthActuatorRec,
  spatialTendonRec,
  transmissionArrays,
  writeTransmissions,
  type LengthActuatorDesc,
  type LengthActuatorRec,
  type SpatialTendonDesc,
  type SpatialTendonRec,
} from './transmissions';
import {
  ConeMode,
  JOINT_QD_SIZE,
  JOINT_Q_SIZE,
  EQUALITY_TYPE_NAMES,
  JOINT_TYPE_NAMES,
  JointType,
  SHAPE_TYPE_NAMES,
  ShapeFlags,
  ShapeType,
  type ConeModeName,
  type EqualityTypeName,
  type JointTypeName,
  type ShapeTypeName,
} from './types';

/** a pose [px, py, pz, qx, qy, qz, qw] */
export type Transform = [number, number, number, number, number, number, number];

/** material and collision settings of a shape */
export interface ShapeConfig {
  /** [kg/m³] */
  density: number;
  /** contact stiffness [N/m] */
  ke: number;
  /** dissipation time scale [s] */
  tau: number;
  /** Coulomb friction */
  mu: number;
  /** [m] */
  margin: number;
  /** [m]; undefined ⇒ the builder's rigid_gap */
  gap?: number;
  collision_group: number;
  is_visible: boolean;
  has_shape_collision: boolean;
  has_particle_collision: boolean;
  is_site: boolean;
}

/** per-DOF joint parameters */
export interface JointDofConfig {
  armature: number;
  damping: number;
  /** passive spring τ = −stiffness·(q − spring_ref) (revolute, prismatic) [N·m/rad or N/m] */
  stiffness: number;
  /** the spring's rest position [rad or m] */
  spring_ref: number;
  friction: number;
  limit_lower: number;
  limit_upper: number;
  limit_ke: number;
  limit_kd: number;
  target_ke: number;
  target_kd: number;
  target_pos: number;
  target_vel: number;
  effort_limit: number;
  velocity_limit: number;
  /**
   * PD gains act as accelerations (UsdPhysics / PhysX `physics:type = "acceleration"`): scaled each
   * step by the DOF's effective inertia M(q)_dd (optional; default false, a force drive)
   */
  drive_acceleration?: boolean;
}

/** the numeric per-DOF parameters (what array edits may set) */
export type NumericDofKey = Exclude<keyof JointDofConfig, 'drive_acceleration'>;

export interface BodyDesc {
  label?: string;
  /** initial world pose of the body frame */
  X_wb?: readonly number[];
  /** explicit total mass [kg] */
  mass?: number;
  /** explicit COM in the body frame, used with explicit mass */
  com?: readonly number[];
  /** explicit 3×3 inertia about the COM (9 numbers) or principal moments (3 numbers) [kg·m²] */
  inertia?: readonly number[];
  /** body-space rotational armature added to the inertia diagonal; default builder.default_body_armature */
  armature?: number;
  /**
   * gravity compensation [1]: a force −gravcomp·m·g at the COM, applied with gravity (MuJoCo's body
   * `gravcomp`); default 0
   */
  gravcomp?: number;
}

export interface ShapeDesc {
  /** owning body, or -1 for static world geometry */
  body: number;
  type: ShapeTypeName | number;
  /** size parameters, see ShapeType */
  size: readonly number[];
  /** pose in the body frame */
  X_bs?: readonly number[];
  label?: string;
  /** display colour, sRGB-encoded RGB in [0, 1] (as URDF, MJCF and scene files write colours) */
  color?: readonly number[];
  cfg?: Partial<ShapeConfig>;
  /** mesh index (from addMesh) for 'mesh' / 'convex_mesh'; size is then the scale */
  mesh?: number;
  /** heightfield index (from addHeightfield) for 'heightfield' */
  hfield?: number;
}

export interface MeshDesc {
  /** (V × 3) vertices in the mesh frame [m] */
  vertices: ArrayLike<number>;
  /** (T × 3) vertex indices, counter-clockwise seen from outside */
  triangles: ArrayLike<number>;
  label?: string;
  /** (V × 2) texture coordinates of the vertices (u, v; v up), for a textured visual mesh */
  uv?: ArrayLike<number>;
  /** the image it is textured with: an index from {@link ModelBuilder.addTexture} */
  texture?: number;
}

/** an image for textured meshes: the encoded file (JPEG, PNG, …) */
export interface TextureDesc {
  /** 'image/jpeg', 'image/png', … */
  mime: string;
  bytes: Uint8Array;
  label?: string;
}

export interface HeightfieldDesc {
  nrow: number;
  ncol: number;
  /** [half x, half y, elevation scale z, base depth] [m] */
  size: readonly number[];
  /** nrow × ncol elevations in [0, 1], row-major */
  data: ArrayLike<number>;
  label?: string;
}

export interface EqualityDesc {
  type: EqualityTypeName;
  label?: string;
  /** ball / weld: bodies (-1 world) */
  body0?: number;
  body1?: number;
  /** ball / weld: anchors in the body frames [m] */
  anchor0?: readonly number[];
  anchor1?: readonly number[];
  /** weld: pose of body1's anchor frame in body0's anchor frame when satisfied (default: from the authored poses) */
  relpose?: readonly number[];
  /** coupler: q(joint0) = ratio·q(joint1) + offset */
  joint0?: number;
  joint1?: number;
  ratio?: number;
  offset?: number;
  /** Infinity (default) = near-rigid */
  stiffness?: number;
  tau?: number;
}

/** a fixed tendon: length l = Σ coef·q(joint) + offset, with optional limits on l */
export interface TendonDesc {
  label?: string;
  /** 1-DOF joints (revolute or prismatic, by index) and their coefficients ∂l/∂q */
  joints: readonly { joint: number; coef: number }[];
  /** length at q = 0 (default 0) [tendon units] */
  offset?: number;
  /** limits on l (default −∞ / +∞: none) [tendon units] */
  lower?: number;
  upper?: number;
  /** limit stiffness (default the joints' default limit_ke; Infinity = near-rigid) and damping */
  limit_ke?: number;
  limit_kd?: number;
}

export interface JointDesc extends Partial<JointDofConfig> {
  type: JointTypeName | number;
  /** parent body, -1 for the world */
  parent: number;
  child: number;
  X_p?: readonly number[];
  X_c?: readonly number[];
  axis?: readonly number[];
  label?: string;
  /** filter collisions between the parent's and child's shapes (default true) */
  collision_filter_parent?: boolean;
  /**
   * ball joints: how `cone_limit` limits the rotation (ConeMode): 'rotation' (the rotation angle,
   * MuJoCo) or 'swing' (the swing of `axis`, an elliptical cone, UsdPhysics)
   */
  cone_mode?: ConeModeName;
  /**
   * ball joints: the cone's angles [rad], each in (0, π] or Infinity for none: [θ_max] for 'rotation';
   * [toward the next axis, toward the one after] for 'swing' (one number: both). Stiffness and
   * damping: the joint's limit_ke / limit_kd.
   */
  cone_limit?: number | readonly number[];
}

const IDENTITY: Transform = [0, 0, 0, 0, 0, 0, 1];

export const DEFAULT_SHAPE_CONFIG: ShapeConfig = {
  density: 1000,
  ke: 1e6,
  tau: 0.1,
  mu: 0.5,
  margin: 0,
  collision_group: 1,
  is_visible: true,
  has_shape_collision: true,
  has_particle_collision: false,
  is_site: false,
};

export const DEFAULT_JOINT_CONFIG: JointDofConfig = {
  armature: 0,
  damping: 0,
  stiffness: 0,
  spring_ref: 0,
  friction: 0,
  limit_lower: -Infinity,
  limit_upper: Infinity,
  limit_ke: 1e4,
  limit_kd: 1e2,
  target_ke: 0,
  target_kd: 0,
  target_pos: 0,
  target_vel: 0,
  effort_limit: Infinity,
  velocity_limit: Infinity,
};

interface BodyRec {
  label: string;
  X_wb: Transform;
  mass?: number;
  com?: number[];
  inertia?: number[];
  armature: number;
  gravcomp: number;
}
interface ShapeRec {
  mesh: number;
  hfield: number;
  body: number;
  type: number;
  size: [number, number, number];
  X_bs: Transform;
  label: string;
  color: [number, number, number];
  cfg: ShapeConfig & { gap: number };
}
interface JointRec {
  type: number;
  parent: number;
  child: number;
  X_p: Transform;
  X_c: Transform;
  axis: [number, number, number];
  label: string;
  dof: JointDofConfig;
  /** per-DOF overrides of `dof` (public DOF order), for multi-DOF joints */
  dofOverride: (Partial<JointDofConfig> | undefined)[];
  q: number[];
  qd: number[];
  collision_filter_parent: boolean;
  /** ConeMode and its two angles [rad] */
  coneMode: number;
  coneLimit: [number, number];
}

/** the validated cone limit of a joint description (none unless a ball joint names one) */
function coneOf(desc: JointDesc, type: number, path: string): { mode: number; limit: [number, number] } {
  const none = { mode: ConeMode.NONE, limit: [Infinity, Infinity] as [number, number] };
  if (desc.cone_limit === undefined && desc.cone_mode === undefined) return none;
  if (type !== JointType.BALL) throw new ModelError(`${path}.cone_limit`, `a cone limit needs a ball joint`);
  const mode = desc.cone_mode ?? 'rotation';
  if (mode !== 'rotation' && mode !== 'swing')
    throw new ModelError(
      `${path}.cone_mode`,
      `unknown cone mode '${String(mode)}'; allowed: rotation, swing`,
    );
  const given = desc.cone_limit ?? Infinity;
  const raw = typeof given === 'number' ? [given, given] : [...given];
  if (raw.length !== (mode === 'rotation' ? 1 : 2) && typeof given !== 'number')
    throw new ModelError(
      `${path}.cone_limit`,
      `a '${mode}' cone takes ${mode === 'rotation' ? 'one angle' : 'two angles'}; got ${raw.length}`,
    );
  const limit: [number, number] = [raw[0], raw.length > 1 ? raw[1] : raw[0]];
  for (const a of limit)
    if (!(a === Infinity || (a > 0 && a <= Math.PI)))
      throw new ModelError(`${path}.cone_limit`, `each angle must be in (0, π] or Infinity [rad]; got ${a}`);
  if (limit[0] === Infinity && limit[1] === Infinity) return none;
  return { mode: mode === 'rotation' ? ConeMode.ROTATION : ConeMode.SWING, limit };
}

function toTransform(x: readonly number[] | undefined, path: string): Transform {
  if (x === undefined) return [...IDENTITY];
  if (x.length !== 7 || x.some((v) => !Number.isFinite(v))) {
    throw new ModelError(path, `expected a pose [px, py, pz, qx, qy, qz, qw] of finite numbers`);
  }
  const t = f64(x);
  quatNormalize(t, 3);
  return Array.from(t) as Transform;
}

/** builds one authored world, then replicates and freezes it */
export class ModelBuilder {
  name = 'scene';
  gravity: [number, number, number] = [0, 0, -9.81];
  /** default shape gap [m] */
  rigid_gap = 0.002;
  default_body_armature = 0;
  default_shape: ShapeConfig = { ...DEFAULT_SHAPE_CONFIG };
  default_joint: JointDofConfig = { ...DEFAULT_JOINT_CONFIG };
  num_worlds = 1;
  /** initial simulated time [s] (an MJCF keyframe's `time`) */
  time0 = 0;
  /** world offset spacing [m] (centered grid over the non-zero axes) */
  spacing: [number, number, number] = [0, 0, 0];

  readonly bodies: BodyRec[] = [];
  readonly shapes: ShapeRec[] = [];
  readonly joints: JointRec[] = [];
  /** shared (world -1) shapes such as the ground */
  readonly sharedShapes: ShapeRec[] = [];
  readonly meshes: {
    vertices: Float64Array;
    triangles: Int32Array;
    label: string;
    uv: Float32Array | null;
    texture: number;
  }[] = [];
  readonly textures: ModelTexture[] = [];
  readonly hfields: { nrow: number; ncol: number; size: number[]; data: Float64Array; label: string }[] = [];
  readonly equalities: (Required<Omit<EqualityDesc, 'label' | 'relpose'>> & {
    label: string;
    relpose?: number[];
  })[] = [];
  readonly tendons: (Required<TendonDesc> & { joints: { joint: number; coef: number }[] })[] = [];
  /** authored shape index pairs that never collide */
  readonly filterPairs: [number, number][] = [];
  /** spatial tendons (validated; see {@link addSpatialTendon}) */
  readonly spatialTendons: SpatialTendonRec[] = [];
  /** actuators acting through a tendon or slider-crank length (see {@link addLengthActuator}) */
  readonly lengthActuators: LengthActuatorRec[] = [];

  /**
   * adds a spatial tendon: a path of points on bodies whose length l (with pulleys splitting it into
   * branches) can be limited (SAP tendon-limit constraint), sprung and damped; returns its index
   */
  addSpatialTendon(desc: SpatialTendonDesc): number {
    const i = this.spatialTendons.length;
    this.spatialTendons.push(spatialTendonRec(desc, i, this.bodies.length, DEFAULT_JOINT_CONFIG.limit_ke));
    return i;
  }

  /**
   * adds an actuator that acts through a spatial tendon's, a fixed tendon's or a slider-crank's
   * length (see LengthActuatorDesc); returns its index (the model's actuator index in world 0)
   */
  addLengthActuator(desc: LengthActuatorDesc): number {
    const i = this.lengthActuators.length;
    this.lengthActuators.push(
      lengthActuatorRec(desc, i, {
        bodies: this.bodies.length,
        spatial: this.spatialTendons.length,
        fixed: this.tendons.length,
      }),
    );
    return i;
  }

  /** adds a triangle mesh (shared by every world) and returns its index */
  addMesh(desc: MeshDesc): number {
    const i = this.meshes.length;
    const V = desc.vertices.length / 3;
    if (!Number.isInteger(V) || V < 1)
      throw new ModelError(`meshes[${i}].vertices`, 'expected 3 numbers per vertex');
    const tris = Int32Array.from(desc.triangles);
    if (tris.length % 3 !== 0)
      throw new ModelError(`meshes[${i}].triangles`, 'expected 3 indices per triangle');
    for (const t of tris) {
      if (!(t >= 0 && t < V)) throw new ModelError(`meshes[${i}].triangles`, `index ${t} outside [0, ${V})`);
    }
    const verts = Float64Array.from(desc.vertices);
    for (const v of verts)
      if (!Number.isFinite(v)) throw new ModelError(`meshes[${i}].vertices`, 'non-finite vertex');
    let uv: Float32Array | null = null;
    if (desc.uv !== undefined) {
      if (desc.uv.length !== V * 2)
        throw new ModelError(
          `meshes[${i}].uv`,
          `expected 2 numbers per vertex (${V * 2}), got ${desc.uv.length}`,
        );
      uv = Float32Array.from(desc.uv);
      for (const x of uv)
        if (!Number.isFinite(x)) throw new ModelError(`meshes[${i}].uv`, 'non-finite texture coordinate');
    }
    const texture = desc.texture ?? -1;
    if (texture !== -1 && !(Number.isInteger(texture) && texture >= 0 && texture < this.textures.length))
      throw new ModelError(`meshes[${i}].texture`, `${texture} is not a texture from addTexture`);
    if (texture >= 0 && !uv) throw new ModelError(`meshes[${i}].texture`, 'a textured mesh needs uv');
    this.meshes.push({ vertices: verts, triangles: tris, label: desc.label ?? `mesh_${i}`, uv, texture });
    return i;
  }

  /** adds an image for textured meshes (shared by every world) and returns its index */
  addTexture(desc: TextureDesc): number {
    const i = this.textures.length;
    if (!/^image\/[a-z0-9.+-]+$/i.test(desc.mime))
      throw new ModelError(`textures[${i}].mime`, `'${desc.mime}' is not an image type`);
    if (!(desc.bytes instanceof Uint8Array) || desc.bytes.length === 0)
      throw new ModelError(`textures[${i}].bytes`, 'expected the image file as non-empty bytes');
    this.textures.push({ label: desc.label ?? `texture_${i}`, mime: desc.mime, bytes: desc.bytes });
    return i;
  }

  /** adds a heightfield (shared by every world) and returns its index */
  addHeightfield(desc: HeightfieldDesc): number {
    const i = this.hfields.length;
    if (!(Number.isInteger(desc.nrow) && Number.isInteger(desc.ncol) && desc.nrow >= 2 && desc.ncol >= 2)) {
      throw new ModelError(`hfields[${i}]`, 'nrow and ncol must be integers ≥ 2');
    }
    if (desc.data.length !== desc.nrow * desc.ncol) {
      throw new ModelError(
        `hfields[${i}].data`,
        `expected ${desc.nrow * desc.ncol} samples, got ${desc.data.length}`,
      );
    }
    this.hfields.push({
      nrow: desc.nrow,
      ncol: desc.ncol,
      size: [desc.size[0], desc.size[1], desc.size[2], desc.size[3] ?? 0],
      data: Float64Array.from(desc.data),
      label: desc.label ?? `hfield_${i}`,
    });
    return i;
  }

  /**
   * adds a fixed tendon over existing 1-DOF joints (limits on l = Σ coef·q + offset become SAP
   * tendon-limit constraints) and returns its index
   */
  addTendon(desc: TendonDesc): number {
    const i = this.tendons.length;
    const path = `tendons[${i}]`;
    if (!Array.isArray(desc.joints) || desc.joints.length === 0)
      throw new ModelError(`${path}.joints`, 'a tendon needs at least one joint');
    const joints = desc.joints.map(({ joint, coef }, k) => {
      if (!(Number.isInteger(joint) && joint >= 0 && joint < this.joints.length))
        throw new ModelError(`${path}.joints[${k}].joint`, `unknown joint ${joint}`);
      const t = this.joints[joint].type;
      if (t !== JointType.REVOLUTE && t !== JointType.PRISMATIC)
        throw new ModelError(
          `${path}.joints[${k}].joint`,
          `joint '${this.joints[joint].label}' is not a 1-DOF (revolute or prismatic) joint`,
        );
      if (!Number.isFinite(coef)) throw new ModelError(`${path}.joints[${k}].coef`, `not finite: ${coef}`);
      return { joint, coef };
    });
    const lower = desc.lower ?? -Infinity;
    const upper = desc.upper ?? Infinity;
    if (
      Number.isNaN(lower) ||
      Number.isNaN(upper) ||
      lower === Infinity ||
      upper === -Infinity ||
      lower > upper
    )
      throw new ModelError(`${path}`, `limits must satisfy −∞ ≤ lower ≤ upper ≤ ∞; got [${lower}, ${upper}]`);
    const offset = desc.offset ?? 0;
    if (!Number.isFinite(offset)) throw new ModelError(`${path}.offset`, `not finite: ${offset}`);
    const ke = desc.limit_ke ?? DEFAULT_JOINT_CONFIG.limit_ke;
    const kd = desc.limit_kd ?? DEFAULT_JOINT_CONFIG.limit_kd;
    if (!(ke >= 0)) throw new ModelError(`${path}.limit_ke`, `must be ≥ 0; got ${ke}`);
    if (!(kd >= 0 && Number.isFinite(kd)))
      throw new ModelError(`${path}.limit_kd`, `must be finite and ≥ 0; got ${kd}`);
    this.tendons.push({
      label: desc.label ?? `tendon_${i}`,
      joints,
      offset,
      lower,
      upper,
      limit_ke: ke,
      limit_kd: kd,
    });
    return i;
  }

  /** adds an equality constraint (coupler, ball, weld) and returns its index */
  addEquality(desc: EqualityDesc): number {
    const i = this.equalities.length;
    const path = `equalities[${i}]`;
    if (!EQUALITY_TYPE_NAMES.includes(desc.type)) {
      throw new ModelError(
        `${path}.type`,
        `unknown equality '${desc.type}'; allowed: ${EQUALITY_TYPE_NAMES.join(', ')}`,
      );
    }
    const body = (b: number | undefined, k: string) => {
      const v = b ?? -1;
      if (!(v >= -1 && v < this.bodies.length)) throw new ModelError(`${path}.${k}`, `unknown body ${v}`);
      return v;
    };
    const joint = (j: number | undefined, k: string) => {
      const v = j ?? -1;
      if (desc.type === 'coupler' && !(v >= 0 && v < this.joints.length))
        throw new ModelError(`${path}.${k}`, `unknown joint ${v}`);
      return v;
    };
    this.equalities.push({
      type: desc.type,
      label: desc.label ?? `eq_${i}`,
      body0: body(desc.body0, 'body0'),
      body1: body(desc.body1, 'body1'),
      anchor0: [...(desc.anchor0 ?? [0, 0, 0])],
      anchor1: [...(desc.anchor1 ?? [0, 0, 0])],
      relpose: desc.relpose ? [...desc.relpose] : undefined,
      joint0: joint(desc.joint0, 'joint0'),
      joint1: joint(desc.joint1, 'joint1'),
      ratio: desc.ratio ?? 1,
      offset: desc.offset ?? 0,
      stiffness: desc.stiffness ?? Infinity,
      tau: desc.tau ?? 0,
    });
    return i;
  }

  /** shapes a and b (authored indices) never collide */
  addFilterPair(a: number, b: number): void {
    if (!(a >= 0 && a < this.shapes.length && b >= 0 && b < this.shapes.length)) {
      throw new ModelError('filter_pairs', `unknown shape pair (${a}, ${b})`);
    }
    this.filterPairs.push([a, b]);
  }

  /** adds a body and returns its index */
  addBody(desc: BodyDesc = {}): number {
    const i = this.bodies.length;
    const path = `bodies[${i}]`;
    if (desc.mass !== undefined && !(desc.mass >= 0 && Number.isFinite(desc.mass))) {
      throw new ModelError(`${path}.mass`, `mass must be a finite number ≥ 0; got ${desc.mass}`);
    }
    if (desc.gravcomp !== undefined && !Number.isFinite(desc.gravcomp)) {
      throw new ModelError(`${path}.gravcomp`, `gravcomp must be a finite number; got ${desc.gravcomp}`);
    }
    this.bodies.push({
      label: desc.label ?? `body_${i}`,
      X_wb: toTransform(desc.X_wb, `${path}.transform`),
      mass: desc.mass,
      com: desc.com ? [...desc.com] : undefined,
      inertia: desc.inertia ? [...desc.inertia] : undefined,
      armature: desc.armature ?? this.default_body_armature,
      gravcomp: desc.gravcomp ?? 0,
    });
    return i;
  }

  /** adds a shape to a body (or to the world with body -1) and returns its index */
  addShape(desc: ShapeDesc): number {
    const rec = this.makeShape(desc, this.shapes.length);
    if (rec.body < -1 || rec.body >= this.bodies.length) {
      throw new ModelError(`shapes[${this.shapes.length}].body`, `unknown body ${rec.body}`);
    }
    this.shapes.push(rec);
    return this.shapes.length - 1;
  }

  /** adds the ground plane (normal +z through the origin), shared by every world */
  addGround(cfg: Partial<ShapeConfig> = {}, label = 'ground'): number {
    const rec = this.makeShape(
      { body: -1, type: 'plane', size: [0, 0, 0], label, cfg, color: [0.55, 0.57, 0.6] },
      -1,
    );
    this.sharedShapes.push(rec);
    return this.sharedShapes.length - 1;
  }

  private makeShape(desc: ShapeDesc, index: number): ShapeRec {
    const path = index >= 0 ? `shapes[${index}]` : 'ground';
    const type = typeof desc.type === 'number' ? desc.type : SHAPE_TYPE_NAMES.indexOf(desc.type);
    if (type < 0 || type >= SHAPE_TYPE_NAMES.length) {
      throw new ModelError(
        `${path}.type`,
        `unknown shape type '${desc.type}'; allowed: ${SHAPE_TYPE_NAMES.join(', ')}`,
      );
    }
    const size: [number, number, number] = [desc.size[0] ?? 0, desc.size[1] ?? 0, desc.size[2] ?? 0];
    if (size.some((v) => !Number.isFinite(v) || v < 0)) {
      throw new ModelError(`${path}.size`, `sizes must be finite and ≥ 0; got [${size.join(', ')}]`);
    }
    const cfg = { ...this.default_shape, ...stripUndefined(desc.cfg ?? {}) };
    const gap = cfg.gap ?? this.rigid_gap;
    if (cfg.is_site) {
      cfg.density = 0;
      cfg.has_shape_collision = false;
    }
    const mesh = desc.mesh ?? -1;
    const hfield = desc.hfield ?? -1;
    if (
      (type === ShapeType.MESH || type === ShapeType.CONVEX_MESH) &&
      !(mesh >= 0 && mesh < this.meshes.length)
    ) {
      throw new ModelError(
        `${path}.mesh`,
        `a ${SHAPE_TYPE_NAMES[type]} shape needs a mesh from addMesh (got ${desc.mesh})`,
      );
    }
    if (type === ShapeType.HEIGHTFIELD && !(hfield >= 0 && hfield < this.hfields.length)) {
      throw new ModelError(
        `${path}.hfield`,
        `a heightfield shape needs a heightfield from addHeightfield (got ${desc.hfield})`,
      );
    }
    return {
      mesh,
      hfield,
      body: desc.body,
      type,
      size,
      X_bs: toTransform(desc.X_bs, `${path}.transform`),
      label: desc.label ?? `shape_${index}`,
      color: [desc.color?.[0] ?? 0.7, desc.color?.[1] ?? 0.7, desc.color?.[2] ?? 0.72],
      cfg: { ...cfg, gap },
    };
  }

  /** adds a joint connecting `parent` (-1 world) to `child`; returns its index */
  addJoint(desc: JointDesc): number {
    const i = this.joints.length;
    const path = `joints[${i}]`;
    const type = typeof desc.type === 'number' ? desc.type : JOINT_TYPE_NAMES.indexOf(desc.type);
    if (type < 0 || type >= JOINT_TYPE_NAMES.length) {
      throw new ModelError(
        `${path}.type`,
        `unknown joint type '${desc.type}'; allowed: ${JOINT_TYPE_NAMES.join(', ')}`,
      );
    }
    if (!(desc.child >= 0 && desc.child < this.bodies.length)) {
      throw new ModelError(`${path}.child`, `unknown child body ${desc.child}`);
    }
    if (!(desc.parent >= -1 && desc.parent < this.bodies.length) || desc.parent === desc.child) {
      throw new ModelError(`${path}.parent`, `invalid parent body ${desc.parent}`);
    }
    if (this.joints.some((j) => j.child === desc.child)) {
      throw new ModelError(`${path}.child`, `body '${this.bodies[desc.child].label}' already has a joint`);
    }
    if (type === JointType.FREE && desc.parent !== -1) {
      throw new ModelError(`${path}.parent`, `a free joint must have the world as parent`);
    }
    const axis = desc.axis ?? [1, 0, 0];
    const an = Math.hypot(axis[0], axis[1], axis[2]);
    if (!(an > 0) || !Number.isFinite(an))
      throw new ModelError(`${path}.axis`, `axis must be a non-zero vector`);
    const dof: JointDofConfig = { ...this.default_joint, ...stripUndefined(pickDof(desc)) };
    if (dof.limit_lower > dof.limit_upper) {
      throw new ModelError(
        `${path}.limit_lower`,
        `limit_lower ${dof.limit_lower} exceeds limit_upper ${dof.limit_upper}`,
      );
    }
    const cone = coneOf(desc, type, path);
    const rec: JointRec = {
      type,
      parent: desc.parent,
      child: desc.child,
      X_p: toTransform(desc.X_p, `${path}.parent_xform`),
      X_c: toTransform(desc.X_c, `${path}.child_xform`),
      axis: [axis[0] / an, axis[1] / an, axis[2] / an],
      label: desc.label ?? `joint_${i}`,
      dof,
      dofOverride: [],
      q: new Array<number>(JOINT_Q_SIZE[type]).fill(0),
      qd: new Array<number>(JOINT_QD_SIZE[type]).fill(0),
      collision_filter_parent: desc.collision_filter_parent ?? true,
      coneMode: cone.mode,
      coneLimit: cone.limit,
    };
    if (type === JointType.FREE || type === JointType.BALL) this.initFromBodyPoses(rec);
    this.joints.push(rec);
    return i;
  }

  /** free and ball joints start at the authored body poses: X_j = X_p⁻¹·X_wparent⁻¹·X_wchild·X_c */
  private initFromBodyPoses(j: JointRec): void {
    const t = new Float64Array(7);
    const parentPose = j.parent >= 0 ? this.bodies[j.parent].X_wb : IDENTITY;
    transformMul(f64(parentPose), 0, f64(j.X_p), 0, t, 0); // world pose of the parent joint frame
    transformInverse(t, 0, t, 0);
    const u = new Float64Array(7);
    transformMul(f64(this.bodies[j.child].X_wb), 0, f64(j.X_c), 0, u, 0); // world pose of the child joint frame
    transformMul(t, 0, u, 0, u, 0);
    if (j.type === JointType.FREE) for (let k = 0; k < 7; k++) j.q[k] = u[k];
    else for (let k = 0; k < 4; k++) j.q[k] = u[3 + k];
  }

  /**
   * Sets one DOF's parameter of a multi-DOF joint (free, ball), overriding the joint-wide value;
   * `dof` is the joint-local DOF index in public order (free: v_x, v_y, v_z, ω_x, ω_y, ω_z).
   */
  setDofValue(joint: number, dof: number, field: NumericDofKey, value: number): void {
    const j = this.joints[joint];
    if (!j) throw new ModelError(`joints[${joint}]`, 'unknown joint');
    if (!(dof >= 0 && dof < JOINT_QD_SIZE[j.type]))
      throw new ModelError(`joints[${joint}]`, `DOF ${dof} out of range`);
    j.dofOverride[dof] = { ...j.dofOverride[dof], [field]: value };
  }

  /** index of the joint with this label (or -1) */
  findJoint(label: string): number {
    return this.joints.findIndex((j) => j.label === label);
  }

  /** index of the body with this label (or -1) */
  findBody(label: string): number {
    return this.bodies.findIndex((b) => b.label === label);
  }

  /** the joint's position coordinates (mutable, public convention) */
  jointQ(joint: number): number[] {
    return this.joints[joint].q;
  }

  /** the joint's velocity coordinates (mutable, public convention) */
  jointQd(joint: number): number[] {
    return this.joints[joint].qd;
  }

  /**
   * The body's mass [kg], COM in the body frame [m] and inertia about the COM in the body frame
   * (row-major 3 × 3) [kg·m²], as `finalize` will compute them from its authored values and shapes.
   */
  bodyMassProperties(body: number): { mass: number; com: number[]; inertia: number[] } {
    const b = this.bodies[body];
    if (!b) throw new ModelError(`bodies[${body}]`, 'no such body');
    return this.bodyMass(b, body);
  }

  /**
   * The joint-space inertia of a 1-DOF joint with every body at its authored pose, armature included
   * [kg·m² or kg]: the joint's diagonal entry of M(q) there (MuJoCo's `dof_M0`). Revolute: Σ over
   * the bodies the joint moves of m·‖a × (c − p)‖² + aᵀI_c·a (axis a through p); prismatic: Σ m.
   */
  dofInertiaAtAuthoredPose(joint: number): number {
    const j = this.joints[joint];
    if (!j || (j.type !== JointType.REVOLUTE && j.type !== JointType.PRISMATIC)) {
      throw new ModelError(
        `joints[${joint}]`,
        'the joint inertia is defined for a revolute or prismatic joint',
      );
    }
    // the bodies the joint moves: its child and everything below it
    const moved = new Set([j.child]);
    for (let grew = true; grew;) {
      grew = false;
      for (const k of this.joints) {
        if (moved.has(k.parent) && !moved.has(k.child)) {
          moved.add(k.child);
          grew = true;
        }
      }
    }
    const F = new Float64Array(7);
    transformMul(f64(this.bodies[j.child].X_wb), 0, f64(j.X_c), 0, F, 0);
    const R = new Float64Array(9);
    quatToMat3(F, 3, R, 0);
    const a = new Float64Array(3);
    mat3MulVec(R, 0, f64(j.axis), 0, a, 0);
    let sum = j.dof.armature;
    const c = new Float64Array(3);
    for (const b of moved) {
      const body = this.bodies[b];
      const mp = this.bodyMass(body, b);
      if (j.type === JointType.PRISMATIC) {
        sum += mp.mass;
        continue;
      }
      quatToMat3(f64(body.X_wb), 3, R, 0);
      mat3MulVec(R, 0, f64(mp.com), 0, c, 0);
      const rx = c[0] + body.X_wb[0] - F[0],
        ry = c[1] + body.X_wb[1] - F[1],
        rz = c[2] + body.X_wb[2] - F[2];
      const ex = a[1] * rz - a[2] * ry,
        ey = a[2] * rx - a[0] * rz,
        ez = a[0] * ry - a[1] * rx;
      sum += mp.mass * (ex * ex + ey * ey + ez * ez);
      // aᵀ(R I Rᵀ)a with u = Rᵀa in the body frame
      const u = [0, 1, 2].map((k) => R[k] * a[0] + R[3 + k] * a[1] + R[6 + k] * a[2]);
      for (let r = 0; r < 3; r++) for (let k = 0; k < 3; k++) sum += u[r] * mp.inertia[r * 3 + k] * u[k];
    }
    return sum;
  }

  /** total coordinates of the authored world */
  coordCount(): number {
    return this.joints.reduce((n, j) => n + JOINT_Q_SIZE[j.type], 0);
  }

  /** total DOFs of the authored world */
  dofCount(): number {
    return this.joints.reduce((n, j) => n + JOINT_QD_SIZE[j.type], 0);
  }

  /** freezes the authored world, replicated `num_worlds` times, into a SapModel */
  finalize(): SapModel {
    const nw = this.num_worlds;
    if (!(Number.isInteger(nw) && nw >= 1))
      throw new ModelError('num_worlds', `must be an integer ≥ 1; got ${nw}`);

    // bodies without a joint get a free joint
    for (let b = 0; b < this.bodies.length; b++) {
      if (!this.joints.some((j) => j.child === b)) {
        this.addJoint({ type: 'free', parent: -1, child: b, label: `${this.bodies[b].label}_free` });
      }
    }

    // order joints: trees in authoring order of their roots, parents before children
    const order: number[] = [];
    const treeOf: number[] = [];
    const childrenOf = new Map<number, number[]>();
    for (let j = 0; j < this.joints.length; j++) {
      const p = this.joints[j].parent;
      if (!childrenOf.has(p)) childrenOf.set(p, []);
      childrenOf.get(p)!.push(j);
    }
    const jointOfBody = new Int32Array(this.bodies.length).fill(-1);
    this.joints.forEach((j, k) => (jointOfBody[j.child] = k));
    let trees = 0;
    for (const root of childrenOf.get(-1) ?? []) {
      const stack = [root];
      while (stack.length) {
        const j = stack.shift()!;
        order.push(j);
        treeOf.push(trees);
        for (const c of childrenOf.get(this.joints[j].child) ?? []) stack.push(c);
      }
      trees++;
    }
    if (order.length !== this.joints.length) {
      const missing = this.joints.findIndex((_, k) => !order.includes(k));
      throw new ModelError(
        `joints[${missing}]`,
        `joint '${this.joints[missing].label}' is not connected to the world (a cycle?)`,
      );
    }
    const newIndexOfJoint = new Int32Array(this.joints.length);
    order.forEach((j, k) => (newIndexOfJoint[j] = k));
    const newIndexOfBody = new Int32Array(this.bodies.length);
    order.forEach((j, k) => (newIndexOfBody[this.joints[j].child] = k));

    const nb = this.bodies.length;
    const nq1 = this.coordCount();
    const nv1 = this.dofCount();
    const ns1 = this.shapes.length;
    const nsShared = this.sharedShapes.length;
    const NB = nb * nw,
      NQ = nq1 * nw,
      NV = nv1 * nw,
      NS = ns1 * nw + nsShared,
      NT = trees * nw;

    const m = {
      num_worlds: nw,
      gravity: Float64Array.from(this.gravity),
      body_count: NB,
      body_mass: new Float64Array(NB),
      body_com: new Float64Array(NB * 3),
      body_inertia: new Float64Array(NB * 9),
      body_gravcomp: new Float64Array(NB),
      body_world: new Int32Array(NB),
      body_label: new Array<string>(NB),
      joint_count: NB,
      joint_type: new Int32Array(NB),
      joint_parent: new Int32Array(NB),
      joint_child: new Int32Array(NB),
      joint_X_p: new Float64Array(NB * 7),
      joint_X_c: new Float64Array(NB * 7),
      joint_axis: new Float64Array(NB * 3),
      joint_cone_mode: new Int32Array(NB),
      joint_cone_limit: new Float64Array(NB * 2),
      joint_q_start: new Int32Array(NB + 1),
      joint_qd_start: new Int32Array(NB + 1),
      joint_world: new Int32Array(NB),
      joint_tree: new Int32Array(NB),
      joint_label: new Array<string>(NB),
      joint_coord_count: NQ,
      joint_dof_count: NV,
      joint_armature: new Float64Array(NV),
      joint_damping: new Float64Array(NV),
      joint_stiffness: new Float64Array(NV),
      joint_spring_ref: new Float64Array(NV),
      joint_limit_lower: new Float64Array(NV),
      joint_limit_upper: new Float64Array(NV),
      joint_limit_ke: new Float64Array(NV),
      joint_limit_kd: new Float64Array(NV),
      joint_target_ke: new Float64Array(NV),
      joint_target_kd: new Float64Array(NV),
      joint_effort_limit: new Float64Array(NV),
      joint_velocity_limit: new Float64Array(NV),
      dof_world: new Int32Array(NV),
      tree_count: NT,
      tree_world: new Int32Array(NT),
      tree_joint_start: new Int32Array(NT + 1),
      tree_dof_start: new Int32Array(NT + 1),
      world_joint_start: new Int32Array(nw + 1),
      world_dof_start: new Int32Array(nw + 1),
      world_coord_start: new Int32Array(nw + 1),
      world_tree_start: new Int32Array(nw + 1),
      shape_count: NS,
      shape_type: new Int32Array(NS),
      shape_body: new Int32Array(NS),
      shape_world: new Int32Array(NS),
      shape_X_bs: new Float64Array(NS * 7),
      shape_size: new Float64Array(NS * 3),
      shape_margin: new Float64Array(NS),
      shape_gap: new Float64Array(NS),
      shape_ke: new Float64Array(NS),
      shape_tau: new Float64Array(NS),
      shape_mu: new Float64Array(NS),
      shape_collision_group: new Int32Array(NS),
      shape_flags: new Int32Array(NS),
      shape_color: new Float32Array(NS * 3),
      shape_label: new Array<string>(NS),
      shape_mesh: new Int32Array(NS).fill(-1),
      shape_hfield: new Int32Array(NS).fill(-1),
      shape_filter_pairs: new Int32Array(this.filterPairs.length * 2 * nw),
      ...this.packMeshes(),
      ...this.packHeightfields(),
      eq_count: this.equalities.length * nw,
      eq_type: new Int32Array(this.equalities.length * nw),
      eq_world: new Int32Array(this.equalities.length * nw),
      eq_body0: new Int32Array(this.equalities.length * nw),
      eq_body1: new Int32Array(this.equalities.length * nw),
      eq_joint0: new Int32Array(this.equalities.length * nw),
      eq_joint1: new Int32Array(this.equalities.length * nw),
      eq_anchor0: new Float64Array(this.equalities.length * nw * 3),
      eq_anchor1: new Float64Array(this.equalities.length * nw * 3),
      eq_relpose: new Float64Array(this.equalities.length * nw * 7),
      eq_ratio: new Float64Array(this.equalities.length * nw),
      eq_offset: new Float64Array(this.equalities.length * nw),
      eq_stiffness: new Float64Array(this.equalities.length * nw),
      eq_tau: new Float64Array(this.equalities.length * nw),
      eq_label: new Array<string>(this.equalities.length * nw),
      ...this.tendonArrays(nw),
      ...transmissionArrays(this.spatialTendons, this.lengthActuators, nw),
      joint_friction: new Float64Array(NV),
      joint_drive_acceleration: new Uint8Array(NV),
      joint_collision_filter_parent: new Uint8Array(NB),
      joint_q0: new Float64Array(NQ),
      joint_qd0: new Float64Array(NV),
      time0: this.time0,
      joint_target_pos: new Float64Array(NV),
      joint_target_vel: new Float64Array(NV),
      name: this.name,
    };

    // mass properties of the authored bodies
    const massProps = this.bodies.map((b, i) => this.bodyMass(b, i));

    const offsets = worldOffsets(nw, this.spacing);
    let q = 0,
      v = 0,
      s = 0;
    for (let w = 0; w < nw; w++) {
      m.world_joint_start[w] = w * nb;
      m.world_dof_start[w] = v;
      m.world_coord_start[w] = q;
      m.world_tree_start[w] = w * trees;
      for (let t = 0; t < trees; t++) m.tree_world[w * trees + t] = w;
      const off = offsets[w];
      for (let k = 0; k < nb; k++) {
        const jr = this.joints[order[k]];
        const J = w * nb + k;
        const bsrc = jr.child;
        // body
        const mp = massProps[bsrc];
        m.body_mass[J] = mp.mass;
        m.body_com.set(mp.com, J * 3);
        m.body_inertia.set(mp.inertia, J * 9);
        m.body_gravcomp[J] = this.bodies[bsrc].gravcomp;
        m.body_world[J] = w;
        m.body_label[J] = this.bodies[bsrc].label;
        // joint
        m.joint_type[J] = jr.type;
        m.joint_parent[J] = jr.parent < 0 ? -1 : w * nb + newIndexOfBody[jr.parent];
        m.joint_child[J] = J;
        m.joint_X_p.set(jr.X_p, J * 7);
        if (jr.parent < 0) {
          m.joint_X_p[J * 7] += off[0];
          m.joint_X_p[J * 7 + 1] += off[1];
          m.joint_X_p[J * 7 + 2] += off[2];
        }
        m.joint_X_c.set(jr.X_c, J * 7);
        m.joint_axis.set(jr.axis, J * 3);
        m.joint_cone_mode[J] = jr.coneMode;
        m.joint_cone_limit.set(jr.coneLimit, J * 2);
        m.joint_world[J] = w;
        m.joint_tree[J] = w * trees + treeOf[k];
        m.joint_label[J] = jr.label;
        m.joint_collision_filter_parent[J] = jr.collision_filter_parent ? 1 : 0;
        m.joint_q_start[J] = q;
        m.joint_qd_start[J] = v;
        m.joint_q0.set(jr.q, q);
        m.joint_qd0.set(jr.qd, v);
        for (let d = 0; d < JOINT_QD_SIZE[jr.type]; d++) {
          const D = v + d;
          const dofCfg = jr.dofOverride[d] ? { ...jr.dof, ...jr.dofOverride[d] } : jr.dof;
          m.joint_armature[D] = dofCfg.armature;
          m.joint_damping[D] = dofCfg.damping;
          const scalar = jr.type === JointType.REVOLUTE || jr.type === JointType.PRISMATIC;
          m.joint_stiffness[D] = scalar ? dofCfg.stiffness : 0;
          m.joint_spring_ref[D] = scalar ? dofCfg.spring_ref : 0;
          m.joint_limit_lower[D] = scalar ? dofCfg.limit_lower : -Infinity;
          m.joint_limit_upper[D] = scalar ? dofCfg.limit_upper : Infinity;
          m.joint_limit_ke[D] = dofCfg.limit_ke;
          m.joint_limit_kd[D] = dofCfg.limit_kd;
          m.joint_target_ke[D] = dofCfg.target_ke;
          m.joint_target_kd[D] = dofCfg.target_kd;
          m.joint_effort_limit[D] = dofCfg.effort_limit;
          m.joint_velocity_limit[D] = dofCfg.velocity_limit;
          m.joint_target_pos[D] = dofCfg.target_pos;
          m.joint_target_vel[D] = dofCfg.target_vel;
          m.joint_friction[D] = dofCfg.friction;
          m.joint_drive_acceleration[D] = dofCfg.drive_acceleration ? 1 : 0;
          m.dof_world[D] = w;
        }
        q += JOINT_Q_SIZE[jr.type];
        v += JOINT_QD_SIZE[jr.type];
      }
      // tree ranges
      for (let k = 0; k < nb; k++) {
        const T = w * trees + treeOf[k];
        if (k === 0 || treeOf[k] !== treeOf[k - 1]) {
          m.tree_joint_start[T] = w * nb + k;
          m.tree_dof_start[T] = m.joint_qd_start[w * nb + k];
        }
      }
      // world shapes
      const s0 = s;
      for (const sr of this.shapes) {
        const body = sr.body < 0 ? -1 : w * nb + newIndexOfBody[sr.body];
        writeShape(m, s, sr, body, w, sr.body < 0 ? off : [0, 0, 0]);
        s++;
      }
      this.filterPairs.forEach(([a, b], k) => {
        m.shape_filter_pairs[(w * this.filterPairs.length + k) * 2] = s0 + a;
        m.shape_filter_pairs[(w * this.filterPairs.length + k) * 2 + 1] = s0 + b;
      });
      // equalities
      this.equalities.forEach((e, k) => {
        const E = w * this.equalities.length + k;
        const bodyIdx = (b: number) => (b < 0 ? -1 : w * nb + newIndexOfBody[b]);
        const jointIdx = (j: number) => (j < 0 ? -1 : w * nb + newIndexOfJoint[j]);
        m.eq_type[E] = EQUALITY_TYPE_NAMES.indexOf(e.type);
        m.eq_world[E] = w;
        m.eq_body0[E] = bodyIdx(e.body0);
        m.eq_body1[E] = bodyIdx(e.body1);
        m.eq_joint0[E] = jointIdx(e.joint0);
        m.eq_joint1[E] = jointIdx(e.joint1);
        // world-anchored points move with the world's offset
        const a0 =
          e.body0 < 0 ? [e.anchor0[0] + off[0], e.anchor0[1] + off[1], e.anchor0[2] + off[2]] : e.anchor0;
        const a1 =
          e.body1 < 0 ? [e.anchor1[0] + off[0], e.anchor1[1] + off[1], e.anchor1[2] + off[2]] : e.anchor1;
        m.eq_anchor0.set(a0, E * 3);
        m.eq_anchor1.set(a1, E * 3);
        m.eq_relpose.set(e.relpose ?? this.weldRelpose(e.body0, e.anchor0, e.body1, e.anchor1), E * 7);
        m.eq_ratio[E] = e.ratio;
        m.eq_offset[E] = e.offset;
        m.eq_stiffness[E] = e.stiffness;
        m.eq_tau[E] = e.tau;
        m.eq_label[E] = e.label;
      });
      // tendons (entries laid out world by world, in authored order)
      const nten = this.tendons.length;
      this.tendons.forEach((t, k) => {
        const T = w * nten + k;
        let a = m.tendon_adr[T];
        for (const e of t.joints) {
          m.tendon_joint[a] = w * nb + newIndexOfJoint[e.joint];
          m.tendon_coef[a] = e.coef;
          a++;
        }
        m.tendon_adr[T + 1] = a;
        m.tendon_world[T] = w;
        m.tendon_offset[T] = t.offset;
        m.tendon_lower[T] = t.lower;
        m.tendon_upper[T] = t.upper;
        m.tendon_limit_ke[T] = t.limit_ke;
        m.tendon_limit_kd[T] = t.limit_kd;
        m.tendon_label[T] = t.label;
      });
      writeTransmissions(
        m,
        w,
        (b) => (b < 0 ? -1 : w * nb + newIndexOfBody[b]),
        off,
        nten,
        this.spatialTendons,
        this.lengthActuators,
      );
    }
    m.joint_q_start[NB] = q;
    m.joint_qd_start[NB] = v;
    m.tree_joint_start[NT] = NB;
    m.tree_dof_start[NT] = v;
    m.world_joint_start[nw] = NB;
    m.world_dof_start[nw] = v;
    m.world_coord_start[nw] = q;
    m.world_tree_start[nw] = NT;
    for (const sr of this.sharedShapes) {
      writeShape(m, s, sr, -1, -1, [0, 0, 0]);
      s++;
    }
    // parent-child collision filtering data travels with the joints (collision reads joint_parent)
    return Object.freeze(m) as SapModel;
  }

  /** zeroed tendon arrays for nw worlds */
  private tendonArrays(nw: number) {
    const n = this.tendons.length * nw;
    const entries = this.tendons.reduce((s, t) => s + t.joints.length, 0) * nw;
    return {
      tendon_count: n,
      tendon_world: new Int32Array(n),
      tendon_adr: new Int32Array(n + 1),
      tendon_joint: new Int32Array(entries),
      tendon_coef: new Float64Array(entries),
      tendon_offset: new Float64Array(n),
      tendon_lower: new Float64Array(n),
      tendon_upper: new Float64Array(n),
      tendon_limit_ke: new Float64Array(n),
      tendon_limit_kd: new Float64Array(n),
      tendon_label: new Array<string>(n),
    };
  }

  /** the weld's satisfied relative pose from the authored body poses: (X_W0·A0)⁻¹ · (X_W1·A1) */
  private weldRelpose(b0: number, a0: readonly number[], b1: number, a1: readonly number[]): number[] {
    const f0 = new Float64Array(7),
      f1 = new Float64Array(7);
    const P0 = b0 < 0 ? IDENTITY : this.bodies[b0].X_wb;
    const P1 = b1 < 0 ? IDENTITY : this.bodies[b1].X_wb;
    transformMul(f64(P0), 0, f64([a0[0], a0[1], a0[2], 0, 0, 0, 1]), 0, f0, 0);
    transformMul(f64(P1), 0, f64([a1[0], a1[1], a1[2], 0, 0, 0, 1]), 0, f1, 0);
    transformInverse(f0, 0, f0, 0);
    transformMul(f0, 0, f1, 0, f1, 0);
    return Array.from(f1);
  }

  private packMeshes() {
    const V = this.meshes.reduce((n, x) => n + x.vertices.length / 3, 0);
    const T = this.meshes.reduce((n, x) => n + x.triangles.length / 3, 0);
    const out = {
      mesh_count: this.meshes.length,
      mesh_vertex_start: new Int32Array(this.meshes.length + 1),
      mesh_vertices: new Float64Array(V * 3),
      mesh_triangle_start: new Int32Array(this.meshes.length + 1),
      mesh_triangles: new Int32Array(T * 3),
      mesh_label: this.meshes.map((x) => x.label),
      mesh_uv: this.meshes.map((x) => x.uv),
      mesh_texture: Int32Array.from(this.meshes.map((x) => x.texture)),
      textures: this.textures.slice(),
    };
    let v = 0,
      t = 0;
    this.meshes.forEach((x, i) => {
      out.mesh_vertex_start[i] = v;
      out.mesh_triangle_start[i] = t;
      out.mesh_vertices.set(x.vertices, v * 3);
      out.mesh_triangles.set(x.triangles, t * 3);
      v += x.vertices.length / 3;
      t += x.triangles.length / 3;
    });
    out.mesh_vertex_start[this.meshes.length] = v;
    out.mesh_triangle_start[this.meshes.length] = t;
    return out;
  }

  private packHeightfields() {
    const n = this.hfields.length;
    const total = this.hfields.reduce((k, h) => k + h.data.length, 0);
    const out = {
      hfield_count: n,
      hfield_nrow: Int32Array.from(this.hfields.map((h) => h.nrow)),
      hfield_ncol: Int32Array.from(this.hfields.map((h) => h.ncol)),
      hfield_size: Float64Array.from(this.hfields.flatMap((h) => h.size)),
      hfield_data_start: new Int32Array(n + 1),
      hfield_data: new Float64Array(total),
    };
    let k = 0;
    this.hfields.forEach((h, i) => {
      out.hfield_data_start[i] = k;
      out.hfield_data.set(h.data, k);
      k += h.data.length;
    });
    out.hfield_data_start[n] = k;
    return out;
  }

  private readonly meshMassMemo = new WeakMap<object, Map<string, ReturnType<typeof meshMassProperties>>>();
  /** mass properties of mesh `mesh` at a scale and density [kg, m, kg·m²], computed once per (mesh, scale, density) */
  meshMass(mesh: number, size: ArrayLike<number>, density: number): ReturnType<typeof meshMassProperties> {
    const m = this.meshes[mesh];
    let byScale = this.meshMassMemo.get(m);
    if (!byScale) this.meshMassMemo.set(m, (byScale = new Map()));
    const key = `${size[0]}:${size[1]}:${size[2]}:${density}`;
    let mp = byScale.get(key);
    if (!mp) byScale.set(key, (mp = meshMassProperties(m.vertices, m.triangles, size, density)));
    return mp;
  }

  private bodyMass(b: BodyRec, index: number): { mass: number; com: number[]; inertia: number[] } {
    // accumulate the shapes' mass, COM and inertia in the body frame
    let mass = 0;
    const c = [0, 0, 0];
    const parts: { m: number; c: Float64Array; I: Float64Array }[] = [];
    const R = new Float64Array(9);
    const Il = new Float64Array(9);
    for (const s of this.shapes) {
      if (s.body !== index) continue;
      const mp =
        (s.type === ShapeType.MESH || s.type === ShapeType.CONVEX_MESH) && s.mesh >= 0
          ? this.meshMass(s.mesh, s.size, s.cfg.density)
          : shapeMassProperties(s.type, s.size, s.cfg.density);
      if (!(mp.mass > 0)) continue;
      quatToMat3(f64(s.X_bs), 3, R, 0);
      const cw = new Float64Array(3);
      mat3MulVec(R, 0, f64(mp.com), 0, cw, 0);
      cw[0] += s.X_bs[0];
      cw[1] += s.X_bs[1];
      cw[2] += s.X_bs[2];
      Il.fill(0);
      Il[0] = mp.inertia[0];
      Il[4] = mp.inertia[1];
      Il[8] = mp.inertia[2];
      if ('products' in mp) {
        const [pxy, pxz, pyz] = (mp as { products: number[] }).products;
        Il[1] = Il[3] = pxy;
        Il[2] = Il[6] = pxz;
        Il[5] = Il[7] = pyz;
      }
      const I = new Float64Array(9);
      rotateInertia(R, 0, Il, 0, I, 0);
      parts.push({ m: mp.mass, c: cw, I });
      mass += mp.mass;
      for (let k = 0; k < 3; k++) c[k] += mp.mass * cw[k];
    }
    const inertia = new Array<number>(9).fill(0);
    if (mass > 0) {
      for (let k = 0; k < 3; k++) c[k] /= mass;
      for (const p of parts) {
        const d = [p.c[0] - c[0], p.c[1] - c[1], p.c[2] - c[2]];
        const dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        for (let r = 0; r < 3; r++)
          for (let k = 0; k < 3; k++)
            inertia[r * 3 + k] += p.I[r * 3 + k] + p.m * ((r === k ? dd : 0) - d[r] * d[k]);
      }
    }
    let com = c;
    if (b.mass !== undefined) {
      if (b.inertia) {
        const I =
          b.inertia.length === 3 ? [b.inertia[0], 0, 0, 0, b.inertia[1], 0, 0, 0, b.inertia[2]] : b.inertia;
        for (let k = 0; k < 9; k++) inertia[k] = I[k];
      } else if (mass > 0) {
        for (let k = 0; k < 9; k++) inertia[k] *= b.mass / mass;
      } else {
        // no geometry: a solid sphere of 10 cm radius as a neutral guess
        const i = 0.4 * b.mass * 0.01;
        inertia.splice(0, 9, i, 0, 0, 0, i, 0, 0, 0, i);
      }
      if (b.com) com = [...b.com];
      mass = b.mass;
    }
    inertia[0] += b.armature;
    inertia[4] += b.armature;
    inertia[8] += b.armature;
    return { mass, com, inertia };
  }
}

function writeShape(
  m: Record<string, unknown> & { [k: string]: unknown },
  s: number,
  sr: ShapeRec,
  body: number,
  world: number,
  off: readonly number[],
): void {
  const a = m as unknown as {
    shape_type: Int32Array;
    shape_body: Int32Array;
    shape_world: Int32Array;
    shape_X_bs: Float64Array;
    shape_size: Float64Array;
    shape_margin: Float64Array;
    shape_gap: Float64Array;
    shape_ke: Float64Array;
    shape_tau: Float64Array;
    shape_mu: Float64Array;
    shape_collision_group: Int32Array;
    shape_flags: Int32Array;
    shape_color: Float32Array;
    shape_label: string[];
  };
  a.shape_type[s] = sr.type;
  a.shape_body[s] = body;
  a.shape_world[s] = world;
  a.shape_X_bs.set(sr.X_bs, s * 7);
  a.shape_X_bs[s * 7] += off[0];
  a.shape_X_bs[s * 7 + 1] += off[1];
  a.shape_X_bs[s * 7 + 2] += off[2];
  a.shape_size.set(sr.size, s * 3);
  a.shape_margin[s] = sr.cfg.margin;
  a.shape_gap[s] = sr.cfg.gap;
  a.shape_ke[s] = sr.cfg.ke;
  a.shape_tau[s] = sr.cfg.tau;
  a.shape_mu[s] = sr.cfg.mu;
  a.shape_collision_group[s] = sr.cfg.has_shape_collision ? sr.cfg.collision_group : 0;
  a.shape_flags[s] =
    (sr.cfg.is_visible ? ShapeFlags.VISIBLE : 0) |
    (sr.cfg.has_shape_collision ? ShapeFlags.COLLIDE_SHAPES : 0) |
    (sr.cfg.has_particle_collision ? ShapeFlags.COLLIDE_PARTICLES : 0) |
    (sr.cfg.is_site ? ShapeFlags.SITE : 0);
  a.shape_color.set(sr.color, s * 3);
  a.shape_label[s] = sr.label;
  (m as unknown as { shape_mesh: Int32Array }).shape_mesh[s] = sr.mesh;
  (m as unknown as { shape_hfield: Int32Array }).shape_hfield[s] = sr.hfield;
}

/** world origins: a centered grid over the non-zero spacing axes (a line for one axis) */
export function worldOffsets(n: number, spacing: readonly number[]): number[][] {
  const axes = [0, 1, 2].filter((k) => spacing[k] !== 0);
  const out: number[][] = [];
  if (axes.length === 0) {
    for (let w = 0; w < n; w++) out.push([0, 0, 0]);
    return out;
  }
  if (axes.length === 1) {
    for (let w = 0; w < n; w++) {
      const o = [0, 0, 0];
      o[axes[0]] = (w - (n - 1) / 2) * spacing[axes[0]];
      out.push(o);
    }
    return out;
  }
  const cols = Math.ceil(Math.sqrt(n));
  const rows = Math.ceil(n / cols);
  for (let w = 0; w < n; w++) {
    const o = [0, 0, 0];
    o[axes[0]] = ((w % cols) - (cols - 1) / 2) * spacing[axes[0]];
    o[axes[1]] = (Math.floor(w / cols) - (rows - 1) / 2) * spacing[axes[1]];
    out.push(o);
  }
  return out;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

function pickDof(d: Partial<JointDofConfig>): Partial<JointDofConfig> {
  return {
    armature: d.armature,
    damping: d.damping,
    stiffness: d.stiffness,
    spring_ref: d.spring_ref,
    friction: d.friction,
    limit_lower: d.limit_lower,
    limit_upper: d.limit_upper,
    limit_ke: d.limit_ke,
    limit_kd: d.limit_kd,
    target_ke: d.target_ke,
    target_kd: d.target_kd,
    target_pos: d.target_pos,
    target_vel: d.target_vel,
    effort_limit: d.effort_limit,
    velocity_limit: d.velocity_limit,
    drive_acceleration: d.drive_acceleration,
  };
}
