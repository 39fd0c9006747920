/**
 * box (A) – box (B): separating-axis test over the 15 candidate axes (3 face normals of each box and
 * the 9 cross products of their edge directions, nearly parallel edge pairs skipped), then a clipped
 * face manifold (≤ {@link BOX_BOX_MAX_FACE_POINTS} points) and/or one point at the closest points.
 * Up to {@link BOX_BOX_MAX_POINTS} points.
 *
 * Axis choice. sep(L) = |Lᵀ(c_B − c_A)| − r_A(L) − r_B(L) is the separation of the two projections
 * on L. The axis of maximum sep is the minimum-penetration axis when the boxes overlap (sep ≤ 0) and
 * the best separating axis otherwise.
 * - Overlapping: A's face axis is kept unless B's face axis beats it by a small relative tolerance
 *   ({@link BOX_BOX_AXIS_REL_TOL}·|sep| + {@link BOX_BOX_AXIS_ABS_TOL}·size), and an edge axis is used
 *   only when it beats the chosen face axis by a larger one ({@link BOX_BOX_EDGE_REL_TOL}·|sep| +
 *   the same absolute term; the edge tolerance of Gregorius' SAT for convex polyhedra, GDC 2013:
 *   edge only when sep_E > 0.9·sep_F); an edge axis gives one point at the closest points of the two
 *   supporting edges. Why the wider edge band: with soft contacts the overlap reaches a sizeable
 *   fraction of a box (a gripper pad squeezing a cube sinks ~9 mm into it), where a face and an
 *   edge–edge axis can lie within a few per cent of each other; the edge axis then gives a single
 *   point whose normal is tilted by tens of degrees from the face that carries the load, and friction
 *   cannot hold the grasp, while the face axis gives the clipped multi-point manifold.
 * - Separated (max sep > 0): the true distance D ≥ max sep, and every emitted d is a true gap
 *   (≥ D) with the smallest one equal to D:
 *   1. a face axis whose clipped manifold has a point at depth max sep realises D exactly (that
 *      point projects inside the reference face): the face manifold alone;
 *   2. otherwise, when a face axis is within the relative tolerance of max sep (nearly flat boxes,
 *      e.g. a slightly tilted box resting over an edge), its face manifold is still emitted for
 *      support, plus 3.;
 *   3. one point at the exact closest points: the edge–edge axis when its edge lines meet inside
 *      both edges, else (vertex–vertex, vertex–edge, clamped edges) the minimum of the exact
 *      edge–box distances of each box's 12 edges against the other box.
 *
 * Face manifold. The reference face is the face of the axis' owner facing the other box (outward
 * normal n_r); the incident face is the other box's face most anti-parallel to n_r. The incident
 * quad is clipped (Sutherland–Hodgman) against the reference face's 4 side planes; each clipped point
 * x with depth w = n_rᵀ(x − c_ref) (the signed gap at that point, negative inside) is a candidate
 * when inside the band; at most 4 are kept (the deepest, the farthest from it, the one maximising
 * the triangle area, the one adding the most area). The witnesses are x (on the incident face) and
 * its projection x − w n_r (on the reference face), assigned to A and B by ownership, so that
 * n = ±n_r points from A into B and d = nᵀ(p_B − p_A) = w.
 *
 * Features (unique within a pair, stable while the same faces/edges touch):
 * - face manifold: faceCode·24 + local, faceCode = ((refBox·3 + refAxis)·2 + refSign)·6 +
 *   incAxis·2 + incSign (< 72), local ∈ [0, 4) incident vertex, 4 + 4·edge + plane for an
 *   incident edge crossing a side plane, 20 + corner for a reference-face corner;
 * - edge–edge: {@link BOX_BOX_EDGE_FEATURE} + 12·edgeA + edgeB (edge = 4·axis + sign bits);
 * - exact separated fallback: {@link BOX_BOX_CLOSEST_FEATURE} + 12·box + edge (of the edges within a
 *   relative 1e-9 of the smallest squared distance, the first in (box, axis, edge) order).
 * The routine is evaluated in ascending shape-index order (and flipped back), so swapping the shapes
 * gives exactly the flipped manifold.
 */
import type { ShapeGeom } from '../geometry';
import { addContact, flipManifold, inBand, type ContactManifold } from '../manifold';
import { segmentBoxClosest } from './segment_box';
import { len3 } from '../../math';

/** the most points of a clipped face manifold */
export const BOX_BOX_MAX_FACE_POINTS = 4;
/** the most points a box–box pair emits (a face manifold plus the exact closest point, separated) */
export const BOX_BOX_MAX_POINTS = BOX_BOX_MAX_FACE_POINTS + 1;
/** cross axes of edge pairs with sin²θ below this are skipped */
export const BOX_BOX_EDGE_SIN2 = 1e-12;
/** relative preference for face axes (and for A's faces over B's) when the boxes overlap */
export const BOX_BOX_AXIS_REL_TOL = 0.05;
/**
 * relative preference for face axes over edge axes when the boxes overlap: an edge axis is used only
 * when its separation exceeds the best face's by this fraction of |sep| (plus the absolute term)
 */
