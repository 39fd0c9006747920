/**
 * The 'accelerated' warm start (engine/pipeline/warm_start.ts): the history it keeps, when it
 * applies, what it saves on a robot falling over, and that it changes where Newton starts, not
 * where it ends.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModelFile } from '../io/load_file';
import { SHARED_ASSETS } from '../io/testing_assets';
import { makeState } from '../kinematics';
import { cloneState, copyState } from '../state';
import { Simulation } from './simulation';
import { boxStack, sphereOnGround } from './test_scenes';
import { WarmStartHistory, type WarmStart } from './warm_start';

describe('WarmStartHistory', () => {
  it('extrapolates only a state it recorded, at the same dt', () => {
    const m = sphereOnGround(0.1, 0.5);
    const h = new WarmStartHistory(m);
    const s = makeState(m);
    const v1 = Float64Array.from([1, 2, 3, 4, 5, 6]);
    const out = new Float64Array(6).fill(-7);
    const flags = new Uint8Array(1);
    expect(h.extrapolate(s, v1, 0.01, out, flags)).toBe(false);
    expect(Array.from(out)).toEqual([-7, -7, -7, -7, -7, -7]);
    h.record(Float64Array.from([0, 2, 2, 4, 6, 6]), s, 0.01);
    expect(h.extrapolate(s, v1, 0.01, out, flags)).toBe(true);
    expect(Array.from(out)).toEqual([2, 2, 4, 4, 4, 6]);
    expect(flags[0]).toBe(1);
    expect(h.extrapolate(s, v1, 0.02, out, flags)).toBe(false);
    const edited = cloneState(s);
    edited.joint_qd[3] = -0; // +0 → −0: not the recorded state
    expect(h.extrapolate(edited, v1, 0.01, out, flags)).toBe(false);
    edited.joint_qd[3] = 0;
    edited.joint_q[2] += 1e-12;
    expect(h.extrapolate(edited, v1, 0.01, out, flags)).toBe(false);
    h.clear();
    expect(h.extrapolate(s, v1, 0.01, out, flags)).toBe(false);
    expect(flags[0]).toBe(0);
  });

  it('judges each world on its own: an edited world starts from v_n, the others extrapolate', () => {
    const m = boxStack(1, 0.1, 0.6, 3);
    const h = new WarmStartHistory(m);
    const s = makeState(m);
    const v = new Float64Array(m.joint_dof_count).fill(1);
    const out = new Float64Array(m.joint_dof_count).fill(-7);
    const flags = new Uint8Array(3);
    h.record(new Float64Array(m.joint_dof_count), s, 0.01);
    const edited = cloneState(s);
    edited.joint_qd[m.world_dof_start[1]] = NaN;
    expect(h.extrapolate(edited, v, 0.01, out, flags)).toBe(true);
    expect(Array.from(flags)).toEqual([1, 0, 1]);
    for (let w = 0; w < 3; w++)
      for (let k = m.world_dof_start[w]; k < m.world_dof_start[w + 1]; k++)
        expect(out[k]).toBe(w === 1 ? -7 : 2);
  });
});

describe('accelerated warm start on the falling MuJoCo humanoid', () => {
  for (const preset of ['approx32', 'drake']) {
    it(`${preset}: fewer Newton iterations than starting from v_n, the same step from the same state`, async () => {
      const scene = await loadModelFile(path.join(SHARED_ASSETS, 'mujoco/humanoid/humanoid.xml'));
      const make = (w: WarmStart): Simulation => {
        const sim = new Simulation(scene.model, {
          dt: scene.dt,
          solver: { ...scene.solver, contact_preset_variant: preset },
          max_rigid_contact: scene.max_rigid_contact,
        });
        sim.solver.warm_start = w;
        return sim;
      };
      // fall for 0.5 s, then 100 steps (0.5 s) of the fall and the landing, from the same state
      const lead = make('previous');
      for (let i = 0; i < 100; i++) lead.step();
      const start = cloneState(lead.state);
      const iterations: Record<string, number> = {};
      for (const w of ['previous', 'accelerated'] as const) {
        const sim = make(w);
        copyState(start, sim.state);
        let it = 0;
        let extrapolated = 0;
        for (let i = 0; i < 100; i++) {
          const r = sim.step();
          expect(r.status).toBe('converged');
          it += r.iterations_mean;
          if (r.worlds[0].extrapolated_start) extrapolated++;
        }
        iterations[w] = it / 100;
        if (w === 'previous') expect(extrapolated).toBe(0);
        // (the first step has no history; after it, most steps start from the extrapolation)
        else expect(extrapolated).toBeGreaterThan(50);
      }
      // measured: approx32 3.6 → 2.2, drake 5.6 → 3.4 over windows of this fall
      expect(iterations.accelerated).toBeLessThan(0.8 * iterations.previous);

      // one step from the same state (history included) ends at the same velocities within the
      // solver's tolerance, whichever start Newton took
      const a = make('accelerated');
      copyState(start, a.state);
      for (let i = 0; i < 60; i++) a.step();
      const before = cloneState(a.state);
      const ra = a.step();
      expect(ra.worlds[0].extrapolated_start).toBe(true);
      const p = make('previous');
      copyState(before, p.state);
      p.step();
      let dv = 0;
      let vmax = 0;
      for (let k = 0; k < a.state.joint_qd.length; k++) {
        dv = Math.max(dv, Math.abs(a.state.joint_qd[k] - p.state.joint_qd[k]));
        vmax = Math.max(vmax, Math.abs(p.state.joint_qd[k]));
      }
      expect(dv).toBeLessThan(1e-4 * vmax); // measured: approx32 1e-5 (cost criterion), drake 1e-14
      // a state edited from outside is not extrapolated
      a.state.joint_qd[0] += 1e-9;
      expect(a.step().worlds[0].extrapolated_start).toBeUndefined();
    });
  }
});

describe('accelerated warm start on a rolling ball', () => {
  it('a ball rolling without slipping needs no more Newton iterations than from v_n', () => {
    const iterations: Record<string, number> = {};
    for (const w of ['previous', 'accelerated'] as const) {
      const sim = new Simulation(sphereOnGround(0.1, 0.5), { dt: 0.002 });
      sim.solver.warm_start = w;
      sim.state.joint_qd.set([1, 0, 0, 0, 10, 0]); // [v_COM; ω]: rolling at 1 m/s
      let it = 0;
      for (let i = 0; i < 200; i++) it += sim.step().iterations_mean;
      iterations[w] = it;
      expect(sim.state.joint_qd[0]).toBeCloseTo(1, 3);
    }
    expect(iterations.accelerated).toBeLessThanOrEqual(iterations.previous);
  });
});
