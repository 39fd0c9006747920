// AssemblyScript source of the WebAssembly twins of the Cholesky kernels in ../block_sparse.ts and
// ../cholesky.ts and of the sparse JᵀGJ assembly in ../../solver.ts (compiled by
// scripts/gen_wasm.ts into kernels_wasm.ts; not TypeScript). The Newton evaluation kernels come
// from evaluation.as.ts into the same module.
//
// Same loops, same per-entry operation order as the JS kernels, so results are bit for bit equal:
// f64 is IEEE binary64 like JS numbers, and f32 arithmetic is IEEE binary32, which is what
// Math.fround after every + − × ÷ √ reproduces in JS. A factorization keeps its values in its own
// precision: the fp32 kernels work on binary32 panels (demote32 rounds the f64 values into them,
// as the JS twins' Math.fround does), the fp64 kernels on the f64 values; right-hand sides are f64
// in both (binary32 values there, for fp32).
//
// Every pointer is a byte offset into the imported memory; Int32 arrays hold i32, value arrays f64
// (the fp32 factorizations' panels and dense storage: f32).
// Where a loop updates independent entries (a contiguous row of a JᵀGJ block, a row of G·J, the
// columns of a rank-6 update in the factorization), two entries share one f64x2 SIMD operation, or
// four one f32x4 operation in binary32: each lane performs the scalar operation sequence of its
// entry, so the results stay bit for bit those of the JS loops.

export * from './evaluation.as';
import { initDenseA } from './evaluation.as';

function gi(p: usize, i: i32): i32 {
  return load<i32>(p + ((<usize>i) << 2));
}
function si(p: usize, i: i32, x: i32): void {
  store<i32>(p + ((<usize>i) << 2), x);
}
function gd(p: usize, i: i32): f64 {
  return load<f64>(p + ((<usize>i) << 3));
}
function sd(p: usize, i: i32, x: f64): void {
  store<f64>(p + ((<usize>i) << 3), x);
}
// an f64-stored value in T arithmetic (f32: rounded to nearest, exactly Math.fround) and back
function ld<T>(p: usize, i: i32): T {
  return <T>load<f64>(p + ((<usize>i) << 3));
}
function st<T>(p: usize, i: i32, x: T): void {
  store<f64>(p + ((<usize>i) << 3), <f64>x);
}
// a T-stored value (factor panels and dense storage are f64 or f32)
function dl<T>(p: usize, i: i32): T {
  return load<T>(p + <usize>i * sizeof<T>());
}
function ds<T>(p: usize, i: i32, x: T): void {
  store<T>(p + <usize>i * sizeof<T>(), x);
}

/** symbolic structure of a factorization (byte offsets of the Int32 arrays; see block_sparse.ts) */
let nb: i32 = 0;
let size: usize = 0;
let sPtr: usize = 0;
let sIdx: usize = 0;
let sRow: usize = 0;
let pOff: usize = 0;
let pRows: usize = 0;
let rPtr: usize = 0;
let rBlk: usize = 0;
let rOff: usize = 0;
let rE: usize = 0;
let rowOf: usize = 0;
let dofStart: usize = 0;

/** sets the structure used by the kernels below (after every analysis) */
export function setStructure(
  nb_: i32,
  size_: usize,
  sPtr_: usize,
  sIdx_: usize,
  sRow_: usize,
  pOff_: usize,
  pRows_: usize,
  rPtr_: usize,
  rBlk_: usize,
  rOff_: usize,
  rE_: usize,
  rowOf_: usize,
  dofStart_: usize,
): void {
  nb = nb_;
  size = size_;
  sPtr = sPtr_;
  sIdx = sIdx_;
  sRow = sRow_;
  pOff = pOff_;
  pRows = pRows_;
  rPtr = rPtr_;
  rBlk = rBlk_;
  rOff = rOff_;
  rE = rE_;
  rowOf = rowOf_;
  dofStart = dofStart_;
}

/**
 * The binary32 panels of the fp32 factorization: every value entry of `src` (f64) rounded to
 * binary32 (as Math.fround does) into `dst`, four per f32x4
 */
export function demote32(src: usize, dst: usize): void {
  const n = gi(pOff, nb);
  let k = 0;
  for (; k + 3 < n; k += 4) {
    const p = src + ((<usize>k) << 3);
    const lo = f32x4.demote_f64x2_zero(v128.load(p));
    const hi = f32x4.demote_f64x2_zero(v128.load(p, 16));
    v128.store(dst + ((<usize>k) << 2), v128.shuffle<f32>(lo, hi, 0, 1, 4, 5));
  }
  for (; k < n; k++) store<f32>(dst + ((<usize>k) << 2), <f32>gd(src, k));
}

// Rank-6 update of the blocks e0 .. e1 − 1 of column K below J: T_IJ −= L_IK · L_JKᵀ with the
// per-entry order of the scalar loop (k ascending, a product then a difference per k). Lanes run
// over adjacent columns j of J; y_k holds (L_JK[j][k], L_JK[j+1][k], …).

/** {@link below6x32} in binary64: f64x2 over column pairs, the last odd column scalar */
function below6x64(val: usize, e0: i32, e1: i32, oJ: i32, nJ: i32, base: i32, pK: i32): void {
  if (nJ == 6) {
    below6x64Six(val, e0, e1, oJ, base, pK);
    return;
  }
  let j = 0;
  for (; j + 1 < nJ; j += 2) {
    const r0 = val + ((<usize>(oJ + j * 6)) << 3);
    const r1 = r0 + 48;
    let a = v128.load(r0);
    let b = v128.load(r1);
    const y0 = v128.shuffle<f64>(a, b, 0, 2);
    const y1 = v128.shuffle<f64>(a, b, 1, 3);
    a = v128.load(r0, 16);
    b = v128.load(r1, 16);
    const y2 = v128.shuffle<f64>(a, b, 0, 2);
    const y3 = v128.shuffle<f64>(a, b, 1, 3);
    a = v128.load(r0, 32);
    b = v128.load(r1, 32);
    const y4 = v128.shuffle<f64>(a, b, 0, 2);
    const y5 = v128.shuffle<f64>(a, b, 1, 3);
    for (let e = e0; e < e1; e++) {
      const I = gi(sIdx, e);
      const nI = gi(size, I);
      let ra = val + ((<usize>(pK + gi(sRow, e) * 6)) << 3);
      let pt = val + ((<usize>(base + gi(rowOf, I) * nJ + j)) << 3);
      const step = (<usize>nJ) << 3;
      for (let i = 0; i < nI; i++) {
        let t = v128.load(pt);
        t = f64x2.sub(t, f64x2.mul(v128.load64_splat(ra), y0));
        t = f64x2.sub(t, f64x2.mul(v128.load64_splat(ra, 8), y1));
        t = f64x2.sub(t, f64x2.mul(v128.load64_splat(ra, 16), y2));
        t = f64x2.sub(t, f64x2.mul(v128.load64_splat(ra, 24), y3));
        t = f64x2.sub(t, f64x2.mul(v128.load64_splat(ra, 32), y4));
        t = f64x2.sub(t, f64x2.mul(v128.load64_splat(ra, 40), y5));
        v128.store(pt, t);
        ra += 48;
        pt += step;
      }
    }
  }
  if (j < nJ) belowColumn6<f64>(val, e0, e1, oJ, nJ, base, pK, j);
}

/**
 * {@link below6x64} in binary32 on binary32 panels: f32x4 over four columns, then f32x4 on two
 * lanes, then the last odd column scalar
 */
function below6x32(val: usize, e0: i32, e1: i32, oJ: i32, nJ: i32, base: i32, pK: i32): void {
  let j = 0;
  for (; j + 1 < nJ; j += j + 3 < nJ ? 4 : 2) {
    const four = j + 3 < nJ;
    const y0 = columnQuad(val, oJ + j * 6, four);
    const y1 = columnQuad(val, oJ + j * 6 + 1, four);
    const y2 = columnQuad(val, oJ + j * 6 + 2, four);
    const y3 = columnQuad(val, oJ + j * 6 + 3, four);
    const y4 = columnQuad(val, oJ + j * 6 + 4, four);
    const y5 = columnQuad(val, oJ + j * 6 + 5, four);
    for (let e = e0; e < e1; e++) {
      const I = gi(sIdx, e);
      const nI = gi(size, I);
      let ra = val + ((<usize>(pK + gi(sRow, e) * 6)) << 2);
      let pt = val + ((<usize>(base + gi(rowOf, I) * nJ + j)) << 2);
      const step = (<usize>nJ) << 2;
      for (let i = 0; i < nI; i++) {
        let t = four ? v128.load(pt) : v128.load64_zero(pt);
        // the row's six L_IK entries: four in one load, two in a half load
        const r03 = v128.load(ra);
        const r45 = v128.load64_zero(ra, 16);
        t = f32x4.sub(t, f32x4.mul(v128.shuffle<f32>(r03, r03, 0, 0, 0, 0), y0));
        t = f32x4.sub(t, f32x4.mul(v128.shuffle<f32>(r03, r03, 1, 1, 1, 1), y1));
        t = f32x4.sub(t, f32x4.mul(v128.shuffle<f32>(r03, r03, 2, 2, 2, 2), y2));
        t = f32x4.sub(t, f32x4.mul(v128.shuffle<f32>(r03, r03, 3, 3, 3, 3), y3));
        t = f32x4.sub(t, f32x4.mul(v128.shuffle<f32>(r45, r45, 0, 0, 0, 0), y4));
        t = f32x4.sub(t, f32x4.mul(v128.shuffle<f32>(r45, r45, 1, 1, 1, 1), y5));
        if (four) v128.store(pt, t);
        else v128.store64_lane(pt, t, 0);
        ra += 24;
        pt += step;
      }
    }
  }
  if (j < nJ) belowColumn6<f32>(val, e0, e1, oJ, nJ, base, pK, j);
}

// A 6-wide J (a free body's supernode, the common case in piles), binary64: the whole row of T_IJ
// per row i, so each L_IK entry is loaded once per row instead of once per column pair. Per entry
// the same operations in the same order. (The binary32 kernel keeps its column groups: there the
// twelve y vectors and six x vectors of a whole row spill and cost a pile_1000 step a third.)

/** (L_JK[j][k], L_JK[j+1][k]) for columns j, j+1 of a 6-wide J at oJ */
function columnPair64(val: usize, oJ: i32, j: i32, k: i32): v128 {
  return v128.load64_lane(
    val + ((<usize>(oJ + (j + 1) * 6 + k)) << 3),
    v128.load64_splat(val + ((<usize>(oJ + j * 6 + k)) << 3)),
    1,
  );
}

/** t − x0·y0 − x1·y1 − … − x5·y5, a product then a difference per k, k ascending (f64x2) */
function rank6x64(
  t: v128,
  x0: v128,
  x1: v128,
  x2: v128,
  x3: v128,
  x4: v128,
  x5: v128,
  y0: v128,
  y1: v128,
  y2: v128,
  y3: v128,
  y4: v128,
  y5: v128,
): v128 {
  t = f64x2.sub(t, f64x2.mul(x0, y0));
  t = f64x2.sub(t, f64x2.mul(x1, y1));
  t = f64x2.sub(t, f64x2.mul(x2, y2));
  t = f64x2.sub(t, f64x2.mul(x3, y3));
  t = f64x2.sub(t, f64x2.mul(x4, y4));
  return f64x2.sub(t, f64x2.mul(x5, y5));
}

