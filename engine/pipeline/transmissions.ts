/**
 * Length transmissions: spatial tendons and the actuators that act through a length (SapModel
 * `spatial_*`, `actuator_*`).
 *
 * - Spatial tendon: l = Σₑ sₑ·‖p(e+1) − p(e)‖ over its path points (sₑ = 1/divisor of the branch,
 *   0 where a pulley starts a new branch), points in the world from the bodies' poses. Its Jacobian
 *   J = ∂l/∂v = Σₑ sₑ·uₑᵀ(J_p(e+1) − J_p(e)), uₑ the segment's unit vector and J_p the world
 *   point Jacobian Σ_d (s_v + s_ω × p) over the DOFs on the body's path to the root.
 * - Slider-crank (MuJoCo's definition): with the crank pin c, the slider's point s and unit axis a
 *   and the rod length r, v = c − s, the length is l = a·v − √((a·v)² + r² − v·v) (l = a·v where the
 *   root is imaginary) and J = (∂l/∂v)ᵀJ_v + (∂l/∂a)ᵀJ_a, J_a = ω × a.
 * - Fixed tendon (as an actuator's length): l = Σ coef·q + offset, J = coef on the joints' DOFs.
 *
 * Forces are explicit generalized forces of the free motion, τ += Jᵀf: a spatial tendon's spring
 * −k·(l − l_s) outside its rest band and damping −d·l̇, an actuator's gear·(gain·u + b₀ + b₁·L +
 * b₂·L̇) with L = gear·l (MuJoCo's passive and actuator forces). A spatial tendon's limits are SAP
 * tendon-limit constraints with the row J (as for fixed tendons, drake_sap_notes §2.9).
 */
import type { KinematicsData } from '../kinematics';
import { transformPoint } from '../math';
import { ActuatorTransmission, type SapModel } from '../model';
import { NEAR_RIGID_BETA } from '../sap/constraints/common';
import type { PackedSapProblem } from '../sap/packed_problem';
import { limitSidesInWindow } from './joint_constraints';

const p0 = new Float64Array(3);
const p1 = new Float64Array(3);
const ax = new Float64Array(3);

/** out[oo..] ← world position of the point `P[po..]` of body b (-1: P is a world point) */
function worldPoint(kin: KinematicsData, b: number, P: Float64Array, po: number, out: Float64Array): void {
  if (b < 0) {
    out[0] = P[po];
    out[1] = P[po + 1];
    out[2] = P[po + 2];
    return;
  }
  const R = kin.body_R,
    X = kin.body_X,
    r = b * 9,
    x = b * 7;
  const px = P[po],
    py = P[po + 1],
    pz = P[po + 2];
  out[0] = X[x] + R[r] * px + R[r + 1] * py + R[r + 2] * pz;
  out[1] = X[x + 1] + R[r + 3] * px + R[r + 4] * py + R[r + 5] * pz;
  out[2] = X[x + 2] + R[r + 6] * px + R[r + 7] * py + R[r + 8] * pz;
}

/** J[d] += g·(s_v + s_ω × x) for every DOF d moving body b (the point x moving with b, world) */
function addPointJacobian(
  m: SapModel,
  kin: KinematicsData,
  b: number,
  x: Float64Array,
  gx: number,
  gy: number,
  gz: number,
  J: Float64Array,
): void {
  const S = kin.dof_S;
  for (let a = b; a >= 0; a = m.joint_parent[a]) {
    for (let d = m.joint_qd_start[a]; d < m.joint_qd_start[a + 1]; d++) {
      const s = d * 6;
      const vx = S[s + 3] + S[s + 1] * x[2] - S[s + 2] * x[1];
      const vy = S[s + 4] + S[s + 2] * x[0] - S[s] * x[2];
      const vz = S[s + 5] + S[s] * x[1] - S[s + 1] * x[0];
      J[d] += gx * vx + gy * vy + gz * vz;
    }
  }
}

