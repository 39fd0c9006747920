/**
 * Length transmissions of the model builder: spatial tendons (site-to-site paths on bodies) and the
 * actuators that act through a length l(q) — a spatial tendon, a fixed tendon or a slider-crank —
 * rather than through one joint. Validation of the authored descriptions and their packing into the
 * `spatial_*` / `actuator_*` arrays of {@link SapModel}, world by world.
 */
import { ModelError } from './errors';
import type { SapModel } from './model';

/** how an actuator's length is measured (`actuator_type`) */
export const ActuatorTransmission = { SPATIAL_TENDON: 0, FIXED_TENDON: 1, SLIDER_CRANK: 2 } as const;

/** one point of a spatial tendon's path, or a pulley that starts a new branch */
export type SpatialPathEntry =
  | {
      /** body the point moves with (builder index), -1 for the world */
      body: number;
      /** the point in that body's frame (the world frame for body -1) [m] */
      point: readonly number[];
    }
  | {
      /** a pulley: the next points form a new branch whose length counts 1/divisor */
      divisor: number;
    };

/**
 * a spatial tendon: length l = Σ over consecutive points of one branch ‖p₊ − p‖ / divisor (MuJoCo's
 * wrapping-free `<spatial>`), with optional limits, a spring and damping on l
 */
export interface SpatialTendonDesc {
  label?: string;
  path: readonly SpatialPathEntry[];
  /** limits on l (default −∞ / +∞: none) [m] */
  lower?: number;
  upper?: number;
  /** limit stiffness (default the builder's default limit_ke; Infinity = near-rigid) and damping */
  limit_ke?: number;
  limit_kd?: number;
  /** spring force −k·(l − l_s) outside the rest band [spring_lower, spring_upper] (default 0) [N/m] */
  stiffness?: number;
  /** the spring's rest band [m] (default [0, 0]) */
  spring_lower?: number;
  spring_upper?: number;
  /** damping force −d·l̇ (default 0) [N·s/m] */
  damping?: number;
}

/**
 * an actuator acting on a length L = gear·l(q): force f = gain·u + bias₀ + bias₁·L + bias₂·L̇ with
 * u the control clamped to its range and f clamped to the force range; generalized force gear·Jᵀf
 * (MuJoCo's general actuator with a fixed gain and an affine bias)
 */
export interface LengthActuatorDesc {
  label?: string;
  /** what l is */
  transmission: 'spatial_tendon' | 'fixed_tendon' | 'slider_crank';
  /** the builder's spatial or fixed tendon index (tendon transmissions) */
  tendon?: number;
  /** slider-crank: the crank pin (a point on a body, -1 world) and the slider's point and axis */
  crank_body?: number;
  crank_point?: readonly number[];
  slider_body?: number;
  slider_point?: readonly number[];
  /** the slider's axis in its body frame (normalized here) */
  slider_axis?: readonly number[];
  /** the connecting rod's length [m] */
  crank_length?: number;
  /** default 1 */
  gear?: number;
  /** force per unit control (default 1) */
  gain?: number;
  /** affine bias [b₀ [N], b₁ [N/m], b₂ [N·s/m]] (default 0) */
  bias?: readonly number[];
  /** control range (default unlimited) */
  ctrl_lower?: number;
  ctrl_upper?: number;
  /** force range (default unlimited) [N] */
  force_lower?: number;
  force_upper?: number;
  /** the control at the start (default 0) */
  ctrl0?: number;
}

/** a validated spatial tendon: one record per path point (pulleys folded into the segment scales) */
export interface SpatialTendonRec {
  label: string;
  bodies: number[];
  points: number[];
  /** per point: the weight of the segment to the next point (0 when a pulley or the end follows) */
  scales: number[];
  lower: number;
  upper: number;
  limit_ke: number;
  limit_kd: number;
  stiffness: number;
  spring_lower: number;
  spring_upper: number;
  damping: number;
}

/** a validated length actuator */
export interface LengthActuatorRec {
  label: string;
  type: number;
  tendon: number;
  crank_body: number;
  crank_point: number[];
  slider_body: number;
  slider_point: number[];
  slider_axis: number[];
  crank_length: number;
  gear: number;
  gain: number;
  bias: number[];
  ctrl_lower: number;
  ctrl_upper: number;
  force_lower: number;
  force_upper: number;
  ctrl0: number;
}

const finite = (path: string, v: number): number => {
  if (!Number.isFinite(v)) throw new ModelError(path, `not finite: ${v}`);
  return v;
};

