/**
 * The soak run in short (`npm run soak` is the 30-minute version): the studio's default scene through
 * the worker's SimHost for 2 simulated minutes — flat heap after warm-up, no step-time drift, finite.
 */
import { describe, expect, it } from 'vitest';
import { runSoak, stepTimeDrift, type SoakWindow } from './soak';

describe('soak drift', () => {
  const win = (step_ms: number, baseline_ms: number): SoakWindow => ({
    time: 0,
    steps: 1,
    step_ms,
    baseline_ms,
    heap_mb: 0,
    rss_mb: 0,
    array_buffers_mb: 0,
  });
  it('machine load that slows the run and its baseline alike is no drift; a slower run is', () => {
    // the second half runs on a machine twice as busy: both timings double
    const loaded = [...Array(8)].map((_, i) => (i < 4 ? win(1, 0.5) : win(2, 1)));
    expect(stepTimeDrift(loaded)).toEqual({ relative: 1, raw: 2 });
    // the run itself slows (a leak), the fresh baseline does not
    const leaking = [...Array(8)].map((_, i) => (i < 4 ? win(1, 0.5) : win(1.5, 0.5)));
    expect(stepTimeDrift(leaking).relative).toBeCloseTo(1.5, 12);
  });
});

describe('soak (short)', () => {
  it('box_stack, 2 simulated minutes through SimHost: flat memory, steady step time', async () => {
    const r = await runSoak({
      scene: 'scenes/box_stack.yaml',
      mode: 'host',
      seconds: 120,
      windows: 24,
      warmup: 0.25,
    });
    console.log(
      `soak (short): ${r.steps} steps, ${r.steps_per_s.toFixed(0)} steps/s; heap slope ${r.heap_slope_mb_per_min.toFixed(3)} MB/min, growth ${r.heap_growth_mb.toFixed(2)} MB; step-time drift ${r.step_ms_drift_ratio.toFixed(2)}`,
    );
    expect(r.finite).toBe(true);
    expect(r.divergences).toBe(0);
    expect(r.simulated_s).toBeCloseTo(120, 6);
    // generous bounds for a shared CI machine; the 30-minute run holds far tighter ones
    expect(r.heap_growth_mb).toBeLessThan(16);
    expect(r.step_ms_drift_ratio).toBeLessThan(2);
    expect(r.windows.every((w) => w.baseline_ms > 0)).toBe(true);
  }, 180_000);
});
