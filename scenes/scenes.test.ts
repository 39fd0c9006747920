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

describe('built-in scenes', () => {
  it('there are the nine scenes the README lists', () => {
    expect(files.sort()).toEqual(
      [
        'arm7.yaml',
        'box_at_rest.yaml',
        'box_sliding.yaml',
        'box_stack.yaml',
        'cartpole.yaml',
        'double_pendulum.yaml',
        'pendulum.yaml',
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
      const steps = Math.round(1 / sim.dt);
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
