/**
 * Collision filtering by welded groups (filter.ts): a welded chain written here, a URDF hip of
 * massless dummy links whose thigh overlaps the pelvis, and the FR3's link7 and hand (U3, welded
 * through the massless link8).
 */
import { describe, expect, it } from 'vitest';
import { ModelBuilder, type JointDesc, type SapModel } from '../model';
import { Simulation } from '../pipeline';
import { loadModelAsset } from '../io/import';
import { NodeFsResolver } from '../io/assets/node_fs';
import { MemoryResolver } from '../io/assets/resolvers';
import { SHARED_ASSETS, URDF_MODELS } from '../io/testing_assets';
import { makePairFilter, pairAllowed, type PairFilterOptions } from './filter';

/** the body pairs (by label, sorted) whose shapes may collide */
function allowedBodyPairs(m: SapModel, opts: PairFilterOptions = {}): string[] {
  const f = makePairFilter(m, opts);
  const out = new Set<string>();
  for (let a = 0; a < m.shape_count; a++)
    for (let b = a + 1; b < m.shape_count; b++) {
      if (!pairAllowed(f, a, b)) continue;
      const la = m.body_label[m.shape_body[a]],
        lb = m.body_label[m.shape_body[b]];
      out.add([la, lb].sort().join('-'));
    }
  return [...out].sort();
}

/**
 * a free body A with B and C welded below it, D hinged to C and E hinged to D, every body a 10 cm
 * sphere at the origin (all overlap); `joints` overrides joint options by child label
 */
function chain(joints: Record<string, Partial<JointDesc>> = {}, massless: string[] = []): SapModel {
  const b = new ModelBuilder();
  const ids: Record<string, number> = {};
  const spec: [string, string, 'fixed' | 'revolute'][] = [
    ['B', 'A', 'fixed'],
    ['C', 'B', 'fixed'],
    ['D', 'C', 'revolute'],
    ['E', 'D', 'revolute'],
  ];
  ids.A = b.addBody({ label: 'A', mass: 1 });
  b.addShape({ body: ids.A, type: 'sphere', size: [0.1] });
  b.addJoint({ type: 'free', parent: -1, child: ids.A });
  for (const [name, parent, type] of spec) {
    const dummy = massless.includes(name);
    ids[name] = b.addBody({ label: name, mass: dummy ? 0 : 1, ...(dummy ? { inertia: [0, 0, 0] } : {}) });
    if (!dummy) b.addShape({ body: ids[name], type: 'sphere', size: [0.1] });
    b.addJoint({ type, parent: ids[parent], child: ids[name], axis: [0, 0, 1], ...joints[name] });
  }
  return b.finalize();
}

describe('welded groups', () => {
  it('a welded chain is one group: no pair inside collides, nor the group and its hinged child', () => {
    // {A, B, C} one group; D its articulated child; E D's child, two groups below {A, B, C}
    expect(allowedBodyPairs(chain())).toEqual(['A-E', 'B-E', 'C-E']);
  });

  it('filter_parent_child: false (or a joint asking for contact) neither welds nor filters', () => {
    expect(allowedBodyPairs(chain(), { filter_parent_child: false })).toHaveLength(10);
    // C's weld asks for its contact: {A, B}, {C}, {D}, {E} are groups and C's joint does not
    // filter, so only C–D and D–E stay parent and child
    expect(allowedBodyPairs(chain({ C: { collision_filter_parent: false } }))).toEqual([
      'A-C',
      'A-D',
      'A-E',
      'B-C',
      'B-D',
      'B-E',
      'C-E',
    ]);
  });

  it('a massless body without colliders joins its parent group through any filtered joint', () => {
    // D massless and shapeless: E's parent group is {A, B, C, D}, so nothing collides
    expect(allowedBodyPairs(chain({}, ['D']))).toEqual([]);
  });

  /** a URDF hip: a pelvis box, a 3-axis hip of massless links, a thigh that reaches 96 mm into it */
  const hip = (dummyMass: string) => `<robot name="hip">
  <link name="pelvis"><inertial><mass value="5"/><inertia ixx="0.05" iyy="0.05" izz="0.05" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.3 0.2 0.2"/></geometry></collision></link>
  <link name="hip_yaw">${dummyMass}</link>
  <link name="hip_roll">${dummyMass}</link>
  <link name="thigh"><inertial><origin xyz="0 0 -0.15"/><mass value="3"/><inertia ixx="0.02" iyy="0.02" izz="0.005" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 -0.15"/><geometry><cylinder radius="0.06" length="0.3"/></geometry></collision></link>
  <joint name="yaw" type="revolute"><parent link="pelvis"/><child link="hip_yaw"/><origin xyz="0.1 0 -0.004"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="100" velocity="10"/></joint>
  <joint name="roll" type="revolute"><parent link="hip_yaw"/><child link="hip_roll"/><axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="100" velocity="10"/></joint>
  <joint name="pitch" type="revolute"><parent link="hip_roll"/><child link="thigh"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="100" velocity="10"/></joint>
</robot>`;

  async function loadHip(dummyMass: string): Promise<SapModel> {
    const a = await loadModelAsset(
      'urdf',
      { text: hip(dummyMass), path: 'hip.urdf' },
      { resolver: new MemoryResolver({}), ground: false, xform: [0, 0, 1, 0, 0, 0, 1] },
    );
    return a.model;
  }

  it('a URDF hip of massless links: pelvis and thigh (96 mm inside it) never touch, so the hip swings freely', async () => {
    const m = await loadHip('');
    expect(allowedBodyPairs(m)).toEqual([]);
    // the same hip with 0.1 kg links: MuJoCo's rule (no fusion of moving bodies) keeps the contact
    expect(
      allowedBodyPairs(
        await loadHip(
          '<inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial>',
        ),
      ),
    ).toEqual(['pelvis-thigh']);
    // no internal contact: the thigh, tipped 0.3 rad forward, swings under gravity as a pendulum
    const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
    const pitch = m.joint_label.indexOf('pitch');
    const d = m.joint_qd_start[pitch];
    sim.state.joint_q[m.joint_q_start[pitch]] = 0.3;
    let most = 0,
      contacts = 0;
    for (let i = 0; i < 250; i++) {
      sim.step();
      contacts = Math.max(contacts, sim.contacts.count[0]);
      most = Math.max(most, Math.abs(sim.state.joint_qd[d]));
    }
    expect(contacts).toBe(0);
    expect(most).toBeGreaterThan(0.5); // it swings (m·g·l·(1 − cos 0.3) → ~1.4 rad/s at the bottom)
  });

  it('FR3 (U3): link7 and the hand, welded through the massless link8, never collide', async () => {
    const a = await loadModelAsset(
      'urdf',
      { path: URDF_MODELS.U3 },
      { resolver: new NodeFsResolver({ root: SHARED_ASSETS }), load_visual_shapes: false, ground: false },
    );
    const pairs = allowedBodyPairs(a.model);
    expect(pairs.length).toBeGreaterThan(0);
    // {link7, link8, hand}: one group, hinged to link6; the fingers slide on it
    for (const p of [
      'fr3_hand-fr3_link7',
      'fr3_hand-fr3_link6',
      'fr3_leftfinger-fr3_link7',
      'fr3_hand-fr3_leftfinger',
    ])
      expect(pairs).not.toContain(p);
    // two groups apart: they may touch
    expect(pairs).toContain('fr3_hand-fr3_link5');
    expect(pairs).toContain('fr3_leftfinger-fr3_link6');
  });
});
