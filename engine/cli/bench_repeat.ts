/**
 * The bench's repeat check (`npm run bench -- --repeat N`): the whole bench run N times in the same
 * process, each run from scratch (its own simulations, peers and peer workers, warm-ups and
 * rounds), and every row's ratio ours / peer compared across the runs. A trustworthy bench gives
 * the same ratios on the same machine: the check reports each row's change, max / min − 1 over
 * the runs, against {@link REPEAT_TOLERANCE}.
 */
import type { PeerName } from './bench_scene';

/** the change between runs a row's ratio is expected to stay within (max / min − 1) */
export const REPEAT_TOLERANCE = 0.1;

/** what the check reads of a bench row (BenchRow has these fields) */
export interface RatioRow {
  scene: string;
  preset: string;
  line_search: string;
  solve_islands: boolean;
  overrides: Record<string, unknown>;
  backend: string;
  num_worlds: number;
  ratio?: Partial<Record<PeerName, number>>;
}

/** one row × peer across the runs */
export interface RepeatRatio {
  scene: string;
  preset: string;
  line_search: string;
  solve_islands: boolean;
  overrides: Record<string, unknown>;
  backend: string;
  num_worlds: number;
  peer: PeerName;
  /** the ratio of each run, in run order (null: not measured in that run) */
  values: (number | null)[];
  /** max / min − 1 over the runs that measured it (NaN with fewer than two) */
  change: number;
}

/** the repeat check's result (BenchResult.repeat_check) */
export interface RepeatCheck {
  runs: number;
  /** the change each row's ratio is expected to stay within */
  tolerance: number;
  ratios: RepeatRatio[];
  /** the largest change over the rows */
  worst: number;
  /** rows × peers within the tolerance, of those measured in at least two runs */
  within: number;
  compared: number;
}

/** the key of a row's configuration */
function configKey(r: RatioRow): string {
  return JSON.stringify([
    r.scene,
    r.preset,
    r.line_search,
    r.solve_islands,
    r.overrides,
    r.backend,
    r.num_worlds,
  ]);
}

/**
 * compares the ratios of the same rows (scene, preset, line search, islands, variant, backend,
 * worlds) and peer over the runs' rows
 */
export function repeatCheck(
  runs: readonly (readonly RatioRow[])[],
  tolerance = REPEAT_TOLERANCE,
): RepeatCheck {
  const byKey = new Map<string, RepeatRatio>();
  runs.forEach((rows, k) => {
    for (const r of rows) {
      for (const [peer, v] of Object.entries(r.ratio ?? {}) as [PeerName, number][]) {
        const key = `${configKey(r)}/${peer}`;
        let e = byKey.get(key);
        if (!e) {
          e = {
            scene: r.scene,
            preset: r.preset,
            line_search: r.line_search,
            solve_islands: r.solve_islands,
            overrides: r.overrides,
            backend: r.backend,
            num_worlds: r.num_worlds,
            peer,
            values: runs.map(() => null),
            change: NaN,
          };
          byKey.set(key, e);
        }
        e.values[k] = Number.isFinite(v) && v > 0 ? v : null;
      }
    }
  });
  const ratios = [...byKey.values()];
  let worst = 0,
    within = 0,
    compared = 0;
  for (const e of ratios) {
    const v = e.values.filter((x): x is number => x !== null);
    if (v.length < 2) continue;
    e.change = Math.max(...v) / Math.min(...v) - 1;
    worst = Math.max(worst, e.change);
    compared++;
    if (e.change <= tolerance) within++;
  }
  return { runs: runs.length, tolerance, ratios, worst: compared ? worst : NaN, within, compared };
}

/** the repeat check as markdown lines: a table of each row's ratios per run and its change */
export function repeatCheckMarkdown(c: RepeatCheck): string[] {
  const pct = (x: number): string => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '–');
  const out = [
    `Repeat check: ${c.runs} runs of the whole bench in this process; ratio change (max / min − 1 over the runs) within ${pct(c.tolerance)} for ${c.within} of ${c.compared} rows × peers, worst ${pct(c.worst)}.`,
    '',
    `| scene | preset | line search | islands | set | peer | ${Array.from({ length: c.runs }, (_, k) => `run ${k + 1}`).join(' | ')} | change |`,
    `|---|---|---|---|---|---|${Array.from({ length: c.runs }, () => '---:').join('|')}|---:|`,
  ];
  for (const e of c.ratios) {
    const set = Object.entries(e.overrides)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',');
    out.push(
      `| ${e.scene} | ${e.preset} | ${e.line_search} | ${e.solve_islands ? 'on' : 'off'} | ${set || '–'} | ${e.peer} | ${e.values.map((v) => (v === null ? '–' : v.toFixed(2))).join(' | ')} | ${pct(e.change)}${e.change > c.tolerance ? ' ✗' : ''} |`,
    );
  }
  return out;
}
