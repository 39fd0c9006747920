/**
 * Fixed-tendon limits through the pipeline: the builder's checks, replication over worlds, a
 * one-joint tendon acting as a joint limit scaled by its coefficient, and what the WebGPU backend takes
 * (its parity: engine/backends/webgpu/testing/tendon_models.ts).
 */
import { describe, expect, it } from 'vitest';
import { createBackend, webgpuUnsupported } from '../backends';
import { ModelBuilder, ModelError, type SapModel } from '../model';
import { Simulation } from './simulation';
import { tendonLength } from './tendon_constraints';

/** a hanging pendulum (hinge about y at z = 2) and a free box; `tendon` adds l = 2·q, l ≤ 0.4 */
function pendulumWithTendon(tendon: boolean, num_worlds = 1, limit_ke = Infinity, limit_kd = 100): SapModel {
  const b = new ModelBuilder();
  b.num_worlds = num_worlds;
  b.spacing = [3, 0, 0];
  const link = b.addBody({ label: 'link', X_wb: [0, 0, 2, 0, 0, 0, 1] });
  b.addShape({ body: link, type: 'sphere', size: [0.08, 0, 0], X_bs: [0, 0, -0.5, 0, 0, 0, 1] });
  const hinge = b.addJoint({
    type: 'revolute',
    parent: -1,
    child: link,
    axis: [0, 1, 0],
    X_p: [0, 0, 2, 0, 0, 0, 1],
  });
  const box = b.addBody({ label: 'box', X_wb: [1, 0, 2, 0, 0, 0, 1] });
  b.addShape({ body: box, type: 'box', size: [0.1, 0.1, 0.1] });
  const free = b.addJoint({ type: 'free', parent: -1, child: box });
  if (tendon)
    b.addTendon({ label: 'stop', joints: [{ joint: hinge, coef: 2 }], upper: 0.4, limit_ke, limit_kd });
  expect(free).toBe(1);
  return b.finalize();
}

/** swings the pendulum up from the bottom at 3 rad/s; the largest angle of each world */
function swing(m: SapModel): number[] {
  const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
  const hinges = Array.from({ length: m.num_worlds }, (_, w) => m.joint_qd_start[m.world_joint_start[w]]);
  for (const d of hinges) sim.state.joint_qd[d] = 3;
  const top = hinges.map(() => -Infinity);
  for (let i = 0; i < 400; i++) {
    sim.step();
    hinges.forEach(
      (d, w) => (top[w] = Math.max(top[w], sim.state.joint_q[m.joint_q_start[m.world_joint_start[w]]])),
    );
  }
  return top;
}

describe('fixed tendons', () => {
  it('a one-joint tendon l = 2q ≤ 0.4 stops the swing at q = 0.2, in every world', () => {
    const free = swing(pendulumWithTendon(false))[0];
    expect(free).toBeGreaterThan(0.5); // 3 rad/s lifts a 0.5 m pendulum well past 0.2 rad
    const m = pendulumWithTendon(true, 2);
    expect(m.tendon_count).toBe(2);
    expect(Array.from(m.tendon_world)).toEqual([0, 1]);
    expect(m.tendon_joint[1]).toBe(m.world_joint_start[1]); // the hinge of world 1
    const top = swing(m);
    // near-rigid: stops within ~1e-3 rad (measured 4e-4), the same in both worlds
    expect(top[0]).toBeGreaterThan(0.19);
    expect(top[0]).toBeLessThan(0.2 + 2e-3);
    expect(top[1]).toBe(top[0]);
    // an undamped spring limit (limit_ke 100 per tendon unit, 400 N·m/rad on q): overshoots by about
    // ω·√(I/k) ≈ 0.1 rad, and holds
    const soft = swing(pendulumWithTendon(true, 1, 100, 0))[0];
    expect(soft).toBeGreaterThan(top[0] + 0.03);
    expect(soft).toBeLessThan(free);
  });

  it('reports its length from joint coordinates', () => {
    const m = pendulumWithTendon(true);
    const q = new Float64Array(m.joint_coord_count);
    q[0] = 0.15;
    expect(tendonLength(m, 0, q)).toBeCloseTo(0.3, 15);
  });

  it('rejects joints that are not 1-DOF, unknown joints and crossed limits, with the location', () => {
    const b = new ModelBuilder();
    const body = b.addBody({ label: 'b' });
    b.addShape({ body, type: 'sphere', size: [0.1, 0, 0] });
    const free = b.addJoint({ type: 'free', parent: -1, child: body, label: 'float' });
    expect(() => b.addTendon({ joints: [{ joint: free, coef: 1 }] })).toThrow(ModelError);
    expect(() => b.addTendon({ joints: [{ joint: free, coef: 1 }] })).toThrow(
      /tendons\[0\]\.joints\[0\]\.joint.*'float'/,
    );
    expect(() => b.addTendon({ joints: [{ joint: 7, coef: 1 }] })).toThrow(/unknown joint 7/);
    expect(() => b.addTendon({ joints: [] })).toThrow(/at least one joint/);
    const b2 = new ModelBuilder();
    const l = b2.addBody({ label: 'l' });
    b2.addShape({ body: l, type: 'sphere', size: [0.1, 0, 0] });
    const h = b2.addJoint({ type: 'revolute', parent: -1, child: l });
    expect(() => b2.addTendon({ joints: [{ joint: h, coef: 1 }], lower: 1, upper: 0 })).toThrow(
      /lower ≤ upper/,
    );
    expect(() => b2.addTendon({ joints: [{ joint: h, coef: NaN }] })).toThrow(/coef/);
  });

  it('runs on WebGPU (kernels/equality.wgsl); a tendon over three trees falls back to the CPU, with the reason', async () => {
    expect(webgpuUnsupported(pendulumWithTendon(true))).toBeNull();
    const b = new ModelBuilder();
    const joints = [0, 1, 2].map((k) => {
      const body = b.addBody({ label: `p${k}`, X_wb: [k, 0, 2, 0, 0, 0, 1] });
      b.addShape({ body, type: 'sphere', size: [0.05, 0, 0], X_bs: [0, 0, -0.5, 0, 0, 0, 1] });
      return b.addJoint({
        type: 'revolute',
        parent: -1,
        child: body,
        axis: [0, 1, 0],
        X_p: [k, 0, 2, 0, 0, 0, 1],
      });
    });
    b.addTendon({ label: 'three', joints: joints.map((joint) => ({ joint, coef: 1 })), upper: 1 });
    const m = b.finalize();
    expect(webgpuUnsupported(m)).toMatch(/fixed tendon three spans 3 trees/);
    let acquired = false;
    const { backend, fallback } = await createBackend(
      'webgpu',
      m,
      {},
      {
        acquire: async () => {
          acquired = true;
          return { ok: false, reason: 'not reached' };
        },
      },
    );
    expect(backend.kind).toBe('cpu');
    expect(acquired).toBe(false);
    expect(fallback).toMatch(/WebGPU backend not used: fixed tendon three spans 3 trees/);
    backend.dispose();
  });
});
