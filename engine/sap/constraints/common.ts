/**
 * Shared vocabulary of the SAP constraint kernels (Drake SAP notes §0–2).
 *
 * Every constraint i has a constraint velocity vc_i ∈ ℝ^{n_i} (n_i rows), a convex cost ℓ_i(vc_i) [J],
 * an impulse γ_i = −∂ℓ_i/∂vc_i [N·s] and a Hessian G_i = −∂γ_i/∂vc_i = ∂²ℓ_i/∂vc_i² ⪰ 0.
 *
 * Kernels are allocation-free: constant parameters live in a flat `Float64Array` (one record of
 * {@link PARAM_STRIDE} numbers per constraint) and every input/output is addressed by an offset.
 */

/** number of parameter slots reserved per constraint record in a flat parameter array */
export const PARAM_STRIDE = 12;

/** Drake's hard-coded near-rigid threshold for limit, PD and holonomic constraints [-] */
export const NEAR_RIGID_BETA = 0.1;

/** soft-norm regularization ε of the tangential impulse norm, ‖x‖ₛ = √(‖x‖² + ε²) [N·s] */
export const SOFT_NORM_EPS = 1e-7;

/**
 * Evaluates one constraint at vc.
 *
 * @param P      flat parameter array; the record starts at `po`
 * @param po     offset of the record in `P`
 * @param nrows  number of rows n_i of this constraint
 * @param vc     constraint velocities [m/s or rad/s]; rows start at `vo`
 * @param gamma  receives γ (n_i entries at `go`) when non-null [N·s]
 * @param G      receives G (n_i×n_i row-major at `Go`) when non-null [N·s²/m]
 * @returns      the cost ℓ_i(vc) [J]
 */
export type ConstraintCalc = (
  P: Float64Array,
  po: number,
  nrows: number,
  vc: Float64Array,
  vo: number,
  gamma: Float64Array | null,
  go: number,
  G: Float64Array | null,
  Go: number,
) => number;

/**
 * Near-rigid regularization floor R_nr = β²/(4π²)·w: the compliance that gives a constraint of
 * Delassus weight w the period T = β·δt (Drake notes §1.1).
 *
 * @param beta near-rigid threshold β [-]
 * @param w    Delassus weight estimate [1/kg or equivalent]
 */
export function nearRigidR(beta: number, w: number): number {
  return ((beta * beta) / (4 * Math.PI * Math.PI)) * w;
}