/** {@link below6x64} for nJ = 6 */
function below6x64Six(val: usize, e0: i32, e1: i32, oJ: i32, base: i32, pK: i32): void {
  const a0 = columnPair64(val, oJ, 0, 0);
  const a1 = columnPair64(val, oJ, 0, 1);
  const a2 = columnPair64(val, oJ, 0, 2);
  const a3 = columnPair64(val, oJ, 0, 3);
  const a4 = columnPair64(val, oJ, 0, 4);
  const a5 = columnPair64(val, oJ, 0, 5);
  const b0 = columnPair64(val, oJ, 2, 0);
  const b1 = columnPair64(val, oJ, 2, 1);
  const b2 = columnPair64(val, oJ, 2, 2);
  const b3 = columnPair64(val, oJ, 2, 3);
  const b4 = columnPair64(val, oJ, 2, 4);
  const b5 = columnPair64(val, oJ, 2, 5);
  const c0 = columnPair64(val, oJ, 4, 0);
  const c1 = columnPair64(val, oJ, 4, 1);
  const c2 = columnPair64(val, oJ, 4, 2);
  const c3 = columnPair64(val, oJ, 4, 3);
  const c4 = columnPair64(val, oJ, 4, 4);
  const c5 = columnPair64(val, oJ, 4, 5);
  for (let e = e0; e < e1; e++) {
    const I = gi(sIdx, e);
    const nI = gi(size, I);
    let ra = val + ((<usize>(pK + gi(sRow, e) * 6)) << 3);
    let pt = val + ((<usize>(base + gi(rowOf, I) * 6)) << 3);
    for (let i = 0; i < nI; i++) {
      const x0 = v128.load64_splat(ra);
      const x1 = v128.load64_splat(ra, 8);
      const x2 = v128.load64_splat(ra, 16);
      const x3 = v128.load64_splat(ra, 24);
      const x4 = v128.load64_splat(ra, 32);
      const x5 = v128.load64_splat(ra, 40);
      v128.store(pt, rank6x64(v128.load(pt), x0, x1, x2, x3, x4, x5, a0, a1, a2, a3, a4, a5));
      v128.store(pt, rank6x64(v128.load(pt, 16), x0, x1, x2, x3, x4, x5, b0, b1, b2, b3, b4, b5), 16);
      v128.store(pt, rank6x64(v128.load(pt, 32), x0, x1, x2, x3, x4, x5, c0, c1, c2, c3, c4, c5), 32);
      ra += 48;
      pt += 48;
    }
  }
}

/** (L_JK[j][k], L_JK[j+1][k], L_JK[j+2][k], L_JK[j+3][k]) of binary32 panels from index o = row j, col k */
function columnQuad(val: usize, o: i32, four: bool): v128 {
  const p = val + ((<usize>o) << 2);
  let y = f32x4.splat(load<f32>(p));
  y = f32x4.replace_lane(y, 1, load<f32>(p, 24));
  if (four) {
    y = f32x4.replace_lane(y, 2, load<f32>(p, 48));
    y = f32x4.replace_lane(y, 3, load<f32>(p, 72));
  }
  return y;
}

/** one column j of {@link below6x32}'s update, scalar */
function belowColumn6<T>(val: usize, e0: i32, e1: i32, oJ: i32, nJ: i32, base: i32, pK: i32, j: i32): void {
  const rj = oJ + j * 6;
  for (let e = e0; e < e1; e++) {
    const I = gi(sIdx, e);
    const nI = gi(size, I);
    const oI = pK + gi(sRow, e) * 6;
    const tgt = base + gi(rowOf, I) * nJ + j;
    for (let i = 0; i < nI; i++) {
      const ri = oI + i * 6;
      let s = dl<T>(val, tgt + i * nJ);
      s = s - dl<T>(val, ri) * dl<T>(val, rj);
      s = s - dl<T>(val, ri + 1) * dl<T>(val, rj + 1);
      s = s - dl<T>(val, ri + 2) * dl<T>(val, rj + 2);
      s = s - dl<T>(val, ri + 3) * dl<T>(val, rj + 3);
      s = s - dl<T>(val, ri + 4) * dl<T>(val, rj + 4);
      s = s - dl<T>(val, ri + 5) * dl<T>(val, rj + 5);
      ds<T>(val, tgt + i * nJ, s);
    }
  }
}

/** left-looking supernodal factorization in T arithmetic on T panels; first bad pivot or −1 */
function factorPanels<T>(val: usize): i32 {
  for (let J = 0; J < nb; J++) {
    const nJ = gi(size, J);
    const base = gi(pOff, J);
    si(rowOf, J, 0);
    const sEndJ = gi(sPtr, J + 1);
    for (let e = gi(sPtr, J); e < sEndJ; e++) si(rowOf, gi(sIdx, e), gi(sRow, e));
    const rEnd = gi(rPtr, J + 1);
    for (let r = gi(rPtr, J); r < rEnd; r++) {
      const K = gi(rBlk, r);
      const nK = gi(size, K);
      const oJ = gi(rOff, r);
      const eJ = gi(rE, r);
      const eEnd = gi(sPtr, K + 1);
      const pK = gi(pOff, K);
      for (let e = eJ; e < eEnd; e++) {
        const I = gi(sIdx, e);
        const nI = gi(size, I);
        const oI = pK + gi(sRow, e) * nK;
        const tgt = base + gi(rowOf, I) * nJ;
        const diag = e == eJ;
        if (nK == 6) {
          if (!diag) {
            // the blocks below J: SIMD across columns of J (each lane: its entry's scalar sequence)
            if (sizeof<T>() == 8) below6x64(val, e, eEnd, oJ, nJ, base, pK);
            else below6x32(val, e, eEnd, oJ, nJ, base, pK);
            break;
          }
          // free bodies: rows i and i+1 of L_IK held in registers, each row of L_JK loaded once for
          // both (per-entry order unchanged: k ascending)
          let i = 0;
          for (; i + 1 < nI; i += 2) {
            const ri = oI + i * 6;
            const a0 = dl<T>(val, ri);
            const a1 = dl<T>(val, ri + 1);
            const a2 = dl<T>(val, ri + 2);
            const a3 = dl<T>(val, ri + 3);
            const a4 = dl<T>(val, ri + 4);
            const a5 = dl<T>(val, ri + 5);
            const b0 = dl<T>(val, ri + 6);
            const b1 = dl<T>(val, ri + 7);
            const b2 = dl<T>(val, ri + 8);
            const b3 = dl<T>(val, ri + 9);
            const b4 = dl<T>(val, ri + 10);
            const b5 = dl<T>(val, ri + 11);
            const ti = tgt + i * nJ;
            const tk = ti + nJ;
            const jEnd = diag ? i + 1 : nJ;
            let rj = oJ;
            for (let j = 0; j < jEnd; j++) {
              let s = dl<T>(val, ti + j);
              let t = dl<T>(val, tk + j);
              let y = dl<T>(val, rj);
              s = s - a0 * y;
              t = t - b0 * y;
              y = dl<T>(val, rj + 1);
              s = s - a1 * y;
              t = t - b1 * y;
              y = dl<T>(val, rj + 2);
              s = s - a2 * y;
              t = t - b2 * y;
              y = dl<T>(val, rj + 3);
              s = s - a3 * y;
              t = t - b3 * y;
              y = dl<T>(val, rj + 4);
              s = s - a4 * y;
              t = t - b4 * y;
              y = dl<T>(val, rj + 5);
              s = s - a5 * y;
              t = t - b5 * y;
              ds<T>(val, ti + j, s);
              ds<T>(val, tk + j, t);
              rj += 6;
            }
            if (diag) {
              // row i+1 also reaches column i+1
              let t = dl<T>(val, tk + jEnd);
              t = t - b0 * dl<T>(val, rj);
              t = t - b1 * dl<T>(val, rj + 1);
              t = t - b2 * dl<T>(val, rj + 2);
              t = t - b3 * dl<T>(val, rj + 3);
              t = t - b4 * dl<T>(val, rj + 4);
              t = t - b5 * dl<T>(val, rj + 5);
              ds<T>(val, tk + jEnd, t);
            }
          }
          for (; i < nI; i++) {
            const ri = oI + i * 6;
            const a0 = dl<T>(val, ri);
            const a1 = dl<T>(val, ri + 1);
            const a2 = dl<T>(val, ri + 2);
            const a3 = dl<T>(val, ri + 3);
            const a4 = dl<T>(val, ri + 4);
            const a5 = dl<T>(val, ri + 5);
            const ti = tgt + i * nJ;
            const jEnd = diag ? i + 1 : nJ;
            let rj = oJ;
            for (let j = 0; j < jEnd; j++) {
              let s = dl<T>(val, ti + j);
              s = s - a0 * dl<T>(val, rj);
              s = s - a1 * dl<T>(val, rj + 1);
              s = s - a2 * dl<T>(val, rj + 2);
              s = s - a3 * dl<T>(val, rj + 3);
              s = s - a4 * dl<T>(val, rj + 4);
              s = s - a5 * dl<T>(val, rj + 5);
              ds<T>(val, ti + j, s);
              rj += 6;
            }
          }
          continue;
        }
        for (let i = 0; i < nI; i++) {
          const ri = oI + i * nK;
          const ti = tgt + i * nJ;
          const jEnd = diag ? i + 1 : nJ;
          for (let j = 0; j < jEnd; j++) {
            const rj = oJ + j * nK;
            let s = dl<T>(val, ti + j);
            for (let k = 0; k < nK; k++) s = s - dl<T>(val, ri + k) * dl<T>(val, rj + k);
            ds<T>(val, ti + j, s);
          }
        }
      }
    }
    const R = gi(pRows, J);
    // free bodies: the rows below the diagonal block are solved after it, several rows per SIMD
    // operation (each entry's operations are those of the column-by-column loop, in its order)
    const R0 = nJ == 6 ? 6 : R;
    for (let j = 0; j < nJ; j++) {
      const rj = base + j * nJ;
      let d = dl<T>(val, rj + j);
      for (let k = 0; k < j; k++) d = d - dl<T>(val, rj + k) * dl<T>(val, rj + k);
      if (!(d > 0)) return gi(dofStart, J) + j;
      const ljj = sqrt<T>(d);
      ds<T>(val, rj + j, ljj);
      for (let i = j + 1; i < R0; i++) {
        const ri = base + i * nJ;
        let s = dl<T>(val, ri + j);
        for (let k = 0; k < j; k++) s = s - dl<T>(val, ri + k) * dl<T>(val, rj + k);
        ds<T>(val, ri + j, s / ljj);
      }
    }
    if (R0 < R) {
      if (sizeof<T>() == 8) rowsBelow6x64(val, base, R);
      else rowsBelow6x32(val, base, R);
    }
  }
  return -1;
}

// Rows 6 .. R − 1 of a 6-wide panel at `base` (diagonal block already factored): each row x solves
// x·L_JJᵀ = row, x_j = (row_j − Σ_{k<j} x_k L_jk) / L_jj with k ascending, as the scalar loop does.

