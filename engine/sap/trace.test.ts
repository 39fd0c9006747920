import { describe, expect, it } from 'vitest';
import type { LineObjective, LineSample } from './linesearch';
import { EXACT_ALPHA_MAX } from './linesearch';
import { resolveSolverOptions, type LineSearchVariant } from './options';
import type { SapProblem } from './problem';
import { SapSolver } from './solver';
import { boxOnPlane, cliquePile } from './testing';
import { SapSolveTracer } from './trace';
import type { LinalgKernels } from './linalg/wasm/kernels';

/** two boxes on the plane in one problem (two islands) */
function twoBoxes(): SapProblem {
  const a = boxOnPlane();
  const b = boxOnPlane({ spin: -1 });
  return {
    dt: a.dt,
    cliques: [...a.cliques, ...b.cliques],
    v_star: Float64Array.from([...a.v_star, ...b.v_star]),
    constraints: [
      ...a.constraints,
      ...b.constraints.map((c) =>
        c.kind === 'contact' ? { ...c, cliques: c.cliques.map((q) => q + 1) } : c,
      ),
    ],
  };
}

/** a tracer that also checks φ′ against central differences of φ along every accepted direction */
class FdTracer extends SapSolveTracer {
  /** max over all checks of |φ′ − FD| / (1 + |φ′|) */
  worst = 0;
  checks = 0;
  override accepted(alpha: number, alphaMax: number, f: LineObjective): void {
    super.accepted(alpha, alphaMax, f);
    const s: LineSample = { phi: 0, dphi: 0, d2phi: 0 };
    for (const a of [0.13 * alphaMax, 0.5 * alpha, alpha, 0.77 * alphaMax]) {
      const h = 1e-6 * Math.max(1, a);
      f.evaluate(a + h, 0, s);
      const up = s.phi;
      f.evaluate(a - h, 0, s);
      const dn = s.phi;
      f.evaluate(a, 1, s);
      const fd = (up - dn) / (2 * h);
      // the cost is C¹ with kinks in φ″ at region changes: central differences are O(h²) away from them
      const err = Math.abs(s.dphi - fd) / (1 + Math.abs(s.dphi) + Math.abs(s.phi) * 1e-6);
      this.worst = Math.max(this.worst, err);
      this.checks++;
    }
  }
}

const VARIANTS: LineSearchVariant[] = ['monotone_decay', 'armijo_decay', 'exact_root'];
const CASES: [LineSearchVariant, LinalgKernels][] = VARIANTS.flatMap((v) =>
  (['js', 'wasm'] as const).map((k): [LineSearchVariant, LinalgKernels] => [v, k]),
);
const PROBLEMS: [string, () => SapProblem][] = [
  ['box on plane', () => boxOnPlane({ spin: 2 })],
  ['clique pile', () => cliquePile(3, 12)],
];

function alphaMaxOf(variant: LineSearchVariant): number {
  if (variant === 'armijo_decay') return 1 / resolveSolverOptions({}).rho;
  return variant === 'exact_root' ? EXACT_ALPHA_MAX : 1;
}

