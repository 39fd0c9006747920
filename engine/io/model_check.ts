/**
 * The last gate of every loader (SPEC §11: never a half-loaded scene): a finalized model whose mass
 * properties, poses, sizes or initial state are not finite — e.g. finite inputs such as 1e308 whose
 * products overflow — is rejected with the offending entity and field, before a simulation sees it.
 */
import { f64, mat3MulVec, quatToMat3, rotateInertia, transformMul } from '../math';
import { JointType, ModelError, type ModelBuilder, type SapModel } from '../model';
import { LIMITS, limitMessage } from './limits';

/** fields that must hold finite numbers, and the entity their index counts (with its stride) */
const FINITE: [
  keyof SapModel,
  (
    | 'body'
    | 'joint'
    | 'shape'
    | 'coord'
    | 'dof'
    | 'mesh'
    | 'hfield'
    | 'world'
    | 'equality'
    | 'tendon'
    | 'spatial'
    | 'spatial_point'
    | 'actuator'
  ),
  number,
][] = [
  ['gravity', 'world', 3],
  ['body_mass', 'body', 1],
  ['body_com', 'body', 3],
  ['body_inertia', 'body', 9],
  ['body_gravcomp', 'body', 1],
  ['joint_X_p', 'joint', 7],
  ['joint_X_c', 'joint', 7],
  ['joint_axis', 'dof', 3],
  ['shape_X_bs', 'shape', 7],
  ['shape_size', 'shape', 3],
  ['shape_color', 'shape', 3],
  ['joint_q0', 'coord', 1],
  ['joint_qd0', 'dof', 1],
  ['joint_target_pos', 'dof', 1],
  ['joint_target_vel', 'dof', 1],
  ['joint_armature', 'dof', 1],
  ['joint_damping', 'dof', 1],
  ['joint_stiffness', 'dof', 1],
  ['joint_spring_ref', 'dof', 1],
  ['mesh_vertices', 'mesh', 3],
  ['hfield_data', 'hfield', 1],
  ['eq_anchor0', 'equality', 3],
  ['eq_anchor1', 'equality', 3],
  ['eq_relpose', 'equality', 7],
  ['eq_ratio', 'equality', 1],
  ['eq_offset', 'equality', 1],
  ['tendon_offset', 'tendon', 1],
  ['spatial_point', 'spatial_point', 3],
  ['spatial_scale', 'spatial_point', 1],
  ['spatial_stiffness', 'spatial', 1],
  ['spatial_spring_lower', 'spatial', 1],
  ['spatial_spring_upper', 'spatial', 1],
  ['spatial_damping', 'spatial', 1],
  ['actuator_crank_point', 'actuator', 3],
  ['actuator_slider_point', 'actuator', 3],
  ['actuator_slider_axis', 'actuator', 3],
  ['actuator_gear', 'actuator', 1],
  ['actuator_gain', 'actuator', 1],
  ['actuator_bias', 'actuator', 3],
  ['actuator_ctrl0', 'actuator', 1],
];

/** fields where ±inf is meaningful (unbounded) but NaN is not */
const NOT_NAN: (keyof SapModel)[] = [
  'joint_limit_lower',
  'joint_limit_upper',
  'joint_cone_limit',
  'joint_limit_ke',
  'joint_limit_kd',
  'joint_target_ke',
  'joint_target_kd',
  'joint_effort_limit',
  'joint_velocity_limit',
  'joint_friction',
  'shape_margin',
  'shape_gap',
  // shape_ke / shape_tau / shape_mu may be NaN: "none authored", resolved by the collision
  // pipeline's material fallbacks (engine/collision/material.ts)
  'tendon_lower',
  'tendon_upper',
  'tendon_limit_ke',
  'tendon_limit_kd',
  'spatial_lower',
  'spatial_upper',
  'spatial_limit_ke',
  'spatial_limit_kd',
  'actuator_ctrl_lower',
  'actuator_ctrl_upper',
  'actuator_force_lower',
  'actuator_force_upper',
];

