/**
 * Holonomic constraint g(q) = 0 with n ≤ 6 rows (Drake SAP notes §2.1): the base of the coupler,
 * ball and weld constraints. Unbounded impulses.
 *
 * Per row: R_nr = β²/(4π²)·w, R_c = 1/(δt(δt+τ)k), R = max(R_c, R_nr); in the near-rigid case
 * (R_c < R_nr) τ is clamped to δt (critically damped). v̂ = −g₀/(δt+τ); with k = ∞ this gives
 * R = R_nr and v̂ = −g₀/(2δt). y = (v̂ − vc)/R, γ = y, ℓ = ½Ry², G = 1/R.
 */

import { NEAR_RIGID_BETA, PARAM_STRIDE, nearRigidR, type ConstraintCalc } from './common';

/** offsets of a holonomic constraint's physical inputs; its rows' g0 start at `g0` */
export const HolonomicPhys = { stiffness: 0, tau_d: 1, beta: 2, w: 3, g0: 4 } as const;

/** most rows of a holonomic constraint (a weld) */
export const HOLONOMIC_MAX_ROWS = 6;

export interface HolonomicParamsInput {
  /** constraint value at the start of the step, one per row [m or rad] */
  g0: ArrayLike<number>;
  /** stiffness k > 0, +∞ for a rigid constraint [N/m or N·m/rad] */
  stiffness: number;
  /** relaxation time τ ≥ 0 [s] */
  tau_d: number;
  /** near-rigid threshold β (default 0.1) */
  beta?: number;
}

/** writes the record (per row: R, v̂) at out[off ..) */
export function makeHolonomicParams(
  c: HolonomicParamsInput,
  dt: number,
  w: number,
  out: Float64Array = new Float64Array(PARAM_STRIDE),
  off = 0,
): Float64Array {
  const n = c.g0.length;
  const Rnr = nearRigidR(c.beta ?? NEAR_RIGID_BETA, w);
  const Rc = Number.isFinite(c.stiffness) ? 1 / (dt * (dt + c.tau_d) * c.stiffness) : 0;
  const rigid = Rc < Rnr;
  const R = rigid ? Rnr : Rc;
  const tau = rigid ? dt : c.tau_d;
  for (let k = 0; k < PARAM_STRIDE; k++) out[off + k] = 0;
  for (let r = 0; r < n; r++) {
    out[off + 2 * r] = R;
    out[off + 2 * r + 1] = -c.g0[r] / (dt + tau);
  }
  return out;
}

/** holonomic cost, impulse and Hessian ({@link ConstraintCalc}); rows are independent */
export const holonomicCalc: ConstraintCalc = (P, po, nrows, vc, vo, gamma, go, G, Go) => {
  let cost = 0;
  if (G) for (let k = 0; k < nrows * nrows; k++) G[Go + k] = 0;
  for (let r = 0; r < nrows; r++) {
    const R = P[po + 2 * r];
    const y = (P[po + 2 * r + 1] - vc[vo + r]) / R;
    cost += 0.5 * R * y * y;
    if (gamma) gamma[go + r] = y;
    if (G) G[Go + r * nrows + r] = 1 / R;
  }
  return cost;
};
