/**
 * Finite-difference checks of a constraint kernel: γ against −∂ℓ/∂vc and G against −∂γ/∂vc by
 * central differences, and convexity of ℓ along a line by second differences. Used by the tests.
 */

import type { ConstraintCalc } from './common';

/** outcome of {@link fdCheckConstraint} */
export interface FdCheckResult {
  /** ℓ(vc) [J] */
  cost: number;
  /** analytic γ(vc) (n entries) */
  gamma: Float64Array;
  /** analytic G(vc) (n×n row-major) */
  G: Float64Array;
  /** central-difference estimate of −∂ℓ/∂vc */
  gammaFd: Float64Array;
  /** central-difference estimate of −∂γ/∂vc (n×n row-major, entry (r, k) = −∂γ_r/∂vc_k) */
  GFd: Float64Array;
  /** max |γ − γ_fd| / max(‖γ‖∞, ‖γ_fd‖∞) (0 when both vanish) */
  gammaErr: number;
  /** max |G − G_fd| / max(‖G‖∞, ‖G_fd‖∞) (0 when both vanish) */
  hessianErr: number;
  /** max |G − Gᵀ| / ‖G‖∞ */
  asymmetry: number;
}

function relErr(a: Float64Array, b: Float64Array): number {
  let diff = 0;
  let scale = 0;
  for (let k = 0; k < a.length; k++) {
    diff = Math.max(diff, Math.abs(a[k] - b[k]));
    scale = Math.max(scale, Math.abs(a[k]), Math.abs(b[k]));
  }
  return scale === 0 ? 0 : diff / scale;
}

/**
 * Compares the analytic impulse and Hessian of `calc` at `vc` with central differences.
 *
 * @param calc   the kernel
 * @param P      parameter record (at offset 0)
 * @param nrows  number of rows n
 * @param vc     evaluation point (n entries) [m/s]
 * @param h      difference step [m/s] (default 1e-7·max(1, ‖vc‖∞))
 */
export function fdCheckConstraint(
  calc: ConstraintCalc,
  P: Float64Array,
  nrows: number,
  vc: Float64Array,
  h?: number,
): FdCheckResult {
  const n = nrows;
  let vmax = 0;
  for (let k = 0; k < n; k++) vmax = Math.max(vmax, Math.abs(vc[k]));
  const step = h ?? 1e-7 * Math.max(1, vmax);
  const gamma = new Float64Array(n);
  const G = new Float64Array(n * n);
  const cost = calc(P, 0, n, vc, 0, gamma, 0, G, 0);

  const gammaFd = new Float64Array(n);
  const GFd = new Float64Array(n * n);
  const x = Float64Array.from(vc);
  const gp = new Float64Array(n);
  const gm = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    x[k] = vc[k] + step;
    const lp = calc(P, 0, n, x, 0, gp, 0, null, 0);
    x[k] = vc[k] - step;
    const lm = calc(P, 0, n, x, 0, gm, 0, null, 0);
    x[k] = vc[k];
    gammaFd[k] = -(lp - lm) / (2 * step);
    for (let r = 0; r < n; r++) GFd[r * n + k] = -(gp[r] - gm[r]) / (2 * step);
  }

  let asym = 0;
  let gscale = 0;
  for (let r = 0; r < n; r++) {
    for (let k = 0; k < n; k++) {
      asym = Math.max(asym, Math.abs(G[r * n + k] - G[k * n + r]));
      gscale = Math.max(gscale, Math.abs(G[r * n + k]));
    }
  }
  return {
    cost,
    gamma,
    G,
    gammaFd,
    GFd,
    gammaErr: relErr(gamma, gammaFd),
    hessianErr: relErr(G, GFd),
    asymmetry: gscale === 0 ? 0 : asym / gscale,
  };
}

/**
 * Smallest normalized second difference of t ↦ ℓ(vc + t·dir) over t = −span..span in `samples`
 * steps: min (ℓ(t−δ) − 2ℓ(t) + ℓ(t+δ)) / max(1e-300, |ℓ(t−δ)| + 2|ℓ(t)| + |ℓ(t+δ)|).
 * A convex cost gives values ≥ −(round-off), i.e. ≥ about −1e-12.
 */
export function minSecondDifference(
  calc: ConstraintCalc,
  P: Float64Array,
  nrows: number,
  vc: Float64Array,
  dir: Float64Array,
  span: number,
  samples = 200,
): number {
  const x = new Float64Array(nrows);
  const at = (t: number): number => {
    for (let k = 0; k < nrows; k++) x[k] = vc[k] + t * dir[k];
    return calc(P, 0, nrows, x, 0, null, 0, null, 0);
  };
  const dt = (2 * span) / samples;
  let worst = Infinity;
  for (let s = 1; s < samples; s++) {
    const t = -span + s * dt;
    const a = at(t - dt);
    const b = at(t);
    const c = at(t + dt);
    const scale = Math.max(1e-300, Math.abs(a) + 2 * Math.abs(b) + Math.abs(c));
    worst = Math.min(worst, (a - 2 * b + c) / scale);
  }
  return worst;
}