export const BOX_BOX_EDGE_REL_TOL = 0.1;
/** absolute preference, a fraction of the largest half extent */
export const BOX_BOX_AXIS_ABS_TOL = 1e-6;
/** first feature id of edge–edge points */
export const BOX_BOX_EDGE_FEATURE = 72 * 24;
/** first feature id of the exact separated fallback */
export const BOX_BOX_CLOSEST_FEATURE = BOX_BOX_EDGE_FEATURE + 144;

/** tolerance (× size) for "this axis realises the distance" in the separated case */
const EXACT_TOL = 1e-9;
/** relative margin by which an edge's squared distance must beat the best so far (separated fallback) */
const CLOSEST_TIE_REL = 1e-9;
/** incident vertices this close (× size) to a side plane are snapped onto it */
const SNAP_TOL = 1e-10;

// ---- scratch (module-level, allocation-free) ----
/** centres: box 0 at [0, 3), box 1 at [3, 6) */
const CEN = new Float64Array(6);
/** world axes: box s, axis i, component c at s·9 + i·3 + c */
const AX = new Float64Array(18);
/** half extents: box s, axis i at s·3 + i */
const HE = new Float64Array(6);
/** a_i · b_j at i·3 + j */
const DOT = new Float64Array(9);
/** best edge axis (oriented from A into B) */
const EDGE_N = new Float64Array(3);

const MAXP = 16;
/** ping-pong clip polygons: (u, v, w) per vertex, local feature id, label of the edge leaving it */
const POLY = [new Float64Array(MAXP * 3), new Float64Array(MAXP * 3)];
const PID = [new Int32Array(MAXP), new Int32Array(MAXP)];
const PLAB = [new Int32Array(MAXP), new Int32Array(MAXP)];
/** the unclipped incident quad (u, v, w) */
const QUAD = new Float64Array(12);
/** reference frame of the last clip: c_r, t1, t2, n_r */
const FR = new Float64Array(12);
/** clip context: [buffer, refBox, faceCode, vertex count] */
const FCTX = new Int32Array(4);
const FEXT = new Float64Array(2);
const CAND = new Int32Array(MAXP);
const SEL = new Int32Array(BOX_BOX_MAX_FACE_POINTS);
/** segmentBoxClosest's inputs (p0, dir, h, e) and results (t, q, f) */
const SEG_IN = new Float64Array(10);
const SEG = new Float64Array(5);
const REL = new Float64Array(6);
/**
 * the pair's doubles shared by the routines below, [margin, gap, scale] (largest half extent), so
 * that no call passes a double: a double argument or result of a call V8 does not inline is boxed
 */
const BAND = new Float64Array(3);

function load(g: ShapeGeom, a: number, b: number): void {
  const pos = g.pos,
    rot = g.rot,
    size = g.size;
  const pa = a * 3,
    pb = b * 3;
  for (let c = 0; c < 3; c++) {
    CEN[c] = pos[pa + c];
    CEN[3 + c] = pos[pb + c];
    HE[c] = size[pa + c];
    HE[3 + c] = size[pb + c];
  }
  // axis i is column i of the row-major rotation
  const ra = a * 9,
    rb = b * 9;
  for (let i = 0; i < 3; i++) {
    for (let c = 0; c < 3; c++) {
      AX[i * 3 + c] = rot[ra + c * 3 + i];
      AX[9 + i * 3 + c] = rot[rb + c * 3 + i];
    }
  }
  for (let i = 0; i < 3; i++) {
    const ax = AX[i * 3],
      ay = AX[i * 3 + 1],
      az = AX[i * 3 + 2];
    for (let j = 0; j < 3; j++)
      DOT[i * 3 + j] = ax * AX[9 + j * 3] + ay * AX[10 + j * 3] + az * AX[11 + j * 3];
  }
}

/** ax(s, i) · v */
function axDot(s: number, i: number, x: number, y: number, z: number): number {
  const o = s * 9 + i * 3;
  return AX[o] * x + AX[o + 1] * y + AX[o + 2] * z;
}

export function collideBoxBox(
  g: ShapeGeom,
  a: number,
  b: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  BAND[0] = margin;
  BAND[1] = gap;
  if (a <= b) {
    boxBox(g, a, b, out);
    return;
  }
  // evaluate in ascending index order so that (a, b) and (b, a) are exact mirrors
  const from = out.count;
  boxBox(g, b, a, out);
  flipManifold(out, from);
}

