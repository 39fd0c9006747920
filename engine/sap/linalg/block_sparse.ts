/**
 * Block-sparse (supernodal over cliques) Cholesky LLᵀ for the SAP Newton matrix H = A + JᵀGJ
 * (SPEC §3.4, Drake notes §3.6).
 *
 * The unknowns come in blocks (the participating cliques, i.e. kinematic trees); H has a dense
 * diagonal block per clique and a dense off-diagonal block for every pair of cliques coupled by a
 * constraint. Pipeline:
 *
 * 1. **Ordering + symbolic analysis** ({@link BlockSparseCholesky.analyze}, once per solve): minimum
 *    degree on the clique graph (degree = number of dofs of the live neighbours; of the first
 *    {@link TIE_CANDIDATES} blocks of equal least degree, the one adding the least fill, then the
 *    lower clique index) by explicit elimination. The neighbours of a block when it is eliminated
 *    are exactly the block rows of its column of L, so the same pass yields the fill pattern. Each
 *    eliminated block owns a dense *panel*: its diagonal block on top, then one dense block per
 *    block row below, block rows ascending, all row-major with the block's width.
 * 2. **Numeric factorization** ({@link BlockSparseCholesky.factor}, every Newton iteration):
 *    left-looking over the panels; panel J first receives, for each earlier panel K whose pattern
 *    contains J (K ascending), the update −L_{I,K}·L_{J,K}ᵀ of every block row I ≥ J of K; then its
 *    own columns are factored.
 * 3. **Solves** ({@link BlockSparseCholesky.solve}): row-oriented forward substitution, column-read
 *    backward substitution.
 *
 * **Operation order (the fp32 realization, SPEC §3.7).** Let P be the elimination order and
 * H' = PHPᵀ. Every entry of L receives its updates one product at a time with the summation index k
 * ascending in H' order, s ← s − L_ik·L_jk, then L_ij = s/L_jj (L_jj = √s on the diagonal); the
 * solves accumulate y_i = (b_i − Σ_{k<i} L_ik·y_k)/L_ii with k ascending and x_i = (y_i −
 * Σ_{k>i} L_ki·x_k)/L_ii with k descending. This is exactly the order of the dense Cholesky in ./cholesky.ts applied to H':
 * the only products skipped are those with a structural zero factor, and s − 0 = s. With
 * precision `fp32` every + − × ÷ √ is rounded with `Math.fround`, so the factor and the solutions
 * are bit for bit those of `choleskyFactor(H', 'fp32')` / `choleskySolve` (likewise in fp64).
 *
 * All storage is kept between calls and only grows; the numeric loops allocate nothing.
 */

import type { CholeskyResult, LinearSolvePrecision } from './cholesky';
import {
  LinalgWasm,
  WHOLE_PROBLEM_MEMORY,
  intRunsBytes,
  type IntRuns,
  type LinalgKernels,
} from './wasm/kernels';

export type { LinalgKernels } from './wasm/kernels';

const fr = Math.fround;

function growI32(a: Int32Array, n: number): Int32Array {
  return a.length >= n ? a : new Int32Array(Math.max(n, 2 * a.length, 16));
}
function growF64(a: Float64Array, n: number): Float64Array {
  return a.length >= n ? a : new Float64Array(Math.max(n, Math.ceil(1.5 * a.length), 64));
}

/**
 * How many blocks of least degree compete for each elimination on the fill they would add (the
 * lowest indices first). On landing pile_1000 states (430–540 boxes in contact) this saves 9–14% of
 * the factorization's multiply–adds against the lowest index alone; 8, 16 or every tie save no
 * more, and each candidate costs the analysis a pass over its neighbours' adjacency lists.
 */
const TIE_CANDIDATES = 4;

/**
 * Reusable block-sparse Cholesky factorization over cliques.
 *
 * Usage per solve: {@link analyze} (graph of the cliques), then per Newton iteration: write H into
 * {@link values} (diagonal blocks via {@link diagOffset}, coupling blocks via {@link blockOffset};
 * lower triangles only), {@link factor}, {@link solve}. Block `b` of the *input* numbering is the
 * clique's index in the caller's order; {@link order} maps elimination positions back to it.
 */
export class BlockSparseCholesky {
  /** arithmetic realization of the factorization and the solves */
  precision: LinearSolvePrecision;

  /** number of blocks */
  nb = 0;
  /** total order Σ sizes */
  n = 0;
  /** elimination position → input block */
  order: Int32Array = new Int32Array(0);
  /** input block → elimination position */
  position: Int32Array = new Int32Array(0);
  /** block size per elimination position */
  size: Int32Array = new Int32Array(0);
  /** first unknown of each elimination position in the permuted (H') numbering (nb + 1) */
  dofStart: Int32Array = new Int32Array(0);
  /**
   * panel storage of H before {@link factor}, and of L after it, except under fp32 WebAssembly
   * kernels, which factor binary32 panels of their own ({@link factorValues} reads L either way)
   */
  values: Float64Array = new Float64Array(0);
  /**
   * a second panel-shaped array (the offsets of {@link values}) where a caller keeps H between
   * factorizations, which overwrite {@link values}: {@link loadHeld} copies it over
   */
  held: Float64Array = new Float64Array(0);
  /** estimated multiply–adds of one numeric factorization */
  flops = 0;
  /** entries of L stored (panels, incl. the unused upper triangles of diagonal blocks) */
  storage = 0;

