/**
 * Ablation plots (SPEC §3.8, §8): Δprecision = ‖v(approx64) − v(approx32)‖ and Δmodel =
 * ‖v(drake) − v(approx64)‖ side by side on log scales, plus Newton iterations and contact count,
 * all against the scene clock with a shared hover cursor. Samples stream from the worker (one-step
 * ablation every N steps); the charts redraw at most once per animation frame. Pause freezes the
 * drawing (samples keep arriving); CSV and PNG export what is recorded.
 */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { onSeries, plots, series, seriesCsv } from '../session';

function download(name: string, href: string): void {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
}

const fmtSci = (v: number | null) => (v === null || v === undefined ? '—' : Number(v).toExponential(3));

function makeChart(el: HTMLElement, title: string, width: number, kind: 'dp' | 'dm' | 'solver'): uPlot {
  const common = {
    width,
    height: 180,
    title,
    cursor: { sync: { key: 'sap-ablation' }, drag: { x: true, y: false } },
    legend: { live: true },
  };
  const xAxis = { stroke: '#aab', grid: { stroke: '#2c313a' }, ticks: { stroke: '#2c313a' } };
  if (kind === 'solver') {
    return new uPlot(
      {
        ...common,
        scales: { x: { time: false }, it: { auto: true }, ct: { auto: true } },
        axes: [
          { ...xAxis, label: 't [s]' },
          { ...xAxis, scale: 'it', label: 'iterations' },
          { ...xAxis, scale: 'ct', side: 1, label: 'contacts', grid: { show: false } },
        ],
        series: [
          { label: 't [s]', value: (_u, v) => (v === null || v === undefined ? '—' : Number(v).toFixed(3)) },
          { label: 'Newton iterations', scale: 'it', stroke: '#7fd1ff', width: 1.5 },
          { label: 'contacts', scale: 'ct', stroke: '#ffb86b', width: 1.5 },
        ],
      },
      [[], [], []],
      el,
    );
  }
  return new uPlot(
    {
      ...common,
      scales: { x: { time: false }, y: { distr: 3 } },
      axes: [
        { ...xAxis, label: 't [s]' },
        {
          ...xAxis,
          label: '‖Δv‖ [m/s, rad/s]',
          values: (_u, ticks) =>
            ticks.map((t) => (t === null || t === undefined ? '' : Number(t).toExponential(0))),
        },
      ],
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

export function Plots() {
  const dpRef = useRef<HTMLDivElement>(null);
  const dmRef = useRef<HTMLDivElement>(null);
  const soRef = useRef<HTMLDivElement>(null);
  const charts = useRef<{ dp: uPlot; dm: uPlot; so: uPlot } | null>(null);
  const [paused, setPaused] = useState(false);
  const pausedRef = useRef(false);
  pausedRef.current = paused;
  const [count, setCount] = useState(0);

  useEffect(() => {
    const w = Math.max(240, Math.floor((dpRef.current?.parentElement?.clientWidth ?? 900) / 3) - 12);
    const c = {
      dp: makeChart(dpRef.current!, 'Δprecision = ‖v(approx64) − v(approx32)‖', w, 'dp'),
      dm: makeChart(dmRef.current!, 'Δmodel = ‖v(drake) − v(approx64)‖', w, 'dm'),
      so: makeChart(soRef.current!, 'solver', w, 'solver'),
    };
    charts.current = c;
    let raf = 0;
    let drawn = -1;
    const draw = () => {
      raf = 0;
      if (pausedRef.current || drawn === series.version) return;
      drawn = series.version;
      const t = series.time.slice();
      c.dp.setData([t, series.dp.slice()]);
      c.dm.setData([t, series.dm.slice()]);
      c.so.setData([t, series.iterations.slice(), series.contacts.slice()]);
      setCount(t.length);
    };
    const off = onSeries(() => {
      if (!raf) raf = requestAnimationFrame(draw);
    });
    const ro = new ResizeObserver(() => {
      const width = Math.max(240, Math.floor((dpRef.current?.parentElement?.clientWidth ?? 900) / 3) - 12);
      for (const u of [c.dp, c.dm, c.so]) u.setSize({ width, height: 180 });
    });
    if (dpRef.current?.parentElement) ro.observe(dpRef.current.parentElement);
    plots.data = () => ({
      delta_precision: c.dp.data as (number | null)[][],
      delta_model: c.dm.data as (number | null)[][],
      solver: c.so.data as (number | null)[][],
    });
    return () => {
      off();
      ro.disconnect();
      if (raf) cancelAnimationFrame(raf);
      plots.data = null;
      c.dp.destroy();
      c.dm.destroy();
      c.so.destroy();
    };
  }, []);

  useEffect(() => {
    // resuming draws what arrived while paused
    if (!paused) {
      series.version++;
      const c = charts.current;
      if (c) {
        const t = series.time.slice();
        c.dp.setData([t, series.dp.slice()]);
        c.dm.setData([t, series.dm.slice()]);
        c.so.setData([t, series.iterations.slice(), series.contacts.slice()]);
      }
    }
  }, [paused]);

  const exportPng = () => {
    const c = charts.current;
    if (!c) return;
    const canvases = [c.dp, c.dm, c.so].map((u) => u.ctx.canvas);
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
    ['Δprecision', 'Δmodel', 'iterations / contacts'].forEach((t, i) => {
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
        <strong>one-step ablation</strong>
        <span className="muted">
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
      </div>
      <div className="plots-row">
        <div ref={dpRef} data-testid="plot-dp" />
        <div ref={dmRef} data-testid="plot-dm" />
        <div ref={soRef} data-testid="plot-solver" />
      </div>
    </section>
  );
}