/** the pair (a, b) with margin and gap from BAND */
function boxBox(g: ShapeGeom, a: number, b: number, out: ContactManifold): void {
  load(g, a, b);
  const margin = BAND[0],
    gap = BAND[1];
  const tx = CEN[3] - CEN[0],
    ty = CEN[4] - CEN[1],
    tz = CEN[5] - CEN[2];
  let scale = 0;
  for (let k = 0; k < 6; k++) scale = Math.max(scale, HE[k]);
  BAND[2] = scale;
  // the centre offset in A's frame
  const t0 = axDot(0, 0, tx, ty, tz),
    t1 = axDot(0, 1, tx, ty, tz),
    t2 = axDot(0, 2, tx, ty, tz);

  // face axes of A
  let sA = -Infinity,
    iA = 0,
    gA = 1;
  for (let i = 0; i < 3; i++) {
    const ta = i === 0 ? t0 : i === 1 ? t1 : t2;
    const rB =
      HE[3] * Math.abs(DOT[i * 3]) + HE[4] * Math.abs(DOT[i * 3 + 1]) + HE[5] * Math.abs(DOT[i * 3 + 2]);
    const sep = Math.abs(ta) - HE[i] - rB;
    if (sep > sA) {
      sA = sep;
      iA = i;
      gA = ta >= 0 ? 1 : -1;
    }
  }
  // face axes of B
  let sB = -Infinity,
    iB = 0,
    gB = 1;
  for (let j = 0; j < 3; j++) {
    const tb = axDot(1, j, tx, ty, tz);
    const rA = HE[0] * Math.abs(DOT[j]) + HE[1] * Math.abs(DOT[3 + j]) + HE[2] * Math.abs(DOT[6 + j]);
    const sep = Math.abs(tb) - HE[3 + j] - rA;
    if (sep > sB) {
      sB = sep;
      iB = j;
      gB = tb >= 0 ? 1 : -1;
    }
  }
  // edge cross axes a_i × b_j, in A's frame: b_j = (R_0j, R_1j, R_2j), R = DOT
  let sE = -Infinity,
    iE = 0,
    jE = 0,
    gE = 1;
  for (let i = 0; i < 3; i++) {
    const i1 = i === 2 ? 0 : i + 1,
      i2 = i === 0 ? 2 : i - 1;
    const ti1 = i === 0 ? t1 : i === 1 ? t2 : t0,
      ti2 = i === 0 ? t2 : i === 1 ? t0 : t1;
    const h1 = HE[i1],
      h2 = HE[i2];
    for (let j = 0; j < 3; j++) {
      const j1 = j === 2 ? 0 : j + 1,
        j2 = j === 0 ? 2 : j - 1;
      const r1 = DOT[i1 * 3 + j],
        r2 = DOT[i2 * 3 + j];
      // a_i × b_j = R_i1j·a_i2 − R_i2j·a_i1 (b_j = Σ_m R_mj·a_m), so |a_i × b_j|² = R_i1j² + R_i2j²;
      // its dot products with t, b_j1, b_j2 are t_i2·R_i1j − t_i1·R_i2j, R_ij2, −R_ij1
      const l2 = r1 * r1 + r2 * r2;
      if (l2 < BOX_BOX_EDGE_SIN2) continue;
      const tl = ti2 * r1 - ti1 * r2;
      const rA = h1 * Math.abs(r2) + h2 * Math.abs(r1);
      const rB = HE[3 + j1] * Math.abs(DOT[i * 3 + j2]) + HE[3 + j2] * Math.abs(DOT[i * 3 + j1]);
      const sep = (Math.abs(tl) - rA - rB) / Math.sqrt(l2);
      if (sep > sE) {
        sE = sep;
        iE = i;
        jE = j;
        gE = tl >= 0 ? 1 : -1;
      }
    }
  }
  if (sE > -Infinity) {
    const ao = iE * 3,
      bo = 9 + jE * 3;
    const lx = AX[ao + 1] * AX[bo + 2] - AX[ao + 2] * AX[bo + 1],
      ly = AX[ao + 2] * AX[bo] - AX[ao] * AX[bo + 2],
      lz = AX[ao] * AX[bo + 1] - AX[ao + 1] * AX[bo];
    const inv = gE / Math.sqrt(lx * lx + ly * ly + lz * lz);
    EDGE_N[0] = inv * lx;
    EDGE_N[1] = inv * ly;
    EDGE_N[2] = inv * lz;
  }

  const sMax = Math.max(sA, sB, sE);
  if (sMax > 0) {
    // separated: D ≥ sMax, so nothing can be inside the band when sMax is not
    if (!inBand(sMax, margin, gap)) return;
    const tol = EXACT_TOL * scale;
    // 1. a face whose manifold realises the distance (B's reference face faces A: normal −g_B b_j)
    if (sA >= sMax - tol && clipFace(0, iA, gA) > 0 && minDepth() <= sA + tol) {
      emitFace(out);
      return;
    }
    if (sB >= sMax - tol && clipFace(1, iB, -gB) > 0 && minDepth() <= sB + tol) {
      emitFace(out);
      return;
    }
    // 2. a nearly-best face keeps its manifold, so nearly flat resting boxes stay supported ...
    const pref = BOX_BOX_AXIS_REL_TOL * sMax + BOX_BOX_AXIS_ABS_TOL * scale;
    if (sA >= sMax - pref && clipFace(0, iA, gA) > 0) emitFace(out);
    else if (sB >= sMax - pref && clipFace(1, iB, -gB) > 0) emitFace(out);
    // 3. ... and the exact closest points are always reported
    if (sE >= sMax - tol && edgeContact(iE, jE, true, out)) return;
    closestContact(out);
    return;
  }

  // overlapping: prefer faces (A's first), with a small relative tolerance
  let ref = 0,
    sF = sA;
  if (sB > sA + BOX_BOX_AXIS_REL_TOL * Math.abs(sA) + BOX_BOX_AXIS_ABS_TOL * scale) {
    ref = 1;
    sF = sB;
  }
  if (sE > sF + BOX_BOX_EDGE_REL_TOL * Math.abs(sF) + BOX_BOX_AXIS_ABS_TOL * scale) {
    edgeContact(iE, jE, false, out);
    return;
  }
  const n = ref === 0 ? clipFace(0, iA, gA) : clipFace(1, iB, -gB);
  if (n > 0 && emitFace(out) > 0) return;
  supportContact(out);
}

