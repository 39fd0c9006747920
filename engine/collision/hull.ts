/**
 * 3D convex hull (quickhull) and its face structure for the collision module and the importers:
 * convex meshes use the hull for their support function and flat-contact features, triangle meshes
 * use it where they are collided as a hull (mesh–mesh, mesh–heightfield), and the importers use it
 * for convex-hull colliders (URDF and MJCF meshes, UsdPhysics `convexHull`, scene `is_convex`).
 *
 * Algorithm: randomized incremental hull with outside lists (quickhull's bookkeeping, Clarkson–Shor's
 * order). An initial tetrahedron from extreme points; every other point waits on the list of one
 * face it is outside of. The points are then taken in a seeded random order: a point still on a
 * list sees that face; the faces it sees (a flood fill over face neighbours) are removed, their
 * horizon (checked to be one simple loop) is coned to it, and their waiting points move to the
 * first new face they are outside of, or are inside. A point counts as outside a face only beyond
 * eps = 1e-10 · (bounding-box diagonal, coordinates centred on the box), so points on a face or
 * an edge (cube faces, the coplanar rims of a cylinder's caps) never become vertices and never make
 * the faces they lie in visible. The random order keeps the expected work at O(n log n) for any
 * input, also coplanar and cocircular points in large numbers (the farthest-point order of classic
 * quickhull creates O(n²) faces on a cylinder's rims: its intermediate hulls fan one rim vertex
 * across the other rim). A vertex that still ends up inside a face or on an edge is removed by a
 * second pass over the extreme vertices only. Degenerate input (all points coplanar, collinear or
 * coincident) has no volume and yields `null`.
 */

/** a closed convex hull: its vertices and outward counter-clockwise triangles */
export interface HullMesh {
  /** (V × 3) hull vertices (a subset of the input, in first-use order) [m] */
  readonly vertices: Float64Array;
  /** (T × 3) vertex indices into `vertices`, counter-clockwise seen from outside */
  readonly triangles: Int32Array;
  /** (V) index of each hull vertex in the input point list */
  readonly source: Int32Array;
  /**
   * 0 for the exact hull; otherwise the input's point count, when more than
   * {@link HULL_EXACT_POINTS} candidates made it the hull of the farthest point in each of
   * {@link HULL_DIRECTIONS} direction cells (an inner hull of at most that many vertices)
   */
  readonly approximatedFrom: number;
}

/** candidate points (after culling the interior) up to which a hull is exact */
export const HULL_EXACT_POINTS = 50_000;
/** most candidates of a hull beyond {@link HULL_EXACT_POINTS}: 6 · 12² direction cells and 26 support points (Jolt keeps 256 vertices, PhysX 255) */
export const HULL_DIRECTIONS = 6 * 12 * 12 + 26;

/** relative tolerance: a point is outside a face beyond this times the bounding-box diagonal */
const HULL_EPS = 1e-10;
/** sine above which two incident face normals of a vertex count as different planes */
const EXTREME_SIN = 1e-6;

/** work counters of one {@link convexHull} call (both passes), for complexity tests and profiles */
export interface HullStats {
  /** triangles created, including the ones later removed */
  facesCreated: number;
  /** points dropped for want of a consistent horizon (within rounding of the hull) */
  dropped: number;
}

/**
 * Convex hull of a point cloud given as flat xyz triples. Returns null when the points span no
 * volume (fewer than 4 points, non-finite coordinates, or all coplanar within eps). `stats`, when
 * given, receives the work counters.
 */
