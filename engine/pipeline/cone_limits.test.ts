/**
 * Ball-joint cone limits: the builder's checks, the row's rate against finite differences of the
 * limited angle (both modes), the elliptical cone's radii, and a spherical pendulum resting on its
 * cone at the analytic angle (rotation and swing), in every world; the WebGPU backend takes them
 * (its parity: engine/backends/webgpu/webgpu.test.ts, cones×3).
 */
import { describe, expect, it } from 'vitest';
import { makeRng, quatFromAxisAngle, quatIntegrate, quatMul } from '../math';
import { ModelBuilder, ModelError, type ConeModeName, type SapModel } from '../model';
import { CONE_ROW, coneRow } from './cone_limits';
import { Simulation } from './simulation';
import { createBackend, webgpuUnsupported } from '../backends';

/**
 * A 1 kg point-like bob 0.5 m from a ball joint at z = 1, starting horizontal along +x (gravity −z);
 * the joint axis (swing mode) is x, so hanging down is a 90° swing toward −z.
 */
function pendulum(mode: ConeModeName, limit: number | number[], num_worlds = 1, axis = [1, 0, 0]): SapModel {
  const b = new ModelBuilder();
  b.num_worlds = num_worlds;
  b.spacing = [2, 0, 0];
  const bob = b.addBody({
    label: 'bob',
    X_wb: [0, 0, 1, 0, 0, 0, 1],
    mass: 1,
    com: [0.5, 0, 0],
    inertia: [1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3],
  });
  b.addShape({ body: bob, type: 'sphere', size: [0.02, 0, 0], X_bs: [0.5, 0, 0, 0, 0, 0, 1] });
  b.addJoint({
    type: 'ball',
    parent: -1,
    child: bob,
    X_p: [0, 0, 1, 0, 0, 0, 1],
    axis,
    cone_mode: mode,
    cone_limit: limit,
    limit_ke: 1e4,
    limit_kd: 10,
  });
  return b.finalize();
}

/** the rotation angle and the swing of +x of a quaternion (x, y, z, w) */
function angles(q: ArrayLike<number>, o = 0): { rotation: number; swing: number } {
  const [x, y, z, w] = [q[o], q[o + 1], q[o + 2], q[o + 3]];
  const n = Math.hypot(x, y, z, w);
  const rotation = 2 * Math.atan2(Math.hypot(x, y, z) / n, Math.abs(w) / n);
  // R·x̂ = first column of R
  const c0 = 1 - (2 * (y * y + z * z)) / (n * n);
  return { rotation, swing: Math.acos(Math.max(-1, Math.min(1, c0))) };
}

