/**
 * SapState (per step, double-buffered) and SapControl (user input), SPEC §3.1.
 *
 * Public convention at this boundary: free-joint velocities are [v_C (COM, world); ω (world)];
 * ball-joint ω is expressed in the parent joint frame; quaternions are xyzw. Body arrays are
 * derived by forward kinematics and written by every step.
 */
import type { SapModel } from '../model';

export interface SapState {
  /** (joint_coord_count) generalized positions */
  joint_q: Float64Array;
  /** (joint_dof_count) generalized velocities, public convention */
  joint_qd: Float64Array;
  /** (body_count × 7) world pose of each body frame [m, -] */
  body_q: Float64Array;
  /** (body_count × 6) [v_COM (world) [m/s]; ω (world) [rad/s]] */
  body_qd: Float64Array;
  /** (body_count × 6) external wrench [f (world) [N]; τ about the COM (world) [N·m]], held until cleared */
  body_f: Float64Array;
  /** simulated time [s] */
  time: number;
}

export interface SapControl {
  /** (joint_dof_count) feed-forward joint effort [N·m or N]; joins the PD effort limit on driven DOFs */
  joint_f: Float64Array;
  /** (joint_dof_count) PD position targets [rad or m] */
  joint_target_pos: Float64Array;
  /** (joint_dof_count) PD velocity targets [rad/s or m/s] */
  joint_target_vel: Float64Array;
  /** (actuator_count) controls of the length actuators (tendon, slider-crank), MuJoCo's ctrl */
  actuator_ctrl: Float64Array;
}

/**
 * a state at the model's initial joint configuration with its body arrays zero (not yet
 * consistent with the joints): scratch for a step to write. `makeState` (engine/kinematics) gives
 * a state whose body poses and velocities are filled by forward kinematics.
 */
export function allocState(m: SapModel): SapState {
  return {
    joint_q: Float64Array.from(m.joint_q0),
    joint_qd: Float64Array.from(m.joint_qd0),
    body_q: new Float64Array(m.body_count * 7),
    body_qd: new Float64Array(m.body_count * 6),
    body_f: new Float64Array(m.body_count * 6),
    time: m.time0,
  };
}

/** the model's default control */
export function makeControl(m: SapModel): SapControl {
  return {
    joint_f: new Float64Array(m.joint_dof_count),
    joint_target_pos: Float64Array.from(m.joint_target_pos),
    joint_target_vel: Float64Array.from(m.joint_target_vel),
    actuator_ctrl: Float64Array.from(m.actuator_ctrl0),
  };
}

/** copies every array of `src` into `dst` (same model) */
export function copyState(src: SapState, dst: SapState): void {
  dst.joint_q.set(src.joint_q);
  dst.joint_qd.set(src.joint_qd);
  dst.body_q.set(src.body_q);
  dst.body_qd.set(src.body_qd);
  dst.body_f.set(src.body_f);
  dst.time = src.time;
}

/** copies every array of `src` into `dst` (same model) */
export function copyControl(src: SapControl, dst: SapControl): void {
  dst.joint_f.set(src.joint_f);
  dst.joint_target_pos.set(src.joint_target_pos);
  dst.joint_target_vel.set(src.joint_target_vel);
  dst.actuator_ctrl.set(src.actuator_ctrl);
}

/** a deep copy */
export function cloneState(s: SapState): SapState {
  return {
    joint_q: s.joint_q.slice(),
    joint_qd: s.joint_qd.slice(),
    body_q: s.body_q.slice(),
    body_qd: s.body_qd.slice(),
    body_f: s.body_f.slice(),
    time: s.time,
  };
}
