/**
 * Joint limit and PD-drive constraints (SPEC §3.3, drake_sap_notes §2.2–2.3).
 *
 * Limits (1-DOF joints with limit_ke > 0): k = limit_ke, τ_d = limit_kd/limit_ke, β = 0.1; a side is
 * added only inside the window q₀ ± 2·dt·max(|v₀|, |v*|) (a violated side is always inside).
 * PD drives (1-DOF joints with target_ke or target_kd > 0): implicit PD with the effort limit on PD +
 * feed-forward together; the feed-forward of driven DOFs enters here, not the free motion.
 * Dry friction (1-DOF joints with a finite joint_friction > 0; Drake's SapJointFrictionConstraint,
 * σ = the solver option joint_friction_sigma, default 1e-3): after the DOF's drive.
 * On free and ball joints a drive acts as a velocity drive (kd only) on the internal DOF: angular
 * DOFs are ω (world for free joints, parent frame for ball); the linear DOFs of a free joint are
 * the velocity of the joint frame's origin. Position gains have no meaning for quaternion
 * coordinates and are ignored there.
 * Acceleration drives (`joint_drive_acceleration`, UsdPhysics / PhysX `physics:type =
 * "acceleration"`): the gains are per unit inertia, kp = ke·M_dd and kd = kd·M_dd with M_dd the
 * DOF's effective inertia at q_n (the diagonal of the joint-space mass matrix, armature included:
 * A_dd − dt·damping_d of the free-motion matrix A = M + dt·D), so the drive's settling does not
 * depend on the link's inertia.
 */
import { publicDofIndex } from '../kinematics';
import { JointType, type SapModel } from '../model';
import type { SapControl } from '../state';
import { NEAR_RIGID_BETA } from '../sap/constraints/common';
import type { PackedSapProblem } from '../sap/packed_problem';
import type { SapConstraintSpec } from '../sap/problem';

const LIMIT_WINDOW_FACTOR = 2;
const sides = new Float64Array(2);

/**
 * The sides of a limit [lower, upper] that a step adds: each one inside the window
 * x₀ ± 2·dt·rate (a violated side always is), the others −∞ / +∞. Returns a shared scratch array,
 * valid until the next call (allocation-free).
 *
 * @param x0    the limited quantity at the start of the step (joint coordinate, tendon length)
 * @param rate  max(|ẋ₀|, |ẋ*|), its rate at the start of the step and in the free motion
 */
export function limitSidesInWindow(
  lower: number,
  upper: number,
  x0: number,
  rate: number,
  dt: number,
): Float64Array {
  const window = LIMIT_WINDOW_FACTOR * dt * rate;
  sides[0] = lower > x0 - window ? lower : -Infinity;
  sides[1] = upper < x0 + window ? upper : Infinity;
  return sides;
}

/** true when DOF d carries a PD drive */
export function hasDrive(m: SapModel, d: number): boolean {
  return m.joint_target_ke[d] > 0 || m.joint_target_kd[d] > 0;
}

/**
 * The factor of DOF d's drive gains: 1 for a force drive; M_dd for an acceleration drive, from the
 * tree's free-motion matrix A (nv × nv, row-major, `local` the DOF's index in the tree).
 *
 * @param damping  the DOF's joint damping (A holds M + dt·damping on the diagonal)
 */
export function driveGainScale(
  m: SapModel,
  d: number,
  A: Float64Array | undefined,
  nv: number,
  local: number,
  damping: number,
  dt: number,
): number {
  if (m.joint_drive_acceleration[d] === 0) return 1;
  if (!A) throw new Error(`acceleration drive on DOF ${d} needs the tree's mass matrix`);
  return Math.max(A[local * nv + local] - dt * damping, 0);
}

/** true when 1-DOF joint DOF d carries dry friction (a finite bound > 0) */
export function hasJointFriction(m: SapModel, d: number): boolean {
  const f = m.joint_friction[d];
  return f > 0 && f < Infinity;
}

/** appends limit, PD and joint-friction constraints of the joints [j0, j1) */
export function buildJointConstraints(
  m: SapModel,
  j0: number,
  j1: number,
  q: Float64Array,
  v: Float64Array,
  v_star: Float64Array,
  control: SapControl,
  dt: number,
  cliqueIndex: Int32Array,
  out: SapConstraintSpec[],
  treeA?: readonly Float64Array[],
): void {
  for (let j = j0; j < j1; j++) {
    const type = m.joint_type[j];
    if (type === JointType.FREE || type === JointType.BALL) {
      const t = m.joint_tree[j];
      const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
      for (let d = m.joint_qd_start[j]; d < m.joint_qd_start[j + 1]; d++) {
        const pub = publicDofIndex(m, j, d - m.joint_qd_start[j]);
        if (!(m.joint_target_kd[pub] > 0)) continue;
        const g = driveGainScale(m, pub, treeA?.[t], nv, d - m.tree_dof_start[t], m.joint_damping[pub], dt);
        out.push({
          kind: 'pd',
          clique: cliqueIndex[t],
          dof: d - m.tree_dof_start[t],
          q0: 0,
          qd: 0,
          vd: control.joint_target_vel[pub],
          kp: 0,
          kd: g * m.joint_target_kd[pub],
          effort_limit: m.joint_effort_limit[pub],
          u0: 0,
        });
      }
      continue;
    }
    if (type !== JointType.REVOLUTE && type !== JointType.PRISMATIC) continue;
    const d = m.joint_qd_start[j];
    const t = m.joint_tree[j];
    const clique = cliqueIndex[t];
    const dof = d - m.tree_dof_start[t];
    const q0 = q[m.joint_q_start[j]];
    // limit
    const ke = m.joint_limit_ke[d];
    if (ke > 0) {
      const rate = Math.max(Math.abs(v[d]), Math.abs(v_star[d]));
      const s = limitSidesInWindow(m.joint_limit_lower[d], m.joint_limit_upper[d], q0, rate, dt);
      if (Number.isFinite(s[0]) || Number.isFinite(s[1])) {
        out.push({
          kind: 'limit',
          clique,
          dof,
          q0,
          lower: s[0],
          upper: s[1],
          stiffness: ke,
          tau_d: m.joint_limit_kd[d] / ke,
          beta: NEAR_RIGID_BETA,
        });
      }
    }
    // pd drive
    if (hasDrive(m, d)) {
      const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
      const g = driveGainScale(m, d, treeA?.[t], nv, dof, m.joint_damping[d], dt);
      out.push({
        kind: 'pd',
        clique,
        dof,
        q0,
        qd: control.joint_target_pos[d],
        vd: control.joint_target_vel[d],
        kp: g * m.joint_target_ke[d],
        kd: g * m.joint_target_kd[d],
        effort_limit: m.joint_effort_limit[d],
        u0: control.joint_f[d],
      });
    }
    if (hasJointFriction(m, d))
      out.push({ kind: 'joint_friction', clique, dof, friction: m.joint_friction[d] });
  }
}

