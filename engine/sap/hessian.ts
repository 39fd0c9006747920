/**
 * The Newton system of a SAP solve: its analysis (the clique order and the fill pattern), the
 * assembly of H = A + JᵀGJ (dense, block sparse, incremental), its factorization and solves.
 */

import { choleskyFactor } from './linalg/cholesky';
import { type IntRuns, intRunsBytes } from './linalg/wasm/kernels';
import { SapEvaluation } from './evaluation';
import { fr, growF64, growI32, INCREMENTAL_MAX_STIFFNESS } from './workspace';

/**
 * T = G·J_q (r × nq, row-major) at the nonzero columns ci[q0..q1) of the q block:
 * T[k][s] = Σ_l G[k][l]·J[l][s], l ascending from acc = +0. Terms with G[k][l] = 0 are skipped:
 * their products are ±0, and adding ±0 to an accumulator that starts at +0 (and so is never −0)
 * leaves it unchanged, so T is bit-identical to the full sum. Stick contacts have a diagonal G.
 */
export function computeGJ(
  G: Float64Array,
  go: number,
  r: number,
  jd: Float64Array,
  jq: number,
  nq: number,
  ci: Int32Array,
  q0: number,
  q1: number,
  T: Float64Array,
): void {
  if (r === 3) {
    const jq1 = jq + nq;
    const jq2 = jq + 2 * nq;
    for (let k = 0; k < 3; k++) {
      const gk = go + 3 * k;
      const g0 = G[gk];
      const g1 = G[gk + 1];
      const g2 = G[gk + 2];
      const z0 = g0 !== 0;
      const z1 = g1 !== 0;
      const z2 = g2 !== 0;
      const tk = k * nq;
      if (z0 && z1 && z2) {
        for (let t = q0; t < q1; t++) {
          const s = ci[t];
          let acc = 0;
          acc += g0 * jd[jq + s];
          acc += g1 * jd[jq1 + s];
          acc += g2 * jd[jq2 + s];
          T[tk + s] = acc;
        }
        continue;
      }
      for (let t = q0; t < q1; t++) {
        const s = ci[t];
        let acc = 0;
        if (z0) acc += g0 * jd[jq + s];
        if (z1) acc += g1 * jd[jq1 + s];
        if (z2) acc += g2 * jd[jq2 + s];
        T[tk + s] = acc;
      }
    }
    return;
  }
  for (let k = 0; k < r; k++) {
    const gk = go + k * r;
    const tk = k * nq;
    let l0 = 0;
    while (l0 < r && G[gk + l0] === 0) l0++;
    if (l0 === r) {
      for (let t = q0; t < q1; t++) T[tk + ci[t]] = 0;
      continue;
    }
    let nzAfter = false;
    for (let l = l0 + 1; l < r; l++) if (G[gk + l] !== 0) nzAfter = true;
    if (!nzAfter) {
      // one nonzero: T = 0 + g·J (the + 0 keeps a −0 product at +0, as in the full sum)
      const g = G[gk + l0];
      const jl = jq + l0 * nq;
      for (let t = q0; t < q1; t++) {
        const s = ci[t];
        T[tk + s] = 0 + g * jd[jl + s];
      }
      continue;
    }
    for (let t = q0; t < q1; t++) {
      const s = ci[t];
      let acc = 0;
      for (let l = l0; l < r; l++) {
        const g = G[gk + l];
        if (g !== 0) acc += g * jd[jq + l * nq + s];
      }
      T[tk + s] = acc;
    }
  }
}

/**
 * Row a of a Jₚᵀ·T update: dst[row + s·colStride] += Σ_k J_p[k][a]·T[k][s] over the nonzero
 * columns s of the q block (ci[q0..q1), ascending; s ≤ a when p = q). Each entry receives its
 * products one at a time with k ascending, zero J_p[k][a] skipped — the same additions in the same
 * order as the plain loops (a, k, s).
 */