export function convexHull(points: ArrayLike<number>, stats?: HullStats): HullMesh | null {
  const n = Math.floor(points.length / 3);
  if (n < 4) return null;
  // centred copy: plane offsets and distances are then computed on numbers no larger than the diagonal
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n * 3; i++) {
    const v = points[i];
    if (!Number.isFinite(v)) return null;
    if (v < lo[i % 3]) lo[i % 3] = v;
    if (v > hi[i % 3]) hi[i % 3] = v;
  }
  const diag = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  if (!(diag > 0) || !Number.isFinite(diag)) return null;
  // scaled by a power of two (exact) to a diagonal within (1/2, 1]: every square below stays finite
  const scale = 2 ** -Math.ceil(Math.log2(diag));
  const P = new Float64Array(n * 3);
  for (let i = 0; i < n * 3; i++) P[i] = (points[i] - 0.5 * (lo[i % 3] + hi[i % 3])) * scale;
  const eps = HULL_EPS * diag * scale;

  const counts: HullStats = stats ?? { facesCreated: 0, dropped: 0 };
  counts.facesCreated = counts.dropped = 0;
  // many points: those strictly inside the polytope of 26 support points never matter; when more
  // than the budget remain, the hull is that of the support points in HULL_DIRECTIONS directions
  let ids: Int32Array | null = null;
  let approximatedFrom = 0;
  if (n > HULL_EXACT_POINTS) {
    ids = outsideOfDop(P, n, eps, counts);
    if (ids.length > HULL_EXACT_POINTS) {
      ids = directionalExtremes(P, ids);
      approximatedFrom = n;
    }
  }
  const m = ids === null ? n : ids.length;
  let Q = P;
  if (ids !== null) {
    Q = new Float64Array(m * 3);
    for (let i = 0; i < m; i++) for (let k = 0; k < 3; k++) Q[i * 3 + k] = P[ids[i] * 3 + k];
  }
  const tris = hullTriangles(Q, m, eps, counts);
  if (tris === null) return null;
  if (ids !== null) for (let i = 0; i < tris.length; i++) tris[i] = ids[tris[i]];
  // compact: hull vertices in first-use order, coordinates as given
  const map = new Int32Array(n).fill(-1);
  const src: number[] = [];
  const triangles = new Int32Array(tris.length);
  for (let i = 0; i < tris.length; i++) {
    const v = tris[i];
    if (map[v] < 0) {
      map[v] = src.length;
      src.push(v);
    }
    triangles[i] = map[v];
  }
  const vertices = new Float64Array(src.length * 3);
  for (let i = 0; i < src.length; i++)
    for (let k = 0; k < 3; k++) vertices[i * 3 + k] = points[src[i] * 3 + k];
  return { vertices, triangles, source: Int32Array.from(src), approximatedFrom };
}

/** the hull triangles (point indices) of n centred points, vertices inside faces and on edges removed */
function hullTriangles(P: Float64Array, n: number, eps: number, counts: HullStats): Int32Array | null {
  const first = quickhull(P, n, eps, counts);
  if (first === null) return null;
  // vertices left inside a face or on an edge (taken before the points around them): hull the
  // corners first, then the other vertices, which stay only where they are outside by more than eps
  // (a vertex whose faces bend by less than the angle test sees is kept)
  const split = cornersFirst(P, n, first);
  if (split === null || split.corners < 4) return first;
  const m = split.order.length;
  const Q = new Float64Array(m * 3);
  for (let i = 0; i < m; i++) for (let k = 0; k < 3; k++) Q[i * 3 + k] = P[split.order[i] * 3 + k];
  const again = quickhull(Q, m, eps, counts, split.corners);
  if (again === null) return first;
  for (let i = 0; i < again.length; i++) again[i] = split.order[again[i]];
  return again;
}

/** the 26 directions of a cube's faces, edges and corners (unnormalized) */
const DOP_DIRECTIONS: readonly (readonly [number, number, number])[] = (() => {
  const d: [number, number, number][] = [];
  for (let x = -1; x <= 1; x++)
    for (let y = -1; y <= 1; y++) for (let z = -1; z <= 1; z++) if (x || y || z) d.push([x, y, z]);
  return d;
})();

/** {@link DOP_DIRECTIONS} as flat xyz triples */
const DOP_FLAT = Float64Array.from(DOP_DIRECTIONS.flat());

/**
 * Akl–Toussaint culling: the indices of the points not inside the hull of the support points in the
 * 26 {@link DOP_DIRECTIONS} by more than eps (the points that can be hull vertices), in index order.
 */
function outsideOfDop(P: Float64Array, n: number, eps: number, counts: HullStats): Int32Array {
  const all = new Int32Array(n);
  for (let i = 0; i < n; i++) all[i] = i;
  const sup = supportPoints(P, all);
  const S = new Float64Array(sup.length * 3);
  for (let i = 0; i < sup.length; i++) for (let k = 0; k < 3; k++) S[i * 3 + k] = P[sup[i] * 3 + k];
  const tris = sup.length >= 4 ? quickhull(S, sup.length, eps, counts) : null;
  if (tris === null) return all;
  // the polytope's planes (outward, through a vertex of each triangle)
  const T = tris.length / 3;
  const planes = new Float64Array(T * 4);
  for (let t = 0; t < T; t++) {
    unitNormal(S, tris[t * 3], tris[t * 3 + 1], tris[t * 3 + 2], planes, t * 4);
    const a = tris[t * 3] * 3;
    planes[t * 4 + 3] = planes[t * 4] * S[a] + planes[t * 4 + 1] * S[a + 1] + planes[t * 4 + 2] * S[a + 2];
  }
  const keep: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = P[i * 3],
      y = P[i * 3 + 1],
      z = P[i * 3 + 2];
    for (let t = 0; t < T; t++) {
      if (planes[t * 4] * x + planes[t * 4 + 1] * y + planes[t * 4 + 2] * z - planes[t * 4 + 3] > -eps) {
        keep.push(i);
        break;
      }
    }
  }
  return Int32Array.from(keep);
}

