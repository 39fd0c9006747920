/**
 * CPU twins of the GPU stages for the parity tests: the reference functions, driven in the order
 * engine/pipeline/step.ts and engine/sap/solver.ts use them, with their intermediate results exposed.
 *
 * The Newton stages are twinned by the reference SapSolver itself: its (TypeScript-private) steps
 * setup → evalAtV → assembleH → factor → solve → line search are called one at a time here, so the
 * comparison is against the very code that runs on the CPU path.
 */
import { makeCompositeScratch, makeRneaScratch } from '../../../dynamics';
import {
  forwardKinematics,
  forwardVelocity,
  makeKinematicsData,
  velocityPublicToInternal,
  type KinematicsData,
} from '../../../kinematics';
import {
  buildContactConstraints,
  makeContactStageData,
  type ContactRecord,
} from '../../../pipeline/contact_jacobian';
import { buildEqualityConstraints } from '../../../pipeline/equality_constraints';
import { appliedForces, freeMotionTree, makeFreeMotionScratch } from '../../../pipeline/free_motion';
import { buildJointConstraints } from '../../../pipeline/joint_constraints';
import { DenseCholesky } from '../../../sap/linalg/cholesky';
import { lineSearch, type LineObjective } from '../../../sap/linesearch';
import type { SapSolverOptions } from '../../../sap/options';
import type { SapConstraintSpec, SapProblem } from '../../../sap/problem';
import { SapSolver } from '../../../sap/solver';
import type { StageFixture } from './fixtures';

export interface CpuWorldProblem {
  kin: KinematicsData;
  kinC: KinematicsData;
  /** internal velocities at t_n (all DOFs) */
  v_n: Float64Array;
  tau: Float64Array;
  v_star: Float64Array;
  A_diag: Float64Array;
  /** A per tree (empty for trees without DOFs) */
  treeA: Float64Array[];
  fmBad: boolean;
  problem: SapProblem;
  specs: SapConstraintSpec[];
  records: ContactRecord[];
  /** number of contact constraints (they come first in specs) */
  nContacts: number;
}

/** stages 1–3 of SolverSAP.step for world w of a fixture (contacts, joint limits and PD drives,
 * equalities), keeping every intermediate */
export function cpuWorldProblem(fx: StageFixture, o: SapSolverOptions, w = 0): CpuWorldProblem {
  const m = fx.model;
  const kin = makeKinematicsData(m);
  forwardKinematics(m, fx.state.joint_q, kin);
  const v_n = new Float64Array(m.joint_dof_count);
  velocityPublicToInternal(m, kin, fx.state.joint_qd, v_n);
  forwardVelocity(m, v_n, kin);
  const tau = new Float64Array(m.joint_dof_count);
  appliedForces(m, kin, fx.state.joint_q, fx.control.joint_f, tau);
  const kinC = makeKinematicsData(m);
  forwardKinematics(m, o.use_f64_boundary_pose ? fx.state.joint_q : fx.state.joint_q.map(Math.fround), kinC);
  const fm = makeFreeMotionScratch(m, makeRneaScratch(m), makeCompositeScratch(m));
  const v_star = new Float64Array(m.joint_dof_count);
  const treeA: Float64Array[] = [];
  let fmBad = false;
  const hasExternal = fx.state.body_f.some((x) => x !== 0);
  for (let t = 0; t < m.tree_count; t++) {
    const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
    const A = new Float64Array(nv * nv);
    treeA.push(A);
    const ok = freeMotionTree(
      m,
      kin,
      t,
      fx.dt,
      v_n,
      tau,
      hasExternal ? fx.state.body_f : null,
      o.free_motion_solve_precision,
      fm,
      A,
      v_star,
    );
    if (!ok && m.tree_world[t] === w) fmBad = true;
  }
  const A_diag = new Float64Array(m.joint_dof_count);
  const cliqueIndex = new Int32Array(m.tree_count).fill(-1);
  const cliques: SapProblem['cliques'] = [];
  for (let t = m.world_tree_start[w]; t < m.world_tree_start[w + 1]; t++) {
    const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
    if (nv === 0) continue;
    cliqueIndex[t] = cliques.length;
    cliques.push({ nv, A: treeA[t] });
    for (let i = 0; i < nv; i++) A_diag[m.tree_dof_start[t] + i] = treeA[t][i * nv + i];
  }
  const specs: SapConstraintSpec[] = [];
  const records: ContactRecord[] = [];
  const contacts = fx.contacts;
  buildContactConstraints(
    m,
    kinC,
    contacts,
    w,
    o,
    makeContactStageData(m),
    A_diag,
    cliqueIndex,
    specs,
    records,
  );
  const nContacts = specs.length;
  buildJointConstraints(
    m,
    m.world_joint_start[w],
    m.world_joint_start[w + 1],
    fx.state.joint_q,
    v_n,
    v_star,
    fx.control,
    fx.dt,
    cliqueIndex,
    specs,
  );
  if (m.eq_count > 0) buildEqualityConstraints(m, kin, fx.state.joint_q, w, cliqueIndex, specs);
  const d0 = m.world_dof_start[w],
    d1 = m.world_dof_start[w + 1];
  return {
    kin,
    kinC,
    v_n,
    tau,
    v_star,
    A_diag,
    treeA,
    fmBad,
    problem: { dt: fx.dt, cliques, v_star: v_star.slice(d0, d1), constraints: specs },
    specs,
    records,
    nContacts,
  };
}

