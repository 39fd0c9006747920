/**
 * Dense blocked (tiled) Cholesky LLᵀ factorization and solve on row-major matrices.
 *
 * Right-looking tiled algorithm: for each panel of `tile` columns, factor the diagonal tile,
 * solve the tiles below it, then apply the panel's rank-`tile` update to the trailing lower
 * triangle tile by tile. Every entry receives its updates one product at a time with k ascending,
 * s ← s − L_ik·L_jk, then L_ij = s / L_jj (L_jj = √s on the diagonal), so the result is identical
 * to the plain unblocked column-by-column Cholesky with the same per-entry order, in either
 * precision.
 *
 * Precision `fp32`: every + − × ÷ √ result is rounded with `Math.fround` (storage is normally a
 * `Float32Array`), which reproduces IEEE binary32 arithmetic bit for bit. Precision `fp64`: plain
 * doubles on a `Float64Array`.
 *
 * Only the lower triangle (row ≥ column) is read; the factor L overwrites it. A non-positive (or
 * NaN) pivot is reported in the return value, never thrown.
 */

import { LinalgWasm, type LinalgKernels } from './wasm/kernels';

/** realization of a linear solve */
export type LinearSolvePrecision = 'fp32' | 'fp64';

/** default tile edge (columns per panel) */
export const CHOLESKY_TILE = 16;

/** outcome of a factorization */
export type CholeskyStatus = 'ok' | 'not_spd';

/** status and, for `not_spd`, the index of the first non-positive pivot (−1 when ok) */
export interface CholeskyResult {
  status: CholeskyStatus;
  pivot: number;
}

const fr = Math.fround;

/**
 * Orders up to this use the row-oriented register-blocked kernels ({@link factorRows64},
 * {@link factorRows32}); larger ones the tiled right-looking kernels (better cache reuse). Both
 * realize the same per-entry operation order, so the choice never changes a result.
 */
export const CHOLESKY_SMALL_N = 96;

/**
 * Row-oriented (left-looking) Cholesky, two rows × two columns at a time: the four entries
 * (i, j), (i, j+1), (i+1, j), (i+1, j+1) accumulate their products over k < j together (four
 * independent chains instead of one, so the latency of each subtraction overlaps the others), then
 * finish with the k = j term. Each entry still receives s = a_ij, s −= l_ik·l_jk for k ascending,
 * l_ij = s/l_jj (l_jj = √s on the diagonal): bit-identical to the unblocked and tiled forms.
 * Returns the first non-positive pivot (−1 when SPD); pivots are checked in index order.
 */
