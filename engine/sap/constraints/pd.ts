/**
 * Implicit PD drive with an effort limit on PD + feed-forward together, Drake SAP notes §2.3.
 *
 * vc = v_dof, q = q₀ + δt·v. y = −Kp(q − q_d) − Kd(v − v_d) + u₀, u = clamp(y, −e, e), γ = δt·u.
 * With c = δt·Kp + Kd: ℓ = δt·Ψ(y)/c where Ψ is the antiderivative of clamp with Ψ(0) = 0, and
 * G = δt·c where |y| ≤ e (0 otherwise).
 *
 * Near-rigid gain clamp (β = 0.1): with R = 1/(δt(δt·Kp + Kd)) and R_nr = β²/(4π²)·w, if R < R_nr the
 * gains are lowered keeping Kd/Kp: if δt·Kp > Kd then τ = Kd/Kp, Kp' = 1/(δt(δt+τ)R_nr), Kd' = τ·Kp';
 * otherwise Kd' = 1/(δt(1 + δt·Kp/Kd)R_nr), Kp' = (Kp/Kd)·Kd'.
 */

import { NEAR_RIGID_BETA, PARAM_STRIDE, nearRigidR, type ConstraintCalc } from './common';

/** offsets of a PD drive's physical inputs in its PHYS_STRIDE (packed_problem.ts) record */
export const PdPhys = { dof: 0, q0: 1, qd: 2, vd: 3, kp: 4, kd: 5, effort_limit: 6, u0: 7, w: 8 } as const;

/** physical inputs of a PD constraint */
export interface PdParamsInput {
  /** joint position at the start of the step [m or rad] */
  q0: number;
  /** desired position [m or rad] */
  qd: number;
  /** desired velocity [m/s or rad/s] */
  vd: number;
  /** proportional gain Kp ≥ 0 [N/m or N·m/rad] */
  kp: number;
  /** derivative gain Kd ≥ 0 [N·s/m or N·m·s/rad]; Kp + Kd > 0 */
  kd: number;
  /** effort limit e > 0 (may be +∞) on PD + feed-forward [N or N·m] */
  effort_limit: number;
  /** feed-forward effort u₀ [N or N·m] */
  u0: number;
}

// record layout
const DT = 0;
const KP = 1;
const KD = 2;
const E = 3;
const Q0 = 4;
const QD = 5;
const VD = 6;
const U0 = 7;

/** effective gains after the near-rigid clamp (unchanged when R ≥ R_nr) */
export function pdEffectiveGains(
  kp: number,
  kd: number,
  dt: number,
  w: number,
  out: { kp: number; kd: number } = { kp: 0, kd: 0 },
): { kp: number; kd: number } {
  const R = 1 / (dt * (dt * kp + kd));
  const Rnr = nearRigidR(NEAR_RIGID_BETA, w);
  if (!(R < Rnr)) {
    out.kp = kp;
    out.kd = kd;
  } else if (dt * kp > kd) {
    const tau = kd / kp;
    const kpEff = 1 / (dt * (dt + tau) * Rnr);
    out.kp = kpEff;
    out.kd = tau * kpEff;
  } else {
    const kdEff = 1 / (dt * (1 + (dt * kp) / kd) * Rnr);
    out.kp = (kp / kd) * kdEff;
    out.kd = kdEff;
  }
  return out;
}

/** makePdParams' gains (no object per call) */
const gains = { kp: 0, kd: 0 };

/**
 * Writes the PD record (δt, Kp', Kd', e, q₀, q_d, v_d, u₀) at `out[off ..)`.
 *
 * @param c   physical inputs
 * @param dt  time step δt > 0 [s]
 * @param w   Delassus weight of the dof, usually 1/A_dof,dof, used by the near-rigid clamp
 */
export function makePdParams(
  c: PdParamsInput,
  dt: number,
  w: number,
  out: Float64Array = new Float64Array(PARAM_STRIDE),
  off = 0,
): Float64Array {
  const g = pdEffectiveGains(c.kp, c.kd, dt, w, gains);
  out[off + DT] = dt;
  out[off + KP] = g.kp;
  out[off + KD] = g.kd;
  out[off + E] = c.effort_limit;
  out[off + Q0] = c.q0;
  out[off + QD] = c.qd;
  out[off + VD] = c.vd;
  out[off + U0] = c.u0;
  return out;
}

/**
 * PD cost (written to cost[co], not returned: no boxed double per call in the solver's loops),
 * impulse and Hessian of the record at `po`; see {@link pdCalc}.
 */
export function pdEval(
  P: Float64Array,
  po: number,
  vc: Float64Array,
  vo: number,
  gamma: Float64Array | null,
  go: number,
  G: Float64Array | null,
  Go: number,
  cost: Float64Array,
  co: number,
): void {
  const dt = P[po + DT];
  const kp = P[po + KP];
  const kd = P[po + KD];
  const e = P[po + E];
  const v = vc[vo];
  const y = -kp * (P[po + Q0] + dt * v - P[po + QD]) - kd * (v - P[po + VD]) + P[po + U0];
  const c = dt * kp + kd;
  let psi: number;
  let u: number;
  let g: number;
  if (y > e) {
    psi = e * (y - 0.5 * e);
    u = e;
    g = 0;
  } else if (y < -e) {
    psi = -e * (y + 0.5 * e);
    u = -e;
    g = 0;
  } else {
    psi = 0.5 * y * y;
    u = y;
    g = dt * c;
  }
  if (gamma) gamma[go] = dt * u;
  if (G) G[Go] = g;
  cost[co] = (dt * psi) / c;
}

const costScratch = new Float64Array(1);

/** PD cost, impulse and Hessian ({@link ConstraintCalc}; `nrows` must be 1) */
export const pdCalc: ConstraintCalc = (P, po, _nrows, vc, vo, gamma, go, G, Go) => {
  pdEval(P, po, vc, vo, gamma, go, G, Go, costScratch, 0);
  return costScratch[0];
};
