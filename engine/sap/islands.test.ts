/**
 * Constraint islands: labelling, and `solve_islands` against solving every island on its own.
 *
 * A problem made of independent parts (each part one island) solved with `solve_islands` must give,
 * bit for bit, what each part gives when solved alone (velocities, impulses, constraint velocities,
 * Jᵀγ, contact regions), with the outcome combined as documented: the most Newton iterations of any
 * part, the line-search iterations of all, the costs summed per iteration. Solved whole, the same
 * problem reaches the same minimizer within the solver's tolerance.
 */
import { describe, expect, it } from 'vitest';
import { SapIslands } from './islands';
import { PackedSapProblem, SapKind } from './packed_problem';
import type { SapConstraintSpec, SapProblem, SapSolveResult } from './problem';
import { SapSolver } from './solver';
import type { LinalgKernels } from './linalg/wasm/kernels';
import { boxOnPlane, cliquePile, holonomicMix, limitsAndDrives, pointOnPlane, twoCliques } from './testing';

const DT = 0.005;

/** the parts, each connected (one island), on a common time step */
function parts(): SapProblem[] {
  return [boxOnPlane(), twoCliques(), limitsAndDrives(), holonomicMix(), pointOnPlane()].map((p) => ({
    ...p,
    dt: DT,
  }));
}

/** one problem holding all parts, cliques and constraints in part order */
function merge(ps: SapProblem[]): SapProblem {
  const cliques: SapProblem['cliques'] = [];
  const constraints: SapConstraintSpec[] = [];
  const vs: number[] = [];
  for (const p of ps) {
    const c0 = cliques.length;
    cliques.push(...p.cliques);
    vs.push(...p.v_star);
    for (const s of p.constraints) {
      if (s.kind === 'contact' || s.kind === 'holonomic' || s.kind === 'tendon') {
        constraints.push({ ...s, cliques: s.cliques.map((c) => c + c0) } as SapConstraintSpec);
      } else {
        constraints.push({ ...s, clique: s.clique + c0 });
      }
    }
  }
  return { dt: DT, cliques, v_star: Float64Array.from(vs), constraints };
}

function solver(opts: Record<string, unknown>, kernels: LinalgKernels): SapSolver {
  const s = new SapSolver(opts as never);
  s.kernels = kernels;
  return s;
}

describe('SapIslands.find', () => {
  it('labels cliques and constraints by connected component, islands numbered by their first clique', () => {
    const pp = new PackedSapProblem();
    pp.reset(DT);
    for (const nv of [6, 6, 0, 6, 6, 3]) pp.addClique(nv, new Float64Array(nv * nv));
    pp.beginContact(0, -1); // 0: ground contact of clique 0
    pp.beginContact(1, 0); // 1: couples 0 and 1
    pp.beginContact(1, 2); // 2: clique 2 has no velocities and couples nothing
    pp.beginContact(3, -1); // 3
    pp.beginConstraint(SapKind.Holonomic, 2); // 4: couples 5 and 4
    pp.addBlock(5);
    pp.addBlock(4);
    pp.beginConstraint(SapKind.Limit, 0); // 5: no rows (a limit with no finite side)
    pp.addBlock(4);
    const isl = new SapIslands();
    expect(isl.find(pp)).toBe(3);
    expect(Array.from(isl.cliqueIsland.subarray(0, 6))).toEqual([0, 0, -1, 1, 2, 2]);
    expect(Array.from(isl.cliqueLocal.subarray(0, 6)).filter((_, c) => c !== 2)).toEqual([0, 1, 0, 0, 1]);
    const cons = (k: number) => Array.from(isl.conList.subarray(isl.conStart[k], isl.conStart[k + 1]));
    expect([cons(0), cons(1), cons(2)]).toEqual([[0, 1, 2], [3], [4, 5]]);

    // extracted island 2: cliques 4, 5 renumbered 0, 1; constraint 4's blocks in their order
    const sub = isl.extract(pp, 2, undefined);
    expect(sub.nCliques).toBe(2);
    expect(Array.from(sub.cliqueNv.subarray(0, 2))).toEqual([6, 3]);
    expect(sub.nCon).toBe(2);
    expect(Array.from(sub.blkClique.subarray(sub.blkStart[0], sub.blkStart[1]))).toEqual([1, 0]);
  });

  it('reports −1 when a constraint with rows touches no clique with velocities', () => {
    const pp = new PackedSapProblem();
    pp.reset(DT);
    pp.addClique(6, new Float64Array(36));
    pp.addClique(0, new Float64Array(0));
    pp.beginContact(0, -1);
    pp.beginContact(1, -1);
    expect(new SapIslands().find(pp)).toBe(-1);
  });
});

