/**
 * The worker's backend switch (SPEC §6, §8): `set_backend` through the SimHost, on the real WebGPU
 * backend where an adapter exists (SwiftShader here; those cases skip with the reason elsewhere), and
 * the CPU fallback with a stated reason (no adapter, equality constraints, a GPU error mid-run).
 * A few box_stack steps each, to stay fast.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CpuBackend, webgpuUnsupported, type CreateBackendResult } from '../backends';
import { swiftShaderInstalled, testGpu } from '../backends/webgpu/testing/test_gpu';
import { PROTOCOL_VERSION, type BackendInfo, type WorkerEvent } from './protocol';
import { SimHost, type SimHostOptions } from './sim_host';

const v = PROTOCOL_VERSION;
const scene = (name: string) => readFileSync(new URL(`../../scenes/${name}.yaml`, import.meta.url), 'utf8');

/** a two-link MJCF arm with an equality constraint (not on the GPU path yet) */
const EQUALITY_MJCF = `<mujoco><worldbody>
  <body name="a" pos="0 0 1"><joint name="ja"/><geom size="0.1" mass="1"/></body>
  <body name="b" pos="1 0 1"><joint name="jb"/><geom size="0.1" mass="1"/></body>
</worldbody><equality><joint joint1="jb" joint2="ja"/></equality></mujoco>`;

function setup(opts: SimHostOptions = {}) {
  let t = 0;
  const events: WorkerEvent[] = [];
  const h = new SimHost((e) => events.push(e), { now: () => t, ...opts });
  const of = <T extends WorkerEvent['type']>(type: T) =>
    events.filter((e): e is Extract<WorkerEvent, { type: T }> => e.type === type);
  const backend = (): BackendInfo => of('backend').at(-1)!.backend;
  const load = async (name: string, text = scene(name), file_name = `${name}.yaml`) => {
    h.handle({ v, type: 'load_scene', source: { kind: 'text', text, file_name } });
    await h.idle();
  };
  const choose = async (kind: 'cpu' | 'webgpu') => {
    h.handle({ v, type: 'set_backend', backend: kind });
    await h.idle();
  };
  /** plays `ticks` frames of 20 ms (queued GPU batches included) */
  const play = async (ticks: number) => {
    h.handle({ v, type: 'play' });
    await h.idle();
    for (let i = 0; i < ticks; i++) {
      t += 20;
      h.tick();
      await h.idle();
    }
    h.handle({ v, type: 'pause' });
    await h.idle();
  };
  const clock = (ms: number) => {
    t += ms;
  };
  return { h, events, of, backend, load, choose, play, clock };
}

/** a factory that finds no adapter, like a browser without WebGPU */
const noAdapter = async (
  _kind: unknown,
  model: Parameters<CpuBackend['init']>[0],
  opts: { solver: Record<string, unknown> },
): Promise<CreateBackendResult> => {
  const backend = new CpuBackend();
  await backend.init(model, opts);
  return { backend, fallback: 'WebGPU unavailable (no adapter (test)); running on the CPU backend' };
};

describe('backend switch without an adapter', () => {
  it('falls back to the CPU with the reason and keeps stepping; cpu clears the reason', async () => {
    const s = setup({ createBackend: noAdapter, probeAdapter: async () => undefined });
    await s.load('box_stack');
    expect(s.backend()).toMatchObject({ requested: 'cpu', active: 'cpu', pending: false });
    expect(s.backend().fallback).toBeUndefined();
    await s.choose('webgpu');
    const b = s.backend();
    expect(b).toMatchObject({ requested: 'webgpu', active: 'cpu', pending: false });
    expect(b.fallback).toMatch(/no adapter \(test\).*CPU backend/);
    expect(b.precision.contact_solve_precision).toBe('fp64');
    // precision labels follow option changes
    s.h.handle({ v, type: 'set_options', options: { contact_preset_variant: 'approx32' } });
    await s.h.idle();
    expect(s.backend().precision.free_motion_solve_precision).toBe('fp32');
    await s.play(3);
    expect(s.h.stepCount).toBeGreaterThan(0);
    // a new scene tries the selected backend again (and falls back again)
    await s.load('pendulum');
    expect(s.backend()).toMatchObject({ requested: 'webgpu', active: 'cpu' });
    expect(s.backend().fallback).toMatch(/no adapter/);
    await s.choose('cpu');
    expect(s.backend()).toMatchObject({ requested: 'cpu', active: 'cpu' });
    expect(s.backend().fallback).toBeUndefined();
    expect(s.of('error')).toEqual([]);
  });

  it('reports a factory that throws as a fallback, not a crash', async () => {
    const s = setup({
      createBackend: async () => {
        throw new Error('kernels failed to build');
      },
      probeAdapter: async () => 'test adapter',
    });
    await s.choose('webgpu'); // before any scene: kept for the first load
    expect(s.backend()).toMatchObject({ requested: 'webgpu', active: 'cpu' });
    await s.load('box_at_rest');
    expect(s.backend().fallback).toMatch(/could not be created \(kernels failed to build\)/);
    expect(s.of('ready')).toHaveLength(1);
  });
});