function factorRows64(a: Float64Array, n: number): number {
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const r0 = i * n;
    const r1 = r0 + n;
    let j = 0;
    for (; j + 1 < i; j += 2) {
      const rj = j * n;
      const rk = rj + n;
      let s00 = a[r0 + j];
      let s01 = a[r0 + j + 1];
      let s10 = a[r1 + j];
      let s11 = a[r1 + j + 1];
      for (let k = 0; k < j; k++) {
        const x0 = a[r0 + k];
        const x1 = a[r1 + k];
        const y0 = a[rj + k];
        const y1 = a[rk + k];
        s00 -= x0 * y0;
        s01 -= x0 * y1;
        s10 -= x1 * y0;
        s11 -= x1 * y1;
      }
      const ljj = a[rj + j];
      const l0j = s00 / ljj;
      const l1j = s10 / ljj;
      a[r0 + j] = l0j;
      a[r1 + j] = l1j;
      const c = a[rk + j];
      s01 -= l0j * c;
      s11 -= l1j * c;
      const lkk = a[rk + j + 1];
      a[r0 + j + 1] = s01 / lkk;
      a[r1 + j + 1] = s11 / lkk;
    }
    if (j < i) {
      const rj = j * n;
      let s0 = a[r0 + j];
      let s1 = a[r1 + j];
      for (let k = 0; k < j; k++) {
        const y = a[rj + k];
        s0 -= a[r0 + k] * y;
        s1 -= a[r1 + k] * y;
      }
      const ljj = a[rj + j];
      a[r0 + j] = s0 / ljj;
      a[r1 + j] = s1 / ljj;
    }
    // (i, i) and (i+1, i), then (i+1, i+1)
    let d = a[r0 + i];
    let s1 = a[r1 + i];
    for (let k = 0; k < i; k++) {
      const x = a[r0 + k];
      d -= x * x;
      s1 -= a[r1 + k] * x;
    }
    if (!(d > 0)) return i;
    const lii = Math.sqrt(d);
    a[r0 + i] = lii;
    const l1i = s1 / lii;
    a[r1 + i] = l1i;
    let d1 = a[r1 + i + 1];
    for (let k = 0; k < i; k++) {
      const x = a[r1 + k];
      d1 -= x * x;
    }
    d1 -= l1i * l1i;
    if (!(d1 > 0)) return i + 1;
    a[r1 + i + 1] = Math.sqrt(d1);
  }
  if (i < n) {
    // last row alone
    const r0 = i * n;
    for (let j = 0; j < i; j++) {
      const rj = j * n;
      let s = a[r0 + j];
      for (let k = 0; k < j; k++) s -= a[r0 + k] * a[rj + k];
      a[r0 + j] = s / a[rj + j];
    }
    let d = a[r0 + i];
    for (let k = 0; k < i; k++) d -= a[r0 + k] * a[r0 + k];
    if (!(d > 0)) return i;
    a[r0 + i] = Math.sqrt(d);
  }
  return -1;
}

/** {@link factorRows64} with every + − × ÷ √ rounded to binary32 (same order as {@link factor32}) */
function factorRows32(a: Float32Array | Float64Array, n: number): number {
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const r0 = i * n;
    const r1 = r0 + n;
    let j = 0;
    for (; j + 1 < i; j += 2) {
      const rj = j * n;
      const rk = rj + n;
      let s00 = fr(a[r0 + j]);
      let s01 = fr(a[r0 + j + 1]);
      let s10 = fr(a[r1 + j]);
      let s11 = fr(a[r1 + j + 1]);
      for (let k = 0; k < j; k++) {
        const x0 = a[r0 + k];
        const x1 = a[r1 + k];
        const y0 = a[rj + k];
        const y1 = a[rk + k];
        s00 = fr(s00 - fr(x0 * y0));
        s01 = fr(s01 - fr(x0 * y1));
        s10 = fr(s10 - fr(x1 * y0));
        s11 = fr(s11 - fr(x1 * y1));
      }
      const ljj = a[rj + j];
      const l0j = fr(s00 / ljj);
      const l1j = fr(s10 / ljj);
      a[r0 + j] = l0j;
      a[r1 + j] = l1j;
      const c = a[rk + j];
      s01 = fr(s01 - fr(l0j * c));
      s11 = fr(s11 - fr(l1j * c));
      const lkk = a[rk + j + 1];
      a[r0 + j + 1] = fr(s01 / lkk);
      a[r1 + j + 1] = fr(s11 / lkk);
    }
    if (j < i) {
      const rj = j * n;
      let s0 = fr(a[r0 + j]);
      let s1 = fr(a[r1 + j]);
      for (let k = 0; k < j; k++) {
        const y = a[rj + k];
        s0 = fr(s0 - fr(a[r0 + k] * y));
        s1 = fr(s1 - fr(a[r1 + k] * y));
      }
      const ljj = a[rj + j];
      a[r0 + j] = fr(s0 / ljj);
      a[r1 + j] = fr(s1 / ljj);
    }
    let d = fr(a[r0 + i]);
    let s1 = fr(a[r1 + i]);
    for (let k = 0; k < i; k++) {
      const x = a[r0 + k];
      d = fr(d - fr(x * x));
      s1 = fr(s1 - fr(a[r1 + k] * x));
    }
    if (!(d > 0)) return i;
    const lii = fr(Math.sqrt(d));
    a[r0 + i] = lii;
    const l1i = fr(s1 / lii);
    a[r1 + i] = l1i;
    let d1 = fr(a[r1 + i + 1]);
    for (let k = 0; k < i; k++) {
      const x = a[r1 + k];
      d1 = fr(d1 - fr(x * x));
    }
    d1 = fr(d1 - fr(l1i * l1i));
    if (!(d1 > 0)) return i + 1;
    a[r1 + i + 1] = fr(Math.sqrt(d1));
  }
  if (i < n) {
    const r0 = i * n;
    for (let j = 0; j < i; j++) {
      const rj = j * n;
      let s = fr(a[r0 + j]);
      for (let k = 0; k < j; k++) s = fr(s - fr(a[r0 + k] * a[rj + k]));
      a[r0 + j] = fr(s / a[rj + j]);
    }
    let d = fr(a[r0 + i]);
    for (let k = 0; k < i; k++) d = fr(d - fr(a[r0 + k] * a[r0 + k]));
    if (!(d > 0)) return i;
    a[r0 + i] = fr(Math.sqrt(d));
  }
  return -1;
}

