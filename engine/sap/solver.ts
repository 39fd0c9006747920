/**
 * SAP Newton solver over a {@link SapProblem} (Drake SAP notes §0 and §3, SPEC §3.3–3.7).
 *
 * A {@link SapSolver} keeps every workspace (typed arrays, the factorization storage) between calls
 * and only grows them. Two entry points run the same code: {@link SapSolver.solve} takes the public
 * problem object (validated, then packed), {@link SapSolver.solvePacked} takes a pooled
 * {@link PackedSapProblem} (the pipeline's per-step path, no per-constraint allocations).
 *
 * The solver is one chain of classes over one workspace, along Drake's seams: `SapWorkspace`
 * (workspace.ts: the arrays), `SapConstraintBundle` (bundle.ts), `SapEvaluation` (evaluation.ts:
 * Drake's SapModel), `SapHessian` (hessian.ts) and `SapSolver` here (setup, Newton, islands, line
 * searches, results).
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

import { PARAM_STRIDE } from './constraints/common';
import {
  CONTACT_REGION_NAMES,
  contactRegion,
  type ContactRegion,
  type ContactRegionName,
} from './constraints/contact';
import { HOLONOMIC_MAX_ROWS } from './constraints/holonomic';
import { limitRowSigns } from './constraints/limit';
import {
  EXACT_ALPHA_MAX,
  lineSearch,
  type LineSearchParams,
  type LineSearchResult,
  MONOTONE_MIN_ALPHA,
  monotoneThreshold,
} from './linesearch';
import type { SapSolveTracer } from './trace';
import { PackedSapProblem } from './packed_problem';
import type { SapProblem, SapSolveResult, SapSolveStatus } from './problem';
import { KIND_CONTACT } from './bundle';
import { SapHessian } from './hessian';
import { finiteArray, fr, growF64, growI32, type PackedSolveOutcome } from './workspace';

export { diagDelassusWeight, MIN_DELASSUS_WEIGHT } from './bundle';
export type { LinearSolverMode, PackedSolveOutcome } from './workspace';

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

/** the largest step a line search variant tries: 1 (monotone_decay), 1/ρ (armijo_decay), 1.5 (exact_root) */
export function lineSearchAlphaMax(ls: LineSearchParams): number {
  if (ls.variant === 'armijo_decay') return 1 / ls.rho;
  if (ls.variant === 'exact_root') return EXACT_ALPHA_MAX;
  return 1;
}

/**
 * Reusable SAP solver. Options are resolved once (`resolveSolverOptions`); workspaces persist
 * across {@link SapSolver.solve} calls.
 */
