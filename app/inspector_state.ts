/**
 * The step inspector's slow UI state (a zustand store of its own) and the pure helpers its panel
 * draws with: the iteration table's rows, the φ(α) chart's columns and the parsing of the
 * "re-solve under…" overrides. No imports from session.ts (it routes `inspection` events here).
 */
import { create } from 'zustand';
import type { StepInspection } from '../engine/worker/protocol';

/** one traced Newton iterate (engine/sap/trace.ts) */
type SapIterationTrace = StepInspection['iterates'][number];

type OptionValue = string | number | boolean;

/** one solve shown by the inspector: A (the step as live options solve it) or B (re-solved under…) */
export interface InspectorRun {
  /** legend label, e.g. "A: drake · exact_root" */
  label: string;
  inspection: StepInspection;
}

export interface InspectorState {
  open: boolean;
  /** id of the request awaiting its answer, and which slot it fills */
  pending: { id: number; slot: 'a' | 'b' } | null;
  a: InspectorRun | null;
  b: InspectorRun | null;
  /** the iterate whose φ(α) the chart draws (index into the runs' iterates) */
  selected: number;
  error: string | null;
  set(patch: Partial<InspectorState>): void;
  /** an `inspection` event: fills the pending slot (an answer to an older request is dropped) */
  receive(ins: StepInspection): void;
  /** an error event: an `inspect` or `options` error answers the pending request */
  failed(e: { code: string; message: string }): void;
}

export const useInspector = create<InspectorState>()((set, get) => ({
  open: false,
  pending: null,
  a: null,
  b: null,
  selected: 0,
  error: null,
  set: (patch) => set(patch),
  receive: (ins) => {
    const p = get().pending;
    if (p === null || ins.id !== p.id) return;
    const run: InspectorRun = { label: runLabel(p.slot, ins), inspection: ins };
    if (p.slot === 'a') set({ a: run, b: null, pending: null, error: null, selected: 0 });
    else set({ b: run, pending: null, error: null });
  },
  failed: (e) => {
    if (get().pending === null || (e.code !== 'inspect' && e.code !== 'options')) return;
    set({ pending: null, error: e.message });
  },
}));

/** "A: drake · exact_root" (plus the explicit overrides that are not preset or line search) */
export function runLabel(slot: 'a' | 'b', ins: StepInspection): string {
  return `${slot.toUpperCase()}: ${ins.preset} · ${ins.line_search}`;
}

/** the iterates of world 0 (the table and chart show one world; `worlds` counts them) */
export function worldIterates(ins: StepInspection, world = 0): SapIterationTrace[] {
  return ins.iterates.filter((r) => r.world === world);
}

const sci = (x: number | null, d = 3) => (x === null || !Number.isFinite(x) ? '—' : x.toExponential(d));

/** the iteration table's cells per iterate of world 0 */
export function iterationRows(ins: StepInspection): string[][] {
  return worldIterates(ins).map((r) => [
    r.island > 0 ? `${r.island}.${r.iteration}` : String(r.iteration),
    sci(r.cost, 6),
    sci(r.relative_residual, 2),
    r.alpha === null ? '—' : r.alpha.toPrecision(4),
    String(r.trials.length),
    String(r.region_changes),
    `${r.stick}/${r.slip}/${r.open}`,
  ]);
}

export const ITERATION_COLUMNS = ['k', 'ℓ [J]', '‖D∇ℓ‖ rel.', 'α', 'trials', 'Δregion', 'stick/slip/open'];

/** the φ(α) chart: x = α, then per run its Δφ = φ(α) − φ(0) curve and its accepted point */
export interface InspectorChart {
  /** uPlot columns: [α, curve A, accepted A, (curve B, accepted B)] (null: no sample there) */
  data: (number | null)[][];
  /** the series' legend labels, in column order after α */
  labels: string[];
}

/**
 * the chart of iterate `k`: every run's sampled Δφ(α) over its [0, α_max] on one sorted α axis
 * (a run has no value at another run's α: null, the line spans the gap) and its accepted α as a
 * point; a run without a step at k (it converged sooner) adds empty series
 */
