/**
 * Workspace of the WebAssembly Newton evaluation (evaluation.as.ts): the solver's vectors live in
 * one kernel instance's memory, so J·v, the constraint costs, γ, G, the momentum terms, Jᵀγ, ∇ℓ
 * and the cost along the line run there with one call each. The JS twins in solver.ts give the
 * same results bit for bit.
 *
 * Layout: a fixed sequence of regions, each with a capacity in elements (Int32 structure arrays,
 * then f64 data and vectors). A region that outgrows its capacity doubles it and everything is laid
 * out again (new views); otherwise the views stay, so a steady stream of solves allocates nothing.
 */
import { copyRun } from '../../../math/arrays';
import { LinalgWasm, WHOLE_PROBLEM_MEMORY } from './kernels';

/** the f64 vectors the solver reads and writes in place (views into the kernel memory) */
export const EVAL_VECTORS = [
  'v',
  'vStar',
  'Ar',
  'p',
  'pStar',
  'jv',
  'grad',
  'dv',
  'dp',
  'vc',
  'gamma',
  'G',
  'dvc',
  'vcT',
  'gammaT',
  'GT',
  'dG',
  'gHeld',
  'dInv',
  'rhs',
  'out',
  'H',
] as const;
export type EvalVector = (typeof EVAL_VECTORS)[number];

/** Int32 structure regions, in the order setEvaluation takes their offsets */
const INT_REGIONS = [
  'kind',
  'rows',
  'rowOff',
  'gOff',
  'blkStart',
  'blkClique',
  'blkJ',
  'redOff',
  'cliqueOff',
  'colStart',
  'colIdx',
  'partCliques',
  'aOff',
] as const;
/** f64 data regions copied per solve, in the order setEvaluation takes their offsets */
const DATA_REGIONS = ['jd', 'params', 'A', 'T'] as const;
type IntRegion = (typeof INT_REGIONS)[number];
type Region = IntRegion | (typeof DATA_REGIONS)[number] | EvalVector;
const REGIONS: readonly Region[] = [...INT_REGIONS, ...DATA_REGIONS, ...EVAL_VECTORS];
const N_INT = INT_REGIONS.length;
/** the dense Newton matrix comes last, so that it can grow without moving the others */
const H_REGION = REGIONS.length - 1;
/** vectors over constraint rows (the others but the G-shaped ones are over participating dofs) */
const ROW_VECTORS: ReadonlySet<EvalVector> = new Set(['vc', 'gamma', 'dvc', 'vcT', 'gammaT']);
/** vectors shaped like the Hessian blocks G (r² per constraint) */
const G_VECTORS: ReadonlySet<EvalVector> = new Set(['G', 'GT', 'dG', 'gHeld']);

/** per EVAL_VECTORS entry, what sizes it: 0 dofs, 1 rows, 2 G blocks, 3 none (H: ensureH), 4 eight */
const VECTOR_SIZE = Int8Array.from(EVAL_VECTORS, (name) =>
  name === 'H' ? 3 : name === 'out' ? 4 : G_VECTORS.has(name) ? 2 : ROW_VECTORS.has(name) ? 1 : 0,
);
/** the first bytes stay unused: offset 0 means "no array" to the kernels */
const BASE = 64;

/** the solve's structure as the solver holds it (JS arrays; lengths as given) */
export interface EvaluationInputs {
  nCon: number;
  nBlk: number;
  nCliques: number;
  nPart: number;
  nJ: number;
  /** per constraint: SapKind */
  kind: Uint8Array;
  rows: Int32Array;
  rowOff: Int32Array;
  gOff: Int32Array;
  blkStart: Int32Array;
  blkClique: Int32Array;
  blkJ: Int32Array;
  redOff: Int32Array;
  cliqueOff: Int32Array;
  colStart: Int32Array;
  colIdx: Int32Array;
  partCliques: Int32Array;
  jData: Float64Array;
  params: Float64Array;
  /** per clique: row-major nv×nv A */
  cliquesA: Float64Array[];
}

