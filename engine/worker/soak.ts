/**
 * Long-run soak (SPEC §11, "long runs lose nothing"): drives a scene headless and fast-forward, either
 * through the worker's {@link SimHost} exactly as the studio does (frames, stats, history ring, the
 * one-step ablation every 10 steps) or through a bare {@link Simulation} as the CLI does, and samples
 * heap and step time per window of simulated time. The trend is fitted after a warm-up: memory must
 * stay flat and the step time must not drift. Step time is measured against the run's own warm
 * baseline: after each window a fresh copy of the scene replays the same first steps from its
 * initial state (a fixed workload), and the drift compares step time over that baseline, so that
 * other load on the machine, which slows both alike, does not count as drift. `npm run soak` (scripts/soak.ts) runs 30 simulated
 * minutes of the studio's default scene; engine/worker/soak.test.ts runs a short version.
 */
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import v8 from 'node:v8';
import { loadModelFile } from '../io/load_file';
import { Simulation } from '../pipeline';
import { PROTOCOL_VERSION } from './protocol';
import { SimHost } from './sim_host';

export interface SoakOptions {
  /** scene file (default scenes/box_stack.yaml, the studio's default) */
  scene: string;
  /** simulated duration [s] (or `steps`) */
  seconds?: number;
  steps?: number;
  /** 'host': the worker's SimHost; 'sim': a bare Simulation (the CLI's loop) */
  mode: 'host' | 'sim';
  /** steps per worker tick (host mode): one frame, stats and possibly an ablation per tick */
  stepsPerTick?: number;
  /** samples over the run */
  windows?: number;
  /** the first fraction of windows left out of the trend (JIT and caches warming up) */
  warmup?: number;
  /** steps of the baseline workload timed after each window (default 200) */
  baselineSteps?: number;
  /** called after each window (progress) */
  onWindow?: (w: SoakWindow, i: number, n: number) => void;
}

export interface SoakWindow {
  /** simulated time at the end of the window [s] */
  time: number;
  steps: number;
  /** mean wall time per step over the window [ms] */
  step_ms: number;
  /** wall time per step of the baseline workload right after the window [ms] */
  baseline_ms: number;
  /** V8 heap after a full GC [MB] */
  heap_mb: number;
  /** resident set [MB] and ArrayBuffer memory [MB] */
  rss_mb: number;
  array_buffers_mb: number;
}

export interface SoakResult {
  scene: string;
  mode: 'host' | 'sim';
  steps: number;
  simulated_s: number;
  wall_s: number;
  steps_per_s: number;
  windows: SoakWindow[];
  /** least-squares slope of heap over simulated time after warm-up [MB per simulated minute] */
  heap_slope_mb_per_min: number;
  /** heap at the end minus heap after warm-up [MB] */
  heap_growth_mb: number;
  /** least-squares slope of step time after warm-up [% of the mean per simulated minute] */
  step_ms_slope_pct_per_min: number;
  /**
   * mean step time over the baseline's ({@link SoakWindow}.baseline_ms) of the last quarter, over
   * that of the first quarter (after warm-up): 1 when the run is as fast as a fresh copy throughout
   */
  step_ms_drift_ratio: number;
  /** the same ratio of the raw step times (machine load counts) */
  raw_step_ms_drift_ratio: number;
  /** largest distance a body moved from its initial position [m] (a resting scene stays near 0) */
  max_body_displacement_m: number;
  /** every state stayed finite, no divergence was reported */
  finite: boolean;
  divergences: number;
  /** events the host emitted (host mode) */
  events: number;
}

/** a full garbage collection (exposes gc() when Node was started without --expose-gc) */
function gcNow(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return g();
  v8.setFlagsFromString('--expose-gc');
  const fn = vm.runInNewContext('gc') as () => void;
  (globalThis as { gc?: () => void }).gc = fn;
  fn();
}

function memory(): { heap_mb: number; rss_mb: number; array_buffers_mb: number } {
  gcNow();
  const m = process.memoryUsage();
  const MB = 1024 * 1024;
  return { heap_mb: m.heapUsed / MB, rss_mb: m.rss / MB, array_buffers_mb: m.arrayBuffers / MB };
}

/** slope of y over x by least squares */
function slope(x: number[], y: number[]): number {
  const n = x.length;
  if (n < 2) return 0;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0,
    sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
  }
  return sxx > 0 ? sxy / sxx : 0;
}

const mean = (a: number[]) => (a.length ? a.reduce((s, v) => s + v, 0) / a.length : 0);

/**
 * The step-time drift of windows (after warm-up): the mean of the last quarter over the first
 * quarter, of step time over the baseline's (`relative`: machine load cancels) and raw.
 */
