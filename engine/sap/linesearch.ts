/**
 * Line searches of the SAP Newton loop (SPEC §3.6, seed "Line Search", Drake SAP notes §3.4–3.5).
 *
 * All three work on φ(α) = ℓ(v + αΔv) through a {@link LineObjective}; they never throw. Failure
 * (no acceptable step, or a direction along which the cost does not decrease) is a status.
 */

import type { LineSearchVariant } from './options';

/** value and derivatives of φ at one α */
export interface LineSample {
  /** φ(α) [J] */
  phi: number;
  /** φ′(α) [J] (valid when order ≥ 1 was requested) */
  dphi: number;
  /** φ″(α) [J] (valid when order 2 was requested) */
  d2phi: number;
}

/** φ(α) = ℓ(v + αΔv) along the current Newton direction */
export interface LineObjective {
  /** fills `out` with φ(α) and, for order ≥ 1, φ′(α); for order 2, φ″(α) */
  evaluate(alpha: number, order: 0 | 1 | 2, out: LineSample): void;
}

/** parameters of a line search (names follow SPEC §3.6) */
export interface LineSearchParams {
  variant: LineSearchVariant;
  /** maximum number of candidates (40; 100 for exact_root) */
  max_iterations: number;
  /** Armijo coefficient c (armijo_decay) */
  armijo_c: number;
  /** decay factor ρ ∈ (0,1) (armijo_decay) */
  rho: number;
  /** relative slop of the near-flat tests (armijo_decay) */
  relative_slop: number;
  /** cost tolerances; exact_root accepts α = 1 when −φ′(0) < abs + rel·φ(α_max) */
  cost_abs_tol: number;
  cost_rel_tol: number;
}

/** outcome of a line search */
export interface LineSearchResult {
  /** `ok`; `failed` (no acceptable α); `not_descent` (φ′(0) ≥ 0 or NaN) */
  status: 'ok' | 'failed' | 'not_descent';
  /** accepted step (last candidate when failed) */
  alpha: number;
  /** number of φ evaluations made */
  iterations: number;
}

/** smallest step of monotone_decay before it reports failure */
export const MONOTONE_MIN_ALPHA = 1e-8;
/** upper end of the exact_root bracket */
export const EXACT_ALPHA_MAX = 1.5;
/** normalized derivative tolerance of exact_root */
export const EXACT_F_TOL = 1e-8;

function newResult(): LineSearchResult {
  return { status: 'ok', alpha: 1, iterations: 0 };
}

function finish(out: LineSearchResult, status: LineSearchResult['status'], alpha: number, it: number) {
  out.status = status;
  out.alpha = alpha;
  out.iterations = it;
  return out;
}

/** the largest cost monotone_decay accepts from a start at cost φ(0) = `phi0` */
export function monotoneThreshold(phi0: number): number {
  return phi0 + 1e-14 + 1e-12 * Math.abs(phi0);
}

/**
 * monotone_decay: α = 1, ½, ¼, …; accepts the first φ(α) ≤ φ(0) + 1e-14 + 1e-12·|φ(0)|. Fails when
 * α drops below 1e-8 (or after `max_iterations` candidates). Does not use slopes.
 */
export function monotoneDecay(
  f: LineObjective,
  phi0: number,
  params: LineSearchParams,
  sample: LineSample = { phi: 0, dphi: 0, d2phi: 0 },
  out: LineSearchResult = newResult(),
): LineSearchResult {
  const threshold = monotoneThreshold(phi0);
  let alpha = 1;
  let it = 0;
  while (alpha >= MONOTONE_MIN_ALPHA && it < params.max_iterations) {
    f.evaluate(alpha, 0, sample);
    it++;
    if (sample.phi <= threshold) return finish(out, 'ok', alpha, it);
    alpha *= 0.5;
  }
  return finish(out, 'failed', alpha, it);
}

/**
 * armijo_decay (Drake backtracking): probes α_max = 1/ρ and accepts it if φ′(α_max) < 0 or below
 * slop = relative_slop/10·max(1, ½(|φ(α_max)| + |φ(0)|)). Otherwise tries 1, ρ, ρ², …: returns α when
 * the finite-difference slope |Δφ/Δα| between consecutive candidates is below the slop; when φ
 * increases again (φ(α) > φ(α_prev)) and α satisfies Armijo φ(α) < φ(0) + c·α·φ′(0), returns α_prev
 * if it also satisfied Armijo, else α. After the last candidate, accepts it only if Armijo holds.
 */
