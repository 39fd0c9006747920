/**
 * Every built-in scene loads, runs, and shows what its description promises.
 * Also the SAP Warp example scenes with inline content load and run.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSceneText } from '../engine/io/scene/load';
import { Simulation } from '../engine/pipeline';

const here = __dirname;
const sapWarpScenes = path.resolve(here, '../../shared/reference/sap_warp/scenes');

function load(file: string, solver: Record<string, unknown> = {}) {
  const text = readFileSync(file, 'utf8');
  const scene = loadSceneText(text, file, { strict: true });
  const sim = new Simulation(scene.model, {
    dt: scene.dt,
    solver: { ...scene.solver, ...solver },
    max_rigid_contact: scene.max_rigid_contact,
  });
  return { scene, sim };
}

const files = readdirSync(here).filter((f) => f.endsWith('.yaml'));
/** steps run by the generic scene test for the (slow) benchmark scenes */
const BENCH_SCENE_STEPS: Record<string, number> = { 'pile_64.yaml': 20, 'pile_1000.yaml': 3 };

describe('built-in scenes', () => {
  it('every scene the README lists is here', () => {
    expect(files.sort()).toEqual(
      [
        'arm7.yaml',
        'box_at_rest.yaml',
        'box_sliding.yaml',
        'box_stack.yaml',
        'box_pyramid.yaml',
        'capsules_heightfield.yaml',
        'cartpole.yaml',
        'clutter_bin.yaml',
        'cylinder_cone_standing.yaml',
        'double_pendulum.yaml',
        'pendulum.yaml',
        'pile_64.yaml',
        'pile_1000.yaml',
        'rolling_sphere.yaml',
        'spinning_cube.yaml',
      ].sort(),
    );
  });

  for (const f of files) {
    it(`${f}: loads, has a description, runs 1 s without trouble`, () => {
      const text = readFileSync(path.join(here, f), 'utf8');
      expect(text).toMatch(/^description:/m);
      const { sim } = load(path.join(here, f));
      // benchmark piles are slow: a few steps of their fall (they are measured by `npm run bench`)
      const steps = BENCH_SCENE_STEPS[f] ?? Math.round(1 / sim.dt);
      for (let i = 0; i < steps; i++) {
        const r = sim.step();
        expect(r.status).not.toBe('invalid_input');
      }
      for (const x of sim.state.joint_q) expect(Number.isFinite(x)).toBe(true);
    });
  }

  it('box_at_rest: four contacts carry m·g and the box does not move', () => {
    const { sim, scene } = load(path.join(here, 'box_at_rest.yaml'));
    for (let i = 0; i < 500; i++) sim.step();
    let fz = 0;
    for (let i = 0; i < sim.contacts.count[0]; i++) fz += sim.contacts.force[i * 3 + 2];
    const mg = scene.model.body_mass[0] * 9.81;
    expect(sim.contacts.count[0]).toBe(4);
    expect(Math.abs(fz - mg) / mg).toBeLessThan(0.005);
    expect(Math.hypot(sim.state.joint_q[0], sim.state.joint_q[1])).toBeLessThan(1e-6);
  });

  it('box_sliding: stops after v0²/(2μg)', () => {
    const { sim } = load(path.join(here, 'box_sliding.yaml'));
    for (let i = 0; i < 1000; i++) sim.step();
    const expected = 4 / (2 * 0.3 * 9.81);
    expect(Math.abs(sim.state.joint_qd[0])).toBeLessThan(1e-3);
    // the box is launched at its resting height but before it settles: allow 3%
    expect(Math.abs(sim.state.joint_q[0] - expected) / expected).toBeLessThan(0.03);
  });

  it('rolling_sphere: ends rolling at 5/7 of the launch speed', () => {
    const { sim } = load(path.join(here, 'rolling_sphere.yaml'));
    for (let i = 0; i < 500; i++) sim.step();
    expect(Math.abs(sim.state.joint_qd[0] - 1.0) / 1.0).toBeLessThan(0.01);
  });

  it('box_stack: the top box stays within 1 mm under drake for 5 s', () => {
    const { sim } = load(path.join(here, 'box_stack.yaml'), { contact_preset_variant: 'drake' });
    const top = 9 * 7;
    const x0 = [sim.state.joint_q[top], sim.state.joint_q[top + 1]];
    for (let i = 0; i < 5 / sim.dt; i++) sim.step();
    expect(Math.hypot(sim.state.joint_q[top] - x0[0], sim.state.joint_q[top + 1] - x0[1])).toBeLessThan(1e-3);
    expect(sim.state.joint_q[top + 2]).toBeGreaterThan(1.85); // still stacked: top box near 1.9 m
  });

  it('arm7: holds its pose (each joint within 0.05 rad of its target after 2 s)', () => {
    const { sim } = load(path.join(here, 'arm7.yaml'));
    for (let i = 0; i < 2 / sim.dt; i++) sim.step();
    const m = sim.model;
    for (let j = 0; j < m.joint_count; j++) {
      if (m.joint_qd_start[j + 1] === m.joint_qd_start[j]) continue;
      const d = m.joint_qd_start[j];
      expect(Math.abs(sim.state.joint_q[m.joint_q_start[j]] - sim.control.joint_target_pos[d])).toBeLessThan(
        0.05,
      );
      expect(Math.abs(sim.state.joint_qd[d])).toBeLessThan(1e-2);
    }
  });

  it('spinning_cube: momentum and energy stay constant', () => {
    const { sim } = load(path.join(here, 'spinning_cube.yaml'));
    const v0 = Array.from(sim.state.joint_qd);
    for (let i = 0; i < 500; i++) sim.step();
    // a cube's inertia is isotropic: ω and v are exactly constant
    for (let k = 0; k < 6; k++) expect(Math.abs(sim.state.joint_qd[k] - v0[k])).toBeLessThan(1e-9);
  });
});

