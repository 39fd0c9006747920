/**
 * Stage 4 of the step, solve (SPEC §3.2): the SAP Newton iterations (engine/sap) on one world's
 * packed problem, from the warm start the stepper is set to.
 */
import type { SapSolver } from '../sap/solver';
import type { WorldReport } from './report';
import type { SapData } from './sap_data';
import type { WarmStart } from './warm_start';

/**
 * Solves world w's problem d.problem into d.v_next (its DOFs) and fills the report's solve
 * fields; a world without cliques takes v* unsolved. Returns whether a solve ran (its impulses
 * are then in `sap`).
 */
export function solveStage(
  d: SapData,
  sap: SapSolver,
  w: number,
  warm_start: WarmStart,
  report: WorldReport,
): boolean {
  const pp = d.problem;
  const vOut = d.v_next_world[w];
  if (pp.nCliques === 0) {
    vOut.set(d.v_star_world[w]);
    return false;
  }
  if (sap.tracer !== null) sap.tracer.world = w;
  const res =
    warm_start === 'free_motion'
      ? sap.solvePacked(pp, undefined, vOut)
      : sap.solvePacked(pp, d.v_n_world[w], vOut, d.extrapolated[w] ? d.v_alt_world[w] : undefined);
  report.status = res.status;
  report.iterations = res.iterations;
  report.line_search_iterations = res.line_search_iterations;
  report.cost = res.cost;
  if (res.islands > 1) report.islands = res.islands;
  if (res.alt_start) report.extrapolated_start = true;
  return true;
}
