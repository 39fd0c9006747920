/**
 * The WebAssembly kernels (Newton evaluation, factorizations, sparse assembly) against their JS
 * twins on whole simulations: articulated contacts whose Jacobian blocks have structurally zero
 * columns, PD drives and springs, joint limits, a box stack on the block-sparse path. Trajectories
 * must agree bit for bit, step after step.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadModelFile } from '../io/load_file';
import { SHARED_ASSETS } from '../io/testing_assets';
import type { SapModel } from '../model';
import type { LinalgKernels } from '../sap/linalg/wasm/kernels';
import { Simulation } from './simulation';
import { boxStack } from './test_scenes';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  q: number[][];
  iterations: number[];
  contacts: number;
}

function run(
  model: SapModel,
  dt: number,
  solver: Record<string, unknown>,
  kernels: LinalgKernels,
  steps: number,
  linear_solver: 'auto' | 'block_sparse' = 'auto',
): Run {
  const sim = new Simulation(model, { dt, solver });
  sim.solver.kernels = kernels;
  sim.solver.linear_solver = linear_solver;
  expect(sim.solver.kernels).toBe(kernels);
  const out: Run = { q: [], iterations: [], contacts: 0 };
  for (let i = 0; i < steps; i++) {
    const r = sim.step();
    out.q.push([...sim.state.joint_q, ...sim.state.joint_qd]);
    out.iterations.push(r.iterations_max);
    out.contacts += r.worlds[0].contacts;
  }
  return out;
}

function expectSame(w: Run, j: Run): void {
  expect(w.iterations).toEqual(j.iterations);
  for (let i = 0; i < w.q.length; i++) expect(w.q[i], `step ${i}`).toEqual(j.q[i]);
}

describe('WebAssembly kernels = JS kernels on whole trajectories', () => {
  const SOLVERS: [string, Record<string, unknown>][] = [
    ['approx32', { contact_preset_variant: 'approx32' }],
    ['drake', { contact_preset_variant: 'drake', line_search_variant: 'exact_root' }],
    ['drake, monotone_decay', { contact_preset_variant: 'drake' }],
    ['approx64, fp32 contact solve', { contact_preset_variant: 'approx64', contact_solve_precision: 'fp32' }],
  ];
  for (const [preset, solver] of SOLVERS) {
    it(`MuJoCo humanoid falling onto the floor, ${preset}`, async () => {
      const scene = await loadModelFile(path.join(SHARED_ASSETS, 'mujoco/humanoid/humanoid.xml'));
      const w = run(scene.model, scene.dt, solver, 'wasm', 150);
      const j = run(scene.model, scene.dt, solver, 'js', 150);
      expect(w.contacts).toBeGreaterThan(100); // the comparison covers articulated contacts
      expectSame(w, j);
    });

    it(`7-DOF arm on PD drives, ${preset}`, async () => {
      const scene = await loadModelFile(path.join(ROOT, 'scenes/arm7.yaml'));
      expectSame(
        run(scene.model, scene.dt, solver, 'wasm', 60),
        run(scene.model, scene.dt, solver, 'js', 60),
      );
    });

    it(`stack of six boxes on the block-sparse path, ${preset}`, () => {
      const m = boxStack(6);
      const w = run(m, 2e-3, solver, 'wasm', 80, 'block_sparse');
      const j = run(m, 2e-3, solver, 'js', 80, 'block_sparse');
      expect(w.contacts).toBeGreaterThan(0);
      expectSame(w, j);
    });
  }
});

describe('WebAssembly kernel memory', () => {
  // growing a memory detaches its old buffer, which costs every later typed-array access of
  // optimized code a detach check (see WHOLE_PROBLEM_MEMORY): a pile on the block-sparse path must
  // fit the initial memories
  it('a falling 64-box pile (block-sparse, islands off and on) never grows a kernel memory', async () => {
    const scene = await loadModelFile(path.join(ROOT, 'scenes/pile_64.yaml'));
    const grow = WebAssembly.Memory.prototype.grow;
    const grown: number[] = [];
    WebAssembly.Memory.prototype.grow = function (this: WebAssembly.Memory, delta: number): number {
      grown.push(delta);
      return grow.call(this, delta);
    };
    try {
      let contacts = 0;
      let sparse = 0;
      for (const solve_islands of [false, true]) {
        const sim = new Simulation(scene.model, { dt: scene.dt, solver: { ...scene.solver, solve_islands } });
        for (let i = 0; i < 250; i++) {
          contacts += sim.step().contact_count;
          if (sim.solver.last_linear_solver.startsWith('block_sparse')) sparse++;
        }
      }
      expect(contacts).toBeGreaterThan(2000);
      expect(sparse).toBeGreaterThan(100); // the whole-problem kernels ran
      expect(grown).toEqual([]);
    } finally {
      WebAssembly.Memory.prototype.grow = grow;
    }
  });
});
