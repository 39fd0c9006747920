import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CF, CONTACT_STRIDE, PROTOCOL_VERSION, type WorkerEvent } from './protocol';
import { RingReader } from './frame_ring';
import { SimHost } from './sim_host';
import { STEP_STAGES } from '../pipeline';
import { loadAnyFile } from './load_any';

const v = PROTOCOL_VERSION;
const scene = (name: string) => readFileSync(new URL(`../../scenes/${name}.yaml`, import.meta.url), 'utf8');

async function host(name: string, opts: { useRing?: boolean } = {}) {
  const events: WorkerEvent[] = [];
  const h = new SimHost((e) => events.push(e), opts);
  h.handle({ v, type: 'load_scene', source: { kind: 'text', text: scene(name), file_name: `${name}.yaml` } });
  await h.idle();
  const of = <T extends WorkerEvent['type']>(t: T) =>
    events.filter((e): e is Extract<WorkerEvent, { type: T }> => e.type === t);
  return { h, events, of };
}

describe('SimHost', () => {
  it('loads a scene and describes it for rendering', async () => {
    const { of } = await host('box_stack');
    const ready = of('ready')[0];
    expect(ready.scene.name).toBe('box_stack');
    expect(ready.scene.body_count).toBe(10);
    expect(ready.scene.shapes.filter((s) => s.type === 3)).toHaveLength(10);
    expect(ready.options.explicit).toEqual({
      contact_preset_variant: 'drake',
      line_search_variant: 'exact_root',
    });
    expect(ready.options.effective.contact_weight_mode).toBe('diag_delassus');
    expect(of('frame')[0].poses).toHaveLength(70);
  });

  it('applies options live, merges, clears with null and rejects bad keys without changing anything', async () => {
    const { h, of, events } = await host('box_stack');
    h.handle({
      v,
      type: 'set_options',
      options: { contact_preset_variant: 'approx32', contact_weight_mode: 'diag_delassus' },
    });
    await h.idle();
    let o = of('options').at(-1)!.options;
    expect(o.effective.contact_preset_variant).toBe('approx32');
    expect(o.effective.free_motion_solve_precision).toBe('fp32');
    expect(o.effective.contact_weight_mode).toBe('diag_delassus');
    expect(h.sim!.solver.options.contact_weight_mode).toBe('diag_delassus');
    h.handle({ v, type: 'set_options', options: { contact_weight_mode: null } });
    await h.idle();
    o = of('options').at(-1)!.options;
    expect(o.effective.contact_weight_mode).toBe('body_inertia');
    const before = events.length;
    h.handle({ v, type: 'set_options', options: { rho: 2 } });
    await h.idle();
    const err = of('error').at(-1)!.error;
    expect(err.code).toBe('options');
    expect(err.path).toBe('rho');
    expect(events.length).toBeGreaterThan(before);
    expect(h.sim!.solver.options.rho).toBe(0.8);
    expect(of('ready')).toHaveLength(1); // never reloaded
  });

  it('keeps the running scene when a load fails, with file, line and key path', async () => {
    const { h, of } = await host('box_at_rest');
    const sim = h.sim;
    h.handle({
      v,
      type: 'load_scene',
      source: {
        kind: 'text',
        text: 'schema_version: 1\nbodies:\n  - id: a\n    mass: lots\n',
        file_name: 'bad.yaml',
      },
    });
    h.handle({ v, type: 'load_scene', source: { kind: 'text', text: 'a: [', file_name: 'syntax.yaml' } });
    h.handle({ v, type: 'load_scene', source: { kind: 'text', text: '<robot/>', file_name: 'robot.sdf' } });
    await h.idle();
    const errs = of('error').map((e) => e.error);
    expect(errs[0]).toMatchObject({ code: 'load', file: 'bad.yaml', line: 4 });
    expect(errs[0].path).toMatch(/^bodies\[0\]/);
    expect(errs[1]).toMatchObject({ code: 'load', file: 'syntax.yaml' });
    expect(errs[1].line).toBeDefined();
    expect(errs[2]).toMatchObject({ code: 'unsupported_format', file: 'robot.sdf' });
    expect(h.sim).toBe(sim);
    h.handle({ v, type: 'step', n: 5 });
    await h.idle();
    expect(h.stepCount).toBe(5);
  });

  it('reports the mean time per stage of the steps since the last stats', async () => {
    const { h, of } = await host('box_at_rest');
    expect(of('stats').at(-1)!.stats.stage_ms).toBeNull(); // no step yet
    h.handle({ v, type: 'step', n: 20 });
    await h.idle();
    h.sendStats(true);
    const st = of('stats').at(-1)!.stats;
    const s = st.stage_ms!;
    expect(st.stages_queued).toBe(false);
    for (const k of STEP_STAGES) expect(s[k]).toBeGreaterThan(0);
    // the stages lie inside the step's wall time, which also holds the host's bookkeeping
    const sum = STEP_STAGES.reduce((t, k) => t + s[k], 0);
    expect(sum).toBeLessThanOrEqual(st.step_ms * (1 + 1e-9));
    h.sendStats(true);
    expect(of('stats').at(-1)!.stats.stage_ms).toBeNull(); // a fresh window
  });

  it('steps, sends contacts when asked, ablates and detects divergence', async () => {
    const { h, of } = await host('box_at_rest');
    h.handle({ v, type: 'set_sim', contacts: true });
    h.handle({ v, type: 'request_ablation', every: 5 });
    h.handle({ v, type: 'step', n: 10 });
    await h.idle();
    const f = of('frame').at(-1)!;
    expect(f.step).toBe(10);
    expect(f.contacts!.count).toBe(4);
    const d = f.contacts!.data;
    let fz = 0;
    for (let k = 0; k < 4; k++) fz += Math.abs(d[k * CONTACT_STRIDE + CF.fz]);
    expect(fz).toBeCloseTo(9.81, 0); // m·g carried by the four corners
    const a = of('ablation').at(-1)!.sample;
    expect(a.step).toBe(10);
    expect(Number.isFinite(a.delta_model)).toBe(true);
    // the live step's solver numbers ride along: Newton and line-search iterations, contacts, and
    // the mean wall time of the steps since the previous sample
    const r = h.sim!.last_report!;
    expect([a.iterations, a.line_search_iterations, a.contacts]).toEqual([
      r.iterations_mean,
      r.line_search_iterations,
      4,
    ]);
    expect(a.line_search_iterations).toBeGreaterThan(0);
    expect(a.step_ms).toBeGreaterThan(0);
    expect(a.step_ms).toBeLessThan(1000);
    // the live state's energy: a 1 kg box at rest, 0.1 m up (its weight's potential), nothing driving it
    expect(a.kinetic_energy).toBeLessThan(1e-6);
    expect(a.potential_energy).toBe(r.worlds[0].potential_energy);
    expect(a.potential_energy).toBeGreaterThan(0);
    expect(a.driven).toBe(false);

    h.handle({ v, type: 'play' });
    await h.idle();
    h.sim!.state.joint_qd[0] = NaN;
    h.handle({ v, type: 'step', n: 3 });
    await h.idle();
    const err = of('error').at(-1)!.error;
    expect(err.code).toBe('divergence');
    expect(h.playing).toBe(false);
    expect(of('play_state').at(-1)!.playing).toBe(false);
  });

  it('seeks the history ring and reproduces the same state after the same steps', async () => {
    const { h } = await host('double_pendulum');
    h.handle({ v, type: 'step', n: 60 });
    await h.idle();
    const q60 = Array.from(h.sim!.state.joint_q);
    h.handle({ v, type: 'seek', step: 20 });
    await h.idle();
    expect(h.stepCount).toBe(20);
    h.handle({ v, type: 'step', n: 40 });
    await h.idle();
    expect(Array.from(h.sim!.state.joint_q)).toEqual(q60);
    h.handle({ v, type: 'reset' });
    h.handle({ v, type: 'step', n: 60 });
    await h.idle();
    expect(Array.from(h.sim!.state.joint_q)).toEqual(q60);
  });

  it('drags a body with a spring, sets controls, reloads with more worlds', async () => {
    const { h, of } = await host('box_at_rest');
    const p0 = Array.from(h.sim!.state.body_q.slice(0, 3));
    h.handle({ v, type: 'perturb', body: 0, point: [0, 0, 0.1], target: [p0[0] + 0.5, p0[1], p0[2] + 0.3] });
    h.handle({ v, type: 'step', n: 200 });
    await h.idle();
    expect(h.sim!.state.body_q[0] - p0[0]).toBeGreaterThan(0.1);
    h.handle({ v, type: 'perturb', body: -1 });
    await h.idle();
    expect(Array.from(h.sim!.state.body_f).every((x) => x === 0)).toBe(true);
    h.handle({ v, type: 'perturb', body: 99, point: [0, 0, 0], target: [0, 0, 0] });
    await h.idle();
    expect(of('error').at(-1)!.error.message).toMatch(/body 99/);

    h.handle({ v, type: 'reload', num_worlds: 3 });
    await h.idle();
    const ready = of('ready').at(-1)!;
    expect(ready.scene.num_worlds).toBe(3);
    expect(ready.scene.world_offset[0]).not.toEqual(ready.scene.world_offset[1]);

    const arm = await host('arm7');
    const dof = arm.of('ready')[0].scene.dofs.find((d) => d.driven)!;
    arm.h.handle({ v, type: 'set_control', field: 'joint_target_pos', dofs: [dof.dof], values: [0.3] });
    await arm.h.idle();
    expect(arm.h.sim!.control.joint_target_pos[dof.dof]).toBe(0.3);
  });

  it("sets a tendon actuator's control (actuator_ctrl), resets it to the keyframe's, refuses strict wrapping", async () => {
    const xml = (wrap: string) => `<mujoco><worldbody>
      <body name="a" pos="0 0 1"><joint name="j" axis="0 1 0" stiffness="1"/><geom size="0.05" contype="0" conaffinity="0"/>
        <site name="s1" pos="0.2 0 0"/></body><site name="s0" pos="0.2 0 1.3"/></worldbody>
      <tendon><spatial name="t"><site site="s0"/>${wrap}<site site="s1"/></spatial></tendon>
      <actuator><motor name="pull" tendon="t"/></actuator><keyframe><key ctrl="-0.5"/></keyframe></mujoco>`;
    const events: WorkerEvent[] = [];
    const h = new SimHost((e) => events.push(e));
    const load = (text: string, strict = false) =>
      h.handle({
        v,
        type: 'load_scene',
        source: { kind: 'text', text, file_name: 'g.xml' },
        keyframe: 0,
        strict,
      });
    load(xml(''));
    await h.idle();
    const sim = h.sim!;
    expect(Array.from(sim.control.actuator_ctrl)).toEqual([-0.5]);
    h.handle({ v, type: 'set_control', field: 'actuator_ctrl', dofs: [0], values: [-2] });
    h.handle({ v, type: 'step', n: 50 });
    await h.idle();
    expect(sim.control.actuator_ctrl[0]).toBe(-2);
    expect(sim.state.joint_q[0]).not.toBe(0); // the tendon motor turned the joint
    h.handle({ v, type: 'set_control', field: 'actuator_ctrl', dofs: [3], values: [1] });
    await h.idle();
    const err = events.filter((e) => e.type === 'error').at(-1) as Extract<WorkerEvent, { type: 'error' }>;
    expect(err.error.message).toMatch(/actuator 3 out of range \(1 ACTUATORs\)/);
    h.handle({ v, type: 'reset' });
    await h.idle();
    expect(h.sim!.control.actuator_ctrl[0]).toBe(-0.5);
    const errors = events.filter((e) => e.type === 'error').length;
    load(xml('<geom geom="nope"/>'), true);
    await h.idle();
    const last = events.filter((e) => e.type === 'error');
    expect(last.length).toBe(errors + 1);
    expect((last.at(-1) as Extract<WorkerEvent, { type: 'error' }>).error.message).toMatch(
      /tendon 't': wrapping around geom 'nope' is not built/,
    );
  });

  it('streams poses through a SharedArrayBuffer ring', async () => {
    const { h, of } = await host('box_at_rest', { useRing: true });
    const ring = of('ring')[0];
    expect(ring.floats).toBe(7);
    h.handle({ v, type: 'step', n: 3 });
    await h.idle();
    const f = of('frame').at(-1)!;
    expect(f.poses).toBeUndefined();
    const r = new RingReader(ring.buffer).read()!;
    expect(r.seq).toBe(f.seq);
    expect(r.step).toBe(3);
    expect(r.poses[2]).toBeCloseTo(h.sim!.state.body_q[2], 6);
  });
});

