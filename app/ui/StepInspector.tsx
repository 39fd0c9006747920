/**
 * The step inspector panel (issue 55, `i`): the traced SAP solve of the step the simulation is
 * paused on: a table of Newton iterations (cost ℓ, the relative residual the solver stops on, α,
 * line-search trials, contacts that changed region, the region counts), φ(α) − φ(0) along the
 * selected iteration's Newton direction with the accepted α marked, the relative residual per
 * iteration on a log axis, and "re-solve under…" (preset, line search, key=value overrides) whose
 * solve B is overlaid on A (second series, legend).
 */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { closeInspector, openInspector, refreshInspector, resolveUnder } from '../inspector';
import {
  chartView,
  inspectorChart,
  ITERATION_COLUMNS,
  iterationRows,
  residualChart,
  useInspector,
  worldIterates,
  type InspectorRun,
} from '../inspector_state';
import { linearRange, logRange, logSplits } from '../plots/range';
import { client } from '../session';
import { useStudio } from '../store';

const PRESETS = ['approx32', 'approx64', 'drake'];
const LINE_SEARCHES = ['monotone_decay', 'armijo_decay', 'exact_root'];
const COLORS = ['#8be9fd', '#ff79c6'];
const axis = { stroke: '#aab', grid: { stroke: '#2c313a' }, ticks: { stroke: '#2c313a' } };
const sciValue = (_u: uPlot, v: number | null) =>
  v === null || v === undefined ? '—' : Number(v).toExponential(3);

/** φ(α) − φ(0) of iterate k for each run: a line per run and its accepted α as a marker */
function PhiChart({ runs, k }: { runs: InspectorRun[]; k: number }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const host = el.current;
    if (!host || runs.length === 0) return;
    const chart = inspectorChart(runs, k);
    const series: uPlot.Series[] = [
      { label: 'α', value: (_u, v) => (v == null ? '—' : Number(v).toFixed(4)) },
    ];
    chart.labels.forEach((label, i) => {
      const color = COLORS[Math.floor(i / 2) % COLORS.length];
      series.push(
        i % 2 === 0
          ? { label, stroke: color, width: 1.5, spanGaps: true, points: { show: false }, value: sciValue }
          : {
              label,
              stroke: color,
              width: 0,
              paths: () => null,
              points: { show: true, size: 9, fill: color, stroke: '#fff' },
              value: sciValue,
            },
      );
    });
    const u = new uPlot(
      {
        width: Math.max(320, host.clientWidth || 480),
        height: 170,
        title: `φ(α) − φ(0) along the Newton direction of iteration ${k}`,
        scales: { x: { time: false }, y: { auto: true, range: linearRange } },
        axes: [
          { ...axis, label: 'α' },
          { ...axis, label: 'Δφ [J]', size: 64, values: (_u, t) => t.map((x) => Number(x).toExponential(1)) },
        ],
        series,
        legend: { live: true },
      },
      chart.data as uPlot.AlignedData,
      host,
    );
    chartView.labels = chart.labels;
    chartView.points = chart.data[0].length;
    chartView.iteration = k;
    return () => {
      u.destroy();
      chartView.labels = [];
      chartView.points = 0;
    };
  }, [runs, k]);
  return <div ref={el} className="inspector-chart" data-testid="inspector-phi-chart" />;
}

/** the relative residual per iteration (log axis), one line per run */
function ResidualChart({ runs }: { runs: InspectorRun[] }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const host = el.current;
    if (!host || runs.length === 0) return;
    const data = residualChart(runs);
    const u = new uPlot(
      {
        width: Math.max(320, host.clientWidth || 480),
        height: 120,
        title: 'relative residual ‖D∇ℓ‖ / max(‖Dp‖, ‖Dj‖)',
        scales: { x: { time: false }, y: { distr: 3, range: logRange } },
        axes: [
          { ...axis, label: 'Newton iteration' },
          {
            ...axis,
            size: 64,
            splits: logSplits,
            values: (_u, t) => t.map((x) => (x == null ? '' : Number(x).toExponential(0))),
          },
        ],
        series: [
          { label: 'k' },
          ...runs.map((r, i) => ({ label: r.label, stroke: COLORS[i % 2], width: 1.5, value: sciValue })),
        ],
      },
      data as uPlot.AlignedData,
      host,
    );
    return () => u.destroy();
  }, [runs]);
  return <div ref={el} className="inspector-chart" data-testid="inspector-residual-chart" />;
}

