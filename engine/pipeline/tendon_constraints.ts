/**
 * Fixed-tendon limits (drake_sap_notes §2.9): a tendon's length l = Σₖ aₖ·q(jointₖ) + offset over
 * 1-DOF joints; its limits become one SAP tendon constraint (rows +aᵀv for the lower limit, −aᵀv for
 * the upper), with k = limit_ke, τ = limit_kd/limit_ke, β = 0.1. As for a joint limit, a side is
 * added only inside the window l₀ ± 2·dt·max(|l̇₀|, |l̇*|) (a violated side is always inside).
 */
import type { SapModel } from '../model';
import { NEAR_RIGID_BETA } from '../sap/constraints/common';
import type { PackedSapProblem } from '../sap/packed_problem';
import { limitSidesInWindow } from './joint_constraints';

/** Σ aₖ·x[jointₖ] over per-DOF (`perDof`: a tendon rate) or coordinate values (its length less the offset) */
function tendonSum(m: SapModel, t: number, x: Float64Array, perDof: boolean): number {
  let s = 0;
  for (let e = m.tendon_adr[t]; e < m.tendon_adr[t + 1]; e++) {
    const j = m.tendon_joint[e];
    s += m.tendon_coef[e] * x[perDof ? m.joint_qd_start[j] : m.joint_q_start[j]];
  }
  return s;
}

/** length of tendon t at joint coordinates q [tendon units] */
export function tendonLength(m: SapModel, t: number, q: Float64Array): number {
  return tendonSum(m, t, q, false) + m.tendon_offset[t];
}

/**
 * Appends the tendon-limit constraints of world w to `pp` (its cliques as `cliqueIndex` maps the
 * trees), allocation-free.
 *
 * @param q       joint coordinates at the start of the step
 * @param v       velocities at the start of the step (internal convention, per DOF)
 * @param v_star  free-motion velocities (per DOF)
 */
export function packTendonConstraints(
  m: SapModel,
  w: number,
  q: Float64Array,
  v: Float64Array,
  v_star: Float64Array,
  dt: number,
  cliqueIndex: Int32Array,
  pp: PackedSapProblem,
): void {
  for (let t = 0; t < m.tendon_count; t++) {
    const ke = m.tendon_limit_ke[t];
    if (m.tendon_world[t] !== w || !(ke > 0)) continue;
    const l0 = tendonLength(m, t, q);
    const rate = Math.max(Math.abs(tendonSum(m, t, v, true)), Math.abs(tendonSum(m, t, v_star, true)));
    const s = limitSidesInWindow(m.tendon_lower[t], m.tendon_upper[t], l0, rate, dt);
    if (!(Number.isFinite(s[0]) || Number.isFinite(s[1]))) continue;
    const tau_d = Number.isFinite(ke) ? m.tendon_limit_kd[t] / ke : 0;
    pp.beginTendon(l0, s[0], s[1], ke, tau_d, NEAR_RIGID_BETA, NaN);
    for (let e = m.tendon_adr[t]; e < m.tendon_adr[t + 1]; e++) {
      const j = m.tendon_joint[e];
      const d = m.joint_qd_start[j];
      const tree = m.joint_tree[j];
      pp.addTendonEntry(cliqueIndex[tree], d - m.tree_dof_start[tree], m.tendon_coef[e]);
    }
  }
}