describe('loadAnyFile', () => {
  it('dispatches by extension and explains what it cannot load', async () => {
    const files = new Map([['scenes/a.yaml', new TextEncoder().encode(scene('pendulum'))]]);
    const loaded = await loadAnyFile(files, 'scenes/a.yaml');
    expect(loaded.model.body_count).toBeGreaterThan(0);
    expect(loaded.description.length).toBeGreaterThan(0);
    await expect(loadAnyFile(files, 'missing.yaml')).rejects.toThrow(/not among/);
    await expect(loadAnyFile(new Map([['x.txt', new Uint8Array(1)]]), 'x.txt')).rejects.toThrow(
      /not a model format/,
    );
    await expect(
      loadAnyFile(new Map([['x.yaml', new Uint8Array([0xff, 0xfe, 0x00])]]), 'x.yaml'),
    ).rejects.toThrow(/UTF-8/);
  });
});

describe('SimHost trajectory-mode ablation', () => {
  it('runs three shadow simulations beside the live one, restarts them after a jump, stops on request', async () => {
    const { h, of } = await host('box_sliding');
    const live = h.sim!.solver.options.contact_preset_variant;
    h.handle({ v, type: 'request_trajectory', on: true, every: 5 });
    h.handle({ v, type: 'step', n: 20 });
    await h.idle();
    expect(of('trajectory_state').at(-1)!.on).toBe(true);
    let s = of('trajectory').map((e) => e.sample);
    expect(s.map((x) => x.step)).toEqual([5, 10, 15, 20]);
    expect(s.at(-1)!.time).toBe(h.sim!.state.time);
    expect(s.every((x) => x.start_time === 0)).toBe(true);
    for (const x of s) {
      for (const k of ['q_precision', 'q_model', 'v_precision', 'v_model'] as const) {
        expect(Number.isFinite(x[k]) && x[k] >= 0, k).toBe(true);
      }
    }
    expect(s.at(-1)!.v_model).toBeGreaterThan(0);
    // the shadow of the live preset is the live simulation, bit for bit
    const shadows = (h as unknown as { traj: { sims: { state: { joint_q: Float64Array } }[] } }).traj.sims;
    const twin = shadows[['approx32', 'approx64', 'drake'].indexOf(live)];
    expect(Array.from(twin.state.joint_q)).toEqual(Array.from(h.sim!.state.joint_q));

    // a reset starts them again from the reset state
    h.handle({ v, type: 'reset' });
    h.handle({ v, type: 'step', n: 10 });
    await h.idle();
    s = of('trajectory').map((e) => e.sample);
    expect(s.slice(4).map((x) => [x.step, x.start_time])).toEqual([
      [5, 0],
      [10, 0],
    ]);
    // off: no more samples
    h.handle({ v, type: 'request_trajectory', on: false });
    h.handle({ v, type: 'step', n: 10 });
    await h.idle();
    expect(of('trajectory_state').at(-1)!.on).toBe(false);
    expect(of('trajectory')).toHaveLength(6);
  });
});

