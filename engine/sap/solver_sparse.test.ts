/**
 * The block-sparse and the dense factorization paths of SapSolver give identical results: both
 * factor PHPᵀ (P: the minimum-degree clique order) with the same per-entry operation order, so the
 * equality holds bit for bit in fp64 and in fp32 (checked here against the stated 1e-10 bound and
 * exactly).
 */
import { describe, expect, it } from 'vitest';
import { SapSolver, type LinearSolverMode } from './solver';
import type { LinalgKernels } from './linalg/wasm/kernels';
import type { SapProblem } from './problem';
import {
  articulatedPair,
  boxOnPlane,
  cliquePile,
  holonomicMix,
  limitsAndDrives,
  pointOnPlane,
  twoCliques,
} from './testing';

const PROBLEMS: [string, () => SapProblem][] = [
  ['pointOnPlane', () => pointOnPlane()],
  ['boxOnPlane', () => boxOnPlane()],
  ['twoCliques', twoCliques],
  ['limitsAndDrives', () => limitsAndDrives()],
  ['holonomicMix', () => holonomicMix()],
  ['cliquePile(16)', () => cliquePile(3, 16)],
  ['cliquePile(40)', () => cliquePile(9, 40)],
  ['articulatedPair', () => articulatedPair()],
];

function solveWith(
  mode: LinearSolverMode,
  p: SapProblem,
  preset: string,
  ls: string,
  kernels: LinalgKernels = 'wasm',
) {
  const s = new SapSolver({ contact_preset_variant: preset, line_search_variant: ls } as never);
  s.kernels = kernels;
  expect(s.kernels).toBe(kernels);
  s.linear_solver = mode;
  const r = s.solve(p);
  return { r, used: s.last_linear_solver };
}

function maxRel(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let num = 0,
    den = 1e-300;
  for (let i = 0; i < a.length; i++) {
    num = Math.max(num, Math.abs(a[i] - b[i]));
    den = Math.max(den, Math.abs(b[i]));
  }
  return num / den;
}

