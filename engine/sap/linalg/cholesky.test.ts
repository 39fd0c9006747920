import { describe, expect, it } from 'vitest';
import { randomSpd, seededRandom, uniform } from '../testing';
import { CHOLESKY_SMALL_N, CHOLESKY_TILE, DenseCholesky, choleskyFactor, choleskySolve } from './cholesky';
import type { LinalgKernels } from './wasm/kernels';

const fr = Math.fround;

/** plain unblocked column-by-column Cholesky in binary32, written independently of the library */
function referenceFactor32(A: Float64Array, n: number): Float32Array {
  const L = new Float32Array(n * n);
  for (let i = 0; i < n * n; i++) L[i] = A[i];
  for (let j = 0; j < n; j++) {
    let d = L[j * n + j];
    for (let k = 0; k < j; k++) d = fr(d - fr(L[j * n + k] * L[j * n + k]));
    const ljj = fr(Math.sqrt(d));
    L[j * n + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      let s = L[i * n + j];
      for (let k = 0; k < j; k++) s = fr(s - fr(L[i * n + k] * L[j * n + k]));
      L[i * n + j] = fr(s / ljj);
    }
  }
  return L;
}

function referenceFactor64(A: Float64Array, n: number): Float64Array {
  const L = Float64Array.from(A);
  for (let j = 0; j < n; j++) {
    let d = L[j * n + j];
    for (let k = 0; k < j; k++) d -= L[j * n + k] * L[j * n + k];
    const ljj = Math.sqrt(d);
    L[j * n + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      let s = L[i * n + j];
      for (let k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = s / ljj;
    }
  }
  return L;
}

/** forward substitution in binary32 with k ascending, backward with k descending, row by row */
function referenceSolve32(L: Float32Array, n: number, b: Float64Array): Float32Array {
  const x = Float32Array.from(b);
  for (let i = 0; i < n; i++) {
    let s = x[i];
    for (let k = 0; k < i; k++) s = fr(s - fr(L[i * n + k] * x[k]));
    x[i] = fr(s / L[i * n + i]);
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = x[i];
    for (let k = n - 1; k > i; k--) s = fr(s - fr(L[k * n + i] * x[k]));
    x[i] = fr(s / L[i * n + i]);
  }
  return x;
}

/** indices (i, j ≤ i) where the lower triangles differ bitwise */
function lowerMismatches(a: Float32Array | Float64Array, b: Float32Array | Float64Array, n: number): number {
  let bad = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) if (!Object.is(a[i * n + j], b[i * n + j])) bad++;
  return bad;
}

