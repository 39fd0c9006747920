/**
 * History ring for scrubbing (SPEC §7): snapshots of (joint_q, joint_qd, time, step) in one
 * preallocated Float64Array. When full, the oldest snapshot is overwritten. Seeking to a snapshot and
 * stepping again drops the snapshots after it (a new branch of history).
 */
import { LIMITS } from '../io/limits';

/** most bytes the ring may hold */
export const HISTORY_MAX_BYTES = LIMITS.max_history_bytes;
/** most snapshots the ring keeps by default (fewer when HISTORY_MAX_BYTES holds fewer) */
export const HISTORY_MAX_STEPS = 4000;

/** the steps and simulated times [s] of a history ring's oldest and newest snapshots (NaN when empty) */
export interface HistoryRange {
  first_step: number;
  last_step: number;
  first_time: number;
  last_time: number;
}

/**
 * The simulated time [s] shown for `step` on a scrubber: the live `time` at the live `step`, else
 * interpolated between the ring's ends (exact while dt is constant; the step's own time arrives with
 * the seek).
 */
export function timeAtStep(
  step: number,
  live: { step: number; time: number; history: HistoryRange },
): number {
  if (step === live.step) return live.time;
  const h = live.history;
  const span = h.last_step - h.first_step;
  if (!(span > 0)) return h.first_time;
  return h.first_time + ((step - h.first_step) / span) * (h.last_time - h.first_time);
}

/** the ring's snapshots copied out, oldest first (n = `step.length`) */
export interface HistoryDump {
  /** (n) step numbers */
  step: Float64Array;
  /** (n) simulated times [s] */
  time: Float64Array;
  /** (n × nq) joint coordinates, all worlds, public convention */
  q: Float64Array;
  /** (n × nv) joint velocities, all worlds, public convention */
  qd: Float64Array;
}

export class HistoryRing {
  readonly capacity: number;
  private readonly stride: number;
  private readonly data: Float64Array;
  private readonly steps: Float64Array;
  /** index of the oldest snapshot and number stored */
  private head = 0;
  private size = 0;

  constructor(
    readonly nq: number,
    readonly nv: number,
    capacity = HISTORY_MAX_STEPS,
  ) {
    this.stride = nq + nv + 1;
    const fit = Math.floor(HISTORY_MAX_BYTES / 8 / this.stride);
    this.capacity = Math.max(2, Math.min(capacity, fit));
    this.data = new Float64Array(this.capacity * this.stride);
    this.steps = new Float64Array(this.capacity);
  }

  get length(): number {
    return this.size;
  }

  clear(): void {
    this.head = 0;
    this.size = 0;
  }

  private slot(i: number): number {
    return (this.head + i) % this.capacity;
  }

  /** appends a snapshot; a step not after the newest drops the newer ones first */
  push(step: number, time: number, q: ArrayLike<number>, qd: ArrayLike<number>): void {
    while (this.size > 0 && this.steps[this.slot(this.size - 1)] >= step) this.size--;
    let s: number;
    if (this.size < this.capacity) {
      s = this.slot(this.size);
      this.size++;
    } else {
      s = this.head;
      this.head = (this.head + 1) % this.capacity;
    }
    const o = s * this.stride;
    this.data[o] = time;
    for (let i = 0; i < this.nq; i++) this.data[o + 1 + i] = q[i];
    for (let i = 0; i < this.nv; i++) this.data[o + 1 + this.nq + i] = qd[i];
    this.steps[s] = step;
  }

  /** first and last stored step and time (NaN when empty) */
  range(): HistoryRange {
    if (this.size === 0) return { first_step: NaN, last_step: NaN, first_time: NaN, last_time: NaN };
    const a = this.slot(0),
      b = this.slot(this.size - 1);
    return {
      first_step: this.steps[a],
      last_step: this.steps[b],
      first_time: this.data[a * this.stride],
      last_time: this.data[b * this.stride],
    };
  }

  /** the stored snapshot nearest to `step` (at or before it when possible), or null when empty */
  find(step: number): { step: number; time: number; q: Float64Array; qd: Float64Array } | null {
    if (this.size === 0) return null;
    // binary search on the monotone step sequence
    let lo = 0,
      hi = this.size - 1;
    if (step <= this.steps[this.slot(0)]) hi = 0;
    else
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (this.steps[this.slot(mid)] <= step) lo = mid;
        else hi = mid - 1;
      }
    const s = this.slot(hi);
    const o = s * this.stride;
    return {
      step: this.steps[s],
      time: this.data[o],
      q: this.data.slice(o + 1, o + 1 + this.nq),
      qd: this.data.slice(o + 1 + this.nq, o + 1 + this.nq + this.nv),
    };
  }

  /**
   * copies the newest `last` snapshots (all when absent), oldest first: one copy per call, for an
   * export; the ring is unchanged
   */
  dump(last = this.size): HistoryDump {
    const n = Math.max(0, Math.min(this.size, Math.floor(last)));
    const out: HistoryDump = {
      step: new Float64Array(n),
      time: new Float64Array(n),
      q: new Float64Array(n * this.nq),
      qd: new Float64Array(n * this.nv),
    };
    for (let k = 0; k < n; k++) {
      const s = this.slot(this.size - n + k);
      const o = s * this.stride;
      out.step[k] = this.steps[s];
      out.time[k] = this.data[o];
      out.q.set(this.data.subarray(o + 1, o + 1 + this.nq), k * this.nq);
      out.qd.set(this.data.subarray(o + 1 + this.nq, o + 1 + this.nq + this.nv), k * this.nv);
    }
    return out;
  }
}