function point3(path: string, p: readonly number[] | undefined): number[] {
  if (!p || p.length !== 3) throw new ModelError(path, 'expected 3 numbers');
  return p.map((x) => finite(path, x));
}

function range(path: string, lo: number, hi: number): void {
  if (Number.isNaN(lo) || Number.isNaN(hi) || lo === Infinity || hi === -Infinity || lo > hi)
    throw new ModelError(path, `limits must satisfy −∞ ≤ lower ≤ upper ≤ ∞; got [${lo}, ${hi}]`);
}

function nonNegative(path: string, v: number, mayBeInfinite = false): number {
  if (!(v >= 0) || (!mayBeInfinite && !Number.isFinite(v)))
    throw new ModelError(path, `must be ${mayBeInfinite ? '' : 'finite and '}≥ 0; got ${v}`);
  return v;
}

/** validates a spatial tendon over `nBodies` builder bodies (the `i`-th, for error paths) */
export function spatialTendonRec(
  desc: SpatialTendonDesc,
  i: number,
  nBodies: number,
  defaultLimitKe: number,
): SpatialTendonRec {
  const path = `spatial_tendons[${i}]`;
  const bodies: number[] = [];
  const points: number[] = [];
  const scales: number[] = [];
  let scale = 1;
  let branchPoints = 0;
  desc.path.forEach((e, k) => {
    const p = `${path}.path[${k}]`;
    if ('divisor' in e) {
      if (!(e.divisor > 0 && Number.isFinite(e.divisor)))
        throw new ModelError(`${p}.divisor`, `must be finite and > 0; got ${e.divisor}`);
      if (k === 0) throw new ModelError(p, 'a path cannot start with a pulley');
      if (scales.length > 0) scales[scales.length - 1] = 0;
      scale = 1 / e.divisor;
      branchPoints = 0;
      return;
    }
    if (!(Number.isInteger(e.body) && e.body >= -1 && e.body < nBodies))
      throw new ModelError(`${p}.body`, `unknown body ${e.body}`);
    bodies.push(e.body);
    points.push(...point3(`${p}.point`, e.point));
    if (scales.length > 0 && branchPoints > 0) scales[scales.length - 1] = scale;
    scales.push(0);
    branchPoints++;
  });
  if (!scales.some((s) => s > 0))
    throw new ModelError(`${path}.path`, 'a spatial tendon needs two consecutive points in one branch');
  const lower = desc.lower ?? -Infinity;
  const upper = desc.upper ?? Infinity;
  range(path, lower, upper);
  const spring_lower = finite(`${path}.spring_lower`, desc.spring_lower ?? 0);
  const spring_upper = finite(`${path}.spring_upper`, desc.spring_upper ?? spring_lower);
  if (spring_lower > spring_upper)
    throw new ModelError(`${path}.spring_lower`, `rest band [${spring_lower}, ${spring_upper}] is reversed`);
  return {
    label: desc.label ?? `spatial_tendon_${i}`,
    bodies,
    points,
    scales,
    lower,
    upper,
    limit_ke: nonNegative(`${path}.limit_ke`, desc.limit_ke ?? defaultLimitKe, true),
    limit_kd: nonNegative(`${path}.limit_kd`, desc.limit_kd ?? 0),
    stiffness: nonNegative(`${path}.stiffness`, desc.stiffness ?? 0),
    spring_lower,
    spring_upper,
    damping: nonNegative(`${path}.damping`, desc.damping ?? 0),
  };
}