export function armijoDecay(
  f: LineObjective,
  phi0: number,
  dphi0: number,
  params: LineSearchParams,
  sample: LineSample = { phi: 0, dphi: 0, d2phi: 0 },
  out: LineSearchResult = newResult(),
): LineSearchResult {
  if (!(dphi0 < 0)) return finish(out, 'not_descent', 0, 0);
  const { rho, armijo_c: c } = params;
  let alpha = 1 / rho;
  f.evaluate(alpha, 1, sample);
  let it = 1;
  let phi = sample.phi;
  if (sample.dphi < 0) return finish(out, 'ok', alpha, it);
  const slop = (params.relative_slop / 10) * Math.max(1, 0.5 * (Math.abs(phi) + Math.abs(phi0)));
  if (sample.dphi < slop) return finish(out, 'ok', alpha, it);

  let alphaPrev = alpha;
  let phiPrev = phi;
  let armijoPrev = phi < phi0 + c * alpha * dphi0;
  let armijo = armijoPrev;
  for (let k = 1; k < params.max_iterations; k++) {
    alpha *= rho;
    f.evaluate(alpha, 0, sample);
    it++;
    phi = sample.phi;
    armijo = phi < phi0 + c * alpha * dphi0;
    const slope = (phi - phiPrev) / (alpha - alphaPrev);
    if (Math.abs(slope) < slop) return finish(out, 'ok', alpha, it);
    // past the minimum of the sampled costs: prefer the previous (lower-cost) step if admissible
    if (phi > phiPrev && armijo) return finish(out, 'ok', armijoPrev ? alphaPrev : alpha, it);
    alphaPrev = alpha;
    phiPrev = phi;
    armijoPrev = armijo;
  }
  return finish(out, armijo ? 'ok' : 'failed', alpha, it);
}

/**
 * exact_root: root of φ′ on [0, 1.5]. Accepts α_max = 1.5 if φ′(α_max) ≤ 0; accepts α = 1 if
 * −φ′(0) < cost_abs_tol + cost_rel_tol·φ(α_max). Otherwise finds the root of f(α) = φ′(α)/(−φ′(0))
 * (f(0) = −1 < 0 < f(α_max)) by Newton with bisection fallback (rtsafe style): start
 * clip(−φ′(0)/φ″(α_max), 0, α_max), f_tol = 1e-8, α_tol = 1e-8·α₀, at most `max_iterations`
 * evaluations; bisect when Newton is slow (2|f| > |Δα two steps back · f′|), leaves the bracket or
 * is not finite.
 */
export function exactRoot(
  f: LineObjective,
  dphi0: number,
  params: LineSearchParams,
  sample: LineSample = { phi: 0, dphi: 0, d2phi: 0 },
  out: LineSearchResult = newResult(),
): LineSearchResult {
  if (!(dphi0 < 0)) return finish(out, 'not_descent', 0, 0);
  const amax = EXACT_ALPHA_MAX;
  f.evaluate(amax, 2, sample);
  let it = 1;
  if (sample.dphi <= 0) return finish(out, 'ok', amax, it);
  if (-dphi0 < params.cost_abs_tol + params.cost_rel_tol * sample.phi) return finish(out, 'ok', 1, it);

  const scale = -dphi0;
  let guess = -dphi0 / sample.d2phi;
  if (!(guess >= 0)) guess = guess < 0 ? 0 : amax;
  if (guess > amax) guess = amax;
  const alphaTol = EXACT_F_TOL * (guess > 0 ? guess : amax);

  // bracket [xl, xu] with f(xl) < 0 < f(xu)
  let xl = 0;
  let xu = amax;
  let fu = sample.dphi / scale;
  if (Math.abs(fu) < EXACT_F_TOL) return finish(out, 'ok', xu, it);

  let root = guess;
  let mdx = xl - xu; // minus the last step
  let mdxPrev = mdx;
  for (let k = 1; k <= params.max_iterations; k++) {
    f.evaluate(root, 2, sample);
    it++;
    const fx = sample.dphi / scale;
    const dfx = sample.d2phi / scale;
    // keep a sign change inside the bracket
    if (Math.sign(fx) !== Math.sign(fu)) {
      xl = root;
    } else {
      xu = root;
      fu = fx;
    }
    if (Math.abs(fx) < EXACT_F_TOL) return finish(out, 'ok', root, it);

    const slow = 2 * Math.abs(fx) > Math.abs(mdxPrev * dfx);
    mdxPrev = mdx;
    let bisect = slow;
    if (!slow) {
      const step = fx / dfx;
      const next = root - step;
      if (Number.isFinite(next) && next >= xl && next <= xu) {
        mdx = step;
        root = next;
      } else {
        bisect = true;
      }
    }
    if (bisect) {
      mdx = 0.5 * (xl - xu);
      root = xl - mdx;
    }
    if (Math.abs(mdx) < alphaTol) return finish(out, 'ok', root, it);
  }
  return finish(out, 'failed', root, it);
}

/**
 * Runs the configured variant. `phi0` = φ(0) and `dphi0` = φ′(0) = ∇ℓ·Δv are supplied by the caller.
 */
export function lineSearch(
  f: LineObjective,
  phi0: number,
  dphi0: number,
  params: LineSearchParams,
  sample?: LineSample,
  out?: LineSearchResult,
): LineSearchResult {
  switch (params.variant) {
    case 'monotone_decay':
      return monotoneDecay(f, phi0, params, sample, out);
    case 'armijo_decay':
      return armijoDecay(f, phi0, dphi0, params, sample, out);
    case 'exact_root':
      return exactRoot(f, dphi0, params, sample, out);
  }
}