/** the exact support points of the points `ids` in the 26 {@link DOP_DIRECTIONS}, without repeats, in index order */
function supportPoints(P: Float64Array, ids: Int32Array): Int32Array {
  const K = DOP_DIRECTIONS.length;
  const best = new Float64Array(K).fill(-Infinity);
  const arg = new Int32Array(K);
  for (let q = 0; q < ids.length; q++) {
    const i = ids[q];
    const x = P[i * 3],
      y = P[i * 3 + 1],
      z = P[i * 3 + 2];
    for (let j = 0; j < K; j++) {
      const d = DOP_FLAT[j * 3] * x + DOP_FLAT[j * 3 + 1] * y + DOP_FLAT[j * 3 + 2] * z;
      if (d > best[j]) {
        best[j] = d;
        arg[j] = i;
      }
    }
  }
  return Int32Array.from(new Set(arg)).sort();
}

/** cells per cube-face side of the direction buckets of {@link directionalExtremes} */
const BUCKET_SIDE = 12;

/**
 * The hull's candidates when too many remain: the points `ids` bucketed by their direction from the
 * centre (the bounding box mapped to a cube) on a cube map of 6 × BUCKET_SIDE² cells, and in each cell the point farthest along the
 * cell's central direction, plus the exact support points in the 26 DOP directions. O(n); at most
 * {@link HULL_DIRECTIONS} points, without repeats, in index order.
 */
function directionalExtremes(P: Float64Array, ids: Int32Array): Int32Array {
  const g = BUCKET_SIDE;
  const cells = 6 * g * g;
  const best = new Float64Array(cells).fill(-Infinity);
  const arg = new Int32Array(cells).fill(-1);
  // bucketed after mapping the bounding box to a cube (an affine map keeps the hull's structure):
  // a long or flat shape then spreads over all cells
  const ext = [0, 0, 0];
  for (let q = 0; q < ids.length; q++)
    for (let k = 0; k < 3; k++) ext[k] = Math.max(ext[k], Math.abs(P[ids[q] * 3 + k]));
  const sx = ext[0] > 0 ? 1 / ext[0] : 0,
    sy = ext[1] > 0 ? 1 / ext[1] : 0,
    sz = ext[2] > 0 ? 1 / ext[2] : 0;
  for (let q = 0; q < ids.length; q++) {
    const i = ids[q];
    const x = P[i * 3] * sx,
      y = P[i * 3 + 1] * sy,
      z = P[i * 3 + 2] * sz;
    const ax = Math.abs(x),
      ay = Math.abs(y),
      az = Math.abs(z);
    // the cube face the direction leaves through, and the direction's two coordinates on it
    let face: number, u: number, v: number, m: number;
    if (ax >= ay && ax >= az) {
      face = x >= 0 ? 0 : 1;
      u = y;
      v = z;
      m = ax;
    } else if (ay >= az) {
      face = y >= 0 ? 2 : 3;
      u = z;
      v = x;
      m = ay;
    } else {
      face = z >= 0 ? 4 : 5;
      u = x;
      v = y;
      m = az;
    }
    if (!(m > 0)) continue;
    const cu = Math.min(g - 1, Math.floor(((u / m + 1) / 2) * g)),
      cv = Math.min(g - 1, Math.floor(((v / m + 1) / 2) * g));
    // the cell's central direction (unnormalized: only the order within the cell matters)
    const su = ((cu + 0.5) / g) * 2 - 1,
      sv = ((cv + 0.5) / g) * 2 - 1;
    const sign = face % 2 === 0 ? 1 : -1;
    const axis = face >> 1;
    const d =
      axis === 0
        ? sign * x + su * y + sv * z
        : axis === 1
          ? sign * y + su * z + sv * x
          : sign * z + su * x + sv * y;
    const c = (face * g + cu) * g + cv;
    if (d > best[c]) {
      best[c] = d;
      arg[c] = i;
    }
  }
  const out = new Set<number>(supportPoints(P, ids));
  for (let c = 0; c < cells; c++) if (arg[c] >= 0) out.add(arg[c]);
  return Int32Array.from(out).sort();
}

/** √(x² + y² + z²) for the scaled copy's numbers (Math.hypot's overflow guard costs ~10× here) */
function norm3(x: number, y: number, z: number): number {
  return Math.sqrt(x * x + y * y + z * z);
}

