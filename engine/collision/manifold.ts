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
