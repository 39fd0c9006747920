/**
 * The worker's robot commanding: plays a scene's control sequence into the live control before each
 * step (until the user takes over), and "hold pose" for models without drives.
 *
 * Hold pose puts a PD drive on every revolute and prismatic joint at its current coordinate, with
 * gains scaled by the joint's effective inertia I = M_ii(q) (the diagonal of the joint-space mass
 * matrix with armature, at the pose where hold is switched on): ke = I·ω², kd = 2·I·ω (critically
 * damped), ω = 2π·{@link HOLD_FREQUENCY_HZ}, at most {@link HOLD_MAX_OMEGA_DT}/dt. Every joint then
 * settles alike (as an acceleration drive would, issue 51), whatever the inertia it carries. The
 * gains are written into the model's PD arrays (the CPU step reads them each step; the WebGPU backend
 * is rebuilt by the host) and restored when hold is switched off.
 */
import { crbaTree, makeCompositeScratch } from '../dynamics';
import { forwardKinematics, makeKinematicsData } from '../kinematics';
import { JointType, type SapModel } from '../model';
import { applyControlSequence, controlKeyframeAt, type Simulation } from '../pipeline';
import type { ControlSequence } from '../state/control_sequence';

/** hold pose: the natural frequency of every held joint [Hz] */
export const HOLD_FREQUENCY_HZ = 5;
/** hold pose: ω·dt at most this (the implicit PD is stable at any gain; this keeps it accurate) */
export const HOLD_MAX_OMEGA_DT = 0.5;

/** the worker's control status, as the studio shows it */
export interface ControlStatus {
  /** the scene's sequence: whether it drives the targets, its time [s] and keyframe; null: none */
  sequence: { playing: boolean; time: number; keyframe: string | null } | null;
  /** hold pose is on */
  hold: boolean;
}

/** hold-pose drives: per held DOF its coordinate index and gains [N·m/rad or N/m, N·m·s/rad or N·s/m] */
export interface HoldGains {
  dofs: number[];
  coords: number[];
  ke: number[];
  kd: number[];
}

/** hold-pose gains of every 1-DOF joint of `m` at the coordinates `q` (world by world) */
export function holdPoseGains(m: SapModel, q: Float64Array, dt: number): HoldGains {
  const kin = makeKinematicsData(m);
  forwardKinematics(m, q, kin);
  const comp = makeCompositeScratch(m);
  const omega = Math.min(2 * Math.PI * HOLD_FREQUENCY_HZ, HOLD_MAX_OMEGA_DT / dt);
  const out: HoldGains = { dofs: [], coords: [], ke: [], kd: [] };
  for (let t = 0; t < m.tree_count; t++) {
    const v0 = m.tree_dof_start[t];
    const n = m.tree_dof_start[t + 1] - v0;
    if (n === 0) continue;
    const M = new Float64Array(n * n);
    crbaTree(m, kin, t, comp, M);
    for (let j = m.tree_joint_start[t]; j < m.tree_joint_start[t + 1]; j++) {
      const type = m.joint_type[j];
      if (type !== JointType.REVOLUTE && type !== JointType.PRISMATIC) continue;
      const d = m.joint_qd_start[j];
      const I = M[(d - v0) * n + (d - v0)];
      out.dofs.push(d);
      out.coords.push(m.joint_q_start[j]);
      out.ke.push(I * omega * omega);
      out.kd.push(2 * I * omega);
    }
  }
  return out;
}

export class ControlHost {
  /** the sequence drives the targets (false: the user took over) */
  sequencePlaying: boolean;
  /** while holding: the held DOFs with the model's own gains, restored when hold is switched off */
  private held: HoldGains | null = null;

  constructor(
    private readonly model: SapModel,
    readonly sequence: ControlSequence | undefined,
  ) {
    this.sequencePlaying = sequence !== undefined;
  }

  /** the sequence's time at the simulated time `t` [s] */
  private seqTime(t: number): number {
    return t - this.model.time0;
  }

  /** writes the sequence's samples for the step about to start (allocation-free) */
  beforeStep(sim: Simulation): void {
    if (this.sequence && this.sequencePlaying)
      applyControlSequence(this.sequence, sim.control, this.seqTime(sim.state.time));
  }

  /** hold pose on: PD on every 1-DOF joint at the current coordinates; off: the model's own drives */
  setHold(sim: Simulation, on: boolean): void {
    const m = this.model;
    if (on && !this.held) {
      const g = holdPoseGains(m, sim.state.joint_q, sim.dt);
      this.held = {
        dofs: g.dofs,
        coords: g.coords,
        ke: g.dofs.map((d) => m.joint_target_ke[d]),
        kd: g.dofs.map((d) => m.joint_target_kd[d]),
      };
      g.dofs.forEach((d, i) => {
        m.joint_target_ke[d] = g.ke[i];
        m.joint_target_kd[d] = g.kd[i];
      });
      this.holdHere(sim);
    } else if (!on && this.held) {
      const h = this.held;
      h.dofs.forEach((d, i) => {
        m.joint_target_ke[d] = h.ke[i];
        m.joint_target_kd[d] = h.kd[i];
      });
      this.held = null;
    }
  }

  /** the held joints' targets: their current coordinates, at rest */
  private holdHere(sim: Simulation): void {
    const h = this.held;
    if (!h) return;
    h.dofs.forEach((d, i) => {
      sim.control.joint_target_pos[d] = sim.state.joint_q[h.coords[i]];
      sim.control.joint_target_vel[d] = 0;
    });
  }

  get holding(): boolean {
    return this.held !== null;
  }

  /** after a reset: the sequence's first samples, or the held pose's targets at the initial state */
  afterReset(sim: Simulation): void {
    if (this.held) this.holdHere(sim);
    this.beforeStep(sim);
  }

  status(t: number): ControlStatus {
    const s = this.sequence;
    return {
      sequence: s
        ? {
            playing: this.sequencePlaying,
            time: this.seqTime(t),
            keyframe: controlKeyframeAt(s, this.seqTime(t)),
          }
        : null,
      hold: this.held !== null,
    };
  }
}
