/**
 * Ball-joint cone limits (ConeMode): one unilateral SAP row per limited ball joint, the tendon
 * constraint with a state-dependent row (drake_sap_notes §2.9: limit cost, impulse and Hessian).
 *
 * The ball's internal velocity is ω of the child joint frame M relative to the parent joint frame F,
 * expressed in F; R = R_FM is the joint's rotation (its quaternion in joint_q, (x, y, z, w)).
 * - ROTATION: x = θ = 2·atan2(|u|, |w|) ∈ [0, π], the rotation angle of the quaternion (w, u); its
 *   rate is θ̇ = aᵀω with a the unit rotation axis sign(w)·u/|u| (R·a = a: the same in F and M).
 * - SWING: x = φ = atan2(|e × Re|, e·Re), the angle between the joint axis e in F and in M (R e);
 *   φ̇ = aᵀω with a = (e × Re)/|e × Re|, the swing's axis (⊥ e). The limit is the elliptical cone's
 *   radius in that direction, r = 1/√((a·b₂/c₀)² + (a·b₁/c₁)²), with b₁ the next basis axis after
 *   e's largest component made ⊥ e, b₂ = e × b₁ (a swing toward b₁ turns about b₂): r = c₀ toward
 *   b₁ and c₁ toward b₂; the radius is held for the step.
 * x ≤ limit with k = limit_ke, τ = limit_kd/limit_ke of the joint's first DOF, β = 0.1; added only
 * inside the window x₀ + 2·dt·max(|aᵀv₀|, |aᵀv*|) (a violated limit always is). At x = 0 the row has
 * no direction and is not added (the limit, > 0, is then not reached within the step's window
 * unless the joint spins faster than limit/(2·dt)).
 */
import { quatRotate } from '../math';
import { ConeMode, JointType, type SapModel } from '../model';
import { NEAR_RIGID_BETA } from '../sap/constraints/common';
import type { PackedSapProblem } from '../sap/packed_problem';
import { limitSidesInWindow } from './joint_constraints';

/** below this |sin| of the angle the row's direction is undefined and no row is added */
const MIN_SIN = 1e-12;

const BASIS = new Float64Array(6);
const QUAT = new Float64Array(4);
const RE = new Float64Array(3);

/**
 * The swing cone's basis of a unit axis e into out[o ..o+6) = (b₁, b₂): b₁ the basis axis after e's
 * largest component (x→y, y→z, z→x) made ⊥ e and unit, b₂ = e × b₁.
 */
export function swingBasis(ex: number, ey: number, ez: number, out: Float64Array, o: number): void {
  const axx = Math.abs(ex),
    ayy = Math.abs(ey),
    azz = Math.abs(ez);
  const k = axx >= ayy && axx >= azz ? 0 : ayy >= azz ? 1 : 2;
  const nk = (k + 1) % 3;
  const ek = nk === 0 ? ex : nk === 1 ? ey : ez;
  let b1x = (nk === 0 ? 1 : 0) - ek * ex,
    b1y = (nk === 1 ? 1 : 0) - ek * ey,
    b1z = (nk === 2 ? 1 : 0) - ek * ez;
  const bl = Math.hypot(b1x, b1y, b1z);
  b1x /= bl;
  b1y /= bl;
  b1z /= bl;
  out[o] = b1x;
  out[o + 1] = b1y;
  out[o + 2] = b1z;
  out[o + 3] = ey * b1z - ez * b1y;
  out[o + 4] = ez * b1x - ex * b1z;
  out[o + 5] = ex * b1y - ey * b1x;
}

/** the row of {@link coneRow}: x₀, the limit, and the unit axis a (in F) */
export const CONE_ROW = new Float64Array(5);

/**
 * The limited angle of ball joint j at coordinates q, its limit and the unit row a with ẋ = aᵀω (ω in
 * the parent joint frame), into {@link CONE_ROW} = [x₀, limit, a_x, a_y, a_z]. Returns false when the
 * joint has no cone limit or the row has no direction (x₀ = 0).
 */
