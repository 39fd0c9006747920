/**
 * Exact closest points between a segment and a box, both expressed in the box frame (the box is
 * |x_k| ≤ e_k). Shared by capsule–box and by the separated fallback of box–box.
 */

/** squared distance from a box-frame point to the box |x_k| ≤ e_k (0 inside) */
export function pointBoxDist2(
  px: number,
  py: number,
  pz: number,
  ex: number,
  ey: number,
  ez: number,
): number {
  let s = 0;
  let o = Math.abs(px) - ex;
  if (o > 0) s += o * o;
  o = Math.abs(py) - ey;
  if (o > 0) s += o * o;
  o = Math.abs(pz) - ez;
  if (o > 0) s += o * o;
  return s;
}

/** knots of the piecewise quadratic (segment ends plus ≤ 6 face-plane crossings) */
const knots = new Float64Array(8);

function clampTo(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

/**
 * Closest points between the segment p(t) = p0 + t·dir, t ∈ [−h, h], and the box |x_k| ≤ e_k.
 * f(t) = Σ_k max(0, |p_k(t)| − e_k)² is convex and piecewise quadratic with knots where
 * p_k(t) = ±e_k; each piece is minimised in closed form, so the result is exact up to round-off.
 * A flat minimum (e.g. a segment parallel to a face) resolves to the midpoint of the first flat
 * piece attaining it; a segment crossing the box gives exactly 0.
 * Reads [p0_x, p0_y, p0_z, dir_x, dir_y, dir_z, h, e_x, e_y, e_z] from `args` and writes
 * [t, q_x, q_y, q_z, f(t)] into `res` (q = the closest box point, box frame; f = 0 when the segment
 * meets the box). Allocation-free: no double crosses the call (V8 boxes the doubles of a call it
 * does not inline).
 */
export function segmentBoxClosest(args: Float64Array, res: Float64Array): void {
  const p0x = args[0],
    p0y = args[1],
    p0z = args[2],
    dx = args[3],
    dy = args[4],
    dz = args[5],
    h = args[6],
    ex = args[7],
    ey = args[8],
    ez = args[9];
  let n = 0;
  knots[n++] = -h;
  for (let k = 0; k < 3; k++) {
    const p = k === 0 ? p0x : k === 1 ? p0y : p0z;
    const d = k === 0 ? dx : k === 1 ? dy : dz;
    const e = k === 0 ? ex : k === 1 ? ey : ez;
    if (d === 0) continue;
    const t0 = (-e - p) / d,
      t1 = (e - p) / d;
    if (t0 > -h && t0 < h) knots[n++] = t0;
    if (t1 > -h && t1 < h) knots[n++] = t1;
  }
  knots[n++] = h;
  for (let i = 1; i < n; i++) {
    const x = knots[i];
    let j = i;
    for (; j > 0 && knots[j - 1] > x; j--) knots[j] = knots[j - 1];
    knots[j] = x;
  }
  let bestT = -h;
  let best = pointBoxDist2(p0x - h * dx, p0y - h * dy, p0z - h * dz, ex, ey, ez);
  for (let i = 0; i + 1 < n && best > 0; i++) {
    const ta = knots[i],
      tb = knots[i + 1];
    if (!(tb > ta)) continue;
    // on this piece the set of clamped axes is fixed: read it at the midpoint
    const tm = 0.5 * (ta + tb);
    let A = 0,
      B = 0;
    for (let k = 0; k < 3; k++) {
      const p = k === 0 ? p0x : k === 1 ? p0y : p0z;
      const d = k === 0 ? dx : k === 1 ? dy : dz;
      const e = k === 0 ? ex : k === 1 ? ey : ez;
      const x = p + tm * d;
      if (x > e || x < -e) {
        A += d * d;
        B += (p - (x > e ? e : -e)) * d;
      }
    }
    // a flat piece (no clamped axis moves) is evaluated at its midpoint, robustly inside it
    const t = A > 0 ? clampTo(-B / A, ta, tb) : tm;
    const f = pointBoxDist2(p0x + t * dx, p0y + t * dy, p0z + t * dz, ex, ey, ez);
    if (f < best) {
      best = f;
      bestT = t;
    }
  }
  const px = p0x + bestT * dx,
    py = p0y + bestT * dy,
    pz = p0z + bestT * dz;
  res[0] = bestT;
  res[1] = clampTo(px, -ex, ex);
  res[2] = clampTo(py, -ey, ey);
  res[3] = clampTo(pz, -ez, ez);
  res[4] = best;
}
