/**
 * Transform math for the importer. Matrices are 4×4, stored row-major, in the column-vector
 * convention (p' = M·p, translation in elements 3, 7, 11). USD's own matrices (`matrix4d`,
 * `xformOp:transform`) use the row-vector convention and are transposed on input.
 *
 * xformOps (UsdGeomXformable): `translate`, `scale`, `rotateX|Y|Z` and `rotateXYZ`… (degrees; the
 * three-axis forms apply the first-named axis first), `orient` (quaternion, text order w,x,y,z),
 * `transform`, each with an optional `:suffix` and the `!invert!` prefix in `xformOpOrder`; a leading
 * `!resetXformStack!` discards the parent transform. The local matrix is op[0]·op[1]·…·op[n-1].
 */
import { NumArray, UsdList, asStringList, type UsdValue } from './values';

export type Mat4 = Float64Array;

export function mat4Identity(): Mat4 {
  const m = new Float64Array(16);
  m[0] = m[5] = m[10] = m[15] = 1;
  return m;
}

/** out = a·b (out may alias neither) */
export function mat4Mul(a: Mat4, b: Mat4, out: Mat4 = new Float64Array(16)): Mat4 {
  for (let r = 0; r < 4; r++) {
    for (let c = 0; c < 4; c++) {
      let s = 0;
      for (let k = 0; k < 4; k++) s += a[r * 4 + k] * b[k * 4 + c];
      out[r * 4 + c] = s;
    }
  }
  return out;
}

/** general 4×4 inverse; null when singular */
export function mat4Invert(m: Mat4): Mat4 | null {
  const a = Array.from(m);
  const inv = Array.from(mat4Identity());
  for (let c = 0; c < 4; c++) {
    let piv = c;
    for (let r = c + 1; r < 4; r++) if (Math.abs(a[r * 4 + c]) > Math.abs(a[piv * 4 + c])) piv = r;
    if (Math.abs(a[piv * 4 + c]) < 1e-300) return null;
    if (piv !== c) {
      for (let k = 0; k < 4; k++) {
        [a[c * 4 + k], a[piv * 4 + k]] = [a[piv * 4 + k], a[c * 4 + k]];
        [inv[c * 4 + k], inv[piv * 4 + k]] = [inv[piv * 4 + k], inv[c * 4 + k]];
      }
    }
    const d = a[c * 4 + c];
    for (let k = 0; k < 4; k++) {
      a[c * 4 + k] /= d;
      inv[c * 4 + k] /= d;
    }
    for (let r = 0; r < 4; r++) {
      if (r === c) continue;
      const f = a[r * 4 + c];
      if (f === 0) continue;
      for (let k = 0; k < 4; k++) {
        a[r * 4 + k] -= f * a[c * 4 + k];
        inv[r * 4 + k] -= f * inv[c * 4 + k];
      }
    }
  }
  return Float64Array.from(inv);
}

export function mat4Translate(x: number, y: number, z: number): Mat4 {
  const m = mat4Identity();
  m[3] = x;
  m[7] = y;
  m[11] = z;
  return m;
}

export function mat4Scale(x: number, y: number, z: number): Mat4 {
  const m = mat4Identity();
  m[0] = x;
  m[5] = y;
  m[10] = z;
  return m;
}

/** rotation about a principal axis (0 = x, 1 = y, 2 = z) by `deg` degrees */
export function mat4RotateAxis(axis: number, deg: number): Mat4 {
  const t = (deg * Math.PI) / 180;
  const c = Math.cos(t),
    s = Math.sin(t);
  const m = mat4Identity();
  const i = (axis + 1) % 3,
    j = (axis + 2) % 3;
  m[i * 4 + i] = c;
  m[i * 4 + j] = -s;
  m[j * 4 + i] = s;
  m[j * 4 + j] = c;
  return m;
}

/** rotation matrix of a quaternion given as (w, x, y, z); normalised first */
export function mat4FromQuatWXYZ(w: number, x: number, y: number, z: number): Mat4 {
  const n = Math.hypot(w, x, y, z);
  const m = mat4Identity();
  if (!(n > 0)) return m;
  w /= n;
  x /= n;
  y /= n;
  z /= n;
  m[0] = 1 - 2 * (y * y + z * z);
  m[1] = 2 * (x * y - w * z);
  m[2] = 2 * (x * z + w * y);
  m[4] = 2 * (x * y + w * z);
  m[5] = 1 - 2 * (x * x + z * z);
  m[6] = 2 * (y * z - w * x);
  m[8] = 2 * (x * z - w * y);
  m[9] = 2 * (y * z + w * x);
  m[10] = 1 - 2 * (x * x + y * y);
  return m;
}

