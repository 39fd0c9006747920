/**
 * Tendon-limit constraint (Drake SAP notes §2.9): a fixed tendon has the length l = aᵀq + offset,
 * a linear combination of 1-DOF joint coordinates, and unilateral limits l_l ≤ l ≤ l_u.
 *
 * Rows are kept only for finite limits, lower first: g = (l₀ − l_l, l_u − l₀) with constraint
 * velocities vc = (+aᵀv, −aᵀv). Per row: R_c = 1/(δt·k·(δt+τ)), R_nr = β²/(4π²)·w, R = max(R_c, R_nr).
 * Unlike a joint limit, a near-rigid row (R_c < R_nr) clamps τ to δt (critically damped), so
 * v̂ = −g/(2δt) there and v̂ = −g/(δt+τ) otherwise. β = 0.1. The cost, impulse and Hessian are a
 * limit's (γ = max(0, y), ℓ = ½Rγ², G = 1/R where y > 0): {@link limitCalc}.
 */

import { NEAR_RIGID_BETA, PARAM_STRIDE, nearRigidR } from './common';
import { writeLimitRows } from './limit';

/** offsets of a tendon limit's physical inputs */
export const TendonPhys = { l0: 0, lower: 1, upper: 2, stiffness: 3, tau_d: 4, beta: 5, w: 6 } as const;

/** physical inputs of a tendon-limit constraint */
export interface TendonParamsInput {
  /** tendon length at the start of the step, aᵀq₀ + offset [m or rad] */
  l0: number;
  /** lower limit (−∞ for none) [m or rad] */
  lower: number;
  /** upper limit (+∞ for none) [m or rad] */
  upper: number;
  /** limit stiffness k > 0 (may be +∞) [N/m or N·m/rad] */
  stiffness: number;
  /** dissipation time scale τ = damping/k ≥ 0 [s] */
  tau_d: number;
  /** near-rigid threshold β ≥ 0 [-] (default 0.1) */
  beta?: number;
}

/**
 * Writes the tendon record (per row: R, v̂) at `out[off ..)`.
 *
 * @param c   physical inputs
 * @param dt  time step δt > 0 [s]
 * @param w   Delassus weight of the tendon, Σᵢ aᵢ²/A_ii for the diagonal estimate [1/kg or 1/(kg·m²)]
 */
export function makeTendonParams(
  c: TendonParamsInput,
  dt: number,
  w: number,
  out: Float64Array = new Float64Array(PARAM_STRIDE),
  off = 0,
): Float64Array {
  const Rnr = nearRigidR(c.beta ?? NEAR_RIGID_BETA, w);
  const Rc = Number.isFinite(c.stiffness) ? 1 / (dt * c.stiffness * (dt + c.tau_d)) : 0;
  const rigid = Rc < Rnr;
  const R = rigid ? Rnr : Rc;
  return writeLimitRows(c.l0, c.lower, c.upper, R, dt + (rigid ? dt : c.tau_d), out, off);
}
