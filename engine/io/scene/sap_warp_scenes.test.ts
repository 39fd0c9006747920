/**
 * All 12 SAP Warp example scenes load as a user runs them (`npm run sim -- run scenes/<s>.yaml`):
 * through `loadModelFile` with no asset root and an empty environment, so the folder beside the
 * scene (`../assets`, SAP Warp's layout) supplies the git-sourced assets, and leniently, so the
 * features the engine approximates are `unsupported: ` warnings (counted here). Each then runs 1000
 * steps at its own dt (one world) and must stay plausible: no invalid_input step, every state finite,
 * no body more than 5 mm below the ground after 0.1 s, every body within 3 m of its start and never
 * faster than 15 m/s or 60 rad/s, and everything below 1 m/s and 5 rad/s at the end.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../pipeline';
import { loadModelFile } from '../load_file';
import { SAP_WARP } from '../testing_assets';

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
  // the UR10's six UsdPhysics acceleration drives are honoured (gains scaled by M(q)_dd)
  ['universal_ur10_usd', 8, 6, 0],
];

const STEPS = 1000;
/** [m] farthest a body may end from its start (the H1 falls over: its shoulders travel ~2.1 m) */
const MAX_TRAVEL = 3;
/**
 * [m/s], [rad/s] fastest any body may move at any step (the ant's ankles start 30° outside their
 * limits, [30°, 100°], and snap in within 10 steps: its feet peak at 9.6 m/s and 34 rad/s)
 */
const MAX_SPEED = 15;
const MAX_SPIN = 60;
/** [m/s], [rad/s] fastest any body may move after the 1000 steps (every scene settles) */
const END_SPEED = 1;
const END_SPIN = 5;

describe('SAP Warp example scenes, loaded as the CLI loads them (assets from ../assets)', () => {
  for (const [name, bodies, dofs, unsupported] of TABLE) {
    it(`${name}: ${bodies} bodies, ${dofs} DOFs, ${unsupported} unsupported; ${STEPS} steps stay plausible`, async () => {
      const file = path.join(SAP_WARP, 'scenes', `${name}.yaml`);
      const t0 = performance.now();
      const s = await loadModelFile(file, { num_worlds: 1, env: {}, home: '/nonexistent-home' });
      const loadMs = performance.now() - t0;
      const m = s.model;
      expect(m.body_count).toBe(bodies);
      expect(m.joint_count).toBe(bodies);
      expect(m.joint_dof_count).toBe(dofs);
      expect(s.warnings.filter((w) => w.startsWith('unsupported: '))).toHaveLength(unsupported);

      const sim = new Simulation(m, { dt: s.dt, solver: s.solver, max_rigid_contact: s.max_rigid_contact });
      const start = sim.state.body_q.slice();
      let minZ = Infinity;
      let peakV = 0;
      let peakW = 0;
      const t1 = performance.now();
      for (let i = 0; i < STEPS; i++) {
        expect(sim.step().status).not.toBe('invalid_input');
        const { body_q, body_qd } = sim.state;
        for (let b = 0; b < m.body_count; b++) {
          peakV = Math.max(peakV, Math.hypot(body_qd[6 * b], body_qd[6 * b + 1], body_qd[6 * b + 2]));
          peakW = Math.max(peakW, Math.hypot(body_qd[6 * b + 3], body_qd[6 * b + 4], body_qd[6 * b + 5]));
          // body frame origins after the first 0.1 s (anymal_d's authored start has a foot 6.6 mm
          // into the ground; contact pushes it out within a few steps)
          if (sim.state.time >= 0.1) minZ = Math.min(minZ, body_q[7 * b + 2]);
        }
      }
      const stepsPerS = STEPS / ((performance.now() - t1) / 1000);
      const { joint_q, joint_qd, body_q, body_qd } = sim.state;
      for (const a of [joint_q, joint_qd, body_q, body_qd]) expect(a.every(Number.isFinite)).toBe(true);
      let travel = 0;
      let endV = 0;
      let endW = 0;
      for (let b = 0; b < m.body_count; b++) {
        const d = [0, 1, 2].map((k) => body_q[7 * b + k] - start[7 * b + k]);
        travel = Math.max(travel, Math.hypot(d[0], d[1], d[2]));
        endV = Math.max(endV, Math.hypot(body_qd[6 * b], body_qd[6 * b + 1], body_qd[6 * b + 2]));
        endW = Math.max(endW, Math.hypot(body_qd[6 * b + 3], body_qd[6 * b + 4], body_qd[6 * b + 5]));
      }
      expect(minZ).toBeGreaterThan(-0.005);
      expect(travel).toBeLessThan(MAX_TRAVEL);
      expect(peakV).toBeLessThan(MAX_SPEED);
      expect(peakW).toBeLessThan(MAX_SPIN);
      expect(endV).toBeLessThan(END_SPEED);
      expect(endW).toBeLessThan(END_SPIN);
      console.info(
        `${name}: load ${loadMs.toFixed(0)} ms, ${stepsPerS.toFixed(0)} steps/s, travel ${travel.toFixed(3)} m, ` +
          `peak ${peakV.toFixed(2)} m/s ${peakW.toFixed(2)} rad/s, end ${endV.toExponential(1)} m/s, ` +
          `${s.warnings.length} warnings`,
      );
    });
  }
});
