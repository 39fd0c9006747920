/**
 * Mass matrix by the composite-rigid-body algorithm in world Plücker coordinates.
 *
 * A body's spatial inertia about the world origin is carried by 10 numbers: mass m, first moment
 * h = m·c and the 3×3 rotational inertia about the origin I₀ = I_c + m([c]×[c]×ᵀ). Applied to a
 * twist (ω; v₀): I·V = (I₀ω + h × v₀; m·v₀ − h × ω). Composites are plain sums.
 * M[i][j] = S_iᵀ · (Iᶜ_{body(j)} · S_j) for DOF i on the path from body(j) to its root.
 */
import { zeroRun } from '../math';
import { publicDofIndex, type KinematicsData } from '../kinematics';
import { JointType, type SapModel } from '../model';

/** (body_count × 13) composite inertia scratch: m, h(3), I₀(9) */
export function makeCompositeScratch(m: SapModel): Float64Array {
  return new Float64Array(m.body_count * 13);
}

/** writes the 10-parameter spatial inertia about the origin of body b into out[o..o+13) */
export function bodySpatialInertia(
  m: SapModel,
  d: KinematicsData,
  b: number,
  out: Float64Array,
  o: number,
): void {
  const mass = m.body_mass[b];
  const cx = d.body_com_w[b * 3],
    cy = d.body_com_w[b * 3 + 1],
    cz = d.body_com_w[b * 3 + 2];
  out[o] = mass;
  out[o + 1] = mass * cx;
  out[o + 2] = mass * cy;
  out[o + 3] = mass * cz;
  const I = d.body_I_w,
    r = b * 9;
  const cc = cx * cx + cy * cy + cz * cz;
  // I₀ = I_c + m(|c|²·1 − c·cᵀ)
  out[o + 4] = I[r] + mass * (cc - cx * cx);
  out[o + 5] = I[r + 1] - mass * cx * cy;
  out[o + 6] = I[r + 2] - mass * cx * cz;
  out[o + 7] = I[r + 3] - mass * cy * cx;
  out[o + 8] = I[r + 4] + mass * (cc - cy * cy);
  out[o + 9] = I[r + 5] - mass * cy * cz;
  out[o + 10] = I[r + 6] - mass * cz * cx;
  out[o + 11] = I[r + 7] - mass * cz * cy;
  out[o + 12] = I[r + 8] + mass * (cc - cz * cz);
}

/** out = I·V for a 13-number spatial inertia at io and a twist at vo */
export function inertiaTimesTwist(
  I: Float64Array,
  io: number,
  V: Float64Array,
  vo: number,
  out: Float64Array,
  oo: number,
): void {
  const mass = I[io],
    hx = I[io + 1],
    hy = I[io + 2],
    hz = I[io + 3];
  const wx = V[vo],
    wy = V[vo + 1],
    wz = V[vo + 2];
  const vx = V[vo + 3],
    vy = V[vo + 4],
    vz = V[vo + 5];
  out[oo] = I[io + 4] * wx + I[io + 5] * wy + I[io + 6] * wz + (hy * vz - hz * vy);
  out[oo + 1] = I[io + 7] * wx + I[io + 8] * wy + I[io + 9] * wz + (hz * vx - hx * vz);
  out[oo + 2] = I[io + 10] * wx + I[io + 11] * wy + I[io + 12] * wz + (hx * vy - hy * vx);
  out[oo + 3] = mass * vx - (hy * wz - hz * wy);
  out[oo + 4] = mass * vy - (hz * wx - hx * wz);
  out[oo + 5] = mass * vz - (hx * wy - hy * wx);
}

const F = new Float64Array(6);

/**
 * Mass matrix of tree t (nv_t × nv_t, row-major, internal DOF order), including joint armature,
 * written into out starting at 0. Requires forwardKinematics for the tree.
 */
