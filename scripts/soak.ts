/**
 * Soak run (SPEC §11): `npm run soak` — the studio's default scene (scenes/box_stack.yaml) for 30
 * minutes of simulated time, headless and fast-forward through the worker's SimHost; prints heap and
 * step time per window and their trends, and exits non-zero when memory grows or step time drifts.
 * `npm run soak:cli` — 1e6 steps of the same scene through a bare Simulation (the CLI's loop).
 *
 * Options: --scene FILE, --minutes M, --steps N, --mode host|sim, --windows K, --json FILE.
 */
import { writeFileSync } from 'node:fs';
import { runSoak, type SoakOptions } from '../engine/worker/soak';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** pass/fail thresholds: flat memory and no step-time drift */
const MAX_HEAP_SLOPE_MB_PER_MIN = 0.25;
const MAX_HEAP_GROWTH_MB = 8;
const MAX_DRIFT_RATIO = 1.3;

async function main(): Promise<void> {
  const mode = (arg('mode') ?? 'host') as SoakOptions['mode'];
  const steps = arg('steps') !== undefined ? Number(arg('steps')) : undefined;
  const minutes = Number(arg('minutes') ?? 30);
  const opts: SoakOptions = {
    scene: arg('scene') ?? 'scenes/box_stack.yaml',
    mode,
    steps,
    seconds: steps === undefined ? minutes * 60 : undefined,
    windows: Number(arg('windows') ?? 60),
    onWindow: (w, i, n) =>
      console.log(
        `[${String(i + 1).padStart(3)}/${n}] t = ${w.time.toFixed(1).padStart(7)} s  step ${w.step_ms.toFixed(4)} ms  baseline ${w.baseline_ms.toFixed(4)} ms  heap ${w.heap_mb.toFixed(2)} MB  rss ${w.rss_mb.toFixed(1)} MB  buffers ${w.array_buffers_mb.toFixed(2)} MB`,
      ),
  };
  console.log(
    `soak: ${opts.scene}, mode ${mode}, ${steps !== undefined ? `${steps} steps` : `${minutes} simulated minutes`}`,
  );
  const r = await runSoak(opts);
  const json = arg('json');
  if (json) writeFileSync(json, JSON.stringify(r, null, 2));
  const ok =
    r.finite &&
    r.divergences === 0 &&
    r.heap_slope_mb_per_min < MAX_HEAP_SLOPE_MB_PER_MIN &&
    r.heap_growth_mb < MAX_HEAP_GROWTH_MB &&
    r.step_ms_drift_ratio < MAX_DRIFT_RATIO;
  console.log(
    [
      `steps ${r.steps}, simulated ${r.simulated_s.toFixed(1)} s in ${r.wall_s.toFixed(1)} s wall (${r.steps_per_s.toFixed(0)} steps/s, ${(r.simulated_s / r.wall_s).toFixed(1)}× real time)`,
      `heap: ${r.windows[0].heap_mb.toFixed(2)} → ${r.windows[r.windows.length - 1].heap_mb.toFixed(2)} MB; after warm-up slope ${r.heap_slope_mb_per_min.toFixed(4)} MB/simulated min, growth ${r.heap_growth_mb.toFixed(2)} MB (limits ${MAX_HEAP_SLOPE_MB_PER_MIN}, ${MAX_HEAP_GROWTH_MB})`,
      `step time: slope ${r.step_ms_slope_pct_per_min.toFixed(3)} %/simulated min, last/first quarter over the warm baseline ${r.step_ms_drift_ratio.toFixed(3)} (limit ${MAX_DRIFT_RATIO}; raw ${r.raw_step_ms_drift_ratio.toFixed(3)}, machine load included)`,
      `largest body displacement from the start ${(r.max_body_displacement_m * 1000).toFixed(3)} mm; finite ${r.finite}, divergences ${r.divergences}, events ${r.events}`,
      ok ? 'SOAK PASSED' : 'SOAK FAILED',
    ].join('\n'),
  );
  process.exit(ok ? 0 : 1);
}

void main();
