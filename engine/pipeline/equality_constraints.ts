/**
 * Equality constraints as SAP holonomic constraints (drake_sap_notes §2.4, §2.6, §2.7):
 * - coupler: g = q₀ − ρ·q₁ − Δq, J = (+1 at dof₀, −ρ at dof₁) (URDF mimic, MJCF joint equality);
 * - ball: g = p_WQ − p_WP (world), J = J_v(B at Q) − J_v(A at P) (MJCF connect, loop closures);
 * - weld: g = (a, p_Q − p_T) with T = body0's anchor frame composed with the rest pose and a the
 *   angle-axis of R_TQ expressed in W; J = relative twist of B w.r.t. A at the midpoint M, [ω; v].
 * All near-rigid by default (k = ∞, β = 0.1) unless the model gives a stiffness.
 */
import { len3, quatConj, quatMul, quatRotate, transformMul } from '../math';
import type { KinematicsData } from '../kinematics';
import { EqualityType, type SapModel } from '../model';
import { NEAR_RIGID_BETA } from '../sap/constraints/common';
import type { SapConstraintSpec } from '../sap/problem';
import { HolonomicPhys, PackedSapProblem, PHYS_STRIDE } from '../sap/packed_problem';
import { accumulateAngularJacobian, accumulatePointJacobian, cliqueOfBody } from './contact_jacobian';

const WORLD_FRAME = Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]);
const fP = new Float64Array(7);
const fQ = new Float64Array(7);
const fT = new Float64Array(7);
const anchor = new Float64Array(7);
const dq = new Float64Array(4);
const aT = new Float64Array(3);
const mid = new Float64Array(3);
// g₀ of a coupler, a ball and a weld (addHolonomic takes the rows from the length)
const g1 = new Float64Array(1);
const g3 = new Float64Array(3);
const g6 = new Float64Array(6);

/** world pose of a body's anchor frame (body -1: the anchor is a world point) */
function anchorFrame(kin: KinematicsData, b: number, a: Float64Array, ao: number, out: Float64Array): void {
  const f = b < 0 ? out : anchor;
  f[0] = a[ao];
  f[1] = a[ao + 1];
  f[2] = a[ao + 2];
  f[3] = 0;
  f[4] = 0;
  f[5] = 0;
  f[6] = 1;
  if (b >= 0) transformMul(kin.body_X, b * 7, anchor, 0, out, 0);
}

/**
 * Appends the equality constraints of world w to `pp` (its cliques as `cliqueIndex` maps the trees),
 * allocation-free: g₀ and the Jacobian blocks are written into the packed problem directly.
 */
