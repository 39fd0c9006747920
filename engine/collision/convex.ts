/**
 * The general convex narrow phase: GJK (separated) or EPA (penetrating) on the proxy cores of
 * `support.ts`, then a multi-point manifold by clipping the two contact features in the contact
 * plane. Serves every convex pair without an analytic routine (ellipsoid, cylinder, cone and convex
 * mesh against anything convex) and, with a triangle as shape A, the triangles of meshes and
 * heightfields.
 *
 * 1. GJK on the cores, d = |p_B − p_A| − r_A − r_B (radii of sphere / capsule cores); nothing is
 *    emitted unless d − margin ≤ gap. Overlapping cores: EPA gives the depth and normal (for a
 *    triangle A: its face normal, one-sided, see below).
 * 2. Features along n (A) and −n (B) (`proxyFeature`): point, segment or face polygon.
 *    - If either is a face, the better aligned face is the reference: the contact normal n_c is its
 *      normal (oriented A → B); the other feature is clipped against it in the plane ⊥ n_c
 *      (Sutherland–Hodgman for polygons, parametric for segments, containment for points). Each
 *      clipped point x gives witnesses on both features along the line x + t·n_c and
 *      d = n_cᵀ(p_B − p_A). A cylinder standing on a face thus gets its cap rim clipped by the face:
 *      ≥ 3 well-spread points.
 *    - Two nearly parallel segments (a cylinder lying along a capsule): the ends of their overlap.
 *    - Otherwise one point: the GJK/EPA witnesses snapped onto the features (exactly on the
 *      surfaces).
 *    Points outside the band are dropped; at most {@link CONVEX_MAX_POINTS} are kept
 *    (`selectSpread`). When every kept point is shallower than the GJK distance / EPA depth, the
 *    exact single point is added too (so the smallest emitted d is the true distance).
 * Triangles are one-sided: a separated shape behind the triangle's plane (nᵀn_T < 0) gets nothing;
 * overlapping cores use n = n_T (the shape's feature along −n_T clipped by the triangle), or EPA
 * when that clip is empty and EPA's normal faces the front.
 * Feature ids: manifold points 0..3 (candidate order), the extra exact point 4.
 */
import type { ShapeGeom } from './geometry';
import { epaPenetration, gjkDistance, GjkStatus, GJK_OUT, lastDirection } from './gjk';
import { addContact, flipManifold, inBand, selectSpread, type ContactManifold } from './manifold';
import {
  FEATURE_NORMAL,
  FEATURE_SIN_TOL,
  MAX_FEATURE_POINTS,
  loadShapeProxy,
  proxyFeature,
  proxyKind,
  proxyRadius,
  proxyScale,
  ProxyKind,
  supportCore,
  triangleNormal,
  triangleVertex,
} from './support';

/** the most points of one convex pair's flat manifold (plus the exact point when separated) */
export const CONVEX_MAX_POINTS = 4;
/** feature id of the extra exact closest point */
export const CONVEX_EXACT_FEATURE = 4;

const FA = new Float64Array(MAX_FEATURE_POINTS * 3);
const FB = new Float64Array(MAX_FEATURE_POINTS * 3);
const NA = new Float64Array(3);
const NB = new Float64Array(3);
const A2 = new Float64Array(MAX_FEATURE_POINTS * 2);
const B2 = new Float64Array(MAX_FEATURE_POINTS * 2);
const MAXC = 4 * MAX_FEATURE_POINTS + 8;
const POLY0 = new Float64Array(MAXC * 2);
const POLY1 = new Float64Array(MAXC * 2);
const CPA = new Float64Array(MAXC * 3);
const CPB = new Float64Array(MAXC * 3);
const CD = new Float64Array(MAXC);
const PICK = new Int32Array(4);
/** frame of the contact plane: origin O, t1, t2, n_c */
const FR = new Float64Array(12);
const WA = new Float64Array(3);
const WB = new Float64Array(3);
const NV = new Float64Array(3);
const TMP = new Float64Array(3);
let NCAND = 0;