/** J[d] += c·s_ω for every DOF d moving body b */
function addAngularJacobian(
  m: SapModel,
  kin: KinematicsData,
  b: number,
  cx: number,
  cy: number,
  cz: number,
  J: Float64Array,
): void {
  const S = kin.dof_S;
  for (let a = b; a >= 0; a = m.joint_parent[a]) {
    for (let d = m.joint_qd_start[a]; d < m.joint_qd_start[a + 1]; d++) {
      const s = d * 6;
      J[d] += cx * S[s] + cy * S[s + 1] + cz * S[s + 2];
    }
  }
}

/**
 * Length of spatial tendon t [m]; with `J` (joint_dof_count, internal velocity order) also its
 * Jacobian ∂l/∂v, written over its world's DOFs (zeroed first). Needs forward kinematics in `kin`.
 */
export function spatialTendonLength(
  m: SapModel,
  kin: KinematicsData,
  t: number,
  J: Float64Array | null,
): number {
  const w = m.spatial_world[t];
  if (J) J.fill(0, m.world_dof_start[w], m.world_dof_start[w + 1]);
  let l = 0;
  const P = m.spatial_point;
  for (let e = m.spatial_adr[t]; e < m.spatial_adr[t + 1] - 1; e++) {
    const s = m.spatial_scale[e];
    if (s === 0) continue;
    const b0 = m.spatial_body[e],
      b1 = m.spatial_body[e + 1];
    worldPoint(kin, b0, P, e * 3, p0);
    worldPoint(kin, b1, P, e * 3 + 3, p1);
    const dx = p1[0] - p0[0],
      dy = p1[1] - p0[1],
      dz = p1[2] - p0[2];
    const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
    l += s * len;
    if (!J || !(len > 0) || b0 === b1) continue;
    const g = s / len;
    if (b1 >= 0) addPointJacobian(m, kin, b1, p1, g * dx, g * dy, g * dz, J);
    if (b0 >= 0) addPointJacobian(m, kin, b0, p0, -g * dx, -g * dy, -g * dz, J);
  }
  return l;
}

/**
 * Length l of actuator a's transmission, before its gear [m or rad]; with `J` also ∂l/∂v over its
 * world's DOFs (zeroed first). Needs forward kinematics at `q` in `kin`.
 */
export function actuatorTransmissionLength(
  m: SapModel,
  kin: KinematicsData,
  q: Float64Array,
  a: number,
  J: Float64Array | null,
): number {
  const type = m.actuator_type[a];
  const t = m.actuator_tendon[a];
  if (type === ActuatorTransmission.SPATIAL_TENDON) return spatialTendonLength(m, kin, t, J);
  const w = m.actuator_world[a];
  if (J) J.fill(0, m.world_dof_start[w], m.world_dof_start[w + 1]);
  if (type === ActuatorTransmission.FIXED_TENDON) {
    let l = m.tendon_offset[t];
    for (let e = m.tendon_adr[t]; e < m.tendon_adr[t + 1]; e++) {
      const j = m.tendon_joint[e];
      l += m.tendon_coef[e] * q[m.joint_q_start[j]];
      if (J) J[m.joint_qd_start[j]] += m.tendon_coef[e];
    }
    return l;
  }
  // slider-crank
  const bc = m.actuator_crank_body[a],
    bs = m.actuator_slider_body[a];
  worldPoint(kin, bc, m.actuator_crank_point, a * 3, p0);
  worldPoint(kin, bs, m.actuator_slider_point, a * 3, p1);
  const A = m.actuator_slider_axis;
  if (bs < 0) {
    ax[0] = A[a * 3];
    ax[1] = A[a * 3 + 1];
    ax[2] = A[a * 3 + 2];
  } else {
    const R = kin.body_R,
      r = bs * 9,
      x = A[a * 3],
      y = A[a * 3 + 1],
      z = A[a * 3 + 2];
    ax[0] = R[r] * x + R[r + 1] * y + R[r + 2] * z;
    ax[1] = R[r + 3] * x + R[r + 4] * y + R[r + 5] * z;
    ax[2] = R[r + 6] * x + R[r + 7] * y + R[r + 8] * z;
  }
  const vx = p0[0] - p1[0],
    vy = p0[1] - p1[1],
    vz = p0[2] - p1[2];
  const rod = m.actuator_crank_length[a];
  const av = ax[0] * vx + ax[1] * vy + ax[2] * vz;
  const det = av * av + rod * rod - (vx * vx + vy * vy + vz * vz);
  const sdet = det > 0 ? Math.sqrt(det) : 0;
  const l = av - sdet;
  if (!J) return l;
  // ∂l/∂v and ∂l/∂a (where the root is imaginary: l = a·v, ∂l/∂v = a, ∂l/∂a = v)
  const k = sdet > 0 ? 1 - av / sdet : 1;
  const inv = sdet > 0 ? 1 / sdet : 0;
  const gx = k * ax[0] + inv * vx,
    gy = k * ax[1] + inv * vy,
    gz = k * ax[2] + inv * vz;
  if (bc >= 0) addPointJacobian(m, kin, bc, p0, gx, gy, gz, J);
  if (bs >= 0) {
    addPointJacobian(m, kin, bs, p1, -gx, -gy, -gz, J);
    // (∂l/∂a)·(ω × a) = ω·(a × ∂l/∂a), ∂l/∂a = k·v
    const hx = k * vx,
      hy = k * vy,
      hz = k * vz;
    addAngularJacobian(
      m,
      kin,
      bs,
      ax[1] * hz - ax[2] * hy,
      ax[2] * hx - ax[0] * hz,
      ax[0] * hy - ax[1] * hx,
      J,
    );
  }
  return l;
}

