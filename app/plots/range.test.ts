import { describe, expect, it } from 'vitest';
import { linearRange, logRange, logSplits } from './range';

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

describe("the plots' log y range and ticks", () => {
  it("turns uPlot's empty min/max (±Infinity: no positive sample) into a fixed range", () => {
    expect(logRange(null, Infinity, -Infinity)).toEqual([1e-12, 1]);
    expect(logRange(null, null, null)).toEqual([1e-12, 1]);
    expect(logRange(null, 0, 0)).toEqual([1e-12, 1]);
    expect(logRange(null, NaN, 1)).toEqual([1e-12, 1]);
  });
  it('widens data to whole decades, within 1e-30 … 1e30', () => {
    expect(logRange(null, 3.3e-5, 2e-3)).toEqual([1e-5, 1e-2]);
    expect(logRange(null, 1e-4, 1e-4)).toEqual([1e-4, 1e-3]);
    expect(logRange(null, 1e-300, 1e300)).toEqual([1e-30, 1e30]);
    expect(logRange(null, 1e40, 1e40)).toEqual([1e29, 1e30]);
  });
  it('gives a bounded count of decade ticks for any scale', () => {
    expect(logSplits(null, 1, 1e-5, 1e-2)).toEqual([1e-5, 1e-4, 1e-3, 1e-2]);
    expect(logSplits(null, 1, 1e-30, 1e30).length).toBeLessThanOrEqual(12);
    expect(logSplits(null, 1, Infinity, -Infinity)).toEqual([]);
    expect(logSplits(null, 1, 0, 1)).toEqual([]);
    // ticks lie inside the scale
    for (const t of logSplits(null, 1, 3e-7, 4e-2)) expect(t >= 3e-7 && t <= 4e-2).toBe(true);
  });
});
