/**
 * GJK distance and EPA penetration between the cores of proxy slots 0 (A) and 1 (B) of
 * `support.ts`, over the Minkowski difference C = A − B (support s_C(d) = s_A(d) − s_B(−d)).
 *
 * - {@link gjkDistance}: the closest points of two disjoint cores (exact for polytopes, converged to
 *   a relative gap of {@link GJK_REL_TOL} for curved cores), with an early exit once the distance
 *   provably exceeds a bound (no contact possible). The normal n = (p_B − p_A)/|p_B − p_A| points
 *   from A into B.
 * - {@link epaPenetration}: for overlapping cores, the minimum translation depth δ and its direction
 *   n (the outward normal of C at its boundary point nearest the origin; moving B by δ·n separates
 *   them), expanding the final GJK simplex (blown up to a tetrahedron when needed).
 * Results are written to {@link GJK_OUT}. Everything is allocation-free (module-level scratch).
 */
import { proxyCentre, proxyRadius, proxyScale, supportCore } from './support';

/** relative convergence tolerance of GJK: stop when |v|² − vᵀw ≤ tol·|v|² */
export const GJK_REL_TOL = 1e-12;
/** GJK iteration cap */
export const GJK_MAX_ITER = 200;
/** EPA convergence tolerance, relative to the shapes' size */
export const EPA_REL_TOL = 1e-9;
/** EPA iteration cap */
export const EPA_MAX_ITER = 256;

export const GjkStatus = {
  /** cores disjoint: GJK_OUT holds distance, normal and closest points */
  SEPARATED: 0,
  /** the core distance exceeds the requested bound; nothing written */
  FAR: 1,
  /** cores overlap (or touch within round-off): run EPA */
  OVERLAP: 2,
} as const;

/**
 * [0] distance (GJK) or depth (EPA) [m]; [1..4) unit normal from A into B; [4..7) witness on A's
 * core; [7..10) witness on B's core (world frame)
 */
export const GJK_OUT = new Float64Array(10);

// simplex: Minkowski points and their A / B support points
const SW = new Float64Array(12);
const SA = new Float64Array(12);
const SB = new Float64Array(12);
const LAM = new Float64Array(4);
let NS = 0;
const V = new Float64Array(3);
const TA = new Float64Array(3);
const TB = new Float64Array(3);
/** closest-point scratch: mask of kept vertices and barycentrics */
const KEEP = new Int32Array(4);
const BARY = new Float64Array(4);
const TMP_W = new Float64Array(12);
const BK = new Int32Array(3);
const BB = new Float64Array(3);
const TMP_A = new Float64Array(12);
const TMP_B = new Float64Array(12);

/** support of C in direction d: writes A's point to TA, B's to TB, returns nothing */
function supportC(dx: number, dy: number, dz: number): void {
  supportCore(0, dx, dy, dz, TA, 0);
  supportCore(1, -dx, -dy, -dz, TB, 0);
}