/** the unit normal of triangle (a, b, c) of the flat xyz array P into out[o..o+3); returns the doubled area */
function unitNormal(
  P: ArrayLike<number>,
  a: number,
  b: number,
  c: number,
  out: Float64Array,
  o: number,
): number {
  const ux = P[b * 3] - P[a * 3],
    uy = P[b * 3 + 1] - P[a * 3 + 1],
    uz = P[b * 3 + 2] - P[a * 3 + 2];
  const wx = P[c * 3] - P[a * 3],
    wy = P[c * 3 + 1] - P[a * 3 + 1],
    wz = P[c * 3 + 2] - P[a * 3 + 2];
  const nx = uy * wz - uz * wy,
    ny = uz * wx - ux * wz,
    nz = ux * wy - uy * wx;
  const l = norm3(nx, ny, nz);
  const s = l > 0 ? 1 / l : 1;
  out[o] = nx * s;
  out[o + 1] = ny * s;
  out[o + 2] = nz * s;
  return l;
}

/**
 * The hull's vertices (input indices), those whose incident triangle normals span 3D (corners)
 * first, then the others; null when every vertex is a corner. A vertex inside a face has one
 * normal direction, one on an edge two.
 */
function cornersFirst(
  P: Float64Array,
  n: number,
  tris: Int32Array,
): { order: Int32Array; corners: number } | null {
  const T = tris.length / 3;
  const N = new Float64Array(T * 3);
  for (let t = 0; t < T; t++) unitNormal(P, tris[t * 3], tris[t * 3 + 1], tris[t * 3 + 2], N, t * 3);
  // per vertex: a first normal, the incident normal most apart from it, then any normal off their plane
  const first = new Int32Array(n).fill(-1);
  const second = new Int32Array(n).fill(-1);
  const apart = new Float64Array(n);
  const isExtreme = new Uint8Array(n);
  for (let t = 0; t < T; t++)
    for (let e = 0; e < 3; e++) if (first[tris[t * 3 + e]] < 0) first[tris[t * 3 + e]] = t;
  for (let t = 0; t < T; t++) {
    for (let e = 0; e < 3; e++) {
      const v = tris[t * 3 + e];
      const f = first[v] * 3;
      const s = norm3(
        N[f + 1] * N[t * 3 + 2] - N[f + 2] * N[t * 3 + 1],
        N[f + 2] * N[t * 3] - N[f] * N[t * 3 + 2],
        N[f] * N[t * 3 + 1] - N[f + 1] * N[t * 3],
      );
      if (s > apart[v]) {
        apart[v] = s;
        second[v] = t;
      }
    }
  }
  for (let t = 0; t < T; t++) {
    for (let e = 0; e < 3; e++) {
      const v = tris[t * 3 + e];
      if (isExtreme[v] || apart[v] <= EXTREME_SIN) continue;
      const f = first[v] * 3,
        g = second[v] * 3;
      const cx = (N[f + 1] * N[g + 2] - N[f + 2] * N[g + 1]) / apart[v],
        cy = (N[f + 2] * N[g] - N[f] * N[g + 2]) / apart[v],
        cz = (N[f] * N[g + 1] - N[f + 1] * N[g]) / apart[v];
      if (Math.abs(cx * N[t * 3] + cy * N[t * 3 + 1] + cz * N[t * 3 + 2]) > EXTREME_SIN) isExtreme[v] = 1;
    }
  }
  const corners: number[] = [],
    others: number[] = [];
  for (let v = 0; v < n; v++) if (first[v] >= 0) (isExtreme[v] ? corners : others).push(v);
  return others.length === 0
    ? null
    : { order: Int32Array.from([...corners, ...others]), corners: corners.length };
}

/** growable face storage of the quickhull */
class Faces {
  count = 0;
  /** (F × 3) vertex (point) indices, counter-clockwise from outside */
  v = new Int32Array(64 * 3);
  /** (F × 3) the face across edge e (from v[e] to v[e + 1]) */
  nb = new Int32Array(64 * 3);
  /** (F × 4) outward unit normal and offset */
  plane = new Float64Array(64 * 4);
  /** (F) 1 while the face is on the hull */
  alive = new Uint8Array(64);
  /** (F) first point of the outside list, -1 when empty */
  head = new Int32Array(64);
  /** (F) flood-fill stamp */
  mark = new Int32Array(64);

