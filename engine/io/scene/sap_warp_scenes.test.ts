/**
 * All 12 SAP Warp example scenes load offline (assets from the reference mirror) and simulate 2 s at
 * their own dt without NaN, with no body more than 5 mm below the ground. One world each (some
 * scenes default to many worlds for throughput). Lenient mode: the features a scene uses that the
 * engine does not model are listed (and counted here), as strict mode would raise them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../pipeline';
import { NodeFsResolver } from '../assets/node_fs';
import { SAP_WARP } from '../testing_assets';
import { loadSceneAsync, parseSceneText } from './load';

/** scene → expected counts in one world: bodies (= joints), DOFs, unsupported features */
const TABLE: [string, number, number, number][] = [
  ['agilex_piper_urdf', 13, 8, 0],
  ['anymal_c_urdf', 78, 18, 0],
  ['anymal_d_usd', 17, 18, 0],
  ['basic_ant_usd', 9, 14, 0],
  ['basic_cartpole_usd', 3, 2, 0],
  ['franka_panda_cube_urdf', 15, 15, 0],
  ['franka_panda_urdf', 14, 9, 0],
  ['free_cube', 1, 6, 0],
  ['multi_joints', 6, 14, 0],
  ['unitree_g1_usd', 44, 49, 0],
  ['unitree_h1_usd', 20, 25, 0],
  ['universal_ur10_usd', 8, 6, 6],
];

describe('SAP Warp example scenes (offline)', () => {
  for (const [name, bodies, dofs, unsupported] of TABLE) {
    it(`${name}: ${bodies} bodies, ${dofs} DOFs; 2 s without NaN, nothing below −5 mm`, async () => {
      const file = path.join(SAP_WARP, 'scenes', `${name}.yaml`);
      const doc = parseSceneText(readFileSync(file, 'utf8'), file);
      const s = await loadSceneAsync(doc, {
        resolver: new NodeFsResolver(),
        asset_root: path.join(SAP_WARP, 'assets'),
        scene_path: file,
        strict: false,
        num_worlds: 1,
      });
      const m = s.model;
      expect(m.body_count).toBe(bodies);
      expect(m.joint_count).toBe(bodies);
      expect(m.joint_dof_count).toBe(dofs);
      expect(s.unsupported.length).toBe(unsupported);
      const sim = new Simulation(m, { dt: s.dt, solver: s.solver, max_rigid_contact: s.max_rigid_contact });
      // body frame origins after the first 0.1 s (anymal_d's authored start has a foot 6.6 mm into
      // the ground; contact pushes it out within a few steps)
      let minZ = Infinity;
      for (let i = 0; i < Math.round(2 / s.dt); i++) {
        expect(sim.step().status).not.toBe('invalid_input');
        if (sim.state.time < 0.1) continue;
        for (let b = 0; b < m.body_count; b++) minZ = Math.min(minZ, sim.state.body_q[b * 7 + 2]);
      }
      for (const x of sim.state.joint_q) expect(Number.isFinite(x)).toBe(true);
      expect(minZ).toBeGreaterThan(-0.005);
    });
  }
});