export function crbaTree(
  m: SapModel,
  d: KinematicsData,
  t: number,
  composite: Float64Array,
  out: Float64Array,
): void {
  const j0 = m.tree_joint_start[t],
    j1 = m.tree_joint_start[t + 1];
  const v0 = m.tree_dof_start[t];
  const nv = m.tree_dof_start[t + 1] - v0;
  zeroRun(out, 0, nv * nv);
  for (let b = j0; b < j1; b++) bodySpatialInertia(m, d, b, composite, b * 13);
  // accumulate composites leaves-first (children have larger indices than parents)
  const c = composite;
  for (let b = j1 - 1; b >= j0; b--) {
    const p = m.joint_parent[b];
    if (p < j0) continue;
    const po = p * 13;
    const bo = b * 13;
    c[po] += c[bo];
    c[po + 1] += c[bo + 1];
    c[po + 2] += c[bo + 2];
    c[po + 3] += c[bo + 3];
    c[po + 4] += c[bo + 4];
    c[po + 5] += c[bo + 5];
    c[po + 6] += c[bo + 6];
    c[po + 7] += c[bo + 7];
    c[po + 8] += c[bo + 8];
    c[po + 9] += c[bo + 9];
    c[po + 10] += c[bo + 10];
    c[po + 11] += c[bo + 11];
    c[po + 12] += c[bo + 12];
  }
  const S = d.dof_S;
  const parent = m.joint_parent;
  const jointType = m.joint_type;
  const qdStart = m.joint_qd_start;
  for (let b = j0; b < j1; b++) {
    for (let i = qdStart[b]; i < qdStart[b + 1]; i++) {
      inertiaTimesTwist(composite, b * 13, S, i * 6, F, 0);
      const f0 = F[0],
        f1 = F[1],
        f2 = F[2],
        f3 = F[3],
        f4 = F[4],
        f5 = F[5];
      // walk from this joint to the root, including the joint itself (its DOFs up to i)
      for (let a = b; a >= 0; a = parent[a]) {
        if (a !== b && jointType[a] === JointType.FREE) {
          // an ancestor free joint: its columns (e_k; p × e_k) and (0; e_k) times F without the
          // zero products (the sums of the general loop: terms with a zero factor add ±0)
          const k0 = qdStart[a];
          const s = k0 * 6;
          const r = (i - v0) * nv;
          const c = k0 - v0;
          const e0 = f0 + S[s + 4] * f4 + S[s + 5] * f5;
          const e1 = f1 + S[s + 9] * f3 + S[s + 11] * f5;
          const e2 = f2 + S[s + 15] * f3 + S[s + 16] * f4;
          out[r + c] = e0;
          out[r + c + 1] = e1;
          out[r + c + 2] = e2;
          out[r + c + 3] = f3;
          out[r + c + 4] = f4;
          out[r + c + 5] = f5;
          const t = i - v0;
          out[c * nv + t] = e0;
          out[(c + 1) * nv + t] = e1;
          out[(c + 2) * nv + t] = e2;
          out[(c + 3) * nv + t] = f3;
          out[(c + 4) * nv + t] = f4;
          out[(c + 5) * nv + t] = f5;
          continue;
        }
        const kEnd = a === b ? i + 1 : qdStart[a + 1];
        for (let k = qdStart[a]; k < kEnd; k++) {
          const s = k * 6;
          const val =
            S[s] * f0 + S[s + 1] * f1 + S[s + 2] * f2 + S[s + 3] * f3 + S[s + 4] * f4 + S[s + 5] * f5;
          const r = i - v0,
            c = k - v0;
          out[r * nv + c] = val;
          out[c * nv + r] = val;
        }
      }
    }
  }
  // armature on the diagonal
  for (let b = j0; b < j1; b++) {
    const s = m.joint_qd_start[b];
    for (let k = s; k < m.joint_qd_start[b + 1]; k++) {
      const r = k - v0;
      out[r * nv + r] += m.joint_armature[publicDofIndex(m, b, k - s)];
    }
  }
}
