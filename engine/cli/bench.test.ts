/**
 * `npm run bench` stays runnable: a tiny configuration runs end to end (ours + the MuJoCo peer on
 * an exported model), and a settled state is cached and reused bit for bit.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeWebGpu } from '../backends';
import { BENCH_GROUPS, BENCH_SCENES, benchMarkdown, runBench } from './bench';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sap-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runBench', () => {
  it('measures ours and MuJoCo on the same scene and writes ratios', async () => {
    const log: string[] = [];
    const res = await runBench({
      scenes: ['arm7'],
      presets: ['approx32'],
      line_searches: ['monotone_decay'],
      num_worlds: [1],
      steps: 5,
      repeats: 1,
      settle: 10,
      peers: ['mujoco'],
      settle_cache: dir,
      log: (l) => log.push(l),
    });
    expect(res.rows).toHaveLength(1);
    const r = res.rows[0];
    expect(r.scene).toBe('arm7');
    expect(r.steps_per_s).toBeGreaterThan(0);
    expect(r.stage_ms.total).toBeGreaterThan(0);
    expect(res.peers).toHaveLength(1);
    expect(res.peers[0].peer).toBe('mujoco');
    expect(r.ratio?.mujoco).toBeCloseTo(r.steps_per_s / res.peers[0].steps_per_s, 10);
    expect(benchMarkdown(res)).toContain('| arm7 | approx32 | monotone_decay | cpu | 1 |');
    expect(log.join('\n')).toMatch(/settled 10 steps in/);
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^arm7_10_1_[0-9a-f]{16}\.json$/)]);
  }, 60_000);

  it('reuses the cached settled state', async () => {
    const run = async (cache: string | null) => {
      const log: string[] = [];
      const res = await runBench({
        scenes: ['scenes/box_stack.yaml'],
        presets: ['drake'],
        num_worlds: [1],
        steps: 3,
        repeats: 1,
        settle: 20,
        peers: [],
        settle_cache: cache,
        log: (l) => log.push(l),
      });
      return { res, log };
    };
    const fresh = await run(null);
    const first = await run(dir);
    const second = await run(dir);
    expect(first.log.some((l) => /settled 20 steps in/.test(l))).toBe(true);
    expect(second.log.some((l) => /settled state of 20 steps from/.test(l))).toBe(true);
    // deterministic engine: the same contacts and iterations from the cached and the fresh settle
    for (const r of [first, second]) {
      expect(r.res.rows[0].contacts_per_world).toBe(fresh.res.rows[0].contacts_per_world);
      expect(r.res.rows[0].newton_iterations_mean).toBe(fresh.res.rows[0].newton_iterations_mean);
    }
  }, 60_000);

  it('lists the 12 SAP Warp example scenes as a group, with their asset root', async () => {
    expect(BENCH_GROUPS.sap_warp).toHaveLength(12);
    for (const id of BENCH_GROUPS.sap_warp) expect(BENCH_SCENES[id].asset_root).toBeDefined();
    const res = await runBench({
      scenes: ['sapwarp_basic_cartpole_usd'],
      presets: ['drake'],
      num_worlds: [1],
      steps: 3,
      repeats: 1,
      settle: 5,
      peers: [],
      settle_cache: null,
    });
    expect(res.notes).toEqual([]);
    expect(res.rows.map((r) => r.scene)).toEqual(['sapwarp_basic_cartpole_usd']);
  }, 60_000);

  it('measures the WebGPU backend beside the CPU on the same snapshot (or says why not)', async () => {
    const probe = await probeWebGpu();
    const res = await runBench({
      scenes: ['scenes/box_at_rest.yaml'],
      presets: ['approx32'],
      num_worlds: [1],
      backends: ['cpu', 'webgpu'],
      steps: 2,
      repeats: 1,
      settle: 10,
      peers: [],
      settle_cache: null,
    });
    const cpu = res.rows.find((r) => r.backend === 'cpu');
    expect(cpu).toBeDefined();
    const gpu = res.rows.find((r) => r.backend === 'webgpu');
    if (probe.available) {
      expect(gpu?.steps_per_s).toBeGreaterThan(0);
      expect(gpu?.contacts_per_world).toBe(cpu?.contacts_per_world);
      expect(res.notes.some((n) => n.startsWith('webgpu device: '))).toBe(true);
    } else {
      expect(gpu).toBeUndefined();
      expect(res.notes.some((n) => /webgpu not measured: WebGPU unavailable/.test(n))).toBe(true);
    }
  }, 120_000);
});
