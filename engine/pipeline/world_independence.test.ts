/**
 * Worlds are independent (issue 54 item 6): a fault in one of 4 worlds leaves the other 3 bit for
 * bit where a run without the fault takes them. A world's step reads nothing of another world:
 * its free motion, constraints, Newton solve, warm start and stopping tests are its own.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModelFile } from '../io/load_file';
import type { SapModel } from '../model';
import { Simulation } from './simulation';
import { boxStack } from './test_scenes';

const root = path.resolve(__dirname, '../..');

/** a fault written into world w of a state between two steps */
type Fault = (sim: Simulation, w: number) => void;

const FAULTS: Record<string, Fault> = {
  'NaN velocity': (s, w) => {
    s.state.joint_qd[s.model.world_dof_start[w] + 2] = NaN;
  },
  'NaN position': (s, w) => {
    s.state.joint_q[s.model.world_coord_start[w] + 2] = NaN;
  },
  'infinite velocity': (s, w) => {
    s.state.joint_qd[s.model.world_dof_start[w]] = Infinity;
  },
  'NaN external force': (s, w) => {
    s.state.body_f[6 * s.model.world_joint_start[w] + 2] = NaN;
  },
  'a huge velocity (no non-finite value)': (s, w) => {
    s.state.joint_qd[s.model.world_dof_start[w] + 2] = -1e6;
  },
};

const FAULT_WORLD = 2;

/** joint_q, joint_qd and body_q of a world, as bits (so that −0, +0 and NaN payloads count) */
function worldBits(sim: Simulation, w: number): string {
  const m = sim.model;
  const parts = [
    sim.state.joint_q.slice(m.world_coord_start[w], m.world_coord_start[w + 1]),
    sim.state.joint_qd.slice(m.world_dof_start[w], m.world_dof_start[w + 1]),
    sim.state.body_q.slice(7 * m.world_joint_start[w], 7 * m.world_joint_start[w + 1]),
  ];
  return parts.map((a) => Buffer.from(a.buffer).toString('hex')).join('|');
}

function run(
  m: SapModel,
  dt: number,
  solver: Record<string, unknown>,
  steps: number,
  fault?: Fault,
): Simulation {
  const sim = new Simulation(m, { dt, solver });
  for (let i = 0; i < steps; i++) {
    if (fault && i === 10) fault(sim, FAULT_WORLD);
    const r = sim.step();
    for (let w = 0; w < m.num_worlds; w++)
      if (w !== FAULT_WORLD) expect(r.worlds[w].status).not.toBe('invalid_input');
  }
  return sim;
}

function expectIndependent(m: SapModel, dt: number, solver: Record<string, unknown>, steps: number): void {
  const ref = run(m, dt, solver, steps);
  for (const [name, fault] of Object.entries(FAULTS)) {
    const faulted = run(m, dt, solver, steps, fault);
    for (let w = 0; w < m.num_worlds; w++) {
      if (w === FAULT_WORLD) continue;
      expect(worldBits(faulted, w), `${name}: world ${w}`).toBe(worldBits(ref, w));
    }
  }
}

describe('a fault in one of 4 worlds leaves the other 3 bit-identical', () => {
  it('box stacks (contacts), each preset', () => {
    const m = boxStack(3, 0.1, 0.6, 4);
    for (const preset of ['approx32', 'approx64', 'drake'])
      expectIndependent(m, 0.005, { contact_preset_variant: preset }, 40);
  });

  it('box stacks, islands and each line search', () => {
    const m = boxStack(3, 0.1, 0.6, 4);
    for (const ls of ['monotone_decay', 'armijo_decay', 'exact_root'])
      expectIndependent(m, 0.005, { line_search_variant: ls, solve_islands: true }, 40);
  });

  it('ANYmal C (articulated, PD drives, limits, feet in contact)', async () => {
    const scene = await loadModelFile(
      path.join(root, '../shared/reference/sap_warp/scenes/anymal_c_urdf.yaml'),
      {
        num_worlds: 4,
        asset_root: path.join(root, '../shared/reference/sap_warp/assets'),
        env: {},
      },
    );
    expectIndependent(scene.model, scene.dt, scene.solver, 40);
  });

  it('the MuJoCo humanoid (tendons, limits, falling onto the ground)', async () => {
    const scene = await loadModelFile(path.join(root, '../shared/assets/mujoco/humanoid/humanoid.xml'), {
      num_worlds: 4,
    });
    expectIndependent(scene.model, scene.dt, scene.solver, 40);
  });
});
