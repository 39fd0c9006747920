/**
 * capsule (A) – box (B), worked in the box frame with the capsule as its segment p(t) = p₀ + t·u,
 * t ∈ [−h, h], swept by the radius r.
 *
 * - Segment outside the box: the exact closest points (s, q) of segment and box
 *   ({@link segmentBoxClosest}); n = (q − s)/|q − s|, d = |q − s| − r, witnesses s + r n and q.
 * - Segment meeting the box: a separating-axis test over the 3 box face normals and the 3 cross
 *   axes u × e_k (face axes preferred by a small relative tolerance) gives the minimum-penetration
 *   axis; a face axis uses the face contact below, a cross axis one point at the closest points of
 *   the segment and the box edge supporting it.
 * - Face contact (the closest box feature is a face, outward normal n_f towards the capsule, n = −n_f):
 *   when the segment is nearly parallel to the face (|uᵀn_f| ≤ {@link CAPSULE_BOX_PARALLEL_SIN}) and
 *   its projection overlaps the face over an interval [t₀, t₁], two points at the ends of that
 *   overlap (features 0 and 1). Each uses the capsule's surface point deepest along n in the
 *   cross-section at p(t) (the end cap when n points out of it, else the cylinder), its projection
 *   onto the face as the box witness, and d = that point's height above the face — a capsule lying
 *   on a box gets 2 points, and a slightly tilted one keeps the far point only while it is inside
 *   the band. Otherwise one point.
 * A single point has feature 0 when it lies on the t ≤ 0 half of the segment, else 1.
 */
import type { ShapeGeom } from '../geometry';
import { addContact, inBand, type ContactManifold } from '../manifold';
import { segmentBoxClosest } from './segment_box';
import { len3 } from '../../math';

/** |sin| of the segment–face angle below which a face contact gets a point at each overlap end */
export const CAPSULE_BOX_PARALLEL_SIN = 0.05;
/** relative preference for face axes over cross axes when the segment meets the box */
const AXIS_REL_TOL = 0.05;
/** absolute preference, a fraction of the size */
const AXIS_ABS_TOL = 1e-6;
/** cross axes u × e_k with a squared length below this are skipped */
const EDGE_SIN2 = 1e-12;

/** segmentBoxClosest's inputs (p0, dir, h, e) and results (t, q, f) */
const SEG_IN = new Float64Array(10);
const SEG = new Float64Array(5);
/** [box-frame segment p₀ (3), direction u (3), box half extents (3), h, r] */
const L = new Float64Array(11);

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

/** appends a point given in the box frame: capsule witness a, unit normal n (capsule → box), box witness q */
function emitLocal(
  g: ShapeGeom,
  box: number,
  ax: number,
  ay: number,
  az: number,
  nx: number,
  ny: number,
  nz: number,
  qx: number,
  qy: number,
  qz: number,
  d: number,
  feature: number,
  out: ContactManifold,
): void {
  const R = g.rot,
    o = box * 9;
  const cx = g.pos[box * 3],
    cy = g.pos[box * 3 + 1],
    cz = g.pos[box * 3 + 2];
  addContact(
    out,
    R[o] * nx + R[o + 1] * ny + R[o + 2] * nz,
    R[o + 3] * nx + R[o + 4] * ny + R[o + 5] * nz,
    R[o + 6] * nx + R[o + 7] * ny + R[o + 8] * nz,
    cx + R[o] * ax + R[o + 1] * ay + R[o + 2] * az,
    cy + R[o + 3] * ax + R[o + 4] * ay + R[o + 5] * az,
    cz + R[o + 6] * ax + R[o + 7] * ay + R[o + 8] * az,
    cx + R[o] * qx + R[o + 1] * qy + R[o + 2] * qz,
    cy + R[o + 3] * qx + R[o + 4] * qy + R[o + 5] * qz,
    cz + R[o + 6] * qx + R[o + 7] * qy + R[o + 8] * qz,
    d,
    feature,
  );
}

/**
 * One face point at segment parameter t against the box face on axis k with outward normal sgn·e_k
 * (normal n = −sgn·e_k from the capsule into the box). The capsule witness is the capsule's surface
 * point deepest along n in the cross-section at t: p(t) + r·n on an end cap whose outward cone
 * contains n, else p(t) + r·n⊥/|n⊥| on the cylinder (n⊥ = n minus its component along u). The box
 * witness is its projection onto the face plane, clamped to the face; d = its height above the face.
 */
