/**
 * The MJCF export used by the MuJoCo peer of `npm run bench`: the same bodies in both engines.
 * Free flight (no contact) must agree to integration round-off, a mesh collider must hold a body
 * up in MuJoCo as the same box does, and visual-only shapes must not collide. Equality
 * constraints (coupler, ball, weld) and fixed tendons must hold in MuJoCo what they hold in ours.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { quatConj, quatMul, transformMul } from '../../math';
import { EqualityType, JointType, ModelBuilder, type SapModel } from '../../model';
import { Simulation } from '../../pipeline';
import { exportMjcf, setMujocoState, type MjcfExport } from './mjcf_export';
import { loadMujoco, mujocoFromXml, type MjData, type MjModel, type MujocoModule } from './mujoco';
import { importMjcf } from '../../io/mjcf/mjcf';
import { gravcompArmMjcf } from '../../io/mjcf/testing';

/** a cube of half size h as a triangle mesh (12 triangles, counter-clockwise from outside) */
function cubeMesh(h: number): { vertices: number[]; triangles: number[] } {
  const vertices: number[] = [];
  for (let i = 0; i < 8; i++) vertices.push(i & 1 ? h : -h, i & 2 ? h : -h, i & 4 ? h : -h);
  // faces as quads (outward normals), split into triangles
  const quads = [
    [0, 2, 3, 1], // −z
    [4, 5, 7, 6], // +z
    [0, 1, 5, 4], // −y
    [2, 6, 7, 3], // +y
    [0, 4, 6, 2], // −x
    [1, 3, 7, 5], // +x
  ];
  const triangles: number[] = [];
  for (const [a, b, c, d] of quads) triangles.push(a, b, c, a, c, d);
  return { vertices, triangles };
}

async function mujoco(): Promise<MujocoModule> {
  const mj = await loadMujoco();
  if (typeof mj === 'string') throw new Error(mj);
  return mj;
}

/** the parts of MuJoCo's model and data the equality and tendon tests read */
interface MjModelExtra {
  neq: number;
  nsite: number;
  ntendon: number;
  qpos0: Float64Array;
  tendon_range: Float64Array;
}
interface MjDataExtra {
  xpos: Float64Array;
  xquat: Float64Array;
  ten_length: Float64Array;
}

/**
 * a pendulum: a body on a y hinge at `at` (world) with a sphere of radius 6 cm (0.9 kg) `arm` out
 * along x, visual only (mass without contacts); returns [body, joint]
 */
function pendulum(b: ModelBuilder, at: number[], arm: number): [number, number] {
  const body = b.addBody({ X_wb: [at[0], at[1], at[2], 0, 0, 0, 1] });
  b.addShape({
    body,
    type: 'sphere',
    size: [0.06, 0, 0],
    X_bs: [arm, 0, 0, 0, 0, 0, 1],
    cfg: { density: 1000, has_shape_collision: false },
  });
  const joint = b.addJoint({
    type: 'revolute',
    parent: -1,
    child: body,
    axis: [0, 1, 0],
    X_p: [at[0], at[1], at[2], 0, 0, 0, 1],
  });
  return [body, joint];
}

/** a free body with a box of half sizes h (1000 kg/m³), visual only */
function freeBox(b: ModelBuilder, X_wb: number[], h: number[]): number {
  const body = b.addBody({ X_wb });
  b.addShape({ body, type: 'box', size: h, cfg: { density: 1000, has_shape_collision: false } });
  b.addJoint({ type: 'free', parent: -1, child: body });
  return body;
}

/**
 * MuJoCo's equality softness. The exported model keeps MuJoCo's defaults (solref 0.02 s critically
 * damped, solimp d = 0.9…0.95): held against a load of constraint-space acceleration a, a soft
 * equality settles at r ≈ (1 − d)/d · a/k with k = 1/(d_max·t_c)², about 4e-5 s²·a. The stiff
 * variant (t_c = 0.004 s = 2·dt, MuJoCo's floor; d = 0.99…0.999) has r ≈ 1.6e-7 s²·a, 250 times
 * less, leaving the drift of a step (the constraint is linearized at the step's start): an exact
 * export must be held to a small fraction of a millimetre or milliradian there, where a geometric
 * error in the export would stay whatever the stiffness.
 */
function stiffen(xml: string): string {
  return xml.replace(
    '<compiler angle="radian"/>',
    '<compiler angle="radian"/><default><equality solref="0.004 1" solimp="0.99 0.999 0.001 0.5 2"/></default>',
  );
}

/**
 * Compiles the export (as is or {@link stiffen}ed), starts MuJoCo from our initial state (after `init`
 * edits it), steps 1 s (500 steps of 2 ms) and returns the largest value of each of `measure`'s
 * entries over the steps (the first call: the state before stepping, returned as `start`).
 */
