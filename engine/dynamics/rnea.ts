/**
 * Inverse dynamics by the recursive Newton–Euler algorithm in world Plücker coordinates:
 * τ = M(q)·q̈ + C(q, q̇)·q̇ + g(q) − Jᵀf_ext, per tree, internal DOF order.
 *
 * Forward pass: V_b = V_p + S·q̇, A_b = A_p + S·q̈ + Ṡ·q̇ with A_root = (0; −g) (gravity as a fictitious
 * upward acceleration). Body force f_b = I·A_b + V_b ×* (I·V_b) − f_ext,b, where f_ext,b includes the
 * gravity compensation −gravcomp_b·m_b·g at the COM (with gravity only). Backward pass accumulates
 * children into parents and projects τ = Sᵀf.
 */
import type { KinematicsData } from '../kinematics';
import type { SapModel } from '../model';
import { bodySpatialInertia, inertiaTimesTwist } from './crba';

/** scratch for rnea: per-body accelerations, forces and inertias */
export interface RneaScratch {
  A: Float64Array;
  f: Float64Array;
  I: Float64Array;
}

export function makeRneaScratch(m: SapModel): RneaScratch {
  return {
    A: new Float64Array(m.body_count * 6),
    f: new Float64Array(m.body_count * 6),
    I: new Float64Array(13),
  };
}

const h = new Float64Array(6);
const IA = new Float64Array(6);

export interface RneaInputs {
  /** internal accelerations (joint_dof_count) or null for zero */
  qdd: Float64Array | null;
  /** include the velocity-product terms (needs forwardVelocity); false ⇒ q̇ = 0 */
  velocity: boolean;
  /** include gravity */
  gravity: boolean;
  /** (body_count × 6) public external wrenches [f; τ_C] (world), or null */
  body_f: Float64Array | null;
}

/**
 * Generalized forces for tree t written into tau (internal DOF order, global DOF indices).
 * Requires forwardKinematics (and forwardVelocity when `velocity`).
 */
export function rneaTree(
  m: SapModel,
  d: KinematicsData,
  t: number,
  inp: RneaInputs,
  s: RneaScratch,
  tau: Float64Array,
): void {
  const j0 = m.tree_joint_start[t],
    j1 = m.tree_joint_start[t + 1];
  const { A, f } = s;
  const S = d.dof_S,
    V = d.body_V,
    c = d.body_c;
  const gx = inp.gravity ? m.gravity[0] : 0,
    gy = inp.gravity ? m.gravity[1] : 0,
    gz = inp.gravity ? m.gravity[2] : 0;
  for (let b = j0; b < j1; b++) {
    const o = b * 6,
      p = m.joint_parent[b];
    // A_b = A_p + S q̈ + c
    if (p >= 0) {
      const po = p * 6;
      A[o] = A[po];
      A[o + 1] = A[po + 1];
      A[o + 2] = A[po + 2];
      A[o + 3] = A[po + 3];
      A[o + 4] = A[po + 4];
      A[o + 5] = A[po + 5];
    } else {
      A[o] = 0;
      A[o + 1] = 0;
      A[o + 2] = 0;
      A[o + 3] = -gx;
      A[o + 4] = -gy;
      A[o + 5] = -gz;
    }
    if (inp.qdd) {
      for (let i = m.joint_qd_start[b]; i < m.joint_qd_start[b + 1]; i++) {
        const a = inp.qdd[i];
        for (let k = 0; k < 6; k++) A[o + k] += S[i * 6 + k] * a;
      }
    }
    if (inp.velocity) {
      A[o] += c[o];
      A[o + 1] += c[o + 1];
      A[o + 2] += c[o + 2];
      A[o + 3] += c[o + 3];
      A[o + 4] += c[o + 4];
      A[o + 5] += c[o + 5];
    }
    // f_b = I A + V ×* (I V) − f_ext (a massless body: −f_ext)
    if (d.body_massless[b] === 1) f.fill(0, o, o + 6);
    else {
      bodySpatialInertia(m, d, b, s.I, 0);
      inertiaTimesTwist(s.I, 0, A, o, IA, 0);
      f[o] = IA[0];
      f[o + 1] = IA[1];
      f[o + 2] = IA[2];
      f[o + 3] = IA[3];
      f[o + 4] = IA[4];
      f[o + 5] = IA[5];
      if (inp.velocity) {
        inertiaTimesTwist(s.I, 0, V, o, h, 0);
        const wx = V[o],
          wy = V[o + 1],
          wz = V[o + 2];
        const ux = V[o + 3],
          uy = V[o + 4],
          uz = V[o + 5];
        // (w, u) ×* (n, l) = (w × n + u × l, w × l)
        f[o] += wy * h[2] - wz * h[1] + (uy * h[5] - uz * h[4]);
        f[o + 1] += wz * h[0] - wx * h[2] + (uz * h[3] - ux * h[5]);
        f[o + 2] += wx * h[1] - wy * h[0] + (ux * h[4] - uy * h[3]);
        f[o + 3] += wy * h[5] - wz * h[4];
        f[o + 4] += wz * h[3] - wx * h[5];
        f[o + 5] += wx * h[4] - wy * h[3];
      }
    }
    // external wrenches at the COM: the public wrench (f; τ_C) and the gravity compensation −gc·m·g
    const gc = inp.gravity ? m.body_gravcomp[b] : 0;
    const e = inp.body_f;
    if (gc !== 0 || e) {
      let fx = 0,
        fy = 0,
        fz = 0,
        tx = 0,
        ty = 0,
        tz = 0;
      if (e) {
        fx = e[o];
        fy = e[o + 1];
        fz = e[o + 2];
        tx = e[o + 3];
        ty = e[o + 4];
        tz = e[o + 5];
      }
      if (gc !== 0) {
        const mg = gc * m.body_mass[b];
        fx -= mg * gx;
        fy -= mg * gy;
        fz -= mg * gz;
      }
      // (f; τ_C) → spatial (τ_C + c × f; f)
      const cx = d.body_com_w[b * 3],
        cy = d.body_com_w[b * 3 + 1],
        cz = d.body_com_w[b * 3 + 2];
      f[o] -= tx + (cy * fz - cz * fy);
      f[o + 1] -= ty + (cz * fx - cx * fz);
      f[o + 2] -= tz + (cx * fy - cy * fx);
      f[o + 3] -= fx;
      f[o + 4] -= fy;
      f[o + 5] -= fz;
    }
  }
  // backward pass
  for (let b = j1 - 1; b >= j0; b--) {
    const o = b * 6;
    for (let i = m.joint_qd_start[b]; i < m.joint_qd_start[b + 1]; i++) {
      const si = i * 6;
      tau[i] =
        S[si] * f[o] +
        S[si + 1] * f[o + 1] +
        S[si + 2] * f[o + 2] +
        S[si + 3] * f[o + 3] +
        S[si + 4] * f[o + 4] +
        S[si + 5] * f[o + 5];
    }
    const p = m.joint_parent[b];
    if (p >= j0) {
      const po = p * 6;
      f[po] += f[o];
      f[po + 1] += f[o + 1];
      f[po + 2] += f[o + 2];
      f[po + 3] += f[o + 3];
      f[po + 4] += f[o + 4];
      f[po + 5] += f[o + 5];
    }
  }
}
