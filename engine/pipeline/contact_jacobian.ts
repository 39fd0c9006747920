/**
 * Contact Jacobians and weights (SPEC §3.3, §3.5): one SAP contact constraint per contact.
 *
 * witness_point: J v = R_WCᵀ[V₁(x₁) − V₀(x₀)]; contact_midpoint: both velocities at
 * p_C = α₀x₀ + α₁x₁ with α₀ = k₀/(k₀+k₁) (½ if the sum is 0). Rows (t1, t2, n), n from body 0 into
 * body 1, split into one 3×nv block per participating tree (clique). Weights: body_inertia
 * w = max(⅓ Σ_c Σ_b ω_b(c), 1e-12), ω_b(c) = 1/m_b + uᵀI_b⁻¹u with u = R_bᵀ((x_b − o_b) × c);
 * diag_delassus w = max(‖Σ J diag(A)⁻¹ Jᵀ‖_F / 3, 1e-12). sap_contact_weight_precision 'fp32'
 * rounds every operation of the weight with Math.fround.
 */
import { ContactSlip, type SapContacts } from '../collision/contacts';
import { transformPoint } from '../math';
import type { KinematicsData } from '../kinematics';
import type { SapModel } from '../model';
import { ContactPhys, PHYS_STRIDE, type PackedSapProblem } from '../sap/packed_problem';
import type { SapConstraintSpec } from '../sap/problem';
import type { SapSolverOptions } from '../sap/options';
import { diagDelassusWeight } from '../sap/solver';
import { contactFrame } from './contact_frame';

/** per-model data the contact stage needs */
export interface ContactStageData {
  /** (body_count × 9) inverse body-frame inertia about the COM */
  inv_inertia: Float64Array;
}

export function makeContactStageData(m: SapModel): ContactStageData {
  const inv = new Float64Array(m.body_count * 9);
  for (let b = 0; b < m.body_count; b++) {
    const I = m.body_inertia.subarray(b * 9, b * 9 + 9);
    const a = I[0],
      bb = I[1],
      c = I[2],
      d = I[3],
      e = I[4],
      f = I[5],
      g = I[6],
      h = I[7],
      i = I[8];
    const A = e * i - f * h,
      B = -(d * i - f * g),
      C = d * h - e * g;
    const det = a * A + bb * B + c * C;
    if (!(Math.abs(det) > 0)) continue; // massless: zero inverse
    const s = 1 / det;
    inv.set(
      [
        A * s,
        -(bb * i - c * h) * s,
        (bb * f - c * e) * s,
        B * s,
        (a * i - c * g) * s,
        -(a * f - c * d) * s,
        C * s,
        -(a * h - bb * g) * s,
        (a * e - bb * d) * s,
      ],
      b * 9,
    );
  }
  return { inv_inertia: inv };
}

/** where each contact constraint came from, for writing results back */
export interface ContactRecord {
  slot: number;
  /** R_WCᵀ rows (t1, t2, n) */
  frame: Float64Array;
  /** world point used by the Jacobian (p_C, or x₁ for witness_point) */
  point: Float64Array;
}

const x0 = new Float64Array(3);
const x1 = new Float64Array(3);
const pa = new Float64Array(3);
const pb = new Float64Array(3);

/** the tree (clique) of a body, or -1 when the body is static or its tree has no DOFs */
export function cliqueOfBody(m: SapModel, b: number): number {
  if (b < 0) return -1;
  const t = m.joint_tree[b];
  return m.tree_dof_start[t + 1] > m.tree_dof_start[t] ? t : -1;
}

/**
 * Appends one contact constraint per contact of world w to `out`. `kin` holds the boundary poses
 * (possibly rounded to fp32), `A_diag` the diagonal of A per DOF (for diag_delassus),
 * `cliqueIndex` maps a tree to its index in the world's problem.
 */
