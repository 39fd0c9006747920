/**
 * PackedSapProblem: a {@link SapProblem} in pooled structure-of-arrays storage.
 *
 * The public problem object (`solveSapProblem`) is convenient for hand-built problems but costs a
 * handful of small allocations per constraint. A pipeline that builds one problem per step instead
 * keeps one PackedSapProblem, calls {@link reset} and writes cliques and constraints into typed
 * arrays that only grow, then hands it to `SapSolver.solvePacked`. `SapSolver.solve` converts a
 * public problem into the same form, so both paths run the very same solver code.
 *
 * Layout: constraint i has `rows[i]` rows and the blocks `blkStart[i] .. blkStart[i+1]`; block b
 * belongs to clique `blkClique[b]` and its rows×nv row-major Jacobian starts at `jData[blkJ[b]]`.
 * A clique appears at most once per constraint ({@link addBlock} merges repeats). Physical inputs
 * sit in `phys` (PHYS_STRIDE numbers per constraint, NaN for "use the default"; the offsets are
 * named per kind: {@link ContactPhys}, {@link LimitPhys}, {@link PdPhys}, {@link HolonomicPhys}, {@link TendonPhys}, {@link JointFrictionPhys}):
 * - contact:   mu, stiffness, tau_d, phi0, beta, sigma, w
 * - limit:     dof, q0, lower, upper, stiffness, tau_d, beta, w
 * - pd:        dof, q0, qd, vd, kp, kd, effort_limit, u0, w
 * - joint_friction: dof, friction, σ, w (see constraints/joint_friction.ts)
 * - holonomic: stiffness, tau_d, beta, w, g0[0 .. rows)
 * - tendon:    l0, lower, upper, stiffness, tau_d, beta, w (Jacobian rows +a, −a per finite side)
 */

import { ContactPhys } from './constraints/contact';
import { HolonomicPhys } from './constraints/holonomic';
import { JointFrictionPhys } from './constraints/joint_friction';
import { LimitPhys } from './constraints/limit';
import { PdPhys } from './constraints/pd';
import { TendonPhys } from './constraints/tendon';
import type { SapConstraintSpec } from './problem';

export { ContactPhys, HolonomicPhys, JointFrictionPhys, LimitPhys, PdPhys, TendonPhys };

/** constraint kind codes */
export const SapKind = { Contact: 0, Limit: 1, Pd: 2, Holonomic: 3, Tendon: 4, JointFriction: 5 } as const;
export type SapKind = (typeof SapKind)[keyof typeof SapKind];

/** numbers of physical input per constraint record */
export const PHYS_STRIDE = 12;

/** `a`, or a larger copy of it when it holds fewer than n entries */
export function growI32(a: Int32Array, n: number): Int32Array {
  if (a.length >= n) return a;
  const b = new Int32Array(Math.max(n, 2 * a.length, 16));
  b.set(a);
  return b;
}
/** `a`, or a larger copy of it when it holds fewer than n entries */
export function growU8(a: Uint8Array, n: number): Uint8Array {
  if (a.length >= n) return a;
  const b = new Uint8Array(Math.max(n, 2 * a.length, 16));
  b.set(a);
  return b;
}
/** `a`, or a larger copy of it when it holds fewer than n entries */
export function growF64(a: Float64Array, n: number): Float64Array {
  if (a.length >= n) return a;
  const b = new Float64Array(Math.max(n, 2 * a.length, 64));
  b.set(a);
  return b;
}

export class PackedSapProblem {
  /** time step [s] */
  dt = 0;
  /** free-motion velocities of all cliques, concatenated (may be a subarray view) */
  v_star: Float64Array = new Float64Array(0);

  nCliques = 0;
  cliqueNv: Int32Array = new Int32Array(0);
  /** (nCliques + 1) first velocity of each clique */
  cliqueOff: Int32Array = new Int32Array(1);
  /** per clique: nv×nv row-major A (referenced, not copied) */
  cliqueA: Float64Array[] = [];

  nCon = 0;
  kind: Uint8Array = new Uint8Array(0);
  rows: Int32Array = new Int32Array(0);
  /** (nCon + 1) */
  blkStart: Int32Array = new Int32Array(1);
  nBlk = 0;
  blkClique: Int32Array = new Int32Array(0);
  blkJ: Int32Array = new Int32Array(0);
  nJ = 0;
  jData: Float64Array = new Float64Array(0);
  phys: Float64Array = new Float64Array(0);