/** an asynchronous stand-in for the GPU backend: the CPU step behind a delay, counting overlaps */
class SlowBackend extends CpuBackend {
  // reports itself as the WebGPU backend, so the host takes its asynchronous path
  override readonly kind = 'webgpu' as unknown as 'cpu';
  override get description(): string {
    return 'webgpu: slow test stand-in';
  }
  inFlight = 0;
  maxInFlight = 0;
  steps = 0;
  failAt = -1;
  override async step(...args: Parameters<CpuBackend['step']>) {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((r) => setTimeout(r, 1));
      if (++this.steps === this.failAt) throw new Error('device hung (test)');
      return this.stepSync(...args);
    } finally {
      this.inFlight--;
    }
  }
}

describe('backend switch with an asynchronous backend', () => {
  it('keeps applying commands while the backend is made, never overlaps steps, falls back on a failure', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const made: SlowBackend[] = [];
    const s = setup({
      createBackend: async (_kind, model, opts) => {
        const backend = new SlowBackend();
        await backend.init(model, opts);
        made.push(backend);
        await gate;
        return { backend: backend as never };
      },
    });
    await s.load('box_stack');
    s.h.handle({ v, type: 'set_backend', backend: 'webgpu' });
    // still being made: the CPU steps and commands apply meanwhile
    s.h.handle({ v, type: 'step', n: 3 });
    await new Promise((r) => setTimeout(r, 5));
    expect(s.h.stepCount).toBe(3);
    expect(s.backend()).toMatchObject({ requested: 'webgpu', active: 'cpu', pending: true });
    release();
    await s.h.idle();
    expect(s.backend()).toMatchObject({ requested: 'webgpu', active: 'webgpu', pending: false });
    const b = made[0];

    // ticks faster than the steps: one batch at a time, none queued behind it
    s.h.handle({ v, type: 'play' });
    await s.h.idle();
    for (let i = 0; i < 10; i++) {
      s.h.tick(); // the fake clock stands still: nothing owed
    }
    await s.h.idle();
    for (let i = 0; i < 20; i++) {
      s.clock(20);
      s.h.tick();
      s.h.tick();
      await new Promise((r) => setTimeout(r, 2));
    }
    await s.h.idle();
    expect(b.steps).toBeGreaterThan(5);
    expect(b.maxInFlight).toBe(1);
    expect(s.of('frame').at(-1)!.step).toBe(s.h.stepCount);

    // a failure mid-run: the CPU goes on from the same state
    const n = s.h.stepCount;
    b.failAt = b.steps + 1;
    s.h.handle({ v, type: 'pause' });
    s.h.handle({ v, type: 'step', n: 4 });
    await s.h.idle();
    expect(s.h.stepCount).toBe(n + 4);
    expect(s.backend()).toMatchObject({ requested: 'webgpu', active: 'cpu' });
    expect(s.backend().fallback).toMatch(/device hung \(test\)/);
    expect(s.of('error').map((e) => e.error.code)).toEqual(['backend']);

    // choosing cpu while a backend is still being made discards it
    let release2!: () => void;
    const gate2 = new Promise<void>((r) => (release2 = r));
    const s2 = setup({
      createBackend: async (_kind, model, opts) => {
        const backend = new SlowBackend();
        await backend.init(model, opts);
        await gate2;
        return { backend: backend as never };
      },
    });
    await s2.load('box_at_rest');
    s2.h.handle({ v, type: 'set_backend', backend: 'webgpu' });
    s2.h.handle({ v, type: 'set_backend', backend: 'cpu' });
    await new Promise((r) => setTimeout(r, 5));
    release2();
    await s2.h.idle();
    expect(s2.backend()).toMatchObject({ requested: 'cpu', active: 'cpu', pending: false });
  });
});

const gpu = await testGpu();

