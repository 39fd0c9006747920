import { describe, expect, it } from 'vitest';
import {
  EXACT_ALPHA_MAX,
  armijoDecay,
  exactRoot,
  lineSearch,
  monotoneDecay,
  type LineObjective,
  type LineSearchParams,
} from './linesearch';
import { resolveSolverOptions } from './options';

function params(variant: LineSearchParams['variant']): LineSearchParams {
  const o = resolveSolverOptions({ line_search_variant: variant });
  return {
    variant,
    max_iterations: o.line_search_max_iterations,
    armijo_c: o.armijo_c,
    rho: o.rho,
    relative_slop: o.line_search_relative_slop,
    cost_abs_tol: o.cost_abs_tol,
    cost_rel_tol: o.cost_rel_tol,
  };
}

/** φ(α) = ½·a(α − α*)² + c and a log of the α values probed */
function quadratic(alphaStar: number, a = 1, c = 0): LineObjective & { probes: number[] } {
  const probes: number[] = [];
  return {
    probes,
    evaluate(alpha, _order, out) {
      probes.push(alpha);
      out.phi = 0.5 * a * (alpha - alphaStar) ** 2 + c;
      out.dphi = a * (alpha - alphaStar);
      out.d2phi = a;
    },
  };
}

/** a smooth, strictly convex, non-quadratic φ with minimiser at α = ln(3) ≈ 1.0986 */
function softplusLike(): LineObjective {
  return {
    evaluate(alpha, _order, out) {
      out.phi = Math.exp(alpha) - 3 * alpha;
      out.dphi = Math.exp(alpha) - 3;
      out.d2phi = Math.exp(alpha);
    },
  };
}

describe('monotone_decay', () => {
  it('accepts α = 1 when the cost does not increase', () => {
    const f = quadratic(0.7);
    const r = monotoneDecay(f, 0.5 * 0.49, params('monotone_decay'));
    expect(r).toEqual({ status: 'ok', alpha: 1, iterations: 1 });
  });

  it('halves until φ(α) ≤ φ(0) + 1e-14 + 1e-12|φ(0)|', () => {
    const f = quadratic(0.2);
    const phi0 = 0.5 * 0.04;
    const r = monotoneDecay(f, phi0, params('monotone_decay'));
    // φ(1) = 0.32, φ(½) = 0.045, φ(¼) = 0.00125 ≤ 0.02
    expect(f.probes).toEqual([1, 0.5, 0.25]);
    expect(r.alpha).toBe(0.25);
    expect(r.iterations).toBe(3);
  });

  it('accepts an exactly flat candidate within the fixed slop', () => {
    const flat: LineObjective = {
      evaluate(alpha, _o, out) {
        out.phi = 1 + 5e-13 * alpha; // within 1e-14 + 1e-12·|φ(0)|
      },
    };
    expect(monotoneDecay(flat, 1, params('monotone_decay')).alpha).toBe(1);
  });

  it('fails below α = 1e-8', () => {
    const up: LineObjective = {
      evaluate(alpha, _o, out) {
        out.phi = alpha;
      },
    };
    const r = monotoneDecay(up, 0, params('monotone_decay'));
    expect(r.status).toBe('failed');
    expect(r.iterations).toBe(27); // 2⁰ … 2⁻²⁶ ≥ 1e-8
    expect(r.alpha).toBeLessThan(1e-8);
  });
});