describe('SAP Warp example scenes with inline content', () => {
  for (const f of ['free_cube.yaml', 'multi_joints.yaml', 'basic_cartpole_usd.yaml']) {
    it(`${f} loads and runs 2 s without NaN, nothing below the ground`, () => {
      const { sim, scene } = load(path.join(sapWarpScenes, f));
      for (let i = 0; i < Math.round(2 / sim.dt); i++) {
        const r = sim.step();
        expect(r.status).not.toBe('invalid_input');
      }
      for (const x of sim.state.joint_q) expect(Number.isFinite(x)).toBe(true);
      const m = scene.model;
      for (let b = 0; b < m.body_count; b++) expect(sim.state.body_q[b * 7 + 2]).toBeGreaterThan(-0.005);
    });
  }
});

describe('collision scenes', () => {
  /** tilt of a free joint's body from upright [rad] (quaternion xyzw at q[o+3..o+7)) */
  const tilt = (q: Float64Array, o: number) =>
    Math.acos(Math.min(1, Math.max(-1, 1 - 2 * (q[o + 3] ** 2 + q[o + 4] ** 2))));

  it('clutter_bin: every object lands inside the bin and (but for a rocking ellipsoid) comes to rest', () => {
    const { sim, scene } = load(path.join(here, 'clutter_bin.yaml'));
    for (let i = 0; i < Math.round(3 / sim.dt); i++) {
      expect(sim.step().status).not.toBe('invalid_input');
      expect(sim.contacts.truncated[0]).toBe(0);
      expect(sim.contacts.unsupported[0]).toBe(0);
    }
    const m = scene.model;
    let resting = 0,
      objects = 0;
    for (let j = 0; j < m.joint_count; j++) {
      if (m.joint_qd_start[j + 1] - m.joint_qd_start[j] !== 6) continue;
      objects++;
      const o = m.joint_q_start[j],
        d = m.joint_qd_start[j];
      const q = sim.state.joint_q,
        v = sim.state.joint_qd;
      // inside the walls (inner half-width 0.40 m) and above the floor (top at 0.04 m)
      expect(Math.abs(q[o])).toBeLessThan(0.4);
      expect(Math.abs(q[o + 1])).toBeLessThan(0.4);
      expect(q[o + 2]).toBeGreaterThan(0.04);
      expect(q[o + 2]).toBeLessThan(0.36);
      if (Math.hypot(v[d], v[d + 1], v[d + 2]) < 0.02 && Math.hypot(v[d + 3], v[d + 4], v[d + 5]) < 0.2)
        resting++;
    }
    expect(objects).toBe(16);
    expect(resting).toBeGreaterThanOrEqual(14);
  });

  it('cylinder_cone_standing: all three stay upright and do not sink for 5 s', () => {
    const { sim, scene } = load(path.join(here, 'cylinder_cone_standing.yaml'));
    const m = scene.model;
    const free = [...Array(m.joint_count).keys()].filter(
      (j) => m.joint_qd_start[j + 1] - m.joint_qd_start[j] === 6,
    );
    expect(free.length).toBe(3);
    const z0 = free.map((j) => sim.state.joint_q[m.joint_q_start[j] + 2]);
    for (let i = 0; i < Math.round(5 / sim.dt); i++) {
      sim.step();
      if (i % 50 !== 0) continue;
      free.forEach((j, k) => {
        const o = m.joint_q_start[j];
        expect(tilt(sim.state.joint_q, o)).toBeLessThan(1e-3);
        expect(Math.abs(sim.state.joint_q[o + 2] - z0[k])).toBeLessThan(1e-4);
      });
    }
    expect(sim.contacts.count[0]).toBeGreaterThanOrEqual(9); // ≥ 3 well-spread points per cap
  });

  it('capsules_heightfield: the capsules stay on the terrain surface, inside the bowl', () => {
    const { sim, scene } = load(path.join(here, 'capsules_heightfield.yaml'));
    const m = scene.model;
    // terrain height at (x, y), the heightfield's two triangles per cell
    const nr = m.hfield_nrow[0],
      nc = m.hfield_ncol[0];
    const [sx, sy, sz] = [m.hfield_size[0], m.hfield_size[1], m.hfield_size[2]];
    const H = (r: number, c: number) => sz * m.hfield_data[r * nc + c];
    const surface = (x: number, y: number) => {
      const u = ((x + sx) / (2 * sx)) * (nc - 1),
        w = ((y + sy) / (2 * sy)) * (nr - 1);
      const c = Math.min(nc - 2, Math.max(0, Math.floor(u))),
        r = Math.min(nr - 2, Math.max(0, Math.floor(w)));
      const a = u - c,
        b = w - r;
      return a >= b
        ? H(r, c) + a * (H(r, c + 1) - H(r, c)) + b * (H(r + 1, c + 1) - H(r, c + 1))
        : H(r, c) + b * (H(r + 1, c) - H(r, c)) + a * (H(r + 1, c + 1) - H(r + 1, c));
    };
    for (let i = 0; i < Math.round(3 / sim.dt); i++) {
      expect(sim.step().status).not.toBe('invalid_input');
      if (i % 25 !== 0) continue;
      for (let j = 0; j < m.joint_count; j++) {
        if (m.joint_qd_start[j + 1] - m.joint_qd_start[j] !== 6) continue;
        const o = m.joint_q_start[j];
        const [x, y, z] = [sim.state.joint_q[o], sim.state.joint_q[o + 1], sim.state.joint_q[o + 2]];
        expect(Math.max(Math.abs(x), Math.abs(y))).toBeLessThan(1.4);
        // the centre of a capsule of radius 0.05 stays at least half a radius above the surface
        expect(z - surface(x, y)).toBeGreaterThan(0.025);
      }
    }
    expect(sim.contacts.count[0]).toBeGreaterThan(12);
  });

  it('box_pyramid: stands still under drake for 5 s with 4 contacts per supporting pair', () => {
    const { sim } = load(path.join(here, 'box_pyramid.yaml'));
    const top = 14 * 7;
    const x0 = [sim.state.joint_q[top], sim.state.joint_q[top + 1], sim.state.joint_q[top + 2]];
    for (let i = 0; i < Math.round(5 / sim.dt); i++) sim.step();
    const q = sim.state.joint_q;
    expect(Math.hypot(q[top] - x0[0], q[top + 1] - x0[1], q[top + 2] - x0[2])).toBeLessThan(1e-3);
    // 5 boxes on the ground and 10 boxes on two boxes each: (5 + 20) pairs × 4 corners
    expect(sim.contacts.count[0]).toBe(100);
  });
});
