/**
 * The one-call entry to the solver: solves a pure-data `SapProblem` with a shared `SapSolver`.
 * (Beside problem.ts, which holds the problem's types only, so that the solver may import them.)
 */
import type { SapSolverOptions } from './options';
import type { SapProblem, SapSolveResult } from './problem';
import { SapSolver } from './solver';

/**
 * Solves a SAP problem.
 *
 * @param p        the problem (not modified)
 * @param options  solver options (SPEC §3.6), expanded with `resolveSolverOptions`; throws
 *                 `OptionsError` for unknown keys or bad values
 * @param v_guess  initial guess (Σ nv entries); defaults to v*
 * @returns        the result; numerical trouble is reported in `status`, never thrown
 */
export function solveSapProblem(
  p: SapProblem,
  options?: Partial<SapSolverOptions>,
  v_guess?: Float64Array,
): SapSolveResult {
  // one solver for all calls: a solver's kernel memory costs more to make than a small problem
  // costs to solve, and a solve's result never depends on earlier solves (its arrays are its own)
  const solver = (sharedSolver ??= new SapSolver());
  solver.setOptions(options ?? {});
  return solver.solve(p, v_guess);
}

let sharedSolver: SapSolver | null = null;
