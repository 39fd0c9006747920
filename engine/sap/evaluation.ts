/**
 * Evaluation of the SAP problem (Drake's SapModel): vc = J·v, A·v, the constraint costs, impulses
 * γ and Hessian blocks G, the gradient ∇ℓ, the cost along the Newton direction and the norms of the
 * stopping tests.
 */

import { PARAM_STRIDE } from './constraints/common';
import { contactEval } from './constraints/contact';
import { pdEval } from './constraints/pd';
import { EvaluationWasm } from './linalg/wasm/evaluation';
import type { LineObjective, LineSample } from './linesearch';
import { calc, KIND_CONTACT, KIND_JOINT_FRICTION, KIND_PD, SapConstraintBundle } from './bundle';
import { fr } from './workspace';

/**
 * out[oo + a] = Σ_m A[m·n + a]·x[xo + m], m ascending from 0: A·x for the symmetric n×n row-major
 * A read along its rows (the WebAssembly twin's order; x and out must not overlap)
 */
export function symMatVec(
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

/** the evaluation of the problem at an iterate and along the Newton direction */
export abstract class SapEvaluation extends SapConstraintBundle {
  /** the cost along the Newton direction, as the line searches read it */
  protected readonly line: LineObjective = { evaluate: (a, o, out) => this.evalAlongLine(a, o, out) };

  /** the solver's vectors as views into the evaluation's memory */
  protected takeEvaluationViews(ev: EvaluationWasm): void {
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

  // ---------------------------------------------------------------------------------------------
  // evaluation at the iterate

  /** vc = J·x over all constraint rows (x over participating dofs) */
  protected multiplyJ(x: Float64Array, out: Float64Array): void {
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
  protected multiplyA(x: Float64Array, out: Float64Array): void {
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
  protected constraintCost(
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
      } else if (k === KIND_PD || k === KIND_JOINT_FRICTION) {
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
  protected evalAtV(): number {
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
  // cost along the line

  protected evalAlongLine(alpha: number, order: 0 | 1 | 2, out: LineSample): void {
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

  /**
   * [‖D∇ℓ‖², ‖Dp‖², ‖Dj‖², 1 if every ∇ℓ entry is finite else 0] (D = diag(A)^-1/2); sets
   * rhs = −∇ℓ
   */
  protected residualNorms(): Float64Array {
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
  protected directionTerms(): Float64Array {
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
}