/**
 * Collides proxy slots 0 (A) and 1 (B), appending to `out` (normal from A into B).
 * @param margin m_a + m_b [m]
 * @param gap g_a + g_b [m]
 * @param triangleA slot 0 is a one-sided mesh / heightfield triangle
 * @returns the number of points appended
 */
export function collideConvexProxies(
  margin: number,
  gap: number,
  triangleA: boolean,
  out: ContactManifold,
): number {
  const rA = proxyRadius(0),
    rB = proxyRadius(1);
  const scale = Math.max(proxyScale(0) + rA, proxyScale(1) + rB, 1e-300);
  const reach = rA + rB + margin + gap;
  const st = gjkDistance(reach * (1 + 1e-12) + 1e-12 * scale);
  if (st === GjkStatus.FAR) return 0;
  const from = out.count;
  if (st === GjkStatus.SEPARATED) {
    const dist = GJK_OUT[0];
    const nx = GJK_OUT[1],
      ny = GJK_OUT[2],
      nz = GJK_OUT[3];
    if (triangleA && nx * triangleNormal(0, 0) + ny * triangleNormal(0, 1) + nz * triangleNormal(0, 2) < 0)
      return 0;
    const d = dist - rA - rB;
    if (!inBand(d, margin, gap)) return 0;
    for (let k = 0; k < 3; k++) {
      NV[k] = GJK_OUT[1 + k];
      WA[k] = GJK_OUT[4 + k] + rA * NV[k];
      WB[k] = GJK_OUT[7 + k] - rB * NV[k];
    }
    buildManifold(d, margin, gap, scale, out);
    return out.count - from;
  }
  // overlapping cores
  if (triangleA) {
    NV[0] = triangleNormal(0, 0);
    NV[1] = triangleNormal(0, 1);
    NV[2] = triangleNormal(0, 2);
    // B's deepest point below the triangle's plane
    supportCore(1, -NV[0], -NV[1], -NV[2], WB, 0);
    let h = 0;
    for (let k = 0; k < 3; k++) {
      WB[k] -= rB * NV[k];
      h += NV[k] * (WB[k] - triangleVertex(0, 0, k));
    }
    for (let k = 0; k < 3; k++) WA[k] = WB[k] - h * NV[k];
    if (inBand(h, margin, gap)) {
      const n = buildManifold(h, margin, gap, scale, out, true);
      if (n > 0) return n;
    }
    if (!epaPenetration()) return 0;
    if (GJK_OUT[1] * NV[0] + GJK_OUT[2] * NV[1] + GJK_OUT[3] * NV[2] <= 0) return 0;
  } else if (!epaPenetration()) {
    lastDirection(NV);
    supportCore(0, NV[0], NV[1], NV[2], WA, 0);
    supportCore(1, -NV[0], -NV[1], -NV[2], WB, 0);
    let d = 0;
    for (let k = 0; k < 3; k++) {
      WA[k] += rA * NV[k];
      WB[k] -= rB * NV[k];
      d += NV[k] * (WB[k] - WA[k]);
    }
    if (!inBand(d, margin, gap)) return 0;
    buildManifold(d, margin, gap, scale, out);
    return out.count - from;
  }
  const depth = GJK_OUT[0];
  for (let k = 0; k < 3; k++) {
    NV[k] = GJK_OUT[1 + k];
    WA[k] = GJK_OUT[4 + k] + rA * NV[k];
    WB[k] = GJK_OUT[7 + k] - rB * NV[k];
  }
  const d = -depth - rA - rB;
  if (!inBand(d, margin, gap)) return 0;
  buildManifold(d, margin, gap, scale, out);
  return out.count - from;
}

