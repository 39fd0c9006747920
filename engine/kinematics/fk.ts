/**
 * Forward kinematics: body poses, joint frames and motion subspaces from joint_q, then body twists
 * and velocity-product accelerations from internal joint velocities.
 *
 * Internal (solver) velocity coordinates per joint:
 * - revolute / prismatic: the scalar rate about / along the axis;
 * - ball: ω of M relative to F, expressed in F;
 * - free (parent must be the world): (ω in world; v_M = velocity of the child joint frame origin M in
 *   world). With identity joint frames M is the body origin: SAP Warp's angular-first, body-origin
 *   order. The public order (v_COM; ω) is converted by `velocityPublicToInternal` and its inverse.
 */
import { len4, quatMul, quatRotate, quatToMat3, rotateInertia, transformMul, transformPoint } from '../math';
import { JointType, type SapModel } from '../model';
import type { KinematicsData } from './data';

const tX = new Float64Array(7);
const tJ = new Float64Array(7);
const tR = new Float64Array(9);
const tv = new Float64Array(3);
const IDENTITY3 = new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]);

/**
 * Poses and motion subspaces for joints [j0, j1) (a world or all of them); parents must come before
 * children, which the model's ordering guarantees. Then COMs and, unless `withInertia` is false,
 * world inertias (body_I_w) of the bodies of those joints. With `only` (joint_count flags, closed
 * under parents: a flagged joint's parent is flagged) just the flagged joints and their bodies;
 * the others keep what they held.
 */
export function forwardKinematics(
  m: SapModel,
  q: Float64Array,
  d: KinematicsData,
  j0 = 0,
  j1 = m.joint_count,
  withInertia = true,
  only?: Uint8Array,
): void {
  const { body_X, body_R, joint_X_wF, joint_anchor, dof_S } = d;
  for (let j = j0; j < j1; j++) {
    if (only !== undefined && only[j] === 0) continue;
    const type = m.joint_type[j];
    if (type === JointType.REVOLUTE) {
      revoluteFrames(m, q, d, j);
      continue;
    }
    const qs = m.joint_q_start[j];
    jointFrameInWorld(m, d, j);
    // X_FM(q) (revolute joints: revoluteFrames)
    const ax = m.joint_axis[j * 3],
      ay = m.joint_axis[j * 3 + 1],
      az = m.joint_axis[j * 3 + 2];
    tJ[0] = 0;
    tJ[1] = 0;
    tJ[2] = 0;
    tJ[3] = 0;
    tJ[4] = 0;
    tJ[5] = 0;
    tJ[6] = 1;
    switch (type) {
      case JointType.PRISMATIC:
        tJ[0] = ax * q[qs];
        tJ[1] = ay * q[qs];
        tJ[2] = az * q[qs];
        break;
      case JointType.BALL:
        normalizedQuatInto(q, qs, tJ, 3);
        break;
      case JointType.FREE:
        tJ[0] = q[qs];
        tJ[1] = q[qs + 1];
        tJ[2] = q[qs + 2];
        normalizedQuatInto(q, qs + 3, tJ, 3);
        break;
    }
    // X_wM = X_wF · X_FM (a rotation about M keeps F's origin: only the quaternions multiply)
    if (type === JointType.BALL) {
      tX[0] = joint_X_wF[j * 7];
      tX[1] = joint_X_wF[j * 7 + 1];
      tX[2] = joint_X_wF[j * 7 + 2];
      quatMul(joint_X_wF, j * 7 + 3, tJ, 3, tX, 3);
    } else transformMul(joint_X_wF, j * 7, tJ, 0, tX, 0);
    joint_anchor[j * 3] = tX[0];
    joint_anchor[j * 3 + 1] = tX[1];
    joint_anchor[j * 3 + 2] = tX[2];
    bodyFrameFromJoint(d, j);

    // motion subspace columns in world Plücker coordinates
    const ds = m.joint_qd_start[j];
    switch (type) {
      case JointType.PRISMATIC: {
        tv[0] = ax;
        tv[1] = ay;
        tv[2] = az;
        quatRotate(joint_X_wF, j * 7 + 3, tv, 0, tv, 0);
        writeLinear(dof_S, ds, tv, 0, 1);
        break;
      }
      case JointType.BALL: {
        quatToMat3(joint_X_wF, j * 7 + 3, tR, 0);
        for (let k = 0; k < 3; k++) writeAngular(dof_S, ds + k, tR, k, 3, tX);
        break;
      }
      case JointType.FREE: {
        for (let k = 0; k < 3; k++) {
          writeAngular(dof_S, ds + k, IDENTITY3, k, 3, tX);
          writeLinear(dof_S, ds + 3 + k, IDENTITY3, k, 3);
        }
        break;
      }
    }
  }
  // com and world inertia
  for (let b = j0; b < j1; b++) {
    if (only !== undefined && only[b] === 0) continue;
    const o = b * 3;
    const c = m.body_com;
    const R = body_R;
    const r = b * 9;
    d.body_com_w[o] = body_X[b * 7] + R[r] * c[o] + R[r + 1] * c[o + 1] + R[r + 2] * c[o + 2];
    d.body_com_w[o + 1] = body_X[b * 7 + 1] + R[r + 3] * c[o] + R[r + 4] * c[o + 1] + R[r + 5] * c[o + 2];
    d.body_com_w[o + 2] = body_X[b * 7 + 2] + R[r + 6] * c[o] + R[r + 7] * c[o + 1] + R[r + 8] * c[o + 2];
    if (withInertia) rotateInertia(R, r, m.body_inertia, r, d.body_I_w, r);
  }
}

