/** typed-array helpers */

/** a Float64Array copy of plain numbers (for the vector helpers, outside hot paths) */
export function f64(x: ArrayLike<number>): Float64Array {
  return Float64Array.from(x);
}

/**
 * whether a and b hold the same doubles bit for bit over a's length (−0 and +0 differ; NaN never
 * matches, so a state holding one is never taken for an earlier one)
 */
export function sameBits(a: Float64Array, b: Float64Array): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (x !== b[i] || (x === 0 && 1 / x !== 1 / b[i])) return false;
  }
  return true;
}