/** closest point to the origin on the triangle (i, j, k) of SW: sets KEEP/BARY (3 slots), returns |v|² */
function closestTriangle(i: number, j: number, k: number): number {
  const ax = SW[i * 3],
    ay = SW[i * 3 + 1],
    az = SW[i * 3 + 2];
  const abx = SW[j * 3] - ax,
    aby = SW[j * 3 + 1] - ay,
    abz = SW[j * 3 + 2] - az;
  const acx = SW[k * 3] - ax,
    acy = SW[k * 3 + 1] - ay,
    acz = SW[k * 3 + 2] - az;
  KEEP[0] = i;
  KEEP[1] = j;
  KEEP[2] = k;
  const d1 = -(abx * ax + aby * ay + abz * az);
  const d2 = -(acx * ax + acy * ay + acz * az);
  if (d1 <= 0 && d2 <= 0) return setBary(1, 0, 0);
  const bx = SW[j * 3],
    by = SW[j * 3 + 1],
    bz = SW[j * 3 + 2];
  const d3 = -(abx * bx + aby * by + abz * bz);
  const d4 = -(acx * bx + acy * by + acz * bz);
  if (d3 >= 0 && d4 <= d3) return setBary(0, 1, 0);
  const vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const t = d1 / (d1 - d3);
    return setBary(1 - t, t, 0);
  }
  const cx = SW[k * 3],
    cy = SW[k * 3 + 1],
    cz = SW[k * 3 + 2];
  const d5 = -(abx * cx + aby * cy + abz * cz);
  const d6 = -(acx * cx + acy * cy + acz * cz);
  if (d6 >= 0 && d5 <= d6) return setBary(0, 0, 1);
  const vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const t = d2 / (d2 - d6);
    return setBary(1 - t, 0, t);
  }
  const va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    const t = (d4 - d3) / (d4 - d3 + (d5 - d6));
    return setBary(0, 1 - t, t);
  }
  const den = va + vb + vc;
  if (!(den > 0)) {
    // degenerate (collinear) triangle: the best of its edges
    let best = Infinity,
      b0 = 0,
      b1 = 0,
      b2 = 0;
    for (let e = 0; e < 3; e++) {
      const p = e === 0 ? i : e === 1 ? j : i,
        q = e === 0 ? j : e === 1 ? k : k;
      const px = SW[p * 3],
        py = SW[p * 3 + 1],
        pz = SW[p * 3 + 2];
      const ex = SW[q * 3] - px,
        ey = SW[q * 3 + 1] - py,
        ez = SW[q * 3 + 2] - pz;
      const ee = ex * ex + ey * ey + ez * ez;
      let t = ee > 0 ? -(px * ex + py * ey + pz * ez) / ee : 0;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      const qx = px + t * ex,
        qy = py + t * ey,
        qz = pz + t * ez;
      const d = qx * qx + qy * qy + qz * qz;
      if (d < best) {
        best = d;
        b0 = e === 0 ? 1 - t : e === 1 ? 0 : 1 - t;
        b1 = e === 0 ? t : e === 1 ? 1 - t : 0;
        b2 = e === 0 ? 0 : t;
      }
    }
    return setBary(b0, b1, b2);
  }
  const v = vb / den,
    w = vc / den;
  return setBary(1 - v - w, v, w);
}

function setBary(a: number, b: number, c: number): number {
  BARY[0] = a;
  BARY[1] = b;
  BARY[2] = c;
  let x = 0,
    y = 0,
    z = 0;
  for (let q = 0; q < 3; q++) {
    const s = KEEP[q] * 3;
    x += BARY[q] * SW[s];
    y += BARY[q] * SW[s + 1];
    z += BARY[q] * SW[s + 2];
  }
  return x * x + y * y + z * z;
}

/** whether the origin and vertex d lie on opposite sides of the plane (a, b, c) of SW */
function originOutside(a: number, b: number, c: number, d: number): boolean {
  const ax = SW[a * 3],
    ay = SW[a * 3 + 1],
    az = SW[a * 3 + 2];
  const abx = SW[b * 3] - ax,
    aby = SW[b * 3 + 1] - ay,
    abz = SW[b * 3 + 2] - az;
  const acx = SW[c * 3] - ax,
    acy = SW[c * 3 + 1] - ay,
    acz = SW[c * 3 + 2] - az;
  const nx = aby * acz - abz * acy,
    ny = abz * acx - abx * acz,
    nz = abx * acy - aby * acx;
  const sp = -(nx * ax + ny * ay + nz * az);
  const sd = nx * (SW[d * 3] - ax) + ny * (SW[d * 3 + 1] - ay) + nz * (SW[d * 3 + 2] - az);
  // a flat tetrahedron: treat every face as a candidate
  if (sd * sd <= 1e-24 * (nx * nx + ny * ny + nz * nz) * (abx * abx + aby * aby + abz * abz + 1e-300))
    return true;
  return sp * sd < 0;
}

