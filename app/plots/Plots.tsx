/**
 * Ablation plots (SPEC §3.8, §8): Δprecision = ‖v(approx64) − v(approx32)‖ and Δmodel =
 * ‖v(drake) − v(approx64)‖ side by side on log scales, plus Newton and line-search iterations,
 * contact count and step wall time,
 * all against the scene clock with a shared hover cursor. Samples stream from the worker (one-step
 * ablation every N steps); the charts redraw at most once per animation frame. Pause freezes the
 * drawing (samples keep arriving); CSV and PNG export what is recorded. The trajectory chart shows
 * trajectory-mode ablation: ‖Δq‖ and ‖Δv‖ between approx32, approx64 and drake shadow simulations
 * run from the state at which it was started. The energy chart shows the live state's kinetic,
 * potential and total energy (all worlds), marked when it grows while nothing drives the system
 * (`energy_drift.ts`): the midpoint position update of approx32 / approx64 adds energy, drake's does not.
 */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { ghostSeries, onGhostSeries } from '../ghost';
import { onSeries, plots, series, seriesCsv, setTrajectory, trajectory } from '../session';
import { useStudio } from '../store';
import { energyDrift, type EnergyDrift } from './energy_drift';
import { linearRange, logRange, logSplits } from './range';

function download(name: string, href: string): void {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
}

const fmtSci = (v: number | null) => (v === null || v === undefined ? '—' : Number(v).toExponential(3));

const CHARTS = 5;

/** chart height [CSS px]: 180 on tall windows, down to 130 so a 700 px window keeps its viewport */
export function plotHeight(windowHeight: number): number {
  return Math.round(Math.min(180, Math.max(130, windowHeight * 0.16)));
}

