/** the step's stages: precision realization, contact Jacobians and weights, containment, PD drives */
import { describe, expect, it } from 'vitest';
import { makeRng } from '../math';
import { ModelBuilder } from '../model';
import { makeState } from '../kinematics';
import { makeControl } from '../state';
import { SapCollisionPipeline } from '../collision/pipeline';
import { transformPoint } from '../math';
import type { SapConstraintSpec } from '../sap/problem';
import { buildContactConstraints, type ContactRecord } from './contact_jacobian';
import { Simulation } from './simulation';
import { SolverSAP } from './step';
import { boxOnGround, boxStack } from './test_scenes';

const isF32 = (x: number) => Math.fround(x) === x;

describe('precision knobs (CPU realization)', () => {
  it('free_motion_solve_precision fp32: v* is exactly fp32 and differs from fp64', () => {
    const m = boxStack(3);
    const run = (p: string) => {
      const sim = new Simulation(m, {
        dt: 0.005,
        solver: { contact_preset_variant: 'approx64', free_motion_solve_precision: p },
      });
      sim.state.joint_qd.set([0.1234567, 0.2, -0.3, 0.4, 0.5, 0.6], 0);
      sim.step();
      return sim.solver as unknown as { v_star: Float64Array };
    };
    const v32 = run('fp32').v_star;
    const v64 = run('fp64').v_star;
    for (const x of v32) expect(isF32(x)).toBe(true);
    let differs = false;
    for (let i = 0; i < v32.length; i++) if (v32[i] !== v64[i]) differs = true;
    expect(differs).toBe(true);
    for (let i = 0; i < v32.length; i++)
      expect(Math.abs(v32[i] - v64[i])).toBeLessThan(1e-5 * (1 + Math.abs(v64[i])));
  });

  it('every single fp32 knob changes the solution, and only slightly', () => {
    const m = boxOnGround({ half: [0.13, 0.07, 0.053], density: 173.3, mu: 0.37 });
    const v = (opts: Record<string, unknown>) => {
      const sim = new Simulation(m, {
        dt: 0.005,
        solver: { contact_preset_variant: 'approx64', optimality_rel_tol: 1e-10, ...opts },
      });
      sim.state.joint_qd.set([0.31, -0.17, 0, 0.1, 0.2, 0.7]);
      for (let i = 0; i < 10; i++) sim.step();
      return Array.from(sim.state.joint_qd);
    };
    const ref = v({});
    for (const key of [
      'free_motion_solve_precision',
      'contact_linear_solve_precision',
      'sap_contact_weight_precision',
      'contact_solve_precision',
    ]) {
      const alt = v({ [key]: 'fp32' });
      const d = Math.max(...alt.map((x, i) => Math.abs(x - ref[i])));
      expect(d, key).toBeGreaterThan(0);
      expect(d, key).toBeLessThan(1e-3);
    }
    const alt = v({ use_f64_boundary_pose: false });
    expect(Math.max(...alt.map((x, i) => Math.abs(x - ref[i])))).toBeLessThan(1e-3);
  });
});