/** a unit basis (t1, t2) of the plane ⊥ n into FR[3..9), n into FR[9..12) */
function planeBasis(nx: number, ny: number, nz: number): void {
  let hx = 0,
    hy = 0,
    hz = 0;
  const ax = Math.abs(nx),
    ay = Math.abs(ny),
    az = Math.abs(nz);
  if (ax <= ay && ax <= az) hx = 1;
  else if (ay <= az) hy = 1;
  else hz = 1;
  let t1x = hy * nz - hz * ny,
    t1y = hz * nx - hx * nz,
    t1z = hx * ny - hy * nx;
  const l = Math.hypot(t1x, t1y, t1z);
  t1x /= l;
  t1y /= l;
  t1z /= l;
  FR[3] = t1x;
  FR[4] = t1y;
  FR[5] = t1z;
  FR[6] = ny * t1z - nz * t1y;
  FR[7] = nz * t1x - nx * t1z;
  FR[8] = nx * t1y - ny * t1x;
  FR[9] = nx;
  FR[10] = ny;
  FR[11] = nz;
}

/** projects k world points of F into 2D (FR frame) */
function project(F: Float64Array, k: number, P: Float64Array): void {
  for (let i = 0; i < k; i++) {
    const dx = F[i * 3] - FR[0],
      dy = F[i * 3 + 1] - FR[1],
      dz = F[i * 3 + 2] - FR[2];
    P[i * 2] = dx * FR[3] + dy * FR[4] + dz * FR[5];
    P[i * 2 + 1] = dx * FR[6] + dy * FR[7] + dz * FR[8];
  }
}

/**
 * The point of a feature (k points F, 2D projection P, face normal N) above the 2D point (x, y)
 * along n_c, written to out.
 */
function lift(
  F: Float64Array,
  P: Float64Array,
  k: number,
  N: Float64Array,
  x: number,
  y: number,
  out: Float64Array,
): void {
  if (k === 1) {
    out[0] = F[0];
    out[1] = F[1];
    out[2] = F[2];
    return;
  }
  if (k === 2) {
    const ex = P[2] - P[0],
      ey = P[3] - P[1];
    const ee = ex * ex + ey * ey;
    let t = ee > 0 ? ((x - P[0]) * ex + (y - P[1]) * ey) / ee : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    for (let c = 0; c < 3; c++) out[c] = F[c] + t * (F[3 + c] - F[c]);
    return;
  }
  const X0 = FR[0] + x * FR[3] + y * FR[6],
    X1 = FR[1] + x * FR[4] + y * FR[7],
    X2 = FR[2] + x * FR[5] + y * FR[8];
  const den = N[0] * FR[9] + N[1] * FR[10] + N[2] * FR[11];
  const t = (N[0] * (F[0] - X0) + N[1] * (F[1] - X1) + N[2] * (F[2] - X2)) / den;
  out[0] = X0 + t * FR[9];
  out[1] = X1 + t * FR[10];
  out[2] = X2 + t * FR[11];
}

/** appends a candidate from 2D point (x, y) when inside the band */
function candidate(kA: number, kB: number, x: number, y: number, margin: number, gap: number): void {
  if (NCAND >= MAXC) return;
  const o = NCAND * 3;
  lift(FA, A2, kA, NA, x, y, TMP);
  CPA[o] = TMP[0];
  CPA[o + 1] = TMP[1];
  CPA[o + 2] = TMP[2];
  lift(FB, B2, kB, NB, x, y, TMP);
  CPB[o] = TMP[0];
  CPB[o + 1] = TMP[1];
  CPB[o + 2] = TMP[2];
  const d =
    FR[9] * (CPB[o] - CPA[o]) + FR[10] * (CPB[o + 1] - CPA[o + 1]) + FR[11] * (CPB[o + 2] - CPA[o + 2]);
  if (!inBand(d, margin, gap)) return;
  CD[NCAND++] = d;
}

/** signed area (×2) of a 2D polygon */
function area2(P: Float64Array, k: number): number {
  let s = 0;
  for (let i = 0; i < k; i++) {
    const j = (i + 1) % k;
    s += P[i * 2] * P[j * 2 + 1] - P[j * 2] * P[i * 2 + 1];
  }
  return s;
}