/**
 * Clips the incident face against the reference face of box `ref` on axis `ia`, whose outward
 * normal is n_r = sgn·axis (pointing at the other box). The polygon is left in POLY[FCTX[0]] in the
 * reference frame (u along t1, v along t2, w along n_r from the reference face centre); returns its
 * vertex count.
 */
function clipFace(ref: number, ia: number, sgn: number): number {
  const scale = BAND[2];
  const inc = 1 - ref;
  const ro = ref * 9,
    rc = ref * 3,
    io = inc * 9,
    ic = inc * 3;
  const ja = (ia + 1) % 3,
    ka = (ia + 2) % 3;
  const e1 = HE[rc + ja],
    e2 = HE[rc + ka];
  const hr = sgn * HE[rc + ia];
  for (let c = 0; c < 3; c++) {
    const nc = sgn * AX[ro + ia * 3 + c];
    FR[c] = CEN[rc + c] + hr * AX[ro + ia * 3 + c];
    FR[3 + c] = AX[ro + ja * 3 + c];
    FR[6 + c] = AX[ro + ka * 3 + c];
    FR[9 + c] = nc;
  }
  FEXT[0] = e1;
  FEXT[1] = e2;
  const nx = FR[9],
    ny = FR[10],
    nz = FR[11];
  // incident face: the other box's face most anti-parallel to n_r
  let m = 0,
    best = -1,
    cm = 0;
  for (let k = 0; k < 3; k++) {
    // (the axis dots of this function written out: a call returning a double boxes it)
    const ok = io + k * 3;
    const c = AX[ok] * nx + AX[ok + 1] * ny + AX[ok + 2] * nz;
    if (Math.abs(c) > best) {
      best = Math.abs(c);
      m = k;
      cm = c;
    }
  }
  const sig = cm > 0 ? -1 : 1;
  const pa = (m + 1) % 3,
    qa = (m + 2) % 3;
  // incident face centre relative to the reference face centre, in the reference frame
  const hm = sig * HE[ic + m];
  const dx = CEN[ic] + hm * AX[io + m * 3] - FR[0],
    dy = CEN[ic + 1] + hm * AX[io + m * 3 + 1] - FR[1],
    dz = CEN[ic + 2] + hm * AX[io + m * 3 + 2] - FR[2];
  const u0 = FR[3] * dx + FR[4] * dy + FR[5] * dz,
    v0 = FR[6] * dx + FR[7] * dy + FR[8] * dz,
    w0 = nx * dx + ny * dy + nz * dz;
  const hp = HE[ic + pa],
    hq = HE[ic + qa];
  const op = io + pa * 3,
    oq = io + qa * 3;
  const pu = hp * (AX[op] * FR[3] + AX[op + 1] * FR[4] + AX[op + 2] * FR[5]),
    pv = hp * (AX[op] * FR[6] + AX[op + 1] * FR[7] + AX[op + 2] * FR[8]),
    pw = hp * (AX[op] * nx + AX[op + 1] * ny + AX[op + 2] * nz);
  const qu = hq * (AX[oq] * FR[3] + AX[oq + 1] * FR[4] + AX[oq + 2] * FR[5]),
    qv = hq * (AX[oq] * FR[6] + AX[oq + 1] * FR[7] + AX[oq + 2] * FR[8]),
    qw = hq * (AX[oq] * nx + AX[oq + 1] * ny + AX[oq + 2] * nz);
  const snap = SNAP_TOL * scale;
  let P = POLY[0];
  for (let k = 0; k < 4; k++) {
    // quad order (+,+), (−,+), (−,−), (+,−) in (p, q)
    const sp = k === 0 || k === 3 ? 1 : -1,
      sq = k < 2 ? 1 : -1;
    let u = u0 + sp * pu + sq * qu,
      v = v0 + sp * pv + sq * qv;
    const w = w0 + sp * pw + sq * qw;
    if (Math.abs(u - e1) <= snap) u = e1;
    else if (Math.abs(u + e1) <= snap) u = -e1;
    if (Math.abs(v - e2) <= snap) v = e2;
    else if (Math.abs(v + e2) <= snap) v = -e2;
    QUAD[k * 3] = u;
    QUAD[k * 3 + 1] = v;
    QUAD[k * 3 + 2] = w;
    P[k * 3] = u;
    P[k * 3 + 1] = v;
    P[k * 3 + 2] = w;
    PID[0][k] = k;
    PLAB[0][k] = k;
  }
  FCTX[1] = ref;
  FCTX[2] = ((ref * 3 + ia) * 2 + (sgn > 0 ? 1 : 0)) * 6 + m * 2 + (sig > 0 ? 1 : 0);

  // Sutherland–Hodgman against the side planes: plane pl keeps sg·coord ≤ e, coord = u (pl < 2) or v
  let src = 0,
    n = 4;
  for (let pl = 0; pl < 4 && n > 0; pl++) {
    const co = pl >> 1,
      sg = pl & 1 ? 1 : -1,
      e = co === 0 ? e1 : e2;
    const dst = 1 - src;
    P = POLY[src];
    const Q = POLY[dst],
      pid = PID[src],
      plab = PLAB[src],
      qid = PID[dst],
      qlab = PLAB[dst];
    let cnt = 0;
    for (let i = 0; i < n; i++) {
      const i2 = i + 1 < n ? i + 1 : 0;
      const dp = sg * P[i * 3 + co] - e,
        dq = sg * P[i2 * 3 + co] - e;
      const lab = plab[i];
      if (dp <= 0) {
        Q[cnt * 3] = P[i * 3];
        Q[cnt * 3 + 1] = P[i * 3 + 1];
        Q[cnt * 3 + 2] = P[i * 3 + 2];
        qid[cnt] = pid[i];
        // a vertex exactly on the plane whose edge leaves: the next edge runs along the plane
        qlab[cnt] = dq > 0 && dp === 0 ? 4 + pl : lab;
        cnt++;
        if (dq > 0 && dp < 0)
          cnt = crossing(P, i, i2, dp, dq, co, sg * e, lab, pl, Q, qid, qlab, cnt, 4 + pl);
      } else if (dq < 0) {
        cnt = crossing(P, i, i2, dp, dq, co, sg * e, lab, pl, Q, qid, qlab, cnt, lab);
      }
    }
    n = cnt;
    src = dst;
  }
  FCTX[0] = src;
  FCTX[3] = n;
  return n;
}

