/**
 * Jumps of the live state: `reset` (to the initial state), `seek` (to a step kept in the history
 * ring), and restart support, `snapshot` (the state for the app to keep) and `restore` (a kept
 * state put back, e.g. after a dead worker was restarted). After a jump the contacts are empty, the
 * drag is released, the sampling, containment and trajectory mode start afresh and a frame and
 * stats are published.
 */
import { clearContacts } from '../../collision/contacts';
import type { Simulation } from '../../pipeline';
import { PROTOCOL_VERSION, type Command } from '../protocol';
import type { HostCore } from './context';

/** the bookkeeping every jump shares, after the state was set */
function afterJump(host: HostCore, sim: Simulation, restartPacer: boolean): void {
  host.containment.clear();
  if (restartPacer) host.pacer.restart();
  // the contact buffer belongs to the step that produced it: empty until the next step
  clearContacts(sim.contacts);
  host.ablation.restartTrajectory();
  host.publish.frame();
  host.publish.stats(true);
}

/** `reset`: the initial state and controls, an empty history */
export function resetState(host: HostCore): void {
  const sim = host.sim;
  if (!sim) return;
  sim.reset();
  sim.control.joint_f.fill(0);
  sim.control.joint_target_pos.set(sim.model.joint_target_pos);
  sim.control.joint_target_vel.set(sim.model.joint_target_vel);
  sim.control.actuator_ctrl.set(sim.model.actuator_ctrl0);
  host.controls?.afterReset(sim);
  host.drag = null;
  host.stepCount = 0;
  host.lastReport = null;
  host.ablation.restartSampling();
  host.history?.clear();
  host.history?.push(0, sim.state.time, sim.state.joint_q, sim.state.joint_qd);
  afterJump(host, sim, true);
}

/** `seek`: pauses and goes back to the history ring's snapshot at or before `step` (none: no-op) */
export function seekState(host: HostCore, step: number): void {
  const sim = host.sim;
  const snap = host.history?.find(step);
  if (!sim || !snap) return;
  host.setPlaying(false);
  sim.state.joint_q.set(snap.q);
  sim.state.joint_qd.set(snap.qd);
  sim.state.time = snap.time;
  sim.state.body_f.fill(0);
  sim.solver.updateBodyState(sim.state);
  host.drag = null;
  host.stepCount = snap.step;
  host.ablation.restartSampling();
  afterJump(host, sim, false);
}

/** `snapshot`: the current state, for the app to keep (restarting a dead worker restores it) */
export function sendSnapshot(host: HostCore): void {
  const sim = host.sim;
  if (!sim) return;
  const joint_q = sim.state.joint_q.slice();
  const joint_qd = sim.state.joint_qd.slice();
  host.emit(
    {
      v: PROTOCOL_VERSION,
      type: 'snapshot',
      step: host.stepCount,
      time: sim.state.time,
      num_worlds: sim.model.num_worlds,
      joint_q,
      joint_qd,
    },
    [joint_q.buffer, joint_qd.buffer],
  );
}

/** `restore`: puts a kept state back (lengths checked against the model) and publishes it */
export function restoreState(host: HostCore, cmd: Extract<Command, { type: 'restore' }>): void {
  const sim = host.sim;
  if (!sim) throw new Error('restore: no scene loaded');
  const m = sim.model;
  if (cmd.joint_q.length !== m.joint_coord_count || cmd.joint_qd.length !== m.joint_dof_count) {
    throw new Error(
      `restore: the state has ${cmd.joint_q.length} coordinates and ${cmd.joint_qd.length} velocities; the model has ${m.joint_coord_count} and ${m.joint_dof_count}`,
    );
  }
  sim.state.joint_q.set(cmd.joint_q);
  sim.state.joint_qd.set(cmd.joint_qd);
  sim.state.time = cmd.time;
  sim.state.body_f.fill(0);
  sim.solver.updateBodyState(sim.state);
  host.stepCount = cmd.step;
  host.drag = null;
  host.ablation.restartSampling();
  host.history?.clear();
  host.history?.push(cmd.step, cmd.time, sim.state.joint_q, sim.state.joint_qd);
  afterJump(host, sim, true);
}