/** {@link rowsBelow6x32} in binary64: f64x2 over row pairs, a last odd row scalar */
function rowsBelow6x64(val: usize, base: i32, R: i32): void {
  const L = val + ((<usize>base) << 3);
  const l10 = f64x2.splat(load<f64>(L, 48));
  const l20 = f64x2.splat(load<f64>(L, 96));
  const l21 = f64x2.splat(load<f64>(L, 104));
  const l30 = f64x2.splat(load<f64>(L, 144));
  const l31 = f64x2.splat(load<f64>(L, 152));
  const l32 = f64x2.splat(load<f64>(L, 160));
  const l40 = f64x2.splat(load<f64>(L, 192));
  const l41 = f64x2.splat(load<f64>(L, 200));
  const l42 = f64x2.splat(load<f64>(L, 208));
  const l43 = f64x2.splat(load<f64>(L, 216));
  const l50 = f64x2.splat(load<f64>(L, 240));
  const l51 = f64x2.splat(load<f64>(L, 248));
  const l52 = f64x2.splat(load<f64>(L, 256));
  const l53 = f64x2.splat(load<f64>(L, 264));
  const l54 = f64x2.splat(load<f64>(L, 272));
  let i = 6;
  for (; i + 1 < R; i += 2) {
    const p0 = L + ((<usize>(i * 6)) << 3);
    const p1 = p0 + 48;
    let a = v128.load(p0);
    let b = v128.load(p1);
    let x0 = v128.shuffle<f64>(a, b, 0, 2);
    let x1 = v128.shuffle<f64>(a, b, 1, 3);
    a = v128.load(p0, 16);
    b = v128.load(p1, 16);
    let x2 = v128.shuffle<f64>(a, b, 0, 2);
    let x3 = v128.shuffle<f64>(a, b, 1, 3);
    a = v128.load(p0, 32);
    b = v128.load(p1, 32);
    let x4 = v128.shuffle<f64>(a, b, 0, 2);
    let x5 = v128.shuffle<f64>(a, b, 1, 3);
    x0 = f64x2.div(x0, v128.load64_splat(L));
    x1 = f64x2.div(f64x2.sub(x1, f64x2.mul(x0, l10)), v128.load64_splat(L, 56));
    x2 = f64x2.sub(x2, f64x2.mul(x0, l20));
    x2 = f64x2.div(f64x2.sub(x2, f64x2.mul(x1, l21)), v128.load64_splat(L, 112));
    x3 = f64x2.sub(x3, f64x2.mul(x0, l30));
    x3 = f64x2.sub(x3, f64x2.mul(x1, l31));
    x3 = f64x2.div(f64x2.sub(x3, f64x2.mul(x2, l32)), v128.load64_splat(L, 168));
    x4 = f64x2.sub(x4, f64x2.mul(x0, l40));
    x4 = f64x2.sub(x4, f64x2.mul(x1, l41));
    x4 = f64x2.sub(x4, f64x2.mul(x2, l42));
    x4 = f64x2.div(f64x2.sub(x4, f64x2.mul(x3, l43)), v128.load64_splat(L, 224));
    x5 = f64x2.sub(x5, f64x2.mul(x0, l50));
    x5 = f64x2.sub(x5, f64x2.mul(x1, l51));
    x5 = f64x2.sub(x5, f64x2.mul(x2, l52));
    x5 = f64x2.sub(x5, f64x2.mul(x3, l53));
    x5 = f64x2.div(f64x2.sub(x5, f64x2.mul(x4, l54)), v128.load64_splat(L, 280));
    v128.store(p0, v128.shuffle<f64>(x0, x1, 0, 2));
    v128.store(p1, v128.shuffle<f64>(x0, x1, 1, 3));
    v128.store(p0, v128.shuffle<f64>(x2, x3, 0, 2), 16);
    v128.store(p1, v128.shuffle<f64>(x2, x3, 1, 3), 16);
    v128.store(p0, v128.shuffle<f64>(x4, x5, 0, 2), 32);
    v128.store(p1, v128.shuffle<f64>(x4, x5, 1, 3), 32);
  }
  for (; i < R; i++) rowBelow6<f64>(val, base, i);
}

/**
 * rows below a 6-wide diagonal block in binary32 on binary32 panels: four rows at a time, their
 * entries transposed into one f32x4 per column (and back), the rest scalar
 */
function rowsBelow6x32(val: usize, base: i32, R: i32): void {
  const L = val + ((<usize>base) << 2);
  const l10 = f32x4.splat(load<f32>(L, 24));
  const l20 = f32x4.splat(load<f32>(L, 48));
  const l21 = f32x4.splat(load<f32>(L, 52));
  const l30 = f32x4.splat(load<f32>(L, 72));
  const l31 = f32x4.splat(load<f32>(L, 76));
  const l32 = f32x4.splat(load<f32>(L, 80));
  const l40 = f32x4.splat(load<f32>(L, 96));
  const l41 = f32x4.splat(load<f32>(L, 100));
  const l42 = f32x4.splat(load<f32>(L, 104));
  const l43 = f32x4.splat(load<f32>(L, 108));
  const l50 = f32x4.splat(load<f32>(L, 120));
  const l51 = f32x4.splat(load<f32>(L, 124));
  const l52 = f32x4.splat(load<f32>(L, 128));
  const l53 = f32x4.splat(load<f32>(L, 132));
  const l54 = f32x4.splat(load<f32>(L, 136));
  const d0 = f32x4.splat(load<f32>(L));
  const d1 = f32x4.splat(load<f32>(L, 28));
  const d2 = f32x4.splat(load<f32>(L, 56));
  const d3 = f32x4.splat(load<f32>(L, 84));
  const d4 = f32x4.splat(load<f32>(L, 112));
  const d5 = f32x4.splat(load<f32>(L, 140));
  let i = 6;
  for (; i + 3 < R; i += 4) {
    const p = L + ((<usize>(i * 6)) << 2);
    // rows r0 … r3 (24 bytes apart): columns 0–3 by a 4 × 4 transpose, columns 4–5 from the halves
    const a0 = v128.load(p);
    const a1 = v128.load(p, 24);
    const a2 = v128.load(p, 48);
    const a3 = v128.load(p, 72);
    const c01 = v128.shuffle<f32>(a0, a1, 0, 4, 1, 5); // (r0c0, r1c0, r0c1, r1c1)
    const c23 = v128.shuffle<f32>(a2, a3, 0, 4, 1, 5); // (r2c0, r3c0, r2c1, r3c1)
    const e01 = v128.shuffle<f32>(a0, a1, 2, 6, 3, 7); // (r0c2, r1c2, r0c3, r1c3)
    const e23 = v128.shuffle<f32>(a2, a3, 2, 6, 3, 7);
    let x0 = v128.shuffle<f32>(c01, c23, 0, 1, 4, 5);
    let x1 = v128.shuffle<f32>(c01, c23, 2, 3, 6, 7);
    let x2 = v128.shuffle<f32>(e01, e23, 0, 1, 4, 5);
    let x3 = v128.shuffle<f32>(e01, e23, 2, 3, 6, 7);
    const h01 = v128.shuffle<f32>(v128.load64_zero(p, 16), v128.load64_zero(p, 40), 0, 4, 1, 5);
    const h23 = v128.shuffle<f32>(v128.load64_zero(p, 64), v128.load64_zero(p, 88), 0, 4, 1, 5);
    let x4 = v128.shuffle<f32>(h01, h23, 0, 1, 4, 5);
    let x5 = v128.shuffle<f32>(h01, h23, 2, 3, 6, 7);
    x0 = f32x4.div(x0, d0);
    x1 = f32x4.div(f32x4.sub(x1, f32x4.mul(x0, l10)), d1);
    x2 = f32x4.sub(x2, f32x4.mul(x0, l20));
    x2 = f32x4.div(f32x4.sub(x2, f32x4.mul(x1, l21)), d2);
    x3 = f32x4.sub(x3, f32x4.mul(x0, l30));
    x3 = f32x4.sub(x3, f32x4.mul(x1, l31));
    x3 = f32x4.div(f32x4.sub(x3, f32x4.mul(x2, l32)), d3);
    x4 = f32x4.sub(x4, f32x4.mul(x0, l40));
    x4 = f32x4.sub(x4, f32x4.mul(x1, l41));
    x4 = f32x4.sub(x4, f32x4.mul(x2, l42));
    x4 = f32x4.div(f32x4.sub(x4, f32x4.mul(x3, l43)), d4);
    x5 = f32x4.sub(x5, f32x4.mul(x0, l50));
    x5 = f32x4.sub(x5, f32x4.mul(x1, l51));
    x5 = f32x4.sub(x5, f32x4.mul(x2, l52));
    x5 = f32x4.sub(x5, f32x4.mul(x3, l53));
    x5 = f32x4.div(f32x4.sub(x5, f32x4.mul(x4, l54)), d5);
    // and back: (r0c0, r0c1, r1c0, r1c1), (r0c2, r0c3, r1c2, r1c3), … into rows
    const s01 = v128.shuffle<f32>(x0, x1, 0, 4, 1, 5);
    const s23 = v128.shuffle<f32>(x2, x3, 0, 4, 1, 5);
    const t01 = v128.shuffle<f32>(x0, x1, 2, 6, 3, 7);
    const t23 = v128.shuffle<f32>(x2, x3, 2, 6, 3, 7);
    v128.store(p, v128.shuffle<f32>(s01, s23, 0, 1, 4, 5));
    v128.store(p, v128.shuffle<f32>(s01, s23, 2, 3, 6, 7), 24);
    v128.store(p, v128.shuffle<f32>(t01, t23, 0, 1, 4, 5), 48);
    v128.store(p, v128.shuffle<f32>(t01, t23, 2, 3, 6, 7), 72);
    const s45 = v128.shuffle<f32>(x4, x5, 0, 4, 1, 5); // (r0c4, r0c5, r1c4, r1c5)
    const t45 = v128.shuffle<f32>(x4, x5, 2, 6, 3, 7); // (r2c4, r2c5, r3c4, r3c5)
    v128.store64_lane(p, s45, 0, 16);
    v128.store64_lane(p, s45, 1, 40);
    v128.store64_lane(p, t45, 0, 64);
    v128.store64_lane(p, t45, 1, 88);
  }
  for (; i < R; i++) rowBelow6<f32>(val, base, i);
}

/** one row i below a 6-wide diagonal block, scalar */
function rowBelow6<T>(val: usize, base: i32, i: i32): void {
  const ri = base + i * 6;
  for (let j = 0; j < 6; j++) {
    const rj = base + j * 6;
    let s = dl<T>(val, ri + j);
    for (let k = 0; k < j; k++) s = s - dl<T>(val, ri + k) * dl<T>(val, rj + k);
    ds<T>(val, ri + j, s / dl<T>(val, rj + j));
  }
}

/** {@link factorPanels} in binary64 */
export function factor64(val: usize): i32 {
  return factorPanels<f64>(val);
}

/** {@link factorPanels} in binary32, on the binary32 panels {@link demote32} wrote */
export function factor32(val: usize): i32 {
  return factorPanels<f32>(val);
}

/**
 * solves L Lᵀ y = y in place (permuted numbering) in T arithmetic (T panels, f64 y). Per row: the terms
 * of the other blocks, then the block's own, then the division, as in the JS twin; two rows of a
 * block go together through the other blocks' terms (independent sums, interleaved), then finish
 * one after the other.
 */
