/**
 * Constraint islands of a packed SAP problem.
 *
 * The SAP cost is a sum over cliques coupled only through constraints, so it separates over the
 * connected components of the clique–constraint graph ("islands"; static bodies connect nothing):
 * ℓ(v) = Σ_k ℓ_k(v_k). Each island is a complete SAP problem of its own, and solving them one by
 * one gives each its own line search and its own stopping test (MuJoCo's constraint islands, on by
 * default there since 3.3.6). The minimizer is the same; the iterates differ from one solve of the
 * whole world, where a single step length α serves every island and the stopping test is global.
 *
 * {@link SapIslands.find} labels cliques and constraints by island (union–find over the blocks of
 * every constraint with rows); {@link SapIslands.extract} writes one island as a standalone
 * {@link PackedSapProblem} (cliques in ascending order, constraints in their original order, Jacobian
 * blocks and physical records copied, dynamics matrices referenced). Storage only grows.
 */

import { PHYS_STRIDE, PackedSapProblem, growF64, growI32, type SapKind } from './packed_problem';

export class SapIslands {
  /** islands found by the last {@link find} */
  count = 0;
  /** per clique: its island, −1 when no constraint row touches it (or nv = 0) */
  cliqueIsland: Int32Array = new Int32Array(0);
  /** per clique: its index inside its island's problem */
  cliqueLocal: Int32Array = new Int32Array(0);
  /** (count + 1) ranges into {@link cliqueList}; cliques of an island ascending */
  cliqueStart: Int32Array = new Int32Array(1);
  cliqueList: Int32Array = new Int32Array(0);
  /** (count + 1) ranges into {@link conList}; constraints of an island ascending */
  conStart: Int32Array = new Int32Array(1);
  conList: Int32Array = new Int32Array(0);
  /** the island problem written by {@link extract} (one object, reused) */
  readonly sub = new PackedSapProblem();
  /** v* of the extracted island (the problem's `v_star`; may be longer than its nv) */
  subVStar: Float64Array = new Float64Array(0);
  /** the initial guess of the extracted island (may be longer than its nv) */
  subGuess: Float64Array = new Float64Array(0);
  /** the alternative start of the extracted island (may be longer than its nv) */
  subAlt: Float64Array = new Float64Array(0);

  private parent: Int32Array = new Int32Array(0);
  private conIsland: Int32Array = new Int32Array(0);

  private root(c: number): number {
    const p = this.parent;
    let r = c;
    while (p[r] !== r) r = p[r];
    while (p[c] !== r) {
      const n = p[c];
      p[c] = r;
      c = n;
    }
    return r;
  }

  /**
   * Labels the islands of `pp`; returns their number, or −1 when some constraint with rows touches
   * no clique with velocities (it belongs to no island; the caller solves the problem whole).
   * Islands are numbered by their smallest clique.
   */
  find(pp: PackedSapProblem): number {
    const nCl = pp.nCliques;
    const nCon = pp.nCon;
    this.parent = growI32(this.parent, nCl);
    this.cliqueIsland = growI32(this.cliqueIsland, nCl);
    this.cliqueLocal = growI32(this.cliqueLocal, nCl);
    this.conIsland = growI32(this.conIsland, nCon);
    const parent = this.parent;
    const isl = this.cliqueIsland;
    for (let c = 0; c < nCl; c++) {
      parent[c] = c;
      isl[c] = -1; // −1: untouched
    }

    // union the participating cliques of every constraint with rows
    for (let i = 0; i < nCon; i++) {
      if (pp.rows[i] === 0) continue;
      let first = -1;
      for (let b = pp.blkStart[i]; b < pp.blkStart[i + 1]; b++) {
        const c = pp.blkClique[b];
        if (pp.cliqueNv[c] === 0) continue;
        isl[c] = 0; // touched
        if (first < 0) {
          first = c;
          continue;
        }
        const ra = this.root(first);
        const rb = this.root(c);
        if (ra !== rb) {
          if (ra < rb) parent[rb] = ra;
          else parent[ra] = rb;
        }
      }
      if (first < 0) return -1;
    }

    // number the roots in clique order (a root is the smallest clique of its set)
    let n = 0;
    for (let c = 0; c < nCl; c++) {
      if (isl[c] < 0) continue;
      const r = this.root(c);
      isl[c] = r === c ? n++ : isl[r];
    }
    this.count = n;

    // cliques per island (counting sort keeps them ascending)
    this.cliqueStart = growI32(this.cliqueStart, n + 1);
    const cs = this.cliqueStart;
    cs.fill(0, 0, n + 1);
    for (let c = 0; c < nCl; c++) if (isl[c] >= 0) cs[isl[c] + 1]++;
    for (let k = 0; k < n; k++) cs[k + 1] += cs[k];
    this.cliqueList = growI32(this.cliqueList, cs[n]);
    const cur = parent; // no longer needed: reused as the write cursor per island
    for (let k = 0; k < n; k++) cur[k] = cs[k];
    for (let c = 0; c < nCl; c++) {
      const k = isl[c];
      if (k < 0) continue;
      this.cliqueLocal[c] = cur[k] - cs[k];
      this.cliqueList[cur[k]++] = c;
    }

    // constraints per island (rowless constraints go with their first clique's island, or 0)
    const ci = this.conIsland;
    this.conStart = growI32(this.conStart, n + 1);
    const ks = this.conStart;
    ks.fill(0, 0, n + 1);
    for (let i = 0; i < nCon; i++) {
      let k = 0;
      for (let b = pp.blkStart[i]; b < pp.blkStart[i + 1]; b++) {
        const c = pp.blkClique[b];
        if (isl[c] >= 0) {
          k = isl[c];
          break;
        }
      }
      ci[i] = k;
      if (n > 0) ks[k + 1]++;
    }
    for (let k = 0; k < n; k++) ks[k + 1] += ks[k];
    this.conList = growI32(this.conList, nCon);
    for (let k = 0; k < n; k++) cur[k] = ks[k];
    if (n > 0) for (let i = 0; i < nCon; i++) this.conList[cur[ci[i]]++] = i;
    return n;
  }