function factor64(a: Float64Array, n: number, T: number): number {
  for (let k0 = 0; k0 < n; k0 += T) {
    const k1 = Math.min(k0 + T, n);
    // diagonal tile
    for (let j = k0; j < k1; j++) {
      const rj = j * n;
      let d = a[rj + j];
      for (let k = k0; k < j; k++) d -= a[rj + k] * a[rj + k];
      if (!(d > 0)) return j;
      const ljj = Math.sqrt(d);
      a[rj + j] = ljj;
      for (let i = j + 1; i < k1; i++) {
        const ri = i * n;
        let s = a[ri + j];
        for (let k = k0; k < j; k++) s -= a[ri + k] * a[rj + k];
        a[ri + j] = s / ljj;
      }
    }
    // tiles below the diagonal tile
    for (let i = k1; i < n; i++) {
      const ri = i * n;
      for (let j = k0; j < k1; j++) {
        const rj = j * n;
        let s = a[ri + j];
        for (let k = k0; k < j; k++) s -= a[ri + k] * a[rj + k];
        a[ri + j] = s / a[rj + j];
      }
    }
    // trailing update, tile by tile
    for (let i0 = k1; i0 < n; i0 += T) {
      const i1 = Math.min(i0 + T, n);
      for (let j0 = k1; j0 <= i0; j0 += T) {
        const j1 = Math.min(j0 + T, n);
        for (let i = i0; i < i1; i++) {
          const ri = i * n;
          const jEnd = Math.min(j1, i + 1);
          for (let j = j0; j < jEnd; j++) {
            const rj = j * n;
            let s = a[ri + j];
            for (let k = k0; k < k1; k++) s -= a[ri + k] * a[rj + k];
            a[ri + j] = s;
          }
        }
      }
    }
  }
  return -1;
}

