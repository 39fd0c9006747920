/**
 * The step's boundary with the public state (SPEC §3.2 steps 1 and 5): in, forward kinematics at
 * q_n, the internal velocities v_n, the applied forces and the boundary pose contact preparation
 * reads; out, the public state at q_{n+1} (joint_qd, body_q, body_qd, time).
 */
import type { SapContacts } from '../collision/contacts';
import {
  forwardKinematics,
  forwardVelocity,
  velocityInternalToPublic,
  velocityPublicToInternal,
  writeBodyState,
  type KinematicsData,
} from '../kinematics';
import { copyRun, sameBits, zeroRun } from '../math';
import type { SapModel } from '../model';
import type { SapSolverOptions } from '../sap/options';
import type { SapControl, SapState } from '../state';
import { appliedForces } from './free_motion';
import type { SapData } from './sap_data';
import { applyTransmissionForces } from './transmissions';
import type { WarmStart } from './warm_start';

/** forward kinematics of `q` into d.kin, skipped when d.kin already holds it */
export function kinematicsAt(m: SapModel, d: SapData, q: Float64Array): void {
  if (d.kin_q_valid && sameBits(q, d.kin_q)) return;
  forwardKinematics(m, q, d.kin);
  copyRun(d.kin_q, 0, q, q.length);
  d.kin_q_valid = true;
}

/**
 * Stage 1, boundary: kinematics at q_n, v_n from joint_qd, τ_applied (joint forces, springs,
 * transmissions), the extrapolated Newton start per world, and the kinematics contact preparation
 * reads. Returns those kinematics: d.kin, or d.kin_contact at the fp32-rounded pose.
 */
export function boundaryStage(
  m: SapModel,
  d: SapData,
  o: SapSolverOptions,
  state_in: SapState,
  control: SapControl,
  contacts: SapContacts,
  warm_start: WarmStart,
  dt: number,
): KinematicsData {
  kinematicsAt(m, d, state_in.joint_q);
  velocityPublicToInternal(m, d.kin, state_in.joint_qd, d.v_n);
  forwardVelocity(m, d.v_n, d.kin);
  appliedForces(m, d.kin, state_in.joint_q, control.joint_f, d.tau);
  if (m.spatial_count + m.actuator_count > 0) {
    const J = d.transmission_J;
    applyTransmissionForces(m, d.kin, state_in.joint_q, d.v_n, control.actuator_ctrl, d.tau, J);
  }
  // boundary pose for contact preparation (fp32 path rounds joint_q)
  // (only read per contact: skipped when no world has contacts)
  let kinC = d.kin;
  let anyContacts = false;
  for (let w = 0; w < m.num_worlds && !anyContacts; w++) anyContacts = (contacts.count[w] ?? 0) > 0;
  if (!o.use_f64_boundary_pose && anyContacts) {
    for (let k = 0; k < d.q_round.length; k++) d.q_round[k] = Math.fround(state_in.joint_q[k]);
    // contact preparation reads the poses, COMs and motion subspaces (not the world inertias) of
    // the bodies in contact and of their ancestors: the FK of those joints, unless `kin_contact`
    // already holds them at these joint_q
    const need = d.contact_joints;
    const covered = markContactJoints(m, contacts, need, d.kin_contact_joints);
    if (!(covered && d.kin_contact_q_valid && sameBits(d.q_round, d.kin_contact_q))) {
      forwardKinematics(m, d.q_round, d.kin_contact, 0, m.joint_count, false, need);
      d.kin_contact_q.set(d.q_round);
      d.kin_contact_joints.set(need);
      d.kin_contact_q_valid = true;
    }
    kinC = d.kin_contact;
  }

  // the extrapolated start, when this step continues the last one
  if (warm_start === 'accelerated') d.history.extrapolate(state_in, d.v_n, dt, d.v_alt, d.extrapolated);
  else zeroRun(d.extrapolated, 0, d.extrapolated.length);
  return kinC;
}

/**
 * Stage 7, public state: joint_qd, body_q and body_qd of state_out at its joint_q from d.v_next,
 * body_f carried over, time advanced by dt [s]; records the step for the next extrapolated start.
 */
export function publicStateStage(
  m: SapModel,
  d: SapData,
  state_in: SapState,
  state_out: SapState,
  dt: number,
): void {
  kinematicsAt(m, d, state_out.joint_q);
  velocityInternalToPublic(m, d.kin, d.v_next, state_out.joint_qd);
  forwardVelocity(m, d.v_next, d.kin);
  writeBodyState(m, d.kin, state_out.body_q, state_out.body_qd);
  if (state_out !== state_in) copyRun(state_out.body_f, 0, state_in.body_f, state_in.body_f.length);
  state_out.time = state_in.time + dt;
  d.history.record(d.v_n, state_out, dt);
}

/**
 * Flags in `need` the joints of every body in contact (all worlds) and of its ancestors (bodies are
 * joints: body j hangs from joint j); true when each of them is also flagged in `have`
 */
function markContactJoints(m: SapModel, contacts: SapContacts, need: Uint8Array, have: Uint8Array): boolean {
  zeroRun(need, 0, need.length);
  const parent = m.joint_parent;
  let covered = true;
  for (let w = 0; w < m.num_worlds; w++) {
    const n = contacts.count[w] ?? 0;
    for (let i = 0; i < n; i++) {
      const slot = w * contacts.capacity + i;
      if (!markAncestors(parent, contacts.body0[slot], need, have)) covered = false;
      if (!markAncestors(parent, contacts.body1[slot], need, have)) covered = false;
    }
  }
  return covered;
}

/** flags joint j and its unflagged ancestors in `need`; false when one of them is not in `have` */
function markAncestors(parent: Int32Array, j: number, need: Uint8Array, have: Uint8Array): boolean {
  let covered = true;
  for (; j >= 0 && need[j] === 0; j = parent[j]) {
    need[j] = 1;
    if (have[j] === 0) covered = false;
  }
  return covered;
}
