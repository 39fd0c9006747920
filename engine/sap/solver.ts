/**
 * SAP Newton solver over a {@link SapProblem} (Drake SAP notes §0 and §3, SPEC §3.3–3.7).
 *
 * A {@link SapSolver} keeps every workspace (typed arrays, the factorization storage) between calls
 * and only grows them. Two entry points run the same code: {@link SapSolver.solve} takes the public
 * problem object (validated, then packed), {@link SapSolver.solvePacked} takes a pooled
 * {@link PackedSapProblem} (the pipeline's per-step path, no per-constraint allocations).
 *
 * Loop (k = 0, 1, …): evaluate vc = Jv, γ, G, ℓ and ∇ℓ = A(v−v*) − Jᵀγ at v_k; converged if
 * ‖D∇ℓ‖ ≤ abs + rel·max(‖Dp‖, ‖Dj‖) (D = diag(A)^-1/2, p = Av, j = Jᵀγ) or if the cost criterion
 * was met by the previous update; stop with `max_iterations` when k reaches the cap; otherwise
 * solve (A + JᵀGJ)Δv = −∇ℓ by Cholesky over the participating dofs, run the line search and set
 * v_{k+1} = v_k + αΔv. Cost criterion: |ℓ_k − ℓ_{k+1}| < cost_abs + cost_rel·½(|ℓ_k| + |ℓ_{k+1}|)
 * and α > 0.5. After a step, vc and A(v − v*) are advanced with v (vc + αJΔv, A(v − v*) + αAΔv,
 * the products the line search already formed) instead of multiplied again, except when
 * contact_solve_precision is fp32 (v is rounded there, so both are recomputed from it).
 *
 * Linear algebra (SPEC §3.4): once per solve the participating cliques are ordered by minimum degree
 * on the clique graph (cliques coupled by a constraint are neighbours; ties broken by the least fill)
 * and the block fill pattern is analysed (linalg/block_sparse.ts). Each Newton iteration then factors
 * H' = PHPᵀ (P: that order) either densely (linalg/cholesky.ts, a permuted copy of the dense lower
 * triangle) or block sparse (H assembled straight into the clique panels). Both realize the same
 * per-entry operation order, so the two paths give bit-identical results in fp64 and in fp32;
 * {@link SapSolver.linear_solver} = 'auto' picks block-sparse when its estimated factorization work
 * is well below the dense one (many cliques, sparse coupling) and dense otherwise (one articulated
 * clique, few cliques).
 *
 * Precision (SPEC §3.7):
 * - `contact_linear_solve_precision`: realization of the Cholesky factorization and solves
 *   (fp32 = IEEE binary32 bit for bit, see linalg/cholesky.ts and linalg/block_sparse.ts).
 * - `contact_solve_precision` = fp32: values are rounded to binary32 (`Math.fround`) where they are
 *   stored: the iterate v (guess and every update), the impulses γ, the generalized impulse j, the
 *   gradient ∇ℓ and every entry of H. The expressions producing them, the costs, the line-search
 *   scalars, Δv (unless the linear solve is fp32) and the constraint parameters stay fp64.
 * - `sap_contact_weight_precision` = fp32: the diagonal-Delassus estimate of a contact's w (when
 *   the spec omits w) is computed with every operation rounded to binary32.
 */

import { zeroRun } from '../math/arrays';
import { PARAM_STRIDE, type ConstraintCalc } from './constraints/common';
import { HOLONOMIC_MAX_ROWS, holonomicCalc, makeHolonomicParams } from './constraints/holonomic';
import {
  CONTACT_REGION_NAMES,
  CONTACT_ROWS,
  contactCalc,
  contactEval,
  contactRegion,
  makeContactParams,
  type ContactRegion,
  type ContactRegionName,
} from './constraints/contact';
import { limitCalc, limitRowSigns, makeLimitParams } from './constraints/limit';
import { makeTendonParams } from './constraints/tendon';
import { makeJointFrictionParams } from './constraints/joint_friction';
import { makePdParams, pdCalc, pdEval } from './constraints/pd';
import { BlockSparseCholesky } from './linalg/block_sparse';
import { CHOLESKY_TILE, DenseCholesky, choleskyFactor } from './linalg/cholesky';
import { intRunsBytes, type IntRuns, type LinalgKernels } from './linalg/wasm/kernels';
import { EvaluationWasm, type EvaluationInputs } from './linalg/wasm/evaluation';
import { StructureKey } from './structure_key';
import {
  MONOTONE_MIN_ALPHA,
  lineSearch,
  monotoneThreshold,
  type LineObjective,
  type LineSample,
  type LineSearchParams,
  type LineSearchResult,
} from './linesearch';
import { resolveSolverOptions, type SapSolverOptions } from './options';
import { SapIslands } from './islands';
import { PHYS_STRIDE, PackedSapProblem, SapKind } from './packed_problem';
import type { SapConstraintSpec, SapProblem, SapSolveResult, SapSolveStatus } from './problem';

/** severity order of solve statuses */
const STATUS_RANK: Record<SapSolveStatus, number> = {
  converged: 0,
  max_iterations: 1,
  line_search_failed: 2,
  invalid_input: 3,
};

/** the more severe of two statuses (invalid_input > line_search_failed > max_iterations > converged) */
export function worseSolveStatus(a: SapSolveStatus, b: SapSolveStatus): SapSolveStatus {
  return STATUS_RANK[a] >= STATUS_RANK[b] ? a : b;
}

const KIND_CONTACT = SapKind.Contact;
const KIND_LIMIT = SapKind.Limit;
const KIND_HOLONOMIC = SapKind.Holonomic;
const KIND_PD = SapKind.Pd;
const KIND_TENDON = SapKind.Tendon;
/** per kind (a tendon's rows are a limit's: unilateral, R and v̂ per row) */
const KERNELS: readonly ConstraintCalc[] = [contactCalc, limitCalc, pdCalc, holonomicCalc, limitCalc];

/** {@link ConstraintCalc} of a constraint kind (direct calls: monomorphic call sites) */
function calc(
  kind: number,
  P: Float64Array,
  po: number,
  nrows: number,
  vc: Float64Array,
  vo: number,
  gamma: Float64Array | null,
  go: number,
  G: Float64Array | null,
  Go: number,
): number {
  switch (kind) {
    case KIND_CONTACT:
      return contactCalc(P, po, nrows, vc, vo, gamma, go, G, Go);
    case KIND_LIMIT:
      return limitCalc(P, po, nrows, vc, vo, gamma, go, G, Go);
    case KIND_PD:
      return pdCalc(P, po, nrows, vc, vo, gamma, go, G, Go);
    default:
      return KERNELS[kind](P, po, nrows, vc, vo, gamma, go, G, Go);
  }
}

/** checks the sides, stiffness, τ and β of a joint or tendon limit spec; the message or null */
function checkLimitSides(
  s: { lower: number; upper: number; stiffness: number; tau_d: number; beta?: number },
  bad: (field: string, what: string) => string,
): string | null {
  const fin = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x);
  if (typeof s.lower !== 'number' || Number.isNaN(s.lower) || s.lower === Infinity) {
    return bad('lower', 'must be finite or -Infinity');
  }
  if (typeof s.upper !== 'number' || Number.isNaN(s.upper) || s.upper === -Infinity) {
    return bad('upper', 'must be finite or +Infinity');
  }
  if (!(typeof s.stiffness === 'number' && s.stiffness > 0)) return bad('stiffness', 'must be > 0');
  if (!(fin(s.tau_d) && s.tau_d >= 0)) return bad('tau_d', 'must be finite and ≥ 0');
  if (s.beta !== undefined && !(fin(s.beta) && s.beta >= 0)) return bad('beta', 'must be finite and ≥ 0');
  return null;
}

/** floor of a diagonal-Delassus weight estimate */
export const MIN_DELASSUS_WEIGHT = 1e-12;

/**
 * The largest w·G (a constraint's Hessian block against its Delassus weight w, i.e. w/R: 1/σ for a
 * sticking contact, 4π²/β² for a near-rigid one) at which H is updated incrementally. Taking a
 * block out again (a contact that starts to slide or separates) leaves a rounding residue of about
 * ε·w·G of the constraint's scale in H: ≤ 2e-10 here (SAP's defaults: 1e3). Stiffer problems
 * (contact_sigma below 1e-6) assemble every iteration from scratch.
 */
const INCREMENTAL_MAX_STIFFNESS = 1e6;

/** which factorization the Newton step uses */
export type LinearSolverMode = 'auto' | 'dense' | 'block_sparse';

const fr = Math.fround;
const ident = (x: number): number => x;

function growF64(a: Float64Array, n: number): Float64Array {
  return a.length >= n ? a : new Float64Array(Math.max(n, 2 * a.length));
}
function growI32(a: Int32Array, n: number): Int32Array {
  return a.length >= n ? a : new Int32Array(Math.max(n, 2 * a.length));
}
function finiteArray(a: Float64Array, from = 0, to = a.length): boolean {
  // x·0 is ±0 for finite x and NaN for NaN and ±Inf: one test at the end, four sums in flight
  let s0 = 0,
    s1 = 0,
    s2 = 0,
    s3 = 0;
  let k = from;
  for (; k + 4 <= to; k += 4) {
    s0 += a[k] * 0;
    s1 += a[k + 1] * 0;
    s2 += a[k + 2] * 0;
    s3 += a[k + 3] * 0;
  }
  for (; k < to; k++) s0 += a[k] * 0;
  return s0 + s1 + s2 + s3 === 0;
}
/**
 * out[oo + a] = Σ_m A[m·n + a]·x[xo + m], m ascending from 0: A·x for the symmetric n×n row-major
 * A read along its rows (the WebAssembly twin's order; x and out must not overlap)
 */
function symMatVec(
  A: Float64Array,
  n: number,
  x: Float64Array,
  xo: number,
  out: Float64Array,
  oo: number,
): void {
  out.fill(0, oo, oo + n);
  for (let m = 0; m < n; m++) {
    const xm = x[xo + m];
    const r = m * n;
    for (let a = 0; a < n; a++) out[oo + a] += A[r + a] * xm;
  }
}
function isIndex(x: unknown, n: number): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0 && x < n;
}
/** NaN → undefined (the packed form's "use the default") */
function opt(x: number): number | undefined {
  return Number.isNaN(x) ? undefined : x;
}

/** x, or `fallback` where x is NaN (the packed records' "default"; a number, never boxed) */
function orDefault(x: number, fallback: number): number {
  return Number.isNaN(x) ? fallback : x;
}

/**
 * Diagonal-Delassus weight of one constraint (Drake notes §1.2): W = Σ_b J_b diag(A_b)⁻¹ J_bᵀ over
 * its clique blocks (each term (J_rm·J_sm)·(1/A_mm)), w = max(‖W‖_F / nrows, 1e-12); `rnd` rounds
 * every operation (identity or `Math.fround`).
 *
 * @param blocks  per block: row-major nrows×nv Jacobian and the clique's row-major nv×nv A
 * @param nrows   number of constraint rows
 */
export function diagDelassusWeight(
  blocks: readonly { J: ArrayLike<number>; A: ArrayLike<number>; nv: number }[],
  nrows: number,
  rnd: (x: number) => number = ident,
): number {
  let f2 = 0;
  for (let r = 0; r < nrows; r++) {
    for (let s = 0; s < nrows; s++) {
      let w = 0;
      for (const b of blocks) {
        for (let m = 0; m < b.nv; m++) {
          const jr = b.J[r * b.nv + m];
          const js = b.J[s * b.nv + m];
          if (jr === 0 || js === 0) continue;
          w = rnd(w + rnd(rnd(jr * js) * rnd(1 / b.A[m * b.nv + m])));
        }
      }
      f2 = rnd(f2 + rnd(w * w));
    }
  }
  const w = rnd(rnd(Math.sqrt(f2)) / nrows);
  return Math.max(w, MIN_DELASSUS_WEIGHT);
}