describe.skipIf(!gpu.ok)('backend switch on the WebGPU device', () => {
  it('has an adapter where SwiftShader is installed', () => {
    if (swiftShaderInstalled()) expect(gpu.ok).toBe(true);
  });

  it('steps box_stack on WebGPU, survives a GPU fault on the CPU, and switches back and forth', async () => {
    const s = setup();
    await s.load('box_stack');
    const q0 = Array.from(s.h.sim!.state.joint_q);
    await s.choose('webgpu');
    let b = s.backend();
    expect(b, b.fallback).toMatchObject({ requested: 'webgpu', active: 'webgpu', pending: false });
    expect(b.fallback).toBeUndefined();
    expect(b.adapter).toBeTruthy();
    // box_stack runs the drake preset: fp64 knobs, realized in df64 on the GPU
    expect(b.precision.contact_solve_precision).toBe('fp64 (df64)');
    expect(s.of('backend').some((e) => e.backend.pending)).toBe(true);

    // `step` and paced play go through the GPU; never two steps at once
    s.h.handle({ v, type: 'step', n: 2 });
    await s.h.idle();
    expect(s.h.stepCount).toBe(2);
    await s.play(3);
    const n = s.h.stepCount;
    expect(n).toBeGreaterThan(2);
    expect(s.of('frame').at(-1)!.step).toBe(n);
    expect(s.h.sim!.state.time).toBeCloseTo(n * s.h.sim!.dt, 9);
    const q1 = Array.from(s.h.sim!.state.joint_q);
    expect(q1.every(Number.isFinite)).toBe(true);
    expect(Math.max(...q1.map((x, i) => Math.abs(x - q0[i])))).toBeGreaterThan(0);

    // the GPU and CPU steps agree closely from the same state
    const ref = setup();
    await ref.load('box_stack');
    ref.h.handle({ v, type: 'step', n });
    await ref.h.idle();
    const qc = Array.from(ref.h.sim!.state.joint_q);
    expect(Math.max(...qc.map((x, i) => Math.abs(x - q1[i])))).toBeLessThan(1e-6);

    // options apply to the GPU backend (a tolerance: no new kernel variants to compile)
    const statusEvents = s.of('backend').length;
    s.h.handle({ v, type: 'set_options', options: { optimality_rel_tol: 1e-5 } });
    await s.h.idle();
    expect(s.of('backend').length).toBeGreaterThan(statusEvents);
    expect(s.backend().active).toBe('webgpu');
    s.h.handle({ v, type: 'step', n: 1 });
    await s.h.idle();

    // a GPU error mid-run: the CPU takes over, same scene, state continues, reason stated
    s.h.gpuFaultNextStep = true;
    const before = s.h.stepCount;
    s.h.handle({ v, type: 'step', n: 2 });
    await s.h.idle();
    expect(s.h.stepCount).toBe(before + 2);
    b = s.backend();
    expect(b).toMatchObject({ requested: 'webgpu', active: 'cpu' });
    expect(b.fallback).toMatch(/WebGPU backend failed \(injected GPU fault\); running on the CPU backend/);
    expect(s.of('error').at(-1)!.error.code).toBe('backend');
    expect(s.of('ready')).toHaveLength(1);

    // history and seek still work across the switch
    s.h.handle({ v, type: 'seek', step: 2 });
    await s.h.idle();
    expect(s.h.stepCount).toBe(2);

    // back to cpu, then webgpu again: a reload makes the selected backend anew
    await s.choose('cpu');
    expect(s.backend()).toMatchObject({ requested: 'cpu', active: 'cpu' });
    await s.play(2);
    await s.choose('webgpu');
    expect(s.backend().active).toBe('webgpu');
    s.h.handle({ v, type: 'reload', num_worlds: 2 });
    await s.h.idle();
    expect(s.backend()).toMatchObject({ requested: 'webgpu', active: 'webgpu' });
    s.h.handle({ v, type: 'reset' });
    s.h.handle({ v, type: 'step', n: 1 });
    await s.h.idle();
    expect(s.h.stepCount).toBe(1);
    await s.choose('cpu');
  });

  it('falls back for a model feature the GPU path lacks (equality constraints), with the reason', async () => {
    const s = setup();
    await s.choose('webgpu');
    await s.load('arm', EQUALITY_MJCF, 'arm.xml');
    expect(s.of('ready')).toHaveLength(1);
    const b = s.backend();
    expect(b.requested).toBe('webgpu');
    expect(b.adapter).toBeTruthy();
    const unsupported = webgpuUnsupported(s.h.sim!.model);
    if (unsupported) {
      expect(b.active).toBe('cpu');
      expect(b.fallback).toContain(unsupported);
    } else expect(b.active).toBe('webgpu'); // once the GPU path has equalities
    s.h.handle({ v, type: 'step', n: 2 });
    await s.h.idle();
    expect(s.h.stepCount).toBe(2);
  });
});
