/** physics with analytic answers (issue acceptance list), on models built in code */
import { describe, expect, it } from 'vitest';
import { quatToMat3 } from '../math';
import { Simulation } from './simulation';
import { OneStepAblator } from './ablation';
import { boxOnGround, boxStack, pendulum, sphereOnGround, spinningBox } from './test_scenes';

const PRESETS = ['approx32', 'approx64', 'drake'] as const;

function totalNormalForce(sim: Simulation): number {
  let fz = 0;
  for (let i = 0; i < sim.contacts.count[0]; i++) fz += sim.contacts.force[i * 3 + 2];
  return fz;
}

describe('resting box', () => {
  for (const preset of PRESETS) {
    it(`${preset}: total normal force equals m·g within 0.5%, 4 corner contacts`, () => {
      const m = boxOnGround();
      const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: preset } });
      for (let i = 0; i < 500; i++) expect(sim.step().status).toBe('converged');
      expect(sim.contacts.count[0]).toBe(4);
      const mg = m.body_mass[0] * 9.81;
      expect(Math.abs(totalNormalForce(sim) - mg) / mg).toBeLessThan(0.005);
      // at rest: no drift
      expect(Math.hypot(sim.state.joint_q[0], sim.state.joint_q[1])).toBeLessThan(1e-6);
    });
  }
});

describe('sliding box', () => {
  for (const preset of PRESETS) {
    it(`${preset}: stops after v0²/(2μg) within 2%`, () => {
      const mu = 0.3,
        v0 = 2;
      const m = boxOnGround({ half: [0.1, 0.1, 0.05], density: 250, mu });
      const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: preset } });
      for (let i = 0; i < 50; i++) sim.step(); // settle onto the ground
      const x0 = sim.state.joint_q[0];
      sim.state.joint_qd[0] = v0;
      for (let i = 0; i < 600; i++) sim.step();
      expect(Math.abs(sim.state.joint_qd[0])).toBeLessThan(1e-3);
      const d = sim.state.joint_q[0] - x0;
      const expected = (v0 * v0) / (2 * mu * 9.81);
      expect(Math.abs(d - expected) / expected).toBeLessThan(0.02);
    });
  }
});

describe('rolling sphere', () => {
  for (const preset of PRESETS) {
    it(`${preset}: launched without spin, ends rolling at 5/7·v0 within 1%`, () => {
      const r = 0.1,
        v0 = 1.4;
      const m = sphereOnGround(r, 0.4);
      const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: preset } });
      for (let i = 0; i < 50; i++) sim.step();
      sim.state.joint_qd[0] = v0;
      for (let i = 0; i < 500; i++) sim.step();
      const v = sim.state.joint_qd[0];
      const wy = sim.state.joint_qd[4];
      expect(Math.abs(v - (5 / 7) * v0) / ((5 / 7) * v0)).toBeLessThan(0.01);
      expect(Math.abs(wy * r - v)).toBeLessThan(0.01 * v); // rolling: ω·r = v
    });
  }
});

describe('pendulum', () => {
  for (const integration of ['midpoint', 'sap_euler'] as const) {
    it(`${integration}: small-amplitude period matches the compound-pendulum formula within 0.5%`, () => {
      const m = pendulum();
      const mass = m.body_mass[0];
      const d = -m.body_com[2]; // COM below the pivot
      const Iyy = m.body_inertia[4] + mass * d * d;
      const T = 2 * Math.PI * Math.sqrt(Iyy / (mass * 9.81 * d));
      const dt = 0.001;
      const sim = new Simulation(m, {
        dt,
        solver: { contact_preset_variant: 'drake', position_integration: integration },
      });
      sim.state.joint_q[0] = 0.02;
      const crossings: number[] = [];
      let prev = sim.state.joint_q[0];
      while (sim.state.time < 4 * T) {
        sim.step();
        const q = sim.state.joint_q[0];
        if (prev > 0 && q <= 0) crossings.push(sim.state.time - dt * (q / (q - prev)));
        prev = q;
      }
      expect(crossings.length).toBeGreaterThanOrEqual(3);
      const measured = (crossings[crossings.length - 1] - crossings[0]) / (crossings.length - 1);
      expect(Math.abs(measured - T) / T).toBeLessThan(0.005);
    });
  }
});

