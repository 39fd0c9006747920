/**
 * Pose ring over a SharedArrayBuffer (used when the page is cross-origin isolated, SPEC §7).
 *
 *   bytes 0‥31     Int32 header: [0] latest published sequence number (−1: none), [1] slots, [2] floats
 *   bytes 32‥      Float64 meta, 2 per slot: simulated time [s], step number
 *   then           Float32 poses, `floats` per slot (7 per body: p, q xyzw)
 *
 * The worker writes frame `seq` into slot `seq % slots` and then publishes `seq` with an atomic store;
 * the reader loads the latest sequence atomically and copies that slot. A slot is overwritten only
 * `slots` publications later, so a reader that copies within a few frames never sees a torn frame;
 * {@link RingReader.read} double-checks and reports a torn copy as missing.
 */

const HEADER_BYTES = 32;

/** bytes needed for a ring */
export function ringBytes(slots: number, floats: number): number {
  return HEADER_BYTES + slots * 16 + slots * floats * 4;
}

interface RingViews {
  header: Int32Array;
  meta: Float64Array;
  poses: Float32Array;
  slots: number;
  floats: number;
}

function views(buffer: SharedArrayBuffer | ArrayBuffer, slots: number, floats: number): RingViews {
  if (buffer.byteLength < ringBytes(slots, floats)) throw new Error('ring buffer too small');
  return {
    header: new Int32Array(buffer, 0, 8),
    meta: new Float64Array(buffer, HEADER_BYTES, slots * 2),
    poses: new Float32Array(buffer, HEADER_BYTES + slots * 16, slots * floats),
    slots,
    floats,
  };
}

/** the worker's side */
export class RingWriter {
  readonly buffer: SharedArrayBuffer;
  private readonly v: RingViews;

  constructor(
    readonly slots: number,
    readonly floats: number,
    buffer?: SharedArrayBuffer,
  ) {
    this.buffer = buffer ?? new SharedArrayBuffer(ringBytes(slots, floats));
    this.v = views(this.buffer, slots, floats);
    this.v.header[1] = slots;
    this.v.header[2] = floats;
    Atomics.store(this.v.header, 0, -1);
  }

  /** writes frame `seq` from float64 poses (length ≥ floats) and publishes it */
  publish(seq: number, time: number, step: number, poses: ArrayLike<number>): void {
    const { slots, floats } = this.v;
    const slot = seq % slots;
    this.v.meta[slot * 2] = time;
    this.v.meta[slot * 2 + 1] = step;
    const base = slot * floats;
    const dst = this.v.poses;
    for (let i = 0; i < floats; i++) dst[base + i] = poses[i];
    Atomics.store(this.v.header, 0, seq);
  }
}

export interface RingFrame {
  seq: number;
  time: number;
  step: number;
  poses: Float32Array;
}

/** the main thread's side; `read()` copies the newest frame into a reused array */
export class RingReader {
  private readonly v: RingViews;
  private readonly out: Float32Array;
  private lastSeq = -1;

  constructor(buffer: SharedArrayBuffer | ArrayBuffer) {
    const h = new Int32Array(buffer, 0, 8);
    this.v = views(buffer, h[1], h[2]);
    this.out = new Float32Array(h[2]);
  }

  /** the latest published sequence number (−1 before the first) */
  latestSeq(): number {
    return Atomics.load(this.v.header, 0);
  }

  /** the newest frame, or null when none is published or it was torn while copying */
  read(): RingFrame | null {
    const seq = this.latestSeq();
    if (seq < 0) return null;
    const { slots, floats } = this.v;
    const slot = seq % slots;
    this.out.set(this.v.poses.subarray(slot * floats, slot * floats + floats));
    const time = this.v.meta[slot * 2];
    const step = this.v.meta[slot * 2 + 1];
    if (this.latestSeq() - seq >= slots - 1) return null; // overwritten while copying
    this.lastSeq = seq;
    return { seq, time, step, poses: this.out };
  }

  /** whether a frame newer than the last read one is available */
  hasNew(): boolean {
    return this.latestSeq() > this.lastSeq;
  }
}