function substitutePanels<T>(val: usize, y: usize): void {
  for (let I = 0; I < nb; I++) {
    const nI = gi(size, I);
    const dI = gi(dofStart, I);
    const pI = gi(pOff, I);
    const r0 = gi(rPtr, I);
    const r1 = gi(rPtr, I + 1);
    let i = 0;
    for (; i + 1 < nI; i += 2) {
      let s = ld<T>(y, dI + i);
      let u = ld<T>(y, dI + i + 1);
      for (let r = r0; r < r1; r++) {
        const K = gi(rBlk, r);
        const nK = gi(size, K);
        const o = gi(rOff, r) + i * nK;
        const dK = gi(dofStart, K);
        for (let k = 0; k < nK; k++) {
          const yk = ld<T>(y, dK + k);
          s = s - dl<T>(val, o + k) * yk;
          u = u - dl<T>(val, o + nK + k) * yk;
        }
      }
      const o = pI + i * nI;
      for (let k = 0; k < i; k++) s = s - dl<T>(val, o + k) * ld<T>(y, dI + k);
      const yi = s / dl<T>(val, o + i);
      st<T>(y, dI + i, yi);
      const o1 = o + nI;
      for (let k = 0; k < i; k++) u = u - dl<T>(val, o1 + k) * ld<T>(y, dI + k);
      u = u - dl<T>(val, o1 + i) * yi;
      st<T>(y, dI + i + 1, u / dl<T>(val, o1 + i + 1));
    }
    if (i < nI) {
      let s = ld<T>(y, dI + i);
      for (let r = r0; r < r1; r++) {
        const K = gi(rBlk, r);
        const nK = gi(size, K);
        const o = gi(rOff, r) + i * nK;
        const dK = gi(dofStart, K);
        for (let k = 0; k < nK; k++) s = s - dl<T>(val, o + k) * ld<T>(y, dK + k);
      }
      const o = pI + i * nI;
      for (let k = 0; k < i; k++) s = s - dl<T>(val, o + k) * ld<T>(y, dI + k);
      st<T>(y, dI + i, s / dl<T>(val, o + i));
    }
  }
  for (let I = nb - 1; I >= 0; I--) {
    const nI = gi(size, I);
    const dI = gi(dofStart, I);
    const pI = gi(pOff, I);
    const e0 = gi(sPtr, I);
    const e1 = gi(sPtr, I + 1);
    let i = nI - 1;
    for (; i >= 1; i -= 2) {
      // rows i and i − 1, k descending: the blocks below (last first), then this block's own
      let s = ld<T>(y, dI + i);
      let u = ld<T>(y, dI + i - 1);
      for (let e = e1 - 1; e >= e0; e--) {
        const K = gi(sIdx, e);
        const o = pI + gi(sRow, e) * nI + i;
        const dK = gi(dofStart, K);
        for (let k = gi(size, K) - 1; k >= 0; k--) {
          const yk = ld<T>(y, dK + k);
          s = s - dl<T>(val, o + k * nI) * yk;
          u = u - dl<T>(val, o + k * nI - 1) * yk;
        }
      }
      for (let k = nI - 1; k > i; k--) s = s - dl<T>(val, pI + k * nI + i) * ld<T>(y, dI + k);
      const xi = s / dl<T>(val, pI + i * nI + i);
      st<T>(y, dI + i, xi);
      for (let k = nI - 1; k > i; k--) u = u - dl<T>(val, pI + k * nI + i - 1) * ld<T>(y, dI + k);
      u = u - dl<T>(val, pI + i * nI + i - 1) * xi;
      st<T>(y, dI + i - 1, u / dl<T>(val, pI + (i - 1) * nI + i - 1));
    }
    if (i == 0) {
      let s = ld<T>(y, dI);
      for (let e = e1 - 1; e >= e0; e--) {
        const K = gi(sIdx, e);
        const o = pI + gi(sRow, e) * nI;
        const dK = gi(dofStart, K);
        for (let k = gi(size, K) - 1; k >= 0; k--) s = s - dl<T>(val, o + k * nI) * ld<T>(y, dK + k);
      }
      for (let k = nI - 1; k > 0; k--) s = s - dl<T>(val, pI + k * nI) * ld<T>(y, dI + k);
      st<T>(y, dI, s / dl<T>(val, pI));
    }
  }
}

/** {@link substitutePanels} in binary64 */
export function substitute64(val: usize, y: usize): void {
  substitutePanels<f64>(val, y);
}

/** {@link substitutePanels} in binary32 on binary32 panels (y already rounded to binary32) */
export function substitute32(val: usize, y: usize): void {
  substitutePanels<f32>(val, y);
}

// ---------------------------------------------------------------------------------------------
// dense Cholesky (twins of factorRows64/factorRows32/choleskySolve in ../cholesky.ts): n×n
// row-major, lower triangle; fp64 kernels on f64 storage, fp32 kernels on f32 storage.
// The factorization works on a column-major copy t of the lower triangle (t[k·n + i] = L_ik,
// i ≥ k; n² T entries of scratch beside the matrix), where the entries of four consecutive rows
// in one column are adjacent: four rows advance together, one f32x4 or two f64x2 lanes per
// column, each lane the scalar sequence of its entry. Every entry of L also goes to the row-major
// storage as it is computed (column pairs through 2 × 2 register transposes), which the backward
// substitution reads; the forward substitution reads t, four rows in lanes again.

/** byte address of entry e of T storage at p */
function at<T>(p: usize, e: i32): usize {
  return p + <usize>e * sizeof<T>();
}

/**
 * Cholesky in place on the lower triangle of the row-major n×n `a` (T storage) through the
 * column-major scratch `t`; first bad pivot or −1 (then rows before the pivot hold their factor).
 * The n mod 4 first rows one at a time ({@link factorRow1}), then four at a time
 * ({@link factorRows4}). Every entry receives its terms k ascending and then its division or
 * square root, as in the JS kernels, so neither the blocking nor the lanes change the result.
 */
function denseFactor<T>(a: usize, n: i32, t: usize): i32 {
  lowerToColumns<T, T>(a, n, t);
  return factorColumns<T>(a, n, t);
}

/**
 * t ← the lower triangle of the row-major n×n matrix at src (S storage: f64, or T itself) in T
 * storage, column-major, in 2 × 2 register transposes (two row pairs in, two column pairs out); the
 * narrowing to binary32 (f32x4.demote) rounds as the scalar cast does
 */
function lowerToColumns<S, T>(src: usize, n: i32, t: usize): void {
  let i = 0;
  for (; i + 1 < n; i += 2) {
    for (let j = 0; j + 1 < i; j += 2) {
      const p0 = at<S>(src, i * n + j);
      const p1 = at<S>(src, (i + 1) * n + j);
      const q0 = at<T>(t, j * n + i);
      const q1 = at<T>(t, (j + 1) * n + i);
      if (sizeof<S>() == 4) {
        const c = i32x4.shuffle(v128.load64_zero(p0), v128.load64_zero(p1), 0, 4, 1, 5);
        v128.store64_lane(q0, c, 0);
        v128.store64_lane(q1, c, 1);
        continue;
      }
      const x = v128.load(p0);
      const y = v128.load(p1);
      const c0 = i64x2.shuffle(x, y, 0, 2);
      const c1 = i64x2.shuffle(x, y, 1, 3);
      if (sizeof<T>() == 4) {
        v128.store64_lane(q0, f32x4.demote_f64x2_zero(c0), 0);
        v128.store64_lane(q1, f32x4.demote_f64x2_zero(c1), 0);
      } else {
        v128.store(q0, c0);
        v128.store(q1, c1);
      }
    }
    // columns i and i+1 of the two rows
    ds<T>(t, i * n + i, <T>dl<S>(src, i * n + i));
    ds<T>(t, i * n + i + 1, <T>dl<S>(src, (i + 1) * n + i));
    ds<T>(t, (i + 1) * n + i + 1, <T>dl<S>(src, (i + 1) * n + i + 1));
  }
  if (i < n) for (let j = 0; j <= i; j++) ds<T>(t, j * n + i, <T>dl<S>(src, i * n + j));
}

/**
 * the factorization of the column-major t, each entry of L also stored row-major into a; first bad
 * pivot or −1
 */
function factorColumns<T>(a: usize, n: i32, t: usize): i32 {
  let i = 0;
  const lead = n & 3;
  for (; i < lead; i++) {
    const p = factorRow1<T>(a, n, t, i);
    if (p >= 0) return p;
  }
  // eight rows at a time where they fit (two chains of divisions in flight)
  for (; i + 7 < n; i += 8) {
    const p = sizeof<T>() == 8 ? factorRows8x64(a, n, t, i) : factorRows8x32(a, n, t, i);
    if (p >= 0) return p;
  }
  for (; i < n; i += 4) {
    const p = factorRows4<T>(a, n, t, i);
    if (p >= 0) return p;
  }
  return -1;
}

/** {@link factorRows8x64} in binary32: a column's eight rows in two f32x4 */
function factorRows8x32(a: usize, n: i32, t: usize, i: i32): i32 {
  // (the columns j < i of both halves: two vectors of binary32 rows; an odd last column too)
  columnPairs2v<f32>(a, n, t, i, 0, i);
  const p = diagonal4x32(a, n, t, i);
  if (p >= 0) return p;
  columnPairs4x32(a, n, t, i + 4, i, i + 4);
  return diagonal4x32(a, n, t, i + 4);
}

/**
 * binary64, rows i … i+7: the columns j < i of both four-row halves in one pass (the two halves'
 * chains of divisions are independent: the second need not wait for the first), then the first
 * half's diagonal block, the second half's columns i … i+3 and its diagonal block. Every entry
 * receives the operations of {@link factorRows4}, in the same order.
 */
function factorRows8x64(a: usize, n: i32, t: usize, i: i32): i32 {
  const r0 = i * n;
  let j = 0;
  for (; j + 1 < i; j += 2) {
    const p0 = at<f64>(t, j * n + i);
    const p1 = at<f64>(t, (j + 1) * n + i);
    let a0 = v128.load(p0);
    let b0 = v128.load(p0, 16);
    let c0 = v128.load(p0, 32);
    let d0 = v128.load(p0, 48);
    let a1 = v128.load(p1);
    let b1 = v128.load(p1, 16);
    let c1 = v128.load(p1, 32);
    let d1 = v128.load(p1, 48);
    for (let k = 0; k < j; k++) {
      const ck = at<f64>(t, k * n);
      const pi = ck + ((<usize>i) << 3);
      const x0 = v128.load(pi);
      const x1 = v128.load(pi, 16);
      const x2 = v128.load(pi, 32);
      const x3 = v128.load(pi, 48);
      const y0 = v128.load64_splat(ck + ((<usize>j) << 3));
      const y1 = v128.load64_splat(ck + ((<usize>j) << 3), 8);
      a0 = f64x2.sub(a0, f64x2.mul(x0, y0));
      b0 = f64x2.sub(b0, f64x2.mul(x1, y0));
      c0 = f64x2.sub(c0, f64x2.mul(x2, y0));
      d0 = f64x2.sub(d0, f64x2.mul(x3, y0));
      a1 = f64x2.sub(a1, f64x2.mul(x0, y1));
      b1 = f64x2.sub(b1, f64x2.mul(x1, y1));
      c1 = f64x2.sub(c1, f64x2.mul(x2, y1));
      d1 = f64x2.sub(d1, f64x2.mul(x3, y1));
    }
    const ljj = v128.load64_splat(at<f64>(t, j * n + j));
    const l0 = f64x2.div(a0, ljj);
    const m0 = f64x2.div(b0, ljj);
    const n0 = f64x2.div(c0, ljj);
    const o0 = f64x2.div(d0, ljj);
    v128.store(p0, l0);
    v128.store(p0, m0, 16);
    v128.store(p0, n0, 32);
    v128.store(p0, o0, 48);
    const c = v128.load64_splat(at<f64>(t, j * n + j + 1));
    const lkk = v128.load64_splat(at<f64>(t, (j + 1) * n + j + 1));
    const l1 = f64x2.div(f64x2.sub(a1, f64x2.mul(l0, c)), lkk);
    const m1 = f64x2.div(f64x2.sub(b1, f64x2.mul(m0, c)), lkk);
    const n1 = f64x2.div(f64x2.sub(c1, f64x2.mul(n0, c)), lkk);
    const o1 = f64x2.div(f64x2.sub(d1, f64x2.mul(o0, c)), lkk);
    v128.store(p1, l1);
    v128.store(p1, m1, 16);
    v128.store(p1, n1, 32);
    v128.store(p1, o1, 48);
    // rows i … i+7 of the pair (L_rj, L_r,j+1), adjacent in the row-major a
    const q = at<f64>(a, r0 + j);
    const row = (<usize>n) << 3;
    v128.store(q, i64x2.shuffle(l0, l1, 0, 2));
    v128.store(q + row, i64x2.shuffle(l0, l1, 1, 3));
    v128.store(q + 2 * row, i64x2.shuffle(m0, m1, 0, 2));
    v128.store(q + 3 * row, i64x2.shuffle(m0, m1, 1, 3));
    v128.store(q + 4 * row, i64x2.shuffle(n0, n1, 0, 2));
    v128.store(q + 5 * row, i64x2.shuffle(n0, n1, 1, 3));
    v128.store(q + 6 * row, i64x2.shuffle(o0, o1, 0, 2));
    v128.store(q + 7 * row, i64x2.shuffle(o0, o1, 1, 3));
  }
  if (j < i) {
    // (one column left: the halves one after the other, as factorRows4 takes it)
    columnPairs2v<f64>(a, n, t, i, j, i);
    columnPairs2v<f64>(a, n, t, i + 4, j, i);
  }
  const p = diagonal4x64(a, n, t, i);
  if (p >= 0) return p;
  columnPairs2v<f64>(a, n, t, i + 4, i, i + 4);
  return diagonal4x64(a, n, t, i + 4);
}

