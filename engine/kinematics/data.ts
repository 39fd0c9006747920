/**
 * KinematicsData: per-step derived quantities (MuJoCo's "data"), sized once per model.
 *
 * Spatial vectors are world-frame Plücker coordinates referenced at the world origin, angular first:
 * a twist is (ω; v₀) with v₀ the velocity of the body point currently at the origin, and a wrench is
 * (n₀; f) with n₀ the moment about the origin. In this frame a motion subspace column or composite
 * inertia needs no transform between bodies, which keeps CRBA and RNEA short.
 */
import { transformInverse } from '../math';
import type { SapModel } from '../model';

export interface KinematicsData {
  /** (body_count × 7) world pose of each body frame */
  body_X: Float64Array;
  /** (body_count × 9) rotation matrix of each body frame, row-major */
  body_R: Float64Array;
  /** (body_count × 3) centre of mass, world [m] */
  body_com_w: Float64Array;
  /** (body_count × 9) rotational inertia about the COM, world frame [kg·m²] */
  body_I_w: Float64Array;
  /** (joint_count × 7) world pose of the parent-side joint frame F */
  joint_X_wF: Float64Array;
  /** (joint_count × 3) world position of the child-side joint frame origin M [m] */
  joint_anchor: Float64Array;
  /** (joint_dof_count × 6) motion subspace column S per DOF (internal ordering) */
  dof_S: Float64Array;
  /** (body_count × 6) spatial velocity (ω; v₀) */
  body_V: Float64Array;
  /** (body_count × 6) velocity-product acceleration Ṡ·q̇ of each body's joint */
  body_c: Float64Array;
  /** (joint_count × 7) X_c⁻¹ of each joint: a constant of the model, computed once */
  joint_X_c_inv: Float64Array;
  /** (joint_count) ‖axis‖ of each joint (1 if zero): a constant of the model, computed once */
  joint_axis_norm: Float64Array;
  /**
   * (body_count) 1 for a body with zero mass and zero inertia (the links between the joints of a
   * multi-joint MJCF body): a constant of the model; its Newton–Euler force is zero (rnea skips it)
   */
  body_massless: Uint8Array;
}

export function makeKinematicsData(m: SapModel): KinematicsData {
  const nb = m.body_count;
  const nj = m.joint_count;
  const Xinv = new Float64Array(nj * 7);
  const axisNorm = new Float64Array(nj);
  for (let j = 0; j < nj; j++) {
    transformInverse(m.joint_X_c, j * 7, Xinv, j * 7);
    axisNorm[j] = Math.hypot(m.joint_axis[j * 3], m.joint_axis[j * 3 + 1], m.joint_axis[j * 3 + 2]) || 1;
  }
  const massless = new Uint8Array(nb);
  for (let b = 0; b < nb; b++) {
    let zero = m.body_mass[b] === 0;
    for (let k = 0; k < 9 && zero; k++) zero = m.body_inertia[b * 9 + k] === 0;
    massless[b] = zero ? 1 : 0;
  }
  return {
    body_X: new Float64Array(nb * 7),
    body_R: new Float64Array(nb * 9),
    body_com_w: new Float64Array(nb * 3),
    body_I_w: new Float64Array(nb * 9),
    joint_X_wF: new Float64Array(nb * 7),
    joint_anchor: new Float64Array(nb * 3),
    dof_S: new Float64Array(m.joint_dof_count * 6),
    body_V: new Float64Array(nb * 6),
    body_c: new Float64Array(nb * 6),
    joint_X_c_inv: Xinv,
    joint_axis_norm: axisNorm,
    body_massless: massless,
  };
}