export function buildContactConstraints(
  m: SapModel,
  kin: KinematicsData,
  contacts: SapContacts,
  w: number,
  opts: SapSolverOptions,
  stage: ContactStageData,
  A_diag: Float64Array,
  cliqueIndex: Int32Array,
  out: SapConstraintSpec[],
  records: ContactRecord[],
): void {
  const n = contacts.count[w];
  const f32 = opts.sap_contact_weight_precision === 'fp32';
  for (let i = 0; i < n; i++) {
    const slot = w * contacts.capacity + i;
    const b0 = contacts.body0[slot],
      b1 = contacts.body1[slot];
    const t0 = cliqueOfBody(m, b0),
      t1 = cliqueOfBody(m, b1);
    if (t0 < 0 && t1 < 0) {
      contacts.slip_state[slot] = ContactSlip.OPEN;
      contacts.force.fill(0, slot * 3, slot * 3 + 3);
      continue;
    }
    worldWitnesses(kin, contacts, slot, b0, b1);
    const frame = new Float64Array(9);
    contactFrame(
      contacts.normal[slot * 3],
      contacts.normal[slot * 3 + 1],
      contacts.normal[slot * 3 + 2],
      frame,
    );
    // velocity points
    if (opts.contact_point_mode === 'contact_midpoint') {
      const k0 = contacts.ke0[slot],
        k1 = contacts.ke1[slot];
      const sum = k0 + k1;
      const a0 = sum > 0 && Number.isFinite(sum) ? k0 / sum : 0.5;
      for (let k = 0; k < 3; k++) pa[k] = pb[k] = a0 * x0[k] + (1 - a0) * x1[k];
    } else {
      pa.set(x0);
      pb.set(x1);
    }
    const cliques: number[] = [];
    const trees: number[] = [];
    const J: Float64Array[] = [];
    for (const t of t0 === t1 ? [t0] : [t0, t1]) {
      if (t < 0) continue;
      const dof0 = m.tree_dof_start[t];
      const nv = m.tree_dof_start[t + 1] - dof0;
      const Jc = new Float64Array(3 * nv);
      if (cliqueOfBody(m, b1) === t) accumulatePointJacobian(m, kin, b1, pb, frame, dof0, nv, +1, Jc);
      if (cliqueOfBody(m, b0) === t) accumulatePointJacobian(m, kin, b0, pa, frame, dof0, nv, -1, Jc);
      cliques.push(cliqueIndex[t]);
      trees.push(t);
      J.push(Jc);
    }
    // weight
    let wgt: number;
    if (opts.contact_weight_mode === 'body_inertia') {
      let s = 0;
      if (t0 >= 0) s = rd(s + bodyMobility(m, kin, stage, b0, x0, frame, f32), f32);
      if (t1 >= 0) s = rd(s + bodyMobility(m, kin, stage, b1, x1, frame, f32), f32);
      wgt = Math.max(rd(s / 3, f32), 1e-12);
    } else {
      // W = Σ_c J_c diag(A_c)⁻¹ J_cᵀ (3×3), w = ‖W‖_F / 3
      wgt = diagDelassusWeight(
        J.map((Jc, c) => {
          const dof0 = m.tree_dof_start[trees[c]];
          const nv = m.tree_dof_start[trees[c] + 1] - dof0;
          return { J: Jc, A: diagonalMatrix(A_diag, dof0, nv), nv };
        }),
        3,
        f32 ? Math.fround : undefined,
      );
    }
    out.push({
      kind: 'contact',
      cliques,
      J,
      mu: contacts.mu[slot],
      stiffness: contacts.ke[slot],
      tau_d: contacts.tau[slot],
      phi0: contacts.phi0[slot],
      beta: opts.contact_beta,
      sigma: opts.contact_sigma,
      w: wgt,
    });
    const point = new Float64Array(3);
    point.set(pb);
    records.push({ slot, frame, point });
  }
}

/** pooled records of the contact constraints of one world (see {@link ContactRecord}) */
export interface PackedContactRecords {
  count: number;
  /** contact buffer slot per constraint */
  slot: Int32Array;
  /** R_WCᵀ rows (t1, t2, n), 9 per constraint */
  frame: Float64Array;
  /** world point used by the Jacobian, 3 per constraint */
  point: Float64Array;
}