/** reduces the simplex to its closest feature to the origin; writes V, LAM; returns false when the origin is inside */
function solveSimplex(): boolean {
  if (NS === 1) {
    LAM[0] = 1;
    V[0] = SW[0];
    V[1] = SW[1];
    V[2] = SW[2];
    return true;
  }
  let kept = 0;
  if (NS === 2) {
    const ax = SW[0],
      ay = SW[1],
      az = SW[2];
    const ex = SW[3] - ax,
      ey = SW[4] - ay,
      ez = SW[5] - az;
    const ee = ex * ex + ey * ey + ez * ez;
    const t = ee > 0 ? -(ax * ex + ay * ey + az * ez) / ee : 0;
    if (t <= 0) {
      KEEP[0] = 0;
      BARY[0] = 1;
      kept = 1;
    } else if (t >= 1) {
      KEEP[0] = 1;
      BARY[0] = 1;
      kept = 1;
    } else {
      KEEP[0] = 0;
      KEEP[1] = 1;
      BARY[0] = 1 - t;
      BARY[1] = t;
      kept = 2;
    }
  } else if (NS === 3) {
    closestTriangle(0, 1, 2);
    kept = compactBary(3);
  } else {
    // tetrahedron: the best face whose plane separates the origin from the opposite vertex
    let best = Infinity;
    const bk = BK,
      bb = BB;
    let any = false;
    for (let f = 0; f < 4; f++) {
      const a = f === 0 ? 0 : f === 1 ? 0 : f === 2 ? 0 : 1;
      const b = f === 0 ? 1 : f === 1 ? 2 : f === 2 ? 3 : 3;
      const c = f === 0 ? 2 : f === 1 ? 3 : f === 2 ? 1 : 2;
      const d = f === 0 ? 3 : f === 1 ? 1 : f === 2 ? 2 : 0;
      if (!originOutside(a, b, c, d)) continue;
      any = true;
      const dist = closestTriangle(a, b, c);
      if (dist < best) {
        best = dist;
        for (let q = 0; q < 3; q++) {
          bk[q] = KEEP[q];
          bb[q] = BARY[q];
        }
      }
    }
    if (!any) return false;
    for (let q = 0; q < 3; q++) {
      KEEP[q] = bk[q];
      BARY[q] = bb[q];
    }
    kept = compactBary(3);
  }
  // rebuild the simplex from the kept vertices
  for (let q = 0; q < kept; q++) {
    const s = KEEP[q] * 3;
    for (let k = 0; k < 3; k++) {
      TMP_W[q * 3 + k] = SW[s + k];
      TMP_A[q * 3 + k] = SA[s + k];
      TMP_B[q * 3 + k] = SB[s + k];
    }
    LAM[q] = BARY[q];
  }
  NS = kept;
  V[0] = V[1] = V[2] = 0;
  for (let q = 0; q < kept; q++) {
    for (let k = 0; k < 3; k++) {
      SW[q * 3 + k] = TMP_W[q * 3 + k];
      SA[q * 3 + k] = TMP_A[q * 3 + k];
      SB[q * 3 + k] = TMP_B[q * 3 + k];
      V[k] += LAM[q] * SW[q * 3 + k];
    }
  }
  return true;
}

/** drops zero barycentrics of the first n KEEP/BARY slots; returns the count kept */
function compactBary(n: number): number {
  let m = 0;
  for (let q = 0; q < n; q++) {
    if (BARY[q] > 0) {
      KEEP[m] = KEEP[q];
      BARY[m] = BARY[q];
      m++;
    }
  }
  if (m === 0) {
    m = 1;
    BARY[0] = 1;
  }
  return m;
}

/** witnesses Σλ a_i, Σλ b_i of the current simplex into GJK_OUT[4..10) */
function writeWitnesses(): void {
  for (let k = 0; k < 3; k++) {
    let a = 0,
      b = 0;
    for (let q = 0; q < NS; q++) {
      a += LAM[q] * SA[q * 3 + k];
      b += LAM[q] * SB[q * 3 + k];
    }
    GJK_OUT[4 + k] = a;
    GJK_OUT[7 + k] = b;
  }
}

/** the last usable search direction (for touching contacts, see {@link lastDirection}) */
const LASTV = new Float64Array(3);

/**
 * Distance between the cores of proxies 0 and 1. Returns {@link GjkStatus}: SEPARATED (GJK_OUT
 * filled), FAR (distance > maxDist, nothing written) or OVERLAP (the simplex is kept for EPA).
 * @param maxDist distance beyond which the caller has no use for the result [m]
 */