/** one kernel instance holding the solver's evaluation data */
export class EvaluationWasm {
  readonly kernels: LinalgWasm;
  /** the vectors (length = capacity ≥ the last {@link layout}'s sizes) */
  readonly views = {} as Record<EvalVector, Float64Array>;
  /** byte offset of each vector */
  readonly ptr = {} as Record<EvalVector, number>;
  private readonly cap = new Float64Array(REGIONS.length);
  private readonly off = new Float64Array(REGIONS.length);
  private readonly need = new Float64Array(REGIONS.length);
  private buffer: ArrayBuffer | null = null;
  /** the kernels hold this layout's array offsets (set by the first bind after a layout) */
  private offsetsBound = false;
  private heapI32 = new Int32Array(0);
  private heapF64 = new Float64Array(0);

  private constructor(kernels: LinalgWasm) {
    this.kernels = kernels;
  }

  /** a new workspace, or null where WebAssembly is unavailable */
  static create(): EvaluationWasm | null {
    const k = LinalgWasm.create(WHOLE_PROBLEM_MEMORY);
    return k === null ? null : new EvaluationWasm(k);
  }

  /**
   * Makes room for a solve of these sizes; true when the vectors were laid out again (the caller
   * must then take {@link views} anew; their previous contents are lost). Throws a RangeError when
   * the memory cannot grow.
   */
  layout(s: {
    np: number;
    nRows: number;
    nG: number;
    nCon: number;
    nBlk: number;
    nCliques: number;
    nColIdx: number;
    nPart: number;
    nJ: number;
    nA: number;
    /** G·J scratch: HOLONOMIC_MAX_ROWS × the largest clique */
    nT: number;
  }): boolean {
    const need = this.need;
    let i = 0;
    // Int32 regions (INT_REGIONS order)
    need[i++] = s.nCon; // kind
    need[i++] = s.nCon; // rows
    need[i++] = s.nCon + 1; // rowOff
    need[i++] = s.nCon + 1; // gOff
    need[i++] = s.nCon + 1; // blkStart
    need[i++] = s.nBlk; // blkClique
    need[i++] = s.nBlk; // blkJ
    need[i++] = s.nCliques; // redOff
    need[i++] = s.nCliques + 1; // cliqueOff
    need[i++] = s.nBlk + 1; // colStart
    need[i++] = s.nColIdx; // colIdx
    need[i++] = s.nPart; // partCliques
    need[i++] = s.nPart; // aOff
    // f64 data
    need[i++] = s.nJ; // jd
    need[i++] = 12 * s.nCon; // params (PARAM_STRIDE)
    need[i++] = s.nA; // A
    need[i++] = s.nT; // T
    // vectors (EVAL_VECTORS order)
    // (H: sized by ensureH; out: the kernels' scalar inputs and results)
    for (let k = 0; k < VECTOR_SIZE.length; k++) {
      const z = VECTOR_SIZE[k];
      need[i++] = z === 0 ? s.np : z === 1 ? s.nRows : z === 2 ? s.nG : z === 3 ? 0 : 8;
    }
    let grow = this.buffer === null;
    for (let r = 0; r < REGIONS.length; r++) {
      if (need[r] > this.cap[r]) {
        this.cap[r] = Math.max(need[r], 2 * this.cap[r], 16);
        grow = true;
      }
    }
    if (!grow && this.current()) return false;
    let at = BASE;
    for (let r = 0; r < REGIONS.length; r++) {
      this.off[r] = at;
      at += (r < N_INT ? 4 : 8) * this.cap[r];
      at = (at + 7) & ~7;
    }
    this.takeViews(at);
    return true;
  }

  /**
   * Makes room for an n2-entry dense Newton matrix ({@link views}.H); true when the views were
   * made anew (the memory grew; contents are kept). Throws a RangeError when it cannot grow.
   */
  ensureH(n2: number): boolean {
    const r = H_REGION;
    if (n2 <= this.cap[r] && this.current()) return false;
    this.cap[r] = Math.max(n2, this.cap[r]);
    this.takeViews(this.off[r] + 8 * this.cap[r]);
    return true;
  }

  /** grows the memory to `bytes` and makes the views at the current offsets */
  private takeViews(bytes: number): void {
    if (!this.kernels.reserve(bytes)) throw new RangeError('WebAssembly memory cannot grow');
    const buf = this.kernels.buffer;
    this.buffer = buf;
    this.offsetsBound = false;
    this.heapI32 = new Int32Array(buf);
    this.heapF64 = new Float64Array(buf);
    for (let k = 0; k < EVAL_VECTORS.length; k++) {
      const r = REGIONS.length - EVAL_VECTORS.length + k;
      const name = EVAL_VECTORS[k];
      this.ptr[name] = this.off[r];
      this.views[name] = new Float64Array(buf, this.off[r], this.cap[r]);
    }
    const p = this.ptr;
    this.kernels.exports.setEvaluationVectors(
      p.v,
      p.vStar,
      p.Ar,
      p.p,
      p.jv,
      p.grad,
      p.vc,
      p.gamma,
      p.G,
      p.dvc,
      p.vcT,
      p.gammaT,
      p.GT,
      p.dInv,
      p.rhs,
      p.dv,
      p.dp,
      p.out,
      p.pStar,
    );
  }