function facePoint(
  g: ShapeGeom,
  box: number,
  k: number,
  sgn: number,
  t: number,
  margin: number,
  gap: number,
  feature: number,
  out: ContactManifold,
): void {
  const h = L[9],
    r = L[10];
  const nx = k === 0 ? -sgn : 0,
    ny = k === 1 ? -sgn : 0,
    nz = k === 2 ? -sgn : 0;
  const ux = L[3],
    uy = L[4],
    uz = L[5];
  const nu = -sgn * L[3 + k];
  let wx = nx,
    wy = ny,
    wz = nz;
  const onCap = h === 0 || (t <= -h && nu <= 0) || (t >= h && nu >= 0);
  if (!onCap) {
    const px = nx - nu * ux,
      py = ny - nu * uy,
      pz = nz - nu * uz;
    const pl = len3(px, py, pz);
    if (pl > 1e-12) {
      wx = px / pl;
      wy = py / pl;
      wz = pz / pl;
    }
  }
  const ax = L[0] + t * ux + r * wx,
    ay = L[1] + t * uy + r * wy,
    az = L[2] + t * uz + r * wz;
  const ak = k === 0 ? ax : k === 1 ? ay : az;
  const ek = L[6 + k];
  const d = sgn * ak - ek;
  if (!inBand(d, margin, gap)) return;
  const qx = k === 0 ? sgn * ek : clamp(ax, -L[6], L[6]),
    qy = k === 1 ? sgn * ek : clamp(ay, -L[7], L[7]),
    qz = k === 2 ? sgn * ek : clamp(az, -L[8], L[8]);
  emitLocal(g, box, ax, ay, az, nx, ny, nz, qx, qy, qz, d, feature, out);
}

/**
 * Face contact with the box face on axis k whose outward normal is sgn·e_k. Emits the two overlap-end
 * points when the segment is nearly parallel to the face and returns true. Otherwise, with
 * `parallelOnly` returns false (nothing emitted); without it emits one point at the deeper overlap
 * end (or, when the segment does not overlap the face, at the deeper segment end) and returns true.
 */
function faceContact(
  g: ShapeGeom,
  box: number,
  k: number,
  sgn: number,
  parallelOnly: boolean,
  margin: number,
  gap: number,
  out: ContactManifold,
): boolean {
  const h = L[9];
  let lo = -h,
    hi = h;
  for (let s = 1; s < 3; s++) {
    const m = (k + s) % 3;
    const p = L[m],
      dm = L[3 + m],
      e = L[6 + m];
    if (dm === 0) {
      if (Math.abs(p) > e) {
        lo = Infinity;
        hi = -Infinity;
      }
      continue;
    }
    const ta = (-e - p) / dm,
      tb = (e - p) / dm;
    lo = Math.max(lo, Math.min(ta, tb));
    hi = Math.min(hi, Math.max(ta, tb));
  }
  const dk = L[3 + k];
  if (Math.abs(dk) <= CAPSULE_BOX_PARALLEL_SIN && hi - lo > 1e-9 * (1 + h)) {
    facePoint(g, box, k, sgn, lo, margin, gap, 0, out);
    facePoint(g, box, k, sgn, hi, margin, gap, 1, out);
    return true;
  }
  if (parallelOnly) return false;
  // the height sgn·p_k(t) − e_k is linear in t: the deeper end of the overlap (or of the segment)
  const low = sgn * dk > 0;
  const t = hi >= lo ? (low ? lo : hi) : low ? -h : h;
  facePoint(g, box, k, sgn, t, margin, gap, t <= 0 ? 0 : 1, out);
  return true;
}

