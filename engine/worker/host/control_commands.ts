/**
 * The control commands: `set_control` (joint efforts, targets or actuator controls, per dof or in
 * every world), `hold_pose` and `control_sequence` (the loaded scene's {@link ControlHost}).
 */
import type { Command } from '../protocol';
import type { HostCore } from './context';

/** `set_control`: writes the values into the control field (indices checked) */
export function setControl(host: HostCore, cmd: Extract<Command, { type: 'set_control' }>): void {
  const sim = host.sim;
  if (!sim) return;
  if (cmd.dofs.length !== cmd.values.length) throw new Error('set_control: dofs and values differ in length');
  const arr = sim.control[cmd.field];
  const m = sim.model;
  const actuators = cmd.field === 'actuator_ctrl';
  const perWorld = actuators ? m.actuator_count / m.num_worlds : m.world_dof_start[1] - m.world_dof_start[0];
  const what = actuators ? 'actuator' : 'dof';
  for (let i = 0; i < cmd.dofs.length; i++) {
    const d = cmd.dofs[i];
    if (d >= arr.length)
      throw new Error(`set_control: ${what} ${d} out of range (${arr.length} ${what.toUpperCase()}s)`);
    if (cmd.all_worlds && d < perWorld) {
      for (let w = 0; w < m.num_worlds; w++)
        arr[(actuators ? w * perWorld : m.world_dof_start[w]) + d] = cmd.values[i];
    } else arr[d] = cmd.values[i];
  }
}

/** `hold_pose` on or off (control_host.ts); a WebGPU backend is rebuilt with the new drives */
export function holdPose(host: HostCore, on: boolean): void {
  const sim = host.sim;
  if (!sim || !host.controls) return;
  host.controls.setHold(sim, on);
  host.backend.rebuild(sim);
  host.publish.stats(true);
}

/** `control_sequence`: plays or stops the scene's control sequence (when it has one) */
export function playControlSequence(host: HostCore, playing: boolean): void {
  if (host.controls) host.controls.sequencePlaying = playing && host.controls.sequence !== undefined;
  host.publish.stats(true);
}