  add(P: Float64Array, a: number, b: number, c: number): number {
    if (this.count === this.alive.length) this.grow();
    const f = this.count++;
    this.v[f * 3] = a;
    this.v[f * 3 + 1] = b;
    this.v[f * 3 + 2] = c;
    unitNormal(P, a, b, c, this.plane, f * 4);
    const nx = this.plane[f * 4],
      ny = this.plane[f * 4 + 1],
      nz = this.plane[f * 4 + 2];
    // the offset from the centroid: the same rounding for the three vertices
    this.plane[f * 4 + 3] =
      (nx * (P[a * 3] + P[b * 3] + P[c * 3]) +
        ny * (P[a * 3 + 1] + P[b * 3 + 1] + P[c * 3 + 1]) +
        nz * (P[a * 3 + 2] + P[b * 3 + 2] + P[c * 3 + 2])) /
      3;
    this.alive[f] = 1;
    this.head[f] = -1;
    this.mark[f] = 0;
    return f;
  }

  dist(P: Float64Array, f: number, i: number): number {
    const q = this.plane;
    return q[f * 4] * P[i * 3] + q[f * 4 + 1] * P[i * 3 + 1] + q[f * 4 + 2] * P[i * 3 + 2] - q[f * 4 + 3];
  }

  /** the edge index of face f that runs from a to b */
  edge(f: number, a: number, b: number): number {
    for (let e = 0; e < 3; e++) if (this.v[f * 3 + e] === a && this.v[f * 3 + ((e + 1) % 3)] === b) return e;
    return -1;
  }

  private grow(): void {
    const cap = this.alive.length * 2;
    const more = <T extends Int32Array | Float64Array | Uint8Array>(a: T, per: number): T => {
      const b = new (a.constructor as new (n: number) => T)(cap * per);
      b.set(a);
      return b;
    };
    this.v = more(this.v, 3);
    this.nb = more(this.nb, 3);
    this.plane = more(this.plane, 4);
    this.alive = more(this.alive, 1);
    this.head = more(this.head, 1);
    this.mark = more(this.mark, 1);
  }
}

/**
 * The hull of n centred points: its triangles as point indices, or null without volume. The first
 * `primary` points make the initial tetrahedron and are taken in a seeded random order; the rest
 * follow in index order.
 */