/** per DOF in {@link packJointConstraints}' `rows`: limit index, limit sides (bit 0 lower, bit 1 upper), PD index, friction index */
export const JOINT_ROWS_STRIDE = 4;

/**
 * {@link buildJointConstraints} into a pooled problem (same constraints, same order). With `rows`
 * (joint_dof_count × {@link JOINT_ROWS_STRIDE}), each DOF of these joints records its constraints'
 * indices in `pp` (−1 where it has none) and the limit's sides, so that their impulses can be read
 * back after the solve ({@link jointEffortsFromImpulses}).
 */
export function packJointConstraints(
  m: SapModel,
  j0: number,
  j1: number,
  q: Float64Array,
  v: Float64Array,
  v_star: Float64Array,
  control: SapControl,
  dt: number,
  cliqueIndex: Int32Array,
  pp: PackedSapProblem,
  rows: Int32Array | null = null,
): void {
  for (let j = j0; j < j1; j++) {
    const type = m.joint_type[j];
    if (type !== JointType.REVOLUTE && type !== JointType.PRISMATIC) continue;
    const d = m.joint_qd_start[j];
    const t = m.joint_tree[j];
    const clique = cliqueIndex[t];
    const dof = d - m.tree_dof_start[t];
    const q0 = q[m.joint_q_start[j]];
    const ke = m.joint_limit_ke[d];
    const r = d * JOINT_ROWS_STRIDE;
    if (rows) {
      rows[r] = rows[r + 2] = rows[r + 3] = -1;
      rows[r + 1] = 0;
    }
    if (ke > 0) {
      const rate = Math.max(Math.abs(v[d]), Math.abs(v_star[d]));
      const s = limitSidesInWindow(m.joint_limit_lower[d], m.joint_limit_upper[d], q0, rate, dt);
      if (Number.isFinite(s[0]) || Number.isFinite(s[1])) {
        const i = pp.addLimit(
          clique,
          dof,
          q0,
          s[0],
          s[1],
          ke,
          m.joint_limit_kd[d] / ke,
          NEAR_RIGID_BETA,
          NaN,
        );
        if (rows) {
          rows[r] = i;
          rows[r + 1] = (Number.isFinite(s[0]) ? 1 : 0) | (Number.isFinite(s[1]) ? 2 : 0);
        }
      }
    }
    if (hasDrive(m, d)) {
      const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
      const g = driveGainScale(m, d, pp.cliqueA[clique], nv, dof, m.joint_damping[d], dt);
      const i = pp.addPd(
        clique,
        dof,
        q0,
        control.joint_target_pos[d],
        control.joint_target_vel[d],
        g * m.joint_target_ke[d],
        g * m.joint_target_kd[d],
        m.joint_effort_limit[d],
        control.joint_f[d],
        NaN,
      );
      if (rows) rows[r + 2] = i;
    }
    if (hasJointFriction(m, d)) {
      const i = pp.addJointFriction(clique, dof, m.joint_friction[d], NaN, NaN); // σ: joint_friction_sigma
      if (rows) rows[r + 3] = i;
    }
  }
}

/**
 * The joint constraints' efforts of DOFs [d0, d1) after a solve, from the impulses γ (constraint
 * i's rows start at `rowOffset(i)`) and the `rows` of {@link packJointConstraints}: per DOF
 * (limit, drive, friction) = (γ_lower − γ_upper, γ_pd, γ_friction)/δt [N·m or N] into
 * `out[3d ..)`, 0 where the DOF has no such constraint.
 */
export function jointEffortsFromImpulses(
  rows: Int32Array,
  d0: number,
  d1: number,
  gamma: Float64Array,
  rowOffset: (i: number) => number,
  dt: number,
  out: Float64Array,
): void {
  for (let d = d0; d < d1; d++) {
    const r = d * JOINT_ROWS_STRIDE;
    let limit = 0;
    if (rows[r] >= 0) {
      const go = rowOffset(rows[r]);
      const sides = rows[r + 1];
      if (sides & 1) limit += gamma[go];
      if (sides & 2) limit -= gamma[go + (sides & 1)];
    }
    out[3 * d] = limit / dt;
    out[3 * d + 1] = rows[r + 2] >= 0 ? gamma[rowOffset(rows[r + 2])] / dt : 0;
    out[3 * d + 2] = rows[r + 3] >= 0 ? gamma[rowOffset(rows[r + 3])] / dt : 0;
  }
}
