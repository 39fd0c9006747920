/**
 * Plays a {@link ControlSequence} into a {@link SapControl}: before each step, the row of every track
 * that holds at the step's start time is copied into the control's array (zero-order hold, as SAP
 * Warp's player). Allocation-free: a plain copy loop per track.
 */
import { controlSampleIndex, type ControlSequence, type ControlTrack } from '../state/control_sequence';
import type { SapControl } from '../state';

function copyRow(track: ControlTrack, t: number, loop: boolean, dst: Float64Array): void {
  const n = dst.length;
  const o = controlSampleIndex(track, t, loop) * n;
  const src = track.values;
  for (let k = 0; k < n; k++) dst[k] = src[o + k];
}

/**
 * Writes the sequence's samples at time `t` [s] from its start into `control` (only the arrays the
 * sequence has tracks for; the rest keep their values).
 */
export function applyControlSequence(seq: ControlSequence, control: SapControl, t: number): void {
  if (seq.joint_target_pos) copyRow(seq.joint_target_pos, t, seq.loop, control.joint_target_pos);
  if (seq.joint_target_vel) copyRow(seq.joint_target_vel, t, seq.loop, control.joint_target_vel);
  if (seq.joint_f) copyRow(seq.joint_f, t, seq.loop, control.joint_f);
}

/** the keyframe label in effect at time `t` [s] from the start (the last one at or before t), or null */
export function controlKeyframeAt(seq: ControlSequence, t: number): string | null {
  let tt = t;
  if (seq.loop && seq.duration > 0) tt = t % seq.duration;
  let label: string | null = null;
  for (const k of seq.keyframes) if (k.time <= tt + 1e-9) label = k.label;
  return label;
}