describe('ball-joint cone limits', () => {
  it('the builder checks the joint type, the mode and the angles', () => {
    const b = new ModelBuilder();
    const a = b.addBody({ label: 'a' });
    expect(() => b.addJoint({ type: 'revolute', parent: -1, child: a, cone_limit: 0.5 })).toThrow(ModelError);
    expect(() => b.addJoint({ type: 'ball', parent: -1, child: a, cone_limit: 0 })).toThrow(/\(0, π\]/);
    expect(() => b.addJoint({ type: 'ball', parent: -1, child: a, cone_limit: 4 })).toThrow(/\(0, π\]/);
    expect(() =>
      b.addJoint({ type: 'ball', parent: -1, child: a, cone_mode: 'rotation', cone_limit: [0.3, 0.4] }),
    ).toThrow(/one angle/);
    expect(() =>
      b.addJoint({ type: 'ball', parent: -1, child: a, cone_mode: 'twist' as ConeModeName, cone_limit: 1 }),
    ).toThrow(/unknown cone mode/);
    const m = pendulum('swing', [0.4, Infinity]);
    expect(Array.from(m.joint_cone_mode)).toEqual([2]);
    expect(Array.from(m.joint_cone_limit)).toEqual([0.4, Infinity]);
    expect(Array.from(pendulum('swing', [Infinity, Infinity]).joint_cone_mode)).toEqual([0]);
  });

  it('the row is the rate of the limited angle (finite differences, both modes, any axis)', () => {
    const rng = makeRng(7);
    const q = new Float64Array(4),
      qp = new Float64Array(4),
      qm = new Float64Array(4);
    for (const mode of ['rotation', 'swing'] as const) {
      const m = pendulum(mode, mode === 'rotation' ? 2 : [0.7, 1.3], 1, [0.3, -0.5, 0.8]);
      for (let trial = 0; trial < 40; trial++) {
        quatFromAxisAngle(rng() - 0.5, rng() - 0.5, rng() - 0.5, 0.2 + 2.5 * rng(), q, 0);
        if (trial % 2) for (let k = 0; k < 4; k++) q[k] = -q[k]; // the same rotation
        const w = [rng() - 0.5, rng() - 0.5, rng() - 0.5];
        // ω of M relative to F in F: q' = exp(h·ω) ⊗ q
        const h = 1e-6;
        quatIntegrate(q, 0, w[0], w[1], w[2], h, qp, 0);
        quatIntegrate(q, 0, w[0], w[1], w[2], -h, qm, 0);
        expect(coneRow(m, 0, qp)).toBe(true);
        const xp = CONE_ROW[0];
        expect(coneRow(m, 0, qm)).toBe(true);
        const xm = CONE_ROW[0];
        expect(coneRow(m, 0, q)).toBe(true);
        const rate = CONE_ROW[2] * w[0] + CONE_ROW[3] * w[1] + CONE_ROW[4] * w[2];
        expect(Math.abs((xp - xm) / (2 * h) - rate)).toBeLessThan(1e-6);
        expect(Math.hypot(CONE_ROW[2], CONE_ROW[3], CONE_ROW[4])).toBeCloseTo(1, 12);
        if (mode === 'rotation') expect(CONE_ROW[0]).toBeCloseTo(angles(q).rotation, 12);
      }
    }
  });

  it("the elliptical cone's radius: c₀ toward the next axis, c₁ toward the one after, between them the ellipse", () => {
    const m = pendulum('swing', [0.3, 0.6]);
    const q = new Float64Array(4);
    const t = new Float64Array(4);
    // x toward y: a turn about z
    quatFromAxisAngle(0, 0, 1, 0.2, q, 0);
    coneRow(m, 0, q);
    expect(CONE_ROW[0]).toBeCloseTo(0.2, 14);
    expect(CONE_ROW[1]).toBeCloseTo(0.3, 14);
    // x toward z: a turn about −y, plus a twist about x (not limited, not counted)
    quatFromAxisAngle(0, -1, 0, 0.5, q, 0);
    quatFromAxisAngle(1, 0, 0, 1.1, t, 0);
    quatMul(q, 0, t, 0, q, 0);
    coneRow(m, 0, q);
    expect(CONE_ROW[0]).toBeCloseTo(0.5, 12);
    expect(CONE_ROW[1]).toBeCloseTo(0.6, 12);
    // halfway: 1/r² = (cos 45°/0.3)² + (sin 45°/0.6)²
    quatFromAxisAngle(0, -Math.SQRT1_2, Math.SQRT1_2, 0.25, q, 0);
    coneRow(m, 0, q);
    expect(CONE_ROW[1]).toBeCloseTo(1 / Math.sqrt(0.5 / 0.09 + 0.5 / 0.36), 12);
    // no rotation: no direction, no row
    expect(coneRow(m, 0, new Float64Array([0, 0, 0, 1]))).toBe(false);
  });

  // released horizontally, the bob swings down (a turn about +y) until the cone stops it at 45°;
  // at rest the limit's torque holds m·g·L·cos 45° = 3.47 N·m, 3.5e-4 rad past the limit at ke = 1e4
  for (const mode of ['rotation', 'swing'] as const) {
    it(`a pendulum rests on its ${mode} cone at 45°, in every world`, () => {
      const m = pendulum(mode, mode === 'rotation' ? Math.PI / 4 : [1.2, Math.PI / 4], 2);
      const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
      let most = 0;
      for (let i = 0; i < 2500; i++) {
        sim.step();
        most = Math.max(most, angles(sim.state.joint_q, 4)[mode]);
      }
      const k = 1e4;
      const expected = Math.PI / 4 + (9.81 * 0.5 * Math.cos(Math.PI / 4)) / k;
      for (let w = 0; w < 2; w++) {
        const a = angles(sim.state.joint_q, 4 * w);
        expect(Math.abs(a[mode] - expected)).toBeLessThan(1e-4);
        expect(Math.hypot(...sim.state.joint_qd.subarray(3 * w, 3 * w + 3))).toBeLessThan(1e-3);
      }
      expect(most).toBeLessThan(Math.PI / 4 + 0.05); // the swing never gets far past the cone
      // without the cone it hangs straight down
      const free = new Simulation(pendulum(mode, Infinity), {
        dt: 0.002,
        solver: { contact_preset_variant: 'drake' },
      });
      let deepest = 0;
      for (let i = 0; i < 400; i++) {
        free.step();
        deepest = Math.max(deepest, angles(free.state.joint_q)[mode]);
      }
      expect(deepest).toBeGreaterThan(1.5);
    });
  }

  it('run on the WebGPU backend (kernels/equality.wgsl): the model is handed to the GPU', async () => {
    for (const mode of ['rotation', 'swing'] as const) {
      const m = pendulum(mode, mode === 'rotation' ? 0.5 : [0.5, 0.7]);
      expect(webgpuUnsupported(m)).toBeNull();
      let acquired = false;
      const acquire = async () => {
        acquired = true;
        return { ok: false as const, reason: 'no adapter in this test' };
      };
      const { backend, fallback } = await createBackend('webgpu', m, {}, { acquire });
      // the GPU is asked for: only its absence sends the model to the CPU
      expect(acquired).toBe(true);
      expect(backend.kind).toBe('cpu');
      expect(fallback).toMatch(/WebGPU unavailable \(no adapter in this test\)/);
      backend.dispose();
    }
  });
});
