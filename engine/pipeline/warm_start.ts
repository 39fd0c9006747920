/**
 * Warm start of the Newton solve (SPEC §3.2 step 4): where the SAP iterations begin.
 *
 * The previous solution v_n is the usual start (Drake). When a step continues the last one, the
 * last step's change of velocity predicts this one's: v_n + (v_n − v_{n−1}) = v_n + dt·a_{n−1},
 * MuJoCo's warm start from the last acceleration. It matters most where a body turns about a
 * contact that sticks: a free joint's internal velocity is (ω; v_M) in world coordinates, so a body
 * pivoting on a foot or a box edge turns v_M every step, and v_n held fixed slides the contact
 * (about 3 cm/s on the falling humanoid at dt = 5 ms) until Newton has undone it. A rolling body
 * keeps v_M, and the extrapolation keeps it too. After an impact the prediction can be worse than
 * v_n, so the solver starts from whichever of the two has the lower cost (as MuJoCo does with its
 * warm start and the smooth acceleration). The start only decides where Newton begins: the
 * solution meets the same tolerances either way.
 */
import { copyRun, sameBits, zeroRun } from '../math';
import type { SapModel } from '../model';
import type { SapState } from '../state';

/**
 * where the Newton solve starts: 'accelerated' (the lower-cost of v_n and v_n + (v_n − v_{n−1})
 * when the step continues the last one, else v_n; the default), 'previous' (v_n, Drake's choice)
 * or 'free_motion' (v*)
 */
export type WarmStart = 'accelerated' | 'previous' | 'free_motion';

/**
 * The last step's internal velocities v_n and the state it wrote, so that the next step can tell
 * whether it continues from there (bit-identical q and q̇, the same dt) and extrapolate. A state
 * set from outside (reset, scrubbing, an edited velocity) does not match and starts from v_n.
 */
export class WarmStartHistory {
  private readonly v_prev: Float64Array;
  private readonly q: Float64Array;
  private readonly qd: Float64Array;
  private dt = NaN;
  private valid = false;

  private readonly model: SapModel;

  constructor(m: SapModel) {
    this.model = m;
    this.v_prev = new Float64Array(m.joint_dof_count);
    this.q = new Float64Array(m.joint_coord_count);
    this.qd = new Float64Array(m.joint_dof_count);
  }

  /** whether `state_in` is the state the last recorded step wrote, with `dt` [s] unchanged */
  continues(state_in: SapState, dt: number): boolean {
    if (!(this.valid && dt === this.dt)) return false;
    return sameBits(state_in.joint_q, this.q) && sameBits(state_in.joint_qd, this.qd);
  }

  /**
   * v_alt = v_n + (v_n − v_{n−1}) into `out` for each world whose part of `state_in` is the part the
   * last recorded step wrote (at the same `dt`): `worlds[w]` is 1 for those, 0 for the others (their
   * part of `out` untouched). Worlds are judged one by one, so that a world edited or holding a
   * non-finite value leaves the others' warm start as it would be without it. True when any world
   * continues.
   */
  extrapolate(
    state_in: SapState,
    v_n: Float64Array,
    dt: number,
    out: Float64Array,
    worlds: Uint8Array,
  ): boolean {
    const m = this.model;
    zeroRun(worlds, 0, m.num_worlds);
    if (!(this.valid && dt === this.dt)) return false;
    const vp = this.v_prev;
    let any = false;
    for (let w = 0; w < m.num_worlds; w++) {
      const c0 = m.world_coord_start[w],
        d0 = m.world_dof_start[w],
        d1 = m.world_dof_start[w + 1];
      if (!sameBits(state_in.joint_q, this.q, c0, m.world_coord_start[w + 1])) continue;
      if (!sameBits(state_in.joint_qd, this.qd, d0, d1)) continue;
      for (let k = d0; k < d1; k++) out[k] = v_n[k] + (v_n[k] - vp[k]);
      worlds[w] = 1;
      any = true;
    }
    return any;
  }

  /**
   * records a finished step: its internal start velocities v_n (null where they are kept elsewhere,
   * the WebGPU backend's v_prev) and the state it wrote
   */
  record(v_n: Float64Array | null, state_out: SapState, dt: number): void {
    if (v_n !== null) copyRun(this.v_prev, 0, v_n, this.v_prev.length);
    copyRun(this.q, 0, state_out.joint_q, this.q.length);
    copyRun(this.qd, 0, state_out.joint_qd, this.qd.length);
    this.dt = dt;
    this.valid = true;
  }

  /** forgets the last step (the next one starts from v_n) */
  clear(): void {
    this.valid = false;
  }
}
