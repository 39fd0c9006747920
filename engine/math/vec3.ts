/**
 * Small vector and 3×3 matrix helpers on plain typed arrays with offsets.
 * Vectors are 3 consecutive numbers; matrices are 9 numbers, row-major. No allocation in hot paths:
 * every function writes into an output array at an offset.
 */

/**
 * vector storage: always a Float64Array, so that these helpers, inlined into the step's hot loops,
 * see one array kind (V8 would otherwise keep polymorphic loads, or stop inlining them, once an
 * importer had called them with plain arrays); plain arrays convert with `f64` (./arrays)
 */
export type Vec = Float64Array;

export function cross(a: Vec, ao: number, b: Vec, bo: number, out: Vec, oo: number): void {
  const ax = a[ao],
    ay = a[ao + 1],
    az = a[ao + 2];
  const bx = b[bo],
    by = b[bo + 1],
    bz = b[bo + 2];
  out[oo] = ay * bz - az * by;
  out[oo + 1] = az * bx - ax * bz;
  out[oo + 2] = ax * by - ay * bx;
}

export function dot(a: Vec, ao: number, b: Vec, bo: number): number {
  return a[ao] * b[bo] + a[ao + 1] * b[bo + 1] + a[ao + 2] * b[bo + 2];
}

export function norm3(a: Vec, ao: number): number {
  return len3(a[ao], a[ao + 1], a[ao + 2]);
}

/**
 * √(x² + y² + z²). For the per-step paths instead of `Math.hypot`, which V8 runs as a builtin call
 * that allocates (its argument list and its result) and scales against overflow, which vectors of
 * physical size never need (squares stay normal for 1e-154 < |x| < 1e154).
 */
export function len3(x: number, y: number, z: number): number {
  return Math.sqrt(x * x + y * y + z * z);
}

/** √(x² + y² + z² + w²), see {@link len3} */
export function len4(x: number, y: number, z: number, w: number): number {
  return Math.sqrt(x * x + y * y + z * z + w * w);
}

/** out = M·v for a row-major 3×3 matrix */
export function mat3MulVec(m: Vec, mo: number, v: Vec, vo: number, out: Vec, oo: number): void {
  const x = v[vo],
    y = v[vo + 1],
    z = v[vo + 2];
  out[oo] = m[mo] * x + m[mo + 1] * y + m[mo + 2] * z;
  out[oo + 1] = m[mo + 3] * x + m[mo + 4] * y + m[mo + 5] * z;
  out[oo + 2] = m[mo + 6] * x + m[mo + 7] * y + m[mo + 8] * z;
}

/** out = Mᵀ·v for a row-major 3×3 matrix */
export function mat3TMulVec(m: Vec, mo: number, v: Vec, vo: number, out: Vec, oo: number): void {
  const x = v[vo],
    y = v[vo + 1],
    z = v[vo + 2];
  out[oo] = m[mo] * x + m[mo + 3] * y + m[mo + 6] * z;
  out[oo + 1] = m[mo + 1] * x + m[mo + 4] * y + m[mo + 7] * z;
  out[oo + 2] = m[mo + 2] * x + m[mo + 5] * y + m[mo + 8] * z;
}

/** inverse of a row-major 3×3 matrix; returns false when singular */
export function mat3Inverse(m: Vec, mo: number, out: Vec, oo: number): boolean {
  const a = m[mo],
    b = m[mo + 1],
    c = m[mo + 2];
  const d = m[mo + 3],
    e = m[mo + 4],
    f = m[mo + 5];
  const g = m[mo + 6],
    h = m[mo + 7],
    i = m[mo + 8];
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (!(Math.abs(det) > 0) || !Number.isFinite(det)) return false;
  const s = 1 / det;
  out[oo] = A * s;
  out[oo + 1] = -(b * i - c * h) * s;
  out[oo + 2] = (b * f - c * e) * s;
  out[oo + 3] = B * s;
  out[oo + 4] = (a * i - c * g) * s;
  out[oo + 5] = -(a * f - c * d) * s;
  out[oo + 6] = C * s;
  out[oo + 7] = -(a * h - b * g) * s;
  out[oo + 8] = (a * e - b * d) * s;
  return true;
}

/** out = R·I·Rᵀ for row-major 3×3 R and symmetric I (rotating an inertia tensor into another frame) */
export function rotateInertia(r: Vec, ro: number, inertia: Vec, io: number, out: Vec, oo: number): void {
  const r0 = r[ro],
    r1 = r[ro + 1],
    r2 = r[ro + 2],
    r3 = r[ro + 3],
    r4 = r[ro + 4],
    r5 = r[ro + 5],
    r6 = r[ro + 6],
    r7 = r[ro + 7],
    r8 = r[ro + 8];
  const i0 = inertia[io],
    i1 = inertia[io + 1],
    i2 = inertia[io + 2],
    i3 = inertia[io + 3],
    i4 = inertia[io + 4],
    i5 = inertia[io + 5],
    i6 = inertia[io + 6],
    i7 = inertia[io + 7],
    i8 = inertia[io + 8];
  // t = R·I
  const t0 = r0 * i0 + r1 * i3 + r2 * i6,
    t1 = r0 * i1 + r1 * i4 + r2 * i7,
    t2 = r0 * i2 + r1 * i5 + r2 * i8;
  const t3 = r3 * i0 + r4 * i3 + r5 * i6,
    t4 = r3 * i1 + r4 * i4 + r5 * i7,
    t5 = r3 * i2 + r4 * i5 + r5 * i8;
  const t6 = r6 * i0 + r7 * i3 + r8 * i6,
    t7 = r6 * i1 + r7 * i4 + r8 * i7,
    t8 = r6 * i2 + r7 * i5 + r8 * i8;
  // out = t·Rᵀ
  out[oo] = t0 * r0 + t1 * r1 + t2 * r2;
  out[oo + 1] = t0 * r3 + t1 * r4 + t2 * r5;
  out[oo + 2] = t0 * r6 + t1 * r7 + t2 * r8;
  out[oo + 3] = t3 * r0 + t4 * r1 + t5 * r2;
  out[oo + 4] = t3 * r3 + t4 * r4 + t5 * r5;
  out[oo + 5] = t3 * r6 + t4 * r7 + t5 * r8;
  out[oo + 6] = t6 * r0 + t7 * r1 + t8 * r2;
  out[oo + 7] = t6 * r3 + t7 * r4 + t8 * r5;
  out[oo + 8] = t6 * r6 + t7 * r7 + t8 * r8;
}
