import { describe, expect, it } from 'vitest';
import { REPEAT_TOLERANCE, repeatCheck, repeatCheckMarkdown, type RatioRow } from './bench_repeat';

const row = (scene: string, preset: string, ratio: RatioRow['ratio']): RatioRow => ({
  scene,
  preset,
  line_search: 'monotone_decay',
  solve_islands: false,
  overrides: {},
  backend: 'cpu',
  num_worlds: 1,
  ratio,
});

describe('repeatCheck', () => {
  it("compares each row's ratio per peer over the runs: max / min − 1", () => {
    const c = repeatCheck([
      [row('arm7', 'approx32', { mujoco: 1.0 }), row('piper', 'approx32', { mujoco: 1.89, rapier: 2 })],
      [row('arm7', 'approx32', { mujoco: 1.05 }), row('piper', 'approx32', { mujoco: 0.96, rapier: 2 })],
    ]);
    expect(c.runs).toBe(2);
    expect(c.tolerance).toBe(REPEAT_TOLERANCE);
    expect(c.ratios.map((r) => [r.scene, r.peer, r.values])).toEqual([
      ['arm7', 'mujoco', [1.0, 1.05]],
      ['piper', 'mujoco', [1.89, 0.96]],
      ['piper', 'rapier', [2, 2]],
    ]);
    expect(c.ratios[0].change).toBeCloseTo(0.05, 12);
    expect(c.ratios[1].change).toBeCloseTo(1.89 / 0.96 - 1, 12);
    expect(c.worst).toBeCloseTo(1.89 / 0.96 - 1, 12);
    expect([c.within, c.compared]).toEqual([2, 3]);
    const md = repeatCheckMarkdown(c).join('\n');
    expect(md).toContain('within 10.0% for 2 of 3 rows × peers, worst 96.9%');
    expect(md).toContain('| piper | approx32 | monotone_decay | off | – | mujoco | 1.89 | 0.96 | 96.9% ✗ |');
  });

  it('tells configurations apart and leaves a row measured in one run only uncompared', () => {
    const c = repeatCheck([
      [row('arm7', 'approx32', { mujoco: 1 }), row('arm7', 'drake', { mujoco: 2 })],
      [row('arm7', 'drake', { mujoco: 2.1 }), row('arm7', 'approx32', { mujoco: Number.NaN })],
    ]);
    expect(c.ratios.map((r) => [r.preset, r.values])).toEqual([
      ['approx32', [1, null]],
      ['drake', [2, 2.1]],
    ]);
    expect(c.ratios[0].change).toBeNaN();
    expect([c.within, c.compared]).toEqual([1, 1]);
  });
});