describe('SimHost island labels', () => {
  it("sends each body's constraint island with frames when asked", async () => {
    const { h, of } = await host('box_stack');
    h.handle({ v, type: 'step', n: 2 });
    await h.idle();
    expect(of('frame').at(-1)!.islands).toBeUndefined();
    h.handle({ v, type: 'set_sim', islands: true });
    h.handle({ v, type: 'step', n: 2 });
    await h.idle();
    const f = of('frame').at(-1)!;
    expect(Array.from(f.islands!)).toEqual(new Array(10).fill(0)); // one stack, one island
    h.handle({ v, type: 'set_sim', islands: false });
    h.handle({ v, type: 'step', n: 1 });
    await h.idle();
    expect(of('frame').at(-1)!.islands).toBeUndefined();
  });
});

describe('SimHost keyframes (MJCF <key>)', () => {
  const humanoid = readFileSync(
    new URL('../../../shared/assets/mujoco/humanoid/humanoid.xml', import.meta.url),
    'utf8',
  );
  const source = { kind: 'text' as const, text: humanoid, file_name: 'humanoid.xml' };

  it('starts from a chosen keyframe, reloads from another or from the reference pose, and refuses unknown ones', async () => {
    const events: WorkerEvent[] = [];
    const h = new SimHost((e) => events.push(e));
    const of = <T extends WorkerEvent['type']>(t: T) =>
      events.filter((e): e is Extract<WorkerEvent, { type: T }> => e.type === t);
    const torso = () => {
      const b = h.sim!.model.body_label.indexOf('torso');
      return Array.from(h.sim!.state.body_q.subarray(7 * b, 7 * b + 7));
    };

    // the reference pose: the keyframes are listed, and a note says where to find them
    h.handle({ v, type: 'load_scene', source });
    await h.idle();
    let scene = of('ready').at(-1)!.scene;
    expect(scene.keyframes).toEqual(['squat', 'stand_on_left_leg', 'prone', 'supine']);
    expect(scene.keyframe).toBeNull();
    expect(scene.notes.join('\n')).toMatch(/keyframes \(squat, stand_on_left_leg, prone, supine\)/);
    expect(torso()[2]).toBeCloseTo(1.282, 9);

    // 'prone' (qpos 0.4 0 0.0757706, wxyz 0.7325 0 0.680767 0)
    h.handle({ v, type: 'reload', keyframe: 'prone' });
    await h.idle();
    scene = of('ready').at(-1)!.scene;
    expect(scene.keyframe).toBe('prone');
    expect(scene.notes.join('\n')).not.toMatch(/keyframes/);
    const p = torso();
    expect(p.slice(0, 3).map((x) => +x.toFixed(7))).toEqual([0.4, 0, 0.0757706]);
    // the same rotation (xyzw, either sign): |⟨q, q_key⟩| = 1
    const qKey = [0, 0.680767, 0, 0.7325].map((x) => x / Math.hypot(0.7325, 0.680767));
    expect(Math.abs(p.slice(3).reduce((s, x, i) => s + x * qKey[i], 0))).toBeCloseTo(1, 9);

    // a reload for another world count keeps it; reset returns to it
    h.handle({ v, type: 'reload', num_worlds: 2 });
    h.handle({ v, type: 'step', n: 20 });
    await h.idle();
    expect(of('ready').at(-1)!.scene.keyframe).toBe('prone');
    expect(h.sim!.model.num_worlds).toBe(2);
    expect(torso()[0]).not.toBe(0.4);
    h.handle({ v, type: 'reset' });
    await h.idle();
    expect(torso()[0]).toBeCloseTo(0.4, 9);

    // an unknown key: a located error, and the running scene stays
    const sim = h.sim;
    h.handle({ v, type: 'reload', keyframe: 'handstand' });
    await h.idle();
    const err = of('error').at(-1)!.error;
    expect(err.file).toBe('humanoid.xml');
    expect(err.message).toMatch(
      /keyframe 'handstand' not found \(have: squat, stand_on_left_leg, prone, supine\)/,
    );
    expect(h.sim).toBe(sim);

    // by index, then back to the reference pose
    h.handle({ v, type: 'reload', keyframe: 0 });
    await h.idle();
    expect(of('ready').at(-1)!.scene.keyframe).toBe('squat');
    expect(torso()[2]).toBeCloseTo(0.596, 9);
    h.handle({ v, type: 'reload', keyframe: null });
    await h.idle();
    expect(of('ready').at(-1)!.scene.keyframe).toBeNull();
    expect(torso()[2]).toBeCloseTo(1.282, 9);
  });

  it("starts the clock at a keyframe's time; reset returns to it, the reference pose to 0", async () => {
    const events: WorkerEvent[] = [];
    const h = new SimHost((e) => events.push(e));
    const text = humanoid.replace('<key name="prone"', '<key name="prone" time="2.5"');
    expect(text).not.toBe(humanoid);
    h.handle({ v, type: 'load_scene', source: { ...source, text }, keyframe: 'prone' });
    await h.idle();
    expect(h.sim!.state.time).toBe(2.5);
    const dt = h.sim!.dt;
    h.handle({ v, type: 'step', n: 20 });
    await h.idle();
    expect(h.sim!.state.time).toBeCloseTo(2.5 + 20 * dt, 12);
    const stats = events.filter((e) => e.type === 'stats').at(-1);
    expect(stats?.type === 'stats' && stats.stats.history.first_time).toBe(2.5);
    h.handle({ v, type: 'reset' });
    await h.idle();
    expect(h.sim!.state.time).toBe(2.5);
    h.handle({ v, type: 'reload', keyframe: null });
    await h.idle();
    expect(h.sim!.state.time).toBe(0);
  });

  it('refuses a keyframe for a scene file or a URDF, keeping the running scene', async () => {
    const { h, of } = await host('box_stack');
    const sim = h.sim;
    h.handle({
      v,
      type: 'load_scene',
      source: { kind: 'text', text: scene('pendulum'), file_name: 'p.yaml' },
      keyframe: 'home',
    });
    h.handle({
      v,
      type: 'load_scene',
      source: { kind: 'text', text: '<robot name="r"><link name="a"/></robot>', file_name: 'r.urdf' },
      keyframe: 0,
    });
    await h.idle();
    const errs = of('error').map((e) => e.error);
    expect(errs.map((e) => [e.file, e.path])).toEqual([
      ['p.yaml', 'keyframe'],
      ['r.urdf', 'keyframe'],
    ]);
    expect(errs[0].message).toMatch(/a keyframe selects a <key> of an MJCF file, not of a scene file/);
    expect(errs[1].message).toMatch(/not of a URDF file/);
    expect(h.sim).toBe(sim);
    expect(of('ready')).toHaveLength(1);
  });
});