export function gjkDistance(maxDist: number): number {
  const scale = Math.max(proxyScale(0), proxyScale(1), 1e-300);
  const absTol2 = (1e-13 * scale) ** 2;
  const dy = proxyCentre(1, 1) - proxyCentre(0, 1),
    dz = proxyCentre(1, 2) - proxyCentre(0, 2);
  let dx = proxyCentre(1, 0) - proxyCentre(0, 0);
  if (dx === 0 && dy === 0 && dz === 0) dx = 1;
  LASTV[0] = -dx;
  LASTV[1] = -dy;
  LASTV[2] = -dz;
  // first point: support towards the other shape (v = a − b)
  supportC(dx, dy, dz);
  NS = 1;
  for (let k = 0; k < 3; k++) {
    SA[k] = TA[k];
    SB[k] = TB[k];
    SW[k] = TA[k] - TB[k];
  }
  LAM[0] = 1;
  V[0] = SW[0];
  V[1] = SW[1];
  V[2] = SW[2];
  const max2 = maxDist * maxDist;
  for (let iter = 0; iter < GJK_MAX_ITER; iter++) {
    const vv = V[0] * V[0] + V[1] * V[1] + V[2] * V[2];
    if (vv <= absTol2) return GjkStatus.OVERLAP;
    LASTV[0] = V[0];
    LASTV[1] = V[1];
    LASTV[2] = V[2];
    supportC(-V[0], -V[1], -V[2]);
    const wx = TA[0] - TB[0],
      wy = TA[1] - TB[1],
      wz = TA[2] - TB[2];
    const vw = V[0] * wx + V[1] * wy + V[2] * wz;
    if (vw > 0 && vw * vw > vv * max2) return GjkStatus.FAR;
    if (vv - vw <= GJK_REL_TOL * vv) break;
    // a repeated vertex: no progress possible
    let dup = false;
    for (let q = 0; q < NS; q++) {
      if (SW[q * 3] === wx && SW[q * 3 + 1] === wy && SW[q * 3 + 2] === wz) dup = true;
    }
    if (dup) break;
    const o = NS * 3;
    SW[o] = wx;
    SW[o + 1] = wy;
    SW[o + 2] = wz;
    for (let k = 0; k < 3; k++) {
      SA[o + k] = TA[k];
      SB[o + k] = TB[k];
    }
    NS++;
    if (!solveSimplex()) return GjkStatus.OVERLAP;
    const nv = V[0] * V[0] + V[1] * V[1] + V[2] * V[2];
    if (nv >= vv) {
      // no decrease (round-off): keep the previous estimate's direction, stop
      break;
    }
  }
  const vv = V[0] * V[0] + V[1] * V[1] + V[2] * V[2];
  if (vv <= absTol2) return GjkStatus.OVERLAP;
  const d = Math.sqrt(vv);
  writeWitnesses();
  GJK_OUT[0] = d;
  GJK_OUT[1] = -V[0] / d;
  GJK_OUT[2] = -V[1] / d;
  GJK_OUT[3] = -V[2] / d;
  return GjkStatus.SEPARATED;
}

/**
 * A unit direction from A into B usable when GJK found the cores touching or EPA failed: the last
 * GJK search direction (or the centre offset). Written to out[0..3).
 */
export function lastDirection(out: Float64Array): void {
  let x = -LASTV[0],
    y = -LASTV[1],
    z = -LASTV[2];
  let l = Math.hypot(x, y, z);
  if (!(l > 0)) {
    x = proxyCentre(1, 0) - proxyCentre(0, 0);
    y = proxyCentre(1, 1) - proxyCentre(0, 1);
    z = proxyCentre(1, 2) - proxyCentre(0, 2);
    l = Math.hypot(x, y, z);
    if (!(l > 0)) {
      x = 0;
      y = 0;
      z = 1;
      l = 1;
    }
  }
  out[0] = x / l;
  out[1] = y / l;
  out[2] = z / l;
}

// ---- EPA ----
/** [0] iterations of the last EPA run (diagnostics) */
export const EPA_STATS = new Int32Array(1);
const MAXV = 300;
const MAXF = 2 * MAXV;
const EW = new Float64Array(MAXV * 3);
const EA = new Float64Array(MAXV * 3);
const EB = new Float64Array(MAXV * 3);
const FI = new Int32Array(MAXF * 3);
const FN = new Float64Array(MAXF * 3);
const FD = new Float64Array(MAXF);
const FALIVE = new Uint8Array(MAXF);
const EDGE = new Int32Array(MAXF * 3 * 2);
let NV = 0;
let NF = 0;

