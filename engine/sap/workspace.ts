/**
 * The SAP solver's workspace (SPEC §3.3–3.7): every array a solve reads and writes, kept between
 * calls and only grown, and the small numeric helpers the solver's parts share. The solver is a
 * chain of classes over this one workspace, along Drake's seams: the constraint bundle
 * (bundle.ts: parameters, weights, checks), the model's evaluation (evaluation.ts: J·v, A·v, the
 * constraint costs, γ, G, ∇ℓ, the cost along a line), the Hessian (hessian.ts: analysis, assembly,
 * factorization, solves) and the Newton solver with islands and line searches (solver.ts).
 */

import { CONTACT_ROWS } from './constraints/contact';
import { HOLONOMIC_MAX_ROWS } from './constraints/holonomic';
import { SapIslands } from './islands';
import { BlockSparseCholesky } from './linalg/block_sparse';
import { CHOLESKY_TILE, DenseCholesky } from './linalg/cholesky';
import { type EvaluationInputs, EvaluationWasm } from './linalg/wasm/evaluation';
import type { IntRuns, LinalgKernels } from './linalg/wasm/kernels';
import type { LineSample, LineSearchParams, LineSearchResult } from './linesearch';
import { resolveSolverOptions, type SapSolverOptions } from './options';
import { PackedSapProblem } from './packed_problem';
import type { SapSolveStatus } from './problem';
import { StructureKey } from './structure_key';

/**
 * The largest w·G (a constraint's Hessian block against its Delassus weight w, i.e. w/R: 1/σ for a
 * sticking contact, 4π²/β² for a near-rigid one) at which H is updated incrementally. Taking a
 * block out again (a contact that starts to slide or separates) leaves a rounding residue of about
 * ε·w·G of the constraint's scale in H: ≤ 2e-10 here (SAP's defaults: 1e3). Stiffer problems
 * (contact_sigma below 1e-6) assemble every iteration from scratch.
 */
export const INCREMENTAL_MAX_STIFFNESS = 1e6;

/** which factorization the Newton step uses */
export type LinearSolverMode = 'auto' | 'dense' | 'block_sparse';

export const fr = Math.fround;
export const ident = (x: number): number => x;

export function growF64(a: Float64Array, n: number): Float64Array {
  return a.length >= n ? a : new Float64Array(Math.max(n, 2 * a.length));
}
export function growI32(a: Int32Array, n: number): Int32Array {
  return a.length >= n ? a : new Int32Array(Math.max(n, 2 * a.length));
}
export function finiteArray(a: Float64Array, from = 0, to = a.length): boolean {
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
export function isIndex(x: unknown, n: number): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0 && x < n;
}
/** NaN → undefined (the packed form's "use the default") */
export function opt(x: number): number | undefined {
  return Number.isNaN(x) ? undefined : x;
}