/** appends the crossing of edge (i → i2) with side plane pl to Q; returns the new count */
function crossing(
  P: Float64Array,
  i: number,
  i2: number,
  dp: number,
  dq: number,
  co: number,
  onPlane: number,
  lab: number,
  pl: number,
  Q: Float64Array,
  qid: Int32Array,
  qlab: Int32Array,
  cnt: number,
  leaving: number,
): number {
  const t = dp / (dp - dq);
  for (let c = 0; c < 3; c++) Q[cnt * 3 + c] = P[i * 3 + c] + t * (P[i2 * 3 + c] - P[i * 3 + c]);
  Q[cnt * 3 + co] = onPlane;
  if (lab < 4) {
    qid[cnt] = 4 + lab * 4 + pl;
  } else {
    // an edge lying on side plane lab − 4 (the other coordinate) meets plane pl: a reference corner
    const other = lab - 4;
    const uPl = co === 0 ? pl : other,
      vPl = co === 0 ? other : pl;
    qid[cnt] = 20 + (uPl & 1) + 2 * (vPl & 1);
  }
  qlab[cnt] = leaving;
  return cnt + 1;
}

/** the smallest depth w of the clipped polygon */
function minDepth(): number {
  const P = POLY[FCTX[0]];
  let m = Infinity;
  for (let i = 0; i < FCTX[3]; i++) m = Math.min(m, P[i * 3 + 2]);
  return m;
}

/** 2D cross product of (b − a) × (c − a) in the reference plane */
function cross2(P: Float64Array, a: number, b: number, c: number): number {
  return (
    (P[b * 3] - P[a * 3]) * (P[c * 3 + 1] - P[a * 3 + 1]) -
    (P[b * 3 + 1] - P[a * 3 + 1]) * (P[c * 3] - P[a * 3])
  );
}