  // symbolic structure, per elimination position J
  private sPtr: Int32Array = new Int32Array(0); // (nb + 1) ranges into sIdx/sRow
  private sIdx: Int32Array = new Int32Array(0); // block rows of panel J (positions > J, ascending)
  private sRow: Int32Array = new Int32Array(0); // first panel row of that block row
  private pOff: Int32Array = new Int32Array(0); // (nb + 1) offset of panel J in values
  private pRows: Int32Array = new Int32Array(0); // rows of panel J
  // row lists: for block row I, the panels K < I holding a block (I, K), K ascending
  private rPtr: Int32Array = new Int32Array(0);
  private rBlk: Int32Array = new Int32Array(0);
  private rOff: Int32Array = new Int32Array(0); // values offset of block (I, K)
  private rE: Int32Array = new Int32Array(0); // index into sIdx of I within panel K
  private rowOf: Int32Array = new Int32Array(0); // scratch: panel row of a block row
  private rFill: Int32Array = new Int32Array(0); // scratch
  private structs: Int32Array = new Int32Array(0); // scratch: struct(L) per position, flat
  private structStart: Int32Array = new Int32Array(0); // scratch: its start per position
  private xs: Float64Array = new Float64Array(0); // permuted right-hand side
  // ordering scratch: the deduplicated adjacency (input numbering) as flat lists, and as growing
  // lists for the elimination (built from the flat ones only when the graph changed)
  private adjStart: Int32Array = new Int32Array(0);
  private adjEnd: Int32Array = new Int32Array(0);
  private adjFlat: Int32Array = new Int32Array(0);
  // the elimination graph's lists: block b's live neighbours are adjBuf[adjOff[b] ..
  // adjOff[b] + adjLen[b]), with room for adjCap[b]; a list that outgrows its room moves to the end
  // of the buffer's used part (the buffer is kept between analyses, so it only grows)
  private adjBuf: Int32Array = new Int32Array(0);
  private adjOff: Int32Array = new Int32Array(0);
  private adjLen: Int32Array = new Int32Array(0);
  private adjCap: Int32Array = new Int32Array(0);
  private mark: Int32Array = new Int32Array(0);
  private deg: Float64Array = new Float64Array(0);
  private dead: Uint8Array = new Uint8Array(0);
  /** minimum-degree queue: a binary heap of live blocks by (degree, index) and each one's slot */
  private heap: Int32Array = new Int32Array(0);
  private heapAt: Int32Array = new Int32Array(0);
  /** the blocks of least degree considered for one elimination */
  private readonly candidates = new Int32Array(TIE_CANDIDATES);
  /** per block: the last stamp of {@link fillOf}'s adjacency marks */
  private fillMark: Int32Array = new Int32Array(0);
  private fillStamp = 0;
  private factored = false;
  // the graph of the last complete analysis (an unchanged graph reuses it; −1: none) and the
  // caller's bytes bound in the kernels' memory
  private lastNb = -1;
  private lastSizes: Int32Array = new Int32Array(0);
  private lastAdjStart: Int32Array = new Int32Array(0);
  private lastAdj: Int32Array = new Int32Array(0);
  private boundExtra = 0;
  /** the result of {@link factor}: one object, overwritten by the next call */
  private readonly result: CholeskyResult = { status: 'ok', pivot: -1 };
  // WebAssembly kernels: whether to use them, the instance (made by the first analysis, so that a
  // solver that never takes the block-sparse path allocates no kernel memory), whether the current
  // analysis is laid out in its memory, and the byte offsets of the values and of the permuted
  // right-hand side there
  private useWasm: boolean;
  private wasm: LinalgWasm | null = null;
  private wasmBound = false;
  private valPtr = 0;
  private heldAt = 0;
  private yPtr = 0;
  /** fp32: byte offset of the binary32 panels the kernels factor (4 bytes per entry of values) */
  private val32Ptr = 0;

  constructor(precision: LinearSolvePrecision = 'fp64', kernels: LinalgKernels = 'wasm') {
    this.precision = precision;
    this.useWasm = kernels === 'wasm';
  }

  /**
   * The WebAssembly kernels and their memory while the last analysis runs on them (else null), for
   * callers that run their own kernels on {@link values} (byte offset {@link valuesPtr}) and on the
   * region they asked for at {@link extraPtr}. Valid until the next analysis.
   */
  get wasmKernels(): LinalgWasm | null {
    return this.wasmBound ? this.wasm : null;
  }

  /** byte offset of {@link values} in the kernels' memory */
  get valuesPtr(): number {
    return this.valPtr;
  }

  /** byte offset of {@link held} in the kernels' memory */
  get heldPtr(): number {
    return this.heldAt;
  }

  /** byte offset of the caller's region in the kernels' memory (8-aligned) */
  extraPtr = 0;

  /** the kernels the last analysis runs on */
  get kernels(): LinalgKernels {
    return this.wasmBound ? 'wasm' : 'js';
  }