function quickhull(
  P: Float64Array,
  n: number,
  eps: number,
  stats: HullStats,
  primary = n,
): Int32Array | null {
  const x = (i: number, k: number) => P[i * 3 + k];
  // initial tetrahedron: the most distant of the axis-extreme pairs, the point farthest from their
  // line, the point farthest from the plane of the three
  const iMin = [0, 0, 0],
    iMax = [0, 0, 0];
  for (let i = 1; i < primary; i++) {
    for (let k = 0; k < 3; k++) {
      if (x(i, k) < x(iMin[k], k)) iMin[k] = i;
      if (x(i, k) > x(iMax[k], k)) iMax[k] = i;
    }
  }
  let a = 0,
    b = 0,
    best = -1;
  for (let k = 0; k < 3; k++) {
    const d = norm3(
      x(iMax[k], 0) - x(iMin[k], 0),
      x(iMax[k], 1) - x(iMin[k], 1),
      x(iMax[k], 2) - x(iMin[k], 2),
    );
    if (d > best) [best, a, b] = [d, iMin[k], iMax[k]];
  }
  if (!(best > eps)) return null;
  const ux = x(b, 0) - x(a, 0),
    uy = x(b, 1) - x(a, 1),
    uz = x(b, 2) - x(a, 2);
  const ul = norm3(ux, uy, uz);
  let c = -1;
  best = eps;
  for (let i = 0; i < primary; i++) {
    const wx = x(i, 0) - x(a, 0),
      wy = x(i, 1) - x(a, 1),
      wz = x(i, 2) - x(a, 2);
    const d = norm3(uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx) / ul;
    if (d > best) [best, c] = [d, i];
  }
  if (c < 0) return null;
  const faces = new Faces();
  const base = faces.add(P, a, b, c);
  let d = -1;
  best = eps;
  for (let i = 0; i < primary; i++) {
    const s = Math.abs(faces.dist(P, base, i));
    if (s > best) [best, d] = [s, i];
  }
  if (d < 0) return null;
  faces.count = 0;
  // four faces oriented away from the opposite vertex; face k's edges meet the others as listed
  const tet = faces.dist(P, base, d) < 0 ? [a, b, c, d] : [a, c, b, d];
  const [p0, p1, p2, p3] = tet;
  faces.add(P, p0, p1, p2);
  faces.add(P, p0, p3, p1);
  faces.add(P, p1, p3, p2);
  faces.add(P, p2, p3, p0);
  for (let f = 0; f < 4; f++) {
    for (let e = 0; e < 3; e++) {
      const s = faces.v[f * 3 + e],
        t = faces.v[f * 3 + ((e + 1) % 3)];
      for (let g = 0; g < 4; g++) if (g !== f && faces.edge(g, t, s) >= 0) faces.nb[f * 3 + e] = g;
    }
  }

  // outside lists: each point on the first face it is outside of (its owner; -1: inside or on)
  const next = new Int32Array(n).fill(-1);
  const owner = new Int32Array(n).fill(-1);
  const put = (i: number, f0: number, fEnd: number): void => {
    owner[i] = -1;
    for (let f = f0; f < fEnd; f++) {
      if (faces.dist(P, f, i) > eps) {
        next[i] = faces.head[f];
        faces.head[f] = i;
        owner[i] = f;
        return;
      }
    }
  };
  for (let i = 0; i < n; i++) if (i !== p0 && i !== p1 && i !== p2 && i !== p3) put(i, 0, 4);

  const visible: number[] = [];
  const stack: number[] = [];
  // horizon edges (from → to), the face kept behind each and that face's edge index
  const hFrom: number[] = [],
    hTo: number[] = [],
    hFace: number[] = [],
    hEdge: number[] = [];
  const startsAt = new Int32Array(n).fill(-1);
  let stamp = 0;

  // the faces the eye sees from f0 (threshold `over`) and their horizon; false when the horizon is
  // not one simple loop (a near-coplanar configuration)
  // whether point o lies above the plane of (s, t, eye) by more than eps: the cone face there would
  // not be convex with the kept face that holds s, t and o
  const folds = (s: number, t: number, eye: number, o: number): boolean => {
    const ux = x(t, 0) - x(s, 0),
      uy = x(t, 1) - x(s, 1),
      uz = x(t, 2) - x(s, 2);
    const wx = x(eye, 0) - x(s, 0),
      wy = x(eye, 1) - x(s, 1),
      wz = x(eye, 2) - x(s, 2);
    const nx = uy * wz - uz * wy,
      ny = uz * wx - ux * wz,
      nz = ux * wy - uy * wx;
    const side = nx * (x(o, 0) - x(s, 0)) + ny * (x(o, 1) - x(s, 1)) + nz * (x(o, 2) - x(s, 2));
    return side > eps * norm3(nx, ny, nz);
  };
  const seen = (f0: number, eye: number, over: number): boolean => {
    stamp++;
    visible.length = 0;
    hFrom.length = hTo.length = hFace.length = hEdge.length = 0;
    faces.mark[f0] = stamp;
    stack.push(f0);
    while (stack.length) {
      const f = stack.pop()!;
      visible.push(f);
      for (let e = 0; e < 3; e++) {
        const g = faces.nb[f * 3 + e];
        if (faces.mark[g] === stamp) continue;
        if (faces.dist(P, g, eye) > over) {
          faces.mark[g] = stamp;
          stack.push(g);
        }
      }
    }
    // the horizon; a kept face that the cone would fold over (the eye within eps of its plane, on
    // its side of the edge) is seen too, and the horizon is taken again
    for (let grown = true; grown;) {
      grown = false;
      hFrom.length = hTo.length = hFace.length = hEdge.length = 0;
      for (let q = 0; q < visible.length; q++) {
        const f = visible[q];
        for (let e = 0; e < 3; e++) {
          const g = faces.nb[f * 3 + e];
          if (faces.mark[g] === stamp) continue;
          const s = faces.v[f * 3 + e],
            t = faces.v[f * 3 + ((e + 1) % 3)];
          const ge = faces.edge(g, t, s);
          if (folds(s, t, eye, faces.v[g * 3 + ((ge + 2) % 3)])) {
            faces.mark[g] = stamp;
            visible.push(g);
            grown = true;
            continue;
          }
          hFrom.push(s);
          hTo.push(t);
          hFace.push(g);
          hEdge.push(ge);
        }
      }
    }
    // one simple loop: every vertex starts at most one edge, and the walk from the first covers all
    let simple = true;
    for (let h = 0; h < hFrom.length; h++) {
      if (startsAt[hFrom[h]] >= 0) simple = false;
      startsAt[hFrom[h]] = h;
    }
    if (simple) {
      let h = 0,
        steps = 0;
      do {
        h = startsAt[hTo[h]];
        steps++;
      } while (h > 0 && steps <= hFrom.length);
      simple = h === 0 && steps === hFrom.length;
    }
    for (let h = 0; h < hFrom.length; h++) startsAt[hFrom[h]] = -1;
    return simple;
  };

  const newFace = new Int32Array(n).fill(-1);
  // points in a seeded random order: the expected total work is then O(n log n) whatever the
  // input's structure (farthest-point order degrades to O(n²) on a cylinder's rims, whose
  // intermediate hulls fan one rim vertex across the other rim)
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const seed = { s: 0x9e3779b9 };
  shuffle(order, 0, primary, seed);
  for (let k = 0; k < n; k++) {
    const eye = order[k];
    const f0 = owner[eye];
    if (f0 < 0) continue;
    if (!seen(f0, eye, eps) && !seen(f0, eye, -eps)) {
      // no consistent horizon: the eye is within rounding of the hull; drop it
      let prev = -1;
      for (let i = faces.head[f0]; i >= 0; prev = i, i = next[i]) {
        if (i !== eye) continue;
        if (prev < 0) faces.head[f0] = next[i];
        else next[prev] = next[i];
        break;
      }
      owner[eye] = -1;
      stats.dropped++;
      continue;
    }
    // remove the visible faces, keeping their outside points
    let orphans = -1;
    for (const f of visible) {
      faces.alive[f] = 0;
      for (let i = faces.head[f]; i >= 0;) {
        const j = next[i];
        if (i !== eye) {
          next[i] = orphans;
          orphans = i;
        }
        i = j;
      }
      faces.head[f] = -1;
    }
    // cone the horizon to the eye: face h = (from, to, eye) meets the kept face across (from, to),
    // the next cone face across (to, eye) and the previous one across (eye, from)
    const first = faces.count;
    for (let h = 0; h < hFrom.length; h++) {
      const f = faces.add(P, hFrom[h], hTo[h], eye);
      faces.nb[f * 3] = hFace[h];
      faces.nb[hFace[h] * 3 + hEdge[h]] = f;
      newFace[hFrom[h]] = f;
    }
    for (let f = first; f < faces.count; f++) {
      const g = newFace[faces.v[f * 3 + 1]];
      faces.nb[f * 3 + 1] = g;
      faces.nb[g * 3 + 2] = f;
    }
    for (let h = 0; h < hFrom.length; h++) newFace[hFrom[h]] = -1;
    // the orphans go to the first new face they are outside of, else to a kept face across the
    // horizon they are outside of (a point farther out than the eye can see past the cone: the
    // faces it sees form a connected patch through the removed ones, so it crosses the horizon),
    // else they are inside
    for (let i = orphans; i >= 0;) {
      const j = next[i];
      put(i, first, faces.count);
      for (let h = 0; owner[i] < 0 && h < hFace.length; h++) put(i, hFace[h], hFace[h] + 1);
      i = j;
    }
    owner[eye] = -1;
  }
  stats.facesCreated += faces.count;
  const tris: number[] = [];
  for (let f = 0; f < faces.count; f++)
    if (faces.alive[f]) tris.push(faces.v[f * 3], faces.v[f * 3 + 1], faces.v[f * 3 + 2]);
  return tris.length >= 12 ? Int32Array.from(tris) : null;
}

