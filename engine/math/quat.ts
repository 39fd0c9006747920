/**
 * Quaternions stored xyzw (SPEC §3.1) and rigid transforms stored as 7 numbers [px, py, pz, qx, qy, qz, qw].
 * Hamilton product convention: q ⊗ p rotates by p first, then q. All functions write into outputs.
 */
import { len3, len4, type Vec } from './vec3';

/** out = a ⊗ b (Hamilton product), quaternions xyzw */
export function quatMul(a: Vec, ao: number, b: Vec, bo: number, out: Vec, oo: number): void {
  const ax = a[ao],
    ay = a[ao + 1],
    az = a[ao + 2],
    aw = a[ao + 3];
  const bx = b[bo],
    by = b[bo + 1],
    bz = b[bo + 2],
    bw = b[bo + 3];
  out[oo] = aw * bx + ax * bw + ay * bz - az * by;
  out[oo + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[oo + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[oo + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** out = conjugate(q) (the inverse of a unit quaternion) */
export function quatConj(q: Vec, qo: number, out: Vec, oo: number): void {
  out[oo] = -q[qo];
  out[oo + 1] = -q[qo + 1];
  out[oo + 2] = -q[qo + 2];
  out[oo + 3] = q[qo + 3];
}

/** normalizes in place; a zero quaternion becomes identity */
export function quatNormalize(q: Vec, qo: number): void {
  const n = len4(q[qo], q[qo + 1], q[qo + 2], q[qo + 3]);
  if (!(n > 0) || !Number.isFinite(n)) {
    q[qo] = 0;
    q[qo + 1] = 0;
    q[qo + 2] = 0;
    q[qo + 3] = 1;
    return;
  }
  q[qo] /= n;
  q[qo + 1] /= n;
  q[qo + 2] /= n;
  q[qo + 3] /= n;
}

/** out = R(q)·v */
export function quatRotate(q: Vec, qo: number, v: Vec, vo: number, out: Vec, oo: number): void {
  const x = q[qo],
    y = q[qo + 1],
    z = q[qo + 2],
    w = q[qo + 3];
  const vx = v[vo],
    vy = v[vo + 1],
    vz = v[vo + 2];
  // t = 2 (q_v × v)
  const tx = 2 * (y * vz - z * vy);
  const ty = 2 * (z * vx - x * vz);
  const tz = 2 * (x * vy - y * vx);
  out[oo] = vx + w * tx + (y * tz - z * ty);
  out[oo + 1] = vy + w * ty + (z * tx - x * tz);
  out[oo + 2] = vz + w * tz + (x * ty - y * tx);
}

/** out = R(q)ᵀ·v */
export function quatRotateInv(q: Vec, qo: number, v: Vec, vo: number, out: Vec, oo: number): void {
  const x = -q[qo],
    y = -q[qo + 1],
    z = -q[qo + 2],
    w = q[qo + 3];
  const vx = v[vo],
    vy = v[vo + 1],
    vz = v[vo + 2];
  const tx = 2 * (y * vz - z * vy);
  const ty = 2 * (z * vx - x * vz);
  const tz = 2 * (x * vy - y * vx);
  out[oo] = vx + w * tx + (y * tz - z * ty);
  out[oo + 1] = vy + w * ty + (z * tx - x * tz);
  out[oo + 2] = vz + w * tz + (x * ty - y * tx);
}

/** row-major 3×3 rotation matrix of a unit quaternion */
export function quatToMat3(q: Vec, qo: number, out: Vec, oo: number): void {
  const x = q[qo],
    y = q[qo + 1],
    z = q[qo + 2],
    w = q[qo + 3];
  out[oo] = 1 - 2 * (y * y + z * z);
  out[oo + 1] = 2 * (x * y - z * w);
  out[oo + 2] = 2 * (x * z + y * w);
  out[oo + 3] = 2 * (x * y + z * w);
  out[oo + 4] = 1 - 2 * (x * x + z * z);
  out[oo + 5] = 2 * (y * z - x * w);
  out[oo + 6] = 2 * (x * z - y * w);
  out[oo + 7] = 2 * (y * z + x * w);
  out[oo + 8] = 1 - 2 * (x * x + y * y);
}

/** unit quaternion of a rotation by `angle` [rad] about the unit `axis` */
export function quatFromAxisAngle(
  ax: number,
  ay: number,
  az: number,
  angle: number,
  out: Vec,
  oo: number,
): void {
  const n = len3(ax, ay, az) || 1;
  const s = Math.sin(angle / 2) / n;
  out[oo] = ax * s;
  out[oo + 1] = ay * s;
  out[oo + 2] = az * s;
  out[oo + 3] = Math.cos(angle / 2);
}

/**
 * out = exp(h·ω) ⊗ q: advances q by the rotation vector h·ω (ω expressed in the frame q maps into),
 * then normalizes. Uses the exact exponential map, so a constant ω is integrated without drift.
 */
export function quatIntegrate(
  q: Vec,
  qo: number,
  wx: number,
  wy: number,
  wz: number,
  h: number,
  out: Vec,
  oo: number,
): void {
  const rx = wx * h,
    ry = wy * h,
    rz = wz * h;
  const angle = len3(rx, ry, rz);
  const dq = integrateScratch;
  if (angle < 1e-12) {
    dq[0] = rx / 2;
    dq[1] = ry / 2;
    dq[2] = rz / 2;
    dq[3] = 1;
  } else {
    const s = Math.sin(angle / 2) / angle;
    dq[0] = rx * s;
    dq[1] = ry * s;
    dq[2] = rz * s;
    dq[3] = Math.cos(angle / 2);
  }
  quatMul(dq, 0, q, qo, out, oo);
  quatNormalize(out, oo);
}
const integrateScratch = new Float64Array(4);

/** out = a ∘ b for transforms [p, q] (apply b, then a) */
export function transformMul(a: Vec, ao: number, b: Vec, bo: number, out: Vec, oo: number): void {
  // quatRotate(a.q, b.p) and quatMul(a.q, b.q) written out on locals (same operations, same order;
  // out may alias a or b)
  const x = a[ao + 3],
    y = a[ao + 4],
    z = a[ao + 5],
    w = a[ao + 6];
  const vx = b[bo],
    vy = b[bo + 1],
    vz = b[bo + 2];
  const tx = 2 * (y * vz - z * vy);
  const ty = 2 * (z * vx - x * vz);
  const tz = 2 * (x * vy - y * vx);
  const px = a[ao] + (vx + w * tx + (y * tz - z * ty)),
    py = a[ao + 1] + (vy + w * ty + (z * tx - x * tz)),
    pz = a[ao + 2] + (vz + w * tz + (x * ty - y * tx));
  const bx = b[bo + 3],
    by = b[bo + 4],
    bz = b[bo + 5],
    bw = b[bo + 6];
  out[oo] = px;
  out[oo + 1] = py;
  out[oo + 2] = pz;
  out[oo + 3] = w * bx + x * bw + y * bz - z * by;
  out[oo + 4] = w * by - x * bz + y * bw + z * bx;
  out[oo + 5] = w * bz + x * by - y * bx + z * bw;
  out[oo + 6] = w * bw - x * bx - y * by - z * bz;
}
const transformScratch = new Float64Array(7);

/** out = a⁻¹ */
export function transformInverse(a: Vec, ao: number, out: Vec, oo: number): void {
  const t = transformScratch;
  quatConj(a, ao + 3, t, 3);
  quatRotate(t, 3, a, ao, t, 0);
  out[oo] = -t[0];
  out[oo + 1] = -t[1];
  out[oo + 2] = -t[2];
  out[oo + 3] = t[3];
  out[oo + 4] = t[4];
  out[oo + 5] = t[5];
  out[oo + 6] = t[6];
}

/** out = a·p (transform a point) */
export function transformPoint(a: Vec, ao: number, p: Vec, po: number, out: Vec, oo: number): void {
  quatRotate(a, ao + 3, p, po, out, oo);
  out[oo] += a[ao];
  out[oo + 1] += a[ao + 1];
  out[oo + 2] += a[ao + 2];
}

/** out = a⁻¹·p (a world point into the frame of a) */
export function transformPointInv(a: Vec, ao: number, p: Vec, po: number, out: Vec, oo: number): void {
  const t = transformScratch;
  t[0] = p[po] - a[ao];
  t[1] = p[po + 1] - a[ao + 1];
  t[2] = p[po + 2] - a[ao + 2];
  quatRotateInv(a, ao + 3, t, 0, out, oo);
}

/** the identity transform */
export const IDENTITY_TRANSFORM: readonly number[] = Object.freeze([0, 0, 0, 0, 0, 0, 1]);