/** the label of the entity an array index belongs to */
function entityOf(m: SapModel, kind: string, i: number): string {
  const label = (arr: readonly string[] | undefined, k: number) =>
    arr && arr[k] !== undefined ? `'${arr[k]}'` : `${k}`;
  switch (kind) {
    case 'body':
      return `bodies[${label(m.body_label, i)}]`;
    case 'shape':
      return `shapes[${label(m.shape_label, i)}]`;
    case 'joint':
      return `joints[${label(m.joint_label, i)}]`;
    case 'equality':
      return `equalities[${label(m.eq_label, i)}]`;
    case 'tendon':
      return `tendons[${label(m.tendon_label, i)}]`;
    case 'spatial':
      return `spatial_tendons[${label(m.spatial_label, i)}]`;
    case 'spatial_point': {
      let t = 0;
      while (t + 1 < m.spatial_adr.length && m.spatial_adr[t + 1] <= i) t++;
      return `spatial_tendons[${label(m.spatial_label, t)}]`;
    }
    case 'actuator':
      return `actuators[${label(m.actuator_label, i)}]`;
    case 'dof':
    case 'coord': {
      const start = kind === 'dof' ? m.joint_qd_start : m.joint_q_start;
      let j = 0;
      while (j + 1 < start.length && start[j + 1] <= i) j++;
      return `joints[${label(m.joint_label, j)}]`;
    }
    default:
      return `${kind}s[${i}]`;
  }
}

/**
 * Throws a {@link ModelError} (path: the entity and field, e.g. `bodies['link3'].body_inertia`) when
 * the model holds a non-finite value where only finite ones make sense.
 */
export function assertModelFinite(m: SapModel): void {
  for (const [field, kind, stride] of FINITE) {
    const a = m[field] as unknown;
    if (!(a instanceof Float64Array || a instanceof Float32Array)) continue;
    for (let i = 0; i < a.length; i++) {
      if (Number.isFinite(a[i])) continue;
      throw new ModelError(
        `${entityOf(m, kind, Math.floor(i / stride))}.${String(field)}`,
        `is ${a[i]} after building (a value in the file is out of range, or overflows when combined)`,
      );
    }
  }
  if (!Number.isFinite(m.time0))
    throw new ModelError('time0', `is ${m.time0} (the initial time must be finite)`);
  for (const field of NOT_NAN) {
    const a = m[field] as unknown;
    if (!(a instanceof Float64Array || a instanceof Float32Array)) continue;
    const i = a.findIndex((x) => Number.isNaN(x));
    if (i >= 0) throw new ModelError(`${String(field)}[${i}]`, 'is NaN after building');
  }
}

// ---------------------------------------------------------------------------- physical validity

/** MuJoCo's mjMINVAL: a mass [kg] or inertia [kg·m²] at or below it counts as zero */
const MIN_VAL = 1e-15;

/** the eigenvalues of a symmetric 3 × 3 matrix (row-major), ascending (trigonometric closed form) */
export function symmetricEigenvalues3(a: ArrayLike<number>): [number, number, number] {
  const a00 = a[0],
    a11 = a[4],
    a22 = a[8];
  const a01 = 0.5 * (a[1] + a[3]),
    a02 = 0.5 * (a[2] + a[6]),
    a12 = 0.5 * (a[5] + a[7]);
  const p1 = a01 * a01 + a02 * a02 + a12 * a12;
  const q = (a00 + a11 + a22) / 3;
  if (p1 === 0) return [a00, a11, a22].sort((x, y) => x - y) as [number, number, number];
  const b00 = a00 - q,
    b11 = a11 - q,
    b22 = a22 - q;
  const p = Math.sqrt((b00 * b00 + b11 * b11 + b22 * b22 + 2 * p1) / 6);
  const det = b00 * (b11 * b22 - a12 * a12) - a01 * (a01 * b22 - a12 * a02) + a02 * (a01 * a12 - b11 * a02);
  const r = Math.max(-1, Math.min(1, det / (2 * p * p * p)));
  const phi = Math.acos(r) / 3;
  const hi = q + 2 * p * Math.cos(phi);
  const lo = q + 2 * p * Math.cos(phi + (2 * Math.PI) / 3);
  return [lo, 3 * q - hi - lo, hi];
}

/** mass, COM (world) and inertia about the COM (world, row-major) of a set of bodies */
interface Composite {
  m: number;
  c: [number, number, number];
  I: number[];
}