describe('SapSolver: block-sparse = dense', () => {
  for (const preset of ['approx32', 'approx64', 'drake']) {
    for (const ls of ['monotone_decay', 'exact_root']) {
      for (const [name, make] of PROBLEMS) {
        it(`${name}, ${preset}, ${ls}`, () => {
          const p = make();
          const d = solveWith('dense', p, preset, ls);
          const s = solveWith('block_sparse', p, preset, ls);
          expect(d.used).toBe('dense');
          expect(s.used).toBe('block_sparse');
          expect(s.r.status).toBe(d.r.status);
          expect(d.r.status).not.toBe('invalid_input');
          expect(s.r.iterations).toBe(d.r.iterations);
          expect(s.r.line_search_iterations).toBe(d.r.line_search_iterations);
          expect(maxRel(s.r.v, d.r.v)).toBeLessThanOrEqual(1e-10);
          expect(Array.from(s.r.v)).toEqual(Array.from(d.r.v));
          expect(s.r.cost).toEqual(d.r.cost);
          for (let i = 0; i < d.r.gamma.length; i++)
            expect(Array.from(s.r.gamma[i])).toEqual(Array.from(d.r.gamma[i]));
        });
      }
    }
  }

  // the WebAssembly kernels (factorizations, solves, sparse assembly) against their JS twins
  for (const preset of ['approx32', 'drake']) {
    for (const [name, make] of PROBLEMS) {
      it(`${name}, ${preset}: WebAssembly kernels = JS kernels bit for bit (both paths)`, () => {
        const p = make();
        for (const mode of ['dense', 'block_sparse'] as const) {
          for (const ls of ['exact_root', 'monotone_decay']) {
            const w = solveWith(mode, p, preset, ls, 'wasm');
            const j = solveWith(mode, p, preset, ls, 'js');
            expect(w.r.iterations).toBe(j.r.iterations);
            expect(Array.from(w.r.v)).toEqual(Array.from(j.r.v));
            expect(w.r.cost).toEqual(j.r.cost);
          }
        }
      });
    }
  }

  // the Newton loop advances vc = Jv and A(v − v*) with each step of v (vc + αJΔv, Ar + αAΔv)
  // instead of multiplying again: the results must still be J and Jᵀγ of the returned v and γ
  it('the returned contact velocities are J·v and j is Jᵀγ (advanced, not re-multiplied)', () => {
    let multiStep = 0;
    for (const [preset, extra] of [
      ['approx32', {}],
      ['drake', {}],
      ['drake', { contact_solve_precision: 'fp32' }],
    ] as const) {
      for (const ls of ['monotone_decay', 'exact_root']) {
        for (const kernels of ['wasm', 'js'] as const) {
          for (const [name, make] of PROBLEMS) {
            const p = make();
            const s = new SapSolver({
              contact_preset_variant: preset,
              line_search_variant: ls,
              ...extra,
            } as never);
            s.kernels = kernels;
            const r = s.solve(p);
            expect(r.status, `${name} ${preset} ${ls} ${kernels}`).not.toBe('invalid_input');
            if (r.iterations > 1) multiStep++;
            const start: number[] = [];
            let nv = 0;
            for (const c of p.cliques) {
              start.push(nv);
              nv += c.nv;
            }
            const jRef = new Float64Array(nv);
            let vcErr = 0;
            let vcScale = 1e-300;
            p.constraints.forEach((con, i) => {
              if (con.kind !== 'contact') return;
              for (let k = 0; k < 3; k++) {
                let x = 0;
                con.cliques.forEach((c, b) => {
                  const n = p.cliques[c].nv;
                  for (let m = 0; m < n; m++) {
                    x += con.J[b][k * n + m] * r.v[start[c] + m];
                    jRef[start[c] + m] += con.J[b][k * n + m] * r.gamma[i][k];
                  }
                });
                vcErr = Math.max(vcErr, Math.abs(r.vc![i][k] - x));
                vcScale = Math.max(vcScale, Math.abs(x));
              }
            });
            // (fp32 solve precision: v, γ and j are binary32 values)
            const tol = 'contact_solve_precision' in extra ? 1e-5 : 1e-12;
            expect(vcErr / vcScale, `${name} ${preset} ${ls} ${kernels}: vc`).toBeLessThanOrEqual(tol);
            if (p.constraints.every((c) => c.kind === 'contact'))
              expect(maxRel(r.j, jRef), `${name} ${preset} ${ls} ${kernels}: j`).toBeLessThanOrEqual(tol);
          }
        }
      }
    }
    expect(multiStep).toBeGreaterThan(20);
  });

  // after a solve's first Newton iteration, H is updated with ΔG for the constraints whose G
  // changed; the iterates must be those of assembling from scratch, up to rounding
  it('incremental assembly of H = assembly from scratch (both paths, both kernel sets)', () => {
    let incremental = 0;
    let skipped = 0;
    for (const preset of ['approx32', 'drake']) {
      for (const ls of ['monotone_decay', 'exact_root']) {
        for (const mode of ['dense', 'block_sparse'] as const) {
          for (const kernels of ['wasm', 'js'] as const) {
            for (const [name, make] of PROBLEMS) {
              const p = make();
              const run = (inc: boolean) => {
                const s = new SapSolver({ contact_preset_variant: preset, line_search_variant: ls } as never);
                s.kernels = kernels;
                s.linear_solver = mode;
                s.incremental_hessian = inc;
                return { r: s.solve(p), n: s.assembly_counts };
              };
              const a = run(true);
              const b = run(false);
              const at = `${name} ${preset} ${ls} ${mode} ${kernels}`;
              expect(b.n.incremental, at).toBe(0);
              expect(a.n.full + a.n.incremental, at).toBe(b.n.full);
              expect(a.r.status, at).toBe(b.r.status);
              expect(Math.abs(a.r.iterations - b.r.iterations), at).toBeLessThanOrEqual(1);
              expect(maxRel(a.r.v, b.r.v), at).toBeLessThan(1e-9);
              incremental += a.n.incremental;
              skipped += a.n.incremental * p.constraints.length - a.n.changed;
            }
          }
        }
      }
    }
    // the incremental path ran, and it left constraints out (the test problems' sticking contacts)
    expect(incremental).toBeGreaterThan(100);
    expect(skipped).toBeGreaterThan(100);
  });

  it('assembles every iteration from scratch where a constraint is too stiff for increments', () => {
    const run = (sigma: number) => {
      const s = new SapSolver({ contact_preset_variant: 'drake', contact_sigma: sigma } as never);
      const r = s.solve(cliquePile(3, 16));
      expect(r.status).toBe('converged');
      expect(r.iterations).toBeGreaterThan(1);
      return s.assembly_counts;
    };
    // SAP's σ = 1e-3 (w·G up to 1e3): increments; σ = 1e-8 (w·G up to 1e8): none
    expect(run(1e-3).incremental).toBeGreaterThan(0);
    const stiff = run(1e-8);
    expect(stiff.incremental).toBe(0);
    expect(stiff.full).toBeGreaterThan(1);
  });

  it('auto picks block-sparse for a large pile and dense for one articulated clique', () => {
    const s = new SapSolver();
    s.solve(cliquePile(9, 40));
    expect(s.last_linear_solver).toBe('block_sparse');
    s.solve(limitsAndDrives());
    expect(s.last_linear_solver).toBe('dense');
  });

  it('one solver alternating between problems and modes keeps giving the same answers', () => {
    const s = new SapSolver();
    const ref = [cliquePile(3, 16), twoCliques(), cliquePile(9, 40)].map((p) => new SapSolver().solve(p).v);
    for (const mode of ['block_sparse', 'dense', 'auto'] as const) {
      s.linear_solver = mode;
      const out = [cliquePile(3, 16), twoCliques(), cliquePile(9, 40)].map((p) => s.solve(p).v);
      for (let k = 0; k < 3; k++) expect(Array.from(out[k])).toEqual(Array.from(ref[k]));
    }
  });
});
