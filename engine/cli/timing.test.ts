import { describe, expect, it } from 'vitest';
import { median, MIN_ROUND_MS, pairedRatio, segmentedRate, warmUp } from './timing';

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
    // 100 steps in 1.5 ms each: three segments reach 4 ms (4.5 ms, 300 steps)
    let calls = 0;
    const rate = segmentedRate(100, () => {
      calls++;
      return 1.5;
    });
    expect(MIN_ROUND_MS).toBe(4);
    expect(calls).toBe(3);
    expect(rate).toBeCloseTo(300 / 0.0045, 6);
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
