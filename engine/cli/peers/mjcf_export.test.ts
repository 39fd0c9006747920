/**
 * The MJCF export used by the MuJoCo peer of `npm run bench`: the same bodies in both engines.
 * Free flight (no contact) must agree to integration round-off, a mesh collider must hold a body
 * up in MuJoCo as the same box does, and visual-only shapes must not collide.
 */
import { describe, expect, it } from 'vitest';
import { ModelBuilder } from '../../model';
import { Simulation } from '../../pipeline';
import { exportMjcf, setMujocoState } from './mjcf_export';
import { loadMujoco, mujocoFromXml, type MujocoModule } from './mujoco';

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
});
