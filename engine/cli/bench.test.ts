/**
 * `npm run bench` stays runnable: a tiny configuration runs end to end (ours + the MuJoCo peer on
 * an exported model), and a settled state is cached and reused bit for bit.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { probeWebGpu } from '../backends';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { loadModelFile } from '../io/load_file';
import { JointType } from '../model';
import { makeState } from '../kinematics';
import {
  BENCH_GROUPS,
  BENCH_SCENES,
  benchMarkdown,
  contactScaling,
  jitterFreeBodies,
  peerContactScaling,
  microseconds,
  runBench,
  runBenchRepeated,
  type BenchRow,
  type PeerRow,
} from './bench';
import { main } from './main';
import { pileSceneYaml } from './pile';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
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
      warmup_ms: 0,
      log: (l) => log.push(l),
    });
    expect(res.rows).toHaveLength(1);
    const r = res.rows[0];
    expect(r.scene).toBe('arm7');
    expect(r.steps_per_s).toBeGreaterThan(0);
    expect(r.stage_ms.total).toBeGreaterThan(0);
    expect(res.peers).toHaveLength(1);
    expect(res.peers[0].peer).toBe('mujoco');
    // one round: the median of the per-round ratios is the ratio of the medians
    expect(r.ratio_of_medians?.mujoco).toBeCloseTo(r.steps_per_s / res.peers[0].steps_per_s, 10);
    expect(r.ratio?.mujoco).toBeCloseTo(r.steps_per_s / res.peers[0].steps_per_s, 10);
    const md = benchMarkdown(res);
    expect(md).toContain('| arm7 | approx32 | monotone_decay | off | – | cpu | 1 |');
    // the stage times in µs, each with three significant digits (a robot's step is a few µs)
    const stages = md
      .split('\n')
      .find((l) => l.startsWith('| arm7'))!
      .split(' | ')[14]
      .split(' · ');
    expect(stages).toHaveLength(5);
    const sm = r.stage_ms;
    expect(stages).toEqual(
      [sm.collision, sm.free_motion, sm.constraints, sm.solve, sm.integrate].map(microseconds),
    );
    expect(log.join('\n')).toMatch(/settled 10 steps in/);
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^arm7_10_1_[0-9a-f]{16}\.json$/)]);
  }, 60_000);

  it('writes a generated pile of the scaling series before timing it', async () => {
    const spec = BENCH_SCENES.pile_216_landing;
    expect(spec.pile).toEqual({ nx: 6, ny: 6, nz: 6 });
    expect(BENCH_GROUPS.scaling).toContain('pile_216_landing');
    const res = await runBench({
      scenes: ['pile_216_landing'],
      presets: ['approx32'],
      num_worlds: [1],
      steps: 1,
      repeats: 1,
      settle: 2,
      peers: [],
      settle_cache: null,
      warmup_ms: 0,
    });
    expect(readFileSync(path.join(ROOT, spec.file), 'utf8')).toBe(
      pileSceneYaml('pile_216_landing', spec.pile!),
    );
    // the scene's own sweep: SAP's default friction and σ = 0.1
    expect(res.rows.map((r) => [r.scene, r.overrides])).toEqual([
      ['pile_216_landing', {}],
      ['pile_216_landing', { contact_sigma: 0.1 }],
    ]);
    for (const r of res.rows) expect(r.steps_per_s).toBeGreaterThan(0);
  }, 60_000);

  it('times pile_64 and its peers from the same sixteen start states (eight arrangements), round by round', async () => {
    // the resting pile and the tumbling one are the same scene at two settle lengths
    for (const id of ['pile_64', 'pile_64_tumbling']) {
      expect(BENCH_SCENES[id].file).toBe('scenes/pile_64.yaml');
      expect(BENCH_SCENES[id].snapshots).toBe(2);
      expect(BENCH_SCENES[id].arrangements).toBe(8);
      expect(BENCH_SCENES[id].repeats).toBe(16);
    }
    expect(BENCH_SCENES.pile_64.settle).toBeGreaterThan(BENCH_SCENES.pile_64_tumbling.settle);
    const res = await runBench({
      scenes: ['pile_64'],
      presets: ['approx32'],
      line_searches: ['monotone_decay'],
      islands: [false],
      num_worlds: [1],
      steps: 2,
      repeats: 3,
      settle: 5,
      peers: ['mujoco', 'mujoco_whole', 'mujoco_elliptic', 'rapier'],
      settle_cache: null,
      warmup_ms: 0,
    });
    expect(res.rows).toHaveLength(1);
    expect(res.peers.map((p) => p.peer).sort()).toEqual([
      'mujoco',
      'mujoco_elliptic',
      'mujoco_whole',
      'rapier',
    ]);
    for (const p of res.peers) expect(p.start).toMatch(/16 start states/);
    const mj = res.peers.find((p) => p.peer === 'mujoco')!;
    const whole = res.peers.find((p) => p.peer === 'mujoco_whole')!;
    expect(mj.start).toMatch(/8 arrangements of 2 states 20 steps apart/);
    // MuJoCo with its island discovery off: no islands to report
    expect(mj.islands_mean).toBeDefined();
    expect(whole.islands_mean).toBeUndefined();
    expect(whole.version).toMatch(/island discovery off/);
    // MuJoCo with elliptic cones: the same contacts, another solve (its own iteration count)
    const elliptic = res.peers.find((p) => p.peer === 'mujoco_elliptic')!;
    expect(elliptic.version).toMatch(/elliptic cones/);
    expect(elliptic.islands_mean).toBeDefined();
    expect(Object.keys(res.rows[0].ratio ?? {}).sort()).toEqual([
      'mujoco',
      'mujoco_elliptic',
      'mujoco_whole',
      'rapier',
    ]);
    // paired round by round (three rounds, each peer timed right after ours from the same state)
    for (const v of Object.values(res.rows[0].ratio ?? {})) expect(v).toBeGreaterThan(0);
    expect(benchMarkdown(res)).toContain('ours/MuJoCo, its islands off | ours/MuJoCo, elliptic cones |');
  }, 120_000);

  it('runs each peer in a worker thread of its own (the bundled peer worker) with the same results', async () => {
    // (inside the checkout, so that the bundle finds the npm packages it leaves external)
    mkdirSync(path.join(ROOT, 'node_modules/.cache'), { recursive: true });
    const out = mkdtempSync(path.join(ROOT, 'node_modules/.cache/sap-bench-worker-'));
    onTestFinished(() => rmSync(out, { recursive: true, force: true }));
    await build({
      entryPoints: { peer_worker: path.join(ROOT, 'engine/cli/peers/peer_worker.ts') },
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outdir: out,
      outExtension: { '.js': '.mjs' },
      logLevel: 'error',
    });
    const opts = {
      scenes: ['pile_64'],
      presets: ['approx32'],
      line_searches: ['monotone_decay'],
      islands: [false],
      num_worlds: [1],
      steps: 3,
      repeats: 3,
      settle: 10,
      peers: ['mujoco', 'mujoco_whole', 'rapier'] as const,
      settle_cache: null,
      warmup_ms: 0,
    };
    const inline = await runBench({ ...opts, peers: [...opts.peers] });
    expect(inline.notes.filter((n) => /the peers ran in the bench's thread/.test(n))).toHaveLength(1);
    const worker = await runBench({
      ...opts,
      peers: [...opts.peers],
      peer_worker: path.join(out, 'peer_worker.mjs'),
    });
    expect(worker.notes.filter((n) => /mujoco|rapier|peers ran/.test(n))).toEqual([]);
    // the same start states and steps: the same contacts and solver iterations in either thread
    // (the warm-up is timed: its time and steps differ from run to run)
    const strip = (r: PeerRow) => ({
      ...r,
      steps_per_s: 0,
      real_time_factor: 0,
      thread: undefined,
      warmup: undefined,
    });
    const byPeer = (rows: PeerRow[]) => [...rows].sort((a, b) => a.peer.localeCompare(b.peer)).map(strip);
    expect(worker.peers).toHaveLength(3);
    expect(byPeer(worker.peers)).toEqual(byPeer(inline.peers));
    for (const p of worker.peers) expect([p.steps_per_s > 0, p.thread]).toEqual([true, 'worker']);
    for (const p of inline.peers) expect(p.thread).toBe('bench');
  }, 120_000);

  it('measures each --variant beside the scene options in the same rounds, and labels it', async () => {
    const res = await runBench({
      scenes: ['scenes/box_stack.yaml'],
      presets: ['approx32'],
      variants: [{}, { contact_sigma: 0.01, max_iterations: 7 }],
      num_worlds: [1],
      steps: 3,
      repeats: 1,
      settle: 10,
      peers: [],
      settle_cache: null,
      warmup_ms: 0,
    });
    expect(res.rows.map((r) => r.overrides)).toEqual([{}, { contact_sigma: 0.01, max_iterations: 7 }]);
    const md = benchMarkdown(res);
    expect(md).toContain('| box_stack | approx32 | monotone_decay | off | – | cpu |');
    expect(md).toContain(
      '| box_stack | approx32 | monotone_decay | off | contact_sigma=0.01,max_iterations=7 | cpu |',
    );
  }, 60_000);

  it('bench --variant rejects an unknown option with its name', async () => {
    const err: string[] = [];
    const spy = vi
      .spyOn(console, 'error')
      .mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
    try {
      expect(await main(['bench', 'arm7', '--variant', 'contact_sigmaa=1', '--peers', 'none'])).toBe(2);
    } finally {
      spy.mockRestore();
    }
    expect(err.join('\n')).toMatch(/^error: --variant: unknown option 'contact_sigmaa'/);
  });

  it('--repeat runs the bench again from scratch and reports each ratio change; rows carry the per-round spread and the warm-up', async () => {
    const res = await runBenchRepeated(
      {
        scenes: ['arm7'],
        presets: ['approx32'],
        line_searches: ['monotone_decay'],
        num_worlds: [1],
        steps: 5,
        repeats: 5,
        settle: 10,
        peers: ['mujoco'],
        settle_cache: dir,
        warmup_ms: 20,
        warmup_max_ms: 100,
      },
      2,
    );
    const r = res.rows[0];
    const c = res.repeat_check!;
    expect(c.runs).toBe(2);
    expect(c.ratios).toHaveLength(1);
    const e = c.ratios[0];
    expect([e.scene, e.preset, e.peer]).toEqual(['arm7', 'approx32', 'mujoco']);
    // the rows are the last run's
    expect(e.values[1]).toBe(r.ratio!.mujoco);
    const v = e.values as number[];
    expect(v[0]).toBeGreaterThan(0);
    expect(e.change).toBeCloseTo(Math.max(...v) / Math.min(...v) - 1, 12);
    // the per-round ratios' spread around their median
    const q = r.ratio_spread!.mujoco!;
    expect(q.rounds).toBe(5);
    expect(q.median).toBe(r.ratio!.mujoco);
    expect(q.min).toBeLessThanOrEqual(q.q1);
    expect(q.q1).toBeLessThanOrEqual(q.median);
    expect(q.median).toBeLessThanOrEqual(q.q3);
    expect(q.q3).toBeLessThanOrEqual(q.max);
    // each side's warm-up: at least its minimum, at most its cap (a round may end past it)
    for (const w of [r.warmup!, res.peers[0].warmup!]) {
      expect(w.ms).toBeGreaterThanOrEqual(20);
      expect(w.steps).toBeGreaterThanOrEqual(3);
      expect(typeof w.steady).toBe('boolean');
    }
    const md = benchMarkdown(res);
    expect(md).toContain(`| ${q.median.toFixed(2)} (${q.q1.toFixed(2)}–${q.q3.toFixed(2)}) |`);
    expect(md).toContain('Repeat check: 2 runs of the whole bench');
    expect(md).toMatch(
      /\| arm7 \| approx32 \| monotone_decay \| off \| – \| mujoco \| \d+\.\d\d \| \d+\.\d\d \| \d+\.\d%/,
    );
  }, 120_000);

  it('bench --repeat refuses 0 runs', async () => {
    const err: string[] = [];
    const spy = vi
      .spyOn(console, 'error')
      .mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
    try {
      expect(await main(['bench', 'arm7', '--repeat', '0', '--peers', 'none'])).toBe(2);
    } finally {
      spy.mockRestore();
    }
    expect(err.join('\n')).toMatch(/^error: --repeat: expected at least 1 run/);
  });

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
        warmup_ms: 0,
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

  it('takes the further start states the same way after a fresh and after a cached settle', async () => {
    // pile_64's start states: per arrangement the second and third are stepped on from the first,
    // which a cached run reads from the file (no warm-start history, no broad-phase order from the
    // settle); sixteen rounds take all sixteen states
    const cache = mkdtempSync(path.join(os.tmpdir(), 'sap-bench-snaps-'));
    onTestFinished(() => rmSync(cache, { recursive: true, force: true }));
    const run = () =>
      runBench({
        scenes: ['pile_64'],
        presets: ['approx32'],
        line_searches: ['monotone_decay'],
        islands: [false],
        num_worlds: [1],
        steps: 6,
        repeats: 16,
        settle: 100,
        peers: [],
        settle_cache: cache,
        warmup_ms: 0,
      });
    const fresh = (await run()).rows[0];
    // one settled state per arrangement
    const files = readdirSync(cache);
    expect(files).toHaveLength(8);
    expect(files).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^pile_64_100_1_[0-9a-f]{16}\.json$/),
        ...[1, 2, 3, 4, 5, 6, 7].map((a) =>
          expect.stringMatching(new RegExp(`^pile_64_100_1_a${a}_[0-9a-f]{16}\\.json$`)),
        ),
      ]),
    );
    const cached = (await run()).rows[0];
    expect(fresh.contacts_per_world).toBeGreaterThan(0);
    expect(fresh.newton_iterations_mean).toBeGreaterThan(1);
    expect([
      cached.newton_iterations_mean,
      cached.line_search_iterations_mean,
      cached.contacts_per_world,
    ]).toEqual([fresh.newton_iterations_mean, fresh.line_search_iterations_mean, fresh.contacts_per_world]);
  }, 120_000);

  it('lists the 12 SAP Warp example scenes as a group, with their asset root', async () => {
    expect(BENCH_GROUPS.sap_warp).toHaveLength(12);
    for (const id of BENCH_GROUPS.sap_warp) expect(BENCH_SCENES[id].asset_root).toBeDefined();
    // a brief measurement: drake, one world, three steps, no peers, no settled-state cache
    const brief = {
      presets: ['drake'],
      num_worlds: [1],
      steps: 3,
      repeats: 1,
      settle: 5,
      peers: [],
      settle_cache: null,
      warmup_ms: 0,
    };
    const res = await runBench({ ...brief, scenes: ['sapwarp_basic_cartpole_usd'] });
    expect(res.notes).toEqual([]);
    // SAP Warp's default line search, then the scene's own (its file names armijo_decay)
    expect(res.rows.map((r) => [r.scene, r.line_search])).toEqual([
      ['sapwarp_basic_cartpole_usd', 'monotone_decay'],
      ['sapwarp_basic_cartpole_usd', 'armijo_decay'],
    ]);
    // a scene whose own is monotone_decay measures it once
    const one = await runBench({
      ...brief,
      scenes: ['scenes/box_at_rest.yaml'],
      line_searches: ['monotone_decay', 'scene'],
    });
    expect(one.rows.map((r) => r.line_search)).toEqual(['monotone_decay']);
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
      warmup_ms: 0,
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
  }, 360_000);
});

describe('pile arrangements', () => {
  it('jitterFreeBodies turns each free body by at most 2° about z and shifts it by at most 1 mm, the same for the same seed', async () => {
    const scene = await loadModelFile(path.join(ROOT, 'scenes/pile_64.yaml'));
    const m = scene.model;
    const base = makeState(m);
    const a = makeState(m);
    const b = makeState(m);
    const c = makeState(m);
    jitterFreeBodies(m, a, 1);
    jitterFreeBodies(m, b, 1);
    jitterFreeBodies(m, c, 2);
    expect(Array.from(b.joint_q)).toEqual(Array.from(a.joint_q));
    expect(Array.from(c.joint_q)).not.toEqual(Array.from(a.joint_q));
    let free = 0;
    let largest = 0;
    for (let j = 0; j < m.joint_count; j++) {
      if (m.joint_type[j] !== JointType.FREE) continue;
      free++;
      const o = m.joint_q_start[j];
      const q0 = base.joint_q.subarray(o, o + 7);
      const q1 = a.joint_q.subarray(o, o + 7);
      expect(Math.abs(q1[0] - q0[0])).toBeLessThanOrEqual(1e-3);
      expect(Math.abs(q1[1] - q0[1])).toBeLessThanOrEqual(1e-3);
      expect(q1[2]).toBe(q0[2]);
      expect(Math.hypot(q1[3], q1[4], q1[5], q1[6])).toBeCloseTo(1, 14);
      // the turn q1 ⊗ q0⁻¹ is about z: its x and y parts vanish; its angle is at most 2°
      const [x0, y0, z0, w0] = [-q0[3], -q0[4], -q0[5], q0[6]];
      const [x1, y1, z1, w1] = [q1[3], q1[4], q1[5], q1[6]];
      const rx = w1 * x0 + x1 * w0 + y1 * z0 - z1 * y0;
      const ry = w1 * y0 - x1 * z0 + y1 * w0 + z1 * x0;
      const rz = w1 * z0 + x1 * y0 - y1 * x0 + z1 * w0;
      expect(Math.hypot(rx, ry)).toBeLessThan(1e-12);
      const angle = 2 * Math.asin(Math.min(1, Math.abs(rz)));
      expect(angle).toBeLessThanOrEqual((2 * Math.PI) / 180 + 1e-12);
      largest = Math.max(largest, angle);
    }
    expect(free).toBe(64);
    expect(largest).toBeGreaterThan((1 * Math.PI) / 180);
  });
});

describe('bench table', () => {
  it('writes stage times in µs with three significant digits, whole µs from 100 µs up', () => {
    expect(microseconds(0.0014237)).toBe('1.42');
    expect(microseconds(0.0000123)).toBe('0.0123');
    expect(microseconds(0.0521)).toBe('52.1');
    expect(microseconds(0.1)).toBe('100');
    expect(microseconds(67.234)).toBe('67234');
    expect(microseconds(0)).toBe('0.00');
    expect(microseconds(Number.NaN)).toBe('–');
  });
});

describe('contact scaling fit', () => {
  const row = (
    scene: string,
    preset: string,
    steps_per_s: number,
    contacts: number,
    solve_islands = false,
    overrides: Record<string, unknown> = {},
  ): BenchRow => ({
    scene,
    preset,
    line_search: 'monotone_decay',
    solve_islands,
    overrides,
    backend: 'cpu',
    num_worlds: 1,
    dt: 0.002,
    steps_per_s,
    real_time_factor: 0,
    newton_iterations_mean: 0,
    line_search_iterations_mean: 0,
    contacts_per_world: contacts,
    islands_per_world: 1,
    linear_solver: 'block_sparse',
    stage_ms: { collision: 0, free_motion: 0, constraints: 0, solve: 0, integrate: 0, total: 0 },
  });

  it('fits t ∝ contacts^p over each series, per preset, islands and variant', () => {
    // per-step times t = 1/steps_per_s: pile_1000 1600², pile_64_tumbling 100² (p = 2), pile_64_landing
    // 1600²·200/1600 (p = 1); drake has no pile_1000 row, so no fit
    const rows = [
      row('pile_64_tumbling', 'approx32', 1 / 100 ** 2, 100),
      row('pile_64_landing', 'approx32', 1 / ((1600 ** 2 * 200) / 1600), 200),
      row('pile_1000', 'approx32', 1 / 1600 ** 2, 1600),
      row('pile_64_tumbling', 'drake', 1, 100),
      // islands rows pair only with islands rows: p = 1 here
      row('pile_64_tumbling', 'approx32', 1 / 100, 100, true),
      row('pile_1000', 'approx32', 1 / 1600, 1600, true),
    ];
    // a --variant row pairs only with the same variant: p = 3 here
    const sigma = { contact_sigma: 0.01 };
    rows.push(row('pile_64_tumbling', 'approx32', 1, 100, false, sigma));
    rows.push(row('pile_1000', 'approx32', 1 / 16 ** 3, 1600, false, sigma));
    const fit = contactScaling(rows);
    expect(fit.map((f) => [f.series, f.from, f.preset, f.solve_islands, f.overrides])).toEqual([
      ['landing', 'pile_64_landing', 'approx32', false, {}],
      ['tumbling → landing', 'pile_64_tumbling', 'approx32', false, {}],
      ['tumbling → landing', 'pile_64_tumbling', 'approx32', true, {}],
      ['tumbling → landing', 'pile_64_tumbling', 'approx32', false, sigma],
    ]);
    expect(fit.map((f) => f.exponent)).toEqual([1, 2, 1, 3].map((p) => expect.closeTo(p, 12)));
    expect(fit[0].points.map((p) => p.scene)).toEqual(['pile_64_landing', 'pile_1000']);
  });

  it('fits the least-squares slope in log–log over a series of more than two piles', () => {
    // landing series: t = c^1.5 exactly at 200 and 1600 contacts, 3× slower than that at 700 (off
    // the line), 512 missing; the four-layer series: t ∝ c on three piles
    // steps/s of a per-step time T = k·c^p [s]
    const rate = (c: number, p: number, k = 1e-6): number => 1 / (k * c ** p);
    const rows = [
      row('pile_64_landing', 'approx32', rate(200, 1.5), 200),
      row('pile_216_landing', 'approx32', rate(700, 1.5, 3e-6), 700),
      row('pile_1000', 'approx32', rate(1600, 1.5), 1600),
      row('pile_256_flat', 'approx32', rate(800, 1, 1e-6 * 200 ** 0.5), 800),
      row('pile_1024_flat', 'approx32', rate(3200, 1, 1e-6 * 200 ** 0.5), 3200),
    ];
    const fit = contactScaling(rows);
    expect(fit.map((f) => f.series)).toEqual(['landing', 'landing, four layers']);
    const [landing, flat] = fit;
    expect(landing.points.map((p) => p.scene)).toEqual(['pile_64_landing', 'pile_216_landing', 'pile_1000']);
    // the least-squares slope: by hand from the three (ln c, ln t) points
    const x = [200, 700, 1600].map(Math.log);
    const y = [200 ** 1.5, 3 * 700 ** 1.5, 1600 ** 1.5].map(Math.log);
    const mx = (x[0] + x[1] + x[2]) / 3,
      my = (y[0] + y[1] + y[2]) / 3;
    const slope =
      x.reduce((s, v, k) => s + (v - mx) * (y[k] - my), 0) / x.reduce((s, v) => s + (v - mx) ** 2, 0);
    expect(landing.exponent).toBeCloseTo(slope, 12);
    expect(landing.local[0]).toBeCloseTo(1.5 + Math.log(3) / Math.log(3.5), 12);
    expect(landing.local[1]).toBeCloseTo(1.5 - Math.log(3) / Math.log(1600 / 700), 12);
    expect(flat.points.map((p) => p.scene)).toEqual(['pile_64_landing', 'pile_256_flat', 'pile_1024_flat']);
    expect(flat.exponent).toBeCloseTo(1, 12);
    expect(flat.local).toEqual([1, 1].map((p) => expect.closeTo(p, 12)));
  });
  it("fits each peer's growth over the piles it ran, against its own contact count", () => {
    const peer = (scene: string, name: PeerRow['peer'], contacts: number, steps_per_s: number): PeerRow => ({
      scene,
      peer: name,
      version: name === 'rapier' ? 'Rapier x' : 'MuJoCo x',
      dt: 0.002,
      steps_per_s,
      real_time_factor: 0,
      contacts,
      start: '',
    });
    // MuJoCo: t ∝ c³ on the cubic grids, missing on pile_1024_flat (so its four-layer fit has two
    // piles); Rapier: t ∝ c on the four-layer piles, t ∝ √c from pile_64_landing to pile_1000
    const peers = [
      peer('pile_64_landing', 'mujoco', 200, 1 / 200 ** 3),
      peer('pile_64_landing', 'rapier', 500, 1 / 500),
      peer('pile_216_landing', 'mujoco', 700, 1 / 700 ** 3),
      peer('pile_1000', 'mujoco', 2000, 1 / 2000 ** 3),
      peer('pile_1000', 'rapier', 5000, 1 / (500 * 10 ** 0.5)),
      peer('pile_256_flat', 'mujoco', 900, 1 / 900 ** 2),
      peer('pile_256_flat', 'rapier', 2000, 1 / 2000),
      peer('pile_1024_flat', 'rapier', 8000, 1 / 8000),
      // a peer row of another scene changes nothing
      peer('pile_64', 'mujoco', 300, 1),
    ];
    const fit = peerContactScaling(peers);
    expect(fit.map((f) => [f.series, f.peer, f.to, f.points.length])).toEqual([
      ['landing', 'mujoco', 'pile_1000', 3],
      ['landing', 'rapier', 'pile_1000', 2],
      ['landing, four layers', 'mujoco', 'pile_256_flat', 2],
      ['landing, four layers', 'rapier', 'pile_1024_flat', 3],
    ]);
    expect(fit.map((f) => f.exponent)).toEqual(
      [3, 0.5, Math.log(200 ** 3 / 900 ** 2) / Math.log(200 / 900), 1].map((p) => expect.closeTo(p, 12)),
    );
    expect(fit[3].local).toEqual([1, 1].map((p) => expect.closeTo(p, 12)));
    const md = benchMarkdown({ rows: [], peers, notes: [], contact_scaling: [], peer_contact_scaling: fit });
    expect(md).toContain(
      '- landing: pile_64_landing (200) → pile_216_landing (700) → pile_1000 (2000), MuJoCo x: p = 3.00 (between neighbours 3.00, 3.00)',
    );
    expect(md).toContain(
      '- landing, four layers: pile_64_landing (500) → pile_256_flat (2000) → pile_1024_flat (8000), Rapier x: p = 1.00',
    );
  });
});