/** J·v over world w's DOFs */
function rate(m: SapModel, w: number, J: Float64Array, v: Float64Array): number {
  let s = 0;
  for (let d = m.world_dof_start[w]; d < m.world_dof_start[w + 1]; d++) s += J[d] * v[d];
  return s;
}

/** tau += f·J over world w's DOFs */
function addForce(m: SapModel, w: number, J: Float64Array, f: number, tau: Float64Array): void {
  if (f === 0) return;
  for (let d = m.world_dof_start[w]; d < m.world_dof_start[w + 1]; d++) tau[d] += f * J[d];
}

/**
 * the force of actuator a along its length L = gear·l, at L and L̇ (control clamped to its range,
 * the force to its force range) [N or N·m]
 */
export function actuatorForce(m: SapModel, a: number, ctrl: number, L: number, Ldot: number): number {
  const u = Math.min(Math.max(ctrl, m.actuator_ctrl_lower[a]), m.actuator_ctrl_upper[a]);
  const b = a * 3;
  const f =
    m.actuator_gain[a] * u + m.actuator_bias[b] + m.actuator_bias[b + 1] * L + m.actuator_bias[b + 2] * Ldot;
  return Math.min(Math.max(f, m.actuator_force_lower[a]), m.actuator_force_upper[a]);
}

/**
 * Adds the spatial tendons' spring and damping forces and the length actuators' forces to the
 * internal generalized forces `tau` (explicit, see the module comment), allocation-free. `v` holds
 * internal velocities, `J` is joint_dof_count scratch. Needs forward kinematics at `q` in `kin`.
 */
export function applyTransmissionForces(
  m: SapModel,
  kin: KinematicsData,
  q: Float64Array,
  v: Float64Array,
  actuator_ctrl: Float64Array,
  tau: Float64Array,
  J: Float64Array,
): void {
  for (let t = 0; t < m.spatial_count; t++) {
    const k = m.spatial_stiffness[t],
      c = m.spatial_damping[t];
    if (k === 0 && c === 0) continue;
    const w = m.spatial_world[t];
    const l = spatialTendonLength(m, kin, t, J);
    const lo = m.spatial_spring_lower[t],
      hi = m.spatial_spring_upper[t];
    let f = l > hi ? -k * (l - hi) : l < lo ? -k * (l - lo) : 0;
    if (c !== 0) f -= c * rate(m, w, J, v);
    addForce(m, w, J, f, tau);
  }
  for (let a = 0; a < m.actuator_count; a++) {
    const w = m.actuator_world[a];
    const gear = m.actuator_gear[a];
    const l = actuatorTransmissionLength(m, kin, q, a, J);
    const f = actuatorForce(m, a, actuator_ctrl[a], gear * l, gear * rate(m, w, J, v));
    addForce(m, w, J, gear * f, tau);
  }
}