function makeChart(
  el: HTMLElement,
  title: string,
  width: number,
  kind: 'dp' | 'dm' | 'solver' | 'traj' | 'energy',
): uPlot {
  const common = {
    width,
    height: plotHeight(window.innerHeight),
    title,
    cursor: { sync: { key: 'sap-ablation' }, drag: { x: true, y: false } },
    legend: { live: true },
  };
  const xAxis = { stroke: '#aab', grid: { stroke: '#2c313a' }, ticks: { stroke: '#2c313a' } };
  if (kind === 'solver') {
    return new uPlot(
      {
        ...common,
        scales: {
          x: { time: false },
          it: { auto: true, range: linearRange },
          ct: { auto: true, range: linearRange },
          ms: { auto: true, range: linearRange },
        },
        axes: [
          { ...xAxis, label: 't [s]' },
          { ...xAxis, scale: 'it', label: 'iterations' },
          { ...xAxis, scale: 'ct', side: 1, label: 'contacts', grid: { show: false }, size: 40 },
          { ...xAxis, scale: 'ms', side: 1, label: 'step [ms]', grid: { show: false }, size: 40 },
        ],
        series: [
          { label: 't [s]', value: (_u, v) => (v === null || v === undefined ? '—' : Number(v).toFixed(3)) },
          { label: 'Newton iterations', scale: 'it', stroke: '#7fd1ff', width: 1.5 },
          { label: 'line-search iterations', scale: 'it', stroke: '#7fd1ff', width: 1, dash: [4, 3] },
          { label: 'contacts', scale: 'ct', stroke: '#ffb86b', width: 1.5 },
          {
            label: 'step [ms]',
            scale: 'ms',
            stroke: '#b8e986',
            width: 1,
            value: (_u, v) => (v === null || v === undefined ? '—' : Number(v).toFixed(2)),
          },
        ],
      },
      [[], [], [], [], []],
      el,
    );
  }
  const logAxis = (label: string) => ({
    ...xAxis,
    label,
    splits: logSplits,
    values: (_u: uPlot, ticks: number[]) =>
      ticks.map((t) => (t === null || t === undefined ? '' : Number(t).toExponential(0))),
  });
  const tValue = (_u: uPlot, v: number | null) =>
    v === null || v === undefined ? '—' : Number(v).toFixed(3);
  const line = (label: string, stroke: string, dash?: number[]) => ({
    label,
    stroke,
    width: 1.5,
    dash,
    spanGaps: false,
    value: (_u: uPlot, v: number | null) => fmtSci(v),
    points: { show: false },
  });
  if (kind === 'energy') {
    return new uPlot(
      {
        ...common,
        scales: { x: { time: false }, y: { auto: true, range: linearRange } },
        axes: [
          { ...xAxis, label: 't [s]' },
          { ...xAxis, label: 'energy [J]', size: 56 },
        ],
        series: [
          { label: 't [s]', value: tValue },
          line('kinetic', '#f1fa8c'),
          line('potential', '#bd93f9', [4, 3]),
          line('total', '#50fa7b'),
        ],
      },
      [[], [], [], []],
      el,
    );
  }
  if (kind === 'traj') {
    return new uPlot(
      {
        ...common,
        scales: { x: { time: false }, y: { distr: 3, range: logRange } },
        axes: [{ ...xAxis, label: 't [s]' }, logAxis('‖Δq‖ [m, rad], ‖Δv‖ (dashed)')],
        series: [
          { label: 't [s]', value: tValue },
          line('Δq precision', '#8be9fd'),
          line('Δq model', '#ff79c6'),
          line('Δv precision', '#8be9fd', [4, 4]),
          line('Δv model', '#ff79c6', [4, 4]),
          // the MuJoCo ghost (app/ghost.ts): ‖Δq‖ and the largest body-origin distance [m]
          line('Δq vs MuJoCo', '#eef0ff'),
          line('max body Δx vs MuJoCo', '#eef0ff', [2, 3]),
        ],
      },
      [[], [], [], [], [], [], []],
      el,
    );
  }
  return new uPlot(
    {
      ...common,
      scales: { x: { time: false }, y: { distr: 3, range: logRange } },
      axes: [{ ...xAxis, label: 't [s]' }, logAxis('‖Δv‖ [m/s, rad/s]')],
      series: [
        { label: 't [s]', value: (_u, v) => (v === null || v === undefined ? '—' : Number(v).toFixed(3)) },
        {
          label: kind === 'dp' ? 'Δprecision' : 'Δmodel',
          stroke: kind === 'dp' ? '#8be9fd' : '#ff79c6',
          width: 1.5,
          spanGaps: false,
          value: (_u, v) => fmtSci(v),
          points: { show: false },
        },
      ],
    },
    [[], []],
    el,
  );
}

type Charts = { dp: uPlot; dm: uPlot; so: uPlot; tr: uPlot; en: uPlot };

/** every chart's data from the recorded series */
function setAll(c: Charts): void {
  const t = series.time.slice();
  c.dp.setData([t, series.dp.slice()]);
  c.en.setData([t, series.kinetic.slice(), series.potential.slice(), series.energy.slice()]);
  c.dm.setData([t, series.dm.slice()]);
  c.so.setData([
    t,
    series.iterations.slice(),
    series.lineSearch.slice(),
    series.contacts.slice(),
    series.stepMs.slice(),
  ]);
  c.tr.setData(trajectoryData());
}

/**
 * the trajectory chart's data: the shadows' series and the MuJoCo ghost's, joined on one time axis
 * (a series has no value at the other's times: uPlot draws over those, keeping real gaps)
 */
function trajectoryData(): uPlot.AlignedData {
  const shadows = [
    trajectory.time.slice(),
    trajectory.qp.slice(),
    trajectory.qm.slice(),
    trajectory.vp.slice(),
    trajectory.vm.slice(),
  ];
  const ghost = [ghostSeries.time.slice(), ghostSeries.dq.slice(), ghostSeries.dx.slice()];
  if (ghost[0].length === 0) {
    const none = shadows[0].map(() => null);
    return [...shadows, none, none.slice()] as unknown as uPlot.AlignedData;
  }
  if (shadows[0].length === 0) {
    const none = ghost[0].map(() => null);
    return [ghost[0], none, none, none, none, ghost[1], ghost[2]] as unknown as uPlot.AlignedData;
  }
  return uPlot.join([shadows, ghost] as unknown as uPlot.AlignedData[]);
}