/** a pose [px, py, pz, qx, qy, qz, qw] as a matrix */
export function mat4FromPose(p: ArrayLike<number>): Mat4 {
  const m = mat4FromQuatWXYZ(p[6], p[3], p[4], p[5]);
  m[3] = p[0];
  m[7] = p[1];
  m[11] = p[2];
  return m;
}

/** USD row-vector matrix (16 numbers, row-major) → column-vector matrix */
export function mat4FromUsd(v: ArrayLike<number>): Mat4 {
  const m = new Float64Array(16);
  for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) m[r * 4 + c] = v[c * 4 + r];
  return m;
}

/** applies m to a point */
export function mat4Point(m: Mat4, x: number, y: number, z: number): [number, number, number] {
  return [
    m[0] * x + m[1] * y + m[2] * z + m[3],
    m[4] * x + m[5] * y + m[6] * z + m[7],
    m[8] * x + m[9] * y + m[10] * z + m[11],
  ];
}

/** a 3×3 rotation (row-major, 9 numbers) → quaternion [x, y, z, w] */
export function quatFromMat3(R: ArrayLike<number>): [number, number, number, number] {
  const m00 = R[0],
    m01 = R[1],
    m02 = R[2],
    m10 = R[3],
    m11 = R[4],
    m12 = R[5],
    m20 = R[6],
    m21 = R[7],
    m22 = R[8];
  const tr = m00 + m11 + m22;
  let x: number, y: number, z: number, w: number;
  if (tr > 0) {
    const s = Math.sqrt(tr + 1) * 2;
    w = 0.25 * s;
    x = (m21 - m12) / s;
    y = (m02 - m20) / s;
    z = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    const s = Math.sqrt(1 + m00 - m11 - m22) * 2;
    w = (m21 - m12) / s;
    x = 0.25 * s;
    y = (m01 + m10) / s;
    z = (m02 + m20) / s;
  } else if (m11 > m22) {
    const s = Math.sqrt(1 + m11 - m00 - m22) * 2;
    w = (m02 - m20) / s;
    x = (m01 + m10) / s;
    y = 0.25 * s;
    z = (m12 + m21) / s;
  } else {
    const s = Math.sqrt(1 + m22 - m00 - m11) * 2;
    w = (m10 - m01) / s;
    x = (m02 + m20) / s;
    y = (m12 + m21) / s;
    z = 0.25 * s;
  }
  const n = Math.hypot(x, y, z, w);
  if (w < 0) return [-x / n, -y / n, -z / n, -w / n];
  return [x / n, y / n, z / n, w / n];
}

/** an affine matrix split into translation, rotation (3×3, orthonormal, det +1) and per-axis scale */
export interface Decomposed {
  t: [number, number, number];
  R: number[];
  s: [number, number, number];
  /** relative size of the shear that the decomposition dropped (0 for T·R·S matrices) */
  shear: number;
}

/**
 * Decomposes M = T·R·S (S diagonal, applied first). A negative determinant flips the z scale. The
 * rotation is re-orthonormalised (Gram–Schmidt); any shear is reported, not represented.
 */
export function decompose(m: Mat4): Decomposed {
  const cols = [0, 1, 2].map((c) => [m[c], m[4 + c], m[8 + c]]);
  const s: [number, number, number] = [0, 0, 0];
  for (let c = 0; c < 3; c++) s[c] = Math.hypot(cols[c][0], cols[c][1], cols[c][2]);
  const det =
    m[0] * (m[5] * m[10] - m[6] * m[9]) -
    m[1] * (m[4] * m[10] - m[6] * m[8]) +
    m[2] * (m[4] * m[9] - m[5] * m[8]);
  if (det < 0) s[2] = -s[2];
  const u = cols.map((col, c) =>
    s[c] !== 0 ? col.map((x) => x / s[c]) : [c === 0 ? 1 : 0, c === 1 ? 1 : 0, c === 2 ? 1 : 0],
  );
  // Gram–Schmidt
  const dot = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const norm = (a: number[]) => {
    const n = Math.hypot(a[0], a[1], a[2]) || 1;
    return a.map((x) => x / n);
  };
  const shear = Math.abs(dot(u[0], u[1])) + Math.abs(dot(u[0], u[2])) + Math.abs(dot(u[1], u[2]));
  const e0 = norm(u[0]);
  const d01 = dot(u[1], e0);
  const e1 = norm([u[1][0] - d01 * e0[0], u[1][1] - d01 * e0[1], u[1][2] - d01 * e0[2]]);
  const e2 = [e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2], e0[0] * e1[1] - e0[1] * e1[0]];
  const R = [e0[0], e1[0], e2[0], e0[1], e1[1], e2[1], e0[2], e1[2], e2[2]];
  return { t: [m[3], m[7], m[11]], R, s, shear };
}