/** emits the in-band clipped points (≤ 4, reduced by depth and area); returns how many */
function emitFace(out: ContactManifold): number {
  const margin = BAND[0],
    gap = BAND[1];
  const P = POLY[FCTX[0]],
    pid = PID[FCTX[0]];
  const n = FCTX[3];
  let cnt = 0;
  for (let i = 0; i < n; i++) if (inBand(P[i * 3 + 2], margin, gap)) CAND[cnt++] = i;
  if (cnt === 0) return 0;
  let k = 0;
  if (cnt <= BOX_BOX_MAX_FACE_POINTS) {
    for (let i = 0; i < cnt; i++) SEL[k++] = CAND[i];
  } else {
    k = reduce(P, cnt);
  }
  // ascending local id
  for (let i = 1; i < k; i++) {
    const x = SEL[i];
    let j = i;
    for (; j > 0 && pid[SEL[j - 1]] > pid[x]; j--) SEL[j] = SEL[j - 1];
    SEL[j] = x;
  }
  const ref = FCTX[1],
    base = FCTX[2] * 24;
  const nx = FR[9],
    ny = FR[10],
    nz = FR[11];
  for (let s = 0; s < k; s++) {
    const i = SEL[s];
    const u = P[i * 3],
      v = P[i * 3 + 1],
      w = P[i * 3 + 2];
    const rx = FR[0] + u * FR[3] + v * FR[6],
      ry = FR[1] + u * FR[4] + v * FR[7],
      rz = FR[2] + u * FR[5] + v * FR[8];
    const ix = rx + w * nx,
      iy = ry + w * ny,
      iz = rz + w * nz;
    if (ref === 0) addContact(out, nx, ny, nz, rx, ry, rz, ix, iy, iz, w, base + pid[i]);
    else addContact(out, -nx, -ny, -nz, ix, iy, iz, rx, ry, rz, w, base + pid[i]);
  }
  return k;
}

/** picks ≤ 4 of the CAND points into SEL: deepest, farthest from it, max triangle, max added area */
function reduce(P: Float64Array, cnt: number): number {
  let i0 = CAND[0];
  for (let c = 1; c < cnt; c++) if (P[CAND[c] * 3 + 2] < P[i0 * 3 + 2]) i0 = CAND[c];
  SEL[0] = i0;
  let i1 = -1,
    best = 0;
  for (let c = 0; c < cnt; c++) {
    const i = CAND[c];
    const du = P[i * 3] - P[i0 * 3],
      dv = P[i * 3 + 1] - P[i0 * 3 + 1];
    const d2 = du * du + dv * dv;
    if (d2 > best) {
      best = d2;
      i1 = i;
    }
  }
  if (i1 < 0) return 1;
  SEL[1] = i1;
  let i2 = -1;
  best = 0;
  let orient = 0;
  for (let c = 0; c < cnt; c++) {
    const i = CAND[c];
    const ar = cross2(P, i0, i1, i);
    if (Math.abs(ar) > best) {
      best = Math.abs(ar);
      i2 = i;
      orient = ar > 0 ? 1 : -1;
    }
  }
  if (i2 < 0) return 2;
  SEL[2] = i2;
  let i3 = -1;
  best = 0;
  for (let c = 0; c < cnt; c++) {
    const i = CAND[c];
    if (i === i0 || i === i1 || i === i2) continue;
    // area added beyond each triangle edge (points on the far side of an edge)
    const gain = Math.max(
      -orient * cross2(P, i0, i1, i),
      -orient * cross2(P, i1, i2, i),
      -orient * cross2(P, i2, i0, i),
    );
    if (gain > best) {
      best = gain;
      i3 = i;
    }
  }
  if (i3 < 0) return 3;
  SEL[3] = i3;
  return 4;
}

/** overlapping fallback when the clipped manifold is empty: the deepest incident vertex */
function supportContact(out: ContactManifold): void {
  const margin = BAND[0],
    gap = BAND[1];
  let k0 = 0;
  for (let k = 1; k < 4; k++) if (QUAD[k * 3 + 2] < QUAD[k0 * 3 + 2]) k0 = k;
  const u = QUAD[k0 * 3],
    v = QUAD[k0 * 3 + 1],
    w = QUAD[k0 * 3 + 2];
  if (!inBand(w, margin, gap)) return;
  const e1 = FEXT[0],
    e2 = FEXT[1];
  const cu = u < -e1 ? -e1 : u > e1 ? e1 : u,
    cv = v < -e2 ? -e2 : v > e2 ? e2 : v;
  const nx = FR[9],
    ny = FR[10],
    nz = FR[11];
  const rx = FR[0] + cu * FR[3] + cv * FR[6],
    ry = FR[1] + cu * FR[4] + cv * FR[7],
    rz = FR[2] + cu * FR[5] + cv * FR[8];
  const ix = FR[0] + u * FR[3] + v * FR[6] + w * nx,
    iy = FR[1] + u * FR[4] + v * FR[7] + w * ny,
    iz = FR[2] + u * FR[5] + v * FR[8] + w * nz;
  const f = FCTX[2] * 24 + k0;
  if (FCTX[1] === 0) addContact(out, nx, ny, nz, rx, ry, rz, ix, iy, iz, w, f);
  else addContact(out, -nx, -ny, -nz, ix, iy, iz, rx, ry, rz, w, f);
}

