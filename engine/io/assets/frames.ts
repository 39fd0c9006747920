/**
 * Small pose helpers for the importers, on plain arrays. Poses are [px, py, pz, qx, qy, qz, qw]
 * (quaternions xyzw, SPEC §3.1); angles in radians.
 */
import { f64, quatMul, quatRotate, quatToMat3, transformInverse, transformMul } from '../../math';

export type Pose = [number, number, number, number, number, number, number];
export type Quat = [number, number, number, number];
export type V3 = [number, number, number];

export const IDENTITY_POSE: Readonly<Pose> = [0, 0, 0, 0, 0, 0, 1];

export function pose(p: readonly number[] = [0, 0, 0], q: readonly number[] = [0, 0, 0, 1]): Pose {
  return [p[0], p[1], p[2], q[0], q[1], q[2], q[3]];
}

/** a ∘ b */
export function poseMul(a: readonly number[], b: readonly number[]): Pose {
  const out = new Float64Array(7);
  transformMul(f64(a), 0, f64(b), 0, out, 0);
  return Array.from(out) as Pose;
}

export function poseInv(a: readonly number[]): Pose {
  const out = new Float64Array(7);
  transformInverse(f64(a), 0, out, 0);
  return Array.from(out) as Pose;
}

export function quatMult(a: readonly number[], b: readonly number[]): Quat {
  const out = new Float64Array(4);
  quatMul(f64(a), 0, f64(b), 0, out, 0);
  return Array.from(out) as Quat;
}

export function rotate(q: readonly number[], v: readonly number[]): V3 {
  const out = new Float64Array(3);
  quatRotate(f64(q), 0, f64(v), 0, out, 0);
  return Array.from(out) as V3;
}

/** quaternion of a rotation by `angle` about the (normalized) axis */
export function axisAngleQuat(axis: readonly number[], angle: number): Quat {
  const n = Math.hypot(axis[0], axis[1], axis[2]);
  if (!(n > 0)) return [0, 0, 0, 1];
  const s = Math.sin(angle / 2) / n;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
}

/** URDF roll-pitch-yaw: R = Rz(yaw)·Ry(pitch)·Rx(roll) */
export function rpyQuat(r: number, p: number, y: number): Quat {
  return quatMult(
    quatMult(axisAngleQuat([0, 0, 1], y), axisAngleQuat([0, 1, 0], p)),
    axisAngleQuat([1, 0, 0], r),
  );
}

/**
 * MJCF euler angles with an `eulerseq` of three letters from xyzXYZ: lower case rotates about the
 * moving (intrinsic) axes, upper case about the fixed (extrinsic) axes, applied in sequence.
 */
export function eulerQuat(angles: readonly number[], seq: string): Quat {
  let q: Quat = [0, 0, 0, 1];
  for (let i = 0; i < 3; i++) {
    const c = seq[i];
    const axis = [0, 0, 0];
    axis['xyz'.indexOf(c.toLowerCase())] = 1;
    const r = axisAngleQuat(axis, angles[i]);
    q = c === c.toLowerCase() ? quatMult(q, r) : quatMult(r, q);
  }
  return q;
}

/** rotation matrix (row-major) → quaternion xyzw */
export function matQuat(R: readonly number[]): Quat {
  const [m00, m01, m02, m10, m11, m12, m20, m21, m22] = R;
  const tr = m00 + m11 + m22;
  let x: number, y: number, z: number, w: number;
  if (tr > 0) {
    const s = Math.sqrt(tr + 1) * 2;
    w = s / 4;
    x = (m21 - m12) / s;
    y = (m02 - m20) / s;
    z = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    const s = Math.sqrt(1 + m00 - m11 - m22) * 2;
    w = (m21 - m12) / s;
    x = s / 4;
    y = (m01 + m10) / s;
    z = (m02 + m20) / s;
  } else if (m11 > m22) {
    const s = Math.sqrt(1 + m11 - m00 - m22) * 2;
    w = (m02 - m20) / s;
    x = (m01 + m10) / s;
    y = s / 4;
    z = (m12 + m21) / s;
  } else {
    const s = Math.sqrt(1 + m22 - m00 - m11) * 2;
    w = (m10 - m01) / s;
    x = (m02 + m20) / s;
    y = (m12 + m21) / s;
    z = s / 4;
  }
  const n = Math.hypot(x, y, z, w);
  return [x / n, y / n, z / n, w / n];
}

/** the rotation taking +z onto `v` by the shortest arc */
export function zAxisQuat(v: readonly number[]): Quat {
  const n = Math.hypot(v[0], v[1], v[2]);
  if (!(n > 0)) return [0, 0, 0, 1];
  const x = v[0] / n,
    y = v[1] / n,
    z = v[2] / n;
  if (z < -1 + 1e-12) return [1, 0, 0, 0];
  // axis = z × v = (-y, x, 0), angle = acos(z)
  const q: Quat = [-y, x, 0, 1 + z];
  const m = Math.hypot(q[0], q[1], q[2], q[3]);
  return [q[0] / m, q[1] / m, q[2] / m, q[3] / m];
}

/** 3×3 row-major rotation of a quaternion */
export function quatMat(q: readonly number[]): number[] {
  const R = new Float64Array(9);
  quatToMat3(f64(q), 0, R, 0);
  return Array.from(R);
}

/** R · I · Rᵀ for a 3×3 row-major inertia */
export function rotateTensor(q: readonly number[], I: readonly number[]): number[] {
  const R = quatMat(q);
  const RI = new Array<number>(9).fill(0);
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) RI[r * 3 + c] += R[r * 3 + k] * I[k * 3 + c];
  const out = new Array<number>(9).fill(0);
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) out[r * 3 + c] += RI[r * 3 + k] * R[c * 3 + k];
  return out;
}
