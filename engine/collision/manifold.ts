/**
 * Narrow-phase output: a small preallocated manifold that every primitive routine appends to.
 *
 * Conventions shared by all routines (see `narrowphase.ts`):
 * - everything is in the world frame [m];
 * - `normal` is a unit vector pointing from shape A into shape B (A = the routine's first shape);
 * - `pointA` / `pointB` are witness points on the un-inflated surfaces of A and B (margins excluded);
 * - `distance` d is the un-inflated signed distance, d = nᵀ(pointB − pointA) (negative when
 *   penetrating);
 * - `feature` is a small non-negative integer naming the feature pair (e.g. a box corner index) used
 *   for deterministic ordering;
 * - a point is only appended when it lies inside the candidate band, {@link inBand}.
 */

import { len3 } from '../math';

/** the most points one pair may produce (a box–plane pair is capped at 4; room for growth) */
export const MAX_MANIFOLD_POINTS = 8;

export interface ContactManifold {
  /** points written so far */
  count: number;
  /** (MAX × 3) unit normal from A into B, world frame */
  readonly normal: Float64Array;
  /** (MAX × 3) witness point on A's surface, world frame [m] */
  readonly pointA: Float64Array;
  /** (MAX × 3) witness point on B's surface, world frame [m] */
  readonly pointB: Float64Array;
  /** (MAX) signed distance nᵀ(pointB − pointA), margins excluded [m] */
  readonly distance: Float64Array;
  /** (MAX) feature id, ≥ 0 */
  readonly feature: Int32Array;
}

/** allocates an empty manifold */
export function makeManifold(): ContactManifold {
  return {
    count: 0,
    normal: new Float64Array(MAX_MANIFOLD_POINTS * 3),
    pointA: new Float64Array(MAX_MANIFOLD_POINTS * 3),
    pointB: new Float64Array(MAX_MANIFOLD_POINTS * 3),
    distance: new Float64Array(MAX_MANIFOLD_POINTS),
    feature: new Int32Array(MAX_MANIFOLD_POINTS),
  };
}

/**
 * The candidate predicate of SPEC §4: a pair emits a point when d − (m_a + m_b) ≤ g_a + g_b.
 * @param d un-inflated signed distance [m]
 * @param margin m_a + m_b [m]
 * @param gap g_a + g_b [m]
 */
export function inBand(d: number, margin: number, gap: number): boolean {
  return d - margin <= gap;
}

/**
 * Appends a point (silently ignored once the manifold is full, which no routine reaches by design).
 * `n` is the unit normal from A into B, `pa`/`pb` the witnesses, `d` the signed distance [m].
 */
export function addContact(
  out: ContactManifold,
  nx: number,
  ny: number,
  nz: number,
  pax: number,
  pay: number,
  paz: number,
  pbx: number,
  pby: number,
  pbz: number,
  d: number,
  feature: number,
): void {
  const i = out.count;
  if (i >= MAX_MANIFOLD_POINTS) return;
  const o = i * 3;
  out.normal[o] = nx;
  out.normal[o + 1] = ny;
  out.normal[o + 2] = nz;
  out.pointA[o] = pax;
  out.pointA[o + 1] = pay;
  out.pointA[o + 2] = paz;
  out.pointB[o] = pbx;
  out.pointB[o + 1] = pby;
  out.pointB[o + 2] = pbz;
  out.distance[i] = d;
  out.feature[i] = feature;
  out.count = i + 1;
}

/**
 * Swaps the roles of A and B for points [from, count): negates the normals and exchanges the
 * witnesses, so a manifold computed for (B, A) describes (A, B). Distances and features are unchanged.
 */
export function flipManifold(out: ContactManifold, from: number): void {
  const { normal, pointA, pointB } = out;
  for (let i = from; i < out.count; i++) {
    for (let k = i * 3; k < i * 3 + 3; k++) {
      normal[k] = -normal[k];
      const t = pointA[k];
      pointA[k] = pointB[k];
      pointB[k] = t;
    }
  }
}

/** sorts points [0, count) by feature id (insertion sort; manifolds are tiny) */
export function sortManifoldByFeature(out: ContactManifold): void {
  const { normal, pointA, pointB, distance, feature } = out;
  for (let i = 1; i < out.count; i++) {
    for (let j = i; j > 0 && feature[j - 1] > feature[j]; j--) {
      swapPoint(j - 1, j, normal, pointA, pointB, distance, feature);
    }
  }
}

function swapPoint(
  i: number,
  j: number,
  normal: Float64Array,
  pointA: Float64Array,
  pointB: Float64Array,
  distance: Float64Array,
  feature: Int32Array,
): void {
  for (let k = 0; k < 3; k++) {
    let t = normal[i * 3 + k];
    normal[i * 3 + k] = normal[j * 3 + k];
    normal[j * 3 + k] = t;
    t = pointA[i * 3 + k];
    pointA[i * 3 + k] = pointA[j * 3 + k];
    pointA[j * 3 + k] = t;
    t = pointB[i * 3 + k];
    pointB[i * 3 + k] = pointB[j * 3 + k];
    pointB[j * 3 + k] = t;
  }
  const d = distance[i];
  distance[i] = distance[j];
  distance[j] = d;
  const f = feature[i];
  feature[i] = feature[j];
  feature[j] = f;
}