/**
 * {@link forwardKinematics} of one revolute joint: the hinge quaternion (the axis norm computed once),
 * q_M = q_F ⊗ q_J with M at F's origin, the body frame, and the motion subspace (a_w; M × a_w) with
 * a_w = R_F·a
 */
function revoluteFrames(m: SapModel, q: Float64Array, d: KinematicsData, j: number): void {
  const { joint_X_wF, joint_anchor } = d;
  const F = j * 7;
  jointFrameInWorld(m, d, j);
  const half = q[m.joint_q_start[j]] / 2;
  const sh = Math.sin(half) / d.joint_axis_norm[j];
  tJ[3] = m.joint_axis[j * 3] * sh;
  tJ[4] = m.joint_axis[j * 3 + 1] * sh;
  tJ[5] = m.joint_axis[j * 3 + 2] * sh;
  tJ[6] = Math.cos(half);
  tX[0] = joint_X_wF[F];
  tX[1] = joint_X_wF[F + 1];
  tX[2] = joint_X_wF[F + 2];
  quatMul(joint_X_wF, F + 3, tJ, 3, tX, 3);
  joint_anchor[j * 3] = tX[0];
  joint_anchor[j * 3 + 1] = tX[1];
  joint_anchor[j * 3 + 2] = tX[2];
  bodyFrameFromJoint(d, j);
  quatRotate(joint_X_wF, F + 3, m.joint_axis, j * 3, tv, 0);
  writeAngular(d.dof_S, m.joint_qd_start[j], tv, 0, 1, tX);
}

/** joint_X_wF of joint j = X_wP · X_p (X_p itself at the root) */
function jointFrameInWorld(m: SapModel, d: KinematicsData, j: number): void {
  const p = m.joint_parent[j];
  const F = j * 7;
  if (p < 0) for (let k = 0; k < 7; k++) d.joint_X_wF[F + k] = m.joint_X_p[F + k];
  else transformMul(d.body_X, p * 7, m.joint_X_p, F, d.joint_X_wF, F);
}

/**
 * body_X and body_R of joint j's body from X_wM in {@link tX}: X_wB = X_wM · X_c⁻¹, usually a pure
 * translation and often none (the body frame is the joint's)
 */
function bodyFrameFromJoint(d: KinematicsData, j: number): void {
  const c = d.joint_X_c_inv;
  const body_X = d.body_X;
  const C = j * 7;
  if (c[C + 3] === 0 && c[C + 4] === 0 && c[C + 5] === 0 && c[C + 6] === 1) {
    if (c[C] === 0 && c[C + 1] === 0 && c[C + 2] === 0) {
      body_X[C] = tX[0];
      body_X[C + 1] = tX[1];
      body_X[C + 2] = tX[2];
    } else transformPoint(tX, 0, c, C, body_X, C);
    body_X[C + 3] = tX[3];
    body_X[C + 4] = tX[4];
    body_X[C + 5] = tX[5];
    body_X[C + 6] = tX[6];
  } else transformMul(tX, 0, c, C, body_X, C);
  quatToMat3(body_X, C + 3, d.body_R, j * 9);
}

function normalizedQuatInto(q: Float64Array, o: number, out: Float64Array, oo: number): void {
  const n = len4(q[o], q[o + 1], q[o + 2], q[o + 3]) || 1;
  out[oo] = q[o] / n;
  out[oo + 1] = q[o + 1] / n;
  out[oo + 2] = q[o + 2] / n;
  out[oo + 3] = q[o + 3] / n;
}

/**
 * S = (a; p × a): rotation about the unit axis a = (A[ao], A[ao + st], A[ao + 2st]) through the
 * point p = P[0..3) (arrays, not numbers, as arguments: no boxed doubles per call)
 */
