/** equality constraints (coupler, ball, weld) hold in simulation */
import { describe, expect, it } from 'vitest';
import { forwardKinematics, makeKinematicsData } from '../kinematics';
import { f64, transformPoint } from '../math';
import { ModelBuilder, type SapModel } from '../model';
import { PackedSapProblem, PHYS_STRIDE } from '../sap/packed_problem';
import { packEqualityConstraints } from './equality_constraints';
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

describe('packEqualityConstraints', () => {
  /** two 2-link hinge chains (trees 0 and 1) with every kind of equality between and within them */
  function chains(): { m: SapModel; eqs: string[] } {
    const b = new ModelBuilder();
    const a0 = rod(b, 'a0', 0);
    const a1 = rod(b, 'a1', 0, 1.5);
    const c0 = rod(b, 'c0', 1);
    const c1 = rod(b, 'c1', 1, 1.5);
    const ja0 = hinge(b, a0, -1, [0, 1, 0], [0, 0, 2]);
    const ja1 = hinge(b, a1, a0, [1, 0, 0], [0, 0, -0.5]);
    const jc0 = hinge(b, c0, -1, [1, 0, 0], [1, 0, 2]);
    hinge(b, c1, c0, [0, 1, 0], [0, 0, -0.5]);
    b.addEquality({ type: 'coupler', joint0: ja0, joint1: ja1, ratio: 1.5, offset: 0.05 });
    b.addEquality({ type: 'coupler', joint0: ja1, joint1: jc0, ratio: -0.7 });
    b.addEquality({ type: 'ball', body0: a1, body1: c1, anchor0: [0.01, 0.02, -0.5], anchor1: [0, 0, -0.5] });
    b.addEquality({ type: 'ball', body0: a0, body1: a1, anchor0: [0, 0.1, -0.3], anchor1: [0.05, 0, 0] });
    b.addEquality({ type: 'weld', body0: a1, body1: c1, anchor0: [0, 0, -0.5], anchor1: [0, 0, -0.25] });
    b.addEquality({ type: 'weld', body0: -1, body1: c1, anchor0: [1, 0, 1], anchor1: [0, 0, -0.5] });
    return { m: b.finalize(), eqs: ['coupler', 'coupler', 'ball', 'ball', 'weld', 'weld'] };
  }

  /** g₀ and J·v of every packed equality at q */
  function pack(
    m: SapModel,
    q: Float64Array,
    v: Float64Array,
  ): { g: number[][]; jv: number[][]; blocks: number[] } {
    const kin = makeKinematicsData(m);
    forwardKinematics(m, q, kin);
    const pp = new PackedSapProblem();
    pp.reset(0.002);
    const cliqueIndex = new Int32Array(m.tree_count);
    for (let t = 0; t < m.tree_count; t++)
      cliqueIndex[t] = pp.addClique(m.tree_dof_start[t + 1] - m.tree_dof_start[t], new Float64Array(0));
    packEqualityConstraints(m, kin, q, 0, cliqueIndex, pp);
    const g: number[][] = [],
      jv: number[][] = [],
      blocks: number[] = [];
    for (let i = 0; i < pp.nCon; i++) {
      const rows = pp.rows[i];
      g.push(Array.from(pp.phys.subarray(i * PHYS_STRIDE + 4, i * PHYS_STRIDE + 4 + rows)));
      const row = new Array<number>(rows).fill(0);
      for (let k = pp.blkStart[i]; k < pp.blkStart[i + 1]; k++) {
        const t = pp.blkClique[k]; // (clique index = tree index here)
        const nv = pp.cliqueNv[t];
        for (let r = 0; r < rows; r++)
          for (let c = 0; c < nv; c++)
            row[r] += pp.jData[pp.blkJ[k] + r * nv + c] * v[m.tree_dof_start[t] + c];
      }
      jv.push(row);
      blocks.push(pp.blkStart[i + 1] - pp.blkStart[i]);
    }
    return { g, jv, blocks };
  }

  it('writes J with J·v = dg/dt (central differences) for couplers, balls and welds, within and across trees', () => {
    const { m, eqs } = chains();
    for (const [scale, tolWeld] of [
      [0.3, Infinity],
      [1e-4, 1e-3],
    ] as const) {
      const q = f64([0.7, -0.4, 0.25, -0.55].map((x) => x * scale));
      const v = f64([0.9, -1.3, 0.6, 1.1]);
      const { g, jv, blocks } = pack(m, q, v);
      expect(blocks).toEqual([1, 2, 2, 1, 2, 1]);
      const h = 1e-6;
      const gp = pack(m, f64(Array.from(q, (x, k) => x + h * v[k])), v).g;
      const gm = pack(m, f64(Array.from(q, (x, k) => x - h * v[k])), v).g;
      eqs.forEach((kind, i) => {
        g[i].forEach((_, r) => {
          const fd = (gp[i][r] - gm[i][r]) / (2 * h);
          // couplers and balls: exact derivatives; welds: the twin twist of a near-satisfied weld
          const tol = kind === 'weld' ? tolWeld : 1e-6;
          if (tol < Infinity)
            expect(Math.abs(jv[i][r] - fd), `${kind} ${i} row ${r}`).toBeLessThan(tol * (1 + Math.abs(fd)));
        });
      });
      // a coupler's g: q₀ − ρ·q₁ − Δq
      expect(g[0][0]).toBeCloseTo(q[0] - 1.5 * q[1] - 0.05, 14);
    }
  });
});
