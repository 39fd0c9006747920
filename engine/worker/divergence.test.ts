import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EnergyGuard, RECOVERY_WINDOW_STEPS } from './divergence';
import { PROTOCOL_VERSION, type ErrorInfo, type WorkerEvent } from './protocol';
import { SimHost } from './sim_host';

const v = PROTOCOL_VERSION;
const scene = (name: string) => readFileSync(new URL(`../../scenes/${name}.yaml`, import.meta.url), 'utf8');

async function host(name: string, num_worlds?: number) {
  const events: WorkerEvent[] = [];
  const h = new SimHost((e) => events.push(e));
  h.handle({
    v,
    type: 'load_scene',
    source: { kind: 'text', text: scene(name), file_name: `${name}.yaml` },
    num_worlds,
  });
  await h.idle();
  const errors = () =>
    events
      .filter((e): e is Extract<WorkerEvent, { type: 'error' }> => e.type === 'error')
      .map((e) => e.error);
  return { h, events, errors };
}

/** a world's joint_q slice */
function worldQ(h: SimHost, w: number): number[] {
  const m = h.sim!.model;
  return Array.from(h.sim!.state.joint_q.slice(m.world_coord_start[w], m.world_coord_start[w + 1]));
}

describe('divergence containment', () => {
  it('a NaN in one world restores that world alone; the others run on bit for bit', async () => {
    const ref = await host('box_stack', 3);
    const run = await host('box_stack', 3);
    for (const x of [ref, run]) {
      x.h.handle({ v, type: 'play' });
      x.h.handle({ v, type: 'step', n: 20 });
    }
    run.h.handle({ v, type: 'debug', fault: 'nan', world: 1 });
    for (const x of [ref, run]) x.h.handle({ v, type: 'step', n: 30 });
    await Promise.all([ref.h.idle(), run.h.idle()]);

    const err = run.errors().find((e) => e.code === 'divergence') as ErrorInfo;
    expect(err).toMatchObject({ world: 1, action: 'restored', path: 'worlds[1]' });
    expect(err.reason).toMatch(/joint_qd/);
    expect(err.message).toMatch(/other worlds keep running/);
    expect(run.h.playing).toBe(true);
    expect(run.h.stepCount).toBe(50);
    // worlds 0 and 2 never noticed
    expect(worldQ(run.h, 0)).toEqual(worldQ(ref.h, 0));
    expect(worldQ(run.h, 2)).toEqual(worldQ(ref.h, 2));
    // world 1 is finite and near where it was (restored at rest, then kept simulating)
    expect(worldQ(run.h, 1).every(Number.isFinite)).toBe(true);
    expect(Array.from(run.h.sim!.state.body_q).every(Number.isFinite)).toBe(true);
  });

  it('4 worlds of a settling pyramid: a NaN in world 2 leaves worlds 0, 1 and 3 bit for bit', async () => {
    const ref = await host('box_pyramid', 4);
    const run = await host('box_pyramid', 4);
    for (const x of [ref, run]) {
      x.h.handle({ v, type: 'play' });
      x.h.handle({ v, type: 'step', n: 15 });
    }
    run.h.handle({ v, type: 'debug', fault: 'nan', world: 2 });
    for (const x of [ref, run]) x.h.handle({ v, type: 'step', n: 25 });
    await Promise.all([ref.h.idle(), run.h.idle()]);
    expect(run.errors().find((e) => e.code === 'divergence')).toMatchObject({ world: 2, action: 'restored' });
    const bits = (x: SimHost, w: number) =>
      Buffer.from(Float64Array.from(worldQ(x, w)).buffer).toString('hex');
    for (const w of [0, 1, 3]) expect(bits(run.h, w), `world ${w}`).toBe(bits(ref.h, w));
  });

  it('detects an energy blow-up, names the energy and its limit, and escalates on repeats', async () => {
    const { h, errors } = await host('box_stack', 2);
    h.handle({ v, type: 'step', n: 5 });
    h.handle({ v, type: 'debug', fault: 'energy', world: 0 });
    h.handle({ v, type: 'step', n: 1 });
    await h.idle();
    let e = errors().at(-1)!;
    expect(e).toMatchObject({ code: 'divergence', world: 0, reason: 'energy', action: 'restored' });
    expect(e.message).toMatch(/energy .* J exceeds its blow-up limit .* J/);
    // again within the window: reset to the initial state
    h.handle({ v, type: 'debug', fault: 'energy', world: 0 });
    h.handle({ v, type: 'step', n: 1 });
    await h.idle();
    e = errors().at(-1)!;
    expect(e.action).toBe('reset');
    // a third time: frozen, and it stays put while world 1 moves on
    h.handle({ v, type: 'debug', fault: 'nan', world: 0 });
    h.handle({ v, type: 'step', n: 1 });
    await h.idle();
    expect(errors().at(-1)!.action).toBe('frozen');
    const frozen = worldQ(h, 0);
    h.handle({ v, type: 'step', n: 20 });
    await h.idle();
    expect(worldQ(h, 0)).toEqual(frozen);
    // a reset clears the escalation; much later a divergence is a first one again
    h.handle({ v, type: 'reset' });
    h.handle({ v, type: 'step', n: RECOVERY_WINDOW_STEPS + 5 });
    h.handle({ v, type: 'debug', fault: 'nan', world: 0 });
    h.handle({ v, type: 'step', n: 1 });
    await h.idle();
    expect(errors().at(-1)!.action).toBe('restored');
  });

  it('a single world pauses at its last good state', async () => {
    const { h, errors } = await host('box_at_rest');
    h.handle({ v, type: 'play' });
    h.handle({ v, type: 'step', n: 10 });
    await h.idle();
    const q10 = Array.from(h.sim!.state.joint_q);
    h.handle({ v, type: 'debug', fault: 'energy' });
    h.handle({ v, type: 'step', n: 5 });
    await h.idle();
    expect(errors().at(-1)).toMatchObject({
      code: 'divergence',
      world: 0,
      action: 'paused',
      reason: 'energy',
    });
    expect(h.playing).toBe(false);
    expect(h.stepCount).toBe(10);
    expect(Array.from(h.sim!.state.joint_q)).toEqual(q10);
  });

  it('the energy limit is far above what normal scenes reach', async () => {
    for (const name of [
      'box_stack',
      'spinning_cube',
      'rolling_sphere',
      'arm7',
      'cartpole',
      'double_pendulum',
    ]) {
      const { h, errors } = await host(name);
      const guard = new EnergyGuard(h.sim!.model, h.sim!.state);
      let peak = 0;
      for (let i = 0; i < 300; i++) {
        h.stepOnce();
        peak = Math.max(peak, Math.abs(guard.energies(h.sim!.state)[0]));
      }
      expect(
        errors().filter((e) => e.code === 'divergence'),
        name,
      ).toEqual([]);
      expect(peak, name).toBeLessThan(guard.limit[0] / 100);
    }
  });
});