/** hears every new sample of the ablation series and of the MuJoCo ghost */
function onPlotData(fn: () => void): () => void {
  const offSeries = onSeries(fn);
  const offGhost = onGhostSeries(fn);
  return () => {
    offSeries();
    offGhost();
  };
}

/** the MuJoCo ghost's state in words (slow state: phase, why, what is not mirrored) */
function GhostStatusLine() {
  const g = useStudio((s) => s.ghost);
  if (g.phase === 'off') return null;
  const text =
    g.phase === 'loading'
      ? 'MuJoCo ghost: loading…'
      : g.phase === 'running'
        ? `MuJoCo ${g.version} ghost` +
          (g.notMirrored.length
            ? ` · not mirrored: ${g.notMirrored.join(', ')}`
            : ' · controls and drags mirrored')
        : `MuJoCo ghost off: ${g.why}`;
  return (
    <span className="muted ghost-status" data-testid="ghost-status" title={text}>
      {text}
    </span>
  );
}

export function Plots() {
  const dpRef = useRef<HTMLDivElement>(null);
  const dmRef = useRef<HTMLDivElement>(null);
  const soRef = useRef<HTMLDivElement>(null);
  const trRef = useRef<HTMLDivElement>(null);
  const enRef = useRef<HTMLDivElement>(null);
  const charts = useRef<Charts | null>(null);
  const [drift, setDrift] = useState<EnergyDrift | null>(null);
  const trajectoryOn = useStudio((s) => s.trajectory);
  const [paused, setPaused] = useState(false);
  const pausedRef = useRef(false);
  pausedRef.current = paused;
  const [count, setCount] = useState(0);

  useEffect(() => {
    const w = Math.max(220, Math.floor((dpRef.current?.parentElement?.clientWidth ?? 900) / CHARTS) - 12);
    const c = {
      dp: makeChart(dpRef.current!, 'Δprecision = ‖v(approx64) − v(approx32)‖', w, 'dp'),
      dm: makeChart(dmRef.current!, 'Δmodel = ‖v(drake) − v(approx64)‖', w, 'dm'),
      so: makeChart(soRef.current!, 'solver', w, 'solver'),
      tr: makeChart(trRef.current!, 'trajectory: shadows from t₀ · MuJoCo ghost', w, 'traj'),
      en: makeChart(enRef.current!, 'energy (all worlds)', w, 'energy'),
    };
    charts.current = c;
    let raf = 0;
    let drawn = -1;
    const draw = () => {
      raf = 0;
      const version = series.version + trajectory.version + ghostSeries.version;
      if (pausedRef.current || drawn === version) return;
      drawn = version;
      setAll(c);
      setCount(series.time.length);
      setDrift(energyDrift(series.kinetic, series.energy, series.driven, series.epoch));
    };
    const off = onPlotData(() => {
      if (!raf) raf = requestAnimationFrame(draw);
    });
    const resize = () => {
      // five charts share the row down to a 1024 px window (a narrower one scrolls the row)
      const width = Math.max(
        150,
        Math.floor((dpRef.current?.parentElement?.clientWidth ?? 900) / CHARTS) - 12,
      );
      const height = plotHeight(window.innerHeight);
      for (const u of [c.dp, c.dm, c.so, c.tr, c.en]) u.setSize({ width, height });
    };
    const ro = new ResizeObserver(resize);
    window.addEventListener('resize', resize);
    if (dpRef.current?.parentElement) ro.observe(dpRef.current.parentElement);
    plots.data = () => ({
      delta_precision: c.dp.data as (number | null)[][],
      delta_model: c.dm.data as (number | null)[][],
      solver: c.so.data as (number | null)[][],
      trajectory: c.tr.data as (number | null)[][],
      energy: c.en.data as (number | null)[][],
      ghost: [ghostSeries.time, ghostSeries.dq, ghostSeries.dx].map((a) => a.slice()),
    });
    return () => {
      off();
      ro.disconnect();
      window.removeEventListener('resize', resize);
      if (raf) cancelAnimationFrame(raf);
      plots.data = null;
      c.dp.destroy();
      c.dm.destroy();
      c.so.destroy();
      c.tr.destroy();
      c.en.destroy();
    };
  }, []);

  useEffect(() => {
    // resuming draws what arrived while paused
    if (!paused) {
      series.version++;
      const c = charts.current;
      if (c) setAll(c);
    }
  }, [paused]);

  const exportPng = () => {
    const c = charts.current;
    if (!c) return;
    const canvases = [c.dp, c.dm, c.so, c.tr, c.en].map((u) => u.ctx.canvas);
    const titleH = 24;
    const out = document.createElement('canvas');
    out.width = canvases.reduce((s, k) => s + k.width, 0);
    out.height = Math.max(...canvases.map((k) => k.height)) + titleH;
    const ctx = out.getContext('2d')!;
    ctx.fillStyle = '#16181d';
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.fillStyle = '#ddd';
    ctx.font = '14px sans-serif';
    let x = 0;
    ['Δprecision', 'Δmodel', 'iterations / contacts', 'trajectory ‖Δq‖, ‖Δv‖', 'energy'].forEach((t, i) => {
      ctx.fillText(t, x + 8, 17);
      ctx.drawImage(canvases[i], x, titleH);
      x += canvases[i].width;
    });
    download('sap-ablation.png', out.toDataURL('image/png'));
  };
  const exportCsv = () => {
    const url = URL.createObjectURL(new Blob([seriesCsv()], { type: 'text/csv' }));
    download('sap-ablation.csv', url);
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  return (
    <section className="plots" aria-label="ablation plots">
      <div className="plots-bar">
        <strong>preset ablation</strong>
        <span className="muted plots-hint">
          {count} samples · log scale · hover for values · drag to zoom, double-click to reset
        </span>
        <button onClick={() => setPaused((p) => !p)} data-testid="plots-pause">
          {paused ? 'resume plots' : 'pause plots'}
        </button>
        <button onClick={exportCsv} data-testid="plots-csv">
          export CSV
        </button>
        <button onClick={exportPng} data-testid="plots-png">
          export PNG
        </button>
        <GhostStatusLine />
        <button
          onClick={() => setTrajectory(!trajectoryOn)}
          data-testid="trajectory-toggle"
          title="approx32, approx64 and drake shadow simulations from the current state, stepped beside the live one"
        >
          {trajectoryOn ? 'stop trajectory ablation' : 'start trajectory ablation'}
        </button>
      </div>
      <div className="plots-row">
        <div ref={dpRef} data-testid="plot-dp" />
        <div ref={dmRef} data-testid="plot-dm" />
        <div ref={soRef} data-testid="plot-solver" />
        <div ref={trRef} data-testid="plot-trajectory" />
        <div className="plot-energy">
          <div ref={enRef} data-testid="plot-energy" />
          {drift?.growing ? (
            <div
              className="energy-drift"
              data-testid="energy-drift"
              role="status"
              title="nothing drives the system (no PD drive, joint effort or body wrench), yet its energy rose: the integrator's work (approx32 / approx64 update positions at the midpoint; drake does not drift)"
            >
              energy grows without input: +{drift.rise.toPrecision(3)} J ({(100 * drift.relative).toFixed(0)}{' '}
              % of the largest kinetic energy)
            </div>
          ) : null}
        </div>
      </div>
    </section>
  );
}