/** validates a length actuator (the `i`-th) against the builder's counts */
export function lengthActuatorRec(
  desc: LengthActuatorDesc,
  i: number,
  counts: { bodies: number; spatial: number; fixed: number },
): LengthActuatorRec {
  const path = `length_actuators[${i}]`;
  const types = {
    spatial_tendon: ActuatorTransmission.SPATIAL_TENDON,
    fixed_tendon: ActuatorTransmission.FIXED_TENDON,
    slider_crank: ActuatorTransmission.SLIDER_CRANK,
  } as const;
  const type = types[desc.transmission] as number | undefined;
  if (type === undefined)
    throw new ModelError(
      `${path}.transmission`,
      `unknown '${String(desc.transmission)}' (allowed: ${Object.keys(types).join(', ')})`,
    );
  let tendon = -1;
  const body = (p: string, b: number | undefined): number => {
    if (!(b !== undefined && Number.isInteger(b) && b >= -1 && b < counts.bodies))
      throw new ModelError(p, `unknown body ${b}`);
    return b;
  };
  let crank_body = -1,
    slider_body = -1,
    crank_point = [0, 0, 0],
    slider_point = [0, 0, 0],
    slider_axis = [0, 0, 1],
    crank_length = 0;
  if (type === ActuatorTransmission.SLIDER_CRANK) {
    crank_body = body(`${path}.crank_body`, desc.crank_body);
    slider_body = body(`${path}.slider_body`, desc.slider_body);
    crank_point = point3(`${path}.crank_point`, desc.crank_point);
    slider_point = point3(`${path}.slider_point`, desc.slider_point);
    const a = point3(`${path}.slider_axis`, desc.slider_axis);
    const n = Math.hypot(a[0], a[1], a[2]);
    if (!(n > 0)) throw new ModelError(`${path}.slider_axis`, 'must not be zero');
    slider_axis = a.map((x) => x / n);
    crank_length = desc.crank_length ?? NaN;
    if (!(crank_length > 0 && Number.isFinite(crank_length)))
      throw new ModelError(`${path}.crank_length`, `must be finite and > 0; got ${desc.crank_length}`);
  } else {
    const n = type === ActuatorTransmission.SPATIAL_TENDON ? counts.spatial : counts.fixed;
    tendon = desc.tendon ?? -1;
    if (!(Number.isInteger(tendon) && tendon >= 0 && tendon < n))
      throw new ModelError(`${path}.tendon`, `unknown ${desc.transmission.replace('_', ' ')} ${desc.tendon}`);
  }
  const bias = [0, 1, 2].map((k) => finite(`${path}.bias[${k}]`, desc.bias?.[k] ?? 0));
  const ctrl_lower = desc.ctrl_lower ?? -Infinity,
    ctrl_upper = desc.ctrl_upper ?? Infinity;
  range(`${path}.ctrl`, ctrl_lower, ctrl_upper);
  const force_lower = desc.force_lower ?? -Infinity,
    force_upper = desc.force_upper ?? Infinity;
  range(`${path}.force`, force_lower, force_upper);
  return {
    label: desc.label ?? `actuator_${i}`,
    type,
    tendon,
    crank_body,
    crank_point,
    slider_body,
    slider_point,
    slider_axis,
    crank_length,
    gear: finite(`${path}.gear`, desc.gear ?? 1),
    gain: finite(`${path}.gain`, desc.gain ?? 1),
    bias,
    ctrl_lower,
    ctrl_upper,
    force_lower,
    force_upper,
    ctrl0: finite(`${path}.ctrl0`, desc.ctrl0 ?? 0),
  };
}

/** the fields of SapModel this module fills */
export type TransmissionArrays = Pick<
  SapModel,
  | 'spatial_count'
  | 'spatial_world'
  | 'spatial_adr'
  | 'spatial_body'
  | 'spatial_point'
  | 'spatial_scale'
  | 'spatial_lower'
  | 'spatial_upper'
  | 'spatial_limit_ke'
  | 'spatial_limit_kd'
  | 'spatial_stiffness'
  | 'spatial_spring_lower'
  | 'spatial_spring_upper'
  | 'spatial_damping'
  | 'spatial_label'
  | 'actuator_count'
  | 'actuator_world'
  | 'actuator_type'
  | 'actuator_tendon'
  | 'actuator_crank_body'
  | 'actuator_crank_point'
  | 'actuator_slider_body'
  | 'actuator_slider_point'
  | 'actuator_slider_axis'
  | 'actuator_crank_length'
  | 'actuator_gear'
  | 'actuator_gain'
  | 'actuator_bias'
  | 'actuator_ctrl_lower'
  | 'actuator_ctrl_upper'
  | 'actuator_force_lower'
  | 'actuator_force_upper'
  | 'actuator_ctrl0'
  | 'actuator_label'
>;