export function addRowJtT(
  dst: Float64Array,
  row: number,
  colStride: number,
  jd: Float64Array,
  jp: number,
  np_: number,
  a: number,
  r: number,
  T: Float64Array,
  nq: number,
  ci: Int32Array,
  q0: number,
  q1: number,
  same: boolean,
): void {
  if (r === 3) {
    const j0 = jd[jp + a];
    const j1 = jd[jp + np_ + a];
    const j2 = jd[jp + 2 * np_ + a];
    const n0 = j0 !== 0;
    const n1 = j1 !== 0;
    const n2 = j2 !== 0;
    for (let t = q0; t < q1; t++) {
      const s = ci[t];
      if (same && s > a) break;
      const e = row + s * colStride;
      let h = dst[e];
      if (n0) h += j0 * T[s];
      if (n1) h += j1 * T[nq + s];
      if (n2) h += j2 * T[2 * nq + s];
      dst[e] = h;
    }
    return;
  }
  for (let k = 0; k < r; k++) {
    const jpa = jd[jp + k * np_ + a];
    if (jpa === 0) continue;
    const tk = k * nq;
    for (let t = q0; t < q1; t++) {
      const s = ci[t];
      if (same && s > a) break;
      dst[row + s * colStride] += jpa * T[tk + s];
    }
  }
}

/** the Newton system: analysis, assembly of H = A + JᵀGJ, factorization and solves */
export abstract class SapHessian extends SapEvaluation {
  /** room for the dense Newton matrix of n unknowns (n² entries) */
  protected reserveDenseH(n: number): void {
    const n2 = n * n;
    const ev = this.ev;
    if (ev === null) {
      this.H = growF64(this.H, n2);
      return;
    }
    try {
      // H and the regions after it ({@link denseRegion})
      if (ev.ensureH(3 * n2 + 2 * n)) this.takeEvaluationViews(ev);
    } catch {
      // no room for it: from here on the JS evaluation runs (on the views, which stay valid)
      this.ev = null;
      this.H = new Float64Array(n2);
    }
  }

