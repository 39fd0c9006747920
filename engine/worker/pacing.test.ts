import { describe, expect, it } from 'vitest';
import { Pacer, runBudgeted } from './pacing';

describe('real-time pacing', () => {
  it('steps what the wall clock owes, carrying fractions over', () => {
    const p = new Pacer({ dt: 0.005, speed: 1, frame_ms: 16 });
    expect(p.plan(0).steps).toBe(0); // first tick only starts the clock
    let total = 0;
    for (let t = 16; t <= 1000; t += 16) {
      const plan = p.plan(t);
      total += plan.steps;
      p.commit(plan.steps);
    }
    // 62 ticks of 16 ms = 0.992 s → 198 steps of 5 ms
    expect(total).toBe(198);
  });

  it('scales with the speed factor', () => {
    const p = new Pacer({ dt: 0.01, speed: 0.25 });
    p.plan(0);
    let total = 0;
    for (let t = 10; t <= 2000; t += 10) {
      const plan = p.plan(t);
      total += plan.steps;
      p.commit(plan.steps);
    }
    expect(total).toBe(50); // 0.5 simulated seconds
  });

  it('budgets 0.7 of a frame', () => {
    const p = new Pacer({ dt: 0.001, speed: 1, frame_ms: 20 });
    p.plan(0);
    expect(p.plan(20).budget_ms).toBeCloseTo(14);
  });

  it('re-synchronizes after drift instead of catching up', () => {
    const p = new Pacer({ dt: 0.005, speed: 1, max_drift_s: 0.1 });
    p.plan(0);
    const plan = p.plan(2000); // the tab slept for 2 s
    expect(plan.resynced).toBe(true);
    expect(plan.steps).toBe(1);
    expect(p.resyncs).toBe(1);
    // a slow machine: the budget cut the steps, debt accumulates until the resync
    const q = new Pacer({ dt: 0.005, speed: 1, max_drift_s: 0.1 });
    q.plan(0);
    let resynced = false;
    for (let t = 16; t < 1000 && !resynced; t += 16) {
      const pl = q.plan(t);
      resynced = pl.resynced;
      q.commit(Math.min(pl.steps, 1)); // only one step fits per tick
    }
    expect(resynced).toBe(true);
  });

  it('runBudgeted stops at the budget, takes at least one step, stops on failure', () => {
    let clock = 0;
    const now = () => clock;
    let n = 0;
    const taken = runBudgeted({ steps: 100, budget_ms: 10, resynced: false }, now, () => {
      clock += 3;
      n++;
      return true;
    });
    expect(taken).toBe(4);
    expect(n).toBe(4);
    const one = runBudgeted({ steps: 5, budget_ms: 1, resynced: false }, now, () => {
      clock += 50;
      return true;
    });
    expect(one).toBe(1);
    const failed = runBudgeted({ steps: 5, budget_ms: 100, resynced: false }, now, () => false);
    expect(failed).toBe(1);
    expect(runBudgeted({ steps: 0, budget_ms: 100, resynced: false }, now, () => true)).toBe(0);
  });
});