/** clips polygon I (k points) by the convex polygon R (kr points, orientation σ); result in POLY0 (returns count) */
function clipPolygon(I: Float64Array, k: number, R: Float64Array, kr: number, sigma: number): number {
  let src = POLY0,
    dst = POLY1;
  for (let i = 0; i < k * 2; i++) src[i] = I[i];
  let n = k;
  for (let e = 0; e < kr && n > 0; e++) {
    const ax = R[e * 2],
      ay = R[e * 2 + 1];
    const bx = R[((e + 1) % kr) * 2],
      by = R[((e + 1) % kr) * 2 + 1];
    const ex = bx - ax,
      ey = by - ay;
    let m = 0;
    for (let i = 0; i < n; i++) {
      const j = (i + 1) % n;
      const px = src[i * 2],
        py = src[i * 2 + 1];
      const qx = src[j * 2],
        qy = src[j * 2 + 1];
      const fp = sigma * (ex * (py - ay) - ey * (px - ax));
      const fq = sigma * (ex * (qy - ay) - ey * (qx - ax));
      if (fp >= 0 && m < MAXC) {
        dst[m * 2] = px;
        dst[m * 2 + 1] = py;
        m++;
      }
      if (fp >= 0 !== fq >= 0 && m < MAXC) {
        const t = fp / (fp - fq);
        dst[m * 2] = px + t * (qx - px);
        dst[m * 2 + 1] = py + t * (qy - py);
        m++;
      }
    }
    const t = src;
    src = dst;
    dst = t;
    n = m;
  }
  if (src !== POLY0) for (let i = 0; i < n * 2; i++) POLY0[i] = src[i];
  return n;
}

/** clips the segment S (2 points) by the convex polygon R; writes t-range to TMP[0..2); false when empty */
function clipSegment(S: Float64Array, R: Float64Array, kr: number, sigma: number): boolean {
  let lo = 0,
    hi = 1;
  const sx = S[0],
    sy = S[1],
    dx = S[2] - S[0],
    dy = S[3] - S[1];
  for (let e = 0; e < kr; e++) {
    const ax = R[e * 2],
      ay = R[e * 2 + 1];
    const ex = R[((e + 1) % kr) * 2] - ax,
      ey = R[((e + 1) % kr) * 2 + 1] - ay;
    const f0 = sigma * (ex * (sy - ay) - ey * (sx - ax));
    const df = sigma * (ex * dy - ey * dx);
    if (df === 0) {
      if (f0 < 0) return false;
      continue;
    }
    const t = -f0 / df;
    if (df > 0) {
      if (t > lo) lo = t;
    } else if (t < hi) hi = t;
    if (lo > hi) return false;
  }
  TMP[0] = lo;
  TMP[1] = hi;
  return true;
}

/**
 * Builds the manifold from the features along NV, given the single-point estimate (WA, WB, dRef).
 * With `faceOnly` (triangle penetration) nothing is appended unless the clip yields points.
 */
