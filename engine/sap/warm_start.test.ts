/**
 * The alternative start of `solvePacked` (vAlt): Newton begins from the lower-cost of vGuess and
 * vAlt, one evaluation more, and reaches the same solution either way.
 */
import { describe, expect, it } from 'vitest';
import type { SapSolverOptions } from './options';
import type { SapProblem } from './problem';
import { PackedSapProblem } from './packed_problem';
import { SapSolver } from './solver';
import { cliquePile, limitsAndDrives } from './testing';

const TIGHT: Partial<SapSolverOptions> = {
  optimality_rel_tol: 1e-12,
  cost_rel_tol: 1e-15,
  cost_abs_tol: 1e-30,
};

function pack(p: SapProblem): PackedSapProblem {
  const pp = new PackedSapProblem();
  pp.reset(p.dt);
  for (const c of p.cliques) pp.addClique(c.nv, c.A);
  for (const s of p.constraints) pp.addSpec(s);
  pp.v_star = p.v_star;
  return pp;
}

function maxAbsDiff(a: Float64Array, b: Float64Array): number {
  let d = 0;
  for (let k = 0; k < a.length; k++) d = Math.max(d, Math.abs(a[k] - b[k]));
  return d;
}

describe('solvePacked with an alternative start', () => {
  for (const [name, problem] of [
    ['cliquePile', cliquePile()],
    ['limitsAndDrives', limitsAndDrives()],
  ] as const) {
    for (const solve_islands of [false, true]) {
      it(`${name}${solve_islands ? ' (islands)' : ''}: starts from the lower-cost start, same solution`, () => {
        const pp = pack(problem);
        const nv = pp.nv;
        const solver = new SapSolver({ ...TIGHT, solve_islands });
        const vGuess = new Float64Array(nv); // v = 0: far from the solution
        const ref = new Float64Array(nv);
        const r0 = solver.solvePacked(pp, vGuess, ref);
        expect(r0.status).toBe('converged');
        expect(r0.alt_start).toBe(false);
        const it0 = r0.iterations;
        expect(it0).toBeGreaterThan(1);

        // a start near the solution has the lower cost: taken, fewer iterations, same v
        const near = Float64Array.from(ref, (x, k) => x + 1e-4 * Math.sin(k));
        const v1 = new Float64Array(nv);
        const r1 = solver.solvePacked(pp, vGuess, v1, near);
        expect(r1.alt_start).toBe(true);
        expect(r1.status).toBe('converged');
        expect(r1.iterations).toBeLessThan(it0);
        expect(maxAbsDiff(v1, ref)).toBeLessThan(1e-9);

        // a worse start (or a non-finite one) is not taken: the solve is the plain one, bit for bit
        const far = Float64Array.from(vGuess, (_, k) => 50 * Math.cos(k));
        const nan = new Float64Array(nv).fill(NaN);
        for (const alt of [far, nan]) {
          const v2 = new Float64Array(nv);
          const r2 = solver.solvePacked(pp, vGuess, v2, alt);
          expect(r2.alt_start).toBe(false);
          expect(r2.iterations).toBe(it0);
          expect(Array.from(v2)).toEqual(Array.from(ref));
        }

        // a guess that already meets the tolerance ends the solve there (the alternative is not read)
        const v3 = new Float64Array(nv);
        const r3 = solver.solvePacked(pp, ref, v3, near);
        expect(r3.iterations).toBe(0);
        expect(r3.alt_start).toBe(false);
        expect(Array.from(v3)).toEqual(Array.from(ref));

        // without a guess the alternative is ignored (the start is v*)
        const v4 = new Float64Array(nv);
        expect(solver.solvePacked(pp, undefined, v4, near).alt_start).toBe(false);
      });
    }
  }
});