describe('blocked Cholesky', () => {
  it('fp32 equals an unblocked binary32 Cholesky bit for bit (n = 1..70, several tiles)', () => {
    const rng = seededRandom(2024);
    let checked = 0;
    for (let n = 1; n <= 70; n++) {
      const A = randomSpd(n, rng, 0.5);
      const ref = referenceFactor32(A, n);
      for (const tile of [CHOLESKY_TILE, 7]) {
        const L = Float32Array.from(A);
        const res = choleskyFactor(L, n, 'fp32', tile);
        expect(res).toEqual({ status: 'ok', pivot: -1 });
        expect(lowerMismatches(L, ref, n)).toBe(0);
        checked++;
      }
      // the solve too
      const b = new Float64Array(n);
      for (let i = 0; i < n; i++) b[i] = uniform(rng, -1, 1);
      const x = Float32Array.from(b);
      const L = Float32Array.from(A);
      choleskyFactor(L, n, 'fp32');
      choleskySolve(L, n, x, 'fp32');
      const xr = referenceSolve32(ref, n, b);
      for (let i = 0; i < n; i++) expect(Object.is(x[i], xr[i])).toBe(true);
    }
    expect(checked).toBe(140);
  });

  it('orders above CHOLESKY_SMALL_N (tiled kernels) equal the unblocked reference too, fp32 and fp64', () => {
    const rng = seededRandom(77);
    for (const n of [CHOLESKY_SMALL_N - 1, CHOLESKY_SMALL_N, CHOLESKY_SMALL_N + 1, CHOLESKY_SMALL_N + 34]) {
      const A = randomSpd(n, rng, 0.5);
      const L32 = Float32Array.from(A);
      expect(choleskyFactor(L32, n, 'fp32')).toEqual({ status: 'ok', pivot: -1 });
      expect(lowerMismatches(L32, referenceFactor32(A, n), n)).toBe(0);
      const L64 = Float64Array.from(A);
      expect(choleskyFactor(L64, n, 'fp64')).toEqual({ status: 'ok', pivot: -1 });
      expect(lowerMismatches(L64, referenceFactor64(A, n), n)).toBe(0);
      const b = new Float64Array(n);
      for (let i = 0; i < n; i++) b[i] = uniform(rng, -1, 1);
      const x = Float32Array.from(b);
      choleskySolve(L32, n, x, 'fp32');
      const xr = referenceSolve32(referenceFactor32(A, n), n, b);
      for (let i = 0; i < n; i++) expect(Object.is(x[i], xr[i])).toBe(true);
    }
  });

  it('fp32 differs from fp64 (the rounding is real)', () => {
    const rng = seededRandom(1);
    const n = 33;
    const A = randomSpd(n, rng, 0.5);
    const L32 = Float32Array.from(A);
    const L64 = Float64Array.from(A);
    choleskyFactor(L32, n, 'fp32');
    choleskyFactor(L64, n, 'fp64');
    expect(lowerMismatches(L32, L64, n)).toBeGreaterThan(0);
  });

  it('fp64 equals the unblocked fp64 Cholesky and solves with a tiny residual', () => {
    const rng = seededRandom(99);
    for (const n of [1, 5, 16, 17, 31, 48, 70]) {
      const A = randomSpd(n, rng, 0.5);
      const L = Float64Array.from(A);
      expect(choleskyFactor(L, n, 'fp64').status).toBe('ok');
      expect(lowerMismatches(L, referenceFactor64(A, n), n)).toBe(0);
      const b = new Float64Array(n);
      for (let i = 0; i < n; i++) b[i] = uniform(rng, -1, 1);
      const x = Float64Array.from(b);
      choleskySolve(L, n, x, 'fp64');
      let res = 0;
      let scale = 0;
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += A[i * n + j] * x[j];
        res = Math.max(res, Math.abs(s - b[i]));
        scale = Math.max(scale, Math.abs(b[i]));
      }
      expect(res / scale).toBeLessThan(1e-12);
    }
  });

  it('reports a non-positive pivot instead of throwing', () => {
    const A = Float64Array.from([4, 2, 0, 2, 1, 0, 0, 0, 1]); // rank-deficient leading 2×2
    const r = choleskyFactor(Float64Array.from(A), 3, 'fp64');
    expect(r).toEqual({ status: 'not_spd', pivot: 1 });
    const r32 = choleskyFactor(Float32Array.from(A), 3, 'fp32');
    expect(r32.status).toBe('not_spd');
    const nan = Float64Array.from([1, 0, 0, NaN]);
    expect(choleskyFactor(nan, 2, 'fp64')).toEqual({ status: 'not_spd', pivot: 1 });
    const indefinite = Float64Array.from([1, 0, 0, -1]);
    expect(choleskyFactor(indefinite, 2, 'fp32').pivot).toBe(1);
  });

  it.each(['wasm', 'js'] as LinalgKernels[])(
    'DenseCholesky (%s) reuses its storage and matches the free functions bit for bit',
    (kernels) => {
      const rng = seededRandom(4);
      const solver32 = new DenseCholesky('fp32', CHOLESKY_TILE, kernels);
      const solver64 = new DenseCholesky('fp64', CHOLESKY_TILE, kernels);
      expect(solver32.kernels).toBe(kernels);
      // 130 > CHOLESKY_SMALL_N: the JS free functions take the tiled path there
      for (const n of [20, 3, 45, 130, 7]) {
        const A = randomSpd(n, rng, 1);
        const b = new Float64Array(n);
        for (let i = 0; i < n; i++) b[i] = uniform(rng, -1, 1);
        expect(solver32.factor(A, n).status).toBe('ok');
        const x32 = new Float64Array(n);
        solver32.solve(b, x32);
        const xr = referenceSolve32(referenceFactor32(A, n), n, b);
        for (let i = 0; i < n; i++) expect(x32[i]).toBe(xr[i]);
        expect(solver64.factor(A, n).status).toBe('ok');
        const x64 = Float64Array.from(b);
        solver64.solve(x64, x64); // aliasing allowed
        const L = Float64Array.from(A);
        choleskyFactor(L, n, 'fp64');
        const xd = Float64Array.from(b);
        choleskySolve(L, n, xd, 'fp64');
        expect(Array.from(x64)).toEqual(Array.from(xd));
        const L32 = new Float32Array(n * n);
        for (let i = 0; i < n * n; i++) L32[i] = A[i];
        choleskyFactor(L32, n, 'fp32');
        const xf = Float32Array.from(b);
        choleskySolve(L32, n, xf, 'fp32');
        for (let i = 0; i < n; i++) expect(x32[i]).toBe(xf[i]);
      }
      // a non-positive pivot is reported at the same index as by the free functions
      const bad = Float64Array.from([4, 2, 0, 2, 1, 0, 0, 0, 1]);
      expect(solver64.factor(bad, 3)).toEqual({ status: 'not_spd', pivot: 1 });
      expect(solver32.factor(Float64Array.from([1, 0, 0, -1]), 2).pivot).toBe(1);
      // a bad pivot in every position of rows blocked four, two and one at a time (n = 11)
      for (let p = 0; p < 11; p++) {
        const A = randomSpd(11, rng, 1);
        A[p * 11 + p] = -1;
        const L64 = Float64Array.from(A);
        expect(solver64.factor(A, 11).pivot).toBe(choleskyFactor(L64, 11, 'fp64').pivot);
        const L32 = new Float32Array(121);
        for (let i = 0; i < 121; i++) L32[i] = A[i];
        expect(solver32.factor(A, 11).pivot).toBe(choleskyFactor(L32, 11, 'fp32').pivot);
      }
    },
  );
});