/** `a` grows by `b` (parallel-axis theorem about the merged COM) */
function merge(a: Composite, b: Composite): void {
  const m = a.m + b.m;
  if (!(m > 0)) {
    for (let k = 0; k < 9; k++) a.I[k] += b.I[k];
    return;
  }
  const c = [0, 1, 2].map((k) => (a.m * a.c[k] + b.m * b.c[k]) / m);
  const I = new Array<number>(9).fill(0);
  for (const p of [a, b]) {
    const d = [p.c[0] - c[0], p.c[1] - c[1], p.c[2] - c[2]];
    const dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    for (let r = 0; r < 3; r++)
      for (let k = 0; k < 3; k++) I[r * 3 + k] += p.I[r * 3 + k] + p.m * ((r === k ? dd : 0) - d[r] * d[k]);
  }
  a.m = m;
  a.c = [c[0], c[1], c[2]];
  a.I = I;
}

/** the inertia of a composite about the point `p` (world) */
function inertiaAbout(s: Composite, p: ArrayLike<number>): number[] {
  const d = [s.c[0] - p[0], s.c[1] - p[1], s.c[2] - p[2]];
  const dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  return s.I.map((x, i) => x + s.m * ((i % 4 === 0 ? dd : 0) - d[Math.floor(i / 3)] * d[i % 3]));
}

const fmt = (x: number) => Number(x.toPrecision(6));

/**
 * Throws a {@link ModelError} when the authored world of a builder cannot be simulated (SPEC §11):
 * a body whose inertia has a negative principal moment, a moving body whose inertia violates the
 * triangle inequality (I₁ + I₂ ≥ I₃, which every mass distribution satisfies), or a joint that moves
 * nothing: at the authored pose, a prismatic joint whose bodies have no mass, a revolute joint with
 * no inertia about its axis, a ball joint whose inertia about its centre is singular, or a free
 * joint whose body (with what is attached to it) has no mass or a singular inertia, armature
 * included — its row of the mass matrix M(q) would be zero. A body welded to its parent by a fixed
 * joint whose inertia violates the triangle inequality only adds to its parent's: that is a warning
 * (returned). Call it after `finalize()` (which adds the free joints).
 */
export function assertBuilderPhysical(b: ModelBuilder): string[] {
  const nb = b.bodies.length;
  const warnings: string[] = [];
  const jointOf = new Int32Array(nb).fill(-1);
  b.joints.forEach((j, k) => (jointOf[j.child] = k));
  const comp: Composite[] = [];
  const Rb = new Float64Array(9);
  for (let i = 0; i < nb; i++) {
    const body = b.bodies[i];
    const mp = b.bodyMassProperties(i);
    const where = `bodies['${body.label}']`;
    const I = mp.inertia;
    const [l0, l1, l2] = symmetricEigenvalues3(I);
    const moments = `principal moments (${fmt(l0)}, ${fmt(l1)}, ${fmt(l2)}) kg·m²`;
    if (l0 < -1e-9 * Math.max(Math.abs(l2), MIN_VAL)) {
      throw new ModelError(`${where}.inertia`, `${moments}: a moment of inertia cannot be negative`);
    }
    if (l0 + l1 < l2 - 1e-6 * Math.max(l2, MIN_VAL)) {
      const why = `${moments} violate the triangle inequality (${fmt(l0)} + ${fmt(l1)} < ${fmt(l2)}): no mass distribution has them`;
      const joint = jointOf[i] >= 0 ? b.joints[jointOf[i]] : undefined;
      if (!joint || joint.type !== JointType.FIXED || joint.parent < 0)
        throw new ModelError(`${where}.inertia`, why);
      warnings.push(
        `${where}.inertia: ${why}; simulated as authored (welded to '${b.bodies[joint.parent].label}', it only adds to that body's inertia)`,
      );
    }
    // the body in the world at its authored pose
    const X = f64(body.X_wb);
    quatToMat3(X, 3, Rb, 0);
    const c = new Float64Array(3);
    mat3MulVec(Rb, 0, f64(mp.com), 0, c, 0);
    const Iw = new Float64Array(9);
    rotateInertia(Rb, 0, f64(I), 0, Iw, 0);
    comp.push({ m: mp.mass, c: [c[0] + X[0], c[1] + X[1], c[2] + X[2]], I: Array.from(Iw) });
  }
  // subtrees, children before parents
  const depth = new Int32Array(nb);
  for (let i = 0; i < nb; i++) {
    let d = 0;
    for (let k = i; k >= 0 && jointOf[k] >= 0 && d <= nb; k = b.joints[jointOf[k]].parent) d++;
    depth[i] = d;
  }
  const order = [...Array(nb).keys()].sort((x, y) => depth[y] - depth[x]);
  const F = new Float64Array(7);
  const R = new Float64Array(9);
  const a = new Float64Array(3);
  for (const i of order) {
    const k = jointOf[i];
    const parent = k >= 0 ? b.joints[k].parent : -1;
    if (k >= 0) checkJoint(b, k, comp[i], F, R, a);
    if (parent >= 0) merge(comp[parent], comp[i]);
  }
  return warnings;
}

