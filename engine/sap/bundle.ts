/**
 * The constraint bundle of a SAP solve (Drake's SapConstraintBundle): the Jacobian columns of each
 * constraint, its parameters (packed records of PARAM_STRIDE entries), its Delassus weight and
 * the checks of its data.
 */

import { zeroRun } from '../math/arrays';
import { PARAM_STRIDE } from './constraints/common';
import { CONTACT_ROWS, contactCalc, makeContactParams } from './constraints/contact';
import { HOLONOMIC_MAX_ROWS, makeHolonomicParams } from './constraints/holonomic';
import { CONSTRAINT_KINDS } from './constraints/kinds';
import { makeJointFrictionParams } from './constraints/joint_friction';
import { limitCalc, makeLimitParams } from './constraints/limit';
import { makePdParams, pdCalc } from './constraints/pd';
import { makeTendonParams } from './constraints/tendon';
import {
  ContactPhys,
  HolonomicPhys,
  JointFrictionPhys,
  LimitPhys,
  PackedSapProblem,
  PdPhys,
  PHYS_STRIDE,
  SapKind,
  TendonPhys,
} from './packed_problem';
import type { SapConstraintSpec } from './problem';
import { finiteArray, fr, growI32, ident, isIndex, opt, orDefault, SapWorkspace } from './workspace';

export const KIND_CONTACT = SapKind.Contact;
export const KIND_LIMIT = SapKind.Limit;
export const KIND_HOLONOMIC = SapKind.Holonomic;
export const KIND_PD = SapKind.Pd;
export const KIND_TENDON = SapKind.Tendon;
export const KIND_JOINT_FRICTION = SapKind.JointFriction;

/** {@link ConstraintCalc} of a constraint kind (direct calls: monomorphic call sites) */
export function calc(
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
    case KIND_JOINT_FRICTION:
      return pdCalc(P, po, nrows, vc, vo, gamma, go, G, Go);
    default:
      return CONSTRAINT_KINDS[kind].calc(P, po, nrows, vc, vo, gamma, go, G, Go);
  }
}