describe('joint dry friction (frictionloss) on a horizontal pendulum', () => {
  // held horizontal: gravity's torque about the hinge is m·g·d, the hinge's inertia I = I_yy + m·d²
  const setup = (ratio: number, line_search_variant = 'exact_root', joint_friction_sigma?: number) => {
    const m0 = pendulum();
    const mass = m0.body_mass[0];
    const d = -m0.body_com[2];
    const I = m0.body_inertia[4] + mass * d * d;
    const tauG = mass * 9.81 * d;
    const sim = new Simulation(pendulum(ratio * tauG), {
      dt: 0.001,
      solver: { contact_preset_variant: 'drake', line_search_variant, joint_friction_sigma },
    });
    sim.state.joint_q[0] = Math.PI / 2;
    return { sim, I, tauG };
  };

  it('holds the arm when the friction bound exceeds the gravity torque (creep below 1e-4 rad in 0.5 s)', () => {
    const { sim } = setup(1.2);
    for (let i = 0; i < 500; i++) sim.step();
    expect(Math.abs(sim.state.joint_q[0] - Math.PI / 2)).toBeLessThan(1e-4);
    expect(Math.abs(sim.state.joint_qd[0])).toBeLessThan(1e-3);
  });

  it('creeps in stiction at σ·δt·τ_g/I, σ the solver option joint_friction_sigma', () => {
    // stiction: I(v − v*) = γ = −v/R with R = σ/I, so v = σ/(1+σ)·(v_n + δt·τ_g/I) → σ·δt·τ_g/I
    for (const sigma of [undefined, 1e-2, 0.1]) {
      const { sim, I, tauG } = setup(1.2, 'exact_root', sigma);
      for (let i = 0; i < 20; i++) sim.step();
      const expected = ((sigma ?? 1e-3) * 0.001 * tauG) / I;
      expect(Math.abs(Math.abs(sim.state.joint_qd[0]) - expected) / expected).toBeLessThan(1e-3);
    }
  });

  for (const ratio of [0, 0.5, 0.9]) {
    it(`slips at the angular acceleration (τ_g − τ_c)/I with τ_c = ${ratio}·τ_g (within 1%)`, () => {
      const { sim, I, tauG } = setup(ratio);
      const steps = 20;
      for (let i = 0; i < steps; i++) sim.step();
      // (the arm turns by ~1e-3 rad: the gravity torque stays m·g·d within 1e-6)
      const alpha = Math.abs(sim.state.joint_qd[0]) / (steps * 0.001);
      const expected = (tauG * (1 - ratio)) / I;
      expect(Math.abs(alpha - expected) / expected).toBeLessThan(0.01);
    });
  }

  it('reads back the friction, drive and limit efforts against gravity (track_joint_efforts)', () => {
    // the direction gravity turns the arm: the sign of its first velocity without friction
    const free = setup(0);
    free.sim.step();
    const down = Math.sign(free.sim.state.joint_qd[0]);
    const { tauG } = free;
    const efforts = (sim: Simulation, steps: number) => {
      sim.solver.track_joint_efforts = true;
      for (let i = 0; i < steps; i++) sim.step();
      return Array.from(sim.solver.joint_effort);
    };
    // sliding: exactly the bound against the motion; stuck: the gravity torque (creep 1e-6·τ_g)
    const slip = efforts(setup(0.5).sim, 10);
    expect(slip[0]).toBe(0);
    expect(slip[1]).toBe(0);
    expect(slip[2]).toBeCloseTo(-down * 0.5 * tauG, 12);
    const held = efforts(setup(1.2).sim, 200);
    expect(Math.abs(held[2] + down * tauG) / tauG).toBeLessThan(1e-4);
    // a PD drive holding the arm horizontal, and the limit it rests on
    const driven = setup(0);
    const m = driven.sim.model;
    m.joint_target_ke[0] = 2000;
    m.joint_target_kd[0] = 50;
    driven.sim.control.joint_target_pos[0] = Math.PI / 2;
    const pd = efforts(driven.sim, 2000);
    // (it sags by τ_g/K_p ≈ 0.02 rad, where gravity's torque is τ_g·sin q)
    const sag = driven.sim.state.joint_q[0];
    expect(Math.abs(sag - Math.PI / 2)).toBeGreaterThan(1e-3);
    expect(Math.abs(pd[1] + down * tauG * Math.sin(sag)) / tauG).toBeLessThan(1e-4);
    const stop = setup(0);
    const ms = stop.sim.model;
    ms.joint_limit_ke[0] = 1e5;
    ms.joint_limit_kd[0] = 1e3;
    if (down > 0) ms.joint_limit_upper[0] = Math.PI / 2;
    else ms.joint_limit_lower[0] = Math.PI / 2;
    const lim = efforts(stop.sim, 2000);
    expect(Math.abs(lim[0] + down * tauG) / tauG).toBeLessThan(1e-4);
    expect([lim[1], lim[2]]).toEqual([0, 0]);
    // off by default
    const quiet = setup(0.5);
    for (let i = 0; i < 10; i++) quiet.sim.step();
    expect(Array.from(quiet.sim.solver.joint_effort)).toEqual([0, 0, 0]);
  });

  it('slips at the same acceleration under monotone_decay once moving (its cost criterion ends the first step in the stiction well)', () => {
    const { sim, I, tauG } = setup(0.5, 'monotone_decay');
    sim.step();
    const v1 = Math.abs(sim.state.joint_qd[0]);
    for (let i = 1; i < 20; i++) sim.step();
    const alpha = (Math.abs(sim.state.joint_qd[0]) - v1) / (19 * 0.001);
    const expected = (0.5 * tauG) / I;
    expect(Math.abs(alpha - expected) / expected).toBeLessThan(0.01);
  });
});

