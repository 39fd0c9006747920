/** shared helpers of the importer tests (not part of the public API): paths into ../shared, read in place */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SapModel } from '../model';

const here = path.dirname(fileURLToPath(import.meta.url));
/** the development asset set (`shared/assets`, MANIFEST.md) */
export const SHARED_ASSETS = path.resolve(here, '../../../shared/assets');
/** SAP Warp's reference folder (scenes and the offline asset mirror) */
export const SAP_WARP = path.resolve(here, '../../../shared/reference/sap_warp');

/** the MJCF (D1–D4) and URDF (U1–U4) models of MANIFEST.md */
export const MJCF_MODELS = {
  D1: 'mujoco/humanoid/humanoid.xml',
  D2: 'mujoco_menagerie/google_barkour_vb/scene.xml',
  D3: 'mujoco_menagerie/agility_cassie/scene.xml',
  D4: 'mujoco_menagerie/booster_t1/scene.xml',
} as const;
export const URDF_MODELS = {
  U1: 'mujoco_menagerie/google_barkour_vb/barkour_vb_rev_1_0_head_straight.urdf',
  U2: 'urdf-loaders/T12/urdf/T12.URDF',
  U3: 'newton-assets/franka_emika_panda/urdf/fr3_franka_hand.urdf',
  U4: 'newton/cartpole/cartpole.urdf',
} as const;

/** what {@link watchRun} needs from a Simulation (tests construct the real one) */
export interface SimLike {
  step(): unknown;
  state: { joint_q: Float64Array; joint_qd: Float64Array; body_q: Float64Array };
}

/** steps `steps` times; returns whether every state stayed finite and the lowest body-origin height */
export function watchRun(
  sim: SimLike,
  model: SapModel,
  steps: number,
): { finite: boolean; minZ: number; minBody: string; steps: number } {
  let minZ = Infinity;
  let minBody = '';
  for (let i = 0; i < steps; i++) {
    sim.step();
    const s = sim.state;
    if (
      !s.joint_q.every(Number.isFinite) ||
      !s.joint_qd.every(Number.isFinite) ||
      !s.body_q.every(Number.isFinite)
    ) {
      return { finite: false, minZ, minBody, steps: i + 1 };
    }
    for (let b = 0; b < model.body_count; b++) {
      const z = s.body_q[b * 7 + 2];
      if (z < minZ) [minZ, minBody] = [z, model.body_label[b]];
    }
  }
  return { finite: true, minZ, minBody, steps };
}