  /**
   * Ordering and symbolic analysis.
   *
   * @param nb      number of blocks
   * @param sizes   block sizes (input numbering), each ≥ 1
   * @param edges   pairs (a, b) of coupled input blocks, a ≠ b; duplicates allowed
   * @param nEdges  number of pairs in `edges`
   * @param extraBytes  bytes the caller wants in the kernels' memory beside the factorization (at
   *                    {@link extraPtr} when the analysis runs on WebAssembly)
   */
  analyze(
    nb: number,
    sizes: ArrayLike<number>,
    edges: ArrayLike<number>,
    nEdges: number,
    extraBytes = 0,
  ): void {
    this.factored = false;
    const lastNb = this.lastNb;
    this.lastNb = -1; // set again once this analysis is complete
    this.nb = nb;
    this.order = growI32(this.order, nb);
    this.position = growI32(this.position, nb);
    this.size = growI32(this.size, nb);
    this.dofStart = growI32(this.dofStart, nb + 1);
    this.sPtr = growI32(this.sPtr, nb + 1);
    this.pOff = growI32(this.pOff, nb + 1);
    this.pRows = growI32(this.pRows, nb);
    this.rowOf = growI32(this.rowOf, nb);
    this.rPtr = growI32(this.rPtr, nb + 1);
    this.rFill = growI32(this.rFill, nb);
    this.mark = growI32(this.mark, nb);
    this.structStart = growI32(this.structStart, nb);
    if (this.deg.length < nb) this.deg = new Float64Array(Math.max(nb, 2 * this.deg.length));
    if (this.dead.length < nb) this.dead = new Uint8Array(Math.max(nb, 2 * this.dead.length));

    // adjacency lists (input numbering), deduplicated, each in edge order: flat, by counting
    const st = (this.adjStart = growI32(this.adjStart, nb + 1));
    const end = (this.adjEnd = growI32(this.adjEnd, nb));
    st.fill(0, 0, nb + 1);
    for (let e = 0; e < nEdges; e++) {
      const a = edges[2 * e];
      const b = edges[2 * e + 1];
      if (a === b) continue;
      st[a + 1]++;
      st[b + 1]++;
    }
    for (let b = 0; b < nb; b++) st[b + 1] += st[b];
    const flat = (this.adjFlat = growI32(this.adjFlat, st[nb]));
    for (let b = 0; b < nb; b++) end[b] = st[b];
    for (let e = 0; e < nEdges; e++) {
      const a = edges[2 * e];
      const b = edges[2 * e + 1];
      if (a === b) continue;
      flat[end[a]++] = b;
      flat[end[b]++] = a;
    }
    const mark = this.mark;
    mark.fill(-1, 0, nb);
    for (let b = 0; b < nb; b++) {
      let w = st[b];
      for (let k = st[b]; k < end[b]; k++) {
        const u = flat[k];
        if (mark[u] === b) continue;
        mark[u] = b;
        flat[w++] = u;
      }
      end[b] = w;
    }

    if (nb === lastNb && this.sameGraph(nb, sizes)) {
      // the clique graph of the last analysis (a resting pile, a robot on its feet; contacts may
      // come and go between the same cliques): its ordering and structure stand, only the caller's
      // region may need more room
      this.lastNb = nb;
      if (this.wasmBound && extraBytes > this.boundExtra) this.bind(this.sPtr[nb], this.rPtr[nb], extraBytes);
      return;
    }
    this.keepGraph(nb, sizes);
    // each list gets room for twice its length plus 4 (the elimination adds fill to it)
    this.adjOff = growI32(this.adjOff, nb);
    this.adjLen = growI32(this.adjLen, nb);
    this.adjCap = growI32(this.adjCap, nb);
    const aOff = this.adjOff;
    const aLen = this.adjLen;
    const aCap = this.adjCap;
    let top = 0;
    for (let b = 0; b < nb; b++) {
      aOff[b] = top;
      aLen[b] = end[b] - st[b];
      aCap[b] = 2 * aLen[b] + 4;
      top += aCap[b];
    }
    if (this.adjBuf.length < top) this.adjBuf = new Int32Array(Math.max(top, 2 * this.adjBuf.length));
    const buf = this.adjBuf;
    for (let b = 0; b < nb; b++) for (let k = st[b], o = aOff[b]; k < end[b]; k++) buf[o++] = flat[k];

    // minimum degree by explicit elimination; the live neighbours at elimination = struct(L)
    const dead = this.dead;
    const deg = this.deg;
    dead.fill(0, 0, nb);
    mark.fill(-1, 0, nb);
    let adj = this.adjBuf;
    for (let b = 0; b < nb; b++) {
      let d = 0;
      for (let k = aOff[b]; k < aOff[b] + aLen[b]; k++) d += sizes[adj[k]];
      deg[b] = d;
    }
    // the live block of least degree (a heap on (degree, index)); among up to TIE_CANDIDATES of equal
    // degree, the one whose elimination adds the least fill, the lowest index among equals
    this.heap = growI32(this.heap, nb);
    this.heapAt = growI32(this.heapAt, nb);
    // (no reset: the stamps only grow, and a fresh array's zeros are below every stamp)
    this.fillMark = growI32(this.fillMark, nb);
    const heap = this.heap;
    const at = this.heapAt;
    const cand = this.candidates;
    for (let b = 0; b < nb; b++) {
      heap[b] = b;
      at[b] = b;
    }
    let live = nb;
    for (let i = (nb >> 1) - 1; i >= 0; i--) siftDown(heap, at, deg, i, live);
    let sCount = 0;
    for (let pos = 0; pos < nb; pos++) {
      // the candidates leave the heap in (degree, index) order
      const d0 = deg[heap[0]];
      let nc = 0;
      while (live > 0 && nc < TIE_CANDIDATES && deg[heap[0]] === d0) {
        cand[nc++] = heap[0];
        live--;
        if (live > 0) {
          heap[0] = heap[live];
          at[heap[0]] = 0;
          siftDown(heap, at, deg, 0, live);
        }
      }
      let v = cand[0];
      if (nc > 1) {
        let least = this.fillOf(v, sizes, Infinity);
        for (let c = 1; c < nc && least > 0; c++) {
          const f = this.fillOf(cand[c], sizes, least);
          if (f < least) {
            least = f;
            v = cand[c];
          }
        }
        // the others go back
        for (let c = 0; c < nc; c++) {
          const u = cand[c];
          if (u === v) continue;
          heap[live] = u;
          at[u] = live;
          siftUp(heap, at, deg, live);
          live++;
        }
      }
      dead[v] = 1;
      this.order[pos] = v;
      this.position[v] = pos;
      // v's live neighbours (dead ones are removed eagerly below): struct(L) of position pos,
      // kept flat, which is also where the loop below reads them (v's own list is not touched)
      const nL = aLen[v];
      this.structStart[pos] = sCount;
      if (this.structs.length < sCount + nL) {
        const grown = new Int32Array(Math.max(sCount + nL, 2 * this.structs.length, 64));
        grown.set(this.structs.subarray(0, sCount));
        this.structs = grown;
      }
      const structs = this.structs;
      for (let x = 0, o = aOff[v]; x < nL; x++) structs[sCount + x] = adj[o + x];
      const l0 = sCount;
      sCount += nL;
      // the neighbours of v become a clique; v leaves their lists
      for (let x = 0; x < nL; x++) {
        const u = structs[l0 + x];
        let o = aOff[u];
        let w = o;
        for (let k = o; k < o + aLen[u]; k++) {
          const y = adj[k];
          if (y === v) continue;
          mark[y] = u * 2 + 1; // tag unique to u
          adj[w++] = y;
        }
        let len = w - o;
        if (len + nL > aCap[u]) {
          // no room for the fill: the list moves to the end of the buffer, with twice the room
          const cap = 2 * (len + nL);
          if (top + cap > adj.length) {
            const grown = new Int32Array(Math.max(top + cap, 2 * adj.length));
            grown.set(adj.subarray(0, top));
            this.adjBuf = adj = grown;
          }
          adj.copyWithin(top, o, o + len);
          aOff[u] = o = top;
          aCap[u] = cap;
          top += cap;
        }
        for (let k = 0; k < nL; k++) {
          const y = structs[l0 + k];
          if (y === u || mark[y] === u * 2 + 1) continue;
          adj[o + len++] = y;
        }
        aLen[u] = len;
        let d = 0;
        for (let k = o; k < o + len; k++) d += sizes[adj[k]];
        const before = deg[u];
        deg[u] = d;
        if (d < before) siftUp(heap, at, deg, at[u]);
        else if (d > before) siftDown(heap, at, deg, at[u], live);
      }
      for (let x = 0; x < nL; x++) mark[structs[l0 + x]] = -1;
    }

    // panels in elimination order
    this.sIdx = growI32(this.sIdx, sCount);
    this.sRow = growI32(this.sRow, sCount);
    let n = 0;
    for (let p = 0; p < nb; p++) {
      this.size[p] = sizes[this.order[p]];
      this.dofStart[p] = n;
      n += this.size[p];
    }
    this.dofStart[nb] = n;
    this.n = n;
    let e = 0;
    let off = 0;
    let flops = 0;
    this.rPtr.fill(0, 0, nb + 1);
    for (let p = 0; p < nb; p++) {
      this.sPtr[p] = e;
      const e0 = e;
      const l1 = p + 1 < nb ? this.structStart[p + 1] : sCount;
      for (let x = this.structStart[p]; x < l1; x++) this.sIdx[e++] = this.position[this.structs[x]];
      // ascending block rows (insertion sort: short lists)
      const si = this.sIdx;
      for (let x = e0 + 1; x < e; x++) {
        const key = si[x];
        let y = x - 1;
        while (y >= e0 && si[y] > key) {
          si[y + 1] = si[y];
          y--;
        }
        si[y + 1] = key;
      }
      const np = this.size[p];
      let rows = np;
      for (let k = e0; k < e; k++) {
        this.sRow[k] = rows;
        rows += this.size[this.sIdx[k]];
        this.rPtr[this.sIdx[k] + 1]++;
      }
      this.pOff[p] = off;
      this.pRows[p] = rows;
      off += rows * np;
      // column factorization of the panel + its outer-product updates
      const below = rows - np;
      flops += (np * np * np) / 6 + (below * np * np) / 2 + (below * (below + 1) * np) / 2;
    }
    this.sPtr[nb] = e;
    this.pOff[nb] = off;
    this.storage = off;
    this.flops = flops;

    // row lists (K ascending because panels are visited in order)
    for (let p = 0; p < nb; p++) this.rPtr[p + 1] += this.rPtr[p];
    const nr = this.rPtr[nb];
    this.rBlk = growI32(this.rBlk, nr);
    this.rOff = growI32(this.rOff, nr);
    this.rE = growI32(this.rE, nr);
    const fill = this.rFill;
    for (let p = 0; p < nb; p++) fill[p] = this.rPtr[p];
    for (let K = 0; K < nb; K++) {
      const nK = this.size[K];
      for (let k = this.sPtr[K]; k < this.sPtr[K + 1]; k++) {
        const I = this.sIdx[k];
        const slot = fill[I]++;
        this.rBlk[slot] = K;
        this.rOff[slot] = this.pOff[K] + this.sRow[k] * nK;
        this.rE[slot] = k;
      }
    }
    this.bind(sCount, nr, extraBytes);
    this.lastNb = nb;
  }

