/**
 * The below-real-time badge's text: when the simulation runs slower than the speed asked for, how
 * much slower and which step stage costs the most (the stats' mean wall times per step).
 */
import { STEP_STAGES, type StageMs } from '../../engine/index';
import { STAGE_LABELS, formatDuration } from '../panels/stage_times';

/** the badge shows below this share of the requested speed */
export const SLOW_SHARE = 0.9;

/** what the badge needs of the worker's stats */
export interface RealtimeStats {
  playing: boolean;
  /** simulated seconds per wall second */
  realtime_factor: number;
  /** the requested real-time factor */
  speed: number;
  /** mean wall time per step [ms] */
  step_ms: number;
  stage_ms: StageMs | null;
  stages_queued: boolean;
}

/** the costliest stage of a step: its label and mean wall time [ms], null without stage times */
export function costliestStage(stages: StageMs | null): { label: string; ms: number } | null {
  if (!stages) return null;
  let best = -1;
  STEP_STAGES.forEach((k, i) => {
    if (best < 0 || stages[k] > stages[STEP_STAGES[best]]) best = i;
  });
  return best < 0 ? null : { label: STAGE_LABELS[best], ms: stages[STEP_STAGES[best]] };
}

/**
 * "0.31× real time (asked 1×) · collision 4.2 ms of 6.1 ms a step", or null while the simulation
 * keeps up (or is paused)
 */
export function slowdownText(s: RealtimeStats): string | null {
  if (!s.playing || !(s.speed > 0) || !(s.realtime_factor < SLOW_SHARE * s.speed)) return null;
  const rate = `${Number(s.realtime_factor.toPrecision(2))}× real time (asked ${s.speed}×)`;
  const top = costliestStage(s.stage_ms);
  if (!top) return rate;
  const label = s.stages_queued && top.label === 'solve' ? 'solve (GPU queue)' : top.label;
  return `${rate} · ${label} ${formatDuration(top.ms)} of ${formatDuration(s.step_ms)} a step`;
}