  /**
   * Writes island k of `pp` (after {@link find}) into {@link sub}, with v* in {@link subVStar} and,
   * when `vGuess` (all velocities of `pp`) is given, the island's part of it in {@link subGuess}
   * (and of `vAlt` in {@link subAlt}). Blocks of cliques outside the island (nv = 0 cliques) are
   * left out.
   */
  extract(
    pp: PackedSapProblem,
    k: number,
    vGuess: Float64Array | undefined,
    vAlt?: Float64Array,
  ): PackedSapProblem {
    const sub = this.sub;
    sub.reset(pp.dt);
    const list = this.cliqueList;
    let nv = 0;
    for (let t = this.cliqueStart[k]; t < this.cliqueStart[k + 1]; t++) nv += pp.cliqueNv[list[t]];
    this.subVStar = growF64(this.subVStar, nv);
    if (vGuess !== undefined) this.subGuess = growF64(this.subGuess, nv);
    if (vAlt !== undefined) this.subAlt = growF64(this.subAlt, nv);
    const vs = this.subVStar;
    const off = pp.cliqueOff;
    for (let t = this.cliqueStart[k]; t < this.cliqueStart[k + 1]; t++) {
      const c = list[t];
      const n = pp.cliqueNv[c];
      const o = sub.nv;
      sub.addClique(n, pp.cliqueA[c]);
      for (let m = 0; m < n; m++) vs[o + m] = pp.v_star[off[c] + m];
      if (vGuess !== undefined) for (let m = 0; m < n; m++) this.subGuess[o + m] = vGuess[off[c] + m];
      if (vAlt !== undefined) for (let m = 0; m < n; m++) this.subAlt[o + m] = vAlt[off[c] + m];
    }
    sub.v_star = vs; // may be longer than nv

    const isl = this.cliqueIsland;
    const local = this.cliqueLocal;
    for (let t = this.conStart[k]; t < this.conStart[k + 1]; t++) {
      const i = this.conList[t];
      const r = pp.rows[i];
      const j = sub.beginConstraint(pp.kind[i] as SapKind, r);
      for (let q = 0; q < PHYS_STRIDE; q++) sub.phys[j * PHYS_STRIDE + q] = pp.phys[i * PHYS_STRIDE + q];
      for (let b = pp.blkStart[i]; b < pp.blkStart[i + 1]; b++) {
        const c = pp.blkClique[b];
        if (isl[c] !== k) continue;
        const src = pp.blkJ[b];
        const dst = sub.addBlock(local[c]);
        const len = r * pp.cliqueNv[c];
        for (let e = 0; e < len; e++) sub.jData[dst + e] = pp.jData[src + e];
      }
    }
    return sub;
  }
}