  /**
   * the fill that eliminating live block v adds now: Σ size_a·size_b over the pairs (a, b) of its
   * live neighbours that are not adjacent (the entries of H' that L gains), or some value ≥ `limit`
   * as soon as it reaches that
   */
  private fillOf(v: number, sizes: ArrayLike<number>, limit: number): number {
    const adj = this.adjBuf;
    const l0 = this.adjOff[v];
    const l1 = l0 + this.adjLen[v];
    const mark = this.fillMark;
    let f = 0;
    for (let x = l0; x + 1 < l1; x++) {
      const u = adj[x];
      if (this.fillStamp >= 0x3fffffff) {
        mark.fill(-1);
        this.fillStamp = 0;
      }
      const stamp = ++this.fillStamp;
      const u0 = this.adjOff[u];
      for (let k = u0; k < u0 + this.adjLen[u]; k++) mark[adj[k]] = stamp;
      let missing = 0;
      for (let y = x + 1; y < l1; y++) if (mark[adj[y]] !== stamp) missing += sizes[adj[y]];
      f += sizes[u] * missing;
      if (f >= limit) return f;
    }
    return f;
  }

  /**
   * whether the block sizes and the deduplicated adjacency lists (in their first-occurrence order,
   * which is all the ordering reads) are those of the last complete analysis
   */
  private sameGraph(nb: number, sizes: ArrayLike<number>): boolean {
    const st = this.adjStart;
    const end = this.adjEnd;
    const flat = this.adjFlat;
    const lst = this.lastAdjStart;
    const last = this.lastAdj;
    for (let b = 0; b < nb; b++) {
      if (sizes[b] !== this.lastSizes[b]) return false;
      const n = end[b] - st[b];
      if (n !== lst[b + 1] - lst[b]) return false;
      for (let k = 0; k < n; k++) if (flat[st[b] + k] !== last[lst[b] + k]) return false;
    }
    return true;
  }

