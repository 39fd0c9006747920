/**
 * Quarantine of a world whose step went non-finite (or whose free-motion matrix is not positive
 * definite): the world keeps its input state — positions q_n and velocities v_n — and its report
 * says `invalid_input` with the first bad quantity, while the other worlds step on (SPEC §3.2).
 */
import type { SapModel } from '../model';
import type { SapState } from '../state';
import type { WorldReport } from './report';
import type { SapData } from './sap_data';

/** the first NaN or ±∞ among a[from..to) as `name[i - from] = value`, undefined when all are finite */
export function firstNonFinite(a: Float64Array, name: string, from = 0, to = a.length): string | undefined {
  for (let i = from; i < to; i++) if (!Number.isFinite(a[i])) return `${name}[${i - from}] = ${a[i]}`;
  return undefined;
}

/** why world w's free motion (d.free_motion_failed, d.v_star) cannot be solved, or undefined */
export function freeMotionFault(d: SapData, w: number): string | undefined {
  return d.free_motion_failed[w]
    ? 'free-motion dynamics matrix (not positive definite)'
    : firstNonFinite(d.v_star_world[w], 'v_star');
}

/**
 * Contains world w: its report becomes `invalid_input` with `reason` (locateNonfinite's input
 * form, e.g. "v[3] = NaN"), its solved velocities d.v_next revert to v_n and state_out's joint_q
 * over its coordinates to state_in's.
 */
export function quarantineWorld(
  m: SapModel,
  d: SapData,
  w: number,
  state_in: SapState,
  state_out: SapState,
  report: WorldReport,
  reason: string,
): void {
  report.status = 'invalid_input';
  report.nonfinite = reason;
  d.v_next_world[w].set(d.v_n_world[w]);
  const c0 = m.world_coord_start[w],
    c1 = m.world_coord_start[w + 1];
  state_out.joint_q.set(state_in.joint_q.subarray(c0, c1), c0);
}