/** Fisher–Yates shuffle of order[from, to) with a xorshift32 generator (state in `seed.s`) */
function shuffle(order: Int32Array, from: number, to: number, seed: { s: number }): void {
  let s = seed.s;
  for (let i = to - 1; i > from; i--) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const j = from + ((s >>> 0) % (i - from + 1));
    const t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  seed.s = s;
}

/**
 * Polygonal faces of a convex hull: coplanar triangles merged into convex polygons, plus vertex
 * adjacency. Used for flat-contact features (a face when the contact normal is nearly parallel to
 * its normal, an edge when nearly perpendicular to it).
 */
export interface HullFaces {
  /** (V × 3) vertices, the hull's [m] */
  readonly vertices: Float64Array;
  /** number of polygonal faces */
  readonly faceCount: number;
  /** (F + 1) offsets into faceVertex */
  readonly faceStart: Int32Array;
  /** vertex indices of every face, counter-clockwise seen from outside */
  readonly faceVertex: Int32Array;
  /** (F × 3) outward unit normals */
  readonly faceNormal: Float64Array;
  /** (V + 1) offsets into adjacent */
  readonly adjStart: Int32Array;
  /** the neighbours of every vertex along hull edges */
  readonly adjacent: Int32Array;
}

/** cosine above which two hull triangles count as coplanar (with equal plane offsets) */
const COPLANAR_COS = 1 - 1e-9;