  /**
   * Orders the participating cliques (minimum degree on the clique graph), analyses the block
   * fill, picks the factorization and prepares its index maps.
   */
  protected analyze(): void {
    const nPart = this.nPart;
    const np = this.nvp;
    if (nPart <= 1 && this.linear_solver !== 'block_sparse') {
      // one clique (an articulated robot) or none: dense, natural order, nothing to analyse
      this.sparse = false;
      this.last_linear_solver = 'dense';
      this.reserveDenseH(np);
      this.dofPerm = growI32(this.dofPerm, np);
      for (let k = 0; k < np; k++) this.dofPerm[k] = k;
      this.identityPerm = true;
      return;
    }
    // clique graph over participating cliques
    let nE = 0;
    for (let i = 0; i < this.nCon; i++) {
      if (this.rows[i] === 0) continue;
      const b0 = this.blkStart[i];
      const b1 = this.blkStart[i + 1];
      if (b1 - b0 < 2) continue;
      for (let bq = b0; bq < b1; bq++) {
        const q = this.partIndex[this.blkClique[bq]];
        if (q < 0) continue;
        for (let bp = bq + 1; bp < b1; bp++) {
          const p = this.partIndex[this.blkClique[bp]];
          if (p < 0) continue;
          if (this.edges.length < 2 * nE + 2) {
            const e = new Int32Array(Math.max(64, 4 * nE + 4));
            e.set(this.edges.subarray(0, 2 * nE));
            this.edges = e;
          }
          this.edges[2 * nE] = q;
          this.edges[2 * nE + 1] = p;
          nE++;
        }
      }
    }
    const bs = this.bs;
    const nBlk = this.blkStart[this.nCon];
    let nPairs = 0;
    for (let i = 0; i < this.nCon; i++) {
      const nb = this.blkStart[i + 1] - this.blkStart[i];
      nPairs += nb * (nb - 1);
    }
    bs.analyze(nPart, this.partSize, this.edges, nE, this.assemblyBytes(nBlk, nPairs));
    this.wasmAssembly = false;
    const denseFlops = (np * np * np) / 6;
    let sparse: boolean;
    if (this.linear_solver === 'dense') sparse = false;
    else if (this.linear_solver === 'block_sparse') sparse = nPart > 0;
    else sparse = nPart > 1 && (np > 2048 || (np >= 24 && bs.flops < 0.5 * denseFlops));
    this.sparse = sparse;
    this.last_linear_solver = sparse ? 'block_sparse' : 'dense';
    if (!sparse) {
      this.reserveDenseH(np);
      this.dofPerm = growI32(this.dofPerm, np);
      let k = 0;
      let identity = true;
      for (let pos = 0; pos < nPart; pos++) {
        const q = bs.order[pos];
        const s0 = this.partStart[q];
        for (let m = 0; m < this.partSize[q]; m++) {
          if (s0 + m !== k) identity = false;
          this.dofPerm[k++] = s0 + m;
        }
      }
      this.identityPerm = identity;
      return;
    }
    // sparse: per block its diagonal offset; per ordered pair its coupling block
    this.blkDiag = growI32(this.blkDiag, nBlk);
    this.pairStart = growI32(this.pairStart, this.nCon + 1);
    this.pairOff = growI32(this.pairOff, nPairs);
    if (this.pairT.length < nPairs) this.pairT = new Uint8Array(Math.max(nPairs, 2 * this.pairT.length));
    let e = 0;
    for (let i = 0; i < this.nCon; i++) {
      this.pairStart[i] = e;
      const b0 = this.blkStart[i];
      const b1 = this.blkStart[i + 1];
      for (let bq = b0; bq < b1; bq++) {
        const q = this.partIndex[this.blkClique[bq]];
        this.blkDiag[bq] = q >= 0 ? bs.diagOffset(q) : -1;
        for (let bp = b0; bp < b1; bp++) {
          if (bp === bq) continue;
          const p = this.partIndex[this.blkClique[bp]];
          if (q < 0 || p < 0 || this.rows[i] === 0) {
            this.pairOff[e] = -1;
            this.pairT[e++] = 0;
            continue;
          }
          this.pairOff[e] = bs.blockOffset(q, p);
          this.pairT[e++] = bs.position[p] < bs.position[q] ? 1 : 0;
        }
      }
    }
    this.pairStart[this.nCon] = e;
    this.bindAssembly(nBlk, nPairs);
  }

  /** the arrays the WebAssembly assembly reads, in the order {@link bindAssembly} lays them out */
  protected assemblyArrays(nBlk: number, nPairs: number): IntRuns {
    const nCl = this.nCliques;
    const r = this.asmRuns;
    const set = (k: number, a: Int32Array | Uint8Array, n: number): void => {
      r[k][0] = a;
      r[k][1] = n;
    };
    set(0, this.rows, this.nCon);
    set(1, this.gOff, this.nCon);
    set(2, this.blkStart, this.nCon + 1);
    set(3, this.blkClique, nBlk);
    set(4, this.blkJ, nBlk);
    set(5, this.blkDiag, nBlk);
    set(6, this.pairStart, this.nCon + 1);
    set(7, this.pairOff, nPairs);
    set(8, this.pairT, nPairs);
    set(9, this.redOff, nCl);
    set(10, this.cliqueOff, nCl + 1);
    set(11, this.colStart, nBlk + 1);
    set(12, this.colIdx, this.colStart[nBlk]);
    return r;
  }

  /** bytes of the WebAssembly assembly's inputs: the index arrays, J, the G·J scratch, G and its held copy */
  protected assemblyBytes(nBlk: number, nPairs: number): number {
    // the lengths of assemblyArrays, summed
    const nCl = this.nCliques;
    const ints = 4 * this.nCon + 2 + 4 * nBlk + 1 + 2 * nPairs + 2 * nCl + 1 + this.colStart[nBlk];
    return ((4 * ints + 7) & ~7) + 8 * (this.nJ + this.T.length + 2 * this.nG);
  }

