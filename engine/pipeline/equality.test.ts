/** equality constraints (coupler, ball, weld) hold in simulation */
import { describe, expect, it } from 'vitest';
import { f64, transformPoint } from '../math';
import { ModelBuilder } from '../model';
import { Simulation } from './simulation';
import { hinge, rod } from './test_scenes';

describe('equality constraints', () => {
  it('coupler: q₀ = 2·q₁ + 0.1 holds between two separate trees', () => {
    const b = new ModelBuilder();
    const a = rod(b, 'a', 0);
    const c = rod(b, 'c', 1);
    const ja = hinge(b, a, -1, [0, 1, 0], [0, 0, 2]);
    const jc = hinge(b, c, -1, [0, 1, 0], [1, 0, 2]);
    b.jointQ(ja)[0] = 0.5;
    b.addEquality({ type: 'coupler', joint0: ja, joint1: jc, ratio: 2, offset: 0.1 });
    const m = b.finalize();
    const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
    for (let i = 0; i < 1000; i++) sim.step();
    const [q0, q1] = sim.state.joint_q;
    expect(Math.abs(q0 - 2 * q1 - 0.1)).toBeLessThan(1e-3);
    expect(Math.abs(q1)).toBeGreaterThan(0.01); // it actually moved
  });

  it('ball: a free body hangs from a pendulum tip, anchors stay within 1 mm', () => {
    const b = new ModelBuilder();
    const a = rod(b, 'a', 0);
    hinge(b, a, -1, [0, 1, 0], [0, 0, 2]);
    const f = b.addBody({ label: 'f', X_wb: [0, 0, 1.5, 0, 0, 0, 1] });
    b.addShape({
      body: f,
      type: 'box',
      size: [0.05, 0.05, 0.2],
      X_bs: [0, 0, -0.2, 0, 0, 0, 1],
      cfg: { density: 500 },
    });
    b.addJoint({ type: 'free', parent: -1, child: f });
    b.addEquality({ type: 'ball', body0: a, body1: f, anchor0: [0, 0, -0.5], anchor1: [0, 0, 0] });
    const m = b.finalize();
    const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
    sim.state.joint_qd[0] = 2; // swing: the constraint picks the hanging body up at the first step
    let worst = 0;
    const pa = new Float64Array(3),
      pf = new Float64Array(3);
    for (let i = 0; i < 1000; i++) {
      sim.step();
      transformPoint(sim.state.body_q, 0, f64([0, 0, -0.5]), 0, pa, 0);
      transformPoint(sim.state.body_q, 7, f64([0, 0, 0]), 0, pf, 0);
      if (i > 50) worst = Math.max(worst, Math.hypot(pa[0] - pf[0], pa[1] - pf[1], pa[2] - pf[2]));
    }
    expect(worst).toBeLessThan(1e-3);
    expect(Math.abs(sim.state.joint_q[0])).toBeGreaterThan(0.01);
    expect(Math.abs(sim.state.joint_q[0])).toBeLessThan(1.5); // no energy blow-up
  });

  it('weld: a free box welded to the world holds its pose under gravity (< 1 mm, < 1 mrad)', () => {
    const b = new ModelBuilder();
    const f = b.addBody({ label: 'f', X_wb: [0.3, 0.2, 1, 0, 0, 0.2588190451, 0.9659258263] });
    b.addShape({
      body: f,
      type: 'box',
      size: [0.3, 0.1, 0.05],
      X_bs: [0.2, 0, 0, 0, 0, 0, 1],
      cfg: { density: 500 },
    });
    b.addJoint({ type: 'free', parent: -1, child: f });
    b.addEquality({ type: 'weld', body0: -1, body1: f, anchor0: [0.3, 0.2, 1], anchor1: [0, 0, 0] });
    const m = b.finalize();
    const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
    const q0 = Array.from(sim.state.joint_q);
    for (let i = 0; i < 1000; i++) sim.step();
    const q = sim.state.joint_q;
    expect(Math.hypot(q[0] - q0[0], q[1] - q0[1], q[2] - q0[2])).toBeLessThan(1e-3);
    const dot = Math.abs(q[3] * q0[3] + q[4] * q0[4] + q[5] * q0[5] + q[6] * q0[6]);
    expect(2 * Math.acos(Math.min(1, dot))).toBeLessThan(1e-3);
  });
});