describe('contact Jacobian and weights', () => {
  /** two free spheres touching, one of them on the ground, with random velocities */
  function twoSpheres() {
    const b = new ModelBuilder();
    const s0 = b.addBody({ label: 'lower', X_wb: [0, 0, 0.1, 0, 0, 0, 1] });
    b.addShape({ body: s0, type: 'sphere', size: [0.1, 0, 0], cfg: { density: 700, ke: 2e5 } });
    b.addJoint({ type: 'free', parent: -1, child: s0 });
    const s1 = b.addBody({ label: 'upper', X_wb: [0.05, 0.02, 0.27, 0, 0, 0, 1] });
    b.addShape({
      body: s1,
      type: 'sphere',
      size: [0.08, 0, 0],
      X_bs: [0.01, 0, 0, 0, 0, 0, 1],
      cfg: { density: 300, ke: 7e5 },
    });
    b.addJoint({ type: 'free', parent: -1, child: s1 });
    b.addGround();
    return b.finalize();
  }

  for (const mode of ['witness_point', 'contact_midpoint'] as const) {
    it(`${mode}: Σ J_c·v_c equals R_WCᵀ[V₁(x₁) − V₀(x₀)] computed from body velocities`, () => {
      const m = twoSpheres();
      const state = makeState(m);
      const rnd = makeRng(11);
      for (let k = 0; k < state.joint_qd.length; k++) state.joint_qd[k] = rnd() - 0.5;
      const solver = new SolverSAP(m, { contact_point_mode: mode, contact_preset_variant: 'approx64' });
      solver.updateBodyState(state);
      const col = new SapCollisionPipeline(m, { rigid_contact_max: 8 });
      const contacts = col.contacts();
      col.collide(state, contacts);
      expect(contacts.count[0]).toBe(2);
      const internal = solver as unknown as {
        kin: Parameters<typeof buildContactConstraints>[1];
        v_n: Float64Array;
        stage: Parameters<typeof buildContactConstraints>[5];
      };
      // refresh the solver's kinematics and internal velocities at this state
      solver.step(state, makeState(m), makeControl(m), contacts, 1e-6);
      solver.updateBodyState(state);
      const specs: SapConstraintSpec[] = [];
      const records: ContactRecord[] = [];
      const cliqueIndex = Int32Array.from([0, 1]);
      const Adiag = new Float64Array(m.joint_dof_count).fill(1);
      buildContactConstraints(
        m,
        internal.kin,
        contacts,
        0,
        solver.options,
        internal.stage,
        Adiag,
        cliqueIndex,
        specs,
        records,
      );
      const pointVel = (b: number, x: ArrayLike<number>) => {
        if (b < 0) return [0, 0, 0];
        const c = [state.body_q[b * 7] + 0, state.body_q[b * 7 + 1], state.body_q[b * 7 + 2]];
        // COM of a body: pose ⊕ com (the spheres' COM is at the shape offset)
        const com = [c[0] + m.body_com[b * 3], c[1] + m.body_com[b * 3 + 1], c[2] + m.body_com[b * 3 + 2]];
        const v = state.body_qd.subarray(b * 6, b * 6 + 6);
        const r = [x[0] - com[0], x[1] - com[1], x[2] - com[2]];
        return [
          v[0] + v[4] * r[2] - v[5] * r[1],
          v[1] + v[5] * r[0] - v[3] * r[2],
          v[2] + v[3] * r[1] - v[4] * r[0],
        ];
      };
      for (let i = 0; i < specs.length; i++) {
        const spec = specs[i];
        if (spec.kind !== 'contact') continue;
        const slot = records[i].slot;
        const b0 = contacts.body0[slot],
          b1 = contacts.body1[slot];
        // world witness points, and the Jacobian's velocity points
        const wp = (b: number, p: Float64Array) => {
          if (b < 0) return Array.from(p.subarray(slot * 3, slot * 3 + 3));
          const q = state.body_q.subarray(b * 7, b * 7 + 7);
          const out = new Float64Array(3);
          transformPoint(q, 0, p, slot * 3, out, 0);
          return Array.from(out);
        };
        const x0 = wp(b0, contacts.point0),
          x1 = wp(b1, contacts.point1);
        let pa = x0,
          pb = x1;
        if (mode === 'contact_midpoint') {
          const a0 = contacts.ke0[slot] / (contacts.ke0[slot] + contacts.ke1[slot]);
          pa = pb = x0.map((v, k) => a0 * v + (1 - a0) * x1[k]);
        }
        const va = pointVel(b0, pa),
          vb = pointVel(b1, pb);
        const rel = [vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]];
        const frame = records[i].frame;
        const expected = [0, 1, 2].map(
          (r) => frame[r * 3] * rel[0] + frame[r * 3 + 1] * rel[1] + frame[r * 3 + 2] * rel[2],
        );
        const jv = [0, 0, 0];
        spec.cliques.forEach((c, k) => {
          const J = spec.J[k];
          const nv = J.length / 3;
          for (let r = 0; r < 3; r++)
            for (let d = 0; d < nv; d++) jv[r] += J[r * nv + d] * internal.v_n[c * 6 + d];
        });
        for (let r = 0; r < 3; r++) expect(Math.abs(jv[r] - expected[r])).toBeLessThan(1e-12);
        // the frame is orthonormal with z = n
        expect(frame[6]).toBeCloseTo(contacts.normal[slot * 3], 15);
      }
    });
  }

  it('body_inertia weight of a point-like sphere on the ground is 1/m + (2/5 m r²)⁻¹·r²·(2/3)', () => {
    const b = new ModelBuilder();
    const s = b.addBody({ X_wb: [0, 0, 0.1, 0, 0, 0, 1] });
    b.addShape({ body: s, type: 'sphere', size: [0.1, 0, 0], cfg: { density: 1000 } });
    b.addJoint({ type: 'free', parent: -1, child: s });
    b.addGround();
    const m = b.finalize();
    const state = makeState(m);
    const solver = new SolverSAP(m, { contact_preset_variant: 'approx64' });
    solver.updateBodyState(state);
    const col = new SapCollisionPipeline(m, { rigid_contact_max: 4 });
    const contacts = col.contacts();
    col.collide(state, contacts);
    const internal = solver as unknown as {
      kin: Parameters<typeof buildContactConstraints>[1];
      stage: Parameters<typeof buildContactConstraints>[5];
    };
    solver.step(state, makeState(m), makeControl(m), contacts, 1e-6);
    const specs: SapConstraintSpec[] = [];
    buildContactConstraints(
      m,
      internal.kin,
      contacts,
      0,
      solver.options,
      internal.stage,
      new Float64Array(6).fill(1),
      Int32Array.from([0]),
      specs,
      [],
    );
    const mass = m.body_mass[0],
      r = 0.1,
      I = 0.4 * mass * r * r;
    // lever arm r along −z: the two tangent directions each add r²/I, the normal adds 0
    const expected = (3 / mass + (2 * r * r) / I) / 3;
    expect((specs[0] as { w: number }).w).toBeCloseTo(expected, 12);
  });
});

