/**
 * Acceleration drives (UsdPhysics / PhysX `physics:type = "acceleration"`): the gains act per unit
 * of the DOF's effective inertia M(q)_dd, so a driven joint settles the same way whatever its link's
 * inertia (issue 51 item 2). Closed form: q̈ = ke·(q* − q) − kd·q̇ with ke = ω², kd = 2ω is critically
 * damped, q(t) = q*·(1 − (1 + ωt)·e^{−ωt}) from rest at 0.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelBuilder } from '../model';
import { loadModelFile } from '../io/load_file';
import { SAP_WARP } from '../io/testing_assets';
import { Simulation } from './simulation';
import { webgpuUnsupported } from '../backends';

const OMEGA = 10;

/** one revolute hinge about z (no gravity), a link of principal inertia `inertia`, driven to 0.5 rad */
function hinge(inertia: number, acceleration: boolean, armature = 0) {
  const b = new ModelBuilder();
  b.gravity = [0, 0, 0];
  const link = b.addBody({ mass: 1, inertia: [inertia, inertia, inertia], X_wb: [0, 0, 1, 0, 0, 0, 1] });
  b.addJoint({
    type: 'revolute',
    parent: -1,
    child: link,
    axis: [0, 0, 1],
    target_ke: OMEGA * OMEGA,
    target_kd: 2 * OMEGA,
    target_pos: 0.5,
    armature,
    drive_acceleration: acceleration,
  });
  return b.finalize();
}

function trajectory(
  inertia: number,
  acceleration: boolean,
  steps: number,
  dt: number,
  armature = 0,
): number[] {
  const sim = new Simulation(hinge(inertia, acceleration, armature), {
    dt,
    solver: { contact_preset_variant: 'approx64' },
  });
  const q: number[] = [];
  for (let i = 0; i < steps; i++) {
    sim.step();
    q.push(sim.state.joint_q[0]);
  }
  return q;
}

describe('acceleration drives', () => {
  it('settle independently of the link inertia (a force drive with the same gains does not)', () => {
    const a = trajectory(0.01, true, 300, 1e-3);
    const b = trajectory(10, true, 300, 1e-3);
    for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThan(1e-9);
    const fa = trajectory(0.01, false, 300, 1e-3);
    const fb = trajectory(10, false, 300, 1e-3);
    expect(Math.abs(fa[99] - fb[99])).toBeGreaterThan(0.1);
  });

  it('follow the closed form of the critically damped drive, armature included in the inertia', () => {
    const dt = 1e-3;
    const q = trajectory(0.2, true, 800, dt, 0.3);
    for (const i of [49, 99, 199, 399, 799]) {
      const t = (i + 1) * dt;
      const exact = 0.5 * (1 - (1 + OMEGA * t) * Math.exp(-OMEGA * t));
      expect(Math.abs(q[i] - exact), `t = ${t}`).toBeLessThan(0.01 * 0.5);
    }
  });

  it('run on the CPU when WebGPU is asked for, with the joint named in the reason', () => {
    expect(webgpuUnsupported(hinge(1, true))).toMatch(
      /joint .*acceleration drives are not on the WebGPU backend/,
    );
    expect(webgpuUnsupported(hinge(1, false))).toBeNull();
  });

  it('UR10 (universal_ur10_usd.yaml): its six acceleration drives are honoured and it holds its targets', async () => {
    const s = await loadModelFile(path.join(SAP_WARP, 'scenes', 'universal_ur10_usd.yaml'), {
      num_worlds: 1,
      env: {},
      home: '/nonexistent-home',
    });
    const m = s.model;
    expect(Array.from(m.joint_drive_acceleration).filter((x) => x === 1)).toHaveLength(6);
    expect(s.warnings.filter((w) => /acceleration/.test(w))).toEqual([]);
    const sim = new Simulation(m, { dt: s.dt, solver: s.solver, max_rigid_contact: s.max_rigid_contact });
    // a new target for every joint, 0.2 rad from the start
    for (let d = 0; d < m.joint_dof_count; d++) sim.control.joint_target_pos[d] = m.joint_q0[d] + 0.2;
    const steps = Math.round(2 / s.dt);
    for (let i = 0; i < steps; i++) sim.step();
    for (let d = 0; d < m.joint_dof_count; d++) {
      expect(Math.abs(sim.state.joint_q[d] - sim.control.joint_target_pos[d]), `dof ${d}`).toBeLessThan(0.02);
    }
  });
});