function factor32(a: Float32Array | Float64Array, n: number, T: number): number {
  for (let k0 = 0; k0 < n; k0 += T) {
    const k1 = Math.min(k0 + T, n);
    for (let j = k0; j < k1; j++) {
      const rj = j * n;
      let d = fr(a[rj + j]);
      for (let k = k0; k < j; k++) d = fr(d - fr(a[rj + k] * a[rj + k]));
      if (!(d > 0)) return j;
      const ljj = fr(Math.sqrt(d));
      a[rj + j] = ljj;
      for (let i = j + 1; i < k1; i++) {
        const ri = i * n;
        let s = fr(a[ri + j]);
        for (let k = k0; k < j; k++) s = fr(s - fr(a[ri + k] * a[rj + k]));
        a[ri + j] = fr(s / ljj);
      }
    }
    for (let i = k1; i < n; i++) {
      const ri = i * n;
      for (let j = k0; j < k1; j++) {
        const rj = j * n;
        let s = fr(a[ri + j]);
        for (let k = k0; k < j; k++) s = fr(s - fr(a[ri + k] * a[rj + k]));
        a[ri + j] = fr(s / a[rj + j]);
      }
    }
    for (let i0 = k1; i0 < n; i0 += T) {
      const i1 = Math.min(i0 + T, n);
      for (let j0 = k1; j0 <= i0; j0 += T) {
        const j1 = Math.min(j0 + T, n);
        for (let i = i0; i < i1; i++) {
          const ri = i * n;
          const jEnd = Math.min(j1, i + 1);
          for (let j = j0; j < jEnd; j++) {
            const rj = j * n;
            let s = fr(a[ri + j]);
            for (let k = k0; k < k1; k++) s = fr(s - fr(a[ri + k] * a[rj + k]));
            a[ri + j] = s;
          }
        }
      }
    }
  }
  return -1;
}

/**
 * Factors the n×n row-major SPD matrix in `a` in place (lower triangle ← L).
 *
 * @param a          n×n row-major; `Float64Array` for fp64, `Float32Array` (or fp32-valued
 *                   `Float64Array`) for fp32
 * @param n          order
 * @param precision  arithmetic realization
 * @param tile       tile edge ≥ 1 (default {@link CHOLESKY_TILE})
 */
export function choleskyFactor(
  a: Float64Array | Float32Array,
  n: number,
  precision: LinearSolvePrecision,
  tile: number = CHOLESKY_TILE,
): CholeskyResult {
  const T = Math.max(1, Math.floor(tile));
  const small = n <= CHOLESKY_SMALL_N;
  let pivot: number;
  if (precision === 'fp32') pivot = small ? factorRows32(a, n) : factor32(a, n, T);
  else if (a instanceof Float64Array) pivot = small ? factorRows64(a, n) : factor64(a, n, T);
  else throw new TypeError('choleskyFactor: fp64 needs Float64Array storage');
  return { status: pivot < 0 ? 'ok' : 'not_spd', pivot };
}

/**
 * Solves L Lᵀ x = b in place (b ← x) with the factor from {@link choleskyFactor}.
 * Forward: y_i = (b_i − Σ_{k<i} L_ik y_k)/L_ii with k ascending; backward: x_i = (y_i −
 * Σ_{k>i} L_ki x_k)/L_ii with k descending, taken column by column (x_k known, every i < k takes
 * its term: independent updates along the contiguous row k of L). Each operation is rounded for fp32.
 */
export function choleskySolve(
  L: Float64Array | Float32Array,
  n: number,
  b: Float64Array | Float32Array,
  precision: LinearSolvePrecision,
): void {
  // forward substitution two rows at a time: rows i and i+1 accumulate over k < i together (two
  // independent chains), then row i+1 takes its k = i term; per-row order is unchanged
  if (precision === 'fp32') {
    let i = 0;
    for (; i + 1 < n; i += 2) {
      const ri = i * n;
      const r1 = ri + n;
      let s0 = fr(b[i]);
      let s1 = fr(b[i + 1]);
      for (let k = 0; k < i; k++) {
        const y = b[k];
        s0 = fr(s0 - fr(L[ri + k] * y));
        s1 = fr(s1 - fr(L[r1 + k] * y));
      }
      const y0 = fr(s0 / L[ri + i]);
      b[i] = y0;
      s1 = fr(s1 - fr(L[r1 + i] * y0));
      b[i + 1] = fr(s1 / L[r1 + i + 1]);
    }
    if (i < n) {
      const ri = i * n;
      let s = fr(b[i]);
      for (let k = 0; k < i; k++) s = fr(s - fr(L[ri + k] * b[k]));
      b[i] = fr(s / L[ri + i]);
    }
    for (let k = n - 1; k >= 0; k--) {
      const o = k * n;
      const x = fr(b[k] / L[o + k]);
      b[k] = x;
      for (let i = 0; i < k; i++) b[i] = fr(b[i] - fr(L[o + i] * x));
    }
    return;
  }
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const ri = i * n;
    const r1 = ri + n;
    let s0 = b[i];
    let s1 = b[i + 1];
    for (let k = 0; k < i; k++) {
      const y = b[k];
      s0 -= L[ri + k] * y;
      s1 -= L[r1 + k] * y;
    }
    const y0 = s0 / L[ri + i];
    b[i] = y0;
    s1 -= L[r1 + i] * y0;
    b[i + 1] = s1 / L[r1 + i + 1];
  }
  if (i < n) {
    const ri = i * n;
    let s = b[i];
    for (let k = 0; k < i; k++) s -= L[ri + k] * b[k];
    b[i] = s / L[ri + i];
  }
  for (let k = n - 1; k >= 0; k--) {
    const o = k * n;
    const x = b[k] / L[o + k];
    b[k] = x;
    for (let i = 0; i < k; i++) b[i] -= L[o + i] * x;
  }
}

