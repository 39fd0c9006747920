/**
 * The energy read-out (energy.ts) against ½·q̇ᵀM(q)·q̇ from CRBA and the analytic potential of a
 * double pendulum, and the drift of each preset on an undamped linear oscillator against the
 * amplification of its position update: midpoint (approx32, approx64) (1 + h²ω²/2) per step in
 * energy, sap_euler (drake) none.
 */
import { describe, expect, it } from 'vitest';
import { crbaTree, makeCompositeScratch } from '../dynamics';
import { forwardKinematics, makeKinematicsData } from '../kinematics';
import { ModelBuilder, type SapModel } from '../model';
import { EnergyMeter } from './energy';
import { Simulation } from './simulation';
import { runCommand } from '../cli/commands';
import { RunOutputSchema } from '../cli/schema';

const G = 9.81;
/** a double pendulum in the x–z plane, hinges about y; link 2 has gravcomp 0.25 and a spring */
const P = { m1: 1.3, m2: 0.7, L1: 0.6, c1: 0.35, c2: 0.4, arm: [0.02, 0.05], k: 3, ref: 0.2, gc: 0.25 };

function doublePendulum(): SapModel {
  const b = new ModelBuilder();
  b.gravity = [0, 0, -G];
  const l1 = b.addBody({ mass: P.m1, com: [0, 0, -P.c1], inertia: [0.011, 0.012, 0.004] });
  const l2 = b.addBody({
    mass: P.m2,
    com: [0, 0, -P.c2],
    inertia: [0.02, 0.001, 0.003, 0.001, 0.015, 0.002, 0.003, 0.002, 0.007],
    gravcomp: P.gc,
  });
  b.addJoint({ type: 'revolute', parent: -1, child: l1, axis: [0, 1, 0], armature: P.arm[0] });
  b.addJoint({
    type: 'revolute',
    parent: l1,
    child: l2,
    axis: [0, 1, 0],
    X_p: [0, 0, -P.L1, 0, 0, 0, 1],
    armature: P.arm[1],
    stiffness: P.k,
    spring_ref: P.ref,
  });
  b.jointQ(0)[0] = 1.1;
  b.jointQ(1)[0] = -0.7;
  return b.finalize();
}

describe('EnergyMeter', () => {
  it('is ½·q̇ᵀM(q)·q̇ (CRBA, armature included) plus gravity and spring potential to 1e-12 on a double pendulum', () => {
    const m = doublePendulum();
    const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'approx64' } });
    const d = makeKinematicsData(m);
    const M = new Float64Array(4);
    const scratch = makeCompositeScratch(m);
    let checked = 0;
    for (let i = 1; i <= 400; i++) {
      const r = sim.step();
      if (i % 50) continue;
      const q = sim.state.joint_q,
        v = sim.state.joint_qd;
      forwardKinematics(m, q, d);
      crbaTree(m, d, 0, scratch, M);
      const kinetic = 0.5 * (M[0] * v[0] * v[0] + 2 * M[1] * v[0] * v[1] + M[3] * v[1] * v[1]);
      // heights of the COMs: a rotation θ about y takes (0, 0, −l) to (−l·sin θ, 0, −l·cos θ)
      const z1 = -P.c1 * Math.cos(q[0]);
      const z2 = -P.L1 * Math.cos(q[0]) - P.c2 * Math.cos(q[0] + q[1]);
      const potential = P.m1 * G * z1 + (1 - P.gc) * P.m2 * G * z2 + 0.5 * P.k * (q[1] - P.ref) ** 2;
      const w = r.worlds[0];
      expect(kinetic).toBeGreaterThan(0.05);
      expect(Math.abs(w.kinetic_energy! - kinetic)).toBeLessThan(1e-12);
      expect(Math.abs(w.potential_energy! - potential)).toBeLessThan(1e-12);
      expect(sim.energy.kinetic[0]).toBe(w.kinetic_energy);
      checked++;
    }
    expect(checked).toBe(8);
  });

  /** a 2 kg slider on a spring of ω = 2π rad/s (no gravity, no damping) from x = 0.1 m at rest */
  function oscillator(): SapModel {
    const b = new ModelBuilder();
    b.gravity = [0, 0, 0];
    const body = b.addBody({ mass: 2, inertia: [1, 1, 1] });
    b.addJoint({
      type: 'prismatic',
      parent: -1,
      child: body,
      axis: [1, 0, 0],
      stiffness: 2 * (2 * Math.PI) ** 2,
    });
    b.jointQ(0)[0] = 0.1;
    return b.finalize();
  }

  /** the energy's growth per step [1], from its peaks over the first and the last period of N steps */
  function growthPerStep(preset: string, h: number, steps: number): number {
    const m = oscillator();
    const sim = new Simulation(m, { dt: h, solver: { contact_preset_variant: preset } });
    const meter = new EnergyMeter(m);
    const period = Math.round(1 / h);
    let first = 0,
      last = 0;
    for (let i = 1; i <= steps; i++) {
      sim.step();
      meter.measure(sim.state);
      const e = meter.kinetic[0] + meter.potential[0];
      if (i <= period) first = Math.max(first, e);
      if (i > steps - period) last = Math.max(last, e);
    }
    return Math.exp(Math.log(last / first) / (steps - period));
  }

  it('grows by (1 + h²ω²/2) per step under the midpoint presets (approx32, approx64), not under drake', () => {
    const h = 0.005,
      w = 2 * Math.PI;
    const expected = 1 + (h * h * w * w) / 2; // the determinant of the midpoint step's map
    for (const preset of ['approx64', 'approx32']) {
      const g = growthPerStep(preset, h, 2000); // 10 periods: energy × 2.7
      expect(Math.abs(g - expected) / (expected - 1)).toBeLessThan(0.01);
    }
    // sap_euler (q₁ = q₀ + h·v₁ after the explicit spring): a map of determinant 1, no drift
    expect(Math.abs(growthPerStep('drake', h, 2000) - 1)).toBeLessThan(1e-6);
  });

  it('rides in the CLI run output (per world, and per sample with --trace)', () => {
    const model = oscillator();
    const scene = (preset: string) => ({
      name: 'oscillator',
      dt: 0.005,
      max_rigid_contact: 4,
      solver: { contact_preset_variant: preset },
      model,
      warnings: [],
      notes: [],
    });
    const e0 = 0.5 * 2 * (2 * Math.PI) ** 2 * 0.1 ** 2; // ½·k·x₀², at rest
    const out = RunOutputSchema.parse(runCommand(scene('approx64'), { steps: 400, trace: 100 }));
    expect(out.trace).toHaveLength(5);
    expect(out.trace![0].potential_energy[0]).toBeCloseTo(e0, 12);
    expect(out.trace![0].kinetic_energy[0]).toBe(0);
    const w = out.worlds[0];
    expect(w.kinetic_energy).toBe(out.trace![4].kinetic_energy[0]);
    expect(w.energy_change).toBeCloseTo(w.kinetic_energy! + w.potential_energy! - e0, 12);
    // two periods at (1 + h²ω²/2) per step: about +22 %
    expect(w.energy_change! / e0).toBeGreaterThan(0.15);
    const drake = runCommand(scene('drake'), { steps: 400 }).worlds[0];
    expect(Math.abs(drake.energy_change! / e0)).toBeLessThan(0.04);
  });
});