/** groups a hull's triangles into polygonal faces (see {@link HullFaces}) */
export function hullFaces(h: HullMesh): HullFaces {
  const V = h.vertices.length / 3;
  const T = h.triangles.length / 3;
  const P = h.vertices;
  const tri = h.triangles;
  let ext = 0;
  for (let i = 0; i < P.length; i++) ext = Math.max(ext, Math.abs(P[i]));
  const tn = new Float64Array(T * 4);
  for (let t = 0; t < T; t++) {
    const i = tri[t * 3] * 3;
    unitNormal(P, tri[t * 3], tri[t * 3 + 1], tri[t * 3 + 2], tn, t * 4);
    tn[t * 4 + 3] = tn[t * 4] * P[i] + tn[t * 4 + 1] * P[i + 1] + tn[t * 4 + 2] * P[i + 2];
  }
  const group = new Int32Array(T).fill(-1);
  const inFace = new Int32Array(V).fill(-1);
  const faceStart: number[] = [0];
  const faceVertex: number[] = [];
  const faceNormal: number[] = [];
  const planeTol = 1e-9 * Math.max(ext, 1e-300);
  // triangle neighbours across edges; a face grows from a seed triangle over coplanar neighbours
  const across = new Map<number, number>();
  for (let t = 0; t < T; t++)
    for (let e = 0; e < 3; e++) across.set(tri[t * 3 + e] * V + tri[t * 3 + ((e + 1) % 3)], t);
  const queue: number[] = [];
  const list: number[] = [];
  const ang: number[] = [];
  const byAngle = (x: number, y: number) => ang[x] - ang[y] || list[x] - list[y];
  for (let t = 0; t < T; t++) {
    if (group[t] >= 0) continue;
    const f = faceNormal.length / 3;
    list.length = 0;
    let sx = 0,
      sy = 0,
      sz = 0;
    group[t] = f;
    queue.push(t);
    while (queue.length) {
      const u = queue.pop()!;
      for (let e = 0; e < 3; e++) {
        const v = tri[u * 3 + e];
        if (inFace[v] !== f) {
          inFace[v] = f;
          list.push(v);
        }
      }
      sx += tn[u * 4];
      sy += tn[u * 4 + 1];
      sz += tn[u * 4 + 2];
      for (let e = 0; e < 3; e++) {
        const w = across.get(tri[u * 3 + ((e + 1) % 3)] * V + tri[u * 3 + e]);
        if (w === undefined || group[w] >= 0) continue;
        const c = tn[t * 4] * tn[w * 4] + tn[t * 4 + 1] * tn[w * 4 + 1] + tn[t * 4 + 2] * tn[w * 4 + 2];
        if (c < COPLANAR_COS || Math.abs(tn[w * 4 + 3] - tn[t * 4 + 3]) > planeTol) continue;
        group[w] = f;
        queue.push(w);
      }
    }
    const l = Math.hypot(sx, sy, sz) || 1;
    const nx = sx / l,
      ny = sy / l,
      nz = sz / l;
    // order the face's vertices counter-clockwise about n around their centroid
    let cx = 0,
      cy = 0,
      cz = 0;
    for (const v of list) {
      cx += P[v * 3] / list.length;
      cy += P[v * 3 + 1] / list.length;
      cz += P[v * 3 + 2] / list.length;
    }
    const [hx, hy, hz] = Math.abs(nx) < 0.6 ? [1, 0, 0] : [0, 1, 0];
    let ax = ny * hz - nz * hy,
      ay = nz * hx - nx * hz,
      az = nx * hy - ny * hx;
    const al = Math.hypot(ax, ay, az);
    ax /= al;
    ay /= al;
    az /= al;
    const bx = ny * az - nz * ay,
      by = nz * ax - nx * az,
      bz = nx * ay - ny * ax;
    const idx: number[] = [];
    ang.length = 0;
    for (let q = 0; q < list.length; q++) {
      const v = list[q];
      const dx = P[v * 3] - cx,
        dy = P[v * 3 + 1] - cy,
        dz = P[v * 3 + 2] - cz;
      ang.push(Math.atan2(dx * bx + dy * by + dz * bz, dx * ax + dy * ay + dz * az));
      idx.push(q);
    }
    idx.sort(byAngle);
    for (const q of idx) faceVertex.push(list[q]);
    faceStart.push(faceVertex.length);
    faceNormal.push(nx, ny, nz);
  }
  // adjacency from the triangle edges: on a closed hull every directed edge p → q appears once
  const adjStart = new Int32Array(V + 1);
  for (let i = 0; i < T * 3; i++) adjStart[tri[i] + 1]++;
  for (let v = 0; v < V; v++) adjStart[v + 1] += adjStart[v];
  const fill = adjStart.slice(0, V);
  const adjacent = new Int32Array(T * 3);
  for (let t = 0; t < T; t++)
    for (let e = 0; e < 3; e++) adjacent[fill[tri[t * 3 + e]]++] = tri[t * 3 + ((e + 1) % 3)];
  for (let v = 0; v < V; v++) adjacent.subarray(adjStart[v], adjStart[v + 1]).sort();
  return {
    vertices: h.vertices,
    faceCount: faceNormal.length / 3,
    faceStart: Int32Array.from(faceStart),
    faceVertex: Int32Array.from(faceVertex),
    faceNormal: Float64Array.from(faceNormal),
    adjStart,
    adjacent,
  };
}