function checkJoint(
  b: ModelBuilder,
  k: number,
  s: Composite,
  F: Float64Array,
  R: Float64Array,
  a: Float64Array,
): void {
  const j = b.joints[k];
  const arm = (d: number) => j.dofOverride[d]?.armature ?? j.dof.armature;
  const where = `joints['${j.label}']`;
  const what = `the bodies it moves ('${b.bodies[j.child].label}' and what hangs from it)`;
  if (j.type === JointType.FIXED) return;
  transformMul(f64(b.bodies[j.child].X_wb), 0, f64(j.X_c), 0, F, 0);
  if (j.type === JointType.PRISMATIC) {
    if (!(s.m + arm(0) > MIN_VAL))
      throw new ModelError(
        where,
        `a prismatic joint: ${what} have no mass (${fmt(s.m)} kg) and it has no armature`,
      );
    return;
  }
  const Ip = inertiaAbout(s, F);
  if (j.type === JointType.REVOLUTE) {
    quatToMat3(F, 3, R, 0);
    mat3MulVec(R, 0, f64(j.axis), 0, a, 0);
    let v = arm(0);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) v += a[r] * Ip[r * 3 + c] * a[c];
    if (!(v > MIN_VAL))
      throw new ModelError(
        where,
        `a revolute joint: ${what} have no inertia about its axis (${fmt(v)} kg·m², armature included)`,
      );
    return;
  }
  const rot = j.type === JointType.BALL ? Ip : s.I;
  const off = j.type === JointType.BALL ? 0 : 3;
  const Ia = [...rot];
  for (let d = 0; d < 3; d++) Ia[d * 4] += arm(off + d);
  const lmin = symmetricEigenvalues3(Ia)[0];
  if (j.type === JointType.FREE && !(s.m + Math.min(arm(0), arm(1), arm(2)) > MIN_VAL))
    throw new ModelError(where, `a free joint: ${what} have no mass (${fmt(s.m)} kg)`);
  if (!(lmin > MIN_VAL))
    throw new ModelError(
      where,
      `a ${j.type === JointType.BALL ? 'ball' : 'free'} joint: ${what} have a singular inertia ` +
        `(smallest principal moment ${fmt(lmin)} kg·m²${j.type === JointType.BALL ? ' about its centre' : ''}, armature included)`,
    );
}

/**
 * Why a time step cannot be simulated, or undefined: it must be a finite number > 0 [s] and at most
 * {@link LIMITS}.max_time_step (negative steps run time backwards, 0 never advances).
 */
export function timeStepProblem(dt: number): string | undefined {
  if (!(typeof dt === 'number' && Number.isFinite(dt) && dt > 0))
    return `time step ${dt} s: must be a finite number > 0`;
  if (dt > LIMITS.max_time_step) return limitMessage(`time step ${dt} s`, 'max_time_step');
  return undefined;
}

/**
 * The one validation pass of a built model (scene, URDF, MJCF, USD, the builder): finite values
 * ({@link assertModelFinite}), then physically valid mass properties ({@link assertBuilderPhysical}).
 * Returns the warnings (values simulated although suspect); throws a {@link ModelError} otherwise.
 */
export function checkBuiltModel(model: SapModel, builder: ModelBuilder): string[] {
  assertModelFinite(model);
  return assertBuilderPhysical(builder);
}