  /** copies the assembly's inputs into the kernels' memory (sparse path on WebAssembly) */
  protected bindAssembly(nBlk: number, nPairs: number): void {
    const w = this.bs.wasmKernels;
    if (w === null) return;
    const buf = w.buffer;
    const runs = this.assemblyArrays(nBlk, nPairs);
    const ptr = w.copyIntRuns(runs, this.bs.extraPtr);
    let at = this.bs.extraPtr + intRunsBytes(runs);
    const jdPtr = at;
    new Float64Array(buf, jdPtr, this.nJ).set(this.jData.subarray(0, this.nJ));
    at += 8 * this.nJ;
    const tPtr = at;
    at += 8 * this.T.length;
    this.wasmGPtr = at;
    this.wasmG = new Float64Array(buf, at, this.nG);
    this.gSolve = this.G.subarray(0, this.nG);
    at += 8 * this.nG;
    this.wasmGHeldPtr = at;
    this.wasmGHeld = new Float64Array(buf, at, this.nG);
    w.exports.setAssembly(...ptr, jdPtr, tPtr);
    this.wasmAssembly = true;
  }

  // ---------------------------------------------------------------------------------------------
  // Newton direction

  /** H = A + Σ JᵢᵀGᵢJᵢ over participating dofs (lower triangle, row-major) */
  protected assembleH(): void {
    const np = this.nvp;
    const H = this.H;
    const inc = this.hessianChange();
    if (this.ev !== null) {
      const e = this.ev;
      const rs = this.options.contact_solve_precision === 'fp32';
      const added = e.kernels.exports.assembleDense(
        e.ptr.H,
        inc ? e.ptr.dG : e.ptr.G,
        this.nCon,
        np,
        rs,
        !inc,
      );
      if (inc) this.assembly_counts.changed += added;
      return;
    }
    // (incremental: H holds the last iteration's matrix and only the changes are added)
    const A0 = this.nPart === 1 ? this.cliquesA[this.partCliques[0]] : null;
    if (!inc && A0 !== null && A0.length === np * np) {
      // one clique: H starts as a copy of A (the upper triangle is never read)
      H.set(A0);
    } else if (!inc) {
      H.fill(0, 0, np * np);
      for (let q = 0; q < this.nPart; q++) {
        const c = this.partCliques[q];
        const A = this.cliquesA[c];
        const n = this.cliqueOff[c + 1] - this.cliqueOff[c];
        const off = this.redOff[c];
        for (let a = 0; a < n; a++) {
          for (let m = 0; m <= a; m++) H[(off + a) * np + off + m] = A[a * n + m];
        }
      }
    }
    const added = this.addJtGJ(H, inc ? this.dG : this.G, true);
    if (inc) this.assembly_counts.changed += added;
    if (this.options.contact_solve_precision === 'fp32') {
      for (let a = 0; a < np; a++) for (let m = 0; m <= a; m++) H[a * np + m] = fr(H[a * np + m]);
    }
  }

  /**
   * The same H as {@link assembleH}, written into the block-sparse panels: every entry receives the
   * same additions in the same order (A, then the constraints ascending, rows k ascending), so the
   * values equal the dense ones bit for bit. Coupling blocks stored transposed (the natural-order
   * row clique eliminated first) are addressed accordingly.
   */
  protected assembleSparse(): void {
    this.assembleSparseHeld();
    const bs = this.bs;
    bs.loadHeld();
    if (this.options.contact_solve_precision === 'fp32') {
      // only the lower triangles of diagonal blocks and the coupling blocks are read
      const val = bs.values;
      for (let k = 0; k < bs.storage; k++) val[k] = fr(val[k]);
    }
  }