function energyAndMomentum(sim: Simulation): { ke: number; L: number[] } {
  const m = sim.model;
  const s = sim.state;
  const R = new Float64Array(9);
  quatToMat3(s.body_q, 3, R, 0);
  const w = [s.body_qd[3], s.body_qd[4], s.body_qd[5]];
  // body-frame ω, I·ω, back to world
  const wb = [0, 1, 2].map((k) => R[k] * w[0] + R[3 + k] * w[1] + R[6 + k] * w[2]);
  const Iwb = [0, 1, 2].map(
    (r) =>
      m.body_inertia[r * 3] * wb[0] + m.body_inertia[r * 3 + 1] * wb[1] + m.body_inertia[r * 3 + 2] * wb[2],
  );
  const L = [0, 1, 2].map((r) => R[r * 3] * Iwb[0] + R[r * 3 + 1] * Iwb[1] + R[r * 3 + 2] * Iwb[2]);
  const v = [s.body_qd[0], s.body_qd[1], s.body_qd[2]];
  const ke =
    0.5 * m.body_mass[0] * (v[0] ** 2 + v[1] ** 2 + v[2] ** 2) +
    0.5 * (wb[0] * Iwb[0] + wb[1] * Iwb[1] + wb[2] * Iwb[2]);
  return { ke, L };
}

describe('free spinning body without gravity', () => {
  const run = (dt: number, integration: string) => {
    const sim = new Simulation(spinningBox(), {
      dt,
      solver: { contact_preset_variant: 'approx64', position_integration: integration },
    });
    sim.state.joint_qd.set([0.1, 0, 0.05, 0.3, 0.2, 1.0]);
    sim.solver.updateBodyState(sim.state);
    const e0 = energyAndMomentum(sim);
    const steps = Math.round(1 / dt);
    for (let i = 0; i < steps; i++) sim.step();
    const e1 = energyAndMomentum(sim);
    return {
      keRel: Math.abs(e1.ke - e0.ke) / e0.ke,
      dL: Math.hypot(e1.L[0] - e0.L[0], e1.L[1] - e0.L[1], e1.L[2] - e0.L[2]),
    };
  };
  it('keeps its kinetic energy under midpoint integration (1e-4 relative over 1 s)', () => {
    expect(run(0.001, 'midpoint').keRel).toBeLessThan(1e-4);
  });
  it('angular-momentum drift shrinks at the scheme order when dt halves (order ≥ 0.9)', () => {
    const a = run(0.004, 'midpoint').dL;
    const b = run(0.002, 'midpoint').dL;
    const order = Math.log2(a / b);
    expect(a).toBeGreaterThan(0);
    expect(order).toBeGreaterThanOrEqual(0.9);
  });
});

describe('10-box stack', () => {
  it('stays standing 5 s under drake (top box moves < 1 mm sideways)', () => {
    const m = boxStack(10);
    const dt = 0.005;
    const sim = new Simulation(m, {
      dt,
      solver: { contact_preset_variant: 'drake' },
      max_rigid_contact: 128,
    });
    const top = 9 * 7;
    const x0 = sim.state.joint_q[top],
      y0 = sim.state.joint_q[top + 1];
    for (let i = 0; i < 5 / dt; i++) sim.step();
    const dx = Math.hypot(sim.state.joint_q[top] - x0, sim.state.joint_q[top + 1] - y0);
    expect(dx).toBeLessThan(1e-3);
    expect(sim.state.joint_q[top + 2]).toBeGreaterThan(1.85);
  });

  it('Δprecision and Δmodel are finite and positive', () => {
    const m = boxStack(10);
    const sim = new Simulation(m, {
      dt: 0.005,
      solver: { contact_preset_variant: 'approx64' },
      max_rigid_contact: 128,
    });
    for (let i = 0; i < 20; i++) sim.step();
    sim.collision.collide(sim.state, sim.contacts);
    const r = new OneStepAblator(m).run(sim.state, sim.control, sim.contacts, 0.005);
    for (const d of [r.delta_precision.norm, r.delta_model.norm]) {
      expect(Number.isFinite(d)).toBe(true);
      expect(d).toBeGreaterThan(0);
    }
  });
});

describe('determinism', () => {
  it('the same scene and options give bit-identical states after 1000 steps', () => {
    const runOnce = () => {
      const sim = new Simulation(boxStack(3), { dt: 0.005, solver: { contact_preset_variant: 'approx32' } });
      sim.state.joint_qd[0] = 0.3;
      for (let i = 0; i < 1000; i++) sim.step();
      return (
        Buffer.from(sim.state.joint_q.buffer).toString('hex') +
        Buffer.from(sim.state.joint_qd.buffer).toString('hex')
      );
    };
    expect(runOnce()).toBe(runOnce());
  });
});