export function collideCapsuleBox(
  g: ShapeGeom,
  capsule: number,
  box: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const R = g.rot,
    o = box * 9,
    co = capsule * 9;
  const r = g.size[capsule * 3],
    h = g.size[capsule * 3 + 1];
  const ex = g.size[box * 3],
    ey = g.size[box * 3 + 1],
    ez = g.size[box * 3 + 2];
  const wx = g.pos[capsule * 3] - g.pos[box * 3],
    wy = g.pos[capsule * 3 + 1] - g.pos[box * 3 + 1],
    wz = g.pos[capsule * 3 + 2] - g.pos[box * 3 + 2];
  const ux = R[co + 2],
    uy = R[co + 5],
    uz = R[co + 8];
  // segment in the box frame: Rᵀ(c − c_box), Rᵀu
  const p0x = R[o] * wx + R[o + 3] * wy + R[o + 6] * wz,
    p0y = R[o + 1] * wx + R[o + 4] * wy + R[o + 7] * wz,
    p0z = R[o + 2] * wx + R[o + 5] * wy + R[o + 8] * wz;
  const dx = R[o] * ux + R[o + 3] * uy + R[o + 6] * uz,
    dy = R[o + 1] * ux + R[o + 4] * uy + R[o + 7] * uz,
    dz = R[o + 2] * ux + R[o + 5] * uy + R[o + 8] * uz;
  L[0] = p0x;
  L[1] = p0y;
  L[2] = p0z;
  L[3] = dx;
  L[4] = dy;
  L[5] = dz;
  L[6] = ex;
  L[7] = ey;
  L[8] = ez;
  L[9] = h;
  L[10] = r;

  SEG_IN[0] = p0x;
  SEG_IN[1] = p0y;
  SEG_IN[2] = p0z;
  SEG_IN[3] = dx;
  SEG_IN[4] = dy;
  SEG_IN[5] = dz;
  SEG_IN[6] = h;
  SEG_IN[7] = ex;
  SEG_IN[8] = ey;
  SEG_IN[9] = ez;
  segmentBoxClosest(SEG_IN, SEG);
  const f = SEG[4];
  if (f > 0) {
    const D = Math.sqrt(f);
    if (!inBand(D - r, margin, gap)) return;
    const t = SEG[0];
    const px = p0x + t * dx,
      py = p0y + t * dy,
      pz = p0z + t * dz;
    const qx = SEG[1],
      qy = SEG[2],
      qz = SEG[3];
    // a face region (exactly one clamped axis) may need the two-point parallel contact
    const ox = px !== qx,
      oy = py !== qy,
      oz = pz !== qz;
    if ((ox ? 1 : 0) + (oy ? 1 : 0) + (oz ? 1 : 0) === 1) {
      const k = ox ? 0 : oy ? 1 : 2;
      const pk = ox ? px : oy ? py : pz;
      if (faceContact(g, box, k, pk > 0 ? 1 : -1, true, margin, gap, out)) return;
    }
    const nx = (qx - px) / D,
      ny = (qy - py) / D,
      nz = (qz - pz) / D;
    emitLocal(
      g,
      box,
      px + r * nx,
      py + r * ny,
      pz + r * nz,
      nx,
      ny,
      nz,
      qx,
      qy,
      qz,
      D - r,
      t <= 0 ? 0 : 1,
      out,
    );
    return;
  }

  // the segment meets the box: minimum-penetration axis
  const scale = Math.max(ex, ey, ez, h + r);
  let sF = -Infinity,
    kF = 0,
    nF = 1;
  for (let k = 0; k < 3; k++) {
    const p = L[k],
      hd = h * Math.abs(L[3 + k]),
      e = L[6 + k];
    const low = -e - (p + hd); // segment below the box: n = +e_k
    const high = p - hd - e; // segment above: n = −e_k
    const sep = Math.max(low, high);
    if (sep > sF) {
      sF = sep;
      kF = k;
      nF = low >= high ? 1 : -1;
    }
  }
  let sE = -Infinity,
    kE = 0,
    enx = 0,
    eny = 0,
    enz = 0;
  for (let k = 0; k < 3; k++) {
    // u × e_k
    let lx = k === 0 ? 0 : k === 1 ? -dz : dy,
      ly = k === 0 ? dz : k === 1 ? 0 : -dx,
      lz = k === 0 ? -dy : k === 1 ? dx : 0;
    const l2 = lx * lx + ly * ly + lz * lz;
    if (l2 < EDGE_SIN2) continue;
    const inv = 1 / Math.sqrt(l2);
    lx *= inv;
    ly *= inv;
    lz *= inv;
    const boxR = ex * Math.abs(lx) + ey * Math.abs(ly) + ez * Math.abs(lz);
    const pl = p0x * lx + p0y * ly + p0z * lz;
    const low = -boxR - pl,
      high = pl - boxR;
    const sep = Math.max(low, high);
    if (sep > sE) {
      sE = sep;
      kE = k;
      const s = low >= high ? 1 : -1;
      enx = s * lx;
      eny = s * ly;
      enz = s * lz;
    }
  }
  if (!(sE > sF + AXIS_REL_TOL * Math.abs(sF) + AXIS_ABS_TOL * scale)) {
    faceContact(g, box, kF, -nF, false, margin, gap, out);
    return;
  }
  // the box edge along e_kE supporting −n, against the segment
  const cx = kE === 0 ? 0 : enx > 0 ? -ex : ex,
    cy = kE === 1 ? 0 : eny > 0 ? -ey : ey,
    cz = kE === 2 ? 0 : enz > 0 ? -ez : ez;
  const ek = L[6 + kE];
  const rx = p0x - cx,
    ry = p0y - cy,
    rz = p0z - cz;
  const bb = L[3 + kE];
  const c = dx * rx + dy * ry + dz * rz;
  const fe = kE === 0 ? rx : kE === 1 ? ry : rz;
  const denom = 1 - bb * bb;
  let s = clamp(denom > 0 ? (bb * fe - c) / denom : 0, -h, h);
  const t = clamp(bb * s + fe, -ek, ek);
  s = clamp(bb * t - c, -h, h);
  const px = p0x + s * dx,
    py = p0y + s * dy,
    pz = p0z + s * dz;
  const qx = kE === 0 ? t : cx,
    qy = kE === 1 ? t : cy,
    qz = kE === 2 ? t : cz;
  const d = enx * (qx - px) + eny * (qy - py) + enz * (qz - pz) - r;
  if (!inBand(d, margin, gap)) return;
  emitLocal(
    g,
    box,
    px + r * enx,
    py + r * eny,
    pz + r * enz,
    enx,
    eny,
    enz,
    qx,
    qy,
    qz,
    d,
    s <= 0 ? 0 : 1,
    out,
  );
}