export class SapSolver extends SapHessian {
  /**
   * records every Newton iterate of the following solves (the step inspector); null (the default)
   * traces nothing and costs nothing. While tracing, monotone_decay runs its JS loop over the
   * WebAssembly evaluation (the same candidates and result) so that each trial is seen.
   */
  tracer: SapSolveTracer | null = null;
  /** contact regions of the traced iterate (grown while tracing only) */
  private traceRegions: Uint8Array = new Uint8Array(0);

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
    if (this.tracer !== null) this.tracer.island = 0;
    const alt = vGuess === undefined ? undefined : vAlt;
    if (this.options.solve_islands && pp.nCon > 1 && this.islands.find(pp) > 1) {
      return this.solveIslands(pp, vGuess, vOut, alt);
    }
    const o = this.solveWhole(pp, vGuess, vOut, alt);
    o.islands = 1;
    return o;
  }

  /** one Newton solve of the whole problem (see {@link solvePacked}) */
  protected solveWhole(
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
  protected solved(pp: PackedSapProblem, vOut: Float64Array, o: PackedSolveOutcome): PackedSolveOutcome {
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
  protected solveIslands(
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
    const traced = this.tracer !== null ? this.tracer.iterations.length : 0;
    for (let k = 0; k < nK; k++) {
      const sub = isl.extract(pp, k, vGuess, vAlt);
      if (this.tracer !== null) this.tracer.island = k;
      this.subV = growF64(this.subV, sub.nv);
      const o = this.solveWhole(
        sub,
        vGuess === undefined ? undefined : isl.subGuess,
        this.subV,
        vAlt === undefined ? undefined : isl.subAlt,
      );
      if (o.status === 'invalid_input') {
        // (the trace keeps the whole problem's solve only)
        if (this.tracer !== null) this.tracer.truncate(traced);
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
  protected finish(
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
  protected setup(p: SapProblem, vGuess: Float64Array | undefined): string | null {
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
  protected prepare(pk: PackedSapProblem, vGuess: Float64Array | undefined): string | null {
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
  protected layoutStructure(pk: PackedSapProblem): void {
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
  protected loadV(src: Float64Array): void {
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
  protected layoutEvaluation(): boolean {
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

  /**
   * copies the solve's structure, J, parameters and A blocks into the evaluation's memory; with
   * `valuesOnly` (the structure bound last time holds) J, the parameters and the A blocks only
   */
  protected bindEvaluation(valuesOnly: boolean): void {
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

  protected invalidResult(p: SapProblem, message: string): SapSolveResult {
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
  // Newton loop

  /** Newton from the loaded v; `ell0`, when not NaN, is ℓ(v) already evaluated there */
  protected newton(ell0: number): PackedSolveOutcome {
    const o = this.options;
    const rs = o.contact_solve_precision === 'fp32';
    const ls = this.lineSearchParams();
    const cost: number[] = [];
    const tr = this.tracer;
    if (tr !== null) tr.beginSolve();
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
      if (tr !== null) this.traceIterate(tr, k, ell, nm);
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
        tr !== null
          ? lineSearch(tr.recording(this.line, dphi0), ell, dphi0, ls, this.sample, this.lsResult)
          : this.ev !== null && ls.variant === 'monotone_decay'
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
      if (tr !== null) tr.accepted(alpha, lineSearchAlphaMax(ls), this.line);
      this.stepV(alpha, rs);
      ellPrev = ell;
    }
    return this.finish(status, k, lsIters, cost, message);
  }

  /** hands iterate k (cost `ell`, norms `nm` of {@link residualNorms}) and its contact regions to `tr` */
  private traceIterate(tr: SapSolveTracer, k: number, ell: number, nm: Float64Array): void {
    if (this.traceRegions.length < this.nCon) this.traceRegions = new Uint8Array(this.nCon);
    const regions = this.traceRegions;
    let n = 0;
    for (let i = 0; i < this.nCon; i++) {
      if (this.kind[i] !== KIND_CONTACT) continue;
      regions[n++] = contactRegion(this.params, i * PARAM_STRIDE, this.vc, this.rowOff[i]);
    }
    const scale = Math.max(Math.sqrt(nm[1]), Math.sqrt(nm[2]));
    const o = this.options;
    tr.iterate(k, ell, Math.sqrt(nm[0]), scale, o.optimality_abs_tol, o.optimality_rel_tol, regions, n);
  }

  /** the line search's parameters from the current options (one record, refreshed per solve) */
  protected lineSearchParams(): LineSearchParams {
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
  protected monotoneSearchWasm(phi0: number, maxIt: number): LineSearchResult {
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
  protected optimal(): boolean {
    const nm = this.scalars;
    const scale = Math.max(Math.sqrt(nm[1]), Math.sqrt(nm[2]));
    return Math.sqrt(nm[0]) <= this.options.optimality_abs_tol + this.options.optimality_rel_tol * scale;
  }

  /**
   * v ← v + αΔv, rounded to binary32 when `rs`; otherwise vc ← vc + αJΔv and Ar ← Ar + αAΔv
   * with it (see {@link advanced})
   */
  protected stepV(alpha: number, rs: boolean): void {
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

  /** the public result of the last {@link solvePacked} on the own problem (velocities in `v`) */
  protected pack(p: SapProblem, v: Float64Array, o: PackedSolveOutcome): SapSolveResult {
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