export function inspectorChart(runs: InspectorRun[], k: number): InspectorChart {
  const its = runs.map((r) => worldIterates(r.inspection)[k] ?? null);
  const xs = new Set<number>();
  for (const it of its) {
    if (!it) continue;
    for (const a of it.curve_alpha) xs.add(a);
    if (it.alpha !== null) xs.add(it.alpha);
  }
  const alphas = [...xs].sort((p, q) => p - q);
  const at = new Map(alphas.map((a, i) => [a, i]));
  const data: (number | null)[][] = [alphas];
  const labels: string[] = [];
  runs.forEach((run, j) => {
    const it = its[j];
    const curve: (number | null)[] = alphas.map(() => null);
    const point: (number | null)[] = alphas.map(() => null);
    if (it && it.curve_alpha.length > 0) {
      const phi0 = it.curve_phi[0];
      it.curve_alpha.forEach((a, i) => (curve[at.get(a)!] = it.curve_phi[i] - phi0));
      if (it.alpha !== null) {
        const i = at.get(it.alpha)!;
        // φ at the accepted α: the line search's own trial there, else the curve's nearest sample
        const trial = it.trials.find((t) => t.alpha === it.alpha);
        point[i] = (trial ? trial.phi : nearestPhi(it, it.alpha)) - phi0;
        if (curve[i] === null) curve[i] = point[i];
      }
    }
    data.push(curve, point);
    labels.push(`${run.label} Δφ(α)`, `${run.label} accepted α`);
  });
  return { data, labels };
}

function nearestPhi(it: SapIterationTrace, alpha: number): number {
  let best = 0;
  for (let i = 1; i < it.curve_alpha.length; i++) {
    if (Math.abs(it.curve_alpha[i] - alpha) < Math.abs(it.curve_alpha[best] - alpha)) best = i;
  }
  return it.curve_phi[best];
}

/** an override the "re-solve under…" field could not read, with its position in the text */
export class OverrideParseError extends Error {
  constructor(
    message: string,
    readonly column: number,
  ) {
    super(message);
    this.name = 'OverrideParseError';
  }
}

/**
 * "key=value" pairs separated by spaces or commas (the CLI's `--set`): true / false are booleans,
 * finite numbers numbers, anything else a string; the worker validates the keys and values
 */
export function parseOverrides(text: string): Record<string, OptionValue> {
  const out: Record<string, OptionValue> = {};
  const re = /[^\s,]+/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const tok = m[0];
    const eq = tok.indexOf('=');
    if (eq <= 0 || eq === tok.length - 1) {
      throw new OverrideParseError(`'${tok}' at column ${m.index + 1} is not key=value`, m.index + 1);
    }
    const key = tok.slice(0, eq);
    const raw = tok.slice(eq + 1);
    const num = Number(raw);
    out[key] = raw === 'true' ? true : raw === 'false' ? false : Number.isFinite(num) ? num : raw;
  }
  return out;
}

/**
 * the residual chart's columns: x = the row index of world 0's iterates, one relative residual
 * column per run (null past a run's last iterate; non-positive values null for the log axis)
 */
export function residualChart(runs: InspectorRun[]): (number | null)[][] {
  const its = runs.map((r) => worldIterates(r.inspection));
  const n = Math.max(0, ...its.map((x) => x.length));
  const xs = Array.from({ length: n }, (_, k) => k);
  return [
    xs,
    ...its.map((x) => xs.map((k) => (x[k] && x[k].relative_residual > 0 ? x[k].relative_residual : null))),
  ];
}

/** what the φ(α) chart draws now (read by the test-build hook `__sapStudio.inspector()`) */
export const chartView: { labels: string[]; points: number; iteration: number } = {
  labels: [],
  points: 0,
  iteration: 0,
};

/** the inspector as the e2e tests read it: open, pending, each run's summary and the chart */
export function inspectorSnapshot() {
  const st = useInspector.getState();
  const run = (r: InspectorRun | null) =>
    r && {
      label: r.label,
      step: r.inspection.step,
      which: r.inspection.which,
      preset: r.inspection.preset,
      line_search: r.inspection.line_search,
      status: r.inspection.status,
      contacts: r.inspection.contacts,
      rows: worldIterates(r.inspection).length,
      cost: worldIterates(r.inspection).map((x) => x.cost),
      alpha: worldIterates(r.inspection).map((x) => x.alpha),
    };
  return {
    open: st.open,
    pending: st.pending !== null,
    error: st.error,
    a: run(st.a),
    b: run(st.b),
    chart: { labels: chartView.labels.slice(), points: chartView.points, iteration: chartView.iteration },
  };
}