  /** {@link assembleSparse} into the held copy of H (A + JᵀGJ, or the change since the last) */
  protected assembleSparseHeld(): void {
    const bs = this.bs;
    const val = bs.held;
    const inc = this.hessianChange();
    if (!inc) {
      bs.clearHeld();
      for (let q = 0; q < this.nPart; q++) {
        const c = this.partCliques[q];
        const A = this.cliquesA[c];
        const n = this.cliqueOff[c + 1] - this.cliqueOff[c];
        const d = bs.diagOffset(q);
        for (let a = 0; a < n; a++) for (let m = 0; m <= a; m++) val[d + a * n + m] = A[a * n + m];
      }
    }
    if (this.wasmAssembly) {
      // the same loops in WebAssembly (bit-identical) on G or ΔG (wasmG, see hessianChange)
      const added = bs.wasmKernels!.exports.assemble(bs.heldPtr, this.wasmGPtr, this.nCon);
      if (inc) this.assembly_counts.changed += added;
      return;
    }
    const added = this.addJtGJ(val, inc ? this.dG : this.G, false);
    if (inc) this.assembly_counts.changed += added;
  }

  /**
   * Adds Σ JᵢᵀGᵢJᵢ to H's lower triangle: the dense matrix (`dense`: H row-major, n = nvp) or the
   * block-sparse panels (the held copy). One walk over the constraints' block pairs serves both, so
   * every entry receives the same additions in the same order (constraints ascending, rows k
   * ascending) and the two paths agree bit for bit. Only the structurally nonzero columns of each
   * block are visited (colStart/colIdx): every skipped product is an exact zero. Coupling blocks of
   * the panels stored transposed (the natural-order row clique eliminated first) are addressed
   * accordingly. Returns how many constraints added something.
   */
  private addJtGJ(val: Float64Array, G: Float64Array, dense: boolean): number {
    const jd = this.jData;
    const T = this.T;
    const np = this.nvp;
    let added = 0;
    const rows = this.rows;
    const gOff = this.gOff;
    const blkStart = this.blkStart;
    const blkClique = this.blkClique;
    const blkJ = this.blkJ;
    const blkDiag = this.blkDiag;
    const pairStart = this.pairStart;
    const pairOff = this.pairOff;
    const pairT = this.pairT;
    const redOff = this.redOff;
    const cliqueOff = this.cliqueOff;
    const cs = this.colStart;
    const ci = this.colIdx;
    const nCon = this.nCon;
    for (let i = 0; i < nCon; i++) {
      const r = rows[i];
      if (r === 0) continue;
      const go = gOff[i];
      let nz = false;
      for (let k = 0; k < r * r && !nz; k++) nz = G[go + k] !== 0;
      if (!nz) continue;
      added++;
      const b0 = blkStart[i];
      const b1 = blkStart[i + 1];
      // (the sparse path's index of the ordered block pair (bq, bp) in pairOff / pairT)
      let e = dense ? 0 : pairStart[i];
      for (let bq = b0; bq < b1; bq++) {
        const cq = blkClique[bq];
        const offQ = redOff[cq];
        if (offQ < 0) {
          e += b1 - b0 - 1;
          continue;
        }
        const nq = cliqueOff[cq + 1] - cliqueOff[cq];
        const jq = blkJ[bq];
        const q0 = cs[bq];
        const q1 = cs[bq + 1];
        computeGJ(G, go, r, jd, jq, nq, ci, q0, q1, T);
        for (let bp = b0; bp < b1; bp++) {
          const cp = blkClique[bp];
          const offP = redOff[cp];
          let target: number;
          let rowStride: number;
          let colStride: number;
          let same: boolean;
          const np_ = cliqueOff[cp + 1] - cliqueOff[cp];
          if (dense) {
            if (bp !== bq) e++;
            if (offP < offQ) continue; // the mirrored pair fills the lower triangle
            target = offP * np + offQ;
            rowStride = np;
            colStride = 1;
            same = offP === offQ;
          } else if (bp === bq) {
            target = blkDiag[bq];
            rowStride = nq;
            colStride = 1;
            same = true;
          } else {
            const pe = e++;
            if (offP < offQ) continue; // the mirrored pair fills the lower triangle
            target = pairOff[pe];
            if (pairT[pe]) {
              rowStride = 1;
              colStride = np_;
            } else {
              rowStride = nq;
              colStride = 1;
            }
            same = false;
          }
          const jp = blkJ[bp];
          const p1 = cs[bp + 1];
          if (r === 3) {
            // contacts: addRowJtT's r = 3 path, inlined (the hot loop of large piles)
            const T1 = nq;
            const T2 = 2 * nq;
            if (p1 - cs[bp] === np_ && q1 - q0 === nq) {
              // both blocks have every column (free bodies): direct indices
              for (let a = 0; a < np_; a++) {
                const row = target + a * rowStride;
                const j0 = jd[jp + a];
                const j1 = jd[jp + np_ + a];
                const j2 = jd[jp + 2 * np_ + a];
                const n0 = j0 !== 0;
                const n1 = j1 !== 0;
                const n2 = j2 !== 0;
                const sEnd = same ? a + 1 : nq;
                for (let s = 0; s < sEnd; s++) {
                  const e = row + s * colStride;
                  let h = val[e];
                  if (n0) h += j0 * T[s];
                  if (n1) h += j1 * T[T1 + s];
                  if (n2) h += j2 * T[T2 + s];
                  val[e] = h;
                }
              }
              continue;
            }
            for (let ta = cs[bp]; ta < p1; ta++) {
              const a = ci[ta];
              const row = target + a * rowStride;
              const j0 = jd[jp + a];
              const j1 = jd[jp + np_ + a];
              const j2 = jd[jp + 2 * np_ + a];
              const n0 = j0 !== 0;
              const n1 = j1 !== 0;
              const n2 = j2 !== 0;
              for (let t = q0; t < q1; t++) {
                const s = ci[t];
                if (same && s > a) break;
                const e = row + s * colStride;
                let h = val[e];
                if (n0) h += j0 * T[s];
                if (n1) h += j1 * T[T1 + s];
                if (n2) h += j2 * T[T2 + s];
                val[e] = h;
              }
            }
            continue;
          }
          for (let ta = cs[bp]; ta < p1; ta++) {
            const a = ci[ta];
            addRowJtT(val, target + a * rowStride, colStride, jd, jp, np_, a, r, T, nq, ci, q0, q1, same);
          }
        }
      }
    }
    return added;
  }