function buildManifold(
  dRef: number,
  margin: number,
  gap: number,
  scale: number,
  out: ContactManifold,
  faceOnly = false,
): number {
  const nx = NV[0],
    ny = NV[1],
    nz = NV[2];
  const kA = proxyFeature(0, nx, ny, nz, FA);
  NA[0] = FEATURE_NORMAL[0];
  NA[1] = FEATURE_NORMAL[1];
  NA[2] = FEATURE_NORMAL[2];
  const kB = proxyFeature(1, -nx, -ny, -nz, FB);
  NB[0] = FEATURE_NORMAL[3];
  NB[1] = FEATURE_NORMAL[4];
  NB[2] = FEATURE_NORMAL[5];
  NCAND = 0;
  const from = out.count;
  const tiny = 1e-9 * scale;
  FR[0] = WA[0];
  FR[1] = WA[1];
  FR[2] = WA[2];
  if (kA >= 3 || kB >= 3) {
    const alA = kA >= 3 ? NA[0] * nx + NA[1] * ny + NA[2] * nz : -2;
    const alB = kB >= 3 ? -(NB[0] * nx + NB[1] * ny + NB[2] * nz) : -2;
    const refA = alA >= alB;
    if (refA) planeBasis(NA[0], NA[1], NA[2]);
    else planeBasis(-NB[0], -NB[1], -NB[2]);
    project(FA, kA, A2);
    project(FB, kB, B2);
    const R = refA ? A2 : B2,
      kr = refA ? kA : kB;
    const I = refA ? B2 : A2,
      ki = refA ? kB : kA;
    const sigma = area2(R, kr) >= 0 ? 1 : -1;
    if (ki >= 3) {
      const m = clipPolygon(I, ki, R, kr, sigma);
      for (let i = 0; i < m; i++) candidate(kA, kB, POLY0[i * 2], POLY0[i * 2 + 1], margin, gap);
    } else if (ki === 2) {
      if (clipSegment(I, R, kr, sigma)) {
        const lo = TMP[0],
          hi = TMP[1];
        const x0 = I[0] + lo * (I[2] - I[0]),
          y0 = I[1] + lo * (I[3] - I[1]);
        const x1 = I[0] + hi * (I[2] - I[0]),
          y1 = I[1] + hi * (I[3] - I[1]);
        candidate(kA, kB, x0, y0, margin, gap);
        if (Math.hypot(x1 - x0, y1 - y0) > tiny) candidate(kA, kB, x1, y1, margin, gap);
      }
    } else {
      // a point inside the reference polygon
      let inside = true;
      for (let e = 0; e < kr && inside; e++) {
        const ax = R[e * 2],
          ay = R[e * 2 + 1];
        const ex = R[((e + 1) % kr) * 2] - ax,
          ey = R[((e + 1) % kr) * 2 + 1] - ay;
        if (sigma * (ex * (I[1] - ay) - ey * (I[0] - ax)) < -tiny * Math.hypot(ex, ey)) inside = false;
      }
      if (inside) candidate(kA, kB, I[0], I[1], margin, gap);
    }
  } else if (kA === 2 && kB === 2) {
    planeBasis(nx, ny, nz);
    project(FA, 2, A2);
    project(FB, 2, B2);
    const ax = A2[2] - A2[0],
      ay = A2[3] - A2[1];
    const bx = B2[2] - B2[0],
      by = B2[3] - B2[1];
    const la = Math.hypot(ax, ay),
      lb = Math.hypot(bx, by);
    if (la > tiny && lb > tiny && Math.abs(ax * by - ay * bx) <= FEATURE_SIN_TOL * la * lb) {
      // parallel: the ends of the overlap along A
      const ux = ax / la,
        uy = ay / la;
      const s0 = (B2[0] - A2[0]) * ux + (B2[1] - A2[1]) * uy;
      const s1 = (B2[2] - A2[0]) * ux + (B2[3] - A2[1]) * uy;
      const lo = Math.max(0, Math.min(s0, s1)),
        hi = Math.min(la, Math.max(s0, s1));
      if (hi - lo > tiny) {
        for (let e = 0; e < 2; e++) {
          const s = e === 0 ? lo : hi;
          const o = NCAND * 3;
          const ta = s / la;
          const tb = s1 !== s0 ? Math.min(1, Math.max(0, (s - s0) / (s1 - s0))) : 0;
          let d = 0;
          for (let c = 0; c < 3; c++) {
            CPA[o + c] = FA[c] + ta * (FA[3 + c] - FA[c]);
            CPB[o + c] = FB[c] + tb * (FB[3 + c] - FB[c]);
            d += NV[c] * (CPB[o + c] - CPA[o + c]);
          }
          if (inBand(d, margin, gap)) CD[NCAND++] = d;
        }
        FR[9] = nx;
        FR[10] = ny;
        FR[11] = nz;
      }
    }
  }
  if (NCAND === 0) {
    if (faceOnly) return 0;
    // one point: the single estimate, snapped onto the features
    snap(FA, kA, NA, WA, proxyRadius(0));
    snap(FB, kB, NB, WB, proxyRadius(1));
    const d = nx * (WB[0] - WA[0]) + ny * (WB[1] - WA[1]) + nz * (WB[2] - WA[2]);
    if (inBand(d, margin, gap)) addContact(out, nx, ny, nz, WA[0], WA[1], WA[2], WB[0], WB[1], WB[2], d, 0);
    return out.count - from;
  }
  const m = selectSpread(NCAND, CPA, CD, CONVEX_MAX_POINTS, tiny, PICK);
  let minD = Infinity;
  for (let q = 0; q < m; q++) {
    const i = PICK[q],
      o = i * 3;
    addContact(
      out,
      FR[9],
      FR[10],
      FR[11],
      CPA[o],
      CPA[o + 1],
      CPA[o + 2],
      CPB[o],
      CPB[o + 1],
      CPB[o + 2],
      CD[i],
      q,
    );
    if (CD[i] < minD) minD = CD[i];
  }
  // (not for a penetrated triangle: the single estimate's triangle witness may lie off the triangle)
  if (!faceOnly && minD > dRef + 1e-9 * scale) {
    snap(FA, kA, NA, WA, proxyRadius(0));
    snap(FB, kB, NB, WB, proxyRadius(1));
    const d = nx * (WB[0] - WA[0]) + ny * (WB[1] - WA[1]) + nz * (WB[2] - WA[2]);
    if (inBand(d, margin, gap)) {
      addContact(out, nx, ny, nz, WA[0], WA[1], WA[2], WB[0], WB[1], WB[2], d, CONVEX_EXACT_FEATURE);
    }
  }
  return out.count - from;
}