export function makePackedContactRecords(capacity = 16): PackedContactRecords {
  return {
    count: 0,
    slot: new Int32Array(capacity),
    frame: new Float64Array(9 * capacity),
    point: new Float64Array(3 * capacity),
  };
}

function growRecords(r: PackedContactRecords, n: number): void {
  if (r.slot.length >= n) return;
  const cap = Math.max(n, 2 * r.slot.length);
  const slot = new Int32Array(cap);
  slot.set(r.slot);
  const frame = new Float64Array(9 * cap);
  frame.set(r.frame);
  const point = new Float64Array(3 * cap);
  point.set(r.point);
  r.slot = slot;
  r.frame = frame;
  r.point = point;
}

const frameScratch = new Float64Array(9);

/**
 * {@link buildContactConstraints} into pooled storage: one contact constraint per contact of world
 * w is appended to `pp` (Jacobian blocks written in place, no allocation) and its record to `rec`.
 * Same numbers as the spec path: for diag_delassus the weight is left to the solver (w = NaN),
 * which evaluates the same expression with the same operation order on the same A diagonal.
 */
export function packContactConstraints(
  m: SapModel,
  kin: KinematicsData,
  contacts: SapContacts,
  w: number,
  opts: SapSolverOptions,
  stage: ContactStageData,
  cliqueIndex: Int32Array,
  pp: PackedSapProblem,
  rec: PackedContactRecords,
): void {
  const n = contacts.count[w];
  const f32 = opts.sap_contact_weight_precision === 'fp32';
  const midpoint = opts.contact_point_mode === 'contact_midpoint';
  const bodyInertia = opts.contact_weight_mode === 'body_inertia';
  rec.count = 0;
  growRecords(rec, n);
  const frame = frameScratch;
  for (let i = 0; i < n; i++) {
    const slot = w * contacts.capacity + i;
    const b0 = contacts.body0[slot],
      b1 = contacts.body1[slot];
    const t0 = cliqueOfBody(m, b0),
      t1 = cliqueOfBody(m, b1);
    if (t0 < 0 && t1 < 0) {
      contacts.slip_state[slot] = ContactSlip.OPEN;
      contacts.force.fill(0, slot * 3, slot * 3 + 3);
      continue;
    }
    worldWitnesses(kin, contacts, slot, b0, b1);
    contactFrame(
      contacts.normal[slot * 3],
      contacts.normal[slot * 3 + 1],
      contacts.normal[slot * 3 + 2],
      frame,
    );
    if (midpoint) {
      const k0 = contacts.ke0[slot],
        k1 = contacts.ke1[slot];
      const sum = k0 + k1;
      const a0 = sum > 0 && Number.isFinite(sum) ? k0 / sum : 0.5;
      for (let k = 0; k < 3; k++) pa[k] = pb[k] = a0 * x0[k] + (1 - a0) * x1[k];
    } else {
      pa[0] = x0[0];
      pa[1] = x0[1];
      pa[2] = x0[2];
      pb[0] = x1[0];
      pb[1] = x1[1];
      pb[2] = x1[2];
    }
    let wgt = NaN;
    if (bodyInertia) {
      let s = 0;
      if (t0 >= 0) s = rd(s + bodyMobility(m, kin, stage, b0, x0, frame, f32), f32);
      if (t1 >= 0) s = rd(s + bodyMobility(m, kin, stage, b1, x1, frame, f32), f32);
      wgt = Math.max(rd(s / 3, f32), 1e-12);
    }
    const c0 = t0 >= 0 ? cliqueIndex[t0] : -1;
    const c1 = t1 >= 0 && t1 !== t0 ? cliqueIndex[t1] : -1;
    const ci = pp.beginContact(c0, c1);
    const P = pp.phys;
    const po = ci * PHYS_STRIDE;
    P[po + ContactPhys.mu] = contacts.mu[slot];
    P[po + ContactPhys.stiffness] = contacts.ke[slot];
    P[po + ContactPhys.tau_d] = contacts.tau[slot];
    P[po + ContactPhys.phi0] = contacts.phi0[slot];
    P[po + ContactPhys.beta] = opts.contact_beta;
    P[po + ContactPhys.sigma] = opts.contact_sigma;
    P[po + ContactPhys.w] = wgt;
    let blk = pp.blkStart[ci];
    for (let q = 0; q < 2; q++) {
      const t = q === 0 ? t0 : t1;
      if (t < 0 || (q === 1 && t1 === t0)) continue;
      const dof0 = m.tree_dof_start[t];
      const nv = m.tree_dof_start[t + 1] - dof0;
      const jo = pp.blkJ[blk++];
      if (t1 === t) accumulatePointJacobian(m, kin, b1, pb, frame, dof0, nv, +1, pp.jData, jo);
      if (t0 === t) accumulatePointJacobian(m, kin, b0, pa, frame, dof0, nv, -1, pp.jData, jo);
    }
    const k = rec.count++;
    rec.slot[k] = slot;
    const rf = rec.frame,
      f9 = 9 * k;
    rf[f9] = frame[0];
    rf[f9 + 1] = frame[1];
    rf[f9 + 2] = frame[2];
    rf[f9 + 3] = frame[3];
    rf[f9 + 4] = frame[4];
    rf[f9 + 5] = frame[5];
    rf[f9 + 6] = frame[6];
    rf[f9 + 7] = frame[7];
    rf[f9 + 8] = frame[8];
    const rp = rec.point,
      p3 = 3 * k;
    rp[p3] = pb[0];
    rp[p3 + 1] = pb[1];
    rp[p3 + 2] = pb[2];
  }
}