/** the reference solver's private state, as the twin reads it */
interface SolverInternals {
  setup(p: SapProblem, vGuess: Float64Array | undefined): string | null;
  prepare(pk: unknown, vGuess: Float64Array | undefined): string | null;
  own: unknown;
  evalAtV(): number;
  assembleH(): void;
  multiplyA(x: Float64Array, out: Float64Array): void;
  multiplyJ(x: Float64Array, out: Float64Array): void;
  line: LineObjective;
  nvp: number;
  nRows: number;
  nCon: number;
  rows: Int32Array;
  rowOff: Int32Array;
  gOff: Int32Array;
  v: Float64Array;
  vStar: Float64Array;
  grad: Float64Array;
  Ar: Float64Array;
  gamma: Float64Array;
  G: Float64Array;
  vc: Float64Array;
  jv: Float64Array;
  H: Float64Array;
  dv: Float64Array;
  dp: Float64Array;
  dvc: Float64Array;
  ellA0: number;
  dpr: number;
  d2A: number;
}

/**
 * Iteration 0 of the reference Newton loop, one stage at a time. The solve-side stages can take
 * their input from the GPU (the gradient, the direction), so each compares the stage's own
 * arithmetic: ∇ℓ = A(v − v*) − Jᵀγ nearly cancels at equilibrium, and a difference there would
 * otherwise be amplified by every later stage.
 */
export class CpuNewtonTwin {
  private readonly s: SolverInternals;
  private readonly o: SapSolverOptions;
  private readonly chol: DenseCholesky;
  readonly nvp: number;
  cost0 = 0;

  constructor(problem: SapProblem, o: SapSolverOptions, vGuess: Float64Array) {
    const solver = new SapSolver(o);
    // the dense path keeps H as one nvp × nvp matrix (both paths give bit-identical results)
    (solver as unknown as { linear_solver: string }).linear_solver = 'dense';
    this.s = solver as unknown as SolverInternals;
    for (const k of ['setup', 'prepare', 'evalAtV', 'assembleH', 'multiplyA', 'multiplyJ'] as const) {
      if (typeof this.s[k] !== 'function')
        throw new Error(`reference SapSolver has no ${k}(); update testing/cpu_twin.ts`);
    }
    const err = this.s.setup(problem, vGuess) ?? this.s.prepare(this.s.own, vGuess);
    if (err) throw new Error(err);
    this.o = o;
    this.nvp = this.s.nvp;
    this.chol = new DenseCholesky(o.contact_linear_solve_precision);
  }