/** x, or `fallback` where x is NaN (the packed records' "default"; a number, never boxed) */
export function orDefault(x: number, fallback: number): number {
  return Number.isNaN(x) ? fallback : x;
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
 * The fields of a {@link SapSolver}: its options, the problem in packed form, the per-solve arrays
 * and the factorization storage. Options are resolved once (`resolveSolverOptions`); the arrays
 * persist across {@link SapSolver.solve} calls. The parts of the solver extend it in turn.
 */
export abstract class SapWorkspace {
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
  protected readonly own = new PackedSapProblem();
  /** the sparse assembly's index arrays for the kernels ({@link assemblyArrays}; reused) */
  protected readonly asmRuns: IntRuns = Array.from({ length: 13 }, () => [new Int32Array(0), 0]);

  // islands (options.solve_islands): results of the last solve in the caller's numbering
  protected readonly islands = new SapIslands();
  protected islandMode = false;
  protected rowOffAll: Int32Array = new Int32Array(0);
  protected gammaAll: Float64Array = new Float64Array(0);
  protected vcAll: Float64Array = new Float64Array(0);
  protected jAll: Float64Array = new Float64Array(0);
  protected regionAll: Uint8Array = new Uint8Array(0);
  protected subV: Float64Array = new Float64Array(0);
  protected pp: PackedSapProblem = this.own;

  // problem layout
  protected nCliques = 0;
  protected nvTotal = 0;
  protected nvp = 0; // participating dofs
  protected nCon = 0;
  protected nRows = 0;
  protected nG = 0;
  protected cliqueOff: Int32Array = new Int32Array(0); // global dof offset per clique (nCliques + 1)
  protected redOff: Int32Array = new Int32Array(0); // reduced offset per clique, −1 if not participating
  protected partCliques: Int32Array = new Int32Array(0); // participating clique ids, ascending
  protected partIndex: Int32Array = new Int32Array(0); // clique → index in partCliques (or −1)
  protected partSize: Int32Array = new Int32Array(0);
  protected partStart: Int32Array = new Int32Array(0); // reduced offset per participating clique
  protected nPart = 0;
  protected maxNv = 0;
  protected kind: Uint8Array = new Uint8Array(0);
  protected rows: Int32Array = new Int32Array(0);
  protected rowOff: Int32Array = new Int32Array(0);
  protected gOff: Int32Array = new Int32Array(0);
  protected params: Float64Array = new Float64Array(0);
  protected blkStart: Int32Array = new Int32Array(0); // per constraint (nCon + 1)
  protected blkClique: Int32Array = new Int32Array(0);
  protected blkJ: Int32Array = new Int32Array(0); // offset in jData
  protected jData: Float64Array = new Float64Array(0);
  protected nJ = 0; // used length of jData
  // WebAssembly assembly of JᵀGJ (sparse path): whether this solve uses it, and G's copy there
  protected wasmAssembly = false;
  protected wasmG: Float64Array = new Float64Array(0);
  protected wasmGPtr = 0;
  /** the solve's G (the first nG entries of {@link G}), the source of wasmG's copy per iteration */
  protected gSolve: Float64Array = new Float64Array(0);
  /** the G the held H was assembled with, beside wasmG ({@link hessianChange}) */
  protected wasmGHeld: Float64Array = new Float64Array(0);
  protected wasmGHeldPtr = 0;
  /**
   * per block (nBlk + 1): range into colIdx of the block's structurally nonzero columns (columns m
   * with J[k][m] ≠ 0 for some row k), ascending. Every product over a Jacobian block runs over
   * these columns only: the skipped terms are exact zeros, so sums are unchanged bit for bit.
   */
  protected colStart: Int32Array = new Int32Array(1);
  protected colIdx: Int32Array = new Int32Array(0);
  protected cliquesA: Float64Array[] = [];
  /** WebAssembly Newton evaluation (null: the JS twins below run); holds the vectors it reads */
  protected ev: EvaluationWasm | null = EvaluationWasm.create();
  /** line-search parameters ({@link lineSearchParams}) */
  protected readonly ls: LineSearchParams = {
    variant: 'monotone_decay',
    max_iterations: 0,
    armijo_c: 0,
    rho: 0,
    relative_slop: 0,
    cost_abs_tol: 0,
    cost_rel_tol: 0,
  };
  /** the structure of the last prepared problem, and the evaluation it was laid out in */
  protected readonly structure = new StructureKey();
  protected preparedEv: EvaluationWasm | null = null;
  /** whether the last {@link buildColumns} found other nonzero columns than the one before */
  protected columnsChanged = true;
  protected readonly evIn: EvaluationInputs = {
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
  protected bs = new BlockSparseCholesky('fp64');
  protected sparse = false;
  protected edges: Int32Array = new Int32Array(0);
  protected dofPerm: Int32Array = new Int32Array(0); // dense path: H' row → reduced dof
  protected identityPerm = true;
  /** dense path on the evaluation's memory: byte offset of the permutation there (0: identity) */
  protected evPerm = 0;
  /** sparse path, per block (index into blkClique): values offset of its diagonal block */
  protected blkDiag: Int32Array = new Int32Array(0);
  /** sparse path, per constraint: (nCon + 1) ranges into pairOff */
  protected pairStart: Int32Array = new Int32Array(0);
  /** sparse path: per ordered block pair (q, p), q ≠ p, of a constraint: coupling block offset */
  protected pairOff: Int32Array = new Int32Array(0);
  /** sparse path: 1 when that block is stored transposed (p eliminated before q) */
  protected pairT: Uint8Array = new Uint8Array(0);

  // vectors over participating dofs
  protected v: Float64Array = new Float64Array(0);
  protected vStar: Float64Array = new Float64Array(0);
  protected dInv: Float64Array = new Float64Array(0); // diag(A)^-1/2
  protected Ar: Float64Array = new Float64Array(0); // A(v − v*)
  protected p: Float64Array = new Float64Array(0); // A v
  protected pStar: Float64Array = new Float64Array(0); // A v* (per solve)
  protected jv: Float64Array = new Float64Array(0); // Jᵀγ
  protected grad: Float64Array = new Float64Array(0);
  protected rhs: Float64Array = new Float64Array(0);
  protected dv: Float64Array = new Float64Array(0);
  protected dp: Float64Array = new Float64Array(0);
  protected H: Float64Array = new Float64Array(0);
  protected T: Float64Array = new Float64Array(0); // G·J block scratch
  // vectors over constraint rows
  protected vc: Float64Array = new Float64Array(0);
  protected dvc: Float64Array = new Float64Array(0);
  protected gamma: Float64Array = new Float64Array(0);
  protected G: Float64Array = new Float64Array(0);
  protected vcT: Float64Array = new Float64Array(0);
  protected gammaT: Float64Array = new Float64Array(0);
  protected GT: Float64Array = new Float64Array(0);
  /**
   * the Hessian blocks the held H was assembled with ({@link hessianChange}; a view into the
   * evaluation's memory there, and unused by the block-sparse WebAssembly assembly, which keeps
   * its own copy beside {@link wasmG})
   */
  protected gHeld: Float64Array = new Float64Array(0);
  /** ΔG = G − gHeld of an incremental assembly (a view into the evaluation's memory there) */
  protected dG: Float64Array = new Float64Array(0);
  /** H (dense: {@link H}; block-sparse: its held copy) holds A + JᵀG·J with G = {@link gHeld} */
  protected heldH = false;
  /** the largest w·G a constraint of this solve can take on ({@link INCREMENTAL_MAX_STIFFNESS}) */
  protected stiffness = 0;

  /**
   * vc = Jv and Ar = A(v − v*) already hold the current v: the last stepV advanced them with v by
   * the same step (vc + αJΔv, Ar + αAΔv), so evalAtV need not multiply by J and A again. Cleared
   * whenever v is loaded; never set when contact_solve_precision is fp32 (v is rounded there).
   */
  protected advanced = false;

  // line data
  protected ellA0 = 0;
  protected dpr = 0; // Δpᵀ(v − v*)
  protected d2A = 0; // ΔvᵀAΔv
  protected chol = new DenseCholesky('fp64');
  protected readonly costBuf = new Float64Array(1);
  /** scalar results of residualNorms / directionTerms */
  protected readonly scalars = new Float64Array(4);
  protected readonly sample: LineSample = { phi: 0, dphi: 0, d2phi: 0 };
  protected readonly lsResult: LineSearchResult = { status: 'ok', alpha: 1, iterations: 0 };
  protected readonly outcome: PackedSolveOutcome = {
    status: 'converged',
    iterations: 0,
    line_search_iterations: 0,
    cost: [],
    islands: 1,
    alt_start: false,
  };
  // scratch inputs of the parameter builders
  protected readonly limitIn = {
    q0: 0,
    lower: 0,
    upper: 0,
    stiffness: 0,
    tau_d: 0,
    beta: undefined as number | undefined,
  };
  protected readonly tendonIn = {
    l0: 0.5,
    lower: 0.5,
    upper: 0.5,
    stiffness: 0.5,
    tau_d: 0.5,
    beta: 0.5 as number | undefined,
  };
  protected readonly pdIn = { q0: 0, qd: 0, vd: 0, kp: 0, kd: 0, effort_limit: 0, u0: 0 };
  // (numbers from the start, not undefined: a field that has held undefined stores every new double
  // in a fresh heap box)
  protected readonly contactIn = {
    mu: 0.5,
    stiffness: 0.5,
    tau_d: 0.5,
    phi0: 0.5,
    beta: 0.5 as number | undefined,
    sigma: 0.5 as number | undefined,
  };
  protected readonly holoG0 = new Float64Array(HOLONOMIC_MAX_ROWS);
  /** the symmetric Delassus block W of one constraint (rows² entries, upper triangle used) */
  protected readonly wScratch = new Float64Array(Math.max(CONTACT_ROWS, HOLONOMIC_MAX_ROWS) ** 2);
  /** {@link delassusWeight}'s result (a double returned from a call V8 does not inline is boxed) */
  protected readonly weightOut = new Float64Array(1);
  protected readonly holoIn = {
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
}
