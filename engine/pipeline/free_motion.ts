/**
 * Free motion (SPEC §3.2 step 2): per tree, A = M(q) + dt·D and v* = v + dt·A⁻¹k with
 * k = τ_applied − (C(q,v)v + g(q) − Jᵀf_ext) − D·v (damping implicit through A; joint springs
 * explicit in τ_applied, see {@link appliedForces}).
 *
 * free_motion_solve_precision 'fp32': M and k are evaluated in fp64, stored as fp32
 * (cast₃₂), and the factorization, the solve and v* = v + dt·a are realized exactly in fp32.
 */
import { crbaTree, rneaTree, type RneaInputs, type RneaScratch } from '../dynamics';
import { forcePublicToInternal, publicDofIndex, type KinematicsData } from '../kinematics';
import { JointType, type SapModel } from '../model';
import { DenseCholesky } from '../sap/linalg/cholesky';
import type { Precision } from '../sap/options';
import { hasDrive } from './joint_constraints';

export interface FreeMotionScratch {
  composite: Float64Array;
  rnea: RneaScratch;
  /** (joint_dof_count) bias forces C·v + g − Jᵀf_ext, internal order */
  bias: Float64Array;
  chol64: DenseCholesky;
  chol32: DenseCholesky;
  rhs: Float64Array;
  /** the bias-force inputs (velocity and gravity terms, the step's external wrenches) */
  rneaInputs: RneaInputs;
}

/**
 * The internal generalized forces τ_applied of the free motion, all joints: the public `joint_f`
 * [N·m or N; free joints (f; τ_C)] in internal coordinates, except on PD-driven DOFs, whose
 * feed-forward joins the PD constraint and its effort limit, plus the passive joint springs
 * −k·(q − q_ref) of revolute and prismatic DOFs (explicit, like MuJoCo's joint stiffness). Needs
 * forward kinematics at `q` in `kin` (free-joint forces move to the joint frame origin).
 */
export function appliedForces(
  m: SapModel,
  kin: KinematicsData,
  q: Float64Array,
  joint_f: Float64Array,
  tau: Float64Array,
): void {
  forcePublicToInternal(m, kin, joint_f, tau);
  for (let j = 0; j < m.joint_count; j++) {
    const type = m.joint_type[j];
    if (type !== JointType.REVOLUTE && type !== JointType.PRISMATIC) continue;
    const d = m.joint_qd_start[j];
    if (hasDrive(m, d)) tau[d] = 0;
    const k = m.joint_stiffness[d];
    if (k !== 0) tau[d] -= k * (q[m.joint_q_start[j]] - m.joint_spring_ref[d]);
  }
}

/**
 * Writes A for tree t into `A` (nv_t² entries) and v* for its DOFs into `v_star` (global DOF
 * indices). `tau_applied` holds internal generalized forces (non-PD feed-forward). Returns false when
 * A is not positive definite (a massless or degenerate tree).
 */
export function freeMotionTree(
  m: SapModel,
  d: KinematicsData,
  t: number,
  dt: number,
  v: Float64Array,
  tau_applied: Float64Array,
  body_f: Float64Array | null,
  precision: Precision,
  s: FreeMotionScratch,
  A: Float64Array,
  v_star: Float64Array,
): boolean {
  const v0 = m.tree_dof_start[t];
  const nv = m.tree_dof_start[t + 1] - v0;
  if (nv === 0) return true;
  crbaTree(m, d, t, s.composite, A);
  const inputs = s.rneaInputs;
  inputs.body_f = body_f;
  rneaTree(m, d, t, inputs, s.rnea, s.bias);
  const rhs = s.rhs;
  for (let j = m.tree_joint_start[t]; j < m.tree_joint_start[t + 1]; j++) {
    const ds = m.joint_qd_start[j];
    for (let k = ds; k < m.joint_qd_start[j + 1]; k++) {
      const damping = m.joint_damping[publicDofIndex(m, j, k - ds)];
      const i = k - v0;
      A[i * nv + i] += dt * damping;
      rhs[i] = tau_applied[k] - s.bias[k] - damping * v[k];
    }
  }
  const chol = precision === 'fp32' ? s.chol32 : s.chol64;
  if (chol.factor(A, nv).status !== 'ok') return false;
  chol.solve(rhs, rhs);
  if (precision === 'fp32') {
    const fr = Math.fround;
    const h = fr(dt);
    for (let i = 0; i < nv; i++) v_star[v0 + i] = fr(fr(v[v0 + i]) + fr(h * rhs[i]));
  } else {
    for (let i = 0; i < nv; i++) v_star[v0 + i] = v[v0 + i] + dt * rhs[i];
  }
  return true;
}

export function makeFreeMotionScratch(
  m: SapModel,
  rnea: RneaScratch,
  composite: Float64Array,
): FreeMotionScratch {
  return {
    composite,
    rnea,
    bias: new Float64Array(m.joint_dof_count),
    chol64: new DenseCholesky('fp64'),
    chol32: new DenseCholesky('fp32'),
    rhs: new Float64Array(m.joint_dof_count),
    rneaInputs: { qdd: null, velocity: true, gravity: true, body_f: null },
  };
}
