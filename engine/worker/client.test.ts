import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SimClient, type WorkerLike } from './client';
import type { WorkerEvent } from './protocol';
import { SimHost, type SimHostOptions } from './sim_host';
import { CpuBackend } from '../backends';

const boxStack = readFileSync(new URL('../../scenes/box_stack.yaml', import.meta.url), 'utf8');

/** an in-process "worker": a SimHost behind asynchronous messages, which can be killed */
class FakeWorker implements WorkerLike {
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onerror: ((ev: ErrorEvent) => void) | null = null;
  dead = false;
  readonly host: SimHost;
  constructor(hostOpts: SimHostOptions = {}) {
    this.host = new SimHost((e) => {
      if (!this.dead) queueMicrotask(() => this.onmessage?.({ data: e } as MessageEvent));
    }, hostOpts);
  }
  postMessage(message: unknown): void {
    if (!this.dead) queueMicrotask(() => !this.dead && this.host.handle(structuredClone(message)));
  }
  terminate(): void {
    this.dead = true;
  }
}

async function settle(workers: FakeWorker[]): Promise<void> {
  for (let k = 0; k < 5; k++) {
    await new Promise((r) => setTimeout(r, 0));
    await Promise.all(workers.map((w) => w.host.idle()));
  }
}

function setup(hostOpts: SimHostOptions = {}) {
  const workers: FakeWorker[] = [];
  const events: WorkerEvent[] = [];
  let now = 0;
  let tick: () => void = () => {};
  const client = new SimClient((e) => events.push(e), {
    createWorker: () => {
      const w = new FakeWorker(hostOpts);
      workers.push(w);
      return w;
    },
    now: () => now,
    setInterval: (fn) => {
      tick = fn;
      return 1;
    },
    clearInterval: () => {},
  });
  /** advances the clock in 250 ms ticks, running the client's watch each time */
  const advance = async (ms: number) => {
    for (let t = 0; t < ms; t += 250) {
      now += 250;
      tick();
      await settle(workers);
    }
  };
  return { client, workers, events, advance };
}

describe('SimClient keeps the engine alive', () => {
  it('restarts a dead worker with the last scene, options and state', async () => {
    const { client, workers, events, advance } = setup();
    client.send({
      type: 'load_scene',
      source: { kind: 'text', text: boxStack, file_name: 'box_stack.yaml' },
      request_id: 1,
    });
    await settle(workers);
    client.send({ type: 'set_options', options: { line_search_variant: 'armijo_decay' } });
    client.send({ type: 'step', n: 30 });
    client.send({ type: 'play' }); // no ticks run in this test: playing only arms the snapshots
    await settle(workers);
    await advance(2250); // a snapshot is taken while playing
    const old = workers[0].host;
    expect(old.stepCount).toBe(30);
    const q30 = Array.from(old.sim!.state.joint_q);

    // the worker dies silently (self.close(), a crash): nothing answers any more
    workers[0].dead = true;
    await advance(7000);
    expect(workers).toHaveLength(1); // still within the grace period
    await advance(2000);
    expect(workers).toHaveLength(2);
    expect(client.restarts).toBe(1);
    const notice = events.find((e) => e.type === 'error' && e.error.code === 'worker_restarted');
    expect(notice && notice.type === 'error' && notice.error.message).toMatch(/restored step 30/);

    const fresh = workers[1].host;
    expect(fresh.sim!.model.body_count).toBe(10);
    expect(fresh.stepCount).toBe(30);
    expect(Array.from(fresh.sim!.state.joint_q)).toEqual(q30);
    expect(fresh.optionsInfo().explicit.line_search_variant).toBe('armijo_decay');
    expect(fresh.playing).toBe(true);
    // and it answers pings, so it is not restarted again
    await advance(20_000);
    expect(workers).toHaveLength(2);
  });

  it('restarts a dead worker from the keyframe last chosen, not from one that failed', async () => {
    const humanoid = readFileSync(
      new URL('../../../shared/assets/mujoco/humanoid/humanoid.xml', import.meta.url),
      'utf8',
    );
    const { client, workers, advance } = setup();
    client.send({ type: 'load_scene', source: { kind: 'text', text: humanoid, file_name: 'humanoid.xml' } });
    await settle(workers);
    client.send({ type: 'reload', keyframe: 'squat' });
    await settle(workers);
    client.send({ type: 'reload', keyframe: 'handstand' }); // refused: the squat stays
    await settle(workers);
    expect(workers[0].host.info?.keyframe).toBe('squat');
    workers[0].dead = true;
    await advance(9250);
    expect(workers).toHaveLength(2);
    expect(workers[1].host.info?.keyframe).toBe('squat');
  });

  it('gives a restarted worker the chosen backend before the scene', async () => {
    // no adapter in these fake workers: WebGPU falls back at once (no kernels to compile)
    const { client, workers, advance } = setup({
      createBackend: async (_kind, model, opts) => {
        const backend = new CpuBackend();
        await backend.init(model, opts);
        return { backend, fallback: 'WebGPU unavailable (test); running on the CPU backend' };
      },
      probeAdapter: async () => undefined,
    });
    client.send({ type: 'set_backend', backend: 'webgpu' });
    client.send({
      type: 'load_scene',
      source: { kind: 'text', text: boxStack, file_name: 'box_stack.yaml' },
    });
    await settle(workers);
    expect(workers[0].host.backendInfo()).toMatchObject({ requested: 'webgpu', active: 'cpu' });
    workers[0].dead = true;
    await advance(9000);
    expect(workers).toHaveLength(2);
    await settle(workers);
    const b = workers[1].host.backendInfo();
    expect(b).toMatchObject({ requested: 'webgpu', active: 'cpu' });
    expect(b.fallback).toMatch(/WebGPU unavailable \(test\)/);
    expect(workers[1].host.sim!.model.body_count).toBe(10);
  });

  it('gives up after repeated deaths and says so', async () => {
    const { client, workers, events, advance } = setup();
    client.send({
      type: 'load_scene',
      source: { kind: 'text', text: boxStack, file_name: 'box_stack.yaml' },
    });
    await settle(workers);
    for (let k = 0; k < 4; k++) {
      workers[workers.length - 1].dead = true;
      await advance(9000);
    }
    expect(client.restarts).toBe(3);
    const last = events.filter((e) => e.type === 'error').at(-1)!;
    expect(last.type === 'error' && last.error.message).toMatch(/failed 4 times .* reload the page/);
  });
});
