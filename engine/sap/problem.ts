/**
 * The pure-data SAP problem (SPEC §3.3, Drake's SapModel idea): hand-built or pipeline-built
 * problems solved by {@link solveSapProblem} without any bodies or shapes.
 *
 * ℓ(v) = ½(v−v*)ᵀA(v−v*) + Σᵢ ℓᵢ(Jᵢv), minimised by Newton's method with a line search.
 */

import type { ContactRegionName } from './constraints/contact';
import type { LimitParamsInput } from './constraints/limit';
import type { TendonParamsInput } from './constraints/tendon';

/**
 * One SAP problem.
 *
 * - `dt`: time step δt > 0 [s].
 * - `cliques`: kinematic trees; `A` is the nv×nv row-major SPD dynamics matrix (M + δt·D) of the
 *   clique [kg, kg·m, kg·m²].
 * - `v_star`: free-motion velocities of all cliques, concatenated in clique order (Σ nv entries).
 * - `constraints`: contacts, limits and PD drives ({@link SapConstraintSpec}).
 */
export interface SapProblem {
  dt: number;
  cliques: { nv: number; A: Float64Array }[];
  v_star: Float64Array;
  constraints: SapConstraintSpec[];
}

/**
 * A constraint of a {@link SapProblem}.
 *
 * - `contact`: `J[c]` is the 3×nv row-major block of clique `cliques[c]`, rows (t1, t2, n);
 *   Σ_c J_c v_c is the velocity of B relative to A in the contact frame (vn > 0 separates).
 *   μ [-], stiffness k [N/m], τ_d [s], φ₀ [m] (< 0 overlap), β (default options.contact_beta),
 *   σ (default options.contact_sigma), w [m/(N·s)] (default: diagonal-Delassus estimate
 *   ‖Σ_c J_c diag(A_c)⁻¹ J_cᵀ‖_F / 3, floored at 1e-12). γ = (γt1, γt2, γn) is the impulse on B [N·s].
 * - `limit`: 1-DOF joint limit on dof `dof` of clique `clique`; one row per finite limit, lower
 *   first (vc = +v for the lower row, −v for the upper row); β default 0.1; w default 1/A_dof,dof.
 * - `pd`: implicit PD drive with effort limit on PD + feed-forward; w default 1/A_dof,dof (used by
 *   the near-rigid gain clamp, β = 0.1). γ = δt·u [N·s or N·m·s].
 * - `joint_friction`: dry friction of bound `friction` τ_c > 0 [N·m or N] on dof `dof` of clique
 *   `clique` (Drake's SapJointFrictionConstraint, MuJoCo's frictionloss): γ = clamp(−vc/R, ±δt·τ_c)
 *   with R = σ·w; σ default options.joint_friction_sigma (1e-3), w default 1/A_dof,dof. γ [N·s or N·m·s].
 * - `holonomic`: g(q) = 0 with n = g0.length ≤ 6 rows (coupler, ball, weld); `J[c]` is n×nv_c
 *   row-major with Σ_c J_c v_c = ġ; stiffness may be +∞ (near-rigid, β = 0.1 by default);
 *   w default ‖Σ_c J_c diag(A_c)⁻¹ J_cᵀ‖_F / n. γ is unbounded [N·s or N·m·s].
 * - `tendon`: limits l_l ≤ l ≤ l_u on a fixed tendon's length l = aᵀq + offset (Drake's
 *   SapTendonConstraint); `a[c]` holds ∂l/∂v over clique `cliques[c]` (nv_c entries), `l0` the length
 *   at the start of the step; one row per finite limit, lower first (vc = +aᵀv, −aᵀv); β default
 *   0.1, and a near-rigid row clamps τ to δt; w default ‖Σ_c J_c diag(A_c)⁻¹ J_cᵀ‖_F / rows
 *   (= Σ a²/A_ii). γ ≥ 0 per row [N·s or N·m·s].
 */
export type SapConstraintSpec =
  | {
      kind: 'contact';
      cliques: number[];
      J: Float64Array[];
      mu: number;
      stiffness: number;
      tau_d: number;
      phi0: number;
      beta?: number;
      sigma?: number;
      w?: number;
    }
  | ({ kind: 'limit'; clique: number; dof: number; w?: number } & LimitParamsInput)
  | {
      kind: 'pd';
      clique: number;
      dof: number;
      q0: number;
      qd: number;
      vd: number;
      kp: number;
      kd: number;
      effort_limit: number;
      u0: number;
      w?: number;
    }
  | { kind: 'joint_friction'; clique: number; dof: number; friction: number; sigma?: number; w?: number }
  | ({ kind: 'tendon'; cliques: number[]; a: Float64Array[]; w?: number } & TendonParamsInput)
  | {
      kind: 'holonomic';
      cliques: number[];
      J: Float64Array[];
      g0: Float64Array;
      stiffness: number;
      tau_d: number;
      beta?: number;
      w?: number;
    };

/** termination status of a solve */
export type SapSolveStatus = 'converged' | 'max_iterations' | 'line_search_failed' | 'invalid_input';

/**
 * Result of a solve. Impulses, velocities and costs are reported at the returned `v`.
 *
 * - `v`: all velocities (Σ nv); cliques touched by no constraint keep v*.
 * - `gamma`: per constraint in input order (contact 3, limit and tendon 0–2, pd and joint_friction 1 entry) [N·s].
 * - `j`: generalized impulse Jᵀγ (Σ nv entries; 0 on non-participating cliques).
 * - `iterations`: Newton updates made (0 when the guess is already optimal or there are no
 *   constraints); `line_search_iterations`: total cost evaluations along search lines.
 * - `cost`: ℓ(v_k) for k = 0..iterations [J].
 * - `vc` (extra): constraint velocities per constraint; `contact_state` (extra): region of each
 *   contact at the solution ('stick' | 'slip' | 'open'; null for other kinds); `message` (extra):
 *   why a solve did not converge.
 */
export interface SapSolveResult {
  status: SapSolveStatus;
  v: Float64Array;
  gamma: Float64Array[];
  j: Float64Array;
  iterations: number;
  line_search_iterations: number;
  cost: number[];
  vc?: Float64Array[];
  contact_state?: (ContactRegionName | null)[];
  message?: string;
}