/**
 * T = G·J_q (r × nq, row-major) at the nonzero columns ci[q0..q1) of the q block:
 * T[k][s] = Σ_l G[k][l]·J[l][s], l ascending from acc = +0. Terms with G[k][l] = 0 are skipped:
 * their products are ±0, and adding ±0 to an accumulator that starts at +0 (and so is never −0)
 * leaves it unchanged, so T is bit-identical to the full sum. Stick contacts have a diagonal G.
 */
function computeGJ(
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
function addRowJtT(
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

/** outcome of {@link SapSolver.solvePacked} (one object, reused by the solver) */
export interface PackedSolveOutcome {
  status: SapSolveStatus;
  iterations: number;
  line_search_iterations: number;
  /** ℓ(v_k) per iteration (a new array per solve) */
  cost: number[];
  message?: string;
  /** islands solved one by one (options.solve_islands), 1 when the problem was solved whole */
  islands: number;
  /** Newton started from the alternative start `vAlt` (in any island) */
  alt_start: boolean;
}

/**
 * Reusable SAP solver. Options are resolved once (`resolveSolverOptions`); workspaces persist
 * across {@link SapSolver.solve} calls.
 */
export class SapSolver {
  /** fully resolved options in use */
  options: SapSolverOptions;
  /**
   * factorization of the Newton step: 'auto' (default) picks 'block_sparse' when it wins, else
   * 'dense'. Both give bit-identical results (see the file comment); this only changes speed.
   */
  linear_solver: LinearSolverMode = 'auto';

  /**
   * Newton iterations after a solve's first re-assemble H = A + JᵀGJ incrementally: only the
   * constraints whose Hessian block G changed (sliding contacts, contacts and limits switching
   * state) are added again, with the change ΔG (default true). Off: every iteration assembles from
   * scratch. The two differ by rounding only; this changes speed (on settled piles about a fifth of
   * the contacts change per iteration). Never under contact_solve_precision fp32, nor where a
   * constraint is stiffer than w·G = 1e6 (contact_sigma below 1e-6: the residue of taking its block
   * out again would grow beyond rounding).
   */
  incremental_hessian = true;
  /**
   * assemblies of H since construction: from scratch, incremental, and the constraints the
   * incremental ones added (those whose G changed)
   */
  readonly assembly_counts = { full: 0, incremental: 0, changed: 0 };

  /**
   * Where the Newton evaluation, the factorizations, the solves and the sparse assembly run:
   * `wasm` (default, where available) or their JS twins; results are bit-identical (the choice
   * exists for tests and comparisons).
   */
  get kernels(): LinalgKernels {
    return this.chol.kernels;
  }
  set kernels(k: LinalgKernels) {
    this.bs = new BlockSparseCholesky('fp64', k);
    this.chol = new DenseCholesky('fp64', CHOLESKY_TILE, k);
    this.ev = k === 'wasm' ? EvaluationWasm.create() : null;
  }
  /** the factorization used by the last solve */
  last_linear_solver: 'dense' | 'block_sparse' = 'dense';

  // problem in packed form (own storage for solve(), the caller's for solvePacked())
  private readonly own = new PackedSapProblem();
  /** the sparse assembly's index arrays for the kernels ({@link assemblyArrays}; reused) */
  private readonly asmRuns: IntRuns = Array.from({ length: 13 }, () => [new Int32Array(0), 0]);

  // islands (options.solve_islands): results of the last solve in the caller's numbering
  private readonly islands = new SapIslands();
  private islandMode = false;
  private rowOffAll: Int32Array = new Int32Array(0);
  private gammaAll: Float64Array = new Float64Array(0);
  private vcAll: Float64Array = new Float64Array(0);
  private jAll: Float64Array = new Float64Array(0);
  private regionAll: Uint8Array = new Uint8Array(0);
  private subV: Float64Array = new Float64Array(0);
  private pp: PackedSapProblem = this.own;

  // problem layout
  private nCliques = 0;
  private nvTotal = 0;
  private nvp = 0; // participating dofs
  private nCon = 0;
  private nRows = 0;
  private nG = 0;
  private cliqueOff: Int32Array = new Int32Array(0); // global dof offset per clique (nCliques + 1)
  private redOff: Int32Array = new Int32Array(0); // reduced offset per clique, −1 if not participating
  private partCliques: Int32Array = new Int32Array(0); // participating clique ids, ascending
  private partIndex: Int32Array = new Int32Array(0); // clique → index in partCliques (or −1)
  private partSize: Int32Array = new Int32Array(0);
  private partStart: Int32Array = new Int32Array(0); // reduced offset per participating clique
  private nPart = 0;
  private maxNv = 0;
  private kind: Uint8Array = new Uint8Array(0);
  private rows: Int32Array = new Int32Array(0);
  private rowOff: Int32Array = new Int32Array(0);
  private gOff: Int32Array = new Int32Array(0);
  private params: Float64Array = new Float64Array(0);
  private blkStart: Int32Array = new Int32Array(0); // per constraint (nCon + 1)
  private blkClique: Int32Array = new Int32Array(0);
  private blkJ: Int32Array = new Int32Array(0); // offset in jData
  private jData: Float64Array = new Float64Array(0);
  private nJ = 0; // used length of jData
  // WebAssembly assembly of JᵀGJ (sparse path): whether this solve uses it, and G's copy there
  private wasmAssembly = false;
  private wasmG: Float64Array = new Float64Array(0);
  private wasmGPtr = 0;
  /** the solve's G (the first nG entries of {@link G}), the source of wasmG's copy per iteration */
  private gSolve: Float64Array = new Float64Array(0);
  /** the G the held H was assembled with, beside wasmG ({@link hessianChange}) */
  private wasmGHeld: Float64Array = new Float64Array(0);
  private wasmGHeldPtr = 0;
  /**
   * per block (nBlk + 1): range into colIdx of the block's structurally nonzero columns (columns m
   * with J[k][m] ≠ 0 for some row k), ascending. Every product over a Jacobian block runs over
   * these columns only: the skipped terms are exact zeros, so sums are unchanged bit for bit.
   */
  private colStart: Int32Array = new Int32Array(1);
  private colIdx: Int32Array = new Int32Array(0);
  private cliquesA: Float64Array[] = [];
  /** WebAssembly Newton evaluation (null: the JS twins below run); holds the vectors it reads */
  private ev: EvaluationWasm | null = EvaluationWasm.create();
  /** line-search parameters ({@link lineSearchParams}) */
  private readonly ls: LineSearchParams = {
    variant: 'monotone_decay',
    max_iterations: 0,
    armijo_c: 0,
    rho: 0,
    relative_slop: 0,
    cost_abs_tol: 0,
    cost_rel_tol: 0,
  };
  /** the structure of the last prepared problem, and the evaluation it was laid out in */
  private readonly structure = new StructureKey();
  private preparedEv: EvaluationWasm | null = null;
  /** whether the last {@link buildColumns} found other nonzero columns than the one before */
  private columnsChanged = true;
  private readonly evIn: EvaluationInputs = {
    nCon: 0,
    nBlk: 0,
    nCliques: 0,
    nPart: 0,
    nJ: 0,
    kind: new Uint8Array(0),
    rows: new Int32Array(0),
    rowOff: new Int32Array(0),
    gOff: new Int32Array(0),
    blkStart: new Int32Array(0),
    blkClique: new Int32Array(0),
    blkJ: new Int32Array(0),
    redOff: new Int32Array(0),
    cliqueOff: new Int32Array(0),
    colStart: new Int32Array(0),
    colIdx: new Int32Array(0),
    partCliques: new Int32Array(0),
    jData: new Float64Array(0),
    params: new Float64Array(0),
    cliquesA: [],
  };

  // ordering, symbolic structure and the factorizations
  private bs = new BlockSparseCholesky('fp64');
  private sparse = false;
  private edges: Int32Array = new Int32Array(0);
  private dofPerm: Int32Array = new Int32Array(0); // dense path: H' row → reduced dof
  private identityPerm = true;
  /** dense path on the evaluation's memory: byte offset of the permutation there (0: identity) */
  private evPerm = 0;
  /** sparse path, per block (index into blkClique): values offset of its diagonal block */
  private blkDiag: Int32Array = new Int32Array(0);
  /** sparse path, per constraint: (nCon + 1) ranges into pairOff */
  private pairStart: Int32Array = new Int32Array(0);
  /** sparse path: per ordered block pair (q, p), q ≠ p, of a constraint: coupling block offset */
  private pairOff: Int32Array = new Int32Array(0);
  /** sparse path: 1 when that block is stored transposed (p eliminated before q) */
  private pairT: Uint8Array = new Uint8Array(0);

  // vectors over participating dofs
  private v: Float64Array = new Float64Array(0);
  private vStar: Float64Array = new Float64Array(0);
  private dInv: Float64Array = new Float64Array(0); // diag(A)^-1/2
  private Ar: Float64Array = new Float64Array(0); // A(v − v*)
  private p: Float64Array = new Float64Array(0); // A v
  private pStar: Float64Array = new Float64Array(0); // A v* (per solve)
  private jv: Float64Array = new Float64Array(0); // Jᵀγ
  private grad: Float64Array = new Float64Array(0);
  private rhs: Float64Array = new Float64Array(0);
  private dv: Float64Array = new Float64Array(0);
  private dp: Float64Array = new Float64Array(0);
  private H: Float64Array = new Float64Array(0);
  private T: Float64Array = new Float64Array(0); // G·J block scratch
  // vectors over constraint rows
  private vc: Float64Array = new Float64Array(0);
  private dvc: Float64Array = new Float64Array(0);
  private gamma: Float64Array = new Float64Array(0);
  private G: Float64Array = new Float64Array(0);
  private vcT: Float64Array = new Float64Array(0);
  private gammaT: Float64Array = new Float64Array(0);
  private GT: Float64Array = new Float64Array(0);
  /**
   * the Hessian blocks the held H was assembled with ({@link hessianChange}; a view into the
   * evaluation's memory there, and unused by the block-sparse WebAssembly assembly, which keeps
   * its own copy beside {@link wasmG})
   */
  private gHeld: Float64Array = new Float64Array(0);
  /** ΔG = G − gHeld of an incremental assembly (a view into the evaluation's memory there) */
  private dG: Float64Array = new Float64Array(0);
  /** H (dense: {@link H}; block-sparse: its held copy) holds A + JᵀG·J with G = {@link gHeld} */
  private heldH = false;
  /** the largest w·G a constraint of this solve can take on ({@link INCREMENTAL_MAX_STIFFNESS}) */
  private stiffness = 0;

  /**
   * vc = Jv and Ar = A(v − v*) already hold the current v: the last stepV advanced them with v by
   * the same step (vc + αJΔv, Ar + αAΔv), so evalAtV need not multiply by J and A again. Cleared
   * whenever v is loaded; never set when contact_solve_precision is fp32 (v is rounded there).
   */
  private advanced = false;

  // line data
  private ellA0 = 0;
  private dpr = 0; // Δpᵀ(v − v*)
  private d2A = 0; // ΔvᵀAΔv
  private chol = new DenseCholesky('fp64');
  private readonly costBuf = new Float64Array(1);
  /** scalar results of residualNorms / directionTerms */
  private readonly scalars = new Float64Array(4);
  private readonly sample: LineSample = { phi: 0, dphi: 0, d2phi: 0 };
  private readonly lsResult: LineSearchResult = { status: 'ok', alpha: 1, iterations: 0 };
  private readonly line: LineObjective = { evaluate: (a, o, out) => this.evalAlongLine(a, o, out) };
  private readonly outcome: PackedSolveOutcome = {
    status: 'converged',
    iterations: 0,
    line_search_iterations: 0,
    cost: [],
    islands: 1,
    alt_start: false,
  };
  // scratch inputs of the parameter builders
  private readonly limitIn = {
    q0: 0,
    lower: 0,
    upper: 0,
    stiffness: 0,
    tau_d: 0,
    beta: undefined as number | undefined,
  };
  private readonly tendonIn = {
    l0: 0.5,
    lower: 0.5,
    upper: 0.5,
    stiffness: 0.5,
    tau_d: 0.5,
    beta: 0.5 as number | undefined,
  };
  private readonly pdIn = { q0: 0, qd: 0, vd: 0, kp: 0, kd: 0, effort_limit: 0, u0: 0 };
  // (numbers from the start, not undefined: a field that has held undefined stores every new double
  // in a fresh heap box)
  private readonly contactIn = {
    mu: 0.5,
    stiffness: 0.5,
    tau_d: 0.5,
    phi0: 0.5,
    beta: 0.5 as number | undefined,
    sigma: 0.5 as number | undefined,
  };
  private readonly holoG0 = new Float64Array(HOLONOMIC_MAX_ROWS);
  /** the symmetric Delassus block W of one constraint (rows² entries, upper triangle used) */
  private readonly wScratch = new Float64Array(Math.max(CONTACT_ROWS, HOLONOMIC_MAX_ROWS) ** 2);
  /** {@link delassusWeight}'s result (a double returned from a call V8 does not inline is boxed) */
  private readonly weightOut = new Float64Array(1);
  private readonly holoIn = {
    g0: this.holoG0 as ArrayLike<number>,
    stiffness: 0,
    tau_d: 0,
    beta: undefined as number | undefined,
  };

  /** @param options  partial options, expanded with `resolveSolverOptions` (throws OptionsError) */
  constructor(options: Partial<SapSolverOptions> = {}) {
    this.options = resolveSolverOptions(options);
  }

  /** replaces the options (expanded with `resolveSolverOptions`) */
  setOptions(options: Partial<SapSolverOptions>): void {
    this.options = resolveSolverOptions(options);
  }

  /**
   * Solves `p` starting from `vGuess` (default v*). Never throws for numerical trouble: invalid
   * data gives `invalid_input`, a failed line search `line_search_failed`.
   */
  solve(p: SapProblem, vGuess?: Float64Array): SapSolveResult {
    const err = this.setup(p, vGuess);
    if (err !== null) return this.invalidResult(p, err);
    const v = new Float64Array(this.own.nv);
    const o = this.solvePacked(this.own, vGuess, v);
    if (o.status === 'invalid_input' && o.cost.length === 0) {
      return this.invalidResult(p, o.message ?? 'invalid input');
    }
    return this.pack(p, v, o);
  }

  /**
   * Solves a pooled problem starting from `vGuess` (default v*) and writes all velocities (Σ nv;
   * cliques without constraints keep v*) into `vOut`. Impulses and contact regions are read
   * afterwards with {@link impulses}, {@link rowOffset} and {@link contactRegionOf}. The problem's
   * arrays are read, never modified. Never throws for numerical trouble.
   *
   * With `vAlt` (all velocities, like `vGuess`; only read together with `vGuess`) Newton starts from
   * whichever of the two has the lower cost ℓ (per island with `solve_islands`): one more
   * evaluation of ℓ per solve. A non-finite `vAlt` has no finite cost and is never taken.
   */
  solvePacked(
    pp: PackedSapProblem,
    vGuess: Float64Array | undefined,
    vOut: Float64Array,
    vAlt?: Float64Array,
  ): PackedSolveOutcome {
    this.islandMode = false;
    const alt = vGuess === undefined ? undefined : vAlt;
    if (this.options.solve_islands && pp.nCon > 1 && this.islands.find(pp) > 1) {
      return this.solveIslands(pp, vGuess, vOut, alt);
    }
    const o = this.solveWhole(pp, vGuess, vOut, alt);
    o.islands = 1;
    return o;
  }

  /** one Newton solve of the whole problem (see {@link solvePacked}) */
  private solveWhole(
    pp: PackedSapProblem,
    vGuess: Float64Array | undefined,
    vOut: Float64Array,
    vAlt: Float64Array | undefined,
  ): PackedSolveOutcome {
    const err = this.prepare(pp, vGuess);
    if (err !== null || pp.nCon === 0) vOut.set(pp.v_star.subarray(0, pp.nv));
    if (err !== null) return this.finish('invalid_input', 0, 0, [], err);
    if (pp.nCon === 0) return this.finish('converged', 0, 0, [0], undefined);
    // the start: vGuess (loaded by prepare) or the lower-cost vAlt, evaluated there
    let ell0 = NaN;
    let altStart = false;
    if (vAlt !== undefined) {
      const ellGuess = this.evalAtV();
      this.residualNorms();
      if (this.optimal()) return this.solved(pp, vOut, this.newton(ellGuess));
      this.loadV(vAlt);
      ell0 = this.evalAtV();
      altStart = ell0 < ellGuess;
      if (!altStart) {
        this.loadV(vGuess ?? pp.v_star);
        ell0 = ellGuess;
        this.evalAtV();
      }
    }
    const o = this.newton(ell0);
    o.alt_start = altStart;
    return this.solved(pp, vOut, o);
  }

  /** writes the solve's velocities into `vOut` (cliques without constraints keep v*) */
  private solved(pp: PackedSapProblem, vOut: Float64Array, o: PackedSolveOutcome): PackedSolveOutcome {
    const vs = pp.v_star;
    for (let k = 0; k < pp.nv; k++) vOut[k] = vs[k];
    for (let q = 0; q < this.nPart; q++) {
      const c = this.partCliques[q];
      const g = this.cliqueOff[c];
      const n = this.cliqueOff[c + 1] - g;
      const off = this.redOff[c];
      for (let m = 0; m < n; m++) vOut[g + m] = this.v[off + m];
    }
    return o;
  }

  /** impulses γ of all constraint rows of the last solve (constraint i starts at {@link rowOffset}) */
  get impulses(): Float64Array {
    return this.islandMode ? this.gammaAll : this.gamma;
  }

  /** first row of constraint i in {@link impulses} */
  rowOffset(i: number): number {
    return this.islandMode ? this.rowOffAll[i] : this.rowOff[i];
  }

  /** region of contact constraint i at the last solution */
  contactRegionOf(i: number): ContactRegion {
    if (this.islandMode) return this.regionAll[i] as ContactRegion;
    return contactRegion(this.params, i * PARAM_STRIDE, this.vc, this.rowOff[i]);
  }

  // ---------------------------------------------------------------------------------------------
  // islands

  /**
   * Solves every island of `pp` (after `islands.find`) as a problem of its own, one after the
   * other with this solver, and gathers velocities, impulses, constraint velocities, Jᵀγ and
   * contact regions in the problem's numbering. Outcome: the worst status (message prefixed with
   * the island), the most Newton iterations of any island, the line-search iterations of all, and
   * the cost per iteration summed over islands (an island that stopped keeps its last cost).
   * An island with invalid input sends the whole problem to {@link solveWhole}, whose message
   * names the offending entry in the caller's numbering.
   */
  private solveIslands(
    pp: PackedSapProblem,
    vGuess: Float64Array | undefined,
    vOut: Float64Array,
    vAlt: Float64Array | undefined,
  ): PackedSolveOutcome {
    const isl = this.islands;
    const nK = isl.count;
    const nCon = pp.nCon;
    const nv = pp.nv;
    this.rowOffAll = growI32(this.rowOffAll, nCon + 1);
    const rowOffAll = this.rowOffAll;
    let nRows = 0;
    for (let i = 0; i < nCon; i++) {
      rowOffAll[i] = nRows;
      nRows += pp.rows[i];
    }
    rowOffAll[nCon] = nRows;
    this.gammaAll = growF64(this.gammaAll, nRows);
    this.vcAll = growF64(this.vcAll, nRows);
    this.jAll = growF64(this.jAll, nv);
    if (this.regionAll.length < nCon)
      this.regionAll = new Uint8Array(Math.max(nCon, 2 * this.regionAll.length));
    this.gammaAll.fill(0, 0, nRows);
    this.vcAll.fill(0, 0, nRows);
    this.jAll.fill(0, 0, nv);
    this.regionAll.fill(0, 0, nCon);
    vOut.set(pp.v_star.subarray(0, nv));

    let status: SapSolveStatus = 'converged';
    let message: string | undefined;
    let iterations = 0;
    let lsIters = 0;
    let sparse = false;
    let altStart = false;
    const cost: number[] = [];
    for (let k = 0; k < nK; k++) {
      const sub = isl.extract(pp, k, vGuess, vAlt);
      this.subV = growF64(this.subV, sub.nv);
      const o = this.solveWhole(
        sub,
        vGuess === undefined ? undefined : isl.subGuess,
        this.subV,
        vAlt === undefined ? undefined : isl.subAlt,
      );
      if (o.status === 'invalid_input') {
        const w = this.solveWhole(pp, vGuess, vOut, vAlt);
        w.islands = 1;
        return w;
      }
      // gather in the caller's numbering
      const c0 = isl.cliqueStart[k];
      for (let t = c0; t < isl.cliqueStart[k + 1]; t++) {
        const c = isl.cliqueList[t];
        const lc = t - c0;
        const n = pp.cliqueNv[c];
        const g = pp.cliqueOff[c];
        const ls = sub.cliqueOff[lc];
        const r = this.redOff[lc];
        for (let m = 0; m < n; m++) {
          vOut[g + m] = this.subV[ls + m];
          if (r >= 0) this.jAll[g + m] = this.jv[r + m];
        }
      }
      const k0 = isl.conStart[k];
      for (let t = k0; t < isl.conStart[k + 1]; t++) {
        const i = isl.conList[t];
        const j = t - k0;
        const src = this.rowOff[j];
        const dst = rowOffAll[i];
        for (let e = 0; e < pp.rows[i]; e++) {
          this.gammaAll[dst + e] = this.gamma[src + e];
          this.vcAll[dst + e] = this.vc[src + e];
        }
        if (this.kind[j] === KIND_CONTACT) {
          this.regionAll[i] = contactRegion(this.params, j * PARAM_STRIDE, this.vc, src);
        }
      }
      // outcome
      if (o.status !== 'converged' && message === undefined && o.message !== undefined) {
        message = `island ${k}: ${o.message}`;
      }
      status = worseSolveStatus(status, o.status);
      iterations = Math.max(iterations, o.iterations);
      lsIters += o.line_search_iterations;
      // every earlier island sits at its last cost from index cost.length − 1 on
      const c = o.cost;
      const L = cost.length;
      for (let t = L; t < c.length; t++) cost.push(L > 0 ? cost[L - 1] : 0);
      const last = c.length > 0 ? c[c.length - 1] : 0;
      for (let t = 0; t < cost.length; t++) cost[t] += t < c.length ? c[t] : last;
      sparse = sparse || this.last_linear_solver === 'block_sparse';
      altStart = altStart || o.alt_start;
    }
    this.islandMode = true;
    this.last_linear_solver = sparse ? 'block_sparse' : 'dense';
    const out = this.finish(status, iterations, lsIters, cost, message);
    out.islands = nK;
    out.alt_start = altStart;
    return out;
  }

  /** the solver's one outcome record, filled in */
  private finish(
    status: SapSolveStatus,
    iterations: number,
    lineSearchIterations: number,
    cost: number[],
    message: string | undefined,
  ): PackedSolveOutcome {
    const out = this.outcome;
    out.status = status;
    out.iterations = iterations;
    out.line_search_iterations = lineSearchIterations;
    out.cost = cost;
    out.message = message;
    out.alt_start = false;
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // setup

  /** validates the public problem and packs it into the own storage */
  private setup(p: SapProblem, vGuess: Float64Array | undefined): string | null {
    if (typeof p !== 'object' || p === null) return 'problem must be an object';
    if (!(typeof p.dt === 'number' && p.dt > 0 && Number.isFinite(p.dt))) {
      return `dt must be a positive finite number; got ${String(p.dt)}`;
    }
    if (!Array.isArray(p.cliques) || !Array.isArray(p.constraints)) {
      return 'cliques and constraints must be arrays';
    }
    const pk = this.own;
    pk.reset(p.dt);
    const nCl = p.cliques.length;
    for (let c = 0; c < nCl; c++) {
      const cl = p.cliques[c];
      const n = cl?.nv;
      if (!(typeof n === 'number' && Number.isInteger(n) && n >= 0)) {
        return `cliques[${c}].nv must be a non-negative integer`;
      }
      if (!(cl.A instanceof Float64Array) || cl.A.length !== n * n) {
        return `cliques[${c}].A must be a Float64Array of length nv² = ${n * n}`;
      }
      pk.addClique(n, cl.A);
    }
    this.nCliques = nCl;
    this.cliqueOff = pk.cliqueOff;
    const nv = pk.nv;
    if (!(p.v_star instanceof Float64Array) || p.v_star.length !== nv) {
      return `v_star must be a Float64Array of length ${nv}`;
    }
    pk.v_star = p.v_star;
    for (let i = 0; i < p.constraints.length; i++) {
      const s = p.constraints[i];
      const e = this.checkSpec(s, i);
      if (e !== null) return e;
      pk.addSpec(s);
    }
    if (vGuess !== undefined && (!(vGuess instanceof Float64Array) || vGuess.length !== nv)) {
      return `v_guess must be a Float64Array of length ${nv}`;
    }
    return null;
  }

  /** layout, participation, parameters, ordering and workspaces for a packed problem */
  private prepare(pk: PackedSapProblem, vGuess: Float64Array | undefined): string | null {
    this.pp = pk;
    const nCl = pk.nCliques;
    this.nCliques = nCl;
    this.cliqueOff = pk.cliqueOff;
    this.cliquesA = pk.cliqueA;
    if (!(pk.dt > 0 && Number.isFinite(pk.dt))) return `dt must be a positive finite number; got ${pk.dt}`;
    let maxNv = 0;
    for (let c = 0; c < nCl; c++) {
      const n = pk.cliqueNv[c];
      const A = pk.cliqueA[c];
      if (!(A instanceof Float64Array) || A.length < n * n) return `cliques[${c}].A must hold nv² entries`;
      if (!finiteArray(A, 0, n * n)) return `cliques[${c}].A has a NaN or Inf entry`;
      for (let m = 0; m < n; m++) {
        if (!(A[m * n + m] > 0)) return `cliques[${c}].A has a non-positive diagonal entry at ${m}`;
      }
      maxNv = Math.max(maxNv, n);
    }
    const nv = pk.nv;
    this.nvTotal = nv;
    this.maxNv = maxNv;
    if (pk.v_star.length < nv) return `v_star must have ${nv} entries`;
    if (!finiteArray(pk.v_star, 0, nv)) return 'v_star has a NaN or Inf entry';
    if (vGuess !== undefined) {
      // (the public solve() checks the exact length; island problems pass longer scratch)
      if (!(vGuess instanceof Float64Array) || vGuess.length < nv) {
        return `v_guess must be a Float64Array of length ${nv}`;
      }
      if (!finiteArray(vGuess, 0, nv)) return 'v_guess has a NaN or Inf entry';
    }

    // constraint layout
    const nCon = pk.nCon;
    this.nCon = nCon;
    this.kind = pk.kind;
    this.rows = pk.rows;
    this.blkStart = pk.blkStart;
    this.blkClique = pk.blkClique;
    this.blkJ = pk.blkJ;
    this.jData = pk.jData;
    this.nJ = pk.nJ;
    // the structure of the last prepared problem: its layout, participation and bindings hold
    const same = this.structure.matches(pk) && this.preparedEv === this.ev && (this.ev?.current() ?? true);
    if (!same) this.structure.clear();
    this.rowOff = growI32(this.rowOff, nCon + 1);
    this.gOff = growI32(this.gOff, nCon + 1);
    this.params = growF64(this.params, nCon * PARAM_STRIDE);
    if (nCon === 0) {
      // nothing couples: v = v*, no structure to analyse or bind
      this.rowOff[0] = 0;
      this.gOff[0] = 0;
      this.nRows = 0;
      this.nG = 0;
      this.nvp = 0;
      this.nPart = 0;
      return null;
    }
    if (!same) this.layoutStructure(pk);
    // nonzero columns of every Jacobian block, and the first block with a NaN or ±∞ entry
    const badBlock = this.buildColumns(pk);
    if (badBlock >= 0) {
      let i = 0;
      while (pk.blkStart[i + 1] <= badBlock) i++;
      return `constraints[${i}]: Jacobian block of clique ${pk.blkClique[badBlock]} has a NaN or Inf entry`;
    }

    // parameters (needs w)
    const err = this.makeParams(pk);
    if (err !== null) return err;

    // workspaces (kept with the structure unless the columns moved)
    const keep = same && !this.columnsChanged;
    const np = this.nvp;
    if (!keep) {
      this.T = growF64(this.T, HOLONOMIC_MAX_ROWS * Math.max(1, maxNv));
      if (!this.layoutEvaluation()) {
        this.dInv = growF64(this.dInv, np);
        this.rhs = growF64(this.rhs, np);
        this.v = growF64(this.v, np);
        this.vStar = growF64(this.vStar, np);
        this.Ar = growF64(this.Ar, np);
        this.p = growF64(this.p, np);
        this.pStar = growF64(this.pStar, np);
        this.jv = growF64(this.jv, np);
        this.grad = growF64(this.grad, np);
        this.dv = growF64(this.dv, np);
        this.dp = growF64(this.dp, np);
        this.vc = growF64(this.vc, this.nRows);
        this.dvc = growF64(this.dvc, this.nRows);
        this.gamma = growF64(this.gamma, this.nRows);
        this.vcT = growF64(this.vcT, this.nRows);
        this.gammaT = growF64(this.gammaT, this.nRows);
        this.G = growF64(this.G, this.nG);
        this.GT = growF64(this.GT, this.nG);
        this.dG = growF64(this.dG, this.nG);
        this.gHeld = growF64(this.gHeld, this.nG);
      }
    }
    this.heldH = false;

    // reduced v, v*, D
    const nPart = this.nPart;
    this.loadV(vGuess ?? pk.v_star);
    for (let k = 0; k < nPart; k++) {
      const c = this.partCliques[k];
      const n = pk.cliqueNv[c];
      const g = this.cliqueOff[c];
      const ro = this.redOff[c];
      const A = pk.cliqueA[c];
      for (let m = 0; m < n; m++) {
        this.vStar[ro + m] = pk.v_star[g + m];
        this.dInv[ro + m] = 1 / Math.sqrt(A[m * n + m]);
      }
    }

    this.analyze();
    // A v* (p = A(v − v*) + A v* at every evaluation)
    if (this.ev !== null) {
      this.bindEvaluation(keep);
      this.ev.kernels.exports.momentumOfVStar();
    } else this.multiplyA(this.vStar, this.pStar);
    if (!same) {
      this.structure.record(pk);
      this.preparedEv = this.ev;
    }
    return null;
  }

  /** row and G offsets and the participating cliques of a problem's structure */
  private layoutStructure(pk: PackedSapProblem): void {
    const nCl = pk.nCliques;
    const nCon = pk.nCon;
    let nRows = 0;
    let nG = 0;
    for (let i = 0; i < nCon; i++) {
      const r = pk.rows[i];
      this.rowOff[i] = nRows;
      this.gOff[i] = nG;
      nRows += r;
      nG += r * r;
    }
    this.rowOff[nCon] = nRows;
    this.gOff[nCon] = nG;
    this.nRows = nRows;
    this.nG = nG;

    // participation: cliques with nv > 0 touched by a constraint with rows
    this.redOff = growI32(this.redOff, nCl);
    this.partCliques = growI32(this.partCliques, nCl);
    this.partIndex = growI32(this.partIndex, nCl);
    this.partSize = growI32(this.partSize, nCl);
    this.partStart = growI32(this.partStart, nCl);
    this.redOff.fill(-1, 0, nCl);
    for (let i = 0; i < nCon; i++) {
      if (pk.rows[i] === 0) continue;
      for (let b = pk.blkStart[i]; b < pk.blkStart[i + 1]; b++) {
        const c = pk.blkClique[b];
        if (pk.cliqueNv[c] > 0) this.redOff[c] = 0; // mark
      }
    }
    let nvp = 0;
    let nPart = 0;
    for (let c = 0; c < nCl; c++) {
      if (this.redOff[c] < 0) {
        this.partIndex[c] = -1;
        continue;
      }
      this.redOff[c] = nvp;
      this.partIndex[c] = nPart;
      this.partSize[nPart] = pk.cliqueNv[c];
      this.partStart[nPart] = nvp;
      this.partCliques[nPart++] = c;
      nvp += pk.cliqueNv[c];
    }
    this.nvp = nvp;
    this.nPart = nPart;
  }

  /** the reduced iterate v from all velocities `src` (rounded when contact_solve_precision is fp32) */
  private loadV(src: Float64Array): void {
    this.advanced = false;
    // (a flag, not a rounding function: a call through a function value that has seen both
    // presets' precisions in one process is not inlined)
    const f32 = this.options.contact_solve_precision === 'fp32';
    for (let k = 0; k < this.nPart; k++) {
      const c = this.partCliques[k];
      const g = this.cliqueOff[c];
      const n = this.cliqueOff[c + 1] - g;
      const ro = this.redOff[c];
      if (f32) for (let m = 0; m < n; m++) this.v[ro + m] = fr(src[g + m]);
      else for (let m = 0; m < n; m++) this.v[ro + m] = src[g + m];
    }
  }

  /**
   * WebAssembly evaluation: sizes its memory for this solve and takes the vectors from it; false
   * when the JS evaluation runs (no WebAssembly, or its memory cannot grow)
   */
  private layoutEvaluation(): boolean {
    const ev = this.ev;
    if (ev === null) return false;
    const nBlk = this.blkStart[this.nCon];
    let nA = 0;
    for (let q = 0; q < this.nPart; q++) nA += this.partSize[q] * this.partSize[q];
    try {
      ev.layout({
        np: this.nvp,
        nRows: this.nRows,
        nG: this.nG,
        nCon: this.nCon,
        nBlk,
        nCliques: this.nCliques,
        nColIdx: this.colStart[nBlk],
        nPart: this.nPart,
        nJ: this.nJ,
        nA,
        nT: HOLONOMIC_MAX_ROWS * Math.max(1, this.maxNv),
      });
    } catch {
      this.ev = null;
      return false;
    }
    this.takeEvaluationViews(ev);
    return true;
  }

  /** the solver's vectors as views into the evaluation's memory */
  private takeEvaluationViews(ev: EvaluationWasm): void {
    const w = ev.views;
    this.H = w.H;
    this.dInv = w.dInv;
    this.rhs = w.rhs;
    this.v = w.v;
    this.vStar = w.vStar;
    this.Ar = w.Ar;
    this.p = w.p;
    this.pStar = w.pStar;
    this.jv = w.jv;
    this.grad = w.grad;
    this.dv = w.dv;
    this.dp = w.dp;
    this.vc = w.vc;
    this.dvc = w.dvc;
    this.gamma = w.gamma;
    this.vcT = w.vcT;
    this.gammaT = w.gammaT;
    this.G = w.G;
    this.GT = w.GT;
    this.dG = w.dG;
    this.gHeld = w.gHeld;
  }

  /** room for the dense Newton matrix of n unknowns (n² entries) */
  private reserveDenseH(n: number): void {
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
   * copies the solve's structure, J, parameters and A blocks into the evaluation's memory; with
   * `valuesOnly` (the structure bound last time holds) J, the parameters and the A blocks only
   */
  private bindEvaluation(valuesOnly: boolean): void {
    const s = this.evIn;
    s.nCon = this.nCon;
    s.nBlk = this.blkStart[this.nCon];
    s.nCliques = this.nCliques;
    s.nPart = this.nPart;
    s.nJ = this.nJ;
    s.kind = this.kind;
    s.rows = this.rows;
    s.rowOff = this.rowOff;
    s.gOff = this.gOff;
    s.blkStart = this.blkStart;
    s.blkClique = this.blkClique;
    s.blkJ = this.blkJ;
    s.redOff = this.redOff;
    s.cliqueOff = this.cliqueOff;
    s.colStart = this.colStart;
    s.colIdx = this.colIdx;
    s.partCliques = this.partCliques;
    s.jData = this.jData;
    s.params = this.params;
    s.cliquesA = this.cliquesA;
    this.ev!.bind(s, valuesOnly);
  }

  /**
   * Nonzero-column lists of all Jacobian blocks ({@link colStart}, {@link colIdx}), scanning every
   * entry once; returns the first block holding a NaN or ±∞ entry, −1 when all are finite.
   */
  private buildColumns(pk: PackedSapProblem): number {
    const nBlk = pk.blkStart[pk.nCon];
    this.colStart = growI32(this.colStart, nBlk + 1);
    let total = 0;
    for (let b = 0; b < nBlk; b++) total += pk.cliqueNv[pk.blkClique[b]];
    this.colIdx = growI32(this.colIdx, total);
    const cs = this.colStart;
    const ci = this.colIdx;
    const jd = pk.jData;
    let firstBad = -1;
    let e = 0;
    // (lists that differ from the last ones differ in a start or in a written column)
    let changed = false;
    for (let i = 0; i < pk.nCon; i++) {
      const r = pk.rows[i];
      for (let b = pk.blkStart[i]; b < pk.blkStart[i + 1]; b++) {
        if (cs[b] !== e) changed = true;
        cs[b] = e;
        const n = pk.cliqueNv[pk.blkClique[b]];
        const jo = pk.blkJ[b];
        // x·0 is ±0 for a finite x and NaN otherwise: `bad` stays ±0 exactly when all are finite
        let bad = 0;
        if (r === 3) {
          const j1 = jo + n;
          const j2 = jo + 2 * n;
          for (let m = 0; m < n; m++) {
            const x0 = jd[jo + m];
            const x1 = jd[j1 + m];
            const x2 = jd[j2 + m];
            bad += x0 * 0 + x1 * 0 + x2 * 0;
            if (x0 !== 0 || x1 !== 0 || x2 !== 0) {
              if (ci[e] !== m) changed = true;
              ci[e++] = m;
            }
          }
        } else {
          for (let m = 0; m < n; m++) {
            let nz = false;
            for (let k = 0; k < r; k++) {
              const x = jd[jo + k * n + m];
              bad += x * 0;
              nz = nz || x !== 0;
            }
            if (nz) {
              if (ci[e] !== m) changed = true;
              ci[e++] = m;
            }
          }
        }
        if (bad !== 0 && firstBad < 0) firstBad = b;
      }
    }
    if (cs[nBlk] !== e) changed = true;
    cs[nBlk] = e;
    this.columnsChanged = changed;
    return firstBad;
  }

  /** constraint parameter records (R, v̂, gains) from the physical inputs */
  private makeParams(pk: PackedSapProblem): string | null {
    this.stiffness = 0;
    const o = this.options;
    const weights32 = o.sap_contact_weight_precision === 'fp32';
    const P = pk.phys;
    const dt = pk.dt;
    for (let i = 0; i < pk.nCon; i++) {
      const po = i * PARAM_STRIDE;
      const x = i * PHYS_STRIDE;
      const kind = pk.kind[i];
      if (kind === KIND_CONTACT) {
        let w = P[x + 6];
        if (Number.isNaN(w)) {
          this.delassusWeight(i, CONTACT_ROWS, weights32);
          w = this.weightOut[0];
        }
        const c = this.contactIn;
        c.mu = P[x];
        c.stiffness = P[x + 1];
        c.tau_d = P[x + 2];
        c.phi0 = P[x + 3];
        // (NaN: the option's value; kept numeric so the record's fields stay unboxed doubles)
        const beta = P[x + 4];
        const sigma = P[x + 5];
        c.beta = Number.isNaN(beta) ? o.contact_beta : beta;
        c.sigma = Number.isNaN(sigma) ? o.contact_sigma : sigma;
        if (!(Number.isFinite(c.mu) && Number.isFinite(c.phi0) && Number.isFinite(c.tau_d))) {
          return `constraints[${i}] (contact): mu, tau_d and phi0 must be finite`;
        }
        makeContactParams(c, dt, w, this.params, po);
        const Rt = this.params[po + 1];
        const Rn = this.params[po + 2];
        if (!(Rt > 0 && Rn > 0 && Number.isFinite(Rt) && Number.isFinite(Rn))) {
          return `constraints[${i}] (contact): regularization is not positive and finite (Rt = ${Rt}, Rn = ${Rn}); check stiffness, beta, sigma and w`;
        }
        this.stiffness = Math.max(this.stiffness, w / Rt, w / Rn);
      } else if (kind === KIND_HOLONOMIC) {
        const r = pk.rows[i];
        let w = P[x + 3];
        if (Number.isNaN(w)) {
          this.delassusWeight(i, r, weights32);
          w = this.weightOut[0];
        }
        const h = this.holoIn;
        h.stiffness = P[x];
        h.tau_d = P[x + 1];
        h.beta = opt(P[x + 2]);
        h.g0 = this.holoG0.subarray(0, r);
        for (let k = 0; k < r; k++) this.holoG0[k] = P[x + 4 + k];
        makeHolonomicParams(h, dt, w, this.params, po);
        const bad = this.rowRecordsError(i, po, r, 'holonomic');
        if (bad !== null) return bad;
      } else if (kind === KIND_TENDON) {
        const r = pk.rows[i];
        let w = P[x + 6];
        if (Number.isNaN(w)) {
          this.delassusWeight(i, r, weights32);
          w = this.weightOut[0];
        }
        const t = this.tendonIn;
        t.l0 = P[x];
        t.lower = P[x + 1];
        t.upper = P[x + 2];
        t.stiffness = P[x + 3];
        t.tau_d = P[x + 4];
        t.beta = opt(P[x + 5]);
        makeTendonParams(t, dt, w, this.params, po);
        const bad = this.rowRecordsError(i, po, r, 'tendon');
        if (bad !== null) return bad;
        // (every row has the same R)
        if (r > 0) this.stiffness = Math.max(this.stiffness, w / this.params[po]);
      } else if (kind === KIND_LIMIT) {
        const c = pk.blkClique[pk.blkStart[i]];
        const n = pk.cliqueNv[c];
        const dof = P[x];
        const w = orDefault(P[x + 7], 1 / pk.cliqueA[c][dof * n + dof]);
        const l = this.limitIn;
        l.q0 = P[x + 1];
        l.lower = P[x + 2];
        l.upper = P[x + 3];
        l.stiffness = P[x + 4];
        l.tau_d = P[x + 5];
        l.beta = opt(P[x + 6]);
        makeLimitParams(l, dt, w, this.params, po);
        const bad = this.rowRecordsError(i, po, pk.rows[i], 'limit');
        if (bad !== null) return bad;
        // (every row has the same R)
        if (pk.rows[i] > 0) this.stiffness = Math.max(this.stiffness, w / this.params[po]);
      } else {
        const c = pk.blkClique[pk.blkStart[i]];
        const n = pk.cliqueNv[c];
        const dof = P[x];
        const w = orDefault(P[x + 8], 1 / pk.cliqueA[c][dof * n + dof]);
        if (P[x + 10] === 1) {
          const sigma = orDefault(P[x + 9], o.joint_friction_sigma);
          // joint friction: a PD record with Kp = 0, Kd = 1/(δt·σ·w)
          makeJointFrictionParams(P[x + 6], sigma, dt, w, this.params, po);
          const kd = this.params[po + 2];
          if (!(kd > 0 && Number.isFinite(kd))) {
            return `constraints[${i}] (joint_friction): regularization is not positive and finite (R = ${sigma * w}); check sigma and w`;
          }
          this.stiffness = Math.max(this.stiffness, w * dt * kd);
          continue;
        }
        const d = this.pdIn;
        d.q0 = P[x + 1];
        d.qd = P[x + 2];
        d.vd = P[x + 3];
        d.kp = P[x + 4];
        d.kd = P[x + 5];
        d.effort_limit = P[x + 6];
        d.u0 = P[x + 7];
        makePdParams(d, dt, w, this.params, po);
        const kp = this.params[po + 1];
        const kd = this.params[po + 2];
        if (!(Number.isFinite(kp) && Number.isFinite(kd) && dt * kp + kd > 0)) {
          return `constraints[${i}] (pd): effective gains are invalid (kp = ${kp}, kd = ${kd})`;
        }
        this.stiffness = Math.max(this.stiffness, w * dt * (dt * kp + kd));
      }
    }
    return null;
  }

  /** why the (R, v̂) row records of constraint i at `po` are unusable (R not positive and finite, v̂ not finite), or null */
  private rowRecordsError(i: number, po: number, rows: number, kind: string): string | null {
    for (let k = 0; k < rows; k++) {
      const R = this.params[po + 2 * k];
      if (!(R > 0 && Number.isFinite(R) && Number.isFinite(this.params[po + 2 * k + 1]))) {
        return `constraints[${i}] (${kind}): regularization is not positive and finite (R = ${R}); check stiffness, beta and w`;
      }
    }
    return null;
  }

  /**
   * {@link diagDelassusWeight} of constraint i (`nrows` rows) from the packed blocks, bit for bit:
   * the distinct entries of the symmetric W accumulate in one pass over the nonzero columns (a
   * product with a zero factor adds ±0, which leaves every sum as the generic loop's skip has it),
   * then ‖W‖²_F in its r-major order; `f32` rounds every operation to binary32. The weight goes to
   * {@link weightOut}[0].
   */
  private delassusWeight(i: number, nrows: number, f32: boolean): void {
    const pk = this.pp;
    const jd = pk.jData;
    const W = this.wScratch;
    zeroRun(W, 0, nrows * nrows);
    for (let b = pk.blkStart[i]; b < pk.blkStart[i + 1]; b++) {
      const c = pk.blkClique[b];
      const nv = pk.cliqueNv[c];
      const A = pk.cliqueA[c];
      const jo = pk.blkJ[b];
      const t1 = this.colStart[b + 1];
      if (nrows === 3 && !f32) {
        // a contact in fp64: the six distinct entries of W in registers (per entry the same sum,
        // columns ascending, as the loop below)
        let w00 = W[0],
          w01 = W[1],
          w02 = W[2],
          w11 = W[4],
          w12 = W[5],
          w22 = W[8];
        for (let t = this.colStart[b]; t < t1; t++) {
          const m = this.colIdx[t];
          const ia = 1 / A[m * nv + m];
          const j0 = jd[jo + m],
            j1 = jd[jo + nv + m],
            j2 = jd[jo + 2 * nv + m];
          w00 += j0 * j0 * ia;
          w01 += j0 * j1 * ia;
          w02 += j0 * j2 * ia;
          w11 += j1 * j1 * ia;
          w12 += j1 * j2 * ia;
          w22 += j2 * j2 * ia;
        }
        W[0] = w00;
        W[1] = w01;
        W[2] = w02;
        W[4] = w11;
        W[5] = w12;
        W[8] = w22;
        continue;
      }
      for (let t = this.colStart[b]; t < t1; t++) {
        const m = this.colIdx[t];
        // 1/A_mm once per column (one division instead of one per entry of W)
        const ia = f32 ? fr(1 / A[m * nv + m]) : 1 / A[m * nv + m];
        for (let r = 0; r < nrows; r++) {
          const jr = jd[jo + r * nv + m];
          for (let q = r; q < nrows; q++) {
            const k = r * nrows + q;
            const x = jr * jd[jo + q * nv + m];
            W[k] = f32 ? fr(W[k] + fr(fr(x) * ia)) : W[k] + x * ia;
          }
        }
      }
    }
    let f2 = 0;
    for (let r = 0; r < nrows; r++) {
      for (let q = 0; q < nrows; q++) {
        const w = W[r <= q ? r * nrows + q : q * nrows + r];
        f2 = f32 ? fr(f2 + fr(w * w)) : f2 + w * w;
      }
    }
    const w = f32 ? fr(fr(Math.sqrt(f2)) / nrows) : Math.sqrt(f2) / nrows;
    this.weightOut[0] = Math.max(w, MIN_DELASSUS_WEIGHT);
  }

  /**
   * Orders the participating cliques (minimum degree on the clique graph), analyses the block
   * fill, picks the factorization and prepares its index maps.
   */
  private analyze(): void {
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
  private assemblyArrays(nBlk: number, nPairs: number): IntRuns {
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
  private assemblyBytes(nBlk: number, nPairs: number): number {
    // the lengths of assemblyArrays, summed
    const nCl = this.nCliques;
    const ints = 4 * this.nCon + 2 + 4 * nBlk + 1 + 2 * nPairs + 2 * nCl + 1 + this.colStart[nBlk];
    return ((4 * ints + 7) & ~7) + 8 * (this.nJ + this.T.length + 2 * this.nG);
  }

  /** copies the assembly's inputs into the kernels' memory (sparse path on WebAssembly) */
  private bindAssembly(nBlk: number, nPairs: number): void {
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

  private checkSpec(s: SapConstraintSpec, i: number): string | null {
    const nCl = this.nCliques;
    const bad = (field: string, what: string): string =>
      `constraints[${i}] (${String(s?.kind)}): ${field} ${what}`;
    const fin = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x);
    if (typeof s !== 'object' || s === null) return `constraints[${i}] must be an object`;
    if (s.kind === 'contact') {
      if (!Array.isArray(s.cliques) || !Array.isArray(s.J) || s.J.length !== s.cliques.length) {
        return bad('cliques/J', 'must be arrays of equal length');
      }
      for (let q = 0; q < s.cliques.length; q++) {
        const c = s.cliques[q];
        if (!isIndex(c, nCl)) return bad(`cliques[${q}]`, `must be a clique index in [0, ${nCl})`);
        const n = this.cliqueOff[c + 1] - this.cliqueOff[c];
        const Jq = s.J[q];
        if (!(Jq instanceof Float64Array) || Jq.length !== 3 * n) {
          return bad(`J[${q}]`, `must be a Float64Array of length 3·nv = ${3 * n}`);
        }
        if (!finiteArray(Jq)) return bad(`J[${q}]`, 'has a NaN or Inf entry');
      }
      if (!(fin(s.mu) && s.mu >= 0)) return bad('mu', 'must be finite and ≥ 0');
      if (!(typeof s.stiffness === 'number' && s.stiffness > 0)) return bad('stiffness', 'must be > 0');
      if (!(fin(s.tau_d) && s.tau_d >= 0)) return bad('tau_d', 'must be finite and ≥ 0');
      if (!fin(s.phi0)) return bad('phi0', 'must be finite');
      if (s.beta !== undefined && !(fin(s.beta) && s.beta >= 0)) return bad('beta', 'must be finite and ≥ 0');
      if (s.sigma !== undefined && !(fin(s.sigma) && s.sigma > 0))
        return bad('sigma', 'must be finite and > 0');
      if (s.w !== undefined && !(fin(s.w) && s.w > 0)) return bad('w', 'must be finite and > 0');
      return null;
    }
    if (s.kind === 'holonomic') {
      if (!Array.isArray(s.cliques) || !Array.isArray(s.J) || s.J.length !== s.cliques.length) {
        return bad('cliques/J', 'must be arrays of equal length');
      }
      if (!(s.g0 instanceof Float64Array) || s.g0.length < 1 || s.g0.length > HOLONOMIC_MAX_ROWS) {
        return bad('g0', `must be a Float64Array of 1..${HOLONOMIC_MAX_ROWS} entries`);
      }
      if (!finiteArray(s.g0)) return bad('g0', 'has a NaN or Inf entry');
      const r = s.g0.length;
      for (let q = 0; q < s.cliques.length; q++) {
        const c = s.cliques[q];
        if (!isIndex(c, nCl)) return bad(`cliques[${q}]`, `must be a clique index in [0, ${nCl})`);
        const n = this.cliqueOff[c + 1] - this.cliqueOff[c];
        const Jq = s.J[q];
        if (!(Jq instanceof Float64Array) || Jq.length !== r * n) {
          return bad(`J[${q}]`, `must be a Float64Array of length rows·nv = ${r * n}`);
        }
        if (!finiteArray(Jq)) return bad(`J[${q}]`, 'has a NaN or Inf entry');
      }
      if (!(typeof s.stiffness === 'number' && s.stiffness > 0)) return bad('stiffness', 'must be > 0');
      if (!(fin(s.tau_d) && s.tau_d >= 0)) return bad('tau_d', 'must be finite and ≥ 0');
      if (s.beta !== undefined && !(fin(s.beta) && s.beta >= 0)) return bad('beta', 'must be finite and ≥ 0');
      if (s.w !== undefined && !(fin(s.w) && s.w > 0)) return bad('w', 'must be finite and > 0');
      return null;
    }
    if (s.kind === 'tendon') {
      if (!Array.isArray(s.cliques) || !Array.isArray(s.a) || s.a.length !== s.cliques.length) {
        return bad('cliques/a', 'must be arrays of equal length');
      }
      for (let q = 0; q < s.cliques.length; q++) {
        const c = s.cliques[q];
        if (!isIndex(c, nCl)) return bad(`cliques[${q}]`, `must be a clique index in [0, ${nCl})`);
        const n = this.cliqueOff[c + 1] - this.cliqueOff[c];
        const aq = s.a[q];
        if (!(aq instanceof Float64Array) || aq.length !== n) {
          return bad(`a[${q}]`, `must be a Float64Array of length nv = ${n}`);
        }
        if (!finiteArray(aq)) return bad(`a[${q}]`, 'has a NaN or Inf entry');
      }
      if (!fin(s.l0)) return bad('l0', 'must be finite');
      if (s.w !== undefined && !(fin(s.w) && s.w > 0)) return bad('w', 'must be finite and > 0');
      return checkLimitSides(s, bad);
    }
    if (s.kind === 'limit' || s.kind === 'pd' || s.kind === 'joint_friction') {
      // one DOF of one clique
      if (!isIndex(s.clique, nCl)) return bad('clique', `must be a clique index in [0, ${nCl})`);
      const n = this.cliqueOff[s.clique + 1] - this.cliqueOff[s.clique];
      if (!isIndex(s.dof, n)) return bad('dof', `must be a dof index in [0, ${n})`);
      if (s.kind === 'joint_friction') {
        if (!(fin(s.friction) && s.friction > 0)) return bad('friction', 'must be finite and > 0');
        if (s.sigma !== undefined && !(fin(s.sigma) && s.sigma > 0))
          return bad('sigma', 'must be finite and > 0');
        if (s.w !== undefined && !(fin(s.w) && s.w > 0)) return bad('w', 'must be finite and > 0');
        return null;
      }
      if (!fin(s.q0)) return bad('q0', 'must be finite');
      if (s.w !== undefined && !(fin(s.w) && s.w > 0)) return bad('w', 'must be finite and > 0');
      if (s.kind === 'limit') return checkLimitSides(s, bad);
      if (!fin(s.qd)) return bad('qd', 'must be finite');
      if (!fin(s.vd)) return bad('vd', 'must be finite');
      if (!fin(s.u0)) return bad('u0', 'must be finite');
      if (!(fin(s.kp) && s.kp >= 0)) return bad('kp', 'must be finite and ≥ 0');
      if (!(fin(s.kd) && s.kd >= 0)) return bad('kd', 'must be finite and ≥ 0');
      if (!(s.kp + s.kd > 0)) return bad('kp/kd', 'must not both be 0');
      if (!(typeof s.effort_limit === 'number' && s.effort_limit > 0))
        return bad('effort_limit', 'must be > 0');
      return null;
    }
    return `constraints[${i}]: unknown kind '${String((s as { kind?: unknown }).kind)}' (allowed: contact, limit, pd, joint_friction, holonomic, tendon)`;
  }

  private invalidResult(p: SapProblem, message: string): SapSolveResult {
    const vs = p?.v_star;
    const v = vs instanceof Float64Array ? Float64Array.from(vs) : new Float64Array(0);
    const cons = Array.isArray(p?.constraints) ? p.constraints : [];
    const gamma = cons.map((s) => {
      if (s?.kind === 'contact') return new Float64Array(3);
      if (s?.kind === 'limit' || s?.kind === 'tendon') return new Float64Array(limitRowSigns(s).length);
      if (s?.kind === 'holonomic') return new Float64Array(s.g0?.length ?? 0);
      return new Float64Array(1);
    });
    return {
      status: 'invalid_input',
      v,
      gamma,
      j: new Float64Array(v.length),
      iterations: 0,
      line_search_iterations: 0,
      cost: [],
      message,
    };
  }

  // ---------------------------------------------------------------------------------------------
  // evaluation at the iterate

  /** vc = J·x over all constraint rows (x over participating dofs) */
  private multiplyJ(x: Float64Array, out: Float64Array): void {
    const jd = this.jData;
    const rows = this.rows;
    const rowOff = this.rowOff;
    const blkStart = this.blkStart;
    const blkClique = this.blkClique;
    const blkJ = this.blkJ;
    const redOff = this.redOff;
    const cliqueOff = this.cliqueOff;
    const cs = this.colStart;
    const ci = this.colIdx;
    const nCon = this.nCon;
    for (let i = 0; i < nCon; i++) {
      const r = rows[i];
      const ro = rowOff[i];
      for (let k = 0; k < r; k++) out[ro + k] = 0;
      const b1 = blkStart[i + 1];
      for (let b = blkStart[i]; b < b1; b++) {
        const c = blkClique[b];
        const off = redOff[c];
        if (off < 0) continue;
        const n = cliqueOff[c + 1] - cliqueOff[c];
        const jo = blkJ[b];
        const t0 = cs[b];
        const t1 = cs[b + 1];
        if (t1 - t0 === n) {
          // all columns present
          if (n === 6) {
            // free bodies: the same sums, unrolled
            for (let k = 0; k < r; k++) {
              const base = jo + k * 6;
              let s = 0;
              s += jd[base] * x[off];
              s += jd[base + 1] * x[off + 1];
              s += jd[base + 2] * x[off + 2];
              s += jd[base + 3] * x[off + 3];
              s += jd[base + 4] * x[off + 4];
              s += jd[base + 5] * x[off + 5];
              out[ro + k] += s;
            }
            continue;
          }
          for (let k = 0; k < r; k++) {
            let s = 0;
            const base = jo + k * n;
            for (let m = 0; m < n; m++) s += jd[base + m] * x[off + m];
            out[ro + k] += s;
          }
          continue;
        }
        if (r === 3) {
          // three rows together (independent sums, same order within each)
          let s0 = 0;
          let s1 = 0;
          let s2 = 0;
          const j1 = jo + n;
          const j2 = jo + 2 * n;
          for (let t = t0; t < t1; t++) {
            const m = ci[t];
            const xm = x[off + m];
            s0 += jd[jo + m] * xm;
            s1 += jd[j1 + m] * xm;
            s2 += jd[j2 + m] * xm;
          }
          out[ro] += s0;
          out[ro + 1] += s1;
          out[ro + 2] += s2;
          continue;
        }
        for (let k = 0; k < r; k++) {
          let s = 0;
          const base = jo + k * n;
          for (let t = t0; t < t1; t++) {
            const m = ci[t];
            s += jd[base + m] * x[off + m];
          }
          out[ro + k] += s;
        }
      }
    }
  }

  /** out = A·x per participating clique */
  private multiplyA(x: Float64Array, out: Float64Array): void {
    for (let q = 0; q < this.nPart; q++) {
      const c = this.partCliques[q];
      const off = this.redOff[c];
      symMatVec(this.cliquesA[c], this.cliqueOff[c + 1] - this.cliqueOff[c], x, off, out, off);
    }
  }

  /**
   * start + Σᵢ ℓᵢ(vcᵢ) (i ascending), writing γ and G where given. Contacts and PD drives go
   * through contactEval / pdEval, which store the cost instead of returning it (no boxed double
   * per call).
   */
  private constraintCost(
    vc: Float64Array,
    gamma: Float64Array | null,
    G: Float64Array | null,
    start: number,
  ): number {
    const params = this.params;
    const rows = this.rows;
    const rowOff = this.rowOff;
    const gOff = this.gOff;
    const kind = this.kind;
    const nCon = this.nCon;
    const cb = this.costBuf;
    let cost = start;
    for (let i = 0; i < nCon; i++) {
      const ro = rowOff[i];
      const k = kind[i];
      if (k === KIND_CONTACT) {
        contactEval(params, i * PARAM_STRIDE, vc, ro, gamma, ro, G, gOff[i], cb, 0);
        cost += cb[0];
      } else if (k === KIND_PD) {
        pdEval(params, i * PARAM_STRIDE, vc, ro, gamma, ro, G, gOff[i], cb, 0);
        cost += cb[0];
      } else {
        cost += calc(k, params, i * PARAM_STRIDE, rows[i], vc, ro, gamma, ro, G, gOff[i]);
      }
    }
    return cost;
  }

  /**
   * evaluates vc, γ, G, Ar, p, j, ∇ℓ at v (vc and Ar as the last {@link stepV} advanced them, when
   * it did); returns ℓ(v)
   */
  private evalAtV(): number {
    const rs = this.options.contact_solve_precision === 'fp32';
    const advanced = this.advanced;
    if (this.ev !== null) {
      const e = this.ev;
      e.kernels.exports.evalAtV(this.nvp, this.nRows, rs, advanced);
      this.ellA0 = e.views.out[1];
      return e.views.out[0];
    }
    const np = this.nvp;
    const v = this.v;
    const vs = this.vStar;
    const vc = this.vc;
    const gamma = this.gamma;
    const G = this.G;
    const rows = this.rows;
    const rowOff = this.rowOff;
    const nCon = this.nCon;
    if (!advanced) this.multiplyJ(v, vc);
    const costC = this.constraintCost(vc, gamma, G, 0);
    if (rs) for (let k = 0; k < this.nRows; k++) gamma[k] = fr(gamma[k]);

    // momentum terms: Ar = A(v − v*), ℓ_A = ½(v − v*)ᵀA(v − v*), p = A v = Ar + A v*
    // (v − v* first into p, the scratch until p is written)
    const Ar = this.Ar;
    const pv = this.p;
    for (let a = 0; a < np; a++) pv[a] = v[a] - vs[a];
    if (!advanced) this.multiplyA(pv, Ar);
    // (the participating cliques lie one after another over [0, np), in clique order)
    let ellA = 0;
    const ps = this.pStar;
    for (let a = 0; a < np; a++) {
      ellA += 0.5 * pv[a] * Ar[a];
      pv[a] = Ar[a] + ps[a];
    }
    const cliqueOff = this.cliqueOff;
    const redOff = this.redOff;

    // j = Jᵀγ
    const jv = this.jv;
    const jd = this.jData;
    const blkStart = this.blkStart;
    const blkClique = this.blkClique;
    const blkJ = this.blkJ;
    const cs = this.colStart;
    const ci = this.colIdx;
    jv.fill(0, 0, np);
    for (let i = 0; i < nCon; i++) {
      const r = rows[i];
      const ro = rowOff[i];
      const b1 = blkStart[i + 1];
      for (let b = blkStart[i]; b < b1; b++) {
        const c = blkClique[b];
        const off = redOff[c];
        if (off < 0) continue;
        const n = cliqueOff[c + 1] - cliqueOff[c];
        const jo = blkJ[b];
        const t0 = cs[b];
        const t1 = cs[b + 1];
        const full = t1 - t0 === n;
        if (r === 3 && !full) {
          // contacts on articulated cliques: the three rows fused per column (same order per entry)
          const g0 = gamma[ro];
          const g1 = gamma[ro + 1];
          const g2 = gamma[ro + 2];
          const z0 = g0 !== 0;
          const z1 = g1 !== 0;
          const z2 = g2 !== 0;
          const j1 = jo + n;
          const j2 = jo + 2 * n;
          for (let t = t0; t < t1; t++) {
            const m = ci[t];
            let h = jv[off + m];
            if (z0) h += jd[jo + m] * g0;
            if (z1) h += jd[j1 + m] * g1;
            if (z2) h += jd[j2 + m] * g2;
            jv[off + m] = h;
          }
          continue;
        }
        for (let k = 0; k < r; k++) {
          const g = gamma[ro + k];
          if (g === 0) continue;
          const base = jo + k * n;
          if (full) {
            if (n === 6) {
              jv[off] += jd[base] * g;
              jv[off + 1] += jd[base + 1] * g;
              jv[off + 2] += jd[base + 2] * g;
              jv[off + 3] += jd[base + 3] * g;
              jv[off + 4] += jd[base + 4] * g;
              jv[off + 5] += jd[base + 5] * g;
              continue;
            }
            for (let m = 0; m < n; m++) jv[off + m] += jd[base + m] * g;
            continue;
          }
          for (let t = t0; t < t1; t++) {
            const m = ci[t];
            jv[off + m] += jd[base + m] * g;
          }
        }
      }
    }
    const grad = this.grad;
    if (rs) {
      for (let a = 0; a < np; a++) jv[a] = fr(jv[a]);
      for (let a = 0; a < np; a++) grad[a] = fr(Ar[a] - jv[a]);
    } else {
      for (let a = 0; a < np; a++) grad[a] = Ar[a] - jv[a];
    }
    this.ellA0 = ellA;
    return ellA + costC;
  }

  // ---------------------------------------------------------------------------------------------
  // Newton direction

  /** H = A + Σ JᵢᵀGᵢJᵢ over participating dofs (lower triangle, row-major) */
  private assembleH(): void {
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
    const jd = this.jData;
    const T = this.T;
    const G = inc ? this.dG : this.G;
    let added = 0;
    const rows = this.rows;
    const gOff = this.gOff;
    const blkStart = this.blkStart;
    const blkClique = this.blkClique;
    const blkJ = this.blkJ;
    const redOff = this.redOff;
    const cliqueOff = this.cliqueOff;
    const cs = this.colStart;
    const ci = this.colIdx;
    const nCon = this.nCon;
    // Only the structurally nonzero columns of each block are visited (colStart/colIdx): every
    // skipped product is an exact zero, so each entry receives the same nonzero additions in the
    // same order as the full loops (A, then constraints ascending, rows k ascending).
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
      for (let bq = b0; bq < b1; bq++) {
        const cq = blkClique[bq];
        const offQ = redOff[cq];
        if (offQ < 0) continue;
        const nq = cliqueOff[cq + 1] - cliqueOff[cq];
        const jq = blkJ[bq];
        const q0 = cs[bq];
        const q1 = cs[bq + 1];
        // T = G·J_q (r × nq), at the nonzero columns
        computeGJ(G, go, r, jd, jq, nq, ci, q0, q1, T);
        for (let bp = b0; bp < b1; bp++) {
          const cp = blkClique[bp];
          const offP = redOff[cp];
          if (offP < offQ) continue; // the mirrored pair fills the lower triangle
          const np_ = cliqueOff[cp + 1] - cliqueOff[cp];
          const jp = blkJ[bp];
          const same = offP === offQ;
          const p1 = cs[bp + 1];
          if (r === 3) {
            // contacts: addRowJtT's r = 3 path, inlined
            const T1 = nq;
            const T2 = 2 * nq;
            for (let ta = cs[bp]; ta < p1; ta++) {
              const a = ci[ta];
              const row = (offP + a) * np + offQ;
              const j0 = jd[jp + a];
              const j1 = jd[jp + np_ + a];
              const j2 = jd[jp + 2 * np_ + a];
              const n0 = j0 !== 0;
              const n1 = j1 !== 0;
              const n2 = j2 !== 0;
              // same block: the column list is the row list, so s ≤ a ⇔ t ≤ ta
              const tEnd = same ? ta + 1 : q1;
              if (n0 && n1 && n2) {
                for (let t = q0; t < tEnd; t++) {
                  const s = ci[t];
                  const e = row + s;
                  let h = H[e];
                  h += j0 * T[s];
                  h += j1 * T[T1 + s];
                  h += j2 * T[T2 + s];
                  H[e] = h;
                }
                continue;
              }
              for (let t = q0; t < tEnd; t++) {
                const s = ci[t];
                const e = row + s;
                let h = H[e];
                if (n0) h += j0 * T[s];
                if (n1) h += j1 * T[T1 + s];
                if (n2) h += j2 * T[T2 + s];
                H[e] = h;
              }
            }
            continue;
          }
          for (let ta = cs[bp]; ta < p1; ta++) {
            const a = ci[ta];
            addRowJtT(H, (offP + a) * np + offQ, 1, jd, jp, np_, a, r, T, nq, ci, q0, q1, same);
          }
        }
      }
    }
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
  private assembleSparse(): void {
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
  private assembleSparseHeld(): void {
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
    const jd = this.jData;
    const T = this.T;
    const G = inc ? this.dG : this.G;
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
      let e = pairStart[i];
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
          const np_ = cliqueOff[cp + 1] - cliqueOff[cp];
          if (bp === bq) {
            target = blkDiag[bq];
            rowStride = nq;
            colStride = 1;
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
          }
          const jp = blkJ[bp];
          const same = bp === bq;
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
    if (inc) this.assembly_counts.changed += added;
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
  private hessianChange(): boolean {
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
  private factorH(): number {
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
  private denseRegion(k: 0 | 1 | 2 | 3): number {
    const n = this.nvp;
    const S = this.ev!.ptr.H + 8 * n * n;
    return k === 0 ? S : S + 8 * (n * n + (k - 1) * n);
  }

  /** dv = H⁻¹·rhs with the last factorization */
  private solveH(): void {
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

  // ---------------------------------------------------------------------------------------------
  // cost along the line

  private evalAlongLine(alpha: number, order: 0 | 1 | 2, out: LineSample): void {
    const nR = this.nRows;
    if (this.ev !== null) {
      const e = this.ev;
      const r = e.views.out;
      r[4] = alpha;
      r[5] = this.ellA0;
      r[6] = this.dpr;
      r[7] = this.d2A;
      e.kernels.exports.evalAlongLine(order, nR);
      out.phi = r[0];
      if (order >= 1) out.dphi = r[1];
      if (order === 2) out.d2phi = r[2];
      return;
    }
    const vcT = this.vcT;
    const vc = this.vc;
    const dvc = this.dvc;
    const rows = this.rows;
    const rowOff = this.rowOff;
    const gOff = this.gOff;
    const nCon = this.nCon;
    for (let k = 0; k < nR; k++) vcT[k] = vc[k] + alpha * dvc[k];
    const gT = order >= 1 ? this.gammaT : null;
    const GT = order === 2 ? this.GT : null;
    out.phi = this.constraintCost(
      vcT,
      gT,
      GT,
      this.ellA0 + alpha * this.dpr + 0.5 * alpha * alpha * this.d2A,
    );
    if (gT) {
      let s = 0;
      for (let k = 0; k < nR; k++) s += dvc[k] * gT[k];
      out.dphi = this.dpr + alpha * this.d2A - s;
    }
    if (GT) {
      let s = 0;
      for (let i = 0; i < nCon; i++) {
        const r = rows[i];
        const ro = rowOff[i];
        const go = gOff[i];
        for (let k = 0; k < r; k++) {
          let gk = 0;
          for (let l = 0; l < r; l++) gk += GT[go + k * r + l] * dvc[ro + l];
          s += dvc[ro + k] * gk;
        }
      }
      out.d2phi = this.d2A + s;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Newton loop

  /** Newton from the loaded v; `ell0`, when not NaN, is ℓ(v) already evaluated there */
  private newton(ell0: number): PackedSolveOutcome {
    const o = this.options;
    const rs = o.contact_solve_precision === 'fp32';
    const ls = this.lineSearchParams();
    const cost: number[] = [];
    let status: SapSolveStatus = 'max_iterations';
    let message: string | undefined;
    let lsIters = 0;
    let k = 0;
    let alpha = 1;
    let ellPrev = 0;
    for (; ; k++) {
      const ell = k === 0 && !Number.isNaN(ell0) ? ell0 : this.evalAtV();
      cost.push(ell);
      // convergence measures: ‖D∇ℓ‖², ‖Dp‖², ‖Dj‖²; rhs = −∇ℓ
      const nm = this.residualNorms();
      if (!(Number.isFinite(ell) && nm[3] === 1)) {
        status = 'invalid_input';
        message = `cost or gradient is not finite at iteration ${k}`;
        break;
      }
      const costCriterion =
        k > 0 &&
        Math.abs(ellPrev - ell) <
          o.cost_abs_tol + o.cost_rel_tol * 0.5 * (Math.abs(ell) + Math.abs(ellPrev)) &&
        alpha > 0.5;
      if (this.optimal() || costCriterion) {
        status = 'converged';
        break;
      }
      if (k >= o.max_iterations) {
        status = 'max_iterations';
        message = `no convergence after ${k} Newton iterations`;
        break;
      }

      // search direction
      const pivot = this.factorH();
      if (pivot >= 0) {
        const bad = this.findNonSpdClique();
        if (bad >= 0) {
          status = 'invalid_input';
          message = `cliques[${bad}].A is not positive definite`;
        } else {
          status = 'line_search_failed';
          message = `Newton matrix not positive definite in ${o.contact_linear_solve_precision} (pivot ${pivot})`;
        }
        break;
      }
      this.solveH();
      const dir = this.directionTerms();
      const d2A = dir[0];
      const dpr = dir[1];
      const dphi0 = dir[2];
      if (!(d2A > 0)) {
        const bad = this.findNonSpdClique();
        status = 'invalid_input';
        message =
          bad >= 0
            ? `cliques[${bad}].A is not positive definite`
            : `ΔvᵀAΔv = ${d2A} is not positive (A not SPD or non-finite data)`;
        break;
      }
      this.d2A = d2A;
      this.dpr = dpr;
      const r =
        this.ev !== null && ls.variant === 'monotone_decay'
          ? this.monotoneSearchWasm(ell, ls.max_iterations)
          : lineSearch(this.line, ell, dphi0, ls, this.sample, this.lsResult);
      lsIters += r.iterations;
      if (r.status !== 'ok') {
        status = 'line_search_failed';
        message =
          r.status === 'not_descent'
            ? `the cost does not decrease along the Newton direction (φ′(0) = ${dphi0})`
            : `${o.line_search_variant} found no acceptable step`;
        break;
      }
      alpha = r.alpha;
      this.stepV(alpha, rs);
      ellPrev = ell;
    }
    return this.finish(status, k, lsIters, cost, message);
  }

  /** the line search's parameters from the current options (one record, refreshed per solve) */
  private lineSearchParams(): LineSearchParams {
    const o = this.options;
    const ls = this.ls;
    ls.variant = o.line_search_variant;
    ls.max_iterations = o.line_search_max_iterations;
    ls.armijo_c = o.armijo_c;
    ls.rho = o.rho;
    ls.relative_slop = o.line_search_relative_slop;
    ls.cost_abs_tol = o.cost_abs_tol;
    ls.cost_rel_tol = o.cost_rel_tol;
    return ls;
  }

  /**
   * monotone_decay from cost `phi0` in one call into the WebAssembly evaluation (its loop and
   * evaluations are those of linesearch.ts monotoneDecay over {@link evalAlongLine}, so the result
   * is the same)
   */
  private monotoneSearchWasm(phi0: number, maxIt: number): LineSearchResult {
    const e = this.ev!;
    const r = e.views.out;
    r[5] = this.ellA0;
    r[6] = this.dpr;
    r[7] = this.d2A;
    const it = e.kernels.exports.monotoneSearch(
      this.nRows,
      monotoneThreshold(phi0),
      maxIt,
      MONOTONE_MIN_ALPHA,
    );
    const out = this.lsResult;
    out.status = r[2] === 1 ? 'ok' : 'failed';
    out.alpha = r[3];
    out.iterations = it;
    return out;
  }

  /**
   * the optimality test on the last {@link residualNorms}:
   * ‖D∇ℓ‖ ≤ optimality_abs_tol + optimality_rel_tol·max(‖Dp‖, ‖Dj‖)
   */
  private optimal(): boolean {
    const nm = this.scalars;
    const scale = Math.max(Math.sqrt(nm[1]), Math.sqrt(nm[2]));
    return Math.sqrt(nm[0]) <= this.options.optimality_abs_tol + this.options.optimality_rel_tol * scale;
  }

  /**
   * [‖D∇ℓ‖², ‖Dp‖², ‖Dj‖², 1 if every ∇ℓ entry is finite else 0] (D = diag(A)^-1/2); sets
   * rhs = −∇ℓ
   */
  private residualNorms(): Float64Array {
    const r = this.scalars;
    if (this.ev !== null) {
      this.ev.kernels.exports.residualNorms(this.nvp);
      const out = this.ev.views.out;
      for (let k = 0; k < 4; k++) r[k] = out[k];
      return r;
    }
    const np = this.nvp;
    const d = this.dInv;
    const grad = this.grad;
    const p = this.p;
    const jv = this.jv;
    let finite = 1;
    for (let a = 0; a < np; a++) if (!Number.isFinite(grad[a])) finite = 0;
    let res2 = 0;
    let p2 = 0;
    let j2 = 0;
    for (let a = 0; a < np; a++) {
      const g = d[a] * grad[a];
      const pa = d[a] * p[a];
      const ja = d[a] * jv[a];
      res2 += g * g;
      p2 += pa * pa;
      j2 += ja * ja;
      this.rhs[a] = -grad[a];
    }
    r[0] = res2;
    r[1] = p2;
    r[2] = j2;
    r[3] = finite;
    return r;
  }

  /** Δp = AΔv, JΔv, then [ΔvᵀAΔv, Δpᵀ(v − v*), ∇ℓᵀΔv] */
  private directionTerms(): Float64Array {
    const r = this.scalars;
    if (this.ev !== null) {
      this.ev.kernels.exports.directionTerms(this.nvp);
      const out = this.ev.views.out;
      for (let k = 0; k < 3; k++) r[k] = out[k];
      return r;
    }
    this.multiplyA(this.dv, this.dp);
    this.multiplyJ(this.dv, this.dvc);
    const np = this.nvp;
    let d2A = 0;
    let dpr = 0;
    let dphi0 = 0;
    for (let a = 0; a < np; a++) {
      d2A += this.dv[a] * this.dp[a];
      dpr += this.dp[a] * (this.v[a] - this.vStar[a]);
      dphi0 += this.grad[a] * this.dv[a];
    }
    r[0] = d2A;
    r[1] = dpr;
    r[2] = dphi0;
    return r;
  }

  /**
   * v ← v + αΔv, rounded to binary32 when `rs`; otherwise vc ← vc + αJΔv and Ar ← Ar + αAΔv
   * with it (see {@link advanced})
   */
  private stepV(alpha: number, rs: boolean): void {
    this.advanced = !rs;
    if (this.ev !== null) {
      this.ev.views.out[4] = alpha;
      this.ev.kernels.exports.stepV(this.nvp, this.nRows, rs);
      return;
    }
    const v = this.v;
    const dv = this.dv;
    for (let a = 0; a < this.nvp; a++) {
      const x = v[a] + alpha * dv[a];
      v[a] = rs ? fr(x) : x;
    }
    if (rs) return;
    const vc = this.vc;
    const dvc = this.dvc;
    for (let k = 0; k < this.nRows; k++) vc[k] = vc[k] + alpha * dvc[k];
    const Ar = this.Ar;
    const dp = this.dp;
    for (let a = 0; a < this.nvp; a++) Ar[a] = Ar[a] + alpha * dp[a];
  }

  /** index of a participating clique whose A fails an fp64 Cholesky, or −1 */
  private findNonSpdClique(): number {
    for (let q = 0; q < this.nPart; q++) {
      const c = this.partCliques[q];
      const A = Float64Array.from(this.cliquesA[c]);
      const n = this.cliqueOff[c + 1] - this.cliqueOff[c];
      if (choleskyFactor(A.subarray(0, n * n), n, 'fp64').status !== 'ok') return c;
    }
    return -1;
  }

  /** the public result of the last {@link solvePacked} on the own problem (velocities in `v`) */
  private pack(p: SapProblem, v: Float64Array, o: PackedSolveOutcome): SapSolveResult {
    const nCon = p.constraints.length;
    let j: Float64Array;
    const gamma: Float64Array[] = [];
    const vc: Float64Array[] = [];
    const state: (ContactRegionName | null)[] = [];
    if (this.islandMode) {
      j = this.jAll.slice(0, p.v_star.length);
      for (let i = 0; i < nCon; i++) {
        const ro = this.rowOffAll[i];
        const r = this.rowOffAll[i + 1] - ro;
        gamma.push(this.gammaAll.slice(ro, ro + r));
        vc.push(this.vcAll.slice(ro, ro + r));
        state.push(p.constraints[i].kind === 'contact' ? CONTACT_REGION_NAMES[this.regionAll[i]] : null);
      }
    } else {
      j = new Float64Array(this.nvTotal);
      for (let q = 0; q < this.nPart; q++) {
        const c = this.partCliques[q];
        const g = this.cliqueOff[c];
        const n = this.cliqueOff[c + 1] - g;
        const off = this.redOff[c];
        for (let m = 0; m < n; m++) j[g + m] = this.jv[off + m];
      }
      for (let i = 0; i < this.nCon; i++) {
        const ro = this.rowOff[i];
        const r = this.rows[i];
        gamma.push(this.gamma.slice(ro, ro + r));
        vc.push(this.vc.slice(ro, ro + r));
        state.push(
          this.kind[i] === KIND_CONTACT
            ? CONTACT_REGION_NAMES[contactRegion(this.params, i * PARAM_STRIDE, this.vc, ro)]
            : null,
        );
      }
    }
    const out: SapSolveResult = {
      status: o.status,
      v,
      gamma,
      j,
      iterations: o.iterations,
      line_search_iterations: o.line_search_iterations,
      cost: o.cost,
      vc,
      contact_state: state,
    };
    if (o.message !== undefined) out.message = o.message;
    return out;
  }
}
