/**
 * The MuJoCo ghost worker's stepping (GhostHost, as the worker runs it) against a direct MuJoCo run
 * in Node from the same exported model and state: the same qpos after N steps, bit for bit; a
 * mirrored PD target changes the run as it changes MuJoCo's ctrl; the comparison with the live
 * state is zero where the two agree and the body poses are MuJoCo's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exportMjcf, setMujocoState } from '../../cli/peers/mjcf_export';
import { loadMujoco, mujocoFromXml, type MujocoModule } from '../../cli/peers/mujoco';
import { makeState } from '../../kinematics';
import { JointType } from '../../model';
import { loadAnyFile } from '../load_any';
import { GhostHost, type GhostReply } from './ghost_host';

const HUMANOID = readFileSync(
  new URL('../../../../shared/assets/mujoco/humanoid/humanoid.xml', import.meta.url),
  'utf8',
);
const PENDULUM = readFileSync(new URL('../../../scenes/double_pendulum.yaml', import.meta.url), 'utf8');
const ARM = readFileSync(new URL('../../../scenes/arm7.yaml', import.meta.url), 'utf8');
const DT = 0.002;

async function mujoco(): Promise<MujocoModule> {
  const mj = await loadMujoco();
  if (typeof mj === 'string') throw new Error(mj);
  return mj;
}

async function loadedModel(text: string, name: string) {
  return (
    await loadAnyFile(new Map([[name, new TextEncoder().encode(text)]]), name, { num_worlds: 1, dt: DT })
  ).model;
}

/** N MuJoCo steps straight from the export of the model's initial state, with `ctrl` */
async function directRun(text: string, name: string, n: number, ctrl?: (c: Float64Array) => void) {
  const mj = await mujoco();
  const model = await loadedModel(text, name);
  const exp = exportMjcf(model, DT, 'direct');
  const { m, d } = mujocoFromXml(mj, exp.xml);
  try {
    setMujocoState(model, makeState(model), exp, m, d);
    mj.mj_forward(m, d);
    for (let k = 0; k < exp.actuatorDof.length; k++) d.ctrl[k] = model.joint_target_pos[exp.actuatorDof[k]];
    ctrl?.(d.ctrl);
    for (let i = 0; i < n; i++) mj.mj_step(m, d);
    return { qpos: Float64Array.from(d.qpos), exp, model };
  } finally {
    d.delete();
    m.delete();
  }
}

async function ghostRun(
  text: string,
  name: string,
  frames: number[],
  before?: (h: GhostHost) => Promise<void>,
) {
  const host = new GhostHost(loadMujoco);
  const ready = await host.handle({ type: 'load', source: { kind: 'text', text, file_name: name }, dt: DT });
  expect(ready?.type).toBe('ready');
  const model = host.ghost!.model;
  const s0 = makeState(model);
  await before?.(host);
  const replies: Extract<GhostReply, { type: 'state' }>[] = [];
  // the live state at every frame is the initial one (a stand-in: the comparison is what changes)
  for (const step of frames) {
    const r = await host.handle({ type: 'advance', step, time: step * DT, q: s0.joint_q, qd: s0.joint_qd });
    if (r?.type !== 'state') throw new Error(`advance: ${JSON.stringify(r)}`);
    replies.push(r);
  }
  return { host, replies, s0 };
}