/** zeroed transmission arrays for nw worlds */
export function transmissionArrays(
  spatial: readonly SpatialTendonRec[],
  actuators: readonly LengthActuatorRec[],
  nw: number,
): TransmissionArrays {
  const n = spatial.length * nw;
  const p = spatial.reduce((s, t) => s + t.bodies.length, 0) * nw;
  const a = actuators.length * nw;
  return {
    spatial_count: n,
    spatial_world: new Int32Array(n),
    spatial_adr: new Int32Array(n + 1),
    spatial_body: new Int32Array(p),
    spatial_point: new Float64Array(p * 3),
    spatial_scale: new Float64Array(p),
    spatial_lower: new Float64Array(n),
    spatial_upper: new Float64Array(n),
    spatial_limit_ke: new Float64Array(n),
    spatial_limit_kd: new Float64Array(n),
    spatial_stiffness: new Float64Array(n),
    spatial_spring_lower: new Float64Array(n),
    spatial_spring_upper: new Float64Array(n),
    spatial_damping: new Float64Array(n),
    spatial_label: new Array<string>(n),
    actuator_count: a,
    actuator_world: new Int32Array(a),
    actuator_type: new Int32Array(a),
    actuator_tendon: new Int32Array(a),
    actuator_crank_body: new Int32Array(a),
    actuator_crank_point: new Float64Array(a * 3),
    actuator_slider_body: new Int32Array(a),
    actuator_slider_point: new Float64Array(a * 3),
    actuator_slider_axis: new Float64Array(a * 3),
    actuator_crank_length: new Float64Array(a),
    actuator_gear: new Float64Array(a),
    actuator_gain: new Float64Array(a),
    actuator_bias: new Float64Array(a * 3),
    actuator_ctrl_lower: new Float64Array(a),
    actuator_ctrl_upper: new Float64Array(a),
    actuator_force_lower: new Float64Array(a),
    actuator_force_upper: new Float64Array(a),
    actuator_ctrl0: new Float64Array(a),
    actuator_label: new Array<string>(a),
  };
}

/**
 * Writes world w's copies of the spatial tendons and length actuators. `bodyIndex` maps a builder
 * body to its model index in world w (-1 stays the world); world-frame points move by the world's
 * offset `off`; `fixedTendons` is the builder's fixed-tendon count (world w's start w·fixedTendons).
 */
export function writeTransmissions(
  m: TransmissionArrays,
  w: number,
  bodyIndex: (b: number) => number,
  off: readonly number[],
  fixedTendons: number,
  spatial: readonly SpatialTendonRec[],
  actuators: readonly LengthActuatorRec[],
): void {
  const ns = spatial.length;
  const worldPoint = (out: Float64Array, o: number, b: number, p: readonly number[]): void => {
    for (let k = 0; k < 3; k++) out[o + k] = p[k] + (b < 0 ? off[k] : 0);
  };
  spatial.forEach((t, k) => {
    const T = w * ns + k;
    let e = m.spatial_adr[T];
    t.bodies.forEach((b, i) => {
      m.spatial_body[e] = bodyIndex(b);
      worldPoint(m.spatial_point, e * 3, b, t.points.slice(i * 3, i * 3 + 3));
      m.spatial_scale[e] = t.scales[i];
      e++;
    });
    m.spatial_adr[T + 1] = e;
    m.spatial_world[T] = w;
    m.spatial_lower[T] = t.lower;
    m.spatial_upper[T] = t.upper;
    m.spatial_limit_ke[T] = t.limit_ke;
    m.spatial_limit_kd[T] = t.limit_kd;
    m.spatial_stiffness[T] = t.stiffness;
    m.spatial_spring_lower[T] = t.spring_lower;
    m.spatial_spring_upper[T] = t.spring_upper;
    m.spatial_damping[T] = t.damping;
    (m.spatial_label as string[])[T] = t.label;
  });
  const na = actuators.length;
  actuators.forEach((a, k) => {
    const A = w * na + k;
    m.actuator_world[A] = w;
    m.actuator_type[A] = a.type;
    m.actuator_tendon[A] =
      a.tendon < 0 ? -1 : a.tendon + w * (a.type === ActuatorTransmission.SPATIAL_TENDON ? ns : fixedTendons);
    m.actuator_crank_body[A] = a.crank_body < 0 ? -1 : bodyIndex(a.crank_body);
    m.actuator_slider_body[A] = a.slider_body < 0 ? -1 : bodyIndex(a.slider_body);
    worldPoint(m.actuator_crank_point, A * 3, a.crank_body, a.crank_point);
    worldPoint(m.actuator_slider_point, A * 3, a.slider_body, a.slider_point);
    m.actuator_slider_axis.set(a.slider_axis, A * 3);
    m.actuator_crank_length[A] = a.crank_length;
    m.actuator_gear[A] = a.gear;
    m.actuator_gain[A] = a.gain;
    m.actuator_bias.set(a.bias, A * 3);
    m.actuator_ctrl_lower[A] = a.ctrl_lower;
    m.actuator_ctrl_upper[A] = a.ctrl_upper;
    m.actuator_force_lower[A] = a.force_lower;
    m.actuator_force_upper[A] = a.force_upper;
    m.actuator_ctrl0[A] = a.ctrl0;
    (m.actuator_label as string[])[A] = a.label;
  });
}
