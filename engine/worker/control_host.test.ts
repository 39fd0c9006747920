/**
 * The worker's robot commanding: a dropped scene's control sequence plays into the live control and
 * the user can take over; hold pose keeps a drive-less arm up with gains from its effective inertia.
 */
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, type WorkerEvent } from './protocol';
import { SimHost } from './sim_host';
import { HOLD_FREQUENCY_HZ, holdPoseGains } from './control_host';
import { crbaTree, makeCompositeScratch } from '../dynamics';
import { forwardKinematics, makeKinematicsData } from '../kinematics';

const v = PROTOCOL_VERSION;
const enc = (s: string) => new TextEncoder().encode(s);

/** a two-link arm hanging sideways from a fixed pivot (y hinges), with or without PD drives */
function armScene(drives: boolean, control?: string): string {
  const drive = drives ? '\n    target_ke: 400\n    target_kd: 40' : '';
  return `schema_version: 1
name: arm2
simulation: { dt: 0.005 }
builder: { gravity: -9.81 }
ground: false
bodies:
  - id: l1
    transform: { p: [0.25, 0, 1], q: identity }
    shapes: [{ type: box, hx: 0.25, hy: 0.03, hz: 0.03, cfg: { density: 1000, has_shape_collision: false } }]
  - id: l2
    transform: { p: [0.75, 0, 1], q: identity }
    shapes: [{ type: box, hx: 0.25, hy: 0.03, hz: 0.03, cfg: { density: 500, has_shape_collision: false } }]
joints:
  - id: j1
    type: revolute
    parent: world
    child: l1
    axis: y
    parent_xform: { p: [0, 0, 1] }
    child_xform: { p: [-0.25, 0, 0] }${drive}
  - id: j2
    type: revolute
    parent: l1
    child: l2
    axis: y
    parent_xform: { p: [0.25, 0, 0] }
    child_xform: { p: [-0.25, 0, 0] }${drive}
${control ? `control: { source: ${control} }\n` : ''}`;
}

async function host(files: Record<string, string>, entry: string) {
  const events: WorkerEvent[] = [];
  const h = new SimHost((e) => events.push(e));
  const map = new Map(Object.entries(files).map(([k, s]) => [k, enc(s)]));
  h.handle({ v, type: 'load_scene', source: { kind: 'files', files: map, entry } });
  await h.idle();
  const of = <T extends WorkerEvent['type']>(t: T) =>
    events.filter((e): e is Extract<WorkerEvent, { type: T }> => e.type === t);
  return { h, of };
}

describe('worker control', () => {
  const ctl = JSON.stringify({
    name: 'swing',
    keyframes: [
      { time: 0, label: 'rest' },
      { time: 0.5, label: 'up' },
    ],
    joint_target_pos: {
      dt: 0.5,
      values: [
        [0, 0],
        [-0.4, 0.3],
      ],
    },
  });

  it('plays a dropped scene’s control sequence, reports it, and lets the user take over', async () => {
    const { h, of } = await host(
      { 'a/arm.yaml': armScene(true, 'ctl.json'), 'a/ctl.json': ctl },
      'a/arm.yaml',
    );
    expect(of('error')).toEqual([]);
    const info = of('ready')[0].scene;
    expect(info.control_sequence).toMatchObject({ name: 'swing', duration: 1, loop: false });
    expect(info.control_sequence!.keyframes.map((k) => k.label)).toEqual(['rest', 'up']);
    h.advance(200); // 1 s: the second row has held for 0.5 s
    const sim = h.sim!;
    expect(Array.from(sim.control.joint_target_pos)).toEqual([-0.4, 0.3]);
    const stats = () => of('stats').at(-1)!.stats.control!;
    h.sendStats(true);
    expect(stats().sequence).toMatchObject({ playing: true, keyframe: 'up' });
    // take over: the user's target stays although the sequence would write its own
    h.handle({ v, type: 'control_sequence', playing: false });
    h.handle({ v, type: 'set_control', field: 'joint_target_pos', dofs: [0], values: [0.2] });
    await h.idle();
    h.advance(400);
    expect(sim.control.joint_target_pos[0]).toBe(0.2);
    expect(sim.state.joint_q[0]).toBeCloseTo(0.2, 1);
    expect(stats().sequence!.playing).toBe(false);
    // reset: the sequence's first row again, still taken over until played
    h.handle({ v, type: 'control_sequence', playing: true });
    h.handle({ v, type: 'reset' });
    await h.idle();
    expect(Array.from(sim.control.joint_target_pos)).toEqual([0, 0]);
  });

  it('hold pose: gains I·ω² and 2·I·ω from M(q); a drive-less arm stays up, and falls without', async () => {
    const { h } = await host({ 'arm.yaml': armScene(false) }, 'arm.yaml');
    const sim = h.sim!;
    const m = sim.model;
    expect(Array.from(m.joint_target_ke)).toEqual([0, 0]);
    // the rule against the mass matrix at the initial pose
    const g = holdPoseGains(m, sim.state.joint_q, sim.dt);
    const kin = makeKinematicsData(m);
    forwardKinematics(m, sim.state.joint_q, kin);
    const M = new Float64Array(4);
    crbaTree(m, kin, 0, makeCompositeScratch(m), M);
    const w = 2 * Math.PI * HOLD_FREQUENCY_HZ;
    expect(g.ke[0]).toBeCloseTo(M[0] * w * w, 9);
    expect(g.ke[1]).toBeCloseTo(M[3] * w * w, 9);
    expect(g.kd[1]).toBeCloseTo(2 * M[3] * w, 9);
    h.handle({ v, type: 'hold_pose', on: true });
    await h.idle();
    expect(m.joint_target_ke[1]).toBeCloseTo(g.ke[1], 9);
    h.advance(400); // 2 s
    const held = Array.from(sim.state.joint_q);
    // the static sag of PD at ω = 2π·5 Hz under gravity: a few degrees at most, at rest
    expect(Math.abs(held[0])).toBeLessThan(0.1);
    expect(Math.abs(held[1])).toBeLessThan(0.1);
    expect(Math.abs(sim.state.joint_qd[0])).toBeLessThan(1e-3);
    // off: the model's own (no) drives again; the arm swings down
    h.handle({ v, type: 'hold_pose', on: false });
    await h.idle();
    expect(Array.from(m.joint_target_ke)).toEqual([0, 0]);
    h.advance(100);
    expect(Math.abs(sim.state.joint_q[0])).toBeGreaterThan(0.3);
  });
});
