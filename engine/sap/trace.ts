/**
 * Solve trace of the SAP Newton loop (the step inspector, issue 55).
 *
 * A {@link SapSolveTracer} is handed to a solver only when a step is inspected
 * (`SapSolver.tracer`, `SolverSAP.tracer`); with none the solver runs exactly as before (one null
 * test per Newton iteration, nothing allocated). While tracing, every Newton iterate gets a
 * {@link SapIterationTrace}: the cost ℓ, the solver's own convergence measure, the contact regions
 * and how many changed since the previous iterate, and, for iterates that took a step, the line
 * search's trials, the accepted α and φ(α) = ℓ(v + αΔv) sampled on a grid over [0, α_max] along
 * that direction (the curve the inspector draws).
 */

import type { LineObjective, LineSample } from './linesearch';

/** one φ evaluation of the line search */
export interface LineSearchTrial {
  /** step length tried [-] */
  alpha: number;
  /** φ(α) = ℓ(v + αΔv) [J] */
  phi: number;
  /** φ′(α) [J] when the line search evaluated it, else null */
  dphi: number | null;
}

/** one Newton iterate of a traced solve */
export interface SapIterationTrace {
  /** the world of the step ({@link SapSolveTracer.world} when the solve began) */
  world: number;
  /** the constraint island (0 without `solve_islands`) */
  island: number;
  /** Newton iteration k (0 = the start) */
  iteration: number;
  /** ℓ(v_k) [J] */
  cost: number;
  /** ‖D∇ℓ‖ at v_k (D = diag(A)^-1/2) [√J] */
  residual: number;
  /**
   * the convergence measure: ‖D∇ℓ‖ / max(‖Dp‖, ‖Dj‖) (p = Av, j = Jᵀγ); the solve stops when it is
   * at most optimality_rel_tol + optimality_abs_tol / max(‖Dp‖, ‖Dj‖) ({@link tolerance})
   */
  relative_residual: number;
  /** the value of {@link relative_residual} the optimality test accepts at this iterate */
  tolerance: number;
  /** contacts in each region at v_k */
  stick: number;
  slip: number;
  open: number;
  /** contacts whose region differs from the previous iterate's (0 at k = 0) */
  region_changes: number;
  /** φ′(0) = ∇ℓ·Δv along the Newton direction [J] (null: no step from this iterate) */
  dphi0: number | null;
  /** accepted step length (null: no step, the solve stopped here or failed) */
  alpha: number | null;
  /** every φ evaluation of the line search, in order */
  trials: LineSearchTrial[];
  /** upper end of the sampled α interval (the variant's largest candidate) */
  alpha_max: number;
  /** α of the φ samples (empty without a step) */
  curve_alpha: number[];
  /** φ(α) at {@link curve_alpha} [J] */
  curve_phi: number[];
  /** φ′(α) at {@link curve_alpha} [J] */
  curve_dphi: number[];
}

/** records a Newton solve; see the module comment */
export class SapSolveTracer {
  /** the world the next solves belong to (set by the caller, e.g. per world of a step) */
  world = 0;
  /** the island the next solve belongs to (set by the solver) */
  island = 0;
  /** the traced iterates, in the order they were solved */
  readonly iterations: SapIterationTrace[] = [];
  /** regions of the previous iterate (contact order), for {@link SapIterationTrace.region_changes} */
  private prevRegions: Uint8Array = new Uint8Array(0);
  private hasPrev = false;
  private current: SapIterationTrace | null = null;

  /**
   * @param gridPoints  φ samples per accepted direction, both ends included (≥ 2)
   */
  constructor(readonly gridPoints = 41) {
    if (!(Number.isInteger(gridPoints) && gridPoints >= 2)) {
      throw new RangeError(`gridPoints must be an integer ≥ 2; got ${gridPoints}`);
    }
  }

  /** a new Newton solve begins (no previous iterate for the region comparison) */
  beginSolve(): void {
    this.hasPrev = false;
    this.current = null;
  }

  /**
   * records iterate k; `regions[c]` is contact c's region code (0 stick, 1 slip, 2 open) over
   * `nContacts` entries
   */
  iterate(
    k: number,
    cost: number,
    residual: number,
    scale: number,
    absTol: number,
    relTol: number,
    regions: Uint8Array,
    nContacts: number,
  ): void {
    let stick = 0;
    let slip = 0;
    let open = 0;
    let changes = 0;
    const prev = this.prevRegions;
    const comparable = this.hasPrev && prev.length >= nContacts;
    for (let c = 0; c < nContacts; c++) {
      const r = regions[c];
      if (r === 0) stick++;
      else if (r === 1) slip++;
      else open++;
      if (comparable && prev[c] !== r) changes++;
    }
    if (prev.length < nContacts) this.prevRegions = new Uint8Array(nContacts);
    this.prevRegions.set(regions.subarray(0, nContacts));
    this.hasPrev = true;
    const rec: SapIterationTrace = {
      world: this.world,
      island: this.island,
      iteration: k,
      cost,
      residual,
      relative_residual: scale > 0 ? residual / scale : residual,
      tolerance: scale > 0 ? relTol + absTol / scale : absTol,
      stick,
      slip,
      open,
      region_changes: changes,
      dphi0: null,
      alpha: null,
      trials: [],
      alpha_max: 0,
      curve_alpha: [],
      curve_phi: [],
      curve_dphi: [],
    };
    this.iterations.push(rec);
    this.current = rec;
  }

  /** the line objective `f` with every evaluation recorded as a trial of the current iterate */
  recording(f: LineObjective, dphi0: number): LineObjective {
    const rec = this.current;
    if (rec === null) return f;
    rec.dphi0 = dphi0;
    return {
      evaluate: (alpha: number, order: 0 | 1 | 2, out: LineSample) => {
        f.evaluate(alpha, order, out);
        rec.trials.push({ alpha, phi: out.phi, dphi: order >= 1 ? out.dphi : null });
      },
    };
  }

  /**
   * the current iterate's step was accepted with `alpha`: samples φ and φ′ of `f` (the same
   * direction) on {@link gridPoints} points over [0, alphaMax]
   */
  accepted(alpha: number, alphaMax: number, f: LineObjective): void {
    const rec = this.current;
    if (rec === null) return;
    rec.alpha = alpha;
    const amax = Math.max(alphaMax, alpha);
    rec.alpha_max = amax;
    const s: LineSample = { phi: 0, dphi: 0, d2phi: 0 };
    const n = this.gridPoints;
    for (let i = 0; i < n; i++) {
      const a = (amax * i) / (n - 1);
      f.evaluate(a, 1, s);
      rec.curve_alpha.push(a);
      rec.curve_phi.push(s.phi);
      rec.curve_dphi.push(s.dphi);
    }
  }

  /** forgets the iterates recorded after the first `n` (a solve that is redone) */
  truncate(n: number): void {
    this.iterations.length = Math.min(n, this.iterations.length);
    this.beginSolve();
  }

  /** forgets every recorded iterate (the tracer can be reused) */
  clear(): void {
    this.iterations.length = 0;
    this.beginSolve();
  }
}