export function packEqualityConstraints(
  m: SapModel,
  kin: KinematicsData,
  q: Float64Array,
  w: number,
  cliqueIndex: Int32Array,
  pp: PackedSapProblem,
): void {
  for (let e = 0; e < m.eq_count; e++) {
    if (m.eq_world[e] !== w) continue;
    const type = m.eq_type[e];
    const stiffness = m.eq_stiffness[e];
    const tau_d = m.eq_tau[e];
    if (type === EqualityType.COUPLER) {
      const j0 = m.eq_joint0[e],
        j1 = m.eq_joint1[e];
      const t0 = m.joint_tree[j0],
        t1 = m.joint_tree[j1];
      const has0 = m.tree_dof_start[t0 + 1] > m.tree_dof_start[t0];
      const has1 = m.tree_dof_start[t1 + 1] > m.tree_dof_start[t1];
      if (!has0 && !has1) continue;
      const ratio = m.eq_ratio[e];
      g1[0] = q[m.joint_q_start[j0]] - ratio * q[m.joint_q_start[j1]] - m.eq_offset[e];
      pp.addHolonomic(g1, stiffness, tau_d, NEAR_RIGID_BETA, NaN);
      // J = +1 at dof₀, −ρ at dof₁ (one block when both joints are in the same tree)
      if (has0) {
        const jo = pp.addBlock(cliqueIndex[t0]);
        pp.jData[jo + m.joint_qd_start[j0] - m.tree_dof_start[t0]] += 1;
      }
      if (has1) {
        const jo = pp.addBlock(cliqueIndex[t1]);
        pp.jData[jo + m.joint_qd_start[j1] - m.tree_dof_start[t1]] += -ratio;
      }
      continue;
    }
    const b0 = m.eq_body0[e],
      b1 = m.eq_body1[e];
    const t0 = cliqueOfBody(m, b0),
      t1 = cliqueOfBody(m, b1);
    if (t0 < 0 && t1 < 0) continue;
    anchorFrame(kin, b0, m.eq_anchor0, e * 3, fP);
    anchorFrame(kin, b1, m.eq_anchor1, e * 3, fQ);
    const ball = type === EqualityType.BALL;
    let g0: Float64Array;
    if (ball) {
      g0 = g3;
      for (let k = 0; k < 3; k++) g0[k] = fQ[k] - fP[k];
    } else {
      g0 = g6;
      // target frame T = P ∘ relpose; orientation error R_TQ as an angle-axis, in world
      transformMul(fP, 0, m.eq_relpose, e * 7, fT, 0);
      quatConj(fT, 3, dq, 0);
      quatMul(dq, 0, fQ, 3, dq, 0);
      if (dq[3] < 0) for (let k = 0; k < 4; k++) dq[k] = -dq[k];
      const s = len3(dq[0], dq[1], dq[2]);
      const angle = 2 * Math.atan2(s, dq[3]);
      const scale = s > 1e-12 ? angle / s : 2;
      aT[0] = dq[0] * scale;
      aT[1] = dq[1] * scale;
      aT[2] = dq[2] * scale;
      quatRotate(fT, 3, aT, 0, g0, 0);
      for (let k = 0; k < 3; k++) {
        g0[3 + k] = fQ[k] - fT[k];
        mid[k] = 0.5 * (fQ[k] + fT[k]);
      }
    }
    pp.addHolonomic(g0, stiffness, tau_d, NEAR_RIGID_BETA, NaN);
    // one block per tree (b0's first), each J_B − J_A of the bodies in it (a ball's points: the
    // anchors' positions, fP and fQ's first three entries)
    for (let q2 = 0; q2 < 2; q2++) {
      const t = q2 === 0 ? t0 : t1;
      if (t < 0 || (q2 === 1 && t1 === t0)) continue;
      const dof0 = m.tree_dof_start[t];
      const nv = m.tree_dof_start[t + 1] - dof0;
      const jo = pp.addBlock(cliqueIndex[t]);
      const J = pp.jData;
      if (ball) {
        if (t1 === t) accumulatePointJacobian(m, kin, b1, fQ, WORLD_FRAME, dof0, nv, +1, J, jo);
        if (t0 === t) accumulatePointJacobian(m, kin, b0, fP, WORLD_FRAME, dof0, nv, -1, J, jo);
      } else {
        if (t1 === t) {
          accumulateAngularJacobian(m, kin, b1, dof0, nv, +1, J, jo);
          accumulatePointJacobian(m, kin, b1, mid, WORLD_FRAME, dof0, nv, +1, J, jo + 3 * nv);
        }
        if (t0 === t) {
          accumulateAngularJacobian(m, kin, b0, dof0, nv, -1, J, jo);
          accumulatePointJacobian(m, kin, b0, mid, WORLD_FRAME, dof0, nv, -1, J, jo + 3 * nv);
        }
      }
    }
  }
}

const scratch = new PackedSapProblem();

/**
 * The equality constraints of world w as public constraint specs (the reference solver's form, for
 * the CPU twin): {@link packEqualityConstraints} into a scratch problem, read back.
 */
export function buildEqualityConstraints(
  m: SapModel,
  kin: KinematicsData,
  q: Float64Array,
  w: number,
  cliqueIndex: Int32Array,
  out: SapConstraintSpec[],
): void {
  // the world's cliques (index → nv) as cliqueIndex numbers them
  let nCl = 0;
  for (let t = 0; t < m.tree_count; t++) nCl = Math.max(nCl, cliqueIndex[t] + 1);
  const nv = new Int32Array(nCl);
  for (let t = 0; t < m.tree_count; t++)
    if (cliqueIndex[t] >= 0) nv[cliqueIndex[t]] = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
  scratch.reset(0);
  for (let c = 0; c < nCl; c++) scratch.addClique(nv[c], new Float64Array(0));
  packEqualityConstraints(m, kin, q, w, cliqueIndex, scratch);
  const P = scratch.phys;
  for (let i = 0; i < scratch.nCon; i++) {
    const rows = scratch.rows[i];
    const o = i * PHYS_STRIDE;
    const cliques: number[] = [];
    const J: Float64Array[] = [];
    for (let b = scratch.blkStart[i]; b < scratch.blkStart[i + 1]; b++) {
      const c = scratch.blkClique[b];
      cliques.push(c);
      J.push(scratch.jData.slice(scratch.blkJ[b], scratch.blkJ[b] + rows * nv[c]));
    }
    out.push({
      kind: 'holonomic',
      cliques,
      J,
      g0: P.slice(o + HolonomicPhys.g0, o + HolonomicPhys.g0 + rows),
      stiffness: P[o + HolonomicPhys.stiffness],
      tau_d: P[o + HolonomicPhys.tau_d],
      beta: P[o + HolonomicPhys.beta],
    });
  }
}
