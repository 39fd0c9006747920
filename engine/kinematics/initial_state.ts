/** a fresh state whose body arrays already agree with its joints (forward kinematics applied) */
import type { SapModel } from '../model';
import { allocState, type SapState } from '../state';
import { writeBodyState } from './body_state';
import { makeKinematicsData } from './data';
import { forwardKinematics, forwardVelocity, velocityPublicToInternal } from './fk';

/**
 * A state at the model's initial configuration (joint_q0, joint_qd0, time0) with body_q and
 * body_qd from forward kinematics, so collision and the step can read it at once. Allocates; use
 * {@link allocState} for scratch buffers that a step overwrites.
 */
export function makeState(m: SapModel): SapState {
  const s = allocState(m);
  updateBodyArrays(m, s);
  return s;
}

/** fills body_q and body_qd of `s` from its joint_q and joint_qd (allocates its own scratch) */
export function updateBodyArrays(m: SapModel, s: SapState): void {
  const kin = makeKinematicsData(m);
  forwardKinematics(m, s.joint_q, kin);
  const v = new Float64Array(m.joint_dof_count);
  velocityPublicToInternal(m, kin, s.joint_qd, v);
  forwardVelocity(m, v, kin);
  writeBodyState(m, kin, s.body_q, s.body_qd);
}
