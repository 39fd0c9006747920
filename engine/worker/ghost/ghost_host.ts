/**
 * The MuJoCo ghost worker's logic (ghost_worker.ts is its shell): loads the scene the live
 * simulation loaded (same source, one world, the live time step), builds a {@link GhostSim} and
 * answers the app's messages. The app sends an `advance` per live frame it sees (the frame's step
 * and world 0's joint state); the ghost steps MuJoCo to that step (lockstep: the same dt, the same
 * number of steps) and answers with the comparison and its body poses. A live step behind the
 * ghost's (reset, seek, restore) or `resync` puts the live state back into MuJoCo first.
 */
import type { MujocoModule } from '../../cli/peers/mujoco';
import { loadAnyFile } from '../load_any';
import { DEFAULT_DRAG_STIFFNESS } from '../sim_host';
import type { SceneSource } from '../protocol';
import { GhostSim, ghostUnfit } from './ghost_sim';

/** app → ghost worker */
export type GhostRequest =
  | {
      type: 'load';
      source: SceneSource;
      /** the live time step [s] */
      dt: number;
      keyframe?: string | number;
    }
  | {
      type: 'advance';
      /** the live frame's step and time [s] */
      step: number;
      time: number;
      /** world 0's joint coordinates and velocities at that step (a frame's joints) */
      q: Float64Array;
      qd: Float64Array;
      /** put the live state into MuJoCo before comparing (the live state jumped) */
      resync?: boolean;
    }
  | {
      type: 'control';
      field: 'joint_f' | 'joint_target_pos' | 'joint_target_vel';
      dofs: number[];
      values: number[];
    }
  | { type: 'reset_control' }
  /** a drag (`perturb`: body −1 releases; stiffness per kilogram [N/m/kg]) */
  | { type: 'drag'; body: number; point?: number[]; target?: number[]; stiffness?: number }
  /** something the user did that the ghost does not mirror */
  | { type: 'note'; what: string };

/** ghost worker → app */
export type GhostReply =
  | { type: 'ready'; version: string; bodies: number; actuators: number; nq: number }
  | { type: 'unfit'; why: string }
  | {
      type: 'state';
      step: number;
      time: number;
      /** MuJoCo steps taken for this answer, and since the last sync */
      steps: number;
      steps_since_sync: number;
      /** ‖Δq‖ [m, rad] and the largest body-origin distance [m] against the live state */
      dq: number;
      dx_max: number;
      /** (body_count × 7) MuJoCo's body poses, p and q xyzw (NaN: not in MuJoCo) */
      poses: Float32Array;
      synced: boolean;
      not_mirrored: string[];
    }
  | { type: 'error'; message: string };

/** most MuJoCo steps one `advance` may take; a live run further ahead is synced instead */
export const MAX_GHOST_CATCH_UP = 20_000;

export class GhostHost {
  private sim: GhostSim | null = null;
  private poses = new Float32Array(0);
  /** MuJoCo holds a live state (the first advance after a load syncs) */
  private hasSynced = false;

  constructor(private readonly getMujoco: () => Promise<MujocoModule | string>) {}

  /** the simulation (tests) */
  get ghost(): GhostSim | null {
    return this.sim;
  }

  async handle(msg: GhostRequest): Promise<GhostReply | null> {
    try {
      switch (msg.type) {
        case 'load':
          return await this.load(msg);
        case 'advance':
          return this.advance(msg);
        case 'control':
          this.sim?.setControl(msg.field, msg.dofs, msg.values);
          return null;
        case 'reset_control':
          this.sim?.resetControl();
          return null;
        case 'drag':
          this.sim?.setDrag(
            msg.body >= 0 && msg.point && msg.target
              ? {
                  body: msg.body,
                  point: msg.point,
                  target: msg.target,
                  stiffness: msg.stiffness ?? DEFAULT_DRAG_STIFFNESS,
                }
              : null,
          );
          return null;
        case 'note':
          this.sim?.note(msg.what);
          return null;
      }
    } catch (e) {
      return { type: 'error', message: e instanceof Error ? e.message : String(e) };
    }
  }

  private async load(msg: Extract<GhostRequest, { type: 'load' }>): Promise<GhostReply> {
    this.sim?.dispose();
    this.sim = null;
    const mj = await this.getMujoco();
    if (typeof mj === 'string') return { type: 'unfit', why: mj };
    const files =
      msg.source.kind === 'text'
        ? new Map([[msg.source.file_name, new TextEncoder().encode(msg.source.text)]])
        : msg.source.files;
    const entry = msg.source.kind === 'text' ? msg.source.file_name : msg.source.entry;
    const loaded = await loadAnyFile(files, entry, { num_worlds: 1, dt: msg.dt, keyframe: msg.keyframe });
    const why = ghostUnfit(loaded.model);
    if (why) return { type: 'unfit', why };
    let sim: GhostSim;
    try {
      sim = new GhostSim(mj, loaded.model, msg.dt);
    } catch (e) {
      return {
        type: 'unfit',
        why: `MuJoCo cannot take this model: ${e instanceof Error ? e.message : String(e)}`,
      };
    }
    this.sim = sim;
    this.hasSynced = false;
    this.poses = new Float32Array(loaded.model.body_count * 7);
    return {
      type: 'ready',
      version: sim.version,
      bodies: loaded.model.body_count,
      actuators: sim.exp.actuatorDof.length,
      nq: sim.nq,
    };
  }

  private advance(msg: Extract<GhostRequest, { type: 'advance' }>): GhostReply | null {
    const sim = this.sim;
    if (!sim) return null;
    const nq = sim.model.joint_coord_count;
    const nv = sim.model.joint_dof_count;
    if (msg.q.length < nq || msg.qd.length < nv)
      throw new Error(
        `advance: the frame's joint state is shorter than the model's (${msg.q.length} < ${nq})`,
      );
    const q = msg.q.subarray(0, nq);
    const qd = msg.qd.subarray(0, nv);
    let synced = false;
    let steps = 0;
    if (msg.resync || !this.hasSynced || msg.step < sim.step || msg.step - sim.step > MAX_GHOST_CATCH_UP) {
      sim.sync(q, qd, msg.step, msg.time);
      this.hasSynced = true;
      synced = true;
    } else {
      steps = sim.advanceTo(msg.step);
    }
    const delta = sim.compare(q);
    sim.writePoses(this.poses);
    return {
      type: 'state',
      step: sim.step,
      time: msg.time,
      steps,
      steps_since_sync: sim.stepsSinceSync,
      dq: delta.dq,
      dx_max: delta.dxMax,
      // a copy (never a transfer: see protocol.ts on detached buffers)
      poses: this.poses.slice(),
      synced,
      not_mirrored: sim.notMirrored(),
    };
  }
}