describe('containment of numerical blow-ups', () => {
  it('a NaN in one world is reported with the quantity; other worlds step normally', () => {
    const m = boxStack(2, 0.1, 0.6, 3);
    const sim = new Simulation(m, { dt: 0.005 });
    sim.state.joint_qd[m.world_dof_start[1] + 2] = NaN;
    const r = sim.step();
    expect(r.status).toBe('invalid_input');
    expect(r.worlds[1].status).toBe('invalid_input');
    expect(r.worlds[1].nonfinite).toMatch(/v/);
    expect(r.worlds[0].status).not.toBe('invalid_input');
    expect(r.worlds[2].status).not.toBe('invalid_input');
    for (let k = m.world_coord_start[0]; k < m.world_coord_start[1]; k++)
      expect(Number.isFinite(sim.state.joint_q[k])).toBe(true);
  });
});

describe('PD drives and feed-forward', () => {
  function hinge(ke: number, kd: number, effort: number) {
    const b = new ModelBuilder();
    b.gravity = [0, 0, -9.81];
    const link = b.addBody({ X_wb: [0, 0, 1, 0, 0, 0, 1] });
    b.addShape({
      body: link,
      type: 'box',
      size: [0.25, 0.02, 0.02],
      X_bs: [0.25, 0, 0, 0, 0, 0, 1],
      cfg: { density: 1000 },
    });
    b.addJoint({
      type: 'revolute',
      parent: -1,
      child: link,
      axis: [0, 1, 0],
      X_p: [0, 0, 1, 0, 0, 0, 1],
      target_ke: ke,
      target_kd: kd,
      effort_limit: effort,
    });
    return b.finalize();
  }
  it('holds a horizontal link: steady PD torque equals the gravity torque m·g·d', () => {
    const m = hinge(5000, 50, 1000);
    const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
    for (let i = 0; i < 1000; i++) sim.step();
    const mgd = m.body_mass[0] * 9.81 * 0.25;
    // revolute about +y: gravity on a link along +x rotates it by +θ (x toward −z); PD pushes back
    const q = sim.state.joint_q[0];
    expect(Math.abs(5000 * q - mgd) / mgd).toBeLessThan(0.01);
  });
  it('an effort limit below the gravity torque lets the link fall', () => {
    const m = hinge(5000, 50, 0.1);
    const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
    for (let i = 0; i < 500; i++) sim.step();
    expect(sim.state.joint_q[0]).toBeGreaterThan(0.5);
  });
  it('feed-forward effort joins the PD effort (u0): with ff = m·g·d the link holds at q = 0', () => {
    const m = hinge(5000, 50, 1000);
    const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
    sim.control.joint_f[0] = -m.body_mass[0] * 9.81 * 0.25;
    for (let i = 0; i < 1000; i++) sim.step();
    expect(Math.abs(sim.state.joint_q[0])).toBeLessThan(1e-5);
  });
  it('without a drive, feed-forward effort accelerates the joint (free motion)', () => {
    const b = new ModelBuilder();
    b.gravity = [0, 0, 0];
    const link = b.addBody({ X_wb: [0, 0, 1, 0, 0, 0, 1] });
    b.addShape({ body: link, type: 'sphere', size: [0.1, 0, 0], cfg: { density: 1000 } });
    b.addJoint({ type: 'prismatic', parent: -1, child: link, axis: [1, 0, 0], X_p: [0, 0, 1, 0, 0, 0, 1] });
    const m = b.finalize();
    const sim = new Simulation(m, { dt: 0.01, solver: { contact_preset_variant: 'approx64' } });
    sim.control.joint_f[0] = 2;
    for (let i = 0; i < 100; i++) sim.step();
    expect(sim.state.joint_qd[0]).toBeCloseTo((2 / m.body_mass[0]) * 1, 9);
  });
});