/**
 * Adds sign · R_WCᵀ J_v(x) for body b into the 3 × nv row-major block of J at offset jo
 * (clique-local columns): the linear velocity of the world point x moving with b is
 * Σ_d (s_v + s_ω × x)·q̇_d over the DOFs on b's path to the root.
 */
export function accumulatePointJacobian(
  m: SapModel,
  kin: KinematicsData,
  b: number,
  x: Float64Array,
  frame: Float64Array,
  dof0: number,
  nv: number,
  sign: number,
  J: Float64Array,
  jo = 0,
): void {
  const S = kin.dof_S;
  const f0 = frame[0],
    f1 = frame[1],
    f2 = frame[2],
    f3 = frame[3],
    f4 = frame[4],
    f5 = frame[5],
    f6 = frame[6],
    f7 = frame[7],
    f8 = frame[8];
  for (let a = b; a >= 0; a = m.joint_parent[a]) {
    for (let d = m.joint_qd_start[a]; d < m.joint_qd_start[a + 1]; d++) {
      const s = d * 6;
      const vx = S[s + 3] + S[s + 1] * x[2] - S[s + 2] * x[1];
      const vy = S[s + 4] + S[s + 2] * x[0] - S[s] * x[2];
      const vz = S[s + 5] + S[s] * x[1] - S[s + 1] * x[0];
      const col = jo + d - dof0;
      J[col] += sign * (f0 * vx + f1 * vy + f2 * vz);
      J[nv + col] += sign * (f3 * vx + f4 * vy + f5 * vz);
      J[2 * nv + col] += sign * (f6 * vx + f7 * vy + f8 * vz);
    }
  }
}

/** x0, x1 ← the contact's witness points in world (static bodies store them in world already) */
function worldWitnesses(
  kin: KinematicsData,
  contacts: SapContacts,
  slot: number,
  b0: number,
  b1: number,
): void {
  if (b0 >= 0) transformPoint(kin.body_X, b0 * 7, contacts.point0, slot * 3, x0, 0);
  else for (let k = 0; k < 3; k++) x0[k] = contacts.point0[slot * 3 + k];
  if (b1 >= 0) transformPoint(kin.body_X, b1 * 7, contacts.point1, slot * 3, x1, 0);
  else for (let k = 0; k < 3; k++) x1[k] = contacts.point1[slot * 3 + k];
}

/**
 * x rounded to binary32 when `f32` (a flag, not a rounding function as a parameter: a call through
 * a function value that sees both Math.fround and the identity, as when approx32 and approx64 run
 * in one process, is not inlined and costs the weight ~12×)
 */
