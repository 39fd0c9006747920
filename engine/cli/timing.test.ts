import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import {
  countedMs,
  isSteady,
  MAX_REPLAYS,
  median,
  MIN_ROUND_MS,
  pairedRatio,
  quantile,
  REPLAY_MAX_MS,
  ratioSpread,
  runQueueWaitMs,
  segmentedRate,
  timeSpan,
  warmUp,
  windowDrift,
} from './timing';

/** busy-waits `us` microseconds (a step of a known cost) */
function spin(us: number): void {
  const end = performance.now() + us / 1000;
  while (performance.now() < end);
}

describe('median', () => {
  it('takes the middle value, the upper one of an even count', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(3);
  });
});

describe('pairedRatio', () => {
  it('is the median of the per-round ratios', () => {
    expect(pairedRatio([10, 30, 20], [5, 10, 20])).toBe(2);
  });

  it('keeps the ratio where load slows both engines in the same rounds', () => {
    // ours is 1.1× the peer in every round; three of five rounds run at half speed for both
    const ours = [11, 5.5, 5.5, 11, 5.5];
    const peer = [10, 5, 5, 10, 5];
    expect(pairedRatio(ours, peer)).toBeCloseTo(1.1, 12);
    // load on both in one round, on the peer alone in two, on ours alone in one: the ratio of the
    // medians takes each side's median from different rounds and doubles the ratio
    const oursB = [11, 11, 5.5, 11, 5.5];
    const peerB = [5, 10, 5, 5, 10];
    expect(median(oursB) / median(peerB)).toBeCloseTo(2.2, 12);
    expect(pairedRatio(oursB, peerB)).toBeCloseTo(1.1, 12);
  });

  it('leaves out rounds missing or failed on either side', () => {
    expect(pairedRatio([2, 4, 6], [1, 0, Number.NaN])).toBe(2);
    expect(pairedRatio([2, 4], [1])).toBe(2);
    expect(pairedRatio([], [1])).toBeNaN();
  });
});

describe('segmentedRate', () => {
  it('plays segments until MIN_ROUND_MS is timed and rates all their steps together', () => {
    // 100 steps in 0.4 ms each: three segments reach 1 ms (1.2 ms, 300 steps)
    let calls = 0;
    const rate = segmentedRate(100, () => {
      calls++;
      return 0.4;
    });
    expect(MIN_ROUND_MS).toBe(1);
    expect(calls).toBe(3);
    expect(rate).toBeCloseTo(300 / 0.0012, 6);
  });

  it('plays a long segment once', () => {
    let calls = 0;
    expect(segmentedRate(200, () => (calls++, 50))).toBeCloseTo(4000, 9);
    expect(calls).toBe(1);
  });

  it('lets one slow segment weigh by its time, not decide the round', () => {
    // segments of 1, 1, 10 ms: the round reads 300 steps / 12 ms, not the slow segment's 100 / 10 ms
    const ms = [1, 1, 10];
    let k = 0;
    expect(segmentedRate(100, () => ms[k++], 3)).toBeCloseTo(300 / 0.012, 6);
    expect(k).toBe(3);
  });
});

describe('warmUp', () => {
  it('plays rounds for the whole time however cheap a step is (no cap on the steps)', async () => {
    // a peer's WebAssembly reaches its optimized tier only after ~15k steps of a fast robot (UR10):
    // a cap of 5000 steps left it in the baseline tier
    let steps = 0;
    const rounds: number[] = [];
    const t0 = performance.now();
    await warmUp(60, (r, more) => {
      rounds.push(r);
      for (let i = 0; i < 100 && more(); i++) steps++;
    });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(60);
    expect(steps).toBeGreaterThan(5000);
    expect(rounds.slice(0, 3)).toEqual([0, 1, 2]);
  });

  it('plays at least three steps', async () => {
    let steps = 0;
    await warmUp(0, (_r, more) => {
      while (more()) steps++;
    });
    expect(steps).toBe(3);
  });
});