describe('joint limits', () => {
  it('a prismatic joint falling onto its lower limit stops there (within the compliance)', () => {
    const b = new ModelBuilder();
    const link = b.addBody({ X_wb: [0, 0, 1, 0, 0, 0, 1] });
    b.addShape({ body: link, type: 'sphere', size: [0.1, 0, 0], cfg: { density: 1000 } });
    b.addJoint({
      type: 'prismatic',
      parent: -1,
      child: link,
      axis: [0, 0, 1],
      X_p: [0, 0, 1, 0, 0, 0, 1],
      limit_lower: -0.2,
      limit_upper: 0.2,
      limit_ke: 1e6,
      limit_kd: 1e3,
    });
    const m = b.finalize();
    const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
    for (let i = 0; i < 1000; i++) sim.step();
    const q = sim.state.joint_q[0];
    expect(q).toBeLessThan(-0.2 + 1e-9 + 0);
    expect(q).toBeGreaterThan(-0.2 - (m.body_mass[0] * 9.81) / 1e6 - 1e-4);
    expect(Math.abs(sim.state.joint_qd[0])).toBeLessThan(1e-4);
  });
});

describe('stage timing', () => {
  it('times every stage by default; stage_timing = false reads no clock and changes no result', () => {
    const run = (timed: boolean) => {
      const sim = new Simulation(boxStack(3), { dt: 2e-3 });
      sim.stage_timing = timed;
      const reports = [];
      for (let i = 0; i < 20; i++) reports.push(sim.step());
      return { sim, reports };
    };
    const on = run(true);
    const off = run(false);
    expect(on.reports.some((r) => r.timing.total > 0 && r.timing.solve > 0)).toBe(true);
    for (const r of off.reports) {
      const t = r.timing;
      expect([t.free_motion, t.constraints, t.solve, t.integrate, t.total, t.collision]).toEqual([
        0, 0, 0, 0, 0, 0,
      ]);
    }
    expect(Array.from(off.sim.state.joint_q)).toEqual(Array.from(on.sim.state.joint_q));
  });
});