function writeAngular(
  S: Float64Array,
  dof: number,
  A: Float64Array,
  ao: number,
  st: number,
  P: Float64Array,
): void {
  const ax = A[ao],
    ay = A[ao + st],
    az = A[ao + 2 * st];
  const px = P[0],
    py = P[1],
    pz = P[2];
  const o = dof * 6;
  S[o] = ax;
  S[o + 1] = ay;
  S[o + 2] = az;
  S[o + 3] = py * az - pz * ay;
  S[o + 4] = pz * ax - px * az;
  S[o + 5] = px * ay - py * ax;
}

/** S = (0; a): translation along a = (A[ao], A[ao + st], A[ao + 2st]) */
function writeLinear(S: Float64Array, dof: number, A: Float64Array, ao: number, st: number): void {
  const o = dof * 6;
  S[o] = 0;
  S[o + 1] = 0;
  S[o + 2] = 0;
  S[o + 3] = A[ao];
  S[o + 4] = A[ao + st];
  S[o + 5] = A[ao + 2 * st];
}

/**
 * Body twists V and velocity-product accelerations c = Ṡ·q̇ for joints [j0, j1), from internal
 * velocities v. Requires forwardKinematics first.
 */
export function forwardVelocity(
  m: SapModel,
  v: Float64Array,
  d: KinematicsData,
  j0 = 0,
  j1 = m.joint_count,
): void {
  const { body_V, body_c, dof_S } = d;
  for (let j = j0; j < j1; j++) {
    const p = m.joint_parent[j];
    const o = j * 6;
    // joint twist Sq̇
    let w0 = 0,
      w1 = 0,
      w2 = 0,
      u0 = 0,
      u1 = 0,
      u2 = 0;
    for (let k = m.joint_qd_start[j]; k < m.joint_qd_start[j + 1]; k++) {
      const s = k * 6;
      const qd = v[k];
      w0 += dof_S[s] * qd;
      w1 += dof_S[s + 1] * qd;
      w2 += dof_S[s + 2] * qd;
      u0 += dof_S[s + 3] * qd;
      u1 += dof_S[s + 4] * qd;
      u2 += dof_S[s + 5] * qd;
    }
    const type = m.joint_type[j];
    if (type === JointType.FREE) {
      // c = (0; v_M × ω)
      const qs = m.joint_qd_start[j];
      const wx = v[qs],
        wy = v[qs + 1],
        wz = v[qs + 2];
      const vx = v[qs + 3],
        vy = v[qs + 4],
        vz = v[qs + 5];
      body_c[o] = 0;
      body_c[o + 1] = 0;
      body_c[o + 2] = 0;
      body_c[o + 3] = vy * wz - vz * wy;
      body_c[o + 4] = vz * wx - vx * wz;
      body_c[o + 5] = vx * wy - vy * wx;
    } else if (p >= 0) {
      // S is fixed in the parent: c = V_P ×m (Sq̇)
      const P = p * 6;
      const pw0 = body_V[P],
        pw1 = body_V[P + 1],
        pw2 = body_V[P + 2];
      const pu0 = body_V[P + 3],
        pu1 = body_V[P + 4],
        pu2 = body_V[P + 5];
      body_c[o] = pw1 * w2 - pw2 * w1;
      body_c[o + 1] = pw2 * w0 - pw0 * w2;
      body_c[o + 2] = pw0 * w1 - pw1 * w0;
      body_c[o + 3] = pw1 * u2 - pw2 * u1 + (pu1 * w2 - pu2 * w1);
      body_c[o + 4] = pw2 * u0 - pw0 * u2 + (pu2 * w0 - pu0 * w2);
      body_c[o + 5] = pw0 * u1 - pw1 * u0 + (pu0 * w1 - pu1 * w0);
    } else {
      for (let k = 0; k < 6; k++) body_c[o + k] = 0;
    }
    if (p >= 0) {
      const P = p * 6;
      body_V[o] = body_V[P] + w0;
      body_V[o + 1] = body_V[P + 1] + w1;
      body_V[o + 2] = body_V[P + 2] + w2;
      body_V[o + 3] = body_V[P + 3] + u0;
      body_V[o + 4] = body_V[P + 4] + u1;
      body_V[o + 5] = body_V[P + 5] + u2;
    } else {
      body_V[o] = w0;
      body_V[o + 1] = w1;
      body_V[o + 2] = w2;
      body_V[o + 3] = u0;
      body_V[o + 4] = u1;
      body_V[o + 5] = u2;
    }
  }
}

/**
 * Velocity of a world point x rigidly attached to body b: v = v₀ + ω × x (world) [m/s].
 * Body -1 (the world) has zero velocity.
 */
