/**
 * Joint-limit constraint of a 1-DOF joint (q̇ = v), Drake SAP notes §2.2.
 *
 * Rows are kept only for finite limits, lower first: g = (q₀ − q_l, q_u − q₀) with constraint
 * velocities vc = (+v_dof, −v_dof). Per row: R = max(β²/(4π²)·w, 1/(δt·k·(δt+τ_d))),
 * v̂ = −g/(δt+τ_d) (τ_d is not clamped), y = (v̂ − vc)/R, γ = max(0, y), ℓ = ½Rγ², G = 1/R where y > 0.
 * The generalized impulse on the dof is γ_lower − γ_upper.
 */

import { NEAR_RIGID_BETA, PARAM_STRIDE, nearRigidR, type ConstraintCalc } from './common';

/** offsets of a joint limit's physical inputs (dof: the limited velocity of its clique) */
export const LimitPhys = {
  dof: 0,
  q0: 1,
  lower: 2,
  upper: 3,
  stiffness: 4,
  tau_d: 5,
  beta: 6,
  w: 7,
} as const;

/** physical inputs of a limit constraint */
export interface LimitParamsInput {
  /** joint position at the start of the step [m or rad] */
  q0: number;
  /** lower limit (−∞ for none) [m or rad] */
  lower: number;
  /** upper limit (+∞ for none) [m or rad] */
  upper: number;
  /** limit stiffness k > 0 (may be +∞) [N/m or N·m/rad] */
  stiffness: number;
  /** dissipation time scale τ_d ≥ 0 [s] */
  tau_d: number;
  /** near-rigid threshold β ≥ 0 [-] (default 0.1) */
  beta?: number;
}

/** number of rows (0, 1 or 2): one per finite limit */
export function limitRows(c: Pick<LimitParamsInput, 'lower' | 'upper'>): number {
  return (Number.isFinite(c.lower) ? 1 : 0) + (Number.isFinite(c.upper) ? 1 : 0);
}

/** sign of the Jacobian entry of each row: +1 for the lower row, −1 for the upper row */
export function limitRowSigns(c: Pick<LimitParamsInput, 'lower' | 'upper'>): number[] {
  const s: number[] = [];
  if (Number.isFinite(c.lower)) s.push(1);
  if (Number.isFinite(c.upper)) s.push(-1);
  return s;
}

/**
 * Writes the limit record (per row: R, v̂) at `out[off ..)`.
 *
 * @param c   physical inputs
 * @param dt  time step δt > 0 [s]
 * @param w   Delassus weight of the dof, usually 1/A_dof,dof [1/kg or 1/(kg·m²)]
 */
export function makeLimitParams(
  c: LimitParamsInput,
  dt: number,
  w: number,
  out: Float64Array = new Float64Array(PARAM_STRIDE),
  off = 0,
): Float64Array {
  const beta = c.beta ?? NEAR_RIGID_BETA;
  const R = Math.max(nearRigidR(beta, w), 1 / (dt * c.stiffness * (dt + c.tau_d)));
  return writeLimitRows(c.q0, c.lower, c.upper, R, dt + c.tau_d, out, off);
}

/**
 * Writes a unilateral two-sided record at `out[off ..)`: per finite side (lower first) R and
 * v̂ = −g/denom with g = (x₀ − lower, upper − x₀); the rest of the record is zeroed. Shared by joint
 * and tendon limits.
 */
export function writeLimitRows(
  x0: number,
  lower: number,
  upper: number,
  R: number,
  denom: number,
  out: Float64Array,
  off: number,
): Float64Array {
  for (let k = 0; k < PARAM_STRIDE; k++) out[off + k] = 0;
  let row = 0;
  if (Number.isFinite(lower)) {
    out[off + 2 * row] = R;
    out[off + 2 * row + 1] = -(x0 - lower) / denom;
    row++;
  }
  if (Number.isFinite(upper)) {
    out[off + 2 * row] = R;
    out[off + 2 * row + 1] = -(upper - x0) / denom;
  }
  return out;
}

/** limit cost, impulse and Hessian ({@link ConstraintCalc}); rows are independent */
export const limitCalc: ConstraintCalc = (P, po, nrows, vc, vo, gamma, go, G, Go) => {
  let cost = 0;
  if (G) for (let k = 0; k < nrows * nrows; k++) G[Go + k] = 0;
  for (let r = 0; r < nrows; r++) {
    const R = P[po + 2 * r];
    const y = (P[po + 2 * r + 1] - vc[vo + r]) / R;
    if (y > 0) {
      cost += 0.5 * R * y * y;
      if (gamma) gamma[go + r] = y;
      if (G) G[Go + r * nrows + r] = 1 / R;
    } else if (gamma) {
      gamma[go + r] = 0;
    }
  }
  return cost;
};
