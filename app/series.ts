/**
 * The ablation series the plots draw: one-step samples (`series`) and trajectory-mode samples
 * (`trajectory`), plain arrays mutated in place and capped to the newest points, their listeners
 * and their CSV. The session (session.ts) pushes the worker's samples here.
 */
import type { AblationSample, TrajectoryAblationSample } from '../engine/worker/protocol';

/** the plotted series (plain arrays, mutated in place; `version` bumps on change) */
export const series = {
  time: [] as number[],
  dp: [] as (number | null)[],
  dm: [] as (number | null)[],
  dpMax: [] as number[],
  dmMax: [] as number[],
  iterations: [] as number[],
  contacts: [] as number[],
  lineSearch: [] as number[],
  stepMs: [] as number[],
  /** kinetic, potential and total energy of the live state, all worlds [J] (null: not reported) */
  kinetic: [] as (number | null)[],
  potential: [] as (number | null)[],
  energy: [] as (number | null)[],
  /** whether drives, joint efforts or body wrenches acted at the sample */
  driven: [] as boolean[],
  /** how many solver-option changes preceded the sample (the energy drift restarts at a change) */
  epoch: [] as number[],
  version: 0,
};
const MAX_POINTS = 4000;
const seriesListeners = new Set<() => void>();
export function onSeries(fn: () => void): () => void {
  seriesListeners.add(fn);
  return () => seriesListeners.delete(fn);
}
/** the columns of {@link series}, index-aligned with `series.time` */
const SERIES_COLUMNS: unknown[][] = [
  series.time,
  series.dp,
  series.dm,
  series.dpMax,
  series.dmMax,
  series.iterations,
  series.contacts,
  series.lineSearch,
  series.stepMs,
  series.kinetic,
  series.potential,
  series.energy,
  series.driven,
  series.epoch,
];
let optionsEpoch = 0;
/** a solver-option change: later samples carry the next epoch (the energy drift restarts there) */
export function bumpOptionsEpoch(): void {
  optionsEpoch++;
}
/** after a push: keeps the newest MAX_POINTS rows of `columns`, then tells the plots */
function changed(columns: unknown[][], bump: () => void): void {
  if (columns[0].length > MAX_POINTS) for (const a of columns) a.splice(0, a.length - MAX_POINTS);
  bump();
  seriesListeners.forEach((f) => f());
}
/** log-scale plots cannot show 0: such values become gaps */
const positive = (x: number): number | null => (x > 0 && Number.isFinite(x) ? x : null);

export function clearSeries(fromTime = -Infinity): void {
  let n = series.time.findIndex((t) => t >= fromTime);
  if (n < 0) n = series.time.length;
  for (const a of SERIES_COLUMNS) a.length = n;
  changed(SERIES_COLUMNS, () => series.version++);
}
export function pushSample(s: AblationSample): void {
  const last = series.time[series.time.length - 1];
  if (last !== undefined && s.time <= last) clearSeries(s.time); // history rewound (reset, seek)
  series.time.push(s.time);
  series.dp.push(positive(s.delta_precision));
  series.dm.push(positive(s.delta_model));
  series.dpMax.push(s.delta_precision_max);
  series.dmMax.push(s.delta_model_max);
  series.iterations.push(s.iterations);
  series.contacts.push(s.contacts);
  series.lineSearch.push(s.line_search_iterations);
  series.stepMs.push(s.step_ms);
  // (a worker of protocol version 2 reports no energy)
  const ke = Number.isFinite(s.kinetic_energy) ? s.kinetic_energy : null;
  const pe = Number.isFinite(s.potential_energy) ? s.potential_energy : null;
  series.kinetic.push(ke);
  series.potential.push(pe);
  series.energy.push(ke !== null && pe !== null ? ke + pe : null);
  series.driven.push(s.driven === true);
  series.epoch.push(optionsEpoch);
  changed(SERIES_COLUMNS, () => series.version++);
}

/** the trajectory-mode series (divergence of the shadow simulations since `start`) */
export const trajectory = {
  time: [] as number[],
  start: 0,
  qp: [] as (number | null)[],
  qm: [] as (number | null)[],
  vp: [] as (number | null)[],
  vm: [] as (number | null)[],
  version: 0,
};
const TRAJECTORY_COLUMNS: unknown[][] = [
  trajectory.time,
  trajectory.qp,
  trajectory.qm,
  trajectory.vp,
  trajectory.vm,
];
export function clearTrajectory(): void {
  for (const a of TRAJECTORY_COLUMNS) a.length = 0;
  changed(TRAJECTORY_COLUMNS, () => trajectory.version++);
}
export function pushTrajectory(s: TrajectoryAblationSample): void {
  const last = trajectory.time[trajectory.time.length - 1];
  // a restart (reset, seek, new options) begins a new series
  if (s.start_time !== trajectory.start || (last !== undefined && s.time <= last)) clearTrajectory();
  trajectory.start = s.start_time;
  trajectory.time.push(s.time);
  trajectory.qp.push(positive(s.q_precision));
  trajectory.qm.push(positive(s.q_model));
  trajectory.vp.push(positive(s.v_precision));
  trajectory.vm.push(positive(s.v_model));
  changed(TRAJECTORY_COLUMNS, () => trajectory.version++);
}

/** CSV of the series */
export function seriesCsv(): string {
  const rows = [
    'time_s,delta_precision,delta_model,delta_precision_max,delta_model_max,iterations,contacts,line_search_iterations,step_ms,kinetic_energy_J,potential_energy_J,driven',
  ];
  for (let i = 0; i < series.time.length; i++) {
    rows.push(
      [
        series.time[i],
        series.dp[i] ?? 0,
        series.dm[i] ?? 0,
        series.dpMax[i],
        series.dmMax[i],
        series.iterations[i],
        series.contacts[i],
        series.lineSearch[i],
        series.stepMs[i],
        series.kinetic[i] ?? '',
        series.potential[i] ?? '',
        series.driven[i] ? 1 : 0,
      ].join(','),
    );
  }
  if (trajectory.time.length > 0) {
    rows.push('', `trajectory from t0 = ${trajectory.start} s`);
    rows.push('time_s,q_precision,q_model,v_precision,v_model');
    for (let i = 0; i < trajectory.time.length; i++) {
      rows.push(
        [
          trajectory.time[i],
          trajectory.qp[i] ?? 0,
          trajectory.qm[i] ?? 0,
          trajectory.vp[i] ?? 0,
          trajectory.vm[i] ?? 0,
        ].join(','),
      );
    }
  }
  return rows.join('\n') + '\n';
}
