/**
 * Spatial tendons and length actuators through the builder and the pipeline: the builder's checks,
 * the Jacobian as the rate of the length along any velocity (free joints included, internal
 * convention), replication over worlds, the explicit spring and actuator forces, and a tendon
 * limit spanning two trees holding in a step.
 */
import { describe, expect, it } from 'vitest';
import { forwardKinematics, makeKinematicsData } from '../kinematics';
import { ModelBuilder, ModelError, type SapModel, type SpatialPathEntry } from '../model';
import { integratePositions } from './integrate';
import { Simulation } from './simulation';
import {
  actuatorForce,
  actuatorTransmissionLength,
  applyTransmissionForces,
  spatialTendonLength,
} from './transmissions';

/** a free body A, a hinge child B of A, a free body C, all in world 0 (and `nw` copies) */
function floating(nw = 1, path?: SpatialPathEntry[], extra?: (b: ModelBuilder) => void): SapModel {
  const b = new ModelBuilder();
  b.num_worlds = nw;
  b.spacing = [4, 0, 0];
  const A = b.addBody({ label: 'A', X_wb: [0, 0, 1, 0, 0, 0, 1] });
  b.addShape({ body: A, type: 'box', size: [0.1, 0.1, 0.1] });
  b.addJoint({ type: 'free', parent: -1, child: A });
  const B = b.addBody({ label: 'B', X_wb: [0.3, 0, 1, 0, 0, 0, 1] });
  b.addShape({ body: B, type: 'sphere', size: [0.05, 0, 0] });
  b.addJoint({ type: 'revolute', parent: A, child: B, axis: [0, 0.6, 0.8], X_p: [0.3, 0, 0, 0, 0, 0, 1] });
  const C = b.addBody({ label: 'C', X_wb: [1, 0.5, 1, 0, 0, 0, 1] });
  b.addShape({ body: C, type: 'sphere', size: [0.1, 0, 0] });
  b.addJoint({ type: 'free', parent: -1, child: C });
  b.addSpatialTendon({
    label: 'web',
    path: path ?? [
      { body: -1, point: [0, 0, 2] },
      { body: A, point: [0.05, 0.1, 0] },
      { body: B, point: [0.1, 0, 0.05] },
      { divisor: 3 },
      { body: B, point: [0, 0.1, 0] },
      { body: C, point: [0.1, 0, 0.1] },
      { body: -1, point: [1, 1, 0] },
    ],
  });
  extra?.(b);
  return b.finalize();
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** a random configuration: positions jittered, quaternions random */
function randomQ(m: SapModel, rand: () => number): Float64Array {
  const q = Float64Array.from(m.joint_q0);
  for (let j = 0; j < m.joint_count; j++) {
    const s = m.joint_q_start[j];
    const n = m.joint_q_start[j + 1] - s;
    if (n === 1) q[s] = 2 * rand() - 1;
    if (n === 7) {
      for (let k = 0; k < 3; k++) q[s + k] += 0.3 * (rand() - 0.5);
      const u = [0, 1, 2, 3].map(() => rand() - 0.5);
      const r = Math.hypot(...u);
      for (let k = 0; k < 4; k++) q[s + 3 + k] = u[k] / r;
    }
  }
  return q;
}

function lengthAt(m: SapModel, q: Float64Array, J: Float64Array | null = null, t = 0): number {
  const kin = makeKinematicsData(m);
  forwardKinematics(m, q, kin);
  return spatialTendonLength(m, kin, t, J);
}

describe('spatial tendons in the builder and the pipeline', () => {
  it('the builder refuses bad paths and parameters, with their location', () => {
    const b = new ModelBuilder();
    const A = b.addBody({});
    b.addJoint({ type: 'free', parent: -1, child: A });
    const p = (point: number[]) => ({ body: A, point });
    expect(() => b.addSpatialTendon({ path: [{ divisor: 2 }, p([0, 0, 0]), p([1, 0, 0])] })).toThrow(
      /spatial_tendons\[0\]\.path\[0\]: a path cannot start with a pulley/,
    );
    expect(() => b.addSpatialTendon({ path: [p([0, 0, 0]), { body: 7, point: [0, 0, 0] }] })).toThrow(
      /spatial_tendons\[0\]\.path\[1\]\.body: unknown body 7/,
    );
    expect(() => b.addSpatialTendon({ path: [p([0, 0, NaN]), p([1, 0, 0])] })).toThrow(ModelError);
    expect(() => b.addSpatialTendon({ path: [p([0, 0, 0]), { divisor: 2 }, p([1, 0, 0])] })).toThrow(
      /needs two consecutive points in one branch/,
    );
    expect(() =>
      b.addSpatialTendon({ path: [p([0, 0, 0]), { body: -1, point: [0, 0, 1] }], stiffness: -1 }),
    ).toThrow(/spatial_tendons\[0\]\.stiffness: must be finite and ≥ 0/);
    expect(() =>
      b.addSpatialTendon({ path: [p([0, 0, 0]), { body: -1, point: [0, 0, 1] }], lower: 2, upper: 1 }),
    ).toThrow(/lower ≤ upper/);
    expect(() => b.addLengthActuator({ transmission: 'spatial_tendon', tendon: 0 })).toThrow(
      /length_actuators\[0\]\.tendon: unknown spatial tendon 0/,
    );
    expect(() =>
      b.addLengthActuator({
        transmission: 'slider_crank',
        crank_body: A,
        crank_point: [0, 0, 0],
        slider_body: -1,
        slider_point: [0, 0, 0],
        slider_axis: [0, 0, 0],
        crank_length: 1,
      }),
    ).toThrow(/slider_axis: must not be zero/);
    expect(b.spatialTendons).toHaveLength(0);
  });

  it('J·v is the rate of the length along random velocities (free joints, pulley branch)', () => {
    const m = floating();
    const rand = rng(5);
    const J = new Float64Array(m.joint_dof_count);
    const qp = new Float64Array(m.joint_coord_count),
      qm = new Float64Array(m.joint_coord_count);
    const h = 1e-6;
    for (let trial = 0; trial < 10; trial++) {
      const q = randomQ(m, rand);
      const v = Float64Array.from({ length: m.joint_dof_count }, () => 2 * rand() - 1);
      const l = lengthAt(m, q, J);
      const vm = v.map((x) => -x);
      integratePositions(m, 0, m.joint_count, q, v, h, qp);
      integratePositions(m, 0, m.joint_count, q, vm, h, qm);
      const rate = (lengthAt(m, qp) - lengthAt(m, qm)) / (2 * h);
      const Jv = J.reduce((s, x, d) => s + x * v[d], 0);
      expect(l).toBeGreaterThan(0);
      expect(Math.abs(Jv - rate)).toBeLessThan(1e-6 * Math.max(1, Math.abs(rate)));
    }
  });

  it('replicated worlds hold the same tendon, each on its own DOFs (world points moved with the world)', () => {
    const m = floating(3);
    expect(m.spatial_count).toBe(3);
    const kin = makeKinematicsData(m);
    forwardKinematics(m, m.joint_q0, kin);
    const J = new Float64Array(m.joint_dof_count);
    const l0 = spatialTendonLength(m, kin, 0, J);
    for (let t = 1; t < 3; t++) {
      const w = m.spatial_world[t];
      expect(w).toBe(t);
      J.fill(0); // (each call writes its own world's DOFs only)
      expect(spatialTendonLength(m, kin, t, J)).toBeCloseTo(l0, 12);
      for (let d = 0; d < m.joint_dof_count; d++) {
        const inside = d >= m.world_dof_start[w] && d < m.world_dof_start[w + 1];
        if (!inside) expect(J[d]).toBe(0);
      }
      expect(J.some((x) => x !== 0)).toBe(true);
    }
  });

  it('the spring (rest band) and the actuator add f·J, explicit', () => {
    const m = floating(1, undefined, (b) => {
      b.spatialTendons[0].stiffness = 40;
      b.spatialTendons[0].spring_lower = 0.5;
      b.spatialTendons[0].spring_upper = 0.6;
      b.addLengthActuator({
        transmission: 'spatial_tendon',
        tendon: 0,
        gear: 2,
        gain: 3,
        bias: [0.5, -1, 0],
        force_upper: 4,
      });
    });
    const q = Float64Array.from(m.joint_q0);
    const v = new Float64Array(m.joint_dof_count);
    const kin = makeKinematicsData(m);
    forwardKinematics(m, q, kin);
    const J = new Float64Array(m.joint_dof_count);
    const l = spatialTendonLength(m, kin, 0, J);
    expect(l).toBeGreaterThan(0.6);
    const Jt = J.slice();
    const tau = new Float64Array(m.joint_dof_count);
    const ctrl = Float64Array.of(1);
    applyTransmissionForces(m, kin, q, v, ctrl, tau, J);
    const f = 2 * Math.min(3 * 1 + 0.5 - 2 * l, 4);
    expect(actuatorForce(m, 0, 1, 2 * l, 0)).toBeCloseTo(Math.min(3.5 - 2 * l, 4), 14);
    for (let d = 0; d < m.joint_dof_count; d++) expect(tau[d]).toBeCloseTo((-40 * (l - 0.6) + f) * Jt[d], 10);
    expect(actuatorTransmissionLength(m, kin, q, 0, null)).toBeCloseTo(l, 14);
  });

  it('a limit across two trees holds the length in a step (SAP tendon limit)', () => {
    // two pendulums in separate trees, tied bob to bob by a tendon l ≤ 0.5: L swings away from R
    const run = (limited: boolean) => {
      const b = new ModelBuilder();
      const bob = (x: number) => {
        const k = b.addBody({ X_wb: [x, 0, 2, 0, 0, 0, 1] });
        b.addShape({ body: k, type: 'sphere', size: [0.05, 0, 0], X_bs: [0, 0, -0.5, 0, 0, 0, 1] });
        b.addJoint({ type: 'revolute', parent: -1, child: k, axis: [0, 1, 0], X_p: [x, 0, 2, 0, 0, 0, 1] });
        return k;
      };
      const L = bob(0);
      const R = bob(0.45);
      b.addSpatialTendon({
        path: [
          { body: L, point: [0, 0, -0.5] },
          { body: R, point: [0, 0, -0.5] },
        ],
        upper: limited ? 0.5 : Infinity,
      });
      const m = b.finalize();
      const sim = new Simulation(m, { dt: 0.002, solver: {} });
      sim.state.joint_q[0] = -0.3; // (0.30 apart at the start)
      const kin = makeKinematicsData(m);
      let longest = 0;
      for (let i = 0; i < 400; i++) {
        sim.step();
        forwardKinematics(m, sim.state.joint_q, kin);
        longest = Math.max(longest, spatialTendonLength(m, kin, 0, null));
      }
      return { longest, qR: sim.state.joint_q[1] };
    };
    const free = run(false);
    expect(free.longest).toBeGreaterThan(0.55);
    expect(free.qR).toBe(0);
    const held = run(true);
    // near-rigid (β = 0.1): the bob at 1.25 m/s stops over a few steps, 4e-3 past the limit (measured)
    expect(held.longest).toBeLessThan(0.5 + 6e-3);
    expect(held.longest).toBeGreaterThan(0.5);
    expect(Math.abs(held.qR)).toBeGreaterThan(0.05); // R was pulled along
  });
});

describe('spatial-tendon springs in the energy report', () => {
  it('an undamped tendon spring exchanges kinetic and potential energy, their sum kept', () => {
    // a slider on x tied to the world point (−1, 0, 1) by a spring k = 50 with rest length 1
    const b = new ModelBuilder();
    b.gravity = [0, 0, 0];
    const s = b.addBody({ X_wb: [0, 0, 1, 0, 0, 0, 1] });
    b.addShape({ body: s, type: 'sphere', size: [0.1, 0, 0] });
    b.addJoint({ type: 'prismatic', parent: -1, child: s, axis: [1, 0, 0], X_p: [0, 0, 1, 0, 0, 0, 1] });
    b.addSpatialTendon({
      path: [
        { body: -1, point: [-1, 0, 1] },
        { body: s, point: [0, 0, 0] },
      ],
      stiffness: 50,
      spring_lower: 1,
    });
    const m = b.finalize();
    const sim = new Simulation(m, { dt: 0.001, solver: { contact_preset_variant: 'drake' } });
    sim.state.joint_q[0] = 0.2;
    sim.step();
    const e0 = sim.last_report!.worlds[0];
    const total0 = e0.kinetic_energy! + e0.potential_energy!;
    expect(total0).toBeCloseTo(0.5 * 50 * 0.2 * 0.2, 2);
    let minPe = Infinity;
    for (let i = 0; i < 1000; i++) {
      const w = sim.step().worlds[0];
      minPe = Math.min(minPe, w.potential_energy!);
      expect(Math.abs(w.kinetic_energy! + w.potential_energy! - total0)).toBeLessThan(0.02 * total0);
    }
    expect(minPe).toBeLessThan(0.01 * total0); // it swung through the rest length
  });
});
