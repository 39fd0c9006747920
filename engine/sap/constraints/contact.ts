/**
 * SAP friction-cone contact constraint (linear Kelvin–Voigt normal model, regularized friction),
 * Drake SAP notes §1.1.
 *
 * vc = (vt₁, vt₂, vn) is the velocity of body B relative to body A at the contact, expressed in the
 * contact frame whose z axis points from A into B (vn > 0 separates). γ is the impulse on B [N·s].
 *
 * With y = R⁻¹(v̂ − vc), R = diag(Rt, Rt, Rn), v̂ = (0, 0, −φ₀/(δt+τ_d)), the impulse is the
 * R-norm projection of y onto the friction cone ‖γt‖ ≤ μγn and ℓ = ½γᵀRγ.
 */

import { PARAM_STRIDE, SOFT_NORM_EPS, nearRigidR, type ConstraintCalc } from './common';

/** offsets of a contact's physical inputs in its PHYS_STRIDE (packed_problem.ts) record */
export const ContactPhys = { mu: 0, stiffness: 1, tau_d: 2, phi0: 3, beta: 4, sigma: 5, w: 6 } as const;

/** number of rows of a contact constraint */
export const CONTACT_ROWS = 3;

/**
 * Region codes of the unprojected impulse y: `Stick` (y inside the friction cone, γ = y), `Slip`
 * (y projected onto the cone surface) and `Open` (y in the polar cone, γ = 0).
 */
export const ContactRegion = { Stick: 0, Slip: 1, Open: 2 } as const;
export type ContactRegion = (typeof ContactRegion)[keyof typeof ContactRegion];

/** readable names of {@link ContactRegion}, indexed by the region code */
export const CONTACT_REGION_NAMES = ['stick', 'slip', 'open'] as const;
export type ContactRegionName = (typeof CONTACT_REGION_NAMES)[number];

/** physical inputs of a contact constraint */
export interface ContactParamsInput {
  /** Coulomb friction coefficient μ ≥ 0 [-] */
  mu: number;
  /** normal stiffness k > 0 (may be +∞) [N/m] */
  stiffness: number;
  /** dissipation time scale τ_d ≥ 0 [s] */
  tau_d: number;
  /** signed distance at the start of the step φ₀ (< 0 overlap) [m] */
  phi0: number;
  /** near-rigid threshold β ≥ 0 [-] (default 1) */
  beta?: number;
  /** friction regularization σ > 0 [-] (default 1e-3) */
  sigma?: number;
}

// record layout
const MU = 0;
const RT = 1;
const RN = 2;
const VHAT_N = 3;
const MU_HAT = 4; // μ̂ = μ·Rt/Rn
const F = 5; // 1/(1 + μ̃²), μ̃² = μ²·Rt/Rn

/**
 * Computes R and v̂ (Drake `MakeData`) for a contact whose three Delassus entries all equal `w`
 * and writes the record at `out[off .. off+PARAM_STRIDE)`.
 *
 * Rt = σ·w, Rn = max(β²/(4π²)·w, 1/(δt·k·(δt+τ_d))), v̂n = −φ₀/(δt+τ_d).
 *
 * @param c   physical inputs
 * @param dt  time step δt > 0 [s]
 * @param w   Delassus weight estimate > 0 (velocity per impulse) [m/(N·s)]
 * @returns   `out`
 */
export function makeContactParams(
  c: ContactParamsInput,
  dt: number,
  w: number,
  out: Float64Array = new Float64Array(PARAM_STRIDE),
  off = 0,
): Float64Array {
  const beta = c.beta ?? 1;
  const sigma = c.sigma ?? 1e-3;
  const Rt = sigma * w;
  const Rn = Math.max(nearRigidR(beta, w), 1 / (dt * c.stiffness * (dt + c.tau_d)));
  const ratio = Rt / Rn;
  out[off + MU] = c.mu;
  out[off + RT] = Rt;
  out[off + RN] = Rn;
  out[off + VHAT_N] = -c.phi0 / (dt + c.tau_d);
  out[off + MU_HAT] = c.mu * ratio;
  out[off + F] = 1 / (1 + c.mu * c.mu * ratio);
  out[off + 6] = 0;
  out[off + 7] = 0;
  return out;
}

/** regularization (Rt, Rn) and bias v̂n stored in a contact record, for reports and tests */
export function contactRecord(
  P: Float64Array,
  po = 0,
): { mu: number; Rt: number; Rn: number; vn_hat: number } {
  return { mu: P[po + MU], Rt: P[po + RT], Rn: P[po + RN], vn_hat: P[po + VHAT_N] };
}

