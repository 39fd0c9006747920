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
import type { SapConstraintSpec } from '../sap/problem';
import { accumulateAngularJacobian, accumulatePointJacobian, cliqueOfBody } from './contact_jacobian';

const WORLD_FRAME = Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]);
const fP = new Float64Array(7);
const fQ = new Float64Array(7);
const fT = new Float64Array(7);
const anchor = new Float64Array(7);
const dq = new Float64Array(4);
const mid = new Float64Array(3);
const pw = new Float64Array(3);
const qw = new Float64Array(3);

/** world pose of a body's anchor frame (body -1: the anchor is a world point) */
function anchorFrame(kin: KinematicsData, b: number, a: Float64Array, ao: number, out: Float64Array): void {
  anchor.set([a[ao], a[ao + 1], a[ao + 2], 0, 0, 0, 1]);
  if (b < 0) out.set(anchor);
  else transformMul(kin.body_X, b * 7, anchor, 0, out, 0);
}

/** appends the equality constraints of world w */
export function buildEqualityConstraints(
  m: SapModel,
  kin: KinematicsData,
  q: Float64Array,
  w: number,
  cliqueIndex: Int32Array,
  out: SapConstraintSpec[],
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
      const ratio = m.eq_ratio[e];
      const g = q[m.joint_q_start[j0]] - ratio * q[m.joint_q_start[j1]] - m.eq_offset[e];
      const cliques: number[] = [];
      const J: Float64Array[] = [];
      const add = (t: number, dof: number, value: number) => {
        const dof0 = m.tree_dof_start[t];
        const nv = m.tree_dof_start[t + 1] - dof0;
        if (nv === 0) return;
        const Jc = new Float64Array(nv);
        Jc[dof - dof0] = value;
        cliques.push(cliqueIndex[t]);
        J.push(Jc);
      };
      add(t0, m.joint_qd_start[j0], 1);
      add(t1, m.joint_qd_start[j1], -ratio);
      if (cliques.length)
        out.push({ kind: 'holonomic', cliques, J, g0: Float64Array.of(g), stiffness, tau_d, beta: 0.1 });
      continue;
    }
    const b0 = m.eq_body0[e],
      b1 = m.eq_body1[e];
    const t0 = cliqueOfBody(m, b0),
      t1 = cliqueOfBody(m, b1);
    if (t0 < 0 && t1 < 0) continue;
    anchorFrame(kin, b0, m.eq_anchor0, e * 3, fP);
    anchorFrame(kin, b1, m.eq_anchor1, e * 3, fQ);
    const rows = type === EqualityType.BALL ? 3 : 6;
    const g0 = new Float64Array(rows);
    const cliques: number[] = [];
    const J: Float64Array[] = [];
    const trees = t0 === t1 ? [t0] : [t0, t1];
    if (type === EqualityType.BALL) {
      for (let k = 0; k < 3; k++) g0[k] = fQ[k] - fP[k];
      pw.set(fP.subarray(0, 3));
      qw.set(fQ.subarray(0, 3));
      for (const t of trees) {
        if (t < 0) continue;
        const dof0 = m.tree_dof_start[t];
        const nv = m.tree_dof_start[t + 1] - dof0;
        const Jc = new Float64Array(rows * nv);
        if (cliqueOfBody(m, b1) === t) accumulatePointJacobian(m, kin, b1, qw, WORLD_FRAME, dof0, nv, +1, Jc);
        if (cliqueOfBody(m, b0) === t) accumulatePointJacobian(m, kin, b0, pw, WORLD_FRAME, dof0, nv, -1, Jc);
        cliques.push(cliqueIndex[t]);
        J.push(Jc);
      }
    } else {
      // target frame T = P ∘ relpose; orientation error R_TQ as an angle-axis, in world
      transformMul(fP, 0, m.eq_relpose, e * 7, fT, 0);
      quatConj(fT, 3, dq, 0);
      quatMul(dq, 0, fQ, 3, dq, 0);
      if (dq[3] < 0) for (let k = 0; k < 4; k++) dq[k] = -dq[k];
      const s = len3(dq[0], dq[1], dq[2]);
      const angle = 2 * Math.atan2(s, dq[3]);
      const scale = s > 1e-12 ? angle / s : 2;
      const aT = Float64Array.of(dq[0] * scale, dq[1] * scale, dq[2] * scale);
      quatRotate(fT, 3, aT, 0, g0, 0);
      for (let k = 0; k < 3; k++) {
        g0[3 + k] = fQ[k] - fT[k];
        mid[k] = 0.5 * (fQ[k] + fT[k]);
      }
      for (const t of trees) {
        if (t < 0) continue;
        const dof0 = m.tree_dof_start[t];
        const nv = m.tree_dof_start[t + 1] - dof0;
        const Jc = new Float64Array(rows * nv);
        if (cliqueOfBody(m, b1) === t) {
          accumulateAngularJacobian(m, kin, b1, dof0, nv, +1, Jc, 0);
          accumulatePointJacobian(m, kin, b1, mid, WORLD_FRAME, dof0, nv, +1, Jc, 3);
        }
        if (cliqueOfBody(m, b0) === t) {
          accumulateAngularJacobian(m, kin, b0, dof0, nv, -1, Jc, 0);
          accumulatePointJacobian(m, kin, b0, mid, WORLD_FRAME, dof0, nv, -1, Jc, 3);
        }
        cliques.push(cliqueIndex[t]);
        J.push(Jc);
      }
    }
    out.push({ kind: 'holonomic', cliques, J, g0, stiffness, tau_d, beta: 0.1 });
  }
}
