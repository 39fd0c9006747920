/**
 * Fixed-tendon limits (drake_sap_notes §2.9): a tendon's length l = Σₖ aₖ·q(jointₖ) + offset over
 * 1-DOF joints; its limits become one SAP tendon constraint (rows +aᵀv for the lower limit, −aᵀv for
 * the upper), with k = limit_ke, τ = limit_kd/limit_ke, β = 0.1. As for a joint limit, a side is
 * added only inside the window l₀ ± 2·dt·max(|l̇₀|, |l̇*|) (a violated side is always inside).
 */
import type { SapModel } from '../model';
import type { PackedSapProblem } from '../sap/packed_problem';

const LIMIT_WINDOW_FACTOR = 2;

/** tendon length Σ aₖ·x[dof(jointₖ)] + offset·withOffset over per-DOF (`perDof`) or coordinate values */
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
    const window = LIMIT_WINDOW_FACTOR * dt * rate;
    const lo = m.tendon_lower[t] > l0 - window ? m.tendon_lower[t] : -Infinity;
    const hi = m.tendon_upper[t] < l0 + window ? m.tendon_upper[t] : Infinity;
    if (!(Number.isFinite(lo) || Number.isFinite(hi))) continue;
    pp.beginTendon(l0, lo, hi, ke, Number.isFinite(ke) ? m.tendon_limit_kd[t] / ke : 0, 0.1, NaN);
    for (let e = m.tendon_adr[t]; e < m.tendon_adr[t + 1]; e++) {
      const j = m.tendon_joint[e];
      const d = m.joint_qd_start[j];
      const tree = m.joint_tree[j];
      pp.addTendonEntry(cliqueIndex[tree], d - m.tree_dof_start[tree], m.tendon_coef[e]);
    }
  }
}