/** region of y(vc) for the contact record at `po` (same tests as {@link contactCalc}) */
export function contactRegion(P: Float64Array, po: number, vc: Float64Array, vo: number): ContactRegion {
  const mu = P[po + MU];
  const Rt = P[po + RT];
  const Rn = P[po + RN];
  const y0 = -vc[vo] / Rt;
  const y1 = -vc[vo + 1] / Rt;
  const yn = (P[po + VHAT_N] - vc[vo + 2]) / Rn;
  const yr = Math.sqrt(y0 * y0 + y1 * y1 + SOFT_NORM_EPS * SOFT_NORM_EPS);
  if (yr <= mu * yn) return ContactRegion.Stick;
  if (yn > -P[po + MU_HAT] * yr) return ContactRegion.Slip;
  return ContactRegion.Open;
}

/**
 * Contact cost (written to cost[co], not returned: a returned double from a call that is not
 * inlined is boxed, one heap allocation per call in the solver's hot loops), impulse and Hessian.
 *
 * Regions (y = R⁻¹(v̂ − vc), yr = ‖(y₀, y₁)‖ₛ, t̂ = (y₀, y₁)/yr):
 * - stick, yr ≤ μ·yn: γ = y, ℓ = ½yᵀRy, G = R⁻¹;
 * - slip, yn > −μ̂·yr: γn = (yn + μ̂·yr)/(1+μ̃²), γt = μγn·t̂, ℓ = ½Rn(yn + μ̂·yr)²/(1+μ̃²);
 * - open: γ = 0, ℓ = 0, G = 0.
 */
export function contactEval(
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
  const mu = P[po + MU];
  const Rt = P[po + RT];
  const Rn = P[po + RN];
  const y0 = -vc[vo] / Rt;
  const y1 = -vc[vo + 1] / Rt;
  const yn = (P[po + VHAT_N] - vc[vo + 2]) / Rn;
  const yr = Math.sqrt(y0 * y0 + y1 * y1 + SOFT_NORM_EPS * SOFT_NORM_EPS);

  if (yr <= mu * yn) {
    // stiction: γ = y
    if (gamma) {
      gamma[go] = y0;
      gamma[go + 1] = y1;
      gamma[go + 2] = yn;
    }
    if (G) {
      const it = 1 / Rt;
      G[Go] = it;
      G[Go + 1] = 0;
      G[Go + 2] = 0;
      G[Go + 3] = 0;
      G[Go + 4] = it;
      G[Go + 5] = 0;
      G[Go + 6] = 0;
      G[Go + 7] = 0;
      G[Go + 8] = 1 / Rn;
    }
    cost[co] = 0.5 * (Rt * (y0 * y0 + y1 * y1) + Rn * yn * yn);
    return;
  }

  const muHat = P[po + MU_HAT];
  if (yn > -muHat * yr) {
    // sliding: projection onto the cone surface
    const f = P[po + F];
    const s = yn + muHat * yr;
    const gn = s * f;
    const t0 = y0 / yr;
    const t1 = y1 / yr;
    if (gamma) {
      gamma[go] = mu * gn * t0;
      gamma[go + 1] = mu * gn * t1;
      gamma[go + 2] = gn;
    }
    if (G) {
      // G = (∂P/∂y)·R⁻¹, symmetric since μ/Rn = μ̂/Rt
      const a = (mu * gn) / yr / Rt; // coefficient of P⊥ = I − t̂t̂ᵀ
      const b = (mu * muHat * f) / Rt; // coefficient of t̂t̂ᵀ
      const c = (mu * f) / Rn; // tangential–normal coupling
      G[Go] = a * (1 - t0 * t0) + b * t0 * t0;
      G[Go + 1] = (b - a) * t0 * t1;
      G[Go + 2] = c * t0;
      G[Go + 3] = G[Go + 1];
      G[Go + 4] = a * (1 - t1 * t1) + b * t1 * t1;
      G[Go + 5] = c * t1;
      G[Go + 6] = c * t0;
      G[Go + 7] = c * t1;
      G[Go + 8] = f / Rn;
    }
    cost[co] = 0.5 * Rn * s * s * f;
    return;
  }

  // no contact
  if (gamma) {
    gamma[go] = 0;
    gamma[go + 1] = 0;
    gamma[go + 2] = 0;
  }
  if (G) for (let k = 0; k < 9; k++) G[Go + k] = 0;
  cost[co] = 0;
}

const costScratch = new Float64Array(1);

/**
 * Contact cost, impulse and Hessian ({@link ConstraintCalc}; `nrows` must be 3): {@link contactEval}
 * with the cost returned.
 */
export const contactCalc: ConstraintCalc = (P, po, _nrows, vc, vo, gamma, go, G, Go) => {
  contactEval(P, po, vc, vo, gamma, go, G, Go, costScratch, 0);
  return costScratch[0];
};