/**
 * Appends world w's spatial-tendon limits to `pp` (its cliques as `cliqueIndex` maps the trees) as
 * SAP tendon-limit constraints (k = limit_ke, τ = limit_kd/limit_ke, β = 0.1; a side only inside
 * the window l₀ ± 2·dt·max(|l̇₀|, |l̇*|)), allocation-free. `v`, `v_star`: internal velocities at the
 * step's start and of the free motion; `J`: joint_dof_count scratch; forward kinematics in `kin`.
 */
export function packSpatialTendonLimits(
  m: SapModel,
  kin: KinematicsData,
  w: number,
  v: Float64Array,
  v_star: Float64Array,
  dt: number,
  cliqueIndex: Int32Array,
  pp: PackedSapProblem,
  J: Float64Array,
): void {
  for (let t = 0; t < m.spatial_count; t++) {
    const ke = m.spatial_limit_ke[t];
    if (m.spatial_world[t] !== w || !(ke > 0)) continue;
    const lo = m.spatial_lower[t],
      hi = m.spatial_upper[t];
    if (!(Number.isFinite(lo) || Number.isFinite(hi))) continue;
    const l0 = spatialTendonLength(m, kin, t, J);
    const r = Math.max(Math.abs(rate(m, w, J, v)), Math.abs(rate(m, w, J, v_star)));
    const s = limitSidesInWindow(lo, hi, l0, r, dt);
    if (!(Number.isFinite(s[0]) || Number.isFinite(s[1]))) continue;
    const tau_d = Number.isFinite(ke) ? m.spatial_limit_kd[t] / ke : 0;
    pp.beginTendon(l0, s[0], s[1], ke, tau_d, NEAR_RIGID_BETA, NaN);
    for (let tree = m.world_tree_start[w]; tree < m.world_tree_start[w + 1]; tree++) {
      const d0 = m.tree_dof_start[tree];
      for (let d = d0; d < m.tree_dof_start[tree + 1]; d++)
        if (J[d] !== 0) pp.addTendonEntry(cliqueIndex[tree], d - d0, J[d]);
    }
  }
}

/**
 * the potential energy ½·k·e² of spatial tendon t's spring, e the length's distance from its rest
 * band, with the bodies at the world poses `body_q` (body_count × 7, a state's) [J]
 */
export function spatialTendonSpringEnergy(m: SapModel, body_q: Float64Array, t: number): number {
  const k = m.spatial_stiffness[t];
  if (k === 0) return 0;
  let l = 0;
  const P = m.spatial_point;
  for (let e = m.spatial_adr[t]; e < m.spatial_adr[t + 1] - 1; e++) {
    const s = m.spatial_scale[e];
    if (s === 0) continue;
    const b0 = m.spatial_body[e],
      b1 = m.spatial_body[e + 1];
    if (b0 < 0) for (let c = 0; c < 3; c++) p0[c] = P[e * 3 + c];
    else transformPoint(body_q, b0 * 7, P, e * 3, p0, 0);
    if (b1 < 0) for (let c = 0; c < 3; c++) p1[c] = P[e * 3 + 3 + c];
    else transformPoint(body_q, b1 * 7, P, e * 3 + 3, p1, 0);
    l += s * Math.hypot(p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]);
  }
  const lo = m.spatial_spring_lower[t],
    hi = m.spatial_spring_upper[t];
  const x = l > hi ? l - hi : l < lo ? l - lo : 0;
  return 0.5 * k * x * x;
}