  /** empties the problem (storage is kept) */
  reset(dt: number): void {
    this.dt = dt;
    this.nCliques = 0;
    this.cliqueOff[0] = 0;
    this.nCon = 0;
    this.blkStart[0] = 0;
    this.nBlk = 0;
    this.nJ = 0;
  }

  /** appends a clique with its dynamics matrix (referenced); returns its index */
  addClique(nv: number, A: Float64Array): number {
    const c = this.nCliques++;
    this.cliqueNv = growI32(this.cliqueNv, c + 1);
    this.cliqueOff = growI32(this.cliqueOff, c + 2);
    this.cliqueNv[c] = nv;
    this.cliqueOff[c + 1] = this.cliqueOff[c] + nv;
    this.cliqueA[c] = A;
    return c;
  }

  /** total velocities of the cliques added so far */
  get nv(): number {
    return this.cliqueOff[this.nCliques];
  }

  /**
   * Starts constraint i = nCon of `kind` with `rows` rows; its physical record is set to NaN.
   * Add its blocks with {@link addBlock} before the next constraint.
   */
  beginConstraint(kind: SapKind, rows: number): number {
    const i = this.nCon++;
    this.kind = growU8(this.kind, i + 1);
    this.rows = growI32(this.rows, i + 1);
    this.blkStart = growI32(this.blkStart, i + 2);
    this.phys = growF64(this.phys, (i + 1) * PHYS_STRIDE);
    this.kind[i] = kind;
    this.rows[i] = rows;
    this.blkStart[i + 1] = this.nBlk;
    // (loops, not fill(): a builtin call costs more than a dozen stores)
    const P = this.phys;
    for (let k = i * PHYS_STRIDE; k < (i + 1) * PHYS_STRIDE; k++) P[k] = NaN;
    return i;
  }

  /**
   * Adds clique `c` to the last constraint and returns the offset of its rows×nv Jacobian block in
   * {@link jData} (zeroed when new). A clique already in the constraint returns its existing block,
   * so callers accumulate with `+=`.
   */
  addBlock(c: number): number {
    const i = this.nCon - 1;
    for (let b = this.blkStart[i]; b < this.nBlk; b++) if (this.blkClique[b] === c) return this.blkJ[b];
    const b = this.nBlk++;
    this.blkClique = growI32(this.blkClique, b + 1);
    this.blkJ = growI32(this.blkJ, b + 1);
    const n = this.rows[i] * this.cliqueNv[c];
    this.jData = growF64(this.jData, this.nJ + n);
    this.blkClique[b] = c;
    this.blkJ[b] = this.nJ;
    const J = this.jData;
    for (let k = this.nJ; k < this.nJ + n; k++) J[k] = 0;
    this.nJ += n;
    this.blkStart[i + 1] = this.nBlk;
    return this.blkJ[b];
  }

  /** record offset of constraint i in {@link phys} */
  physOffset(i: number): number {
    return i * PHYS_STRIDE;
  }

  /**
   * Appends a contact between cliques c0 and c1 (−1 for none; equal cliques give one block).
   * Returns the constraint index; write the 3×nv blocks at `jData[blkJ[blkStart[i] + q]]`
   * (q = 0 for the first present clique). Optional numbers: NaN for the default.
   */
  addContact(
    c0: number,
    c1: number,
    mu: number,
    stiffness: number,
    tau_d: number,
    phi0: number,
    beta: number,
    sigma: number,
    w: number,
  ): number {
    const i = this.beginContact(c0, c1);
    const o = i * PHYS_STRIDE;
    const P = this.phys;
    P[o + ContactPhys.mu] = mu;
    P[o + ContactPhys.stiffness] = stiffness;
    P[o + ContactPhys.tau_d] = tau_d;
    P[o + ContactPhys.phi0] = phi0;
    P[o + ContactPhys.beta] = beta;
    P[o + ContactPhys.sigma] = sigma;
    P[o + ContactPhys.w] = w;
    return i;
  }