/**
 * Moves the estimate W onto the feature: the point itself, the closest point of a segment, or the
 * face plane. Shapes with a radius (sphere, capsule) keep W = core point + r·n, which is exact.
 */
function snap(F: Float64Array, k: number, N: Float64Array, W: Float64Array, radius: number): void {
  if (radius > 0) return;
  if (k === 1) {
    W[0] = F[0];
    W[1] = F[1];
    W[2] = F[2];
  } else if (k === 2) {
    const ex = F[3] - F[0],
      ey = F[4] - F[1],
      ez = F[5] - F[2];
    const ee = ex * ex + ey * ey + ez * ez;
    let t = ee > 0 ? ((W[0] - F[0]) * ex + (W[1] - F[1]) * ey + (W[2] - F[2]) * ez) / ee : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    W[0] = F[0] + t * ex;
    W[1] = F[1] + t * ey;
    W[2] = F[2] + t * ez;
  } else {
    const h = N[0] * (W[0] - F[0]) + N[1] * (W[1] - F[1]) + N[2] * (W[2] - F[2]);
    W[0] -= h * N[0];
    W[1] -= h * N[1];
    W[2] -= h * N[2];
  }
}

/**
 * Narrow-phase routine for two convex shapes (any of sphere, capsule, box, cylinder, cone,
 * ellipsoid, convex mesh) by the general path. Evaluated in ascending shape-index order and flipped
 * back, so swapping the shapes gives exactly the flipped manifold.
 */
export function collideConvexConvex(
  g: ShapeGeom,
  a: number,
  b: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const swap = b < a;
  const from = out.count;
  loadShapeProxy(0, g, swap ? b : a);
  loadShapeProxy(1, g, swap ? a : b);
  collideConvexProxies(margin, gap, false, out);
  if (swap) flipManifold(out, from);
}

/** whether proxy slot p is a triangle */
export function isTriangleProxy(p: number): boolean {
  return proxyKind(p) === ProxyKind.TRIANGLE;
}