async function worstOver(
  m: SapModel,
  xml: string,
  init: (sim: Simulation) => void,
  measure: (mj: MujocoModule, mm: MjModel, d: MjData, exp: MjcfExport) => number[],
): Promise<{ start: number[]; worst: number[] }> {
  const dt = 0.002;
  const exp = exportMjcf(m, dt);
  const mj = await mujoco();
  const { m: mm, d } = mujocoFromXml(mj, xml);
  try {
    const sim = new Simulation(m, { dt });
    init(sim);
    setMujocoState(m, sim.state, exp, mm, d);
    mj.mj_forward(mm, d);
    const start = measure(mj, mm, d, exp);
    const worst = start.map(() => -Infinity);
    for (let i = 0; i < 500; i++) {
      mj.mj_step(mm, d);
      measure(mj, mm, d, exp).forEach((v, k) => (worst[k] = Math.max(worst[k], v)));
    }
    return { start, worst };
  } finally {
    d.delete();
    mm.delete();
  }
}

/** q of our 1-DOF joint j in MuJoCo's state */
function mjQ(mm: MjModel, d: MjData, exp: MjcfExport, j: number): number {
  return d.qpos[mm.jnt_qposadr[exp.joints.indexOf(j)]];
}

/** MuJoCo's world pose of our body b (−1: the world), xyzw quaternion */
function mjPose(mj: MujocoModule, mm: MjModel, d: MjData, b: number): Float64Array {
  if (b < 0) return Float64Array.from([0, 0, 0, 0, 0, 0, 1]);
  const api = mj as unknown as { mj_name2id(m: unknown, type: number, name: string): number };
  const id = api.mj_name2id(mm, 1 /* mjOBJ_BODY */, `b${b}`);
  const { xpos: p, xquat: q } = d as unknown as MjDataExtra;
  return Float64Array.from([
    p[3 * id],
    p[3 * id + 1],
    p[3 * id + 2],
    q[4 * id + 1],
    q[4 * id + 2],
    q[4 * id + 3],
    q[4 * id],
  ]);
}

/**
 * The violation of our equality e (ball, weld) in MuJoCo's state, in our terms: [the distance
 * between body1's anchor and body0's anchor (weld: ∘ relpose) [m], the weld's rotation error [rad]]
 */
function eqViolation(mj: MujocoModule, m: SapModel, e: number, mm: MjModel, d: MjData): number[] {
  const frame = (b: number, a: Float64Array): Float64Array => {
    const out = new Float64Array(7);
    transformMul(
      mjPose(mj, mm, d, b),
      0,
      Float64Array.from([a[e * 3], a[e * 3 + 1], a[e * 3 + 2], 0, 0, 0, 1]),
      0,
      out,
      0,
    );
    return out;
  };
  let P = frame(m.eq_body0[e], m.eq_anchor0);
  const Q = frame(m.eq_body1[e], m.eq_anchor1);
  if (m.eq_type[e] === EqualityType.WELD) {
    const T = new Float64Array(7);
    transformMul(P, 0, m.eq_relpose, e * 7, T, 0);
    P = T;
  }
  const dq = new Float64Array(4);
  quatConj(P, 3, dq, 0);
  quatMul(dq, 0, Q, 3, dq, 0);
  return [
    Math.hypot(Q[0] - P[0], Q[1] - P[1], Q[2] - P[2]),
    2 * Math.atan2(Math.hypot(dq[0], dq[1], dq[2]), Math.abs(dq[3])),
  ];
}