  /**
   * What the next assembly of H adds. The first in a solve assembles A + JᵀGJ from scratch and
   * returns false. After that, H still holds the last iteration's A + JᵀG′J (G′ = {@link gHeld}),
   * and a constraint whose Hessian block kept its value (a contact that stays in stiction or out of
   * contact, a limit that stays inactive, a drive) needs nothing: only the changes ΔG = G − G′ are
   * added, and this returns true. The sums differ from a fresh assembly only by rounding. Not under
   * contact_solve_precision fp32, where H is rounded in place after each assembly, nor for
   * constraints stiffer than {@link INCREMENTAL_MAX_STIFFNESS}. Where the
   * block-sparse assembly runs on WebAssembly, G or ΔG is left in {@link wasmG}; otherwise ΔG is in
   * {@link dG}.
   */
  protected hessianChange(): boolean {
    const nG = this.nG;
    const G = this.G;
    const counts = this.assembly_counts;
    // the block-sparse path on WebAssembly, G copied into its memory (wasmAssembly alone may be
    // left over from an earlier block-sparse solve: a one-clique solve returns before resetting it)
    const sparseWasm = this.sparse && this.wasmAssembly;
    if (!this.heldH) {
      if (sparseWasm) {
        this.wasmG.set(this.gSolve);
        this.wasmGHeld.set(this.wasmG);
      } else {
        const held = this.gHeld;
        for (let k = 0; k < nG; k++) held[k] = G[k];
      }
      this.heldH =
        this.incremental_hessian &&
        this.options.contact_solve_precision !== 'fp32' &&
        this.stiffness <= INCREMENTAL_MAX_STIFFNESS;
      counts.full++;
      return false;
    }
    counts.incremental++;
    if (sparseWasm) {
      this.wasmG.set(this.gSolve);
      this.bs.wasmKernels!.exports.hessianChange(this.wasmGPtr, this.wasmGHeldPtr, this.wasmGPtr, nG);
    } else if (!this.sparse && this.ev !== null) {
      const p = this.ev.ptr;
      this.ev.kernels.exports.hessianChange(p.G, p.gHeld, p.dG, nG);
    } else {
      const held = this.gHeld;
      const d = this.dG;
      for (let k = 0; k < nG; k++) {
        const g = G[k];
        d[k] = g - held[k];
        held[k] = g;
      }
    }
    return true;
  }

