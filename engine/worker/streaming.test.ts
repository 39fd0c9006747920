import { describe, expect, it } from 'vitest';
import { RingReader, RingWriter, ringBytes } from './frame_ring';
import { HistoryRing, timeAtStep } from './history';

describe('SharedArrayBuffer pose ring', () => {
  it('publishes frames the reader copies, newest first', () => {
    const w = new RingWriter(4, 14);
    expect(w.buffer.byteLength).toBe(ringBytes(4, 14));
    const r = new RingReader(w.buffer);
    expect(r.read()).toBeNull();
    for (let seq = 1; seq <= 6; seq++) {
      w.publish(
        seq,
        seq * 0.01,
        seq * 2,
        Array.from({ length: 14 }, (_, i) => seq + i / 10),
      );
    }
    expect(r.hasNew()).toBe(true);
    const f = r.read()!;
    expect(f.seq).toBe(6);
    expect(f.time).toBeCloseTo(0.06);
    expect(f.step).toBe(12);
    expect(f.poses[0]).toBeCloseTo(6);
    expect(f.poses[13]).toBeCloseTo(7.3);
    expect(r.hasNew()).toBe(false);
  });
});

describe('history ring', () => {
  it('stores, finds, wraps and branches', () => {
    const h = new HistoryRing(2, 1, 5);
    for (let s = 0; s < 8; s++) h.push(s, s * 0.1, [s, -s], [s * 10]);
    expect(h.length).toBe(5);
    expect(h.range()).toEqual({
      first_step: 3,
      last_step: 7,
      first_time: 0.30000000000000004,
      last_time: 0.7000000000000001,
    });
    const f = h.find(5)!;
    expect([f.step, ...f.q, ...f.qd]).toEqual([5, 5, -5, 50]);
    expect(h.find(1)!.step).toBe(3); // before the oldest: the oldest
    expect(h.find(100)!.step).toBe(7);
    // seeking back and stepping again drops the newer branch
    h.push(5, 0.5, [9, 9], [9]);
    expect(h.range().last_step).toBe(5);
    expect(h.find(5)!.q[0]).toBe(9);
    h.clear();
    expect(h.find(0)).toBeNull();
  });

  it("gives the scrubber's clock: the live time at the live step, else interpolated over the ring", () => {
    const h = new HistoryRing(1, 1, 100);
    for (let s = 10; s <= 30; s++) h.push(s, 1.5 + (s - 10) * 0.002, [0], [0]);
    const live = { step: 30, time: 1.54, history: h.range() };
    expect(timeAtStep(30, live)).toBe(1.54);
    expect(timeAtStep(10, live)).toBe(1.5);
    expect(timeAtStep(20, live)).toBeCloseTo(1.52, 12);
    // one snapshot: its time
    h.clear();
    h.push(7, 0.3, [0], [0]);
    expect(timeAtStep(8, { step: 7, time: 0.3, history: h.range() })).toBe(0.3);
  });

  it('caps memory', () => {
    const h = new HistoryRing(1_000_000, 1_000_000, 100000);
    expect(h.capacity).toBeLessThan(100);
    expect(h.capacity).toBeGreaterThanOrEqual(2);
  });
});