describe('exportMjcf', () => {
  it('free flight: the exported body follows the same ballistic trajectory in MuJoCo', async () => {
    const b = new ModelBuilder();
    const body = b.addBody({ label: 'box', X_wb: [0, 0, 2, 0, 0, 0, 1] });
    b.addShape({ body, type: 'box', size: [0.1, 0.2, 0.05], cfg: { density: 300 } });
    b.addJoint({ type: 'free', parent: -1, child: body });
    const m = b.finalize();
    const dt = 0.002;
    const sim = new Simulation(m, { dt, solver: { contact_preset_variant: 'drake' } });
    // public free-joint velocity [v_COM; ω] (world): thrown up and sideways, spinning
    sim.state.joint_qd.set([0.3, -0.2, 1.5, 0.4, -0.3, 0.7]);
    sim.solver.updateBodyState(sim.state);
    const mj = await mujoco();
    const exp = exportMjcf(m, dt);
    const { m: mm, d } = mujocoFromXml(mj, exp.xml);
    try {
      setMujocoState(m, sim.state, exp, mm, d);
      mj.mj_forward(mm, d);
      for (let i = 0; i < 200; i++) {
        sim.step();
        mj.mj_step(mm, d);
      }
      // COM under constant gravity, t = 0.4 s: the drake preset integrates positions with sap_euler
      // (q₁ = q₀ + dt·v₁), as MuJoCo's semi-implicit Euler does, so both lag the exact parabola by
      // g·dt·t/2 in z; x and y are exact
      const t = 0.4;
      const v = [0.3, -0.2, 1.5];
      const expected = [v[0] * t, v[1] * t, 2 + v[2] * t - 0.5 * 9.81 * t * t - (9.81 * dt * t) / 2];
      for (let k = 0; k < 3; k++) {
        expect(sim.state.body_q[k]).toBeCloseTo(expected[k], 9);
        expect(d.qpos[k]).toBeCloseTo(expected[k], 9);
      }
      expect(d.ncon).toBe(0);
    } finally {
      d.delete();
      mm.delete();
    }
  });

  it('carries gravity compensation: the compensated arm and plate move in MuJoCo as in ours', async () => {
    const b = new ModelBuilder();
    await importMjcf(b, { text: gravcompArmMjcf(), path: 'arm.xml' });
    const m = b.finalize();
    const dt = 0.002;
    const exp = exportMjcf(m, dt);
    expect(exp.xml).toContain('gravcomp="0.5"');
    expect(exp.xml).toContain('gravcomp="0.25"');
    const sim = new Simulation(m, { dt, solver: { contact_preset_variant: 'drake' } });
    const mj = await mujoco();
    const { m: mm, d } = mujocoFromXml(mj, exp.xml);
    try {
      setMujocoState(m, sim.state, exp, mm, d);
      mj.mj_forward(mm, d);
      const plate = m.body_label.indexOf('plate');
      let worst = 0;
      for (let i = 0; i < 500; i++) {
        sim.step();
        mj.mj_step(mm, d);
        for (let j = 0; j < 2; j++)
          worst = Math.max(worst, Math.abs(sim.state.joint_q[m.joint_q_start[j]] - mjQ(mm, d, exp, j)));
        // the plate's z in MuJoCo's qpos (xpos is from the start of the step)
        const z = d.qpos[mm.jnt_qposadr[exp.joints.indexOf(plate)] + 2];
        worst = Math.max(worst, Math.abs(sim.state.body_q[7 * plate + 2] - z));
      }
      // the model as written (12 significant digits); without gravcomp the arm would fall twice as
      // fast and the plate 1.2 m instead of 0.9 m
      expect(worst).toBeLessThan(1e-8);
      expect(sim.state.body_q[7 * plate + 2]).toBeCloseTo(1 - 0.5 * 0.75 * 9.81 - (0.75 * 9.81 * dt) / 2, 9);
    } finally {
      d.delete();
      mm.delete();
    }
  });

  it('exports mesh colliders (MuJoCo: convex hull) and skips visual-only shapes', async () => {
    const h = 0.05;
    const b = new ModelBuilder();
    const mesh = b.addMesh(cubeMesh(h));
    const body = b.addBody({ label: 'meshbox', X_wb: [0, 0, h + 0.001, 0, 0, 0, 1] });
    b.addShape({ body, type: 'mesh', mesh, size: [1, 1, 1], cfg: { density: 1000 } });
    // a big visual-only sphere: if it collided in MuJoCo, the body would rest on it at z = 0.3
    b.addShape({
      body,
      type: 'sphere',
      size: [0.3, 0, 0],
      cfg: { density: 0, has_shape_collision: false },
    });
    b.addJoint({ type: 'free', parent: -1, child: body });
    b.addGround();
    const m = b.finalize();
    const exp = exportMjcf(m, 0.002);
    expect(exp.xml).toContain('<mesh name="mesh0"');
    expect(exp.xml).not.toContain('type="sphere"');
    const mj = await mujoco();
    const { m: mm, d } = mujocoFromXml(mj, exp.xml);
    try {
      const sim = new Simulation(m, { dt: 0.002 });
      setMujocoState(m, sim.state, exp, mm, d);
      mj.mj_forward(mm, d);
      for (let i = 0; i < 500; i++) mj.mj_step(mm, d);
      // resting on its hull's bottom face (MuJoCo's soft contact sinks a little)
      expect(d.qpos[2]).toBeGreaterThan(h - 0.003);
      expect(d.qpos[2]).toBeLessThan(h + 0.001);
      expect(d.ncon).toBeGreaterThanOrEqual(3);
    } finally {
      d.delete();
      mm.delete();
    }
  });

  it('collides in MuJoCo exactly the shape pairs ours collides (groups, filter pairs, parent/child)', async () => {
    const b = new ModelBuilder();
    const box = (body: number, x: number, cfg: { collision_group?: number } = {}): number =>
      b.addShape({ body, type: 'box', size: [0.1, 0.1, 0.1], X_bs: [x, 0, 0, 0, 0, 0, 1], cfg });
    const free = (x: number, z: number): number => {
      const body = b.addBody({ X_wb: [x, 0, z, 0, 0, 0, 1] });
      b.addJoint({ type: 'free', parent: -1, child: body });
      return body;
    };
    // A: two boxes, groups 1 and 2; B overlaps both (group 1: meets A's group-1 box only)
    const A = free(0, 0);
    const a1 = box(A, 0.15, { collision_group: 1 });
    const a2 = box(A, -0.15, { collision_group: 2 });
    const B = free(0, 0.15);
    const bBox = b.addShape({ body: B, type: 'box', size: [0.3, 0.1, 0.1], cfg: { collision_group: 1 } });
    // C: A's child through a hinge, overlapping a1 (parent/child: filtered in ours)
    const C = b.addBody({ X_wb: [0.25, 0, 0, 0, 0, 0, 1] });
    b.addJoint({ type: 'revolute', parent: A, child: C, axis: [0, 0, 1], X_p: [0.25, 0, 0, 0, 0, 0, 1] });
    const cBox = box(C, 0);
    // D overlaps B, the pair filtered explicitly; E overlaps B in group 0; F overlaps B freely
    const D = free(0.3, 0.3);
    const dBox = box(D, 0);
    b.addFilterPair(dBox, bBox);
    const E = free(-0.3, 0.3);
    box(E, 0, { collision_group: 0 });
    const F = free(0, 0.3);
    const fBox = box(F, 0);
    const m = b.finalize();
    const sim = new Simulation(m, { dt: 0.002 });
    sim.collision.collide(sim.state, sim.contacts);
    const pairKey = (x: number, y: number): string => (x < y ? `${x}-${y}` : `${y}-${x}`);
    const ours = new Set<string>();
    for (let k = 0; k < sim.contacts.count[0]; k++) {
      ours.add(pairKey(sim.contacts.shape0[k], sim.contacts.shape1[k]));
    }
    // every rule at work: a1–B, B–C and B–F collide; a2–B (groups), a1–C (parent/child), B–D
    // (filter pair) and B–E (group 0) overlap too but do not
    expect([...ours].sort()).toEqual([pairKey(a1, bBox), pairKey(bBox, cBox), pairKey(bBox, fBox)].sort());
    expect(a2).toBeGreaterThan(a1);
    const exp = exportMjcf(m, 0.002);
    expect(exp.xml).toContain('filterparent="disable"');
    // a1 with B, D and F: A's group-2 box filters A against each of them in part, so those body
    // pairs are excluded as a whole and a1's pairs come back one by one
    expect(exp.explicit_pairs).toBe(3);
    const mj = await mujoco();
    const { m: mm, d } = mujocoFromXml(mj, exp.xml);
    try {
      setMujocoState(m, sim.state, exp, mm, d);
      mj.mj_forward(mm, d);
      const api = mj as unknown as {
        mj_id2name(m: unknown, type: number, id: number): string;
        mjtObj: { mjOBJ_GEOM: { value: number } };
      };
      const data = d as unknown as {
        contact: { get(i: number): { geom1: number; geom2: number; delete(): void } | undefined };
      };
      const shapeOf = (id: number): number =>
        Number(api.mj_id2name(mm, api.mjtObj.mjOBJ_GEOM.value, id).slice(1));
      const theirs = new Set<string>();
      for (let i = 0; i < d.ncon; i++) {
        const c = data.contact.get(i)!;
        theirs.add(pairKey(shapeOf(c.geom1), shapeOf(c.geom2)));
        c.delete();
      }
      expect([...theirs].sort()).toEqual([...ours].sort());
    } finally {
      d.delete();
      mm.delete();
    }
  });
  it('carries the speculative gap: MuJoCo detects what ours detects before contact and solves it only on contact', async () => {
    const r = 0.05;
    const b = new ModelBuilder();
    b.rigid_gap = 0.01;
    // A hovers 1.5 cm above the ground (inside the 2 cm band of sphere + ground), B 3 cm (outside)
    const A = b.addBody({ X_wb: [0, 0, r + 0.015, 0, 0, 0, 1] });
    b.addShape({ body: A, type: 'sphere', size: [r, 0, 0], cfg: { density: 1000 } });
    b.addJoint({ type: 'free', parent: -1, child: A });
    const B = b.addBody({ X_wb: [1, 0, r + 0.03, 0, 0, 0, 1] });
    b.addShape({ body: B, type: 'sphere', size: [r, 0, 0], cfg: { density: 1000 } });
    b.addJoint({ type: 'free', parent: -1, child: B });
    // C hovers 1.5 cm above the ground with a 2 cm surface offset (margin): in contact already
    const C = b.addBody({ X_wb: [2, 0, r + 0.015, 0, 0, 0, 1] });
    b.addShape({ body: C, type: 'sphere', size: [r, 0, 0], cfg: { density: 1000, margin: 0.02 } });
    b.addJoint({ type: 'free', parent: -1, child: C });
    b.addGround();
    const m = b.finalize();
    const sim = new Simulation(m, { dt: 0.002 });
    sim.collision.collide(sim.state, sim.contacts);
    expect(sim.contacts.count[0]).toBe(2);
    const phi = [0, 1].map((k) => sim.contacts.phi0[k]).sort((x, y) => x - y);
    expect(phi[0]).toBeCloseTo(-0.005, 9); // C: 1.5 cm − 2 cm
    expect(phi[1]).toBeCloseTo(0.015, 9); // A: speculative
    const exp = exportMjcf(m, 0.002);
    expect(exp.xml).toContain('margin="0" gap="0.01"');
    expect(exp.xml).toContain('margin="0.02" gap="0.01"');
    const mj = await mujoco();
    const { m: mm, d } = mujocoFromXml(mj, exp.xml);
    const nefc = (): number => (d as unknown as { nefc: number }).nefc;
    try {
      setMujocoState(m, sim.state, exp, mm, d);
      mj.mj_forward(mm, d);
      // A's and C's contacts are reported at their true distances, A's left out of the solver
      // (C's acts: four pyramid rows for condim 3), B's not reported at all
      expect(d.ncon).toBe(2);
      const contacts = (
        d as unknown as { contact: { get(i: number): { dist: number; exclude: number; delete(): void } } }
      ).contact;
      const seen: [number, number][] = [];
      for (let i = 0; i < 2; i++) {
        const c = contacts.get(i);
        seen.push([c.dist, c.exclude]);
        c.delete();
      }
      seen.sort((x, y) => x[1] - y[1]);
      expect(seen[0][0]).toBeCloseTo(0.015, 9); // C, acting
      expect(seen[0][1]).toBe(0);
      expect(seen[1][0]).toBeCloseTo(0.015, 9); // A, in the gap band only
      expect(seen[1][1]).toBe(1);
      expect(nefc()).toBe(4);
      // A and B fall to the ground: their contacts then act (MuJoCo's soft contact rests a little deep)
      for (let i = 0; i < 300; i++) mj.mj_step(mm, d);
      expect(d.ncon).toBe(3);
      expect(nefc()).toBeGreaterThan(0);
      expect(d.qpos[2]).toBeGreaterThan(r - 0.003);
      expect(d.qpos[2]).toBeLessThan(r + 1e-4);
    } finally {
      d.delete();
      mm.delete();
    }
  });
  it('exports joint dry friction as frictionloss: a horizontal arm held or slipping in MuJoCo as in ours', async () => {
    // the arm of `pendulum` (0.9 kg at 0.4 m) horizontal on its y hinge: gravity's torque about it
    // is τ_g = m·g·0.4; friction bounds 1.2·τ_g (holds) and 0.5·τ_g (slips at (τ_g − τ_c)/I)
    const build = (friction: number): SapModel => {
      const b = new ModelBuilder();
      const [, j] = pendulum(b, [0, 0, 1], 0.4);
      b.joints[j].dof.friction = friction;
      return b.finalize();
    };
    const m0 = build(0);
    const tauG = m0.body_mass[0] * 9.81 * 0.4;
    const dt = 0.002;
    const mj = await mujoco();
    const velocities: number[][] = [];
    for (const ratio of [1.2, 0.5]) {
      const m = build(ratio * tauG);
      const exp = exportMjcf(m, dt);
      expect(exp.xml).toMatch(new RegExp(`frictionloss="${(ratio * tauG).toPrecision(6).slice(0, 6)}`));
      const sim = new Simulation(m, {
        dt,
        solver: { contact_preset_variant: 'drake', line_search_variant: 'exact_root' },
      });
      const { m: mm, d } = mujocoFromXml(mj, exp.xml);
      try {
        setMujocoState(m, sim.state, exp, mm, d);
        mj.mj_forward(mm, d);
        for (let i = 0; i < 100; i++) {
          sim.step();
          mj.mj_step(mm, d);
        }
        velocities.push([sim.state.joint_qd[0], d.qvel[0]]);
      } finally {
        d.delete();
        mm.delete();
      }
    }
    const I = m0.body_inertia[4] + m0.body_mass[0] * 0.4 * 0.4;
    const slip = (0.5 * tauG) / I; // [rad/s²] while the arm is near horizontal
    // held: after 0.2 s ours creeps at 4.9e-5 rad/s (σ = 1e-3), MuJoCo's softer friction (default
    // solreffriction) at 0.026 rad/s, 1.1% of the slipping arm's speed
    expect(Math.abs(velocities[0][0])).toBeLessThan(1e-4 * slip * 0.2);
    expect(Math.abs(velocities[0][1])).toBeLessThan(0.02 * slip * 0.2);
    // slipping: both at (τ_g − τ_c)/I (2.40211 rad/s after 0.2 s in both, 1e-6 apart; 1.2% below
    // slip·t, as the arm has turned by 0.24 rad and gravity's torque fallen with its cosine)
    const [ours, theirs] = velocities[1].map(Math.abs);
    expect(Math.abs(ours - slip * 0.2) / (slip * 0.2)).toBeLessThan(0.02);
    expect(Math.abs(theirs - ours) / ours).toBeLessThan(1e-5);
  });

  it('writes angles in radians: a hinge limit and spring reference act where ours do', async () => {
    // a pendulum (1 kg point mass 0.5 m out along x) on a y hinge limited to [−0.5, 0.5] rad with
    // a spring about 0.3 rad, started at q = 0.45 (inside the limit) and at q = 0.55 (past it)
    const build = (): ReturnType<ModelBuilder['finalize']> => {
      const b = new ModelBuilder();
      const body = b.addBody({ X_wb: [0, 0, 1, 0, 0, 0, 1] });
      b.addShape({
        body,
        type: 'sphere',
        size: [0.05, 0, 0],
        X_bs: [0.5, 0, 0, 0, 0, 0, 1],
        cfg: { density: 1000, has_shape_collision: false },
      });
      b.addJoint({
        type: 'revolute',
        parent: -1,
        child: body,
        axis: [0, 1, 0],
        X_p: [0, 0, 1, 0, 0, 0, 1],
        limit_lower: -0.5,
        limit_upper: 0.5,
        stiffness: 10,
        spring_ref: 0.3,
      });
      return b.finalize();
    };
    const m = build();
    const exp = exportMjcf(m, 0.002);
    expect(exp.xml).toContain('<compiler angle="radian"/>');
    const mj = await mujoco();
    const { m: mm, d } = mujocoFromXml(mj, exp.xml);
    const data = d as unknown as { nefc: number; qfrc_spring?: Float64Array; qfrc_passive: Float64Array };
    try {
      const sim = new Simulation(m, { dt: 0.002 });
      for (const [q, limitRows] of [
        [0.45, 0],
        [0.55, 1],
      ] as const) {
        sim.state.joint_q[0] = q;
        setMujocoState(m, sim.state, exp, mm, d);
        mj.mj_forward(mm, d);
        expect(data.nefc).toBe(limitRows);
        // passive force: the spring −k(q − q_ref) about 0.3 rad (not 0.3°)
        expect(data.qfrc_passive[0]).toBeCloseTo(-10 * (q - 0.3), 9);
      }
    } finally {
      d.delete();
      mm.delete();
    }
  });

  it('exports a coupler as a joint equality that MuJoCo holds under gravity', async () => {
    // two pendulums in separate trees, q_A = 0.5·q_B + 0.1, started where the coupler holds
    const b = new ModelBuilder();
    const [, jA] = pendulum(b, [0, 0, 1], 0.5);
    const [, jB] = pendulum(b, [0, 1, 1], 0.3);
    const ratio = 0.5;
    const offset = 0.1;
    b.addEquality({ type: 'coupler', joint0: jA, joint1: jB, ratio, offset });
    const m = b.finalize();
    const exp = exportMjcf(m, 0.002);
    expect(exp.equalities).toBe(1);
    expect(exp.skipped_equalities).toEqual([]);
    const j0 = m.eq_joint0[0];
    const j1 = m.eq_joint1[0];
    expect(exp.xml).toContain(`<joint name="eq0" joint1="j${j0}" joint2="j${j1}" polycoef="0.1 0.5 0 0 0"/>`);
    const init = (sim: Simulation): void => {
      sim.state.joint_q[m.joint_q_start[j1]] = 0.4;
      sim.state.joint_q[m.joint_q_start[j0]] = ratio * 0.4 + offset;
    };
    // [|q₀ − ρ·q₁ − Δq|, neq, the qpos0 of both joints (the polynomial's reference), −q₀, q₀]
    const measure = (_mj: MujocoModule, mm: MjModel, d: MjData, e: MjcfExport): number[] => {
      const mx = mm as unknown as MjModelExtra;
      const q0 = mjQ(mm, d, e, j0);
      return [
        Math.abs(q0 - ratio * mjQ(mm, d, e, j1) - offset),
        mx.neq,
        Math.max(...mx.qpos0.map(Math.abs)),
        -q0,
        q0,
      ];
    };
    const soft = await worstOver(m, exp.xml, init, measure);
    const stiff = await worstOver(m, stiffen(exp.xml), init, measure);
    expect(soft.start).toEqual([
      expect.closeTo(0, 15),
      1,
      0,
      expect.closeTo(-0.3, 12),
      expect.closeTo(0.3, 12),
    ]);
    // the pendulums swing through more than a radian, coupled: loads of the order of g/L ~ 20 rad/s²
    // make ~1e-3 rad at MuJoCo's default softness (measured 8e-4; a wrong sign, ratio or offset:
    // tenths of a radian), ~250 times less stiffened (measured 6e-6)
    expect(soft.worst[3] + soft.worst[4]).toBeGreaterThan(1);
    expect(soft.worst[0]).toBeLessThan(5e-3);
    expect(stiff.worst[0]).toBeLessThan(5e-5);
  });

  it('exports ball constraints as site connects that MuJoCo holds (anchors apart at qpos0)', async () => {
    const b = new ModelBuilder();
    // A: a pendulum; B: a free body hanging from A's tip (both anchors at (0.5, 0, 1) as authored;
    // at MuJoCo's qpos0 the free body sits at the origin, where they do not meet)
    const [A] = pendulum(b, [0, 0, 1], 0.5);
    const B = freeBox(b, [0.7, 0, 1, 0, 0, 0, 1], [0.05, 0.05, 0.05]);
    b.addEquality({ type: 'ball', body0: A, body1: B, anchor0: [0.5, 0, 0], anchor1: [-0.2, 0, 0] });
    // C: a free body hanging from a world point
    const C = freeBox(b, [2, 0, 1, 0, 0, 0, 1], [0.05, 0.05, 0.05]);
    b.addEquality({ type: 'ball', body0: -1, body1: C, anchor0: [2.3, 0, 1], anchor1: [0.3, 0, 0] });
    const m = b.finalize();
    const exp = exportMjcf(m, 0.002);
    expect(exp.equalities).toBe(2);
    expect(exp.xml).toContain('<connect name="eq0" site1="eq0_0" site2="eq0_1"/>');
    expect(exp.xml).toContain('<site name="eq1_0" pos="2.3 0 1"/>');
    // [both violations [m], neq, nsite, −z of C]
    const measure = (mj: MujocoModule, mm: MjModel, d: MjData): number[] => {
      const mx = mm as unknown as MjModelExtra;
      return [
        eqViolation(mj, m, 0, mm, d)[0],
        eqViolation(mj, m, 1, mm, d)[0],
        mx.neq,
        mx.nsite,
        -mjPose(mj, mm, d, C)[2],
      ];
    };
    const soft = await worstOver(m, exp.xml, () => {}, measure);
    const stiff = await worstOver(m, stiffen(exp.xml), () => {}, measure);
    expect(soft.start).toEqual([expect.closeTo(0, 12), expect.closeTo(0, 12), 2, 4, -1]);
    // both swing (C falls below 0.8 m) ...
    expect(soft.worst[4]).toBeGreaterThan(-0.8);
    // ... held to MuJoCo's softness and step drift (loads ~10…50 m/s²: up to ~1e-3 m at its
    // defaults, measured 5e-4 and 3e-4; stiffened 2e-4 and 1.5e-4, the swing's step drift), where
    // the body form would have left the anchors 0.7 m and 2 m apart
    for (const k of [0, 1]) {
      expect(soft.worst[k]).toBeLessThan(2e-3);
      expect(stiff.worst[k]).toBeLessThan(5e-4);
    }
  });

  it('exports welds (relpose and anchors, either side the world) that MuJoCo holds', async () => {
    const b = new ModelBuilder();
    // D: a free body, turned 90° about z, welded at offset anchors to pendulum E's tip
    const [E] = pendulum(b, [0, 0, 1], 0.4);
    const s = Math.SQRT1_2;
    const D = freeBox(b, [0.6, 0, 1.1, 0, 0, s, s], [0.1, 0.05, 0.05]);
    b.addEquality({ type: 'weld', body0: E, body1: D, anchor0: [0.4, 0, 0], anchor1: [-0.1, 0.05, -0.1] });
    // F: a free body, tilted, welded to the world (the world as body1) off its centre
    const F = freeBox(b, [2, 0, 1, 0.3, 0, 0, Math.sqrt(1 - 0.09)], [0.1, 0.05, 0.05]);
    b.addEquality({ type: 'weld', body0: F, body1: -1, anchor0: [0.2, 0, 0], anchor1: [2.1, 0, 1] });
    const m = b.finalize();
    const exp = exportMjcf(m, 0.002);
    expect(exp.equalities).toBe(2);
    expect(exp.xml).toMatch(
      /<weld name="eq1" body1="b\d+" body2="world" relpose="[^"]+" anchor="2.1 0 1"\/>/,
    );
    // [D's violation [m, rad], F's violation [m, rad], neq, −z of D]
    const measure = (mj: MujocoModule, mm: MjModel, d: MjData): number[] => [
      ...eqViolation(mj, m, 0, mm, d),
      ...eqViolation(mj, m, 1, mm, d),
      (mm as unknown as MjModelExtra).neq,
      -mjPose(mj, mm, d, D)[2],
    ];
    const soft = await worstOver(m, exp.xml, () => {}, measure);
    const stiff = await worstOver(m, stiffen(exp.xml), () => {}, measure);
    // satisfied as authored, in our terms, read from MuJoCo's bodies
    expect(soft.start.slice(0, 5)).toEqual([...[0, 1, 2, 3].map(() => expect.closeTo(0, 7)), 2]);
    // D swings down with E
    expect(soft.worst[5]).toBeGreaterThan(-0.7);
    // MuJoCo's default softness gives way most in rotation: F, a 2 kg box held 0.2 m off its centre
    // (I ≈ 8e-3 kg·m²), loads the weld's rotation rows with τ/I ≈ 500 rad/s², so ~0.02…0.03 rad at
    // rest (measured 0.029), and D's swing up to 0.12 rad (measured); positions ~2e-4 m. Stiffened:
    // 7e-4 and 2e-4 rad, 2e-4 and 2e-6 m (measured)
    expect(soft.worst[0]).toBeLessThan(1e-3);
    expect(soft.worst[2]).toBeLessThan(1e-3);
    expect(soft.worst[1]).toBeLessThan(0.2);
    expect(soft.worst[3]).toBeLessThan(0.05);
    for (const k of [0, 1, 2, 3]) expect(stiff.worst[k]).toBeLessThan(2e-3);
    expect(stiff.worst[3]).toBeLessThan(soft.worst[3] / 20);
  });

  it('skips equalities it cannot export and lists them', () => {
    const b = new ModelBuilder();
    const [A, jA] = pendulum(b, [0, 0, 1], 0.5);
    const W = b.addBody({ X_wb: [0.5, 0, 1, 0, 0, 0, 1] });
    const jW = b.addJoint({ type: 'fixed', parent: A, child: W, X_p: [0.5, 0, 0, 0, 0, 0, 1] });
    b.addEquality({ type: 'coupler', joint0: jA, joint1: jW, label: 'to_fixed' });
    b.addEquality({ type: 'ball', body0: A, body1: A, anchor1: [0.1, 0, 0], label: 'self' });
    b.addEquality({ type: 'coupler', joint0: jA, joint1: jA, ratio: 0.5, offset: 0.2, label: 'single' });
    const exp = exportMjcf(b.finalize(), 0.002);
    expect(exp.equalities).toBe(1);
    expect(exp.skipped_equalities.map((x) => x.split(':')[0])).toEqual(['to_fixed', 'self']);
    // a joint coupled to itself: q = 0.5·q + 0.2, held at 0.4 (MuJoCo's single-joint form)
    expect(exp.xml).toMatch(/<joint name="eq2" joint1="j\d+" polycoef="0.4 0 0 0 0"\/>/);
  });

  it('exports fixed tendons with the range shifted by the offset, one-sided limits opened wide', async () => {
    // l = −q_A − 0.5·q_B + 0.2 ≥ 0.1: gravity turns both pendulums towards +q, shortening l onto
    // its lower limit; a second tendon, unlimited, is written too
    const b = new ModelBuilder();
    const [, jA] = pendulum(b, [0, 0, 1], 0.5);
    const [, jB] = pendulum(b, [0, 1, 1], 0.3);
    b.addTendon({
      joints: [
        { joint: jA, coef: -1 },
        { joint: jB, coef: -0.5 },
      ],
      offset: 0.2,
      lower: 0.1,
      label: 'lower_only',
    });
    b.addTendon({ joints: [{ joint: jB, coef: 2 }], offset: 1, label: 'unlimited' });
    const m = b.finalize();
    const exp = exportMjcf(m, 0.002);
    expect(exp.tendons).toBe(2);
    expect(exp.skipped_tendons).toEqual([]);
    expect(exp.xml).toContain('<fixed name="t0" limited="true" range="-0.1 10000000000">');
    expect(exp.xml).toContain('<fixed name="t1" limited="false">');
    const tA = m.tendon_joint[0];
    const tB = m.tendon_joint[1];
    // started at q_A = 0.03, q_B = 0.02: l = 0.16, MuJoCo's length l − offset = −0.04
    const init = (sim: Simulation): void => {
      sim.state.joint_q[m.joint_q_start[tA]] = 0.03;
      sim.state.joint_q[m.joint_q_start[tB]] = 0.02;
    };
    // [ntendon, MuJoCo's range, MuJoCo's length (before stepping: at this state), −l, l]
    let last = NaN;
    const measure = (_mj: MujocoModule, mm: MjModel, d: MjData, e: MjcfExport): number[] => {
      const mx = mm as unknown as MjModelExtra;
      last = -mjQ(mm, d, e, tA) - 0.5 * mjQ(mm, d, e, tB) + 0.2;
      const len = (d as unknown as MjDataExtra).ten_length[0];
      return [mx.ntendon, mx.tendon_range[0], mx.tendon_range[1], len, -last, last];
    };
    const soft = await worstOver(m, exp.xml, init, measure);
    expect(soft.start).toEqual([
      2,
      expect.closeTo(-0.1, 12),
      1e10,
      expect.closeTo(-0.04, 12),
      expect.closeTo(-0.16, 12),
      expect.closeTo(0.16, 12),
    ]);
    // the limit binds (unlimited, l would fall by a radian and more; unshifted or shifted the wrong
    // way, it would stop at 0.3 or 0.5): l comes to rest on 0.1 to MuJoCo's default limit softness
    // (the same solref/solimp as equalities: ~1e-3 under these loads), after an impact that
    // overshoots by about the impact speed times MuJoCo's 0.02 s time constant (~1.5/s: measured
    // 0.014)
    expect(Math.abs(last - 0.1)).toBeLessThan(5e-3);
    expect(-soft.worst[4]).toBeGreaterThan(0.1 - 0.03);
  });
  it("merges massless joint chains (an MJCF body's several joints) into one MuJoCo body: the humanoid compiles", async () => {
    const mj = await mujoco();
    const text = readFileSync(
      new URL('../../../../shared/assets/mujoco/humanoid/humanoid.xml', import.meta.url),
      'utf8',
    );
    const bld = new ModelBuilder();
    await importMjcf(bld, { text, path: 'humanoid.xml' });
    const model = bld.finalize();
    const massless = Array.from(model.body_mass).filter((x) => x === 0).length;
    expect(massless).toBeGreaterThan(0);
    const exp = exportMjcf(model, 0.002);
    // every joint is written, the massless bodies are not
    expect(exp.joints).toHaveLength(Array.from(model.joint_type).filter((t) => t !== JointType.FIXED).length);
    for (let b = 0; b < model.body_count; b++)
      expect(exp.xml.includes(`<body name="b${b}"`)).toBe(model.body_mass[b] > 0);
    const { m, d } = mujocoFromXml(mj, exp.xml);
    try {
      expect(m.nv).toBe(model.joint_dof_count);
    } finally {
      d.delete();
      m.delete();
    }
  });
});