  /**
   * Appends a contact on cliques c0 / c1 (−1: none) whose physical inputs the caller writes into
   * {@link phys} at i·PHYS_STRIDE in {@link addContact}'s order (mu, stiffness, tau_d, phi0, beta,
   * sigma, w): the allocation-free form for hot loops (no double arguments to box). Returns i.
   */
  beginContact(c0: number, c1: number): number {
    const i = this.beginConstraint(SapKind.Contact, 3);
    if (c0 >= 0) this.addBlock(c0);
    if (c1 >= 0) this.addBlock(c1);
    return i;
  }

  /** appends a 1-dof limit (one row per finite side, lower first) on `dof` of clique `c` */
  addLimit(
    c: number,
    dof: number,
    q0: number,
    lower: number,
    upper: number,
    stiffness: number,
    tau_d: number,
    beta: number,
    w: number,
  ): number {
    const lo = Number.isFinite(lower);
    const hi = Number.isFinite(upper);
    const i = this.beginConstraint(SapKind.Limit, (lo ? 1 : 0) + (hi ? 1 : 0));
    const jo = this.addBlock(c);
    const n = this.cliqueNv[c];
    let r = 0;
    if (lo) this.jData[jo + r++ * n + dof] = 1;
    if (hi) this.jData[jo + r * n + dof] = -1;
    const o = i * PHYS_STRIDE;
    const P = this.phys;
    P[o + LimitPhys.dof] = dof;
    P[o + LimitPhys.q0] = q0;
    P[o + LimitPhys.lower] = lower;
    P[o + LimitPhys.upper] = upper;
    P[o + LimitPhys.stiffness] = stiffness;
    P[o + LimitPhys.tau_d] = tau_d;
    P[o + LimitPhys.beta] = beta;
    P[o + LimitPhys.w] = w;
    return i;
  }

  /** appends an implicit PD drive on `dof` of clique `c` */
  addPd(
    c: number,
    dof: number,
    q0: number,
    qd: number,
    vd: number,
    kp: number,
    kd: number,
    effort_limit: number,
    u0: number,
    w: number,
  ): number {
    const i = this.beginDofConstraint(SapKind.Pd, c, dof);
    const o = i * PHYS_STRIDE;
    const P = this.phys;
    P[o + PdPhys.dof] = dof;
    P[o + PdPhys.q0] = q0;
    P[o + PdPhys.qd] = qd;
    P[o + PdPhys.vd] = vd;
    P[o + PdPhys.kp] = kp;
    P[o + PdPhys.kd] = kd;
    P[o + PdPhys.effort_limit] = effort_limit;
    P[o + PdPhys.u0] = u0;
    P[o + PdPhys.w] = w;
    return i;
  }

  /** starts a one-row constraint of `kind` whose Jacobian is 1 on `dof` of clique `c`; returns its index */
  private beginDofConstraint(kind: SapKind, c: number, dof: number): number {
    const i = this.beginConstraint(kind, 1);
    const jo = this.addBlock(c);
    this.jData[jo + dof] = 1;
    return i;
  }

  /**
   * Appends dry friction of bound `friction` [N·m or N] on `dof` of clique `c` (Drake's
   * SapJointFrictionConstraint, regularization R = σ·w; σ NaN: the solver's joint_friction_sigma):
   * a kind of its own whose parameters are a PD record (see constraints/joint_friction.ts)
   */
  addJointFriction(c: number, dof: number, friction: number, sigma: number, w: number): number {
    const i = this.beginDofConstraint(SapKind.JointFriction, c, dof);
    const o = i * PHYS_STRIDE;
    const P = this.phys;
    P[o + JointFrictionPhys.dof] = dof;
    P[o + JointFrictionPhys.friction] = friction;
    P[o + JointFrictionPhys.sigma] = sigma;
    P[o + JointFrictionPhys.w] = w;
    return i;
  }

  /**
   * Starts a holonomic constraint of g0.length rows (≤ 6); add its cliques with {@link addBlock}
   * and accumulate their Jacobian blocks.
   */
  addHolonomic(g0: ArrayLike<number>, stiffness: number, tau_d: number, beta: number, w: number): number {
    const i = this.beginConstraint(SapKind.Holonomic, g0.length);
    const o = i * PHYS_STRIDE;
    const P = this.phys;
    P[o + HolonomicPhys.stiffness] = stiffness;
    P[o + HolonomicPhys.tau_d] = tau_d;
    P[o + HolonomicPhys.beta] = beta;
    P[o + HolonomicPhys.w] = w;
    for (let r = 0; r < g0.length; r++) P[o + HolonomicPhys.g0 + r] = g0[r];
    return i;
  }

