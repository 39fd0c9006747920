import { describe, expect, it } from 'vitest';
import { staleGpuFiles } from '../../scripts/gen_gpu';
import { GPU_LAYOUT, GPU_UNIFORMS } from './layout';
import { computeGpuLayout, type LayoutCounts } from './layout_views';

describe('GPU layout table', () => {
  it('generated WGSL, TS views and embedded shaders are up to date', async () => {
    const stale = await staleGpuFiles();
    expect(stale, `stale generated files: ${stale.join(', ')}; run npx tsx scripts/gen_gpu.ts`).toEqual([]);
  });

  it('declares each field once', () => {
    const names = [...GPU_LAYOUT.map((f) => f.name), ...GPU_UNIFORMS.map((u) => u.name)];
    expect(new Set(names).size).toBe(names.length);
  });

  it('lays fields out contiguously in table order', () => {
    const counts = Object.fromEntries(
      [
        'one',
        'body',
        'joint',
        'joint1',
        'dof',
        'coord',
        'tree',
        'tree1',
        'world',
        'world1',
        'slot',
        'slot_J',
        'tree_A',
        'world_H',
        'row',
        'gslot',
        'cost',
        'eq',
        'eq1',
        'eq_J',
        'shape',
        'cpair',
        'cpslot',
      ].map((k, i) => [k, 3 + i]),
    ) as LayoutCounts;
    const { offsets, sizes } = computeGpuLayout(counts);
    const end: Record<string, number> = {};
    for (const f of GPU_LAYOUT) {
      const arena = `${f.arena}_${f.type === 'df64' ? 'd' : 'i'}`;
      expect(offsets[f.name as keyof typeof offsets]).toBe(end[arena] ?? 0);
      end[arena] = (end[arena] ?? 0) + counts[f.count] * f.width;
    }
    for (const [arena, n] of Object.entries(end)) expect(sizes[arena as keyof typeof sizes]).toBe(n);
  });
});