  /** remembers the sizes and the deduplicated adjacency lists for {@link sameGraph} */
  private keepGraph(nb: number, sizes: ArrayLike<number>): void {
    const st = this.adjStart;
    const end = this.adjEnd;
    const flat = this.adjFlat;
    let total = 0;
    for (let b = 0; b < nb; b++) total += end[b] - st[b];
    this.lastSizes = growI32(this.lastSizes, nb);
    this.lastAdjStart = growI32(this.lastAdjStart, nb + 1);
    this.lastAdj = growI32(this.lastAdj, total);
    let e = 0;
    for (let b = 0; b < nb; b++) {
      this.lastSizes[b] = sizes[b];
      this.lastAdjStart[b] = e;
      for (let k = st[b]; k < end[b]; k++) this.lastAdj[e++] = flat[k];
    }
    this.lastAdjStart[nb] = e;
  }

  /** lays the analysis out in the kernels' memory (or in JS arrays when it cannot) */
  private bind(sCount: number, nr: number, extraBytes: number): void {
    if (this.useWasm && this.wasm === null) {
      this.wasm = LinalgWasm.create(WHOLE_PROBLEM_MEMORY);
      this.useWasm = this.wasm !== null;
    }
    this.wasmBound = this.wasm !== null && this.bindWasm(this.wasm, sCount, nr, extraBytes);
    this.boundExtra = this.wasmBound ? extraBytes : 0;
    if (!this.wasmBound) {
      this.values = growF64(this.values, this.storage);
      this.held = growF64(this.held, this.storage);
      this.xs = growF64(this.xs, this.n);
    }
  }

  /**
   * Lays the structure, the values and the right-hand side out in the kernels' memory (structure
   * copied, values and right-hand side as views). False when the memory cannot grow.
   */
  private bindWasm(w: LinalgWasm, sCount: number, nr: number, extraBytes: number): boolean {
    const nb = this.nb;
    const ints: IntRuns = [
      [this.size, nb],
      [this.sPtr, nb + 1],
      [this.sIdx, sCount],
      [this.sRow, sCount],
      [this.pOff, nb + 1],
      [this.pRows, nb],
      [this.rPtr, nb + 1],
      [this.rBlk, nr],
      [this.rOff, nr],
      [this.rE, nr],
      [this.rowOf, nb],
      [this.dofStart, nb + 1],
    ];
    let bytes = intRunsBytes(ints);
    const valPtr = bytes;
    bytes += 8 * this.storage;
    const heldPtr = bytes;
    bytes += 8 * this.storage;
    const yPtr = bytes;
    bytes += 8 * this.n;
    // (laid out for either precision: a caller may switch it between factorizations)
    const val32Ptr = bytes;
    bytes += 8 * Math.ceil(this.storage / 2);
    const extraPtr = bytes;
    bytes += extraBytes;
    if (!w.reserve(bytes)) return false;
    this.extraPtr = extraPtr;
    const buf = w.buffer;
    const ptr = w.copyIntRuns(ints, 0);
    w.exports.setStructure(nb, ...ptr);
    this.values = new Float64Array(buf, valPtr, this.storage);
    this.held = new Float64Array(buf, heldPtr, this.storage);
    this.heldAt = heldPtr;
    this.xs = new Float64Array(buf, yPtr, this.n);
    this.valPtr = valPtr;
    this.yPtr = yPtr;
    this.val32Ptr = val32Ptr;
    return true;
  }