/**
 * Reusable dense Cholesky solver with its own storage (Float32Array for fp32, Float64Array for
 * fp64) that grows as needed and is kept between calls.
 */
export class DenseCholesky {
  private s64 = new Float64Array(0);
  private s32 = new Float32Array(0);
  private r64 = new Float64Array(0);
  private r32 = new Float32Array(0);
  private n = 0;
  /** the WebAssembly path's result of {@link factor}: one object, overwritten by the next call */
  private readonly result: CholeskyResult = { status: 'ok', pivot: -1 };
  private factored = false;
  // WebAssembly kernels: the right-hand side at byte 0 (room for `cap` entries), the matrix after
  // it, then the kernels' column-major copy of the factor (cap² entries); the views above then live
  // in the kernels' memory (re-made when it grows)
  private readonly wasm: LinalgWasm | null;
  private viewBuffer: ArrayBuffer | null = null;
  private cap = 0;
  private wasmFactored = false;

  /**
   * @param precision  arithmetic realization of the factorization and the solves
   * @param tile       tile edge of the blocked JS factorization (the order of operations, and so
   *                   the result, is the same for every tile and for the WebAssembly kernels)
   * @param kernels    where the factorization and the solves run
   */
  constructor(
    public precision: LinearSolvePrecision = 'fp64',
    public tile: number = CHOLESKY_TILE,
    kernels: LinalgKernels = 'wasm',
  ) {
    this.wasm = kernels === 'wasm' ? LinalgWasm.create() : null;
  }

  /** where the factorization and the solves run */
  get kernels(): LinalgKernels {
    return this.wasm !== null ? 'wasm' : 'js';
  }

  /** byte offset of the matrix (its factor) in the kernels' memory, after the right-hand side */
  private get matrixPtr(): number {
    return 8 * this.cap;
  }

  /** byte offset of the kernels' column-major copy of the factor, after the matrix */
  private get columnsPtr(): number {
    return 8 * (this.cap + this.cap * this.cap);
  }

  /** points the storage views into the kernels' memory for order n (false: it cannot grow) */
  private bindWasm(w: LinalgWasm, n: number): boolean {
    let cap = this.cap;
    if (n > cap) cap = Math.max(n, Math.ceil(1.5 * cap), 8);
    if (!w.reserve(8 * (cap + 2 * cap * cap))) return false;
    const buf = w.buffer;
    if (buf === this.viewBuffer && cap === this.cap) return true;
    this.viewBuffer = buf;
    this.cap = cap;
    this.r64 = new Float64Array(buf, 0, cap);
    this.r32 = new Float32Array(buf, 0, cap);
    this.s64 = new Float64Array(buf, 8 * cap, cap * cap);
    this.s32 = new Float32Array(buf, 8 * cap, cap * cap);
    return true;
  }