  /** evalAtV: rows in the reference order, G's diagonal per row, ∇ℓ and its two terms */
  eval(): {
    cost: number;
    vc: Float64Array;
    gamma: Float64Array;
    Gdiag: Float64Array;
    grad: Float64Array;
    Ar: Float64Array;
    jv: Float64Array;
  } {
    const s = this.s;
    this.cost0 = s.evalAtV();
    const Gdiag = new Float64Array(s.nRows);
    for (let i = 0; i < s.nCon; i++) {
      const r = s.rows[i];
      for (let k = 0; k < r; k++) Gdiag[s.rowOff[i] + k] = s.G[s.gOff[i] + k * r + k];
    }
    return {
      cost: this.cost0,
      vc: s.vc.slice(0, s.nRows),
      gamma: s.gamma.slice(0, s.nRows),
      Gdiag,
      grad: s.grad.slice(0, this.nvp),
      Ar: s.Ar.slice(0, this.nvp),
      jv: s.jv.slice(0, this.nvp),
    };
  }

  /** assembleH: lower triangle, row-major */
  hessian(): Float64Array {
    const np = this.nvp;
    this.s.assembleH();
    const H = new Float64Array(np * np);
    for (let a = 0; a < np; a++) for (let b = 0; b <= a; b++) H[a * np + b] = this.s.H[a * np + b];
    return H;
  }

  /** the reference dense blocked Cholesky of H in natural order (the solver may factor PHPᵀ) */
  factor(): Float64Array {
    const np = this.nvp;
    const fac = this.chol.factor(this.s.H, np);
    if (fac.status !== 'ok') throw new Error('reference factorization failed');
    const store = (this.chol as unknown as { s64: Float64Array; s32: Float32Array })[
      this.o.contact_linear_solve_precision === 'fp32' ? 's32' : 's64'
    ];
    const L = new Float64Array(np * np);
    for (let a = 0; a < np; a++) for (let b = 0; b <= a; b++) L[a * np + b] = store[a * np + b];
    return L;
  }

  /** Δv = −H⁻¹∇ℓ for the given gradient */
  solve(grad: Float64Array): Float64Array {
    const rhs = grad.map((x) => -x);
    const dv = new Float64Array(this.nvp);
    this.chol.solve(rhs, dv);
    return dv;
  }

  /** the line data of a direction: Δvc = JΔv, Δpᵀ(v − v*), ΔvᵀAΔv, φ′(0) = ∇ℓ·Δv */
  lineData(dv: Float64Array): { dvc: Float64Array; dpr: number; d2A: number; dphi0: number } {
    const s = this.s;
    const np = this.nvp;
    s.dv.set(dv);
    s.multiplyA(s.dv, s.dp);
    s.multiplyJ(s.dv, s.dvc);
    let d2A = 0,
      dpr = 0,
      dphi0 = 0;
    for (let a = 0; a < np; a++) {
      d2A += s.dv[a] * s.dp[a];
      dpr += s.dp[a] * (s.v[a] - s.vStar[a]);
      dphi0 += s.grad[a] * s.dv[a];
    }
    s.d2A = d2A;
    s.dpr = dpr;
    return { dvc: s.dvc.slice(0, s.nRows), dpr, d2A, dphi0 };
  }

  /** the line search along the direction set by lineData, and the updated v */
  lineSearch(dphi0: number): { alpha: number; iterations: number; v1: Float64Array } {
    const s = this.s;
    const o = this.o;
    const r = lineSearch(s.line, this.cost0, dphi0, {
      variant: o.line_search_variant,
      max_iterations: o.line_search_max_iterations,
      armijo_c: o.armijo_c,
      rho: o.rho,
      relative_slop: o.line_search_relative_slop,
      cost_abs_tol: o.cost_abs_tol,
      cost_rel_tol: o.cost_rel_tol,
    });
    const v1 = new Float64Array(this.nvp);
    for (let a = 0; a < this.nvp; a++) {
      const x = s.v[a] + r.alpha * s.dv[a];
      v1[a] = o.contact_solve_precision === 'fp32' ? Math.fround(x) : x;
    }
    return { alpha: r.alpha, iterations: r.iterations, v1 };
  }
}