const SPREAD_PICK = new Int32Array(4);

/**
 * Chooses up to `max` (≤ 4) well-spread points among n candidates: the deepest (smallest `depth`;
 * among candidates within `tol` of the smallest depth — a flat contact — the one farthest from the
 * candidates' centroid, so that a resting face starts from a corner), the farthest from it, the one
 * maximising the triangle area with those two, then the one adding the most area (Σ of the three
 * sub-triangle areas). Ties go to the lower index; a point that adds no spread (within `tol` [m]) is
 * not taken. Writes the chosen candidate indices in ascending order to `picked` and returns their
 * count (≥ 1 when n ≥ 1).
 * @param pos (n × 3) candidate positions [m]
 * @param depth (n) signed distances [m]
 */
export function selectSpread(
  n: number,
  pos: Float64Array,
  depth: Float64Array,
  max: number,
  tol: number,
  picked: Int32Array,
): number {
  if (n <= 0) return 0;
  const P = SPREAD_PICK;
  let i0 = 0;
  for (let i = 1; i < n; i++) if (depth[i] < depth[i0]) i0 = i;
  if (n > 1) {
    let cx = 0,
      cy = 0,
      cz = 0;
    for (let i = 0; i < n; i++) {
      cx += pos[i * 3];
      cy += pos[i * 3 + 1];
      cz += pos[i * 3 + 2];
    }
    cx /= n;
    cy /= n;
    cz /= n;
    const dmin = depth[i0];
    let best = -1;
    for (let i = 0; i < n; i++) {
      if (depth[i] > dmin + tol) continue;
      const e = (pos[i * 3] - cx) ** 2 + (pos[i * 3 + 1] - cy) ** 2 + (pos[i * 3 + 2] - cz) ** 2;
      if (e > best + tol * tol) {
        best = e;
        i0 = i;
      }
    }
  }
  P[0] = i0;
  let cnt = 1;
  const x0 = pos[i0 * 3],
    y0 = pos[i0 * 3 + 1],
    z0 = pos[i0 * 3 + 2];
  if (max > 1) {
    let i1 = -1,
      best = tol * tol;
    for (let i = 0; i < n; i++) {
      const dx = pos[i * 3] - x0,
        dy = pos[i * 3 + 1] - y0,
        dz = pos[i * 3 + 2] - z0;
      const d = dx * dx + dy * dy + dz * dz;
      if (d > best) {
        best = d;
        i1 = i;
      }
    }
    if (i1 >= 0) {
      P[cnt++] = i1;
      const ex = pos[i1 * 3] - x0,
        ey = pos[i1 * 3 + 1] - y0,
        ez = pos[i1 * 3 + 2] - z0;
      const el = Math.sqrt(best);
      if (max > 2) {
        let i2 = -1,
          ba = tol * el;
        for (let i = 0; i < n; i++) {
          const dx = pos[i * 3] - x0,
            dy = pos[i * 3 + 1] - y0,
            dz = pos[i * 3 + 2] - z0;
          const a = len3(ey * dz - ez * dy, ez * dx - ex * dz, ex * dy - ey * dx);
          if (a > ba) {
            ba = a;
            i2 = i;
          }
        }
        if (i2 >= 0) {
          P[cnt++] = i2;
          if (max > 3) {
            const base = ba;
            let i3 = -1,
              bg = tol * el;
            const x1 = pos[i1 * 3],
              y1 = pos[i1 * 3 + 1],
              z1 = pos[i1 * 3 + 2];
            const x2 = pos[i2 * 3],
              y2 = pos[i2 * 3 + 1],
              z2 = pos[i2 * 3 + 2];
            for (let i = 0; i < n; i++) {
              if (i === i0 || i === i1 || i === i2) continue;
              // the three triangles' edge vectors from point i (a: to i0, b: to i1, c: to i2), each
              // taken once for the two triangles it spans: |a × b| + |b × c| + |c × a|
              const qx = pos[i * 3],
                qy = pos[i * 3 + 1],
                qz = pos[i * 3 + 2];
              const ax = x0 - qx,
                ay = y0 - qy,
                az = z0 - qz;
              const bx = x1 - qx,
                by = y1 - qy,
                bz = z1 - qz;
              const cx = x2 - qx,
                cy = y2 - qy,
                cz = z2 - qz;
              const g =
                len3(ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx) +
                len3(by * cz - bz * cy, bz * cx - bx * cz, bx * cy - by * cx) +
                len3(cy * az - cz * ay, cz * ax - cx * az, cx * ay - cy * ax) -
                base;
              if (g > bg) {
                bg = g;
                i3 = i;
              }
            }
            if (i3 >= 0) P[cnt++] = i3;
          }
        }
      }
    }
  }
  // ascending order
  for (let i = 1; i < cnt; i++) {
    for (let j = i; j > 0 && P[j - 1] > P[j]; j--) {
      const t = P[j];
      P[j] = P[j - 1];
      P[j - 1] = t;
    }
  }
  for (let i = 0; i < cnt; i++) picked[i] = P[i];
  return cnt;
}