/** row i alone */
function factorRow1<T>(a: usize, n: i32, t: usize, i: i32): i32 {
  for (let j = 0; j < i; j++) {
    let s = dl<T>(t, j * n + i);
    for (let k = 0; k < j; k++) s = s - dl<T>(t, k * n + i) * dl<T>(t, k * n + j);
    const l = s / dl<T>(t, j * n + j);
    ds<T>(t, j * n + i, l);
    ds<T>(a, i * n + j, l);
  }
  let d = dl<T>(t, i * n + i);
  for (let k = 0; k < i; k++) {
    const x = dl<T>(t, k * n + i);
    d = d - x * x;
  }
  if (!(d > 0)) return i;
  const l = sqrt<T>(d);
  ds<T>(t, i * n + i, l);
  ds<T>(a, i * n + i, l);
  return -1;
}

/**
 * rows i … i+3 (column-major t): the columns j < i in pairs, the four rows of a column in lanes,
 * then the 4 × 4 diagonal block (its terms k < i in lanes, its own terms in scalar order)
 */
function factorRows4<T>(a: usize, n: i32, t: usize, i: i32): i32 {
  if (sizeof<T>() == 4) {
    columnPairs4x32(a, n, t, i, 0, i);
    return diagonal4x32(a, n, t, i);
  }
  columnPairs2v<f64>(a, n, t, i, 0, i);
  return diagonal4x64(a, n, t, i);
}

/**
 * binary32: the entries of rows i … i+3 in columns j0 … j1−1 (j1 ≤ i; column-major t, row-major
 * a): the columns in pairs, the four rows of a column in the lanes of one f32x4, each entry its
 * terms k ascending then its division
 */
function columnPairs4x32(a: usize, n: i32, t: usize, i: i32, j0: i32, j1: i32): void {
  const r0 = i * n;
  let j = j0;
  for (; j + 1 < j1; j += 2) {
    const p0 = at<f32>(t, j * n + i);
    const p1 = at<f32>(t, (j + 1) * n + i);
    let a0 = v128.load(p0);
    let a1 = v128.load(p1);
    for (let k = 0; k < j; k++) {
      const ck = at<f32>(t, k * n);
      const x = v128.load(ck + ((<usize>i) << 2));
      a0 = f32x4.sub(a0, f32x4.mul(x, v128.load32_splat(ck + ((<usize>j) << 2))));
      a1 = f32x4.sub(a1, f32x4.mul(x, v128.load32_splat(ck + ((<usize>j) << 2), 4)));
    }
    const l = f32x4.div(a0, v128.load32_splat(at<f32>(t, j * n + j)));
    v128.store(p0, l);
    a1 = f32x4.sub(a1, f32x4.mul(l, v128.load32_splat(at<f32>(t, j * n + j + 1))));
    const m = f32x4.div(a1, v128.load32_splat(at<f32>(t, (j + 1) * n + j + 1)));
    v128.store(p1, m);
    // rows i … i+3 of the pair (L_rj, L_r,j+1), adjacent in the row-major a
    const q = at<f32>(a, r0 + j);
    const lo = i32x4.shuffle(l, m, 0, 4, 1, 5);
    const hi = i32x4.shuffle(l, m, 2, 6, 3, 7);
    v128.store64_lane(q, lo, 0);
    v128.store64_lane(q + ((<usize>n) << 2), lo, 1);
    v128.store64_lane(q + ((<usize>n) << 3), hi, 0);
    v128.store64_lane(q + ((<usize>(3 * n)) << 2), hi, 1);
  }
  if (j < j1) {
    const p0 = at<f32>(t, j * n + i);
    let a0 = v128.load(p0);
    for (let k = 0; k < j; k++) {
      const ck = at<f32>(t, k * n);
      a0 = f32x4.sub(
        a0,
        f32x4.mul(v128.load(ck + ((<usize>i) << 2)), v128.load32_splat(ck + ((<usize>j) << 2))),
      );
    }
    const l = f32x4.div(a0, v128.load32_splat(at<f32>(t, j * n + j)));
    v128.store(p0, l);
    const q = at<f32>(a, r0 + j);
    v128.store32_lane(q, l, 0);
    v128.store32_lane(q + ((<usize>n) << 2), l, 1);
    v128.store32_lane(q + ((<usize>n) << 3), l, 2);
    v128.store32_lane(q + ((<usize>(3 * n)) << 2), l, 3);
  }
}

/** binary32: the 4 × 4 diagonal block of rows i … i+3 (its terms k < i in lanes, then in order) */
function diagonal4x32(a: usize, n: i32, t: usize, i: i32): i32 {
  // the diagonal block's columns i … i+3 over rows i … i+3 (lanes above the diagonal unused)
  let c0 = v128.load(at<f32>(t, i * n + i));
  let c1 = v128.load(at<f32>(t, (i + 1) * n + i));
  let c2 = v128.load(at<f32>(t, (i + 2) * n + i));
  let c3 = v128.load(at<f32>(t, (i + 3) * n + i));
  for (let k = 0; k < i; k++) {
    const ck = at<f32>(t, k * n + i);
    const x = v128.load(ck);
    c0 = f32x4.sub(c0, f32x4.mul(x, v128.load32_splat(ck)));
    c1 = f32x4.sub(c1, f32x4.mul(x, v128.load32_splat(ck, 4)));
    c2 = f32x4.sub(c2, f32x4.mul(x, v128.load32_splat(ck, 8)));
    c3 = f32x4.sub(c3, f32x4.mul(x, v128.load32_splat(ck, 12)));
  }
  return diagonalBlock4<f32>(
    a,
    t,
    n,
    i,
    f32x4.extract_lane(c0, 0),
    f32x4.extract_lane(c0, 1),
    f32x4.extract_lane(c0, 2),
    f32x4.extract_lane(c0, 3),
    f32x4.extract_lane(c1, 1),
    f32x4.extract_lane(c1, 2),
    f32x4.extract_lane(c1, 3),
    f32x4.extract_lane(c2, 2),
    f32x4.extract_lane(c2, 3),
    f32x4.extract_lane(c3, 3),
  );
}

/** lane arithmetic of T: f32x4 for binary32, f64x2 for binary64 */
function vsub<T>(x: v128, y: v128): v128 {
  return sizeof<T>() == 4 ? f32x4.sub(x, y) : f64x2.sub(x, y);
}
function vmul<T>(x: v128, y: v128): v128 {
  return sizeof<T>() == 4 ? f32x4.mul(x, y) : f64x2.mul(x, y);
}
function vdiv<T>(x: v128, y: v128): v128 {
  return sizeof<T>() == 4 ? f32x4.div(x, y) : f64x2.div(x, y);
}
/** the T at p in every lane */
function vsplat<T>(p: usize): v128 {
  return sizeof<T>() == 4 ? v128.load32_splat(p) : v128.load64_splat(p);
}

/**
 * row-major stores of the rows of one vector of column j (`l`) and the same rows of column j+1
 * (`m`): each row's pair (L_rj, L_r,j+1) at q + r·row (rows of q's first row on)
 */
function storeRowPairs<T>(q: usize, row: usize, l: v128, m: v128): void {
  if (sizeof<T>() == 4) {
    const lo = i32x4.shuffle(l, m, 0, 4, 1, 5);
    const hi = i32x4.shuffle(l, m, 2, 6, 3, 7);
    v128.store64_lane(q, lo, 0);
    v128.store64_lane(q + row, lo, 1);
    v128.store64_lane(q + 2 * row, hi, 0);
    v128.store64_lane(q + 3 * row, hi, 1);
    return;
  }
  v128.store(q, i64x2.shuffle(l, m, 0, 2));
  v128.store(q + row, i64x2.shuffle(l, m, 1, 3));
}

/** row-major stores of the rows of one vector of column j: L_rj at q + r·row */
function storeRows<T>(q: usize, row: usize, l: v128): void {
  if (sizeof<T>() == 4) {
    v128.store32_lane(q, l, 0);
    v128.store32_lane(q + row, l, 1);
    v128.store32_lane(q + 2 * row, l, 2);
    v128.store32_lane(q + 3 * row, l, 3);
    return;
  }
  v128.store64_lane(q, l, 0);
  v128.store64_lane(q + row, l, 1);
}

/**
 * the entries of the rows of two vectors from row i (binary64: rows i … i+3, binary32: i … i+7)
 * in columns j0 … j1−1 (j1 ≤ i; column-major t, row-major a): the columns in pairs, each entry its
 * terms k ascending then its division
 */
function columnPairs2v<T>(a: usize, n: i32, t: usize, i: i32, j0: i32, j1: i32): void {
  const r0 = i * n;
  const sz = <usize>sizeof<T>();
  const row = <usize>n * sz;
  const half = 16 / sz; // rows per vector
  let j = j0;
  for (; j + 1 < j1; j += 2) {
    const p0 = at<T>(t, j * n + i);
    const p1 = at<T>(t, (j + 1) * n + i);
    let a0 = v128.load(p0);
    let b0 = v128.load(p0, 16);
    let a1 = v128.load(p1);
    let b1 = v128.load(p1, 16);
    for (let k = 0; k < j; k++) {
      const ck = at<T>(t, k * n);
      const pi = ck + <usize>i * sz;
      const x = v128.load(pi);
      const z = v128.load(pi, 16);
      const y0 = vsplat<T>(ck + <usize>j * sz);
      const y1 = vsplat<T>(ck + <usize>(j + 1) * sz);
      a0 = vsub<T>(a0, vmul<T>(x, y0));
      b0 = vsub<T>(b0, vmul<T>(z, y0));
      a1 = vsub<T>(a1, vmul<T>(x, y1));
      b1 = vsub<T>(b1, vmul<T>(z, y1));
    }
    const ljj = vsplat<T>(at<T>(t, j * n + j));
    const l0 = vdiv<T>(a0, ljj);
    const m0 = vdiv<T>(b0, ljj);
    v128.store(p0, l0);
    v128.store(p0, m0, 16);
    const c = vsplat<T>(at<T>(t, j * n + j + 1));
    const lkk = vsplat<T>(at<T>(t, (j + 1) * n + j + 1));
    const l1 = vdiv<T>(vsub<T>(a1, vmul<T>(l0, c)), lkk);
    const m1 = vdiv<T>(vsub<T>(b1, vmul<T>(m0, c)), lkk);
    v128.store(p1, l1);
    v128.store(p1, m1, 16);
    const q = at<T>(a, r0 + j);
    storeRowPairs<T>(q, row, l0, l1);
    storeRowPairs<T>(q + half * row, row, m0, m1);
  }
  if (j < j1) {
    const p0 = at<T>(t, j * n + i);
    let a0 = v128.load(p0);
    let b0 = v128.load(p0, 16);
    for (let k = 0; k < j; k++) {
      const ck = at<T>(t, k * n);
      const pi = ck + <usize>i * sz;
      const y = vsplat<T>(ck + <usize>j * sz);
      a0 = vsub<T>(a0, vmul<T>(v128.load(pi), y));
      b0 = vsub<T>(b0, vmul<T>(v128.load(pi, 16), y));
    }
    const ljj = vsplat<T>(at<T>(t, j * n + j));
    const l0 = vdiv<T>(a0, ljj);
    const m0 = vdiv<T>(b0, ljj);
    v128.store(p0, l0);
    v128.store(p0, m0, 16);
    const q = at<T>(a, r0 + j);
    storeRows<T>(q, row, l0);
    storeRows<T>(q + half * row, row, m0);
  }
}