function rd(x: number, f32: boolean): number {
  return f32 ? Math.fround(x) : x;
}

/** an nv×nv diagonal matrix holding d[o..o+nv) (diagDelassusWeight reads only the diagonal) */
function diagonalMatrix(d: Float64Array, o: number, nv: number): Float64Array {
  const A = new Float64Array(nv * nv);
  for (let k = 0; k < nv; k++) A[k * nv + k] = d[o + k];
  return A;
}

/** Σ over the frame's three directions c of ω_b(c) = 1/m + uᵀI⁻¹u, u = R_bᵀ((x − o_b) × c) */
function bodyMobility(
  m: SapModel,
  kin: KinematicsData,
  stage: ContactStageData,
  b: number,
  x: Float64Array,
  frame: Float64Array,
  f32: boolean,
): number {
  const mass = m.body_mass[b];
  const invm = mass > 0 ? rd(1 / mass, f32) : 0;
  const R = kin.body_R,
    ro = b * 9;
  const Ii = stage.inv_inertia,
    io = b * 9;
  const dx = rd(x[0] - kin.body_com_w[b * 3], f32),
    dy = rd(x[1] - kin.body_com_w[b * 3 + 1], f32),
    dz = rd(x[2] - kin.body_com_w[b * 3 + 2], f32);
  let total = 0;
  for (let c = 0; c < 3; c++) {
    const cx = frame[c * 3],
      cy = frame[c * 3 + 1],
      cz = frame[c * 3 + 2];
    // (x − o) × c, world
    const ex = rd(rd(dy * cz, f32) - rd(dz * cy, f32), f32),
      ey = rd(rd(dz * cx, f32) - rd(dx * cz, f32), f32),
      ez = rd(rd(dx * cy, f32) - rd(dy * cx, f32), f32);
    // u = Rᵀ e
    const ux = rd(rd(rd(R[ro] * ex, f32) + rd(R[ro + 3] * ey, f32), f32) + rd(R[ro + 6] * ez, f32), f32);
    const uy = rd(rd(rd(R[ro + 1] * ex, f32) + rd(R[ro + 4] * ey, f32), f32) + rd(R[ro + 7] * ez, f32), f32);
    const uz = rd(rd(rd(R[ro + 2] * ex, f32) + rd(R[ro + 5] * ey, f32), f32) + rd(R[ro + 8] * ez, f32), f32);
    const qx = rd(rd(rd(Ii[io] * ux, f32) + rd(Ii[io + 1] * uy, f32), f32) + rd(Ii[io + 2] * uz, f32), f32);
    const qy = rd(
      rd(rd(Ii[io + 3] * ux, f32) + rd(Ii[io + 4] * uy, f32), f32) + rd(Ii[io + 5] * uz, f32),
      f32,
    );
    const qz = rd(
      rd(rd(Ii[io + 6] * ux, f32) + rd(Ii[io + 7] * uy, f32), f32) + rd(Ii[io + 8] * uz, f32),
      f32,
    );
    total = rd(
      total + rd(invm + rd(rd(rd(ux * qx, f32) + rd(uy * qy, f32), f32) + rd(uz * qz, f32), f32), f32),
      f32,
    );
  }
  return total;
}

/** adds sign · ω-rows of body b (world) into the 3 × nv block of J at offset jo: ω_b = Σ_d s_ω,d·q̇_d over b's path */
export function accumulateAngularJacobian(
  m: SapModel,
  kin: KinematicsData,
  b: number,
  dof0: number,
  nv: number,
  sign: number,
  J: Float64Array,
  jo = 0,
): void {
  const S = kin.dof_S;
  for (let a = b; a >= 0; a = m.joint_parent[a]) {
    for (let d = m.joint_qd_start[a]; d < m.joint_qd_start[a + 1]; d++) {
      const col = jo + d - dof0;
      for (let row = 0; row < 3; row++) J[row * nv + col] += sign * S[d * 6 + row];
    }
  }
}