  /**
   * Starts a tendon-limit constraint (one row per finite side, lower first). Add each joint of the
   * tendon with {@link addTendonEntry}.
   */
  beginTendon(
    l0: number,
    lower: number,
    upper: number,
    stiffness: number,
    tau_d: number,
    beta: number,
    w: number,
  ): number {
    const i = this.beginConstraint(
      SapKind.Tendon,
      (Number.isFinite(lower) ? 1 : 0) + (Number.isFinite(upper) ? 1 : 0),
    );
    const o = i * PHYS_STRIDE;
    const P = this.phys;
    P[o + TendonPhys.l0] = l0;
    P[o + TendonPhys.lower] = lower;
    P[o + TendonPhys.upper] = upper;
    P[o + TendonPhys.stiffness] = stiffness;
    P[o + TendonPhys.tau_d] = tau_d;
    P[o + TendonPhys.beta] = beta;
    P[o + TendonPhys.w] = w;
    return i;
  }

  /**
   * Adds ∂l/∂v_dof = `a` on `dof` of clique `c` to the last constraint (a tendon): +a on its lower
   * row, −a on its upper row; entries on one dof accumulate
   */
  addTendonEntry(c: number, dof: number, a: number): void {
    const i = this.nCon - 1;
    const jo = this.addBlock(c);
    const n = this.cliqueNv[c];
    const o = i * PHYS_STRIDE;
    let r = 0;
    if (Number.isFinite(this.phys[o + TendonPhys.lower])) this.jData[jo + r++ * n + dof] += a;
    if (Number.isFinite(this.phys[o + TendonPhys.upper])) this.jData[jo + r * n + dof] -= a;
  }

  /**
   * Appends a public constraint spec (not validated: see SapSolver.solve for that). Jacobian
   * blocks of a clique listed twice are summed.
   */
  addSpec(s: SapConstraintSpec): number {
    if (s.kind === 'contact' || s.kind === 'holonomic') {
      let i: number;
      if (s.kind === 'contact') {
        i = this.beginConstraint(SapKind.Contact, 3);
        const o = i * PHYS_STRIDE;
        const P = this.phys;
        P[o + ContactPhys.mu] = s.mu;
        P[o + ContactPhys.stiffness] = s.stiffness;
        P[o + ContactPhys.tau_d] = s.tau_d;
        P[o + ContactPhys.phi0] = s.phi0;
        P[o + ContactPhys.beta] = s.beta ?? NaN;
        P[o + ContactPhys.sigma] = s.sigma ?? NaN;
        P[o + ContactPhys.w] = s.w ?? NaN;
      } else {
        i = this.addHolonomic(s.g0, s.stiffness, s.tau_d, s.beta ?? NaN, s.w ?? NaN);
      }
      for (let q = 0; q < s.cliques.length; q++) {
        const jo = this.addBlock(s.cliques[q]);
        const Jq = s.J[q];
        for (let k = 0; k < Jq.length; k++) this.jData[jo + k] += Jq[k];
      }
      return i;
    }
    if (s.kind === 'tendon') {
      const i = this.beginTendon(s.l0, s.lower, s.upper, s.stiffness, s.tau_d, s.beta ?? NaN, s.w ?? NaN);
      // blocks in the listed order (a clique whose coefficients are all zero still takes part)
      for (let q = 0; q < s.cliques.length; q++) this.addBlock(s.cliques[q]);
      for (let q = 0; q < s.cliques.length; q++) {
        const aq = s.a[q];
        for (let d = 0; d < aq.length; d++) if (aq[d] !== 0) this.addTendonEntry(s.cliques[q], d, aq[d]);
      }
      return i;
    }
    if (s.kind === 'limit') {
      return this.addLimit(
        s.clique,
        s.dof,
        s.q0,
        s.lower,
        s.upper,
        s.stiffness,
        s.tau_d,
        s.beta ?? NaN,
        s.w ?? NaN,
      );
    }
    if (s.kind === 'joint_friction') {
      return this.addJointFriction(s.clique, s.dof, s.friction, s.sigma ?? NaN, s.w ?? NaN);
    }
    return this.addPd(s.clique, s.dof, s.q0, s.qd, s.vd, s.kp, s.kd, s.effort_limit, s.u0, s.w ?? NaN);
  }
}