export function coneRow(m: SapModel, j: number, q: Float64Array): boolean {
  const mode = m.joint_cone_mode[j];
  if (mode === ConeMode.NONE || m.joint_type[j] !== JointType.BALL) return false;
  const o = m.joint_q_start[j];
  const n = Math.hypot(q[o], q[o + 1], q[o + 2], q[o + 3]) || 1;
  let ux = q[o] / n,
    uy = q[o + 1] / n,
    uz = q[o + 2] / n,
    w = q[o + 3] / n;
  if (w < 0) {
    ux = -ux;
    uy = -uy;
    uz = -uz;
    w = -w;
  }
  const out = CONE_ROW;
  if (mode === ConeMode.ROTATION) {
    const s = Math.hypot(ux, uy, uz);
    if (s < MIN_SIN) return false;
    out[0] = 2 * Math.atan2(s, w);
    out[1] = m.joint_cone_limit[2 * j];
    out[2] = ux / s;
    out[3] = uy / s;
    out[4] = uz / s;
    return true;
  }
  // swing: Re, the joint axis turned by the joint's rotation
  const ex = m.joint_axis[3 * j],
    ey = m.joint_axis[3 * j + 1],
    ez = m.joint_axis[3 * j + 2];
  const Q = QUAT;
  Q[0] = ux;
  Q[1] = uy;
  Q[2] = uz;
  Q[3] = w;
  quatRotate(Q, 0, m.joint_axis, 3 * j, RE, 0);
  const rx = RE[0],
    ry = RE[1],
    rz = RE[2];
  const cx = ey * rz - ez * ry,
    cy = ez * rx - ex * rz,
    cz = ex * ry - ey * rx;
  const s = Math.hypot(cx, cy, cz);
  if (s < MIN_SIN) return false;
  const ax = cx / s,
    ay = cy / s,
    az = cz / s;
  out[0] = Math.atan2(s, ex * rx + ey * ry + ez * rz);
  const B = BASIS;
  swingBasis(ex, ey, ez, B, 0);
  const p = (ax * B[3] + ay * B[4] + az * B[5]) / m.joint_cone_limit[2 * j];
  const r = (ax * B[0] + ay * B[1] + az * B[2]) / m.joint_cone_limit[2 * j + 1];
  const inv = Math.hypot(p, r);
  out[1] = inv > 0 ? 1 / inv : Infinity;
  out[2] = ax;
  out[3] = ay;
  out[4] = az;
  return true;
}

/**
 * Appends the cone limits of world w's ball joints to `pp` (after its tendons), allocation-free.
 *
 * @param q       joint coordinates at the start of the step
 * @param v       velocities at the start of the step (internal convention, per DOF)
 * @param v_star  free-motion velocities (per DOF)
 */
export function packConeLimits(
  m: SapModel,
  w: number,
  q: Float64Array,
  v: Float64Array,
  v_star: Float64Array,
  dt: number,
  cliqueIndex: Int32Array,
  pp: PackedSapProblem,
): void {
  for (let j = m.world_joint_start[w]; j < m.world_joint_start[w + 1]; j++) {
    const d = m.joint_qd_start[j];
    const ke = m.joint_limit_ke[d];
    if (!(ke > 0) || !coneRow(m, j, q)) continue;
    const r = CONE_ROW;
    const rate = Math.max(
      Math.abs(r[2] * v[d] + r[3] * v[d + 1] + r[4] * v[d + 2]),
      Math.abs(r[2] * v_star[d] + r[3] * v_star[d + 1] + r[4] * v_star[d + 2]),
    );
    const s = limitSidesInWindow(-Infinity, r[1], r[0], rate, dt);
    if (!Number.isFinite(s[1])) continue;
    const tau_d = Number.isFinite(ke) ? m.joint_limit_kd[d] / ke : 0;
    pp.beginTendon(r[0], -Infinity, s[1], ke, tau_d, NEAR_RIGID_BETA, NaN);
    const t = m.joint_tree[j];
    const c = cliqueIndex[t];
    const dof = d - m.tree_dof_start[t];
    for (let k = 0; k < 3; k++) pp.addTendonEntry(c, dof + k, r[2 + k]);
  }
}