function addVertex(): number {
  const o = NV * 3;
  for (let k = 0; k < 3; k++) {
    EA[o + k] = TA[k];
    EB[o + k] = TB[k];
    EW[o + k] = TA[k] - TB[k];
  }
  return NV++;
}

/** adds face (i, j, k); returns false when out of room */
function addFace(i: number, j: number, k: number): boolean {
  if (NF >= MAXF) return false;
  const f = NF++;
  FI[f * 3] = i;
  FI[f * 3 + 1] = j;
  FI[f * 3 + 2] = k;
  FALIVE[f] = 1;
  const ax = EW[i * 3],
    ay = EW[i * 3 + 1],
    az = EW[i * 3 + 2];
  const e1x = EW[j * 3] - ax,
    e1y = EW[j * 3 + 1] - ay,
    e1z = EW[j * 3 + 2] - az;
  const e2x = EW[k * 3] - ax,
    e2y = EW[k * 3 + 1] - ay,
    e2z = EW[k * 3 + 2] - az;
  const nx = e1y * e2z - e1z * e2y,
    ny = e1z * e2x - e1x * e2z,
    nz = e1x * e2y - e1y * e2x;
  const l = Math.hypot(nx, ny, nz);
  if (l > 0) {
    FN[f * 3] = nx / l;
    FN[f * 3 + 1] = ny / l;
    FN[f * 3 + 2] = nz / l;
    FD[f] = (nx * ax + ny * ay + nz * az) / l;
  } else {
    FN[f * 3] = FN[f * 3 + 1] = 0;
    FN[f * 3 + 2] = 1;
    FD[f] = Infinity; // degenerate sliver: never the closest face
  }
  return true;
}

/** drops dead faces, keeping the live ones in order */
function compactFaces(): void {
  let m = 0;
  for (let f = 0; f < NF; f++) {
    if (!FALIVE[f]) continue;
    if (m !== f) {
      for (let k = 0; k < 3; k++) {
        FI[m * 3 + k] = FI[f * 3 + k];
        FN[m * 3 + k] = FN[f * 3 + k];
      }
      FD[m] = FD[f];
      FALIVE[m] = 1;
    }
    m++;
  }
  NF = m;
}

/** distance of EW[v] from the line (EW[a], EW[b]) */
function lineDist(v: number, a: number, b: number): number {
  const ex = EW[b * 3] - EW[a * 3],
    ey = EW[b * 3 + 1] - EW[a * 3 + 1],
    ez = EW[b * 3 + 2] - EW[a * 3 + 2];
  const wx = EW[v * 3] - EW[a * 3],
    wy = EW[v * 3 + 1] - EW[a * 3 + 1],
    wz = EW[v * 3 + 2] - EW[a * 3 + 2];
  const cx = ey * wz - ez * wy,
    cy = ez * wx - ex * wz,
    cz = ex * wy - ey * wx;
  const l = Math.hypot(ex, ey, ez);
  return l > 0 ? Math.hypot(cx, cy, cz) / l : Math.hypot(wx, wy, wz);
}

/**
 * Penetration of overlapping cores, starting from the simplex GJK left (call right after
 * {@link gjkDistance} returned OVERLAP). On success returns true with GJK_OUT = [depth, n (A → B),
 * witness on A's core, witness on B's core]; false when the configuration is degenerate (touching
 * within round-off, or flat Minkowski difference).
 */
