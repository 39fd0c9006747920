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
          const w = solveWith(mode, p, preset, 'exact_root', 'wasm');
          const j = solveWith(mode, p, preset, 'exact_root', 'js');
          expect(w.r.iterations).toBe(j.r.iterations);
          expect(Array.from(w.r.v)).toEqual(Array.from(j.r.v));
          expect(w.r.cost).toEqual(j.r.cost);
        }
      });
    }
  }

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
