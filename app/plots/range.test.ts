import { describe, expect, it } from 'vitest';
import { linearRange } from './range';

describe("the plots' linear y range", () => {
  it('widens nearly constant values so uPlot can step its ticks', () => {
    const [lo, hi] = linearRange(null, -35.2, -35.2 + 1e-14);
    expect(hi - lo).toBeGreaterThan(3e-5);
    // a tick step of a tenth of the range still moves a value of that size
    expect(-35.2 + (hi - lo) / 10).not.toBe(-35.2);
  });
  it('keeps a real range (with a margin) and survives empty or non-finite data', () => {
    const [lo, hi] = linearRange(null, 0, 10);
    expect(lo).toBeLessThan(0);
    expect(hi).toBeGreaterThan(10);
    expect(linearRange(null, null, null)).toEqual([0, 1]);
    expect(linearRange(null, NaN, 1)).toEqual([0, 1]);
  });
});