/**
 * One point between A's edge along a_i and B's edge along b_j supporting the axis EDGE_N (A's edge
 * furthest along n, B's furthest against it). With `interiorOnly`, returns false (emitting nothing)
 * when the closest points of the edge lines fall outside either edge by more than
 * {@link EXACT_TOL}·scale.
 */
function edgeContact(i: number, j: number, interiorOnly: boolean, out: ContactManifold): boolean {
  const margin = BAND[0],
    gap = BAND[1];
  const tol = interiorOnly ? EXACT_TOL * BAND[2] : 0;
  const nx = EDGE_N[0],
    ny = EDGE_N[1],
    nz = EDGE_N[2];
  let eax = CEN[0],
    eay = CEN[1],
    eaz = CEN[2];
  let ebx = CEN[3],
    eby = CEN[4],
    ebz = CEN[5];
  let edgeA = i * 4,
    edgeB = j * 4;
  for (let r = 1; r < 3; r++) {
    const k = (i + r) % 3;
    const sa = axDot(0, k, nx, ny, nz) >= 0 ? 1 : -1;
    const o = k * 3;
    eax += sa * HE[k] * AX[o];
    eay += sa * HE[k] * AX[o + 1];
    eaz += sa * HE[k] * AX[o + 2];
    if (sa > 0) edgeA += r;
    const kb = (j + r) % 3;
    const sb = axDot(1, kb, nx, ny, nz) > 0 ? -1 : 1;
    const ob = 9 + kb * 3;
    ebx += sb * HE[3 + kb] * AX[ob];
    eby += sb * HE[3 + kb] * AX[ob + 1];
    ebz += sb * HE[3 + kb] * AX[ob + 2];
    if (sb > 0) edgeB += r;
  }
  const ux = AX[i * 3],
    uy = AX[i * 3 + 1],
    uz = AX[i * 3 + 2];
  const vx = AX[9 + j * 3],
    vy = AX[9 + j * 3 + 1],
    vz = AX[9 + j * 3 + 2];
  const ha = HE[i],
    hb = HE[3 + j];
  const rx = eax - ebx,
    ry = eay - eby,
    rz = eaz - ebz;
  const bb = DOT[i * 3 + j];
  const c = ux * rx + uy * ry + uz * rz;
  const f = vx * rx + vy * ry + vz * rz;
  const denom = 1 - bb * bb;
  let s = denom > 0 ? (bb * f - c) / denom : 0;
  let t = bb * s + f;
  if (interiorOnly) {
    if (Math.abs(s) > ha + tol || Math.abs(t) > hb + tol) return false;
    s = Math.max(-ha, Math.min(ha, s));
    t = Math.max(-hb, Math.min(hb, t));
  } else {
    s = Math.max(-ha, Math.min(ha, s));
    t = Math.max(-hb, Math.min(hb, bb * s + f));
    s = Math.max(-ha, Math.min(ha, bb * t - c));
  }
  const pax = eax + s * ux,
    pay = eay + s * uy,
    paz = eaz + s * uz;
  const pbx = ebx + t * vx,
    pby = eby + t * vy,
    pbz = ebz + t * vz;
  const d = nx * (pbx - pax) + ny * (pby - pay) + nz * (pbz - paz);
  if (inBand(d, margin, gap)) {
    addContact(out, nx, ny, nz, pax, pay, paz, pbx, pby, pbz, d, BOX_BOX_EDGE_FEATURE + edgeA * 12 + edgeB);
  }
  return true;
}

/**
 * Separated boxes whose closest features no SAT axis realises: the exact closest points, as the
 * minimum over the 12 edges of each box of the exact edge–box distance to the other box.
 */