function IterationTable({
  run,
  selected,
  onSelect,
}: {
  run: InspectorRun;
  selected: number;
  onSelect(k: number): void;
}) {
  const rows = iterationRows(run.inspection);
  const ins = run.inspection;
  return (
    <div className="inspector-run">
      <div className="muted">
        {run.label} · step {ins.step} → {ins.step + 1} ({ins.which}) · {ins.status} · {ins.contacts} contacts
        · {ins.ms.toFixed(1)} ms
      </div>
      <table className="inspector-table" data-testid={`inspector-table-${run.label[0].toLowerCase()}`}>
        <thead>
          <tr>
            {ITERATION_COLUMNS.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((cells, k) => (
            <tr
              key={k}
              className={k === selected ? 'selected' : undefined}
              data-testid="inspector-row"
              onClick={() => onSelect(k)}
            >
              {cells.map((c, j) => (
                <td key={j}>{c}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** the "i" button: opens the step inspector */
export function StepInspectorButton() {
  return (
    <button
      className="inspect-button"
      title="step inspector (i)"
      data-testid="inspector-button"
      onClick={() => (useInspector.getState().open ? closeInspector() : openInspector())}
    >
      i
    </button>
  );
}

export function StepInspector() {
  const { open, a, b, pending, selected, error, set } = useInspector();
  const [preset, setPreset] = useState('approx32');
  const [lineSearch, setLineSearch] = useState('');
  const [overrides, setOverrides] = useState('');
  // stepped on while open and paused (`s`, the timeline): solve the new last step
  const liveStep = useStudio((s) => s.stats?.step);
  const playing = useStudio((s) => s.playing);
  useEffect(() => {
    if (!open || playing || pending !== null || !a || a.inspection.which !== 'last') return;
    if (client.latest.step !== a.inspection.step + 1 && client.latest.step > 0) refreshInspector();
  }, [liveStep, open, playing, pending, a]);
  if (!open) return null;
  const runs = [a, b].filter((r): r is InspectorRun => r !== null);
  // iterations with a step in any run (the chart draws those)
  const steps = Math.max(
    0,
    ...runs.map((r) => worldIterates(r.inspection).filter((x) => x.alpha !== null).length),
  );
  const k = Math.min(selected, Math.max(0, steps - 1));
  return (
    <div className="inspector step-inspector" data-testid="step-inspector">
      <div className="inspector-head">
        <strong>step inspector</strong>
        <span>
          <button onClick={refreshInspector}>solve again</button>{' '}
          <button onClick={closeInspector}>close</button>
        </span>
      </div>
      {pending ? <div className="muted">solving…</div> : null}
      {error ? (
        <div className="inspector-error" data-testid="inspector-error">
          {error}
        </div>
      ) : null}
      {a ? <IterationTable run={a} selected={k} onSelect={(s) => set({ selected: s })} /> : null}
      {b ? <IterationTable run={b} selected={k} onSelect={(s) => set({ selected: s })} /> : null}
      {a && a.inspection.iterates.length === 0 ? (
        <div className="muted">nothing to solve: no constraint acts in this step</div>
      ) : null}
      {a && a.inspection.iterates.length > 0 && steps === 0 ? (
        <div className="muted">the start already met the tolerance: no Newton step</div>
      ) : null}
      {a && steps > 0 ? <PhiChart runs={runs} k={k} /> : null}
      {a ? <ResidualChart runs={runs} /> : null}
      <div className="inspector-resolve">
        re-solve under
        <select value={preset} onChange={(e) => setPreset(e.target.value)} data-testid="inspector-preset">
          <option value="">live preset</option>
          {PRESETS.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
        <select
          value={lineSearch}
          onChange={(e) => setLineSearch(e.target.value)}
          data-testid="inspector-line-search"
        >
          <option value="">live line search</option>
          {LINE_SEARCHES.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
        <input
          type="text"
          placeholder="key=value …"
          value={overrides}
          onChange={(e) => setOverrides(e.target.value)}
          data-testid="inspector-overrides"
        />
        <button
          disabled={!a || pending !== null}
          onClick={() => resolveUnder(preset, lineSearch, overrides)}
          data-testid="inspector-resolve"
        >
          re-solve
        </button>
      </div>
      <div className="muted">
        click a row for its φ(α) · warm start {a?.inspection.warm_start ?? '—'} · world 0 of{' '}
        {a ? new Set(a.inspection.iterates.map((r) => r.world)).size : 0}
      </div>
    </div>
  );
}