describe('warm-up steady state', () => {
  it('windowDrift and isSteady compare the last windows (max / min − 1)', () => {
    expect(windowDrift([10, 5, 5.1, 5.0, 5.15], 3)).toBeCloseTo(5.15 / 5 - 1, 12);
    expect(windowDrift([5, 5], 3)).toBeNaN();
    expect(isSteady([10, 5, 5.1, 5.0, 5.15], 3, 0.04)).toBe(true);
    expect(isSteady([10, 5, 5.1, 5.0, 5.3], 3, 0.04)).toBe(false);
    expect(isSteady([5, 5], 3, 0.04)).toBe(false);
  });

  it('goes on past its minimum until the time per step stops falling', async () => {
    // a step's cost falls from 20 µs to 10 µs over the first 150 ms (tiering up), then stays: with
    // a 50 ms minimum the warm-up must wait for the fall to end and then see steady windows
    const t0 = performance.now();
    const w = await warmUp(
      50,
      (_r, more) => {
        const t = performance.now() - t0;
        const cost = t < 150 ? 20 - (10 * t) / 150 : 10;
        for (let i = 0; i < 10 && more(); i++) spin(cost);
      },
      { maxMs: 3000, windowMs: 20, windows: 3, tolerance: 0.1 },
    );
    expect(w.steady).toBe(true);
    expect(w.ms).toBeGreaterThanOrEqual(150);
    expect(w.ms).toBeLessThan(3000);
    expect(w.drift).toBeLessThanOrEqual(0.1);
    expect(w.steps).toBeGreaterThan(100);
  });

  it('stops at its cap when the time per step keeps moving, and says so', async () => {
    // every round 2% slower than the last: never steady within 4%
    let cost = 5;
    const w = await warmUp(
      20,
      (_r, more) => {
        for (let i = 0; i < 10 && more(); i++) spin(cost);
        cost *= 1.02;
      },
      { maxMs: 100, windowMs: 10, windows: 3, tolerance: 0.04 },
    );
    expect(w.steady).toBe(false);
    expect(w.ms).toBeGreaterThanOrEqual(100);
    expect(w.drift).toBeGreaterThan(0.04);
  });
});

describe('ratioSpread', () => {
  it('quantile interpolates between neighbours of the sorted values', () => {
    expect(quantile([1, 2, 3, 4, 5], 0.25)).toBe(2);
    expect(quantile([1, 2, 3, 4], 0.75)).toBeCloseTo(3.25, 12);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('gives the median per-round ratio (as pairedRatio) with the quartiles and range', () => {
    const ours = [10, 20, 30, 40, 50];
    const peer = [10, 10, 10, 10, 10];
    const s = ratioSpread(ours, peer);
    expect(s.median).toBe(pairedRatio(ours, peer));
    expect(s).toEqual({ median: 3, q1: 2, q3: 4, min: 1, max: 5, rounds: 5 });
    // a failed round on either side is left out
    expect(ratioSpread([2, 4], [1, 0]).rounds).toBe(1);
    expect(ratioSpread([], []).median).toBeNaN();
  });
});

describe('descheduled segments', () => {
  it('counts a clean segment as timed, plays a disturbed one again, then subtracts its waits', () => {
    expect(countedMs({ ms: 0.5, waited: 0 }, 0)).toBe(0.5);
    expect(countedMs({ ms: 0.5, waited: 0.005 }, 0)).toBe(0.5);
    expect(countedMs({ ms: 3, waited: 2 }, 0)).toBeNull();
    expect(countedMs({ ms: 3, waited: 2 }, MAX_REPLAYS - 1)).toBeNull();
    expect(countedMs({ ms: 3, waited: 2 }, MAX_REPLAYS)).toBe(1);
    // a long segment (a pile's round) is not played again: its waits are subtracted
    expect(countedMs({ ms: REPLAY_MAX_MS + 20, waited: 2 }, 0)).toBe(REPLAY_MAX_MS + 18);
  });

  it('segmentedRate leaves a disturbed segment out and plays it again', () => {
    const spans = [
      { ms: 5, waited: 4.6 },
      { ms: 0.4, waited: 0 },
      { ms: 0.4, waited: 0 },
      { ms: 0.4, waited: 0 },
    ];
    let k = 0;
    expect(segmentedRate(100, () => spans[k++])).toBeCloseTo(300 / 0.0012, 6);
    expect(k).toBe(4);
  });

  it("reads the thread's run-queue waits where Linux gives them, and times a span", () => {
    const a = runQueueWaitMs();
    const s = timeSpan(() => spin(200));
    expect(s.ms).toBeGreaterThanOrEqual(0.2);
    expect(s.waited).toBeGreaterThanOrEqual(0);
    if (!existsSync('/proc/thread-self/schedstat')) return expect(a).toBeNaN();
    expect(Number.isFinite(a)).toBe(true);
    expect(runQueueWaitMs()).toBeGreaterThanOrEqual(a);
    expect(s.waited).toBeLessThanOrEqual(s.ms + 1);
  });
});