describe('restart support', () => {
  it('answers pings at once, snapshots and restores a state', async () => {
    const a = await host('double_pendulum');
    a.h.handle({ v, type: 'ping', id: 7 });
    expect(a.events.at(-1)).toEqual({ v, type: 'pong', id: 7 });
    a.h.handle({ v, type: 'step', n: 40 });
    a.h.handle({ v, type: 'snapshot' });
    await a.h.idle();
    const snap = a.events.find(
      (e): e is Extract<WorkerEvent, { type: 'snapshot' }> => e.type === 'snapshot',
    )!;
    expect(snap.step).toBe(40);
    a.h.handle({ v, type: 'step', n: 20 });
    await a.h.idle();
    const q60 = Array.from(a.h.sim!.state.joint_q);

    // a fresh host (a restarted worker) continues from the snapshot exactly
    const b = await host('double_pendulum');
    b.h.handle({
      v,
      type: 'restore',
      step: snap.step,
      time: snap.time,
      joint_q: snap.joint_q,
      joint_qd: snap.joint_qd,
    });
    b.h.handle({ v, type: 'step', n: 20 });
    await b.h.idle();
    expect(b.h.stepCount).toBe(60);
    expect(Array.from(b.h.sim!.state.joint_q)).toEqual(q60);

    // a state of the wrong size is refused without touching the running one
    b.h.handle({ v, type: 'restore', step: 1, time: 0, joint_q: [1, 2, 3], joint_qd: [0] });
    b.h.handle({ v, type: 'restore', step: 1, time: 0, joint_q: [NaN, 0], joint_qd: [0, 0] });
    await b.h.idle();
    const errs = b.errors();
    expect(errs.some((e) => /restore: the state has 3 coordinates/.test(e.message))).toBe(true);
    expect(errs.some((e) => e.code === 'protocol' && /restore\.joint_q/.test(e.message))).toBe(true);
    expect(b.h.stepCount).toBe(60);
  });
});
