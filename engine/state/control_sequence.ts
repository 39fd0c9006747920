/**
 * A scene's control sequence (SAP Warp's `control:` block): joint targets and efforts sampled at a
 * fixed period, held between samples (zero-order hold), played against the simulated time. The data
 * is in the model's DOF order over all worlds; `engine/io/scene/control.ts` builds it from a control
 * file and `engine/pipeline/control_sequence.ts` writes it into a {@link SapControl} each step.
 */

/** one played array of a control sequence: `frame_count` rows of the model's `joint_dof_count` values */
export interface ControlTrack {
  /** the sample period [s] */
  readonly sample_dt: number;
  /** rows in `values` (at least 1) */
  readonly frame_count: number;
  /**
   * (frame_count × joint_dof_count) row-major samples in the model's DOF order over all worlds
   * [rad, m, rad/s, m/s, N or N·m, by the track's array and the DOF]
   */
  readonly values: Float64Array;
}

/** a named instant of the sequence (SAP Warp's `keyframes`), for the studio's timeline */
export interface ControlKeyframe {
  /** [s] from the start of the sequence */
  readonly time: number;
  readonly label: string;
}

export interface ControlSequence {
  /** the control file's `name` (or its file name) */
  readonly name: string;
  /** the control file, as the scene names it (`control.source`) */
  readonly source: string;
  /** replay from the start after the last sample instead of holding it */
  readonly loop: boolean;
  /** PD position targets over time (SAP Warp plays only this array) */
  readonly joint_target_pos: ControlTrack | null;
  /** PD velocity targets over time (an extension: SAP Warp's loader does not read it) */
  readonly joint_target_vel: ControlTrack | null;
  /** feed-forward efforts over time (an extension: SAP Warp's loader does not read it) */
  readonly joint_f: ControlTrack | null;
  /** how long the sequence lasts: the longest track's frame_count × sample_dt [s] */
  readonly duration: number;
  readonly keyframes: readonly ControlKeyframe[];
}

/**
 * The row of `track` that holds at time `t` [s] from the start of the sequence, as SAP Warp's
 * player picks it: ⌊t / sample_dt + 1e-9⌋, wrapped when `loop`, else clamped to the last row.
 */
export function controlSampleIndex(track: ControlTrack, t: number, loop: boolean): number {
  let i = Math.floor(t / track.sample_dt + 1e-9);
  if (i < 0) i = 0;
  if (loop) return i % track.frame_count;
  return i < track.frame_count ? i : track.frame_count - 1;
}