export function pointVelocity(
  d: KinematicsData,
  b: number,
  x: ArrayLike<number>,
  xo: number,
  out: Float64Array,
  oo: number,
): void {
  if (b < 0) {
    out[oo] = 0;
    out[oo + 1] = 0;
    out[oo + 2] = 0;
    return;
  }
  const V = d.body_V,
    o = b * 6;
  out[oo] = V[o + 3] + V[o + 1] * x[xo + 2] - V[o + 2] * x[xo + 1];
  out[oo + 1] = V[o + 4] + V[o + 2] * x[xo] - V[o] * x[xo + 2];
  out[oo + 2] = V[o + 5] + V[o] * x[xo + 1] - V[o + 1] * x[xo];
}

type BoundaryMap = 'velocity_to_internal' | 'velocity_to_public' | 'force_to_internal';

/**
 * The public ↔ internal maps at the solver boundary (SPEC §3.1). Only free joints change, with
 * r = r_MC (joint frame origin M to the COM, world):
 * - velocity_to_internal: (v_C; ω) → (ω; v_M), v_M = v_C − ω × r
 * - velocity_to_public:   (ω; v_M) → (v_C; ω), v_C = v_M + ω × r
 * - force_to_internal:    (f; τ_C) → (τ_C + r × f; f), the power-preserving dual
 * Every other joint is copied. Requires forwardKinematics for the joints.
 */
function mapBoundary(
  mode: BoundaryMap,
  m: SapModel,
  d: KinematicsData,
  src: Float64Array,
  out: Float64Array,
  j0: number,
  j1: number,
): void {
  for (let j = j0; j < j1; j++) {
    const s = m.joint_qd_start[j],
      e = m.joint_qd_start[j + 1];
    if (m.joint_type[j] !== JointType.FREE) {
      for (let k = s; k < e; k++) out[k] = src[k];
      continue;
    }
    const rx = d.body_com_w[j * 3] - d.joint_anchor[j * 3];
    const ry = d.body_com_w[j * 3 + 1] - d.joint_anchor[j * 3 + 1];
    const rz = d.body_com_w[j * 3 + 2] - d.joint_anchor[j * 3 + 2];
    // (a; b) is the incoming pair; the angular block sits first internally
    const a0 = src[s],
      a1 = src[s + 1],
      a2 = src[s + 2];
    const b0 = src[s + 3],
      b1 = src[s + 4],
      b2 = src[s + 5];
    if (mode === 'velocity_to_public') {
      // a = ω, b = v_M
      out[s] = b0 + (a1 * rz - a2 * ry);
      out[s + 1] = b1 + (a2 * rx - a0 * rz);
      out[s + 2] = b2 + (a0 * ry - a1 * rx);
      out[s + 3] = a0;
      out[s + 4] = a1;
      out[s + 5] = a2;
    } else if (mode === 'velocity_to_internal') {
      // a = v_C, b = ω
      out[s] = b0;
      out[s + 1] = b1;
      out[s + 2] = b2;
      out[s + 3] = a0 - (b1 * rz - b2 * ry);
      out[s + 4] = a1 - (b2 * rx - b0 * rz);
      out[s + 5] = a2 - (b0 * ry - b1 * rx);
    } else {
      // a = f, b = τ_C
      out[s] = b0 + (ry * a2 - rz * a1);
      out[s + 1] = b1 + (rz * a0 - rx * a2);
      out[s + 2] = b2 + (rx * a1 - ry * a0);
      out[s + 3] = a0;
      out[s + 4] = a1;
      out[s + 5] = a2;
    }
  }
}

/** public → internal joint velocities: free joints (v_C; ω) → (ω; v_M) */
export function velocityPublicToInternal(
  m: SapModel,
  d: KinematicsData,
  pub: Float64Array,
  out: Float64Array,
  j0 = 0,
  j1 = m.joint_count,
): void {
  mapBoundary('velocity_to_internal', m, d, pub, out, j0, j1);
}

/** internal → public joint velocities, the inverse of velocityPublicToInternal */
export function velocityInternalToPublic(
  m: SapModel,
  d: KinematicsData,
  v: Float64Array,
  out: Float64Array,
  j0 = 0,
  j1 = m.joint_count,
): void {
  mapBoundary('velocity_to_public', m, d, v, out, j0, j1);
}

/** public → internal generalized forces: free joints (f; τ_C) → (τ_C + r_MC × f; f) */
export function forcePublicToInternal(
  m: SapModel,
  d: KinematicsData,
  pub: Float64Array,
  out: Float64Array,
  j0 = 0,
  j1 = m.joint_count,
): void {
  mapBoundary('force_to_internal', m, d, pub, out, j0, j1);
}

/**
 * The public index of internal DOF k of joint j. Per-DOF model arrays (armature, damping, gains,
 * limits) are stored in public order; free joints swap their linear and angular blocks internally.
 */
export function publicDofIndex(m: SapModel, j: number, k: number): number {
  const s = m.joint_qd_start[j];
  if (m.joint_type[j] !== JointType.FREE) return s + k;
  return s + (k < 3 ? k + 3 : k - 3);
}