  /** copies n Int32 values into the memory at byte offset `at` (4-aligned) */
  setInts(at: number, src: Int32Array, n: number): void {
    copyRun(this.heapI32, at >> 2, src, n);
  }

  /** true while the views taken at the last {@link layout} are the memory's (it has not grown since) */
  current(): boolean {
    return this.buffer !== null && this.buffer === this.kernels.buffer;
  }

  /**
   * Copies the solve's structure, J, the parameters and the A blocks (after {@link layout}). With
   * `valuesOnly`, where the structure (and so every offset and count) is the one bound last time and
   * the memory has not grown since, only J, the parameters and the A blocks.
   */
  bind(s: EvaluationInputs, valuesOnly = false): void {
    const heap = this.heapI32;
    const off = this.off;
    if (valuesOnly && this.offsetsBound) {
      this.bindValues(s);
      return;
    }
    copyRun(heap, off[0] >> 2, s.kind, s.nCon);
    copyRun(heap, off[1] >> 2, s.rows, s.nCon);
    copyRun(heap, off[2] >> 2, s.rowOff, s.nCon + 1);
    copyRun(heap, off[3] >> 2, s.gOff, s.nCon + 1);
    copyRun(heap, off[4] >> 2, s.blkStart, s.nCon + 1);
    copyRun(heap, off[5] >> 2, s.blkClique, s.nBlk);
    copyRun(heap, off[6] >> 2, s.blkJ, s.nBlk);
    copyRun(heap, off[7] >> 2, s.redOff, s.nCliques);
    copyRun(heap, off[8] >> 2, s.cliqueOff, s.nCliques + 1);
    copyRun(heap, off[9] >> 2, s.colStart, s.nBlk + 1);
    copyRun(heap, off[10] >> 2, s.colIdx, s.colStart[s.nBlk]);
    copyRun(heap, off[11] >> 2, s.partCliques, s.nPart);
    // offsets of the participating cliques' A blocks, back to back
    const aOff = off[12] >> 2;
    let e = 0;
    for (let q = 0; q < s.nPart; q++) {
      const c = s.partCliques[q];
      heap[aOff + q] = e;
      const n = s.cliqueOff[c + 1] - s.cliqueOff[c];
      e += n * n;
    }
    this.bindValues(s);
    const k = this.kernels.exports;
    if (this.offsetsBound) {
      k.setEvaluationCounts(s.nCon, s.nPart);
      return;
    }
    this.offsetsBound = true;
    // the dense assembly's structure (its pair tables are the sparse path's: unused here)
    k.setAssembly(
      off[1],
      off[3],
      off[4],
      off[5],
      off[6],
      0,
      0,
      0,
      0,
      off[7],
      off[8],
      off[9],
      off[10],
      off[N_INT],
      off[N_INT + 3],
    );
    k.setEvaluation(
      s.nCon,
      s.nPart,
      off[0],
      off[1],
      off[2],
      off[3],
      off[4],
      off[5],
      off[6],
      off[7],
      off[8],
      off[9],
      off[10],
      off[11],
      off[12],
      off[13],
      off[14],
      off[15],
    );
  }

  /** J, the parameters and the A blocks of the participating cliques (at the bound offsets) */
  private bindValues(s: EvaluationInputs): void {
    const f64 = this.heapF64;
    const off = this.off;
    const aBase = off[N_INT + 2] >> 3;
    let e = 0;
    for (let q = 0; q < s.nPart; q++) {
      const c = s.partCliques[q];
      const n = s.cliqueOff[c + 1] - s.cliqueOff[c];
      copyRun(f64, aBase + e, s.cliquesA[c], n * n);
      e += n * n;
    }
    copyRun(f64, off[N_INT] >> 3, s.jData, s.nJ);
    copyRun(f64, off[N_INT + 1] >> 3, s.params, 12 * s.nCon);
  }
}