export function epaPenetration(): boolean {
  const scale = Math.max(proxyScale(0), proxyScale(1), 1e-300);
  const tol = EPA_REL_TOL * scale;
  const eps = 1e-12 * scale;
  NV = 0;
  NF = 0;
  for (let q = 0; q < NS; q++) {
    for (let k = 0; k < 3; k++) {
      EW[q * 3 + k] = SW[q * 3 + k];
      EA[q * 3 + k] = SA[q * 3 + k];
      EB[q * 3 + k] = SB[q * 3 + k];
    }
  }
  NV = NS;
  // blow the simplex up to a tetrahedron
  if (NV === 1) {
    for (let a = 0; a < 6 && NV === 1; a++) {
      const s = a & 1 ? -1 : 1;
      supportC(a >> 1 === 0 ? s : 0, a >> 1 === 1 ? s : 0, a >> 1 === 2 ? s : 0);
      if (Math.hypot(TA[0] - TB[0] - EW[0], TA[1] - TB[1] - EW[1], TA[2] - TB[2] - EW[2]) > eps) addVertex();
    }
    if (NV === 1) return false;
  }
  if (NV === 2) {
    const ex = EW[3] - EW[0],
      ey = EW[4] - EW[1],
      ez = EW[5] - EW[2];
    // a unit vector perpendicular to e, and a second one
    const ax = Math.abs(ex),
      ay = Math.abs(ey),
      az = Math.abs(ez);
    let px: number, py: number, pz: number;
    if (ax <= ay && ax <= az) {
      px = 0;
      py = -ez;
      pz = ey;
    } else if (ay <= az) {
      px = ez;
      py = 0;
      pz = -ex;
    } else {
      px = -ey;
      py = ex;
      pz = 0;
    }
    let l = Math.hypot(px, py, pz);
    px /= l;
    py /= l;
    pz /= l;
    let qx = ey * pz - ez * py,
      qy = ez * px - ex * pz,
      qz = ex * py - ey * px;
    l = Math.hypot(qx, qy, qz);
    qx /= l;
    qy /= l;
    qz /= l;
    for (let k = 0; k < 6 && NV === 2; k++) {
      const c = Math.cos((k * Math.PI) / 3),
        s = Math.sin((k * Math.PI) / 3);
      supportC(c * px + s * qx, c * py + s * qy, c * pz + s * qz);
      const v = addVertex();
      if (lineDist(v, 0, 1) <= eps) NV--;
    }
    if (NV === 2) return false;
  }
  if (NV === 3) {
    const e1x = EW[3] - EW[0],
      e1y = EW[4] - EW[1],
      e1z = EW[5] - EW[2];
    const e2x = EW[6] - EW[0],
      e2y = EW[7] - EW[1],
      e2z = EW[8] - EW[2];
    const nx = e1y * e2z - e1z * e2y,
      ny = e1z * e2x - e1x * e2z,
      nz = e1x * e2y - e1y * e2x;
    const l = Math.hypot(nx, ny, nz);
    if (!(l > 0)) return false;
    for (let s = 1; s >= -1 && NV === 3; s -= 2) {
      supportC(s * nx, s * ny, s * nz);
      const v = addVertex();
      const h = (nx * (EW[v * 3] - EW[0]) + ny * (EW[v * 3 + 1] - EW[1]) + nz * (EW[v * 3 + 2] - EW[2])) / l;
      if (Math.abs(h) <= eps) NV--;
    }
    if (NV === 3) return false;
  }
  // the tetrahedron's faces, oriented away from its fourth vertex
  const e1x = EW[3] - EW[0],
    e1y = EW[4] - EW[1],
    e1z = EW[5] - EW[2];
  const e2x = EW[6] - EW[0],
    e2y = EW[7] - EW[1],
    e2z = EW[8] - EW[2];
  const e3x = EW[9] - EW[0],
    e3y = EW[10] - EW[1],
    e3z = EW[11] - EW[2];
  const vol = e1x * (e2y * e3z - e2z * e3y) - e1y * (e2x * e3z - e2z * e3x) + e1z * (e2x * e3y - e2y * e3x);
  if (vol === 0) return false;
  if (vol > 0) {
    // (0, 1, 2) has vertex 3 on its positive side: use the reversed orientation
    addFace(0, 2, 1);
    addFace(0, 1, 3);
    addFace(1, 2, 3);
    addFace(2, 0, 3);
  } else {
    addFace(0, 1, 2);
    addFace(0, 3, 1);
    addFace(1, 3, 2);
    addFace(2, 3, 0);
  }
  for (let f = 0; f < NF; f++) if (FD[f] < -eps) return false; // the origin is not inside

  let best = 0;
  EPA_STATS[0] = 0;
  for (let iter = 0; iter < EPA_MAX_ITER; iter++) {
    EPA_STATS[0] = iter;
    best = -1;
    let bd = Infinity;
    for (let f = 0; f < NF; f++) {
      if (FALIVE[f] && FD[f] < bd) {
        bd = FD[f];
        best = f;
      }
    }
    if (best < 0) return false;
    const nx = FN[best * 3],
      ny = FN[best * 3 + 1],
      nz = FN[best * 3 + 2];
    supportC(nx, ny, nz);
    const wd = nx * (TA[0] - TB[0]) + ny * (TA[1] - TB[1]) + nz * (TA[2] - TB[2]);
    if (wd - bd <= tol || NV >= MAXV) break;
    const v = addVertex();
    const wx = EW[v * 3],
      wy = EW[v * 3 + 1],
      wz = EW[v * 3 + 2];
    // remove the faces v sees; their unshared edges form the horizon
    let ne = 0;
    for (let f = 0; f < NF; f++) {
      if (!FALIVE[f]) continue;
      const i0 = FI[f * 3] * 3;
      const s =
        FN[f * 3] * (wx - EW[i0]) + FN[f * 3 + 1] * (wy - EW[i0 + 1]) + FN[f * 3 + 2] * (wz - EW[i0 + 2]);
      if (s <= eps && f !== best) continue;
      FALIVE[f] = 0;
      for (let e = 0; e < 3; e++) {
        const p = FI[f * 3 + e],
          q = FI[f * 3 + ((e + 1) % 3)];
        let found = -1;
        for (let m = 0; m < ne; m++) {
          if (EDGE[m * 2] === q && EDGE[m * 2 + 1] === p) {
            found = m;
            break;
          }
        }
        if (found >= 0) {
          ne--;
          EDGE[found * 2] = EDGE[ne * 2];
          EDGE[found * 2 + 1] = EDGE[ne * 2 + 1];
        } else {
          EDGE[ne * 2] = p;
          EDGE[ne * 2 + 1] = q;
          ne++;
        }
      }
    }
    if (NF + ne > MAXF) compactFaces();
    let ok = true;
    for (let m = 0; m < ne && ok; m++) ok = addFace(EDGE[m * 2], EDGE[m * 2 + 1], v);
    if (!ok) {
      // out of room: fall back to the best live face
      break;
    }
  }
  // pick the final closest face
  best = -1;
  let bd = Infinity;
  for (let f = 0; f < NF; f++) {
    if (FALIVE[f] && FD[f] < bd) {
      bd = FD[f];
      best = f;
    }
  }
  if (best < 0 || !Number.isFinite(bd)) return false;
  const nx = FN[best * 3],
    ny = FN[best * 3 + 1],
    nz = FN[best * 3 + 2];
  // barycentrics of the origin's projection bd·n on the face
  const i = FI[best * 3],
    j = FI[best * 3 + 1],
    k = FI[best * 3 + 2];
  const qx = bd * nx,
    qy = bd * ny,
    qz = bd * nz;
  const l0 = triArea(j, k, qx, qy, qz, nx, ny, nz);
  const l1 = triArea(k, i, qx, qy, qz, nx, ny, nz);
  const l2 = triArea(i, j, qx, qy, qz, nx, ny, nz);
  let b0 = Math.max(0, l0),
    b1 = Math.max(0, l1),
    b2 = Math.max(0, l2);
  const s = b0 + b1 + b2;
  if (s > 0) {
    b0 /= s;
    b1 /= s;
    b2 /= s;
  } else {
    b0 = b1 = b2 = 1 / 3;
  }
  GJK_OUT[0] = bd;
  GJK_OUT[1] = nx;
  GJK_OUT[2] = ny;
  GJK_OUT[3] = nz;
  for (let c = 0; c < 3; c++) {
    GJK_OUT[4 + c] = b0 * EA[i * 3 + c] + b1 * EA[j * 3 + c] + b2 * EA[k * 3 + c];
    GJK_OUT[7 + c] = b0 * EB[i * 3 + c] + b1 * EB[j * 3 + c] + b2 * EB[k * 3 + c];
  }
  return true;
}

/** twice the signed area of (EW[a], EW[b], q) about n */
function triArea(
  a: number,
  b: number,
  qx: number,
  qy: number,
  qz: number,
  nx: number,
  ny: number,
  nz: number,
): number {
  const ax = EW[a * 3] - qx,
    ay = EW[a * 3 + 1] - qy,
    az = EW[a * 3 + 2] - qz;
  const bx = EW[b * 3] - qx,
    by = EW[b * 3 + 1] - qy,
    bz = EW[b * 3 + 2] - qz;
  return nx * (ay * bz - az * by) + ny * (az * bx - ax * bz) + nz * (ax * by - ay * bx);
}

/** radius of proxy p (re-exported for the callers that inflate witnesses) */
export { proxyRadius };