describe('armijo_decay', () => {
  it('accepts the over-relaxed probe 1/ρ when φ′ is still negative there', () => {
    const f = quadratic(2);
    const r = armijoDecay(f, 2, -2, params('armijo_decay'));
    expect(r).toEqual({ status: 'ok', alpha: 1.25, iterations: 1 });
  });

  it('accepts 1/ρ when φ′ there is positive but within the slop', () => {
    const p = params('armijo_decay'); // slop = 1000·ε/10·max(1, ·) ≈ 2.2e-14
    const within = quadratic(1.25 - 1e-14);
    expect(armijoDecay(within, 0.78, -1.25, p)).toEqual({ status: 'ok', alpha: 1.25, iterations: 1 });
    const beyond = quadratic(1.25 - 1e-12);
    expect(armijoDecay(beyond, 0.78, -1.25, p).iterations).toBeGreaterThan(1);
  });

  it('scans 1, ρ, ρ², … and returns the previous α when the cost turns up', () => {
    // φ = ½(α − 0.7)²: costs at 1.25, 1, 0.8, 0.64, 0.512 are 0.151, 0.045, 0.005, 0.0018, 0.0177
    const f = quadratic(0.7);
    const r = armijoDecay(f, 0.245, -0.7, params('armijo_decay'));
    expect(f.probes.map((a) => +a.toFixed(6))).toEqual([1.25, 1, 0.8, 0.64, 0.512]);
    expect(r.alpha).toBeCloseTo(0.64, 12);
    expect(r.iterations).toBe(5);
  });

  it('reports a non-descent direction and never evaluates', () => {
    const f = quadratic(-1);
    expect(armijoDecay(f, 0.5, 1, params('armijo_decay')).status).toBe('not_descent');
    expect(armijoDecay(f, 0.5, NaN, params('armijo_decay')).status).toBe('not_descent');
    expect(f.probes).toEqual([]);
  });

  it('fails when no candidate satisfies Armijo within the iteration cap', () => {
    // φ′(0) claims descent but φ rises for every α > 0
    const liar: LineObjective = {
      evaluate(alpha, _o, out) {
        out.phi = alpha * alpha + alpha;
        out.dphi = 2 * alpha + 1;
      },
    };
    expect(armijoDecay(liar, 0, -1, { ...params('armijo_decay'), max_iterations: 10 }).status).toBe('failed');
  });
});

describe('exact_root', () => {
  it('finds the minimiser of a quadratic in one Newton step from the clipped guess', () => {
    const f = quadratic(0.7, 3);
    const r = exactRoot(f, -2.1, params('exact_root'));
    expect(r.status).toBe('ok');
    expect(r.alpha).toBeCloseTo(0.7, 14);
    expect(f.probes[0]).toBe(EXACT_ALPHA_MAX);
    expect(f.probes[1]).toBeCloseTo(0.7, 14); // −φ′(0)/φ″(α_max)
  });

  it('finds the root of a non-quadratic φ′ to the normalized tolerance', () => {
    const f = softplusLike();
    const r = exactRoot(f, 1 - 3, params('exact_root'));
    expect(r.status).toBe('ok');
    expect(Math.abs(Math.exp(r.alpha) - 3) / 2).toBeLessThan(1e-8);
    // Newton steps, not bisection: a handful of evaluations
    expect(r.iterations).toBeLessThan(8);
  });

  it('accepts α_max when φ′(α_max) ≤ 0', () => {
    const f = quadratic(3);
    expect(exactRoot(f, -3, params('exact_root'))).toEqual({ status: 'ok', alpha: 1.5, iterations: 1 });
  });

  it('accepts α = 1 when −φ′(0) is below the cost tolerance', () => {
    const f = quadratic(0.5, 1e-20, 1);
    const p = { ...params('exact_root'), cost_abs_tol: 1e-12 };
    expect(exactRoot(f, -0.5e-20, p).alpha).toBe(1);
  });

  it('reports a non-descent direction', () => {
    expect(exactRoot(quadratic(-1), 1, params('exact_root')).status).toBe('not_descent');
  });

  it('falls back to bisection for a kinked φ′ and still converges', () => {
    // φ′ = α − 0.3 for α < 0.3 and 100(α − 0.3) beyond: Newton from the guess overshoots
    const kink: LineObjective = {
      evaluate(alpha, _o, out) {
        const d = alpha - 0.3;
        out.phi = d < 0 ? 0.5 * d * d : 50 * d * d;
        out.dphi = d < 0 ? d : 100 * d;
        out.d2phi = d < 0 ? 1 : 100;
      },
    };
    const r = exactRoot(kink, -0.3, params('exact_root'));
    expect(r.status).toBe('ok');
    expect(r.alpha).toBeCloseTo(0.3, 8);
  });
});

describe('lineSearch dispatch', () => {
  it('routes by variant', () => {
    expect(lineSearch(quadratic(0.7), 0.245, -0.7, params('monotone_decay')).alpha).toBe(1);
    expect(lineSearch(quadratic(0.7), 0.245, -0.7, params('armijo_decay')).alpha).toBeCloseTo(0.64, 12);
    expect(lineSearch(quadratic(0.7), 0.245, -0.7, params('exact_root')).alpha).toBeCloseTo(0.7, 12);
  });
});