/** binary64: the 4 × 4 diagonal block of rows i … i+3 (its terms k < i in lanes, then in order) */
function diagonal4x64(a: usize, n: i32, t: usize, i: i32): i32 {
  // the diagonal block: column i over rows i … i+3, column i+1 over rows i … i+3 (row i unused),
  // columns i+2 and i+3 over rows i+2, i+3 (row i+2 of column i+3 unused)
  const q0 = at<f64>(t, i * n + i);
  const q1 = at<f64>(t, (i + 1) * n + i);
  const q2 = at<f64>(t, (i + 2) * n + i);
  const q3 = at<f64>(t, (i + 3) * n + i);
  let c0 = v128.load(q0);
  let e0 = v128.load(q0, 16);
  let c1 = v128.load(q1);
  let e1 = v128.load(q1, 16);
  let e2 = v128.load(q2, 16);
  let e3 = v128.load(q3, 16);
  for (let k = 0; k < i; k++) {
    const ck = at<f64>(t, k * n + i);
    const x = v128.load(ck);
    const z = v128.load(ck, 16);
    const y0 = v128.load64_splat(ck);
    const y1 = v128.load64_splat(ck, 8);
    const y2 = v128.load64_splat(ck, 16);
    const y3 = v128.load64_splat(ck, 24);
    c0 = f64x2.sub(c0, f64x2.mul(x, y0));
    e0 = f64x2.sub(e0, f64x2.mul(z, y0));
    c1 = f64x2.sub(c1, f64x2.mul(x, y1));
    e1 = f64x2.sub(e1, f64x2.mul(z, y1));
    e2 = f64x2.sub(e2, f64x2.mul(z, y2));
    e3 = f64x2.sub(e3, f64x2.mul(z, y3));
  }
  return diagonalBlock4<f64>(
    a,
    t,
    n,
    i,
    f64x2.extract_lane(c0, 0),
    f64x2.extract_lane(c0, 1),
    f64x2.extract_lane(e0, 0),
    f64x2.extract_lane(e0, 1),
    f64x2.extract_lane(c1, 1),
    f64x2.extract_lane(e1, 0),
    f64x2.extract_lane(e1, 1),
    f64x2.extract_lane(e2, 0),
    f64x2.extract_lane(e2, 1),
    f64x2.extract_lane(e3, 1),
  );
}

/**
 * the 4 × 4 diagonal block at rows and columns i … i+3 of the column-major t, from its entries
 * with the terms k < i taken (d: diagonal, s_rc: row r, column c of the block), its own terms in
 * scalar order; first bad pivot or −1
 */
function diagonalBlock4<T>(
  a: usize,
  t: usize,
  n: i32,
  i: i32,
  d0: T,
  s10: T,
  s20: T,
  s30: T,
  d1: T,
  s21: T,
  s31: T,
  d2: T,
  s32: T,
  d3: T,
): i32 {
  const c0 = i * n + i;
  const c1 = c0 + n;
  const c2 = c1 + n;
  const c3 = c2 + n;
  // row-major: row i+r, column i+c at c0 + r·n + c
  if (!(d0 > 0)) return i;
  const l00 = sqrt<T>(d0);
  ds<T>(t, c0, l00);
  ds<T>(a, c0, l00);
  const l10 = s10 / l00;
  ds<T>(t, c0 + 1, l10);
  ds<T>(a, c1, l10);
  d1 = d1 - l10 * l10;
  if (!(d1 > 0)) return i + 1;
  const l11 = sqrt<T>(d1);
  ds<T>(t, c1 + 1, l11);
  ds<T>(a, c1 + 1, l11);
  const l20 = s20 / l00;
  ds<T>(t, c0 + 2, l20);
  ds<T>(a, c2, l20);
  const l21 = (s21 - l20 * l10) / l11;
  ds<T>(t, c1 + 2, l21);
  ds<T>(a, c2 + 1, l21);
  d2 = d2 - l20 * l20;
  d2 = d2 - l21 * l21;
  if (!(d2 > 0)) return i + 2;
  const l22 = sqrt<T>(d2);
  ds<T>(t, c2 + 2, l22);
  ds<T>(a, c2 + 2, l22);
  const l30 = s30 / l00;
  ds<T>(t, c0 + 3, l30);
  ds<T>(a, c3, l30);
  const l31 = (s31 - l30 * l10) / l11;
  ds<T>(t, c1 + 3, l31);
  ds<T>(a, c3 + 1, l31);
  s32 = s32 - l30 * l20;
  const l32 = (s32 - l31 * l21) / l22;
  ds<T>(t, c2 + 3, l32);
  ds<T>(a, c3 + 2, l32);
  d3 = d3 - l30 * l30;
  d3 = d3 - l31 * l31;
  d3 = d3 - l32 * l32;
  if (!(d3 > 0)) return i + 3;
  const l33 = sqrt<T>(d3);
  ds<T>(t, c3 + 3, l33);
  ds<T>(a, c3 + 3, l33);
  return -1;
}

/** {@link denseFactor} in binary64 on f64 storage (scratch t: n² f64) */
export function denseFactor64(a: usize, n: i32, t: usize): i32 {
  return denseFactor<f64>(a, n, t);
}

/** {@link denseFactor} in binary32 on f32 storage (scratch t: n² f32) */
export function denseFactor32(a: usize, n: i32, t: usize): i32 {
  return denseFactor<f32>(a, n, t);
}

/**
 * t ← the lower triangle of H' = PHPᵀ in T storage, column-major (t[j·n + i] = H'(i, j), i ≥ j),
 * H'(i, j) = H(perm i, perm j) read from the lower triangle of the row-major n×n f64 matrix H
 * (perm = 0: the identity); DenseCholesky.factor's copy, inside the module
 */
function denseLoadColumns<T>(H: usize, t: usize, n: i32, perm: usize): void {
  if (perm == 0) {
    lowerToColumns<f64, T>(H, n, t);
    return;
  }
  for (let j = 0; j < n; j++) {
    const pj = gi(perm, j);
    for (let i = j; i < n; i++) {
      const pi = gi(perm, i);
      ds<T>(t, j * n + i, <T>(pi >= pj ? gd(H, pi * n + pj) : gd(H, pj * n + pi)));
    }
  }
}

/**
 * H' (see {@link denseLoadColumns}) factored into S (row-major, T storage) through the scratch t,
 * in binary64 (f32 false) or binary32; first bad pivot or −1
 */
export function denseLoadFactor(H: usize, S: usize, n: i32, perm: usize, f32: bool, t: usize): i32 {
  if (f32) {
    denseLoadColumns<f32>(H, t, n, perm);
    return factorColumns<f32>(S, n, t);
  }
  denseLoadColumns<f64>(H, t, n, perm);
  return factorColumns<f64>(S, n, t);
}

/**
 * x = H'⁻¹-solve of b with the factor in S and t (DenseCholesky.solve inside the module): r_i =
 * b[perm i] in T storage, L Lᵀ r = r, x[perm i] = r_i (f64 vectors; perm = 0: the identity)
 */
export function denseSolveInto(
  S: usize,
  n: i32,
  b: usize,
  x: usize,
  r: usize,
  perm: usize,
  f32: bool,
  t: usize,
): void {
  if (f32) {
    for (let i = 0; i < n; i++) ds<f32>(r, i, <f32>gd(b, perm == 0 ? i : gi(perm, i)));
    denseSolve<f32>(S, n, r, t);
    for (let i = 0; i < n; i++) sd(x, perm == 0 ? i : gi(perm, i), <f64>dl<f32>(r, i));
    return;
  }
  for (let i = 0; i < n; i++) ds<f64>(r, i, gd(b, perm == 0 ? i : gi(perm, i)));
  denseSolve<f64>(S, n, r, t);
  for (let i = 0; i < n; i++) sd(x, perm == 0 ? i : gi(perm, i), dl<f64>(r, i));
}

/**
 * L Lᵀ x = b in place (b ← x) in T on T storage, L row-major in `L` and column-major in `t` (both
 * from {@link denseFactor}); forward four rows at a time (their terms k < i in lanes over the
 * column-major t, then the block's own in order), then two and one; per-row order k ascending;
 * backward column by column, per-row order k descending
 */
