/**
 * `solve_islands` in the pipeline: separate box stacks are separate islands (the ground couples
 * nothing); solved island by island they rest where the whole solve puts them, carry their weight
 * (Σ f_n = m·g), and the WebAssembly kernels still match their JS twins bit for bit.
 */
import { describe, expect, it } from 'vitest';
import type { LinalgKernels } from '../sap/linalg/wasm/kernels';
import { Simulation } from './simulation';
import { boxStacks } from './test_scenes';

const STACKS = 3;
const PER_STACK = 3;
const DT = 2e-3;

function run(solver: Record<string, unknown>, steps: number, kernels: LinalgKernels = 'wasm') {
  const sim = new Simulation(boxStacks(STACKS, PER_STACK), { dt: DT, solver });
  sim.solver.kernels = kernels;
  const islands: (number | undefined)[] = [];
  const q: number[][] = [];
  for (let i = 0; i < steps; i++) {
    const r = sim.step();
    expect(r.status).toBe('converged');
    islands.push(r.worlds[0].islands);
    q.push(Array.from(sim.state.joint_q));
  }
  return { sim, islands, q };
}

describe('solve_islands in the pipeline', () => {
  for (const preset of ['approx32', 'drake']) {
    it(`separate stacks rest as the whole solve rests them (${preset})`, () => {
      const on = run({ contact_preset_variant: preset, solve_islands: true }, 150);
      const off = run({ contact_preset_variant: preset }, 150);
      expect(on.islands.every((n) => n === STACKS)).toBe(true);
      expect(off.islands.every((n) => n === undefined)).toBe(true);
      // same resting heights (the iterates differ only within the solver tolerance)
      const a = on.q[on.q.length - 1];
      const b = off.q[off.q.length - 1];
      for (let k = 0; k < a.length; k++) expect(Math.abs(a[k] - b[k])).toBeLessThan(1e-6);

      // every stack carries its weight through the ground contacts
      const m = on.sim.model;
      const c = on.sim.contacts;
      let mass = 0;
      for (let bd = 0; bd < m.body_count; bd++) mass += m.body_mass[bd];
      let fz = 0;
      for (let s = 0; s < c.count[0]; s++) {
        if (c.body0[s] >= 0 && c.body1[s] >= 0) continue;
        // force on body 1; the ground is body 0 (−1) or body 1
        fz += c.body0[s] < 0 ? c.force[3 * s + 2] : -c.force[3 * s + 2];
      }
      expect(fz / (mass * 9.81)).toBeCloseTo(1, 2);
    });
  }

  it('WebAssembly kernels = JS kernels with islands, bit for bit', () => {
    const opts = { contact_preset_variant: 'approx32', solve_islands: true };
    const w = run(opts, 60, 'wasm');
    const j = run(opts, 60, 'js');
    for (let i = 0; i < w.q.length; i++) expect(w.q[i], `step ${i}`).toEqual(j.q[i]);
  });

  it('labels every body with its constraint island when track_islands is on', () => {
    const sim = new Simulation(boxStacks(STACKS, PER_STACK), { dt: DT });
    sim.step();
    expect(Array.from(sim.solver.body_island).every((k) => k === -1)).toBe(true); // off by default
    sim.solver.track_islands = true;
    sim.step();
    // one island per stack, numbered by their first body (the stacks are built in order)
    const want = Array.from({ length: STACKS * PER_STACK }, (_, b) => Math.floor(b / PER_STACK));
    expect(Array.from(sim.solver.body_island)).toEqual(want);
  });
});
