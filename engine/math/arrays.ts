/** typed-array helpers */

/** a Float64Array copy of plain numbers (for the vector helpers, outside hot paths) */
export function f64(x: ArrayLike<number>): Float64Array {
  return Float64Array.from(x);
}

/**
 * whether a and b hold the same doubles bit for bit over a[from..to) (default: a's length; −0 and +0
 * differ; NaN never matches, so a state holding one is never taken for an earlier one)
 */
export function sameBits(a: Float64Array, b: Float64Array, from = 0, to = a.length): boolean {
  for (let i = from; i < to; i++) {
    const x = a[i];
    if (x !== b[i] || (x === 0 && 1 / x !== 1 / b[i])) return false;
  }
  return true;
}

/**
 * below this many entries a loop beats the typed arrays' native copy and fill: a builtin call costs
 * ~13 ns against ~4 ns for a few stores (and a copy of part of an array would need a subarray view,
 * an allocation)
 */
const RUN_LOOP_MAX = 64;

/**
 * dst[at .. at + n) = src[0 .. n) (element indices; a Uint8 source widens into an Int32 target):
 * the typed arrays' native copy for long runs, a loop for short ones
 */
export function copyRun(
  dst: Int32Array | Float64Array | Uint8Array,
  at: number,
  src: Int32Array | Uint8Array | Float64Array,
  n: number,
): void {
  if (n <= RUN_LOOP_MAX) for (let k = 0; k < n; k++) dst[at + k] = src[k];
  else if (src.length === n) dst.set(src, at);
  else dst.set(src.subarray(0, n), at);
}

/** a[from .. to) = 0: the native fill for long runs, a loop for short ones */
export function zeroRun(a: Int32Array | Float64Array | Uint8Array, from: number, to: number): void {
  if (to - from <= RUN_LOOP_MAX) for (let k = from; k < to; k++) a[k] = 0;
  else a.fill(0, from, to);
}