function closestContact(out: ContactManifold): void {
  const margin = BAND[0],
    gap = BAND[1];
  // centre of box s relative to box o, in o's frame
  for (let s = 0; s < 2; s++) {
    const o = 1 - s;
    const dx = CEN[s * 3] - CEN[o * 3],
      dy = CEN[s * 3 + 1] - CEN[o * 3 + 1],
      dz = CEN[s * 3 + 2] - CEN[o * 3 + 2];
    for (let m = 0; m < 3; m++) REL[s * 3 + m] = axDot(o, m, dx, dy, dz);
  }
  let best = Infinity,
    bs = -1,
    bi = 0,
    bsj = 1,
    bsk = 1,
    bt = 0,
    bqx = 0,
    bqy = 0,
    bqz = 0;
  for (let s = 0; s < 2; s++) {
    const o = 1 - s;
    for (let i = 0; i < 3; i++) {
      const j = (i + 1) % 3,
        k = (i + 2) % 3;
      // axis n of box s in box o's frame: component m = a_s,n · a_o,m
      const dx = s === 0 ? DOT[i * 3] : DOT[i],
        dy = s === 0 ? DOT[i * 3 + 1] : DOT[3 + i],
        dz = s === 0 ? DOT[i * 3 + 2] : DOT[6 + i];
      const jx = s === 0 ? DOT[j * 3] : DOT[j],
        jy = s === 0 ? DOT[j * 3 + 1] : DOT[3 + j],
        jz = s === 0 ? DOT[j * 3 + 2] : DOT[6 + j];
      const kx = s === 0 ? DOT[k * 3] : DOT[k],
        ky = s === 0 ? DOT[k * 3 + 1] : DOT[3 + k],
        kz = s === 0 ? DOT[k * 3 + 2] : DOT[6 + k];
      const hj = HE[s * 3 + j],
        hk = HE[s * 3 + k];
      for (let e = 0; e < 4; e++) {
        const sj = e & 1 ? 1 : -1,
          sk = e & 2 ? 1 : -1;
        const px = REL[s * 3] + sj * hj * jx + sk * hk * kx,
          py = REL[s * 3 + 1] + sj * hj * jy + sk * hk * ky,
          pz = REL[s * 3 + 2] + sj * hj * jz + sk * hk * kz;
        SEG_IN[0] = px;
        SEG_IN[1] = py;
        SEG_IN[2] = pz;
        SEG_IN[3] = dx;
        SEG_IN[4] = dy;
        SEG_IN[5] = dz;
        SEG_IN[6] = HE[s * 3 + i];
        SEG_IN[7] = HE[o * 3];
        SEG_IN[8] = HE[o * 3 + 1];
        SEG_IN[9] = HE[o * 3 + 2];
        segmentBoxClosest(SEG_IN, SEG);
        const f = SEG[4];
        // near-ties (the edges through one closest vertex, equal up to round-off) keep the first
        // edge, so that every realization of this routine (the df64 GPU twin) picks the same one
        if (bs < 0 || f < best - CLOSEST_TIE_REL * best) {
          best = f;
          bs = s;
          bi = i;
          bsj = sj;
          bsk = sk;
          bt = SEG[0];
          bqx = SEG[1];
          bqy = SEG[2];
          bqz = SEG[3];
        }
      }
    }
  }
  if (bs < 0) return;
  const o = 1 - bs;
  const j = (bi + 1) % 3,
    k = (bi + 2) % 3;
  // edge point in the world (box bs), box point in the world (box o)
  let ex = CEN[bs * 3],
    ey = CEN[bs * 3 + 1],
    ez = CEN[bs * 3 + 2];
  const cj = bsj * HE[bs * 3 + j],
    ck = bsk * HE[bs * 3 + k];
  const oi = bs * 9 + bi * 3,
    oj = bs * 9 + j * 3,
    ok = bs * 9 + k * 3;
  ex += bt * AX[oi] + cj * AX[oj] + ck * AX[ok];
  ey += bt * AX[oi + 1] + cj * AX[oj + 1] + ck * AX[ok + 1];
  ez += bt * AX[oi + 2] + cj * AX[oj + 2] + ck * AX[ok + 2];
  const oo = o * 9;
  const qx = CEN[o * 3] + bqx * AX[oo] + bqy * AX[oo + 3] + bqz * AX[oo + 6],
    qy = CEN[o * 3 + 1] + bqx * AX[oo + 1] + bqy * AX[oo + 4] + bqz * AX[oo + 7],
    qz = CEN[o * 3 + 2] + bqx * AX[oo + 2] + bqy * AX[oo + 5] + bqz * AX[oo + 8];
  const pax = bs === 0 ? ex : qx,
    pay = bs === 0 ? ey : qy,
    paz = bs === 0 ? ez : qz;
  const pbx = bs === 0 ? qx : ex,
    pby = bs === 0 ? qy : ey,
    pbz = bs === 0 ? qz : ez;
  const dx = pbx - pax,
    dy = pby - pay,
    dz = pbz - paz;
  const d = len3(dx, dy, dz);
  if (!(d > 0) || !inBand(d, margin, gap)) return;
  const edge = bi * 4 + (bsj > 0 ? 1 : 0) + (bsk > 0 ? 2 : 0);
  addContact(
    out,
    dx / d,
    dy / d,
    dz / d,
    pax,
    pay,
    paz,
    pbx,
    pby,
    pbz,
    d,
    BOX_BOX_CLOSEST_FEATURE + bs * 12 + edge,
  );
}