describe('solve_islands', () => {
  const cases: [string, Record<string, unknown>, LinalgKernels][] = [
    ['approx32, wasm', { contact_preset_variant: 'approx32' }, 'wasm'],
    ['drake, exact_root, js', { contact_preset_variant: 'drake', line_search_variant: 'exact_root' }, 'js'],
    [
      'approx64, armijo_decay, wasm',
      { contact_preset_variant: 'approx64', line_search_variant: 'armijo_decay' },
      'wasm',
    ],
  ];
  for (const [name, opts, kernels] of cases) {
    it(`equals solving every island alone, bit for bit (${name})`, () => {
      const ps = parts();
      const alone = ps.map((p) => solver(opts, kernels).solve(p));
      const whole = merge(ps);
      const r = solver({ ...opts, solve_islands: true }, kernels).solve(whole);
      expect(r.status).toBe('converged');

      let c0 = 0;
      let v0 = 0;
      let i0 = 0;
      for (let k = 0; k < ps.length; k++) {
        const a = alone[k];
        const nv = ps[k].v_star.length;
        expect(Array.from(r.v.subarray(v0, v0 + nv))).toEqual(Array.from(a.v));
        expect(Array.from(r.j.subarray(v0, v0 + nv))).toEqual(Array.from(a.j));
        for (let i = 0; i < ps[k].constraints.length; i++) {
          expect(Array.from(r.gamma[i0 + i])).toEqual(Array.from(a.gamma[i]));
          expect(Array.from(r.vc![i0 + i])).toEqual(Array.from(a.vc![i]));
          expect(r.contact_state![i0 + i]).toBe(a.contact_state![i]);
        }
        c0 += ps[k].cliques.length;
        v0 += nv;
        i0 += ps[k].constraints.length;
      }
      expect(c0).toBe(whole.cliques.length);

      // combined outcome
      expect(r.iterations).toBe(Math.max(...alone.map((a) => a.iterations)));
      expect(r.line_search_iterations).toBe(alone.reduce((s, a) => s + a.line_search_iterations, 0));
      const n = Math.max(...alone.map((a) => a.cost.length));
      expect(r.cost.length).toBe(n);
      for (let t = 0; t < n; t++) {
        const sum = alone.reduce((s, a) => s + a.cost[Math.min(t, a.cost.length - 1)], 0);
        expect(r.cost[t]).toBeCloseTo(sum, 12);
      }
    });
  }

  it('reaches the minimizer of the whole solve', () => {
    const whole = merge(parts());
    const opts = { contact_preset_variant: 'approx64', line_search_variant: 'exact_root' };
    const a = solver(opts, 'wasm').solve(whole);
    const b = solver({ ...opts, solve_islands: true }, 'wasm').solve(whole);
    expect(a.status).toBe('converged');
    expect(b.status).toBe('converged');
    const scale = Math.max(...Array.from(a.v, Math.abs));
    for (let k = 0; k < a.v.length; k++) expect(Math.abs(a.v[k] - b.v[k])).toBeLessThan(1e-6 * scale);
  });

  it('is a no-op on a connected problem', () => {
    const p = cliquePile(3, 16);
    const isl = new SapIslands();
    const pp = new PackedSapProblem();
    pp.reset(p.dt);
    for (const c of p.cliques) pp.addClique(c.nv, c.A);
    for (const s of p.constraints) pp.addSpec(s);
    expect(isl.find(pp)).toBe(1);
    const a = solver({}, 'wasm').solve(p);
    const b = solver({ solve_islands: true }, 'wasm').solve(p);
    expect(Array.from(b.v)).toEqual(Array.from(a.v));
    expect(b.cost).toEqual(a.cost);
  });

  it('reports invalid input with the index of the whole problem', () => {
    const ps = parts();
    const whole = merge(ps);
    const bad = ps[0].cliques.length + ps[1].cliques.length; // first clique of the third part
    const A = Float64Array.from(whole.cliques[bad].A);
    A[1] = NaN;
    whole.cliques[bad] = { ...whole.cliques[bad], A };
    const a = solver({}, 'wasm').solve(whole);
    const b = solver({ solve_islands: true }, 'wasm').solve(whole);
    expect(b.status).toBe('invalid_input');
    expect(b.message).toBe(a.message);
    expect(b.message).toContain(`cliques[${bad}]`);
  });

  it('names the island of a non-converged status', () => {
    const whole = merge(parts());
    const r: SapSolveResult = solver({ solve_islands: true, max_iterations: 1 }, 'wasm').solve(whole);
    expect(r.status).toBe('max_iterations');
    expect(r.message).toMatch(/^island \d+: no convergence after 1 Newton iterations/);
  });
});