describe('SAP solve trace', () => {
  for (const [name, make] of PROBLEMS) {
    for (const [variant, kernels] of CASES) {
      it(`${name}, ${variant} (${kernels}): the traced solve equals the untraced one and its trace is consistent`, () => {
        const opts = resolveSolverOptions({ line_search_variant: variant });
        const untraced = new SapSolver(opts);
        untraced.kernels = kernels;
        const plain = untraced.solve(make());
        const solver = new SapSolver(opts);
        solver.kernels = kernels;
        const tr = new FdTracer(33);
        solver.tracer = tr;
        const traced = solver.solve(make());
        // tracing changes nothing: same velocities bit for bit, same costs
        expect(traced.status).toBe('converged');
        expect(Array.from(traced.v)).toEqual(Array.from(plain.v));
        expect(traced.cost).toEqual(plain.cost);
        expect(traced.iterations).toBe(plain.iterations);

        const its = tr.iterations;
        // one record per iterate, the last without a step
        expect(its.length).toBe(traced.iterations + 1);
        expect(its.map((r) => r.cost)).toEqual(traced.cost);
        expect(its.map((r) => r.iteration)).toEqual(its.map((_, k) => k));
        expect(its[its.length - 1].alpha).toBeNull();
        const nContacts = make().constraints.filter((c) => c.kind === 'contact').length;
        const amax = alphaMaxOf(variant);
        let lsTrials = 0;
        for (let k = 0; k < its.length; k++) {
          const r = its[k];
          expect(r.stick + r.slip + r.open).toBe(nContacts);
          if (k === 0) expect(r.region_changes).toBe(0);
          expect(r.region_changes).toBeLessThanOrEqual(nContacts);
          expect(r.relative_residual).toBeGreaterThanOrEqual(0);
          lsTrials += r.trials.length;
          if (k === its.length - 1) {
            // converged here: the optimality test or the cost criterion held
            const prev = its[k - 1].cost;
            const costMet =
              Math.abs(prev - r.cost) <
              opts.cost_abs_tol + opts.cost_rel_tol * 0.5 * (Math.abs(r.cost) + Math.abs(prev));
            expect(r.relative_residual <= r.tolerance || costMet).toBe(true);
            continue;
          }
          // a descent direction and an accepted α in (0, α_max]
          expect(r.dphi0).toBeLessThan(0);
          const a = r.alpha!;
          expect(a).toBeGreaterThan(0);
          expect(a).toBeLessThanOrEqual(amax);
          if (variant === 'monotone_decay') expect(a).toBeLessThanOrEqual(1);
          // cost decreasing: ℓ(v_{k+1}) ≤ ℓ(v_k) (monotone's slack 1e-14 + 1e-12|ℓ|)
          const next = its[k + 1].cost;
          expect(next).toBeLessThanOrEqual(r.cost + 1e-14 + 1e-12 * Math.abs(r.cost));
          // the trials: the accepted α is one of them (exact_root may take α = 1 on its tolerance test)
          // and the next iterate's cost is φ at it
          const hit = r.trials.find((t) => t.alpha === a);
          if (variant === 'monotone_decay') expect(r.trials[r.trials.length - 1].alpha).toBe(a);
          if (variant !== 'exact_root') expect(hit).toBeDefined();
          if (hit) expect(Math.abs(hit.phi - next)).toBeLessThanOrEqual(1e-9 * (1 + Math.abs(next)));
          // armijo and exact_root evaluate slopes, monotone_decay does not
          if (variant === 'monotone_decay') expect(r.trials.every((t) => t.dphi === null)).toBe(true);
          else expect(r.trials[0].dphi).not.toBeNull();
          // the sampled curve: 33 points over [0, α_max], φ(0) = ℓ(v_k), φ′(0) = ∇ℓ·Δv
          expect(r.curve_alpha.length).toBe(33);
          expect(r.curve_alpha[0]).toBe(0);
          expect(r.curve_alpha[32]).toBeCloseTo(Math.max(amax, a), 12);
          expect(Math.abs(r.curve_phi[0] - r.cost)).toBeLessThanOrEqual(1e-9 * (1 + Math.abs(r.cost)));
          expect(Math.abs(r.curve_dphi[0] - r.dphi0!)).toBeLessThanOrEqual(1e-8 * (1 + Math.abs(r.dphi0!)));
          // the curve is convex (ℓ is): second differences ≥ −rounding
          for (let i = 1; i + 1 < 33; i++) {
            const d2 = r.curve_phi[i + 1] - 2 * r.curve_phi[i] + r.curve_phi[i - 1];
            expect(d2).toBeGreaterThanOrEqual(-1e-10 * (1 + Math.abs(r.curve_phi[i])));
          }
        }
        expect(lsTrials).toBe(traced.line_search_iterations);
        // φ′ of the solver's line objective agrees with central differences of its φ
        expect(tr.checks).toBeGreaterThan(0);
        expect(tr.worst).toBeLessThan(1e-5);
      });
    }
  }

  it('counts contacts that change region between iterates (a sliding, spinning box)', () => {
    const solver = new SapSolver(resolveSolverOptions({}));
    const tr = new SapSolveTracer();
    solver.tracer = tr;
    // a fast slide from a v* far from the solution: the contacts move between stick, slip and open
    // from a start that lifts off (every contact open) to the solution in contact
    const p = boxOnPlane({ spin: 8, mu: 0.3 });
    const lift = Float64Array.from(p.v_star);
    lift[2] = 1;
    const res = solver.solve(p, lift);
    expect(tr.iterations[0].open).toBe(4);
    expect(res.status).toBe('converged');
    const changes = tr.iterations.reduce((s, r) => s + r.region_changes, 0);
    expect(changes).toBeGreaterThan(0);
    // the last iterate's counts are the result's contact states
    const last = tr.iterations[tr.iterations.length - 1];
    const states = res.contact_state!.filter((s) => s !== null);
    expect(last.stick).toBe(states.filter((s) => s === 'stick').length);
    expect(last.slip).toBe(states.filter((s) => s === 'slip').length);
    expect(last.open).toBe(states.filter((s) => s === 'open').length);
  });

  it('traces each island of a split problem with its island number', () => {
    const opts = resolveSolverOptions({ solve_islands: true });
    const solver = new SapSolver(opts);
    const tr = new SapSolveTracer();
    solver.tracer = tr;
    const res = solver.solve(twoBoxes());
    const islands = new Set(tr.iterations.map((r) => r.island));
    expect([...islands]).toEqual([0, 1]);
    expect(Math.max(...tr.iterations.map((r) => r.iteration))).toBe(res.iterations);
  });

  it('keeps only the whole problem’s solve when an island’s invalid input sends the solve back to it', () => {
    const p = twoBoxes();
    const A = Float64Array.from(p.cliques[1].A);
    A[1] = NaN;
    p.cliques[1] = { ...p.cliques[1], A };
    const traceOf = (islands: boolean) => {
      const solver = new SapSolver(resolveSolverOptions({ solve_islands: islands }));
      const tr = new SapSolveTracer();
      solver.tracer = tr;
      expect(solver.solve(p).status).toBe('invalid_input');
      return tr.iterations;
    };
    const whole = traceOf(false);
    const split = traceOf(true);
    expect(split.map((r) => [r.island, r.iteration, r.cost])).toEqual(
      whole.map((r) => [0, r.iteration, r.cost]),
    );
  });

  it('refuses a grid of fewer than two points', () => {
    expect(() => new SapSolveTracer(1)).toThrow(RangeError);
  });
});