  /**
   * Copies the lower triangle of the n×n row-major `H` (fp64 values, rounded to fp32 on copy when
   * precision is fp32) and factors it. `H` itself is not modified. With `perm` (a permutation of
   * 0..n−1) the factored matrix is H' = PHPᵀ, H'_ij = H_{perm[i], perm[j]}, read from H's lower
   * triangle; {@link solve} must then be given the same `perm`. The WebAssembly path returns one
   * result object per instance, overwritten by the next call (no allocation per factorization).
   */
  factor(H: Float64Array, n: number, perm?: Int32Array): CholeskyResult {
    this.n = n;
    const nn = n * n;
    let res: CholeskyResult;
    const f32 = this.precision === 'fp32';
    const w = this.wasm !== null && this.bindWasm(this.wasm, n) ? this.wasm.exports : null;
    if (w !== null) {
      // views bound above
    } else if (f32) {
      if (this.s32.length < nn) this.s32 = new Float32Array(nn);
    } else if (this.s64.length < nn) this.s64 = new Float64Array(nn);
    const a = f32 ? this.s32 : this.s64;
    if (perm === undefined) {
      // (the whole matrix in one native copy when H is exactly n×n and not small; the upper
      // triangle is not read)
      if (H.length === nn && nn > 64) a.set(H);
      else for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) a[i * n + j] = H[i * n + j];
    } else {
      for (let i = 0; i < n; i++) {
        const pi = perm[i];
        for (let j = 0; j <= i; j++) {
          const pj = perm[j];
          a[i * n + j] = pi >= pj ? H[pi * n + pj] : H[pj * n + pi];
        }
      }
    }
    if (w !== null) {
      const a = this.matrixPtr;
      const t = this.columnsPtr;
      const pivot = f32 ? w.denseFactor32(a, n, t) : w.denseFactor64(a, n, t);
      res = this.result;
      res.status = pivot < 0 ? 'ok' : 'not_spd';
      res.pivot = pivot;
    } else if (f32) res = choleskyFactor(this.s32, n, 'fp32', this.tile);
    else res = choleskyFactor(this.s64, n, 'fp64', this.tile);
    this.wasmFactored = w !== null;
    this.factored = res.status === 'ok';
    return res;
  }

  /**
   * x = H⁻¹·b for the last successful {@link factor} (with the same `perm`, if any); `x` may alias
   * `b`. For fp32 the right-hand side is rounded to fp32 and the solution is the exact fp32 result
   * widened to fp64.
   */
  solve(b: Float64Array, x: Float64Array, perm?: Int32Array): void {
    if (!this.factored) throw new Error('DenseCholesky.solve: no valid factorization');
    const n = this.n;
    const f32 = this.precision === 'fp32';
    const w = this.wasmFactored ? this.wasm!.exports : null;
    if (w !== null) {
      // views bound by factor()
    } else if (f32) {
      if (this.r32.length < n) this.r32 = new Float32Array(n);
    } else if (this.r64.length < n) this.r64 = new Float64Array(n);
    const r = f32 ? this.r32 : this.r64;
    if (perm === undefined) for (let i = 0; i < n; i++) r[i] = b[i];
    else for (let i = 0; i < n; i++) r[i] = b[perm[i]];
    if (w !== null) {
      if (f32) w.denseSolve32(this.matrixPtr, n, 0, this.columnsPtr);
      else w.denseSolve64(this.matrixPtr, n, 0, this.columnsPtr);
    } else if (f32) choleskySolve(this.s32, n, this.r32, 'fp32');
    else choleskySolve(this.s64, n, this.r64, 'fp64');
    if (perm === undefined) for (let i = 0; i < n; i++) x[i] = r[i];
    else for (let i = 0; i < n; i++) x[perm[i]] = r[i];
  }
}