describe('MuJoCo ghost', () => {
  it('steps the humanoid in lockstep: the same qpos after N steps as a direct MuJoCo run', async () => {
    const { host, replies } = await ghostRun(HUMANOID, 'humanoid.xml', [0, 7, 20, 120]);
    const direct = await directRun(HUMANOID, 'humanoid.xml', 120);
    expect(replies.map((r) => r.steps)).toEqual([0, 7, 13, 100]);
    expect(replies[0].synced).toBe(true);
    expect(replies[3].steps_since_sync).toBe(120);
    expect(Array.from(host.ghost!.qpos())).toEqual(Array.from(direct.qpos));
    // it fell: qpos moved away from the start
    expect(replies[0].dq).toBeLessThan(1e-9);
    expect(replies[3].dq).toBeGreaterThan(1e-3);
    expect(replies[3].dx_max).toBeGreaterThan(1e-3);
    expect(Number.isFinite(replies[3].dq)).toBe(true);
    host.ghost!.dispose();
  });

  it('after the sync the ghost agrees with the live state, and its poses are MuJoCo bodies where ours are', async () => {
    const { host, replies, s0 } = await ghostRun(HUMANOID, 'humanoid.xml', [5]);
    const r = replies[0];
    expect(r.dq).toBeLessThan(1e-9);
    expect(r.dx_max).toBeLessThan(1e-9);
    const model = host.ghost!.model;
    let drawn = 0;
    for (let b = 0; b < model.body_count; b++) {
      // the massless bodies of a multi-joint MJCF body are merged into their chain's last one
      if (Number.isNaN(r.poses[b * 7])) {
        expect(model.body_mass[b]).toBe(0);
        continue;
      }
      drawn++;
      for (let i = 0; i < 3; i++) expect(r.poses[b * 7 + i]).toBeCloseTo(s0.body_q[b * 7 + i], 5);
      // the same rotation (q or −q)
      const dot = [3, 4, 5, 6].reduce((s, i) => s + r.poses[b * 7 + i] * s0.body_q[b * 7 + i], 0);
      expect(Math.abs(dot)).toBeCloseTo(1, 5);
    }
    // every body with mass is there (the humanoid's 16 MJCF bodies and its welded parts)
    expect(drawn).toBe(Array.from(model.body_mass).filter((x) => x > 0).length);
    host.ghost!.dispose();
  });

  it('merged joint chains (multi-joint MJCF bodies) move as ours: the same body origins at a bent pose', async () => {
    const { host, s0 } = await ghostRun(HUMANOID, 'humanoid.xml', []);
    const model = host.ghost!.model;
    const q = Float64Array.from(s0.joint_q);
    // every hinge bent by a different angle, the root turned
    for (let j = 0; j < model.joint_count; j++)
      if (model.joint_type[j] === JointType.REVOLUTE)
        q[model.joint_q_start[j]] = 0.1 + 0.05 * j * (j % 2 ? 1 : -1);
    q.set([0.3, -0.2, 1.4, 0.1, 0.2, 0.3, Math.sqrt(1 - 0.14)], 0);
    const r = await host.handle({ type: 'advance', step: 3, time: 0, q, qd: s0.joint_qd, resync: true });
    if (r?.type !== 'state') throw new Error('no state');
    expect(r.dq).toBeLessThan(1e-9);
    expect(r.dx_max).toBeLessThan(1e-9);
    host.ghost!.dispose();
  });

  it('a resync or a live step behind the ghost puts the live state back', async () => {
    const { host, replies, s0 } = await ghostRun(HUMANOID, 'humanoid.xml', [0, 50, 10]);
    expect(replies[1].dq).toBeGreaterThan(1e-4);
    expect(replies[2].synced).toBe(true);
    expect(replies[2].dq).toBeLessThan(1e-9);
    const r = await host.handle({
      type: 'advance',
      step: 60,
      time: 0,
      q: s0.joint_q,
      qd: s0.joint_qd,
      resync: true,
    });
    expect(r?.type === 'state' && r.synced && r.steps === 0).toBe(true);
    host.ghost!.dispose();
  });

  it('mirrors PD targets into MuJoCo ctrl: the run matches a direct one with the same ctrl', async () => {
    const direct0 = await directRun(ARM, 'arm7.yaml', 1);
    const dof = direct0.exp.actuatorDof[0];
    expect(direct0.exp.actuatorDof.length).toBeGreaterThan(0);
    const { host } = await ghostRun(ARM, 'arm7.yaml', [0, 80], async (h) => {
      await h.handle({ type: 'control', field: 'joint_target_pos', dofs: [dof], values: [0.6] });
    });
    const direct = await directRun(ARM, 'arm7.yaml', 80, (c) => (c[0] = 0.6));
    const plain = await directRun(ARM, 'arm7.yaml', 80);
    expect(Array.from(host.ghost!.qpos())).toEqual(Array.from(direct.qpos));
    expect(Array.from(direct.qpos)).not.toEqual(Array.from(plain.qpos));
    // a reset of the controls returns to the model's targets
    await host.handle({ type: 'reset_control' });
    expect(host.ghost!.targetPos[dof]).toBe(direct.model.joint_target_pos[dof]);
    host.ghost!.dispose();
  });

  it('mirrors a drag: the spring lifts the torso in MuJoCo as it would ours, and a release lets it fall', async () => {
    const torsoZ = (h: GhostHost) => h.ghost!.qpos()[2];
    const { host: free } = await ghostRun(HUMANOID, 'humanoid.xml', [0, 150]);
    const { host, s0 } = await ghostRun(HUMANOID, 'humanoid.xml', [0], async () => undefined);
    const z0 = s0.body_q[2];
    await host.handle({ type: 'drag', body: 0, point: [0, 0, 0], target: [0, 0, z0 + 0.5] });
    await host.handle({ type: 'advance', step: 150, time: 0, q: s0.joint_q, qd: s0.joint_qd });
    expect(torsoZ(free)).toBeLessThan(z0);
    expect(torsoZ(host)).toBeGreaterThan(z0 + 0.02);
    expect(torsoZ(host)).toBeGreaterThan(torsoZ(free) + 0.04);
    await host.handle({ type: 'drag', body: -1 });
    const lifted = torsoZ(host);
    await host.handle({ type: 'advance', step: 300, time: 0, q: s0.joint_q, qd: s0.joint_qd });
    expect(torsoZ(host)).toBeLessThan(lifted);
    free.ghost!.dispose();
    host.ghost!.dispose();
  });

  it('a scene file (double pendulum) mirrors too', async () => {
    const { host, replies } = await ghostRun(PENDULUM, 'double_pendulum.yaml', [0, 40]);
    const direct = await directRun(PENDULUM, 'double_pendulum.yaml', 40);
    expect(Array.from(host.ghost!.qpos())).toEqual(Array.from(direct.qpos));
    expect(replies[1].steps).toBe(40);
    host.ghost!.dispose();
  });

  it('says why when a model cannot be given to MuJoCo', async () => {
    const host = new GhostHost(async () => 'no MuJoCo here');
    const r = await host.handle({
      type: 'load',
      source: { kind: 'text', text: PENDULUM, file_name: 'p.yaml' },
      dt: DT,
    });
    expect(r).toEqual({ type: 'unfit', why: 'no MuJoCo here' });
    const bad = await new GhostHost(loadMujoco).handle({
      type: 'load',
      source: { kind: 'text', text: 'not: [a scene', file_name: 'broken.yaml' },
      dt: DT,
    });
    expect(bad?.type).toBe('error');
  });
});