function denseSolve<T>(L: usize, n: i32, b: usize, t: usize): void {
  let i = 0;
  for (; i + 3 < n; i += 4) {
    const r0 = i * n;
    const r1 = r0 + n;
    const r2 = r1 + n;
    const r3 = r2 + n;
    let s0: T, s1: T, s2: T, s3: T;
    if (sizeof<T>() == 4) {
      let acc = v128.load(at<T>(b, i));
      for (let k = 0; k < i; k++) {
        acc = f32x4.sub(acc, f32x4.mul(v128.load(at<T>(t, k * n + i)), v128.load32_splat(at<T>(b, k))));
      }
      s0 = <T>f32x4.extract_lane(acc, 0);
      s1 = <T>f32x4.extract_lane(acc, 1);
      s2 = <T>f32x4.extract_lane(acc, 2);
      s3 = <T>f32x4.extract_lane(acc, 3);
    } else {
      const pb = at<T>(b, i);
      let lo = v128.load(pb);
      let hi = v128.load(pb, 16);
      for (let k = 0; k < i; k++) {
        const ck = at<T>(t, k * n + i);
        const y = v128.load64_splat(at<T>(b, k));
        lo = f64x2.sub(lo, f64x2.mul(v128.load(ck), y));
        hi = f64x2.sub(hi, f64x2.mul(v128.load(ck, 16), y));
      }
      s0 = <T>f64x2.extract_lane(lo, 0);
      s1 = <T>f64x2.extract_lane(lo, 1);
      s2 = <T>f64x2.extract_lane(hi, 0);
      s3 = <T>f64x2.extract_lane(hi, 1);
    }
    const y0 = s0 / dl<T>(L, r0 + i);
    ds<T>(b, i, y0);
    s1 = s1 - dl<T>(L, r1 + i) * y0;
    const y1 = s1 / dl<T>(L, r1 + i + 1);
    ds<T>(b, i + 1, y1);
    s2 = s2 - dl<T>(L, r2 + i) * y0;
    s2 = s2 - dl<T>(L, r2 + i + 1) * y1;
    const y2 = s2 / dl<T>(L, r2 + i + 2);
    ds<T>(b, i + 2, y2);
    s3 = s3 - dl<T>(L, r3 + i) * y0;
    s3 = s3 - dl<T>(L, r3 + i + 1) * y1;
    s3 = s3 - dl<T>(L, r3 + i + 2) * y2;
    ds<T>(b, i + 3, s3 / dl<T>(L, r3 + i + 3));
  }
  for (; i + 1 < n; i += 2) {
    const ri = i * n;
    const r1 = ri + n;
    let s0 = dl<T>(b, i);
    let s1 = dl<T>(b, i + 1);
    for (let k = 0; k < i; k++) {
      const y = dl<T>(b, k);
      s0 = s0 - dl<T>(L, ri + k) * y;
      s1 = s1 - dl<T>(L, r1 + k) * y;
    }
    const y0 = s0 / dl<T>(L, ri + i);
    ds<T>(b, i, y0);
    s1 = s1 - dl<T>(L, r1 + i) * y0;
    ds<T>(b, i + 1, s1 / dl<T>(L, r1 + i + 1));
  }
  if (i < n) {
    const ri = i * n;
    let s = dl<T>(b, i);
    for (let k = 0; k < i; k++) s = s - dl<T>(L, ri + k) * dl<T>(b, k);
    ds<T>(b, i, s / dl<T>(L, ri + i));
  }
  // backward, column by column: x_k, then every i < k takes its term (k descending per row),
  // independent updates along the contiguous row k of L
  for (let k = n - 1; k >= 0; k--) {
    const o = k * n;
    const x = dl<T>(b, k) / dl<T>(L, o + k);
    ds<T>(b, k, x);
    if (k == 0) break;
    // the next pivot row's entry first, so that its division can start while the rest updates
    const top = k - 1;
    ds<T>(b, top, dl<T>(b, top) - dl<T>(L, o + top) * x);
    // (lanes: the scalar product then difference of each entry)
    let i = 0;
    if (sizeof<T>() == 4) {
      const vx = f32x4.splat(<f32>x);
      for (; i + 3 < top; i += 4) {
        const pb = b + ((<usize>i) << 2);
        v128.store(pb, f32x4.sub(v128.load(pb), f32x4.mul(v128.load(L + ((<usize>(o + i)) << 2)), vx)));
      }
    } else {
      const vx = f64x2.splat(<f64>x);
      for (; i + 1 < top; i += 2) {
        const pb = b + ((<usize>i) << 3);
        v128.store(pb, f64x2.sub(v128.load(pb), f64x2.mul(v128.load(L + ((<usize>(o + i)) << 3)), vx)));
      }
    }
    for (; i < top; i++) ds<T>(b, i, dl<T>(b, i) - dl<T>(L, o + i) * x);
  }
}

/** {@link denseSolve} in binary64 on f64 storage */
export function denseSolve64(L: usize, n: i32, b: usize, t: usize): void {
  denseSolve<f64>(L, n, b, t);
}

/** {@link denseSolve} in binary32 on f32 storage */
export function denseSolve32(L: usize, n: i32, b: usize, t: usize): void {
  denseSolve<f32>(L, n, b, t);
}

// ---------------------------------------------------------------------------------------------
// assembly of the constraint terms JᵀGJ into the block-sparse panels (twin of the constraint loop
// of SapSolver.assembleSparse with computeGJ and addRowJtT in ../../solver.ts: same loops, same
// skipped zero products, same order of additions per entry)

let aRows: usize = 0; // per constraint: rows r
let aGOff: usize = 0; // per constraint: offset of its r×r G block
let aBlkStart: usize = 0; // per constraint (+1): range of its Jacobian blocks
let aBlkClique: usize = 0; // per block: clique
let aBlkJ: usize = 0; // per block: offset of its r×n block in jd
let aBlkDiag: usize = 0; // per block: values offset of the clique's diagonal block
let aPairStart: usize = 0; // per constraint: first ordered pair
let aPairOff: usize = 0; // per ordered pair: values offset of the coupling block (−1 none)
let aPairT: usize = 0; // per ordered pair: 1 when the block is stored transposed
let aRedOff: usize = 0; // per clique: reduced offset (−1 not participating)
let aCliqueOff: usize = 0; // per clique (+1): global dof offset
let aColStart: usize = 0; // per block (+1): range of its nonzero columns
let aColIdx: usize = 0; // nonzero column indices
let aJ: usize = 0; // Jacobian blocks (f64)
let aT: usize = 0; // G·J scratch (f64, r × max n)

/** sets the constraint structure {@link assemble} reads (once per solve) */
export function setAssembly(
  rows: usize,
  gOff: usize,
  blkStart: usize,
  blkClique: usize,
  blkJ: usize,
  blkDiag: usize,
  pairStart: usize,
  pairOff: usize,
  pairT: usize,
  redOff: usize,
  cliqueOff: usize,
  colStart: usize,
  colIdx: usize,
  jd: usize,
  T: usize,
): void {
  aRows = rows;
  aGOff = gOff;
  aBlkStart = blkStart;
  aBlkClique = blkClique;
  aBlkJ = blkJ;
  aBlkDiag = blkDiag;
  aPairStart = pairStart;
  aPairOff = pairOff;
  aPairT = pairT;
  aRedOff = redOff;
  aCliqueOff = cliqueOff;
  aColStart = colStart;
  aColIdx = colIdx;
  aJ = jd;
  aT = T;
}

/** T = G·J_q over the nonzero columns of the block (computeGJ) */
function computeGJ(G: usize, go: i32, r: i32, jq: i32, nq: i32, q0: i32, q1: i32): void {
  const jd = aJ;
  const T = aT;
  const ci = aColIdx;
  if (r == 3) {
    const jq1 = jq + nq;
    const jq2 = jq + 2 * nq;
    if (q1 - q0 != nq) {
      // some columns (an articulated block): each column's three J entries loaded once for the
      // three rows of T (each entry: the scalar sum of the loop below, same order, same skips)
      const g00 = gd(G, go);
      const g01 = gd(G, go + 1);
      const g02 = gd(G, go + 2);
      const g10 = gd(G, go + 3);
      const g11 = gd(G, go + 4);
      const g12 = gd(G, go + 5);
      const g20 = gd(G, go + 6);
      const g21 = gd(G, go + 7);
      const g22 = gd(G, go + 8);
      const T1 = nq;
      const T2 = 2 * nq;
      for (let t = q0; t < q1; t++) {
        const s = gi(ci, t);
        const j0 = gd(jd, jq + s);
        const j1 = gd(jd, jq1 + s);
        const j2 = gd(jd, jq2 + s);
        let a0: f64 = 0;
        if (g00 != 0) a0 += g00 * j0;
        if (g01 != 0) a0 += g01 * j1;
        if (g02 != 0) a0 += g02 * j2;
        sd(T, s, a0);
        let a1: f64 = 0;
        if (g10 != 0) a1 += g10 * j0;
        if (g11 != 0) a1 += g11 * j1;
        if (g12 != 0) a1 += g12 * j2;
        sd(T, T1 + s, a1);
        let a2: f64 = 0;
        if (g20 != 0) a2 += g20 * j0;
        if (g21 != 0) a2 += g21 * j1;
        if (g22 != 0) a2 += g22 * j2;
        sd(T, T2 + s, a2);
      }
      return;
    }
    for (let k = 0; k < 3; k++) {
      const gk = go + 3 * k;
      const g0 = gd(G, gk);
      const g1 = gd(G, gk + 1);
      const g2 = gd(G, gk + 2);
      const z0 = g0 != 0;
      const z1 = g1 != 0;
      const z2 = g2 != 0;
      const tk = k * nq;
      let t = q0;
      if (q1 - q0 == nq) {
        // all columns: two entries per SIMD lane pair (each lane: the scalar sum, same order)
        const vg0 = f64x2.splat(g0);
        const vg1 = f64x2.splat(g1);
        const vg2 = f64x2.splat(g2);
        for (; t + 1 < q1; t += 2) {
          const s = t - q0;
          let acc = f64x2.splat(0);
          if (z0) acc = f64x2.add(acc, f64x2.mul(vg0, v128.load(jd + ((<usize>(jq + s)) << 3))));
          if (z1) acc = f64x2.add(acc, f64x2.mul(vg1, v128.load(jd + ((<usize>(jq1 + s)) << 3))));
          if (z2) acc = f64x2.add(acc, f64x2.mul(vg2, v128.load(jd + ((<usize>(jq2 + s)) << 3))));
          v128.store(T + ((<usize>(tk + s)) << 3), acc);
        }
      }
      for (; t < q1; t++) {
        const s = gi(ci, t);
        let acc: f64 = 0;
        if (z0) acc += g0 * gd(jd, jq + s);
        if (z1) acc += g1 * gd(jd, jq1 + s);
        if (z2) acc += g2 * gd(jd, jq2 + s);
        sd(T, tk + s, acc);
      }
    }
    return;
  }
  for (let k = 0; k < r; k++) {
    const gk = go + k * r;
    const tk = k * nq;
    let l0 = 0;
    while (l0 < r && gd(G, gk + l0) == 0) l0++;
    if (l0 == r) {
      for (let t = q0; t < q1; t++) sd(T, tk + gi(ci, t), 0);
      continue;
    }
    let nzAfter = false;
    for (let l = l0 + 1; l < r; l++) if (gd(G, gk + l) != 0) nzAfter = true;
    if (!nzAfter) {
      const g = gd(G, gk + l0);
      const jl = jq + l0 * nq;
      for (let t = q0; t < q1; t++) {
        const s = gi(ci, t);
        sd(T, tk + s, 0 + g * gd(jd, jl + s));
      }
      continue;
    }
    for (let t = q0; t < q1; t++) {
      const s = gi(ci, t);
      let acc: f64 = 0;
      for (let l = l0; l < r; l++) {
        const g = gd(G, gk + l);
        if (g != 0) acc += g * gd(jd, jq + l * nq + s);
      }
      sd(T, tk + s, acc);
    }
  }
}

/**
 * val[target + a·rowStride + s·colStride] += Σ_k J_p[k][a]·T[k][s] over the nonzero columns a of
 * block p and s of block q (s ≤ a when p is q): addRowJtT for every row a, with the contact
 * (r = 3) rows fused per entry. Same additions in the same order as the JS loops.
 */