/** checks the sides, stiffness, τ and β of a joint or tendon limit spec; the message or null */
export function checkLimitSides(
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

/** the constraint bundle over the workspace: columns, parameters, weights and checks */
export abstract class SapConstraintBundle extends SapWorkspace {
  /**
   * Nonzero-column lists of all Jacobian blocks ({@link colStart}, {@link colIdx}), scanning every
   * entry once; returns the first block holding a NaN or ±∞ entry, −1 when all are finite.
   */
  protected buildColumns(pk: PackedSapProblem): number {
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
  protected makeParams(pk: PackedSapProblem): string | null {
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
        let w = P[x + ContactPhys.w];
        if (Number.isNaN(w)) {
          this.delassusWeight(i, CONTACT_ROWS, weights32);
          w = this.weightOut[0];
        }
        const c = this.contactIn;
        c.mu = P[x + ContactPhys.mu];
        c.stiffness = P[x + ContactPhys.stiffness];
        c.tau_d = P[x + ContactPhys.tau_d];
        c.phi0 = P[x + ContactPhys.phi0];
        // (NaN: the option's value; kept numeric so the record's fields stay unboxed doubles)
        const beta = P[x + ContactPhys.beta];
        const sigma = P[x + ContactPhys.sigma];
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
        let w = P[x + HolonomicPhys.w];
        if (Number.isNaN(w)) {
          this.delassusWeight(i, r, weights32);
          w = this.weightOut[0];
        }
        const h = this.holoIn;
        h.stiffness = P[x + HolonomicPhys.stiffness];
        h.tau_d = P[x + HolonomicPhys.tau_d];
        h.beta = opt(P[x + HolonomicPhys.beta]);
        h.g0 = this.holoG0.subarray(0, r);
        for (let k = 0; k < r; k++) this.holoG0[k] = P[x + HolonomicPhys.g0 + k];
        makeHolonomicParams(h, dt, w, this.params, po);
        const bad = this.rowRecordsError(i, po, r, 'holonomic');
        if (bad !== null) return bad;
      } else if (kind === KIND_TENDON) {
        const r = pk.rows[i];
        let w = P[x + TendonPhys.w];
        if (Number.isNaN(w)) {
          this.delassusWeight(i, r, weights32);
          w = this.weightOut[0];
        }
        const t = this.tendonIn;
        t.l0 = P[x + TendonPhys.l0];
        t.lower = P[x + TendonPhys.lower];
        t.upper = P[x + TendonPhys.upper];
        t.stiffness = P[x + TendonPhys.stiffness];
        t.tau_d = P[x + TendonPhys.tau_d];
        t.beta = opt(P[x + TendonPhys.beta]);
        makeTendonParams(t, dt, w, this.params, po);
        const bad = this.rowRecordsError(i, po, r, 'tendon');
        if (bad !== null) return bad;
        // (every row has the same R)
        if (r > 0) this.stiffness = Math.max(this.stiffness, w / this.params[po]);
      } else if (kind === KIND_LIMIT) {
        const c = pk.blkClique[pk.blkStart[i]];
        const n = pk.cliqueNv[c];
        const dof = P[x + LimitPhys.dof];
        const w = orDefault(P[x + LimitPhys.w], 1 / pk.cliqueA[c][dof * n + dof]);
        const l = this.limitIn;
        l.q0 = P[x + LimitPhys.q0];
        l.lower = P[x + LimitPhys.lower];
        l.upper = P[x + LimitPhys.upper];
        l.stiffness = P[x + LimitPhys.stiffness];
        l.tau_d = P[x + LimitPhys.tau_d];
        l.beta = opt(P[x + LimitPhys.beta]);
        makeLimitParams(l, dt, w, this.params, po);
        const bad = this.rowRecordsError(i, po, pk.rows[i], 'limit');
        if (bad !== null) return bad;
        // (every row has the same R)
        if (pk.rows[i] > 0) this.stiffness = Math.max(this.stiffness, w / this.params[po]);
      } else if (kind === KIND_JOINT_FRICTION) {
        const c = pk.blkClique[pk.blkStart[i]];
        const n = pk.cliqueNv[c];
        const dof = P[x + JointFrictionPhys.dof];
        const w = orDefault(P[x + JointFrictionPhys.w], 1 / pk.cliqueA[c][dof * n + dof]);
        const sigma = orDefault(P[x + JointFrictionPhys.sigma], o.joint_friction_sigma);
        // joint friction: a PD parameter record with Kp = 0, Kd = 1/(δt·σ·w)
        makeJointFrictionParams(P[x + JointFrictionPhys.friction], sigma, dt, w, this.params, po);
        const kd = this.params[po + 2];
        if (!(kd > 0 && Number.isFinite(kd))) {
          return `constraints[${i}] (joint_friction): regularization is not positive and finite (R = ${sigma * w}); check sigma and w`;
        }
        this.stiffness = Math.max(this.stiffness, w * dt * kd);
      } else {
        const c = pk.blkClique[pk.blkStart[i]];
        const n = pk.cliqueNv[c];
        const dof = P[x + PdPhys.dof];
        const w = orDefault(P[x + PdPhys.w], 1 / pk.cliqueA[c][dof * n + dof]);
        const d = this.pdIn;
        d.q0 = P[x + PdPhys.q0];
        d.qd = P[x + PdPhys.qd];
        d.vd = P[x + PdPhys.vd];
        d.kp = P[x + PdPhys.kp];
        d.kd = P[x + PdPhys.kd];
        d.effort_limit = P[x + PdPhys.effort_limit];
        d.u0 = P[x + PdPhys.u0];
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
  protected rowRecordsError(i: number, po: number, rows: number, kind: string): string | null {
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
  protected delassusWeight(i: number, nrows: number, f32: boolean): void {
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

  protected checkSpec(s: SapConstraintSpec, i: number): string | null {
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
}