/** the rigid pose [px,py,pz,qx,qy,qz,qw] of a matrix (scale and shear dropped) */
export function poseOf(m: Mat4): number[] {
  const d = decompose(m);
  return [...d.t, ...quatFromMat3(d.R)];
}

/** a rigid matrix of a pose [px,py,pz,qx,qy,qz,qw]'s inverse */
export function rigidInverse(m: Mat4): Mat4 {
  // for a rigid m = [R t]: inverse = [Rᵀ −Rᵀt]
  const out = mat4Identity();
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out[r * 4 + c] = m[c * 4 + r];
  for (let r = 0; r < 3; r++)
    out[r * 4 + 3] = -(out[r * 4] * m[3] + out[r * 4 + 1] * m[7] + out[r * 4 + 2] * m[11]);
  return out;
}

/** errors found while evaluating xformOps (reported as warnings by the importer) */
export interface XformIssue {
  op: string;
  reason: string;
}

/**
 * The local transform of a prim from its xformOp attributes.
 * @param attr returns an attribute's composed value
 * @returns the local matrix and whether the stack resets the parent transform
 */
export function localXform(
  attr: (name: string) => UsdValue | undefined,
  issues?: XformIssue[],
): { m: Mat4; reset: boolean } {
  const order = asStringList(attr('xformOpOrder') ?? null) ?? [];
  let m = mat4Identity();
  let reset = false;
  for (let i = 0; i < order.length; i++) {
    let name = order[i];
    if (name === '!resetXformStack!') {
      reset = true;
      m = mat4Identity();
      continue;
    }
    let invert = false;
    if (name.startsWith('!invert!')) {
      invert = true;
      name = name.slice(8);
    }
    const v = attr(name);
    if (v === undefined || v === null) {
      issues?.push({ op: name, reason: 'listed in xformOpOrder but has no value' });
      continue;
    }
    let op = opMatrix(name, v);
    if (!op) {
      issues?.push({ op: name, reason: 'unsupported xformOp or value' });
      continue;
    }
    if (invert) {
      const inv = mat4Invert(op);
      if (!inv) {
        issues?.push({ op: name, reason: 'singular op cannot be inverted' });
        continue;
      }
      op = inv;
    }
    m = mat4Mul(m, op);
  }
  return { m, reset };
}

function nums(v: UsdValue): number[] | null {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v)) return v;
  if (v instanceof NumArray) return Array.from(v.data);
  if (v instanceof UsdList) return null;
  return null;
}

const ROT3: Record<string, [number, number, number]> = {
  rotateXYZ: [0, 1, 2],
  rotateXZY: [0, 2, 1],
  rotateYXZ: [1, 0, 2],
  rotateYZX: [1, 2, 0],
  rotateZXY: [2, 0, 1],
  rotateZYX: [2, 1, 0],
};

/** the matrix of one xformOp, or null when the op or its value is not understood */
export function opMatrix(name: string, v: UsdValue): Mat4 | null {
  const parts = name.split(':');
  if (parts[0] !== 'xformOp' || parts.length < 2) return null;
  const kind = parts[1];
  const a = nums(v);
  if (!a) return null;
  switch (kind) {
    case 'translate':
      return a.length === 3 ? mat4Translate(a[0], a[1], a[2]) : null;
    case 'scale':
      return a.length === 3
        ? mat4Scale(a[0], a[1], a[2])
        : a.length === 1
          ? mat4Scale(a[0], a[0], a[0])
          : null;
    case 'rotateX':
      return a.length === 1 ? mat4RotateAxis(0, a[0]) : null;
    case 'rotateY':
      return a.length === 1 ? mat4RotateAxis(1, a[0]) : null;
    case 'rotateZ':
      return a.length === 1 ? mat4RotateAxis(2, a[0]) : null;
    case 'orient':
      return a.length === 4 ? mat4FromQuatWXYZ(a[0], a[1], a[2], a[3]) : null;
    case 'transform':
      return a.length === 16 ? mat4FromUsd(a) : null;
    default: {
      const seq = ROT3[kind];
      if (!seq || a.length !== 3) return null;
      // the first-named axis applies first: M = R_last · R_mid · R_first
      let m = mat4RotateAxis(seq[0], a[seq[0]]);
      m = mat4Mul(mat4RotateAxis(seq[1], a[seq[1]]), m);
      m = mat4Mul(mat4RotateAxis(seq[2], a[seq[2]]), m);
      return m;
    }
  }
}