function addJtT(
  val: usize,
  target: i32,
  rowStride: i32,
  colStride: i32,
  r: i32,
  jp: i32,
  np: i32,
  p0: i32,
  p1: i32,
  same: bool,
  nq: i32,
  q0: i32,
  q1: i32,
): void {
  const jd = aJ;
  const T = aT;
  const ci = aColIdx;
  if (r == 3) {
    const T1 = nq;
    const T2 = 2 * nq;
    if (p1 - p0 == np && q1 - q0 == nq && rowStride == 1 && !same) {
      // a transposed coupling block: its columns s are contiguous in a, two rows a per SIMD lane
      // pair; a lane whose J_p entry is 0 keeps its value (the scalar loop skips that product)
      const zero = f64x2.splat(0);
      for (let s = 0; s < nq; s++) {
        const col = target + s * colStride;
        const t0 = f64x2.splat(gd(T, s));
        const t1 = f64x2.splat(gd(T, T1 + s));
        const t2 = f64x2.splat(gd(T, T2 + s));
        let a = 0;
        for (; a + 1 < np; a += 2) {
          const px = val + ((<usize>(col + a)) << 3);
          let h = v128.load(px);
          const j0 = v128.load(jd + ((<usize>(jp + a)) << 3));
          const j1 = v128.load(jd + ((<usize>(jp + np + a)) << 3));
          const j2 = v128.load(jd + ((<usize>(jp + 2 * np + a)) << 3));
          h = v128.bitselect(f64x2.add(h, f64x2.mul(j0, t0)), h, f64x2.ne(j0, zero));
          h = v128.bitselect(f64x2.add(h, f64x2.mul(j1, t1)), h, f64x2.ne(j1, zero));
          h = v128.bitselect(f64x2.add(h, f64x2.mul(j2, t2)), h, f64x2.ne(j2, zero));
          v128.store(px, h);
        }
        for (; a < np; a++) {
          const x = col + a;
          const j0 = gd(jd, jp + a);
          const j1 = gd(jd, jp + np + a);
          const j2 = gd(jd, jp + 2 * np + a);
          let h = gd(val, x);
          if (j0 != 0) h += j0 * gd(T, s);
          if (j1 != 0) h += j1 * gd(T, T1 + s);
          if (j2 != 0) h += j2 * gd(T, T2 + s);
          sd(val, x, h);
        }
      }
      return;
    }
    if (p1 - p0 == np && q1 - q0 == nq) {
      for (let a = 0; a < np; a++) {
        const row = target + a * rowStride;
        const j0 = gd(jd, jp + a);
        const j1 = gd(jd, jp + np + a);
        const j2 = gd(jd, jp + 2 * np + a);
        const n0 = j0 != 0;
        const n1 = j1 != 0;
        const n2 = j2 != 0;
        const sEnd = same ? a + 1 : nq;
        let s = 0;
        if (colStride == 1) {
          // contiguous row: two entries per SIMD lane pair (each lane: the scalar sum, same order)
          const v0 = f64x2.splat(j0);
          const v1 = f64x2.splat(j1);
          const v2 = f64x2.splat(j2);
          for (; s + 1 < sEnd; s += 2) {
            const px = val + ((<usize>(row + s)) << 3);
            let h = v128.load(px);
            if (n0) h = f64x2.add(h, f64x2.mul(v0, v128.load(T + ((<usize>s) << 3))));
            if (n1) h = f64x2.add(h, f64x2.mul(v1, v128.load(T + ((<usize>(T1 + s)) << 3))));
            if (n2) h = f64x2.add(h, f64x2.mul(v2, v128.load(T + ((<usize>(T2 + s)) << 3))));
            v128.store(px, h);
          }
        }
        for (; s < sEnd; s++) {
          const x = row + s * colStride;
          let h = gd(val, x);
          if (n0) h += j0 * gd(T, s);
          if (n1) h += j1 * gd(T, T1 + s);
          if (n2) h += j2 * gd(T, T2 + s);
          sd(val, x, h);
        }
      }
      return;
    }
    for (let ta = p0; ta < p1; ta++) {
      const a = gi(ci, ta);
      const row = target + a * rowStride;
      const j0 = gd(jd, jp + a);
      const j1 = gd(jd, jp + np + a);
      const j2 = gd(jd, jp + 2 * np + a);
      const n0 = j0 != 0;
      const n1 = j1 != 0;
      const n2 = j2 != 0;
      // same block: the column list is the row list, so s ≤ a ⇔ t ≤ ta
      const tEnd = same ? ta + 1 : q1;
      if (n0 && n1 && n2 && ta + 1 < p1) {
        const b = gi(ci, ta + 1);
        const k0 = gd(jd, jp + b);
        const k1 = gd(jd, jp + np + b);
        const k2 = gd(jd, jp + 2 * np + b);
        if (k0 != 0 && k1 != 0 && k2 != 0) {
          // rows a and b together: each T column loaded once for both (every entry: its own
          // three products in order, as one row at a time)
          const rowB = target + b * rowStride;
          for (let t = q0; t < tEnd; t++) {
            const s = gi(ci, t);
            const t0 = gd(T, s);
            const t1 = gd(T, T1 + s);
            const t2 = gd(T, T2 + s);
            const pa = val + ((<usize>(row + s * colStride)) << 3);
            const pb = val + ((<usize>(rowB + s * colStride)) << 3);
            let h = load<f64>(pa);
            h += j0 * t0;
            h += j1 * t1;
            h += j2 * t2;
            store<f64>(pa, h);
            let g = load<f64>(pb);
            g += k0 * t0;
            g += k1 * t1;
            g += k2 * t2;
            store<f64>(pb, g);
          }
          if (same) {
            // row b's diagonal entry (t = ta + 1)
            const pb = val + ((<usize>(rowB + b * colStride)) << 3);
            let g = load<f64>(pb);
            g += k0 * gd(T, b);
            g += k1 * gd(T, T1 + b);
            g += k2 * gd(T, T2 + b);
            store<f64>(pb, g);
          }
          ta++;
          continue;
        }
      }
      if (n0 && n1 && n2) {
        for (let t = q0; t < tEnd; t++) {
          const s = gi(ci, t);
          const px = val + ((<usize>(row + s * colStride)) << 3);
          let h = load<f64>(px);
          h += j0 * gd(T, s);
          h += j1 * gd(T, T1 + s);
          h += j2 * gd(T, T2 + s);
          store<f64>(px, h);
        }
        continue;
      }
      for (let t = q0; t < tEnd; t++) {
        const s = gi(ci, t);
        const x = row + s * colStride;
        let h = gd(val, x);
        if (n0) h += j0 * gd(T, s);
        if (n1) h += j1 * gd(T, T1 + s);
        if (n2) h += j2 * gd(T, T2 + s);
        sd(val, x, h);
      }
    }
    return;
  }
  // general r (limits, PD drives, holonomic rows): addRowJtT's loop
  for (let ta = p0; ta < p1; ta++) {
    const a = gi(ci, ta);
    const row = target + a * rowStride;
    for (let k = 0; k < r; k++) {
      const jpa = gd(jd, jp + k * np + a);
      if (jpa == 0) continue;
      const tk = k * nq;
      for (let t = q0; t < q1; t++) {
        const s = gi(ci, t);
        if (same && s > a) break;
        const x = row + s * colStride;
        sd(val, x, gd(val, x) + jpa * gd(T, tk + s));
      }
    }
  }
}

/** whether constraint i has a nonzero entry in its G block */
function hasHessian(G: usize, i: i32, r: i32): bool {
  const go = gi(aGOff, i);
  for (let k = 0; k < r * r; k++) if (gd(G, go + k) != 0) return true;
  return false;
}

/**
 * The change of the Hessian blocks since the held H was assembled: dst[k] = src[k] − held[k] and
 * held[k] = src[k] for k < n (src and dst may be the same array)
 */
export function hessianChange(src: usize, held: usize, dst: usize, n: i32): void {
  let k = 0;
  for (; k + 1 < n; k += 2) {
    const o = (<usize>k) << 3;
    const g = v128.load(src + o);
    v128.store(dst + o, f64x2.sub(g, v128.load(held + o)));
    v128.store(held + o, g);
  }
  for (; k < n; k++) {
    const g = gd(src, k);
    sd(dst, k, g - gd(held, k));
    sd(held, k, g);
  }
}

/**
 * adds Σ_i J_iᵀ G_i J_i of constraints 0..nCon into the panels at `val` (G at `G`); returns the
 * number of constraints with a nonzero G block (those that added anything)
 */
export function assemble(val: usize, G: usize, nCon: i32): i32 {
  const cs = aColStart;
  let added = 0;
  for (let i = 0; i < nCon; i++) {
    const r = gi(aRows, i);
    if (r == 0 || !hasHessian(G, i, r)) continue;
    added++;
    const go = gi(aGOff, i);
    const b0 = gi(aBlkStart, i);
    const b1 = gi(aBlkStart, i + 1);
    let e = gi(aPairStart, i);
    for (let bq = b0; bq < b1; bq++) {
      const cq = gi(aBlkClique, bq);
      const offQ = gi(aRedOff, cq);
      if (offQ < 0) {
        e += b1 - b0 - 1;
        continue;
      }
      const nq = gi(aCliqueOff, cq + 1) - gi(aCliqueOff, cq);
      const jq = gi(aBlkJ, bq);
      const q0 = gi(cs, bq);
      const q1 = gi(cs, bq + 1);
      computeGJ(G, go, r, jq, nq, q0, q1);
      for (let bp = b0; bp < b1; bp++) {
        const cp = gi(aBlkClique, bp);
        const offP = gi(aRedOff, cp);
        let target: i32;
        let rowStride: i32;
        let colStride: i32;
        const np = gi(aCliqueOff, cp + 1) - gi(aCliqueOff, cp);
        if (bp == bq) {
          target = gi(aBlkDiag, bq);
          rowStride = nq;
          colStride = 1;
        } else {
          const pe = e++;
          if (offP < offQ) continue;
          target = gi(aPairOff, pe);
          if (gi(aPairT, pe) != 0) {
            rowStride = 1;
            colStride = np;
          } else {
            rowStride = nq;
            colStride = 1;
          }
        }
        addJtT(
          val,
          target,
          rowStride,
          colStride,
          r,
          gi(aBlkJ, bp),
          np,
          gi(cs, bp),
          gi(cs, bp + 1),
          bp == bq,
          nq,
          q0,
          q1,
        );
      }
    }
  }
  return added;
}

/**
 * The dense Newton matrix H = A + Σ JᵢᵀGᵢJᵢ over the participating dofs (SapSolver.assembleH):
 * lower triangle of the row-major n×n matrix at `H`, A from the evaluation's clique blocks (see
 * evaluation.as.ts) when `init` (else the terms are added to the H held there: G is then the change
 * ΔG since that H was assembled), every entry rounded to binary32 at the end when `rs`. The
 * structure comes from {@link setAssembly} (the pair tables are not read).
 */
export function assembleDense(H: usize, G: usize, nCon: i32, n: i32, rs: bool, init: bool): i32 {
  if (init) initDenseA(H, n);
  const cs = aColStart;
  let added = 0;
  for (let i = 0; i < nCon; i++) {
    const r = gi(aRows, i);
    if (r == 0 || !hasHessian(G, i, r)) continue;
    added++;
    const go = gi(aGOff, i);
    const b0 = gi(aBlkStart, i);
    const b1 = gi(aBlkStart, i + 1);
    for (let bq = b0; bq < b1; bq++) {
      const cq = gi(aBlkClique, bq);
      const offQ = gi(aRedOff, cq);
      if (offQ < 0) continue;
      const nq = gi(aCliqueOff, cq + 1) - gi(aCliqueOff, cq);
      const q0 = gi(cs, bq);
      const q1 = gi(cs, bq + 1);
      computeGJ(G, go, r, gi(aBlkJ, bq), nq, q0, q1);
      for (let bp = b0; bp < b1; bp++) {
        const cp = gi(aBlkClique, bp);
        const offP = gi(aRedOff, cp);
        if (offP < offQ) continue; // the mirrored pair fills the lower triangle
        const np = gi(aCliqueOff, cp + 1) - gi(aCliqueOff, cp);
        const target = offP * n + offQ;
        addJtT(H, target, n, 1, r, gi(aBlkJ, bp), np, gi(cs, bp), gi(cs, bp + 1), offP == offQ, nq, q0, q1);
      }
    }
  }
  if (rs) {
    for (let a = 0; a < n; a++) {
      for (let m = 0; m <= a; m++) {
        const x = a * n + m;
        sd(H, x, <f64>(<f32>gd(H, x)));
      }
    }
  }
  return added;
}
