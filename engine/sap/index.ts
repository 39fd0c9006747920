/**
 * SAP contact solver: options, the pure-data problem API, the reusable Newton solver, constraint
 * kernels, line searches and the dense blocked Cholesky.
 */

export * from './options';
export * from './problem';
export { solveSapProblem } from './solve';
export { SapSolver, diagDelassusWeight, lineSearchAlphaMax, MIN_DELASSUS_WEIGHT } from './solver';
export * from './trace';
export * from './linesearch';
export * from './linalg/cholesky';
export * from './constraints/common';
export * from './constraints/contact';
export * from './constraints/limit';
export * from './constraints/pd';
export * from './constraints/holonomic';