  /** factors H (either path); returns the first bad pivot (−1 when SPD) */
  protected factorH(): number {
    const prec = this.options.contact_linear_solve_precision;
    if (this.sparse) {
      this.assembleSparse();
      this.bs.precision = prec;
      const r = this.bs.factor();
      return r.status === 'ok' ? -1 : r.pivot;
    }
    this.assembleH();
    const ev = this.ev;
    if (ev !== null) {
      // H, its factor and the solve stay in the evaluation's memory (DenseCholesky's kernels)
      const n = this.nvp;
      let perm = 0;
      if (!this.identityPerm) {
        perm = this.denseRegion(2);
        ev.setInts(perm, this.dofPerm, n);
      }
      this.evPerm = perm;
      return ev.kernels.exports.denseLoadFactor(
        ev.ptr.H,
        this.denseRegion(0),
        n,
        perm,
        prec === 'fp32',
        this.denseRegion(3),
      );
    }
    this.chol.precision = prec;
    const r = this.chol.factor(this.H, this.nvp, this.identityPerm ? undefined : this.dofPerm);
    return r.status === 'ok' ? -1 : r.pivot;
  }

  /**
   * byte offset of a region after the dense Newton matrix H (n = nvp) in the evaluation's memory:
   * 0 its factor (n² values), 1 the permuted right-hand side (n), 2 the permutation (n int32), 3 the
   * kernels' column-major copy of the factor (n²); 3n² + 2n values after H in all
   * ({@link reserveDenseH})
   */
  protected denseRegion(k: 0 | 1 | 2 | 3): number {
    const n = this.nvp;
    const S = this.ev!.ptr.H + 8 * n * n;
    return k === 0 ? S : S + 8 * (n * n + (k - 1) * n);
  }

  /** dv = H⁻¹·rhs with the last factorization */
  protected solveH(): void {
    if (this.sparse) this.bs.solve(this.rhs, this.dv, this.partStart);
    else if (this.ev !== null) {
      const ev = this.ev;
      const f32 = this.options.contact_linear_solve_precision === 'fp32';
      ev.kernels.exports.denseSolveInto(
        this.denseRegion(0),
        this.nvp,
        ev.ptr.rhs,
        ev.ptr.dv,
        this.denseRegion(1),
        this.evPerm,
        f32,
        this.denseRegion(3),
      );
    } else this.chol.solve(this.rhs, this.dv, this.identityPerm ? undefined : this.dofPerm);
  }

  /** index of a participating clique whose A fails an fp64 Cholesky, or −1 */
  protected findNonSpdClique(): number {
    for (let q = 0; q < this.nPart; q++) {
      const c = this.partCliques[q];
      const A = Float64Array.from(this.cliquesA[c]);
      const n = this.cliqueOff[c + 1] - this.cliqueOff[c];
      if (choleskyFactor(A.subarray(0, n * n), n, 'fp64').status !== 'ok') return c;
    }
    return -1;
  }
}
