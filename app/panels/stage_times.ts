/**
 * The stats panel's per-stage rows: each stage's mean wall time per step and its share of the
 * stages' sum, in µs below a millisecond and in ms above.
 */
import { STEP_STAGES, type StageMs } from '../../engine/index';

/** panel row labels, in pipeline order (one per {@link STEP_STAGES} entry) */
export const STAGE_LABELS = ['collision', 'free motion', 'constraints', 'solve', 'integrate'] as const;
export type StageLabel = (typeof STAGE_LABELS)[number];

/** a duration [ms] with three significant digits, in µs below 1 ms */
export function formatDuration(ms: number): string {
  if (!(ms > 0)) return '0';
  return ms < 1 ? `${Number((ms * 1000).toPrecision(3))} µs` : `${Number(ms.toPrecision(3))} ms`;
}

/**
 * One text per stage row. `queued` (the WebGPU backend): free motion and constraints run inside the
 * solve's queue and integrate is the read-back, which the rows say instead of a misleading 0.
 */
export function stageRows(stages: StageMs | null, queued: boolean): Record<StageLabel, string> {
  const rows = {} as Record<StageLabel, string>;
  if (!stages) {
    for (const l of STAGE_LABELS) rows[l] = '—';
    return rows;
  }
  let sum = 0;
  for (const k of STEP_STAGES) sum += stages[k];
  STEP_STAGES.forEach((k, i) => {
    const ms = stages[k];
    const share = sum > 0 ? ` (${Math.round((100 * ms) / sum)}%)` : '';
    rows[STAGE_LABELS[i]] = formatDuration(ms) + share;
  });
  if (queued) {
    rows['free motion'] = 'queued in solve (GPU)';
    rows.constraints = 'queued in solve (GPU)';
    rows.integrate += ' read-back';
  }
  return rows;
}