  /** values offset of the diagonal block of input block b (row-major, size×size; lower triangle used) */
  diagOffset(b: number): number {
    return this.pOff[this.position[b]];
  }

  /**
   * values offset of the block coupling input blocks a and b, or −1 when the pair is not in the
   * pattern. The block is stored in the panel of whichever of a, b is eliminated first (column
   * block), row-major with that block's width: entry (row r of the later block, column c of the
   * earlier one) lives at offset + r·width + c. {@link blockIsTransposed} tells which is which.
   */
  blockOffset(a: number, b: number): number {
    let J = this.position[a];
    let I = this.position[b];
    if (I < J) {
      const t = I;
      I = J;
      J = t;
    }
    // binary search of I in the (ascending) block rows of panel J
    let lo = this.sPtr[J];
    let hi = this.sPtr[J + 1] - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const x = this.sIdx[mid];
      if (x === I) return this.pOff[J] + this.sRow[mid] * this.size[J];
      if (x < I) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** zeroes the stored H/L entries */
  clear(): void {
    this.values.fill(0, 0, this.storage);
    this.factored = false;
  }

  /** zeroes {@link held} */
  clearHeld(): void {
    this.held.fill(0, 0, this.storage);
  }

  /** {@link values} ← {@link held} (to be factored) */
  loadHeld(): void {
    // (both are grown together, to the same length: one native copy, no view per call)
    if (this.held.length === this.values.length) this.values.set(this.held);
    else this.values.set(this.held.subarray(0, this.storage));
    this.factored = false;
  }

  /**
   * Factors the matrix held in {@link values} (in place; fp32 WebAssembly kernels factor binary32
   * panels of their own, see {@link factorValues}). For fp32 every stored entry is first rounded to
   * binary32 (as a copy into a Float32Array would). Returns the status and, for
   * `not_spd`, the first non-positive pivot in the permuted (H') numbering (one result object per
   * instance, overwritten by the next call).
   */
  factor(): CholeskyResult {
    let pivot: number;
    const w = this.wasmBound ? this.wasm!.exports : null;
    if (w !== null) {
      if (this.precision === 'fp32') {
        w.demote32(this.valPtr, this.val32Ptr);
        pivot = w.factor32(this.val32Ptr);
      } else {
        pivot = w.factor64(this.valPtr);
      }
    } else if (this.precision === 'fp32') {
      const val = this.values;
      for (let J = 0; J < this.nb; J++) {
        // only the lower triangles of diagonal blocks and the blocks below them are read
        const nJ = this.size[J];
        const base = this.pOff[J];
        for (let i = 0; i < nJ; i++)
          for (let j = 0; j <= i; j++) val[base + i * nJ + j] = fr(val[base + i * nJ + j]);
        for (let k = base + nJ * nJ; k < this.pOff[J + 1]; k++) val[k] = fr(val[k]);
      }
      pivot = this.factor32();
    } else {
      pivot = this.factor64();
    }
    this.factored = pivot < 0;
    const res = this.result;
    res.status = pivot < 0 ? 'ok' : 'not_spd';
    res.pivot = pivot;
    return res;
  }

  /**
   * The panels of L after a {@link factor}, in the offsets of {@link values}: {@link values}
   * itself, where the fp32 WebAssembly kernels' binary32 panels are first copied (for tests and
   * inspection; the solves read the kernels' own panels)
   */
  factorValues(): Float64Array {
    if (this.wasmBound && this.precision === 'fp32') {
      const L32 = new Float32Array(this.wasm!.buffer, this.val32Ptr, this.storage);
      for (let k = 0; k < this.storage; k++) this.values[k] = L32[k];
    }
    return this.values;
  }

  private factor64(): number {
    const val = this.values;
    const size = this.size;
    const sIdx = this.sIdx;
    const sRow = this.sRow;
    const pOff = this.pOff;
    const rowOf = this.rowOf;
    for (let J = 0; J < this.nb; J++) {
      const nJ = size[J];
      const base = pOff[J];
      rowOf[J] = 0;
      for (let e = this.sPtr[J]; e < this.sPtr[J + 1]; e++) rowOf[sIdx[e]] = sRow[e];
      // updates from earlier panels, K ascending
      for (let r = this.rPtr[J]; r < this.rPtr[J + 1]; r++) {
        const K = this.rBlk[r];
        const nK = size[K];
        const oJ = this.rOff[r];
        const eJ = this.rE[r];
        const eEnd = this.sPtr[K + 1];
        const pK = pOff[K];
        for (let e = eJ; e < eEnd; e++) {
          const I = sIdx[e];
          const nI = size[I];
          const oI = pK + sRow[e] * nK;
          const tgt = base + rowOf[I] * nJ;
          const diag = e === eJ;
          if (nK === 6) {
            // free bodies: the row of L_IK held in registers, k ascending as in the generic loop
            for (let i = 0; i < nI; i++) {
              const ri = oI + i * 6;
              const a0 = val[ri],
                a1 = val[ri + 1],
                a2 = val[ri + 2],
                a3 = val[ri + 3],
                a4 = val[ri + 4],
                a5 = val[ri + 5];
              const ti = tgt + i * nJ;
              const jEnd = diag ? i + 1 : nJ;
              for (let j = 0, rj = oJ; j < jEnd; j++, rj += 6) {
                val[ti + j] =
                  val[ti + j] -
                  a0 * val[rj] -
                  a1 * val[rj + 1] -
                  a2 * val[rj + 2] -
                  a3 * val[rj + 3] -
                  a4 * val[rj + 4] -
                  a5 * val[rj + 5];
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
              let s = val[ti + j];
              for (let k = 0; k < nK; k++) s -= val[ri + k] * val[rj + k];
              val[ti + j] = s;
            }
          }
        }
      }
      // the panel's own columns
      const R = this.pRows[J];
      for (let j = 0; j < nJ; j++) {
        const rj = base + j * nJ;
        let d = val[rj + j];
        for (let k = 0; k < j; k++) d -= val[rj + k] * val[rj + k];
        if (!(d > 0)) return this.dofStart[J] + j;
        const ljj = Math.sqrt(d);
        val[rj + j] = ljj;
        for (let i = j + 1; i < R; i++) {
          const ri = base + i * nJ;
          let s = val[ri + j];
          for (let k = 0; k < j; k++) s -= val[ri + k] * val[rj + k];
          val[ri + j] = s / ljj;
        }
      }
    }
    return -1;
  }

  private factor32(): number {
    const val = this.values;
    const size = this.size;
    const sIdx = this.sIdx;
    const sRow = this.sRow;
    const pOff = this.pOff;
    const rowOf = this.rowOf;
    for (let J = 0; J < this.nb; J++) {
      const nJ = size[J];
      const base = pOff[J];
      rowOf[J] = 0;
      for (let e = this.sPtr[J]; e < this.sPtr[J + 1]; e++) rowOf[sIdx[e]] = sRow[e];
      for (let r = this.rPtr[J]; r < this.rPtr[J + 1]; r++) {
        const K = this.rBlk[r];
        const nK = size[K];
        const oJ = this.rOff[r];
        const eJ = this.rE[r];
        const eEnd = this.sPtr[K + 1];
        const pK = pOff[K];
        for (let e = eJ; e < eEnd; e++) {
          const I = sIdx[e];
          const nI = size[I];
          const oI = pK + sRow[e] * nK;
          const tgt = base + rowOf[I] * nJ;
          const diag = e === eJ;
          if (nK === 6) {
            // free bodies: the row of L_IK held in registers, k ascending as in the generic loop
            for (let i = 0; i < nI; i++) {
              const ri = oI + i * 6;
              const a0 = val[ri],
                a1 = val[ri + 1],
                a2 = val[ri + 2],
                a3 = val[ri + 3],
                a4 = val[ri + 4],
                a5 = val[ri + 5];
              const ti = tgt + i * nJ;
              const jEnd = diag ? i + 1 : nJ;
              for (let j = 0, rj = oJ; j < jEnd; j++, rj += 6) {
                let s = val[ti + j];
                s = fr(s - fr(a0 * val[rj]));
                s = fr(s - fr(a1 * val[rj + 1]));
                s = fr(s - fr(a2 * val[rj + 2]));
                s = fr(s - fr(a3 * val[rj + 3]));
                s = fr(s - fr(a4 * val[rj + 4]));
                val[ti + j] = fr(s - fr(a5 * val[rj + 5]));
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
              let s = val[ti + j];
              for (let k = 0; k < nK; k++) s = fr(s - fr(val[ri + k] * val[rj + k]));
              val[ti + j] = s;
            }
          }
        }
      }
      const R = this.pRows[J];
      for (let j = 0; j < nJ; j++) {
        const rj = base + j * nJ;
        let d = val[rj + j];
        for (let k = 0; k < j; k++) d = fr(d - fr(val[rj + k] * val[rj + k]));
        if (!(d > 0)) return this.dofStart[J] + j;
        const ljj = fr(Math.sqrt(d));
        val[rj + j] = ljj;
        for (let i = j + 1; i < R; i++) {
          const ri = base + i * nJ;
          let s = val[ri + j];
          for (let k = 0; k < j; k++) s = fr(s - fr(val[ri + k] * val[rj + k]));
          val[ri + j] = fr(s / ljj);
        }
      }
    }
    return -1;
  }

  /**
   * x = H⁻¹·b for the last successful {@link factor}. `b` and `x` use the *input* numbering
   * (blocks contiguous in input order, `inputStart[b]` the first unknown of input block b);
   * `x` may alias `b`. For fp32 the right-hand side is rounded to binary32 first.
   */
  solve(b: Float64Array, x: Float64Array, inputStart: ArrayLike<number>): void {
    if (!this.factored) throw new Error('BlockSparseCholesky.solve: no valid factorization');
    const nb = this.nb;
    const y = this.xs;
    const f32 = this.precision === 'fp32';
    for (let p = 0; p < nb; p++) {
      const s0 = inputStart[this.order[p]];
      const d0 = this.dofStart[p];
      const n = this.size[p];
      if (f32) for (let k = 0; k < n; k++) y[d0 + k] = fr(b[s0 + k]);
      else for (let k = 0; k < n; k++) y[d0 + k] = b[s0 + k];
    }
    const w = this.wasmBound ? this.wasm!.exports : null;
    if (w !== null) {
      if (f32) w.substitute32(this.val32Ptr, this.yPtr);
      else w.substitute64(this.valPtr, this.yPtr);
    } else if (f32) this.substitute32(y);
    else this.substitute64(y);
    for (let p = 0; p < nb; p++) {
      const s0 = inputStart[this.order[p]];
      const d0 = this.dofStart[p];
      const n = this.size[p];
      for (let k = 0; k < n; k++) x[s0 + k] = y[d0 + k];
    }
  }

  /** solves L Lᵀ y = y in place in the permuted numbering */
  private substitute64(y: Float64Array): void {
    const val = this.values;
    const size = this.size;
    const ds = this.dofStart;
    const nb = this.nb;
    for (let I = 0; I < nb; I++) {
      const nI = size[I];
      const dI = ds[I];
      const pI = this.pOff[I];
      for (let i = 0; i < nI; i++) {
        let s = y[dI + i];
        for (let r = this.rPtr[I]; r < this.rPtr[I + 1]; r++) {
          const K = this.rBlk[r];
          const nK = size[K];
          const o = this.rOff[r] + i * nK;
          const dK = ds[K];
          for (let k = 0; k < nK; k++) s -= val[o + k] * y[dK + k];
        }
        const o = pI + i * nI;
        for (let k = 0; k < i; k++) s -= val[o + k] * y[dI + k];
        y[dI + i] = s / val[o + i];
      }
    }
    for (let I = nb - 1; I >= 0; I--) {
      const nI = size[I];
      const dI = ds[I];
      const pI = this.pOff[I];
      for (let i = nI - 1; i >= 0; i--) {
        // k descending: the blocks below (last first), then this block's own
        let s = y[dI + i];
        for (let e = this.sPtr[I + 1] - 1; e >= this.sPtr[I]; e--) {
          const K = this.sIdx[e];
          const o = pI + this.sRow[e] * nI + i;
          const dK = ds[K];
          for (let k = size[K] - 1; k >= 0; k--) s -= val[o + k * nI] * y[dK + k];
        }
        for (let k = nI - 1; k > i; k--) s -= val[pI + k * nI + i] * y[dI + k];
        y[dI + i] = s / val[pI + i * nI + i];
      }
    }
  }

  private substitute32(y: Float64Array): void {
    const val = this.values;
    const size = this.size;
    const ds = this.dofStart;
    const nb = this.nb;
    for (let I = 0; I < nb; I++) {
      const nI = size[I];
      const dI = ds[I];
      const pI = this.pOff[I];
      for (let i = 0; i < nI; i++) {
        let s = y[dI + i];
        for (let r = this.rPtr[I]; r < this.rPtr[I + 1]; r++) {
          const K = this.rBlk[r];
          const nK = size[K];
          const o = this.rOff[r] + i * nK;
          const dK = ds[K];
          for (let k = 0; k < nK; k++) s = fr(s - fr(val[o + k] * y[dK + k]));
        }
        const o = pI + i * nI;
        for (let k = 0; k < i; k++) s = fr(s - fr(val[o + k] * y[dI + k]));
        y[dI + i] = fr(s / val[o + i]);
      }
    }
    for (let I = nb - 1; I >= 0; I--) {
      const nI = size[I];
      const dI = ds[I];
      const pI = this.pOff[I];
      for (let i = nI - 1; i >= 0; i--) {
        // k descending: the blocks below (last first), then this block's own
        let s = y[dI + i];
        for (let e = this.sPtr[I + 1] - 1; e >= this.sPtr[I]; e--) {
          const K = this.sIdx[e];
          const o = pI + this.sRow[e] * nI + i;
          const dK = ds[K];
          for (let k = size[K] - 1; k >= 0; k--) s = fr(s - fr(val[o + k * nI] * y[dK + k]));
        }
        for (let k = nI - 1; k > i; k--) s = fr(s - fr(val[pI + k * nI + i] * y[dI + k]));
        y[dI + i] = fr(s / val[pI + i * nI + i]);
      }
    }
  }
}

/** whether block a comes before block b in the minimum-degree queue: smaller degree, then index */
function before(deg: Float64Array, a: number, b: number): boolean {
  return deg[a] < deg[b] || (deg[a] === deg[b] && a < b);
}

/** moves heap[i] up to its place (`at` follows every move) */
function siftUp(heap: Int32Array, at: Int32Array, deg: Float64Array, i: number): void {
  const x = heap[i];
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!before(deg, x, heap[p])) break;
    heap[i] = heap[p];
    at[heap[i]] = i;
    i = p;
  }
  heap[i] = x;
  at[x] = i;
}

/** moves heap[i] down to its place among the first n entries (`at` follows every move) */
function siftDown(heap: Int32Array, at: Int32Array, deg: Float64Array, i: number, n: number): void {
  const x = heap[i];
  for (;;) {
    let c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && before(deg, heap[c + 1], heap[c])) c++;
    if (!before(deg, heap[c], x)) break;
    heap[i] = heap[c];
    at[heap[i]] = i;
    i = c;
  }
  heap[i] = x;
  at[x] = i;
}