export function stepTimeDrift(ws: readonly SoakWindow[]): { relative: number; raw: number } {
  const q = Math.max(1, Math.floor(ws.length / 4));
  const drift = (f: (w: SoakWindow) => number) => {
    const first = mean(ws.slice(0, q).map(f));
    return first > 0 ? mean(ws.slice(-q).map(f)) / first : 1;
  };
  return { relative: drift((w) => w.step_ms / w.baseline_ms), raw: drift((w) => w.step_ms) };
}

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const windows = o.windows ?? 60;
  let events = 0;
  let divergences = 0;
  let finite = true;
  let step: (n: number) => void;
  let stateNow: () => { time: number; q: Float64Array; body_q: Float64Array };
  let dt: number;

  if (o.mode === 'host') {
    const host = new SimHost(
      (e) => {
        events++;
        if (e.type === 'error' && e.error.code === 'divergence') divergences++;
      },
      { historyCapacity: 4000 },
    );
    host.handle({
      v: PROTOCOL_VERSION,
      type: 'load_scene',
      source: { kind: 'text', text: readFileSync(o.scene, 'utf8'), file_name: o.scene.split('/').pop()! },
    });
    await host.idle();
    if (!host.sim) throw new Error(`soak: ${o.scene} did not load`);
    const perTick = o.stepsPerTick ?? 4;
    step = (n) => {
      for (let done = 0; done < n;) {
        const k = Math.min(perTick, n - done);
        done += host.advance(k);
        if (!host.sim) break;
      }
    };
    stateNow = () => ({
      time: host.sim!.state.time,
      q: host.sim!.state.joint_q,
      body_q: host.sim!.state.body_q,
    });
    dt = host.sim.dt;
  } else {
    const loaded = await loadModelFile(o.scene);
    const sim = new Simulation(loaded.model, {
      dt: loaded.dt,
      solver: loaded.solver,
      max_rigid_contact: loaded.max_rigid_contact,
    });
    step = (n) => {
      for (let i = 0; i < n; i++) {
        const r = sim.step();
        if (r.status === 'invalid_input') divergences++;
      }
    };
    stateNow = () => ({ time: sim.state.time, q: sim.state.joint_q, body_q: sim.state.body_q });
    dt = sim.dt;
  }

  // the baseline: a fresh copy of the scene, replaying its first steps from its initial state
  const base = await loadModelFile(o.scene);
  const baseSim = new Simulation(base.model, {
    dt: base.dt,
    solver: base.solver,
    max_rigid_contact: base.max_rigid_contact,
  });
  const baseSteps = o.baselineSteps ?? 200;
  const baseline = (): number => {
    baseSim.reset();
    const t = performance.now();
    for (let i = 0; i < baseSteps; i++) baseSim.step();
    return (performance.now() - t) / baseSteps;
  };
  baseline(); // warm

  const p0 = Float64Array.from(stateNow().body_q);
  const total = o.steps ?? Math.round((o.seconds ?? 1800) / dt);
  const per = Math.max(1, Math.floor(total / windows));
  const out: SoakWindow[] = [];
  const t0 = performance.now();
  let done = 0;
  for (let w = 0; w < windows && done < total; w++) {
    const n = w === windows - 1 ? total - done : Math.min(per, total - done);
    const s0 = performance.now();
    step(n);
    const ms = performance.now() - s0;
    done += n;
    const s = stateNow();
    if (!s.q.every(Number.isFinite) || !s.body_q.every(Number.isFinite)) finite = false;
    const win: SoakWindow = { time: s.time, steps: n, step_ms: ms / n, baseline_ms: baseline(), ...memory() };
    out.push(win);
    o.onWindow?.(win, w, windows);
  }
  const wall = (performance.now() - t0) / 1000;
  const bq = stateNow().body_q;
  let moved = 0;
  for (let b = 0; b < bq.length / 7; b++) {
    moved = Math.max(
      moved,
      Math.hypot(bq[b * 7] - p0[b * 7], bq[b * 7 + 1] - p0[b * 7 + 1], bq[b * 7 + 2] - p0[b * 7 + 2]),
    );
  }

  const skip = Math.min(out.length - 2, Math.max(1, Math.floor(out.length * (o.warmup ?? 0.1))));
  const trend = out.slice(skip);
  const minutes = trend.map((w) => w.time / 60);
  const drift = stepTimeDrift(trend);
  const meanStep = mean(trend.map((w) => w.step_ms));
  return {
    scene: o.scene,
    mode: o.mode,
    steps: done,
    simulated_s: stateNow().time,
    wall_s: wall,
    steps_per_s: done / wall,
    windows: out,
    heap_slope_mb_per_min: slope(
      minutes,
      trend.map((w) => w.heap_mb),
    ),
    heap_growth_mb: trend.length ? trend[trend.length - 1].heap_mb - trend[0].heap_mb : 0,
    step_ms_slope_pct_per_min:
      meanStep > 0
        ? (100 *
            slope(
              minutes,
              trend.map((w) => w.step_ms),
            )) /
          meanStep
        : 0,
    step_ms_drift_ratio: drift.relative,
    raw_step_ms_drift_ratio: drift.raw,
    max_body_displacement_m: moved,
    finite,
    divergences,
    events,
  };
}
