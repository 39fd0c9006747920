/**
 * Walks over a convex hull's vertex graph (the triangle edges of {@link HullFaces}) instead of
 * scanning every vertex: the extreme vertex in a direction, and the faces that can be the most
 * parallel to a direction. Each answers exactly what the scan over all vertices (faces) answers, the
 * same index included:
 *
 * - On a convex polytope, the vertices whose value v·d is at least a level form a connected subgraph
 *   of its edge graph (from any of them a path of non-decreasing value reaches the maximum), so a
 *   breadth-first search from one of them that only steps onto vertices above the level finds them
 *   all. The hull's vertices are in convex position only to within its tolerance (1e-10 of the
 *   diagonal) and the values are rounded, so every search steps onto vertices down to
 *   {@link WALK_SLACK} of the hull's extent below its level, and filters afterwards.
 * - The extreme vertex: steepest ascent from the precomputed extreme vertex of the closest of 14
 *   fixed directions (or from the hull's last answer, when that lies higher), then a search of every
 *   vertex within the slack of the value reached, keeping the highest value and, among equal values,
 *   the lowest index (the scan's rule).
 *
 * The values are computed as the scans compute them (`dx·x + dy·y + dz·z`, in that order), so the
 * walks and the scans return the same bits. Nothing here allocates once a hull's structures exist
 * (built on its first walk and kept with it).
 */
import type { HullFaces } from './hull';

/** hulls with at most this many vertices are scanned (the walk's bookkeeping costs more) */
export const WALK_MIN_VERTICES = 48;
/** relative slack (of the hull's extent times |d|) below a level that a search still steps onto */
export const WALK_SLACK = 1e-8;

/** unit directions whose extreme vertices start the ascent: the 6 axes and 8 cube diagonals */
const ANCHOR_DIRS: readonly number[] = (() => {
  const d: number[] = [];
  for (let k = 0; k < 3; k++)
    for (const s of [1, -1]) {
      const u = [0, 0, 0];
      u[k] = s;
      d.push(...u);
    }
  const r = 1 / Math.sqrt(3);
  for (const x of [1, -1]) for (const y of [1, -1]) for (const z of [1, -1]) d.push(x * r, y * r, z * r);
  return d;
})();
const ANCHORS = ANCHOR_DIRS.length / 3;

/** per-hull walk structures, built on first use */
interface HullGraph {
  /** extreme vertex of every anchor direction */
  readonly anchor: Int32Array;
  /** largest |coordinate| over the vertices (the scale of the values' rounding) [m] */
  readonly extent: number;
  /** largest distance of a vertex from the bounding-box centre [m] */
  readonly radius: number;
  /** (V + 1) offsets into vertexFace */
  readonly vertexFaceStart: Int32Array;
  /** the faces incident to every vertex, ascending */
  readonly vertexFace: Int32Array;
  /** visit stamps of the vertices and the faces */
  readonly vertexMark: Int32Array;
  readonly faceMark: Int32Array;
  stamp: number;
  /**
   * the last answer of {@link hullArgmax}: a second start for the ascent (a shape that barely moved
   * between steps is asked nearly the same direction again); the answer does not depend on the start
   */
  last: number;
}

const GRAPHS = new WeakMap<HullFaces, HullGraph>();

function scanArgmax(V: Float64Array, n: number, dx: number, dy: number, dz: number): number {
  let best = -Infinity,
    bi = 0;
  for (let i = 0; i < n; i++) {
    const v = dx * V[i * 3] + dy * V[i * 3 + 1] + dz * V[i * 3 + 2];
    if (v > best) {
      best = v;
      bi = i;
    }
  }
  return bi;
}

function graphOf(F: HullFaces): HullGraph {
  let g = GRAPHS.get(F);
  if (g) return g;
  const V = F.vertices;
  const n = V.length / 3;
  const anchor = new Int32Array(ANCHORS);
  for (let k = 0; k < ANCHORS; k++)
    anchor[k] = scanArgmax(V, n, ANCHOR_DIRS[k * 3], ANCHOR_DIRS[k * 3 + 1], ANCHOR_DIRS[k * 3 + 2]);
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  let extent = 0;
  for (let i = 0; i < V.length; i++) {
    const k = i % 3;
    lo[k] = Math.min(lo[k], V[i]);
    hi[k] = Math.max(hi[k], V[i]);
    extent = Math.max(extent, Math.abs(V[i]));
  }
  let radius = 0;
  for (let i = 0; i < n; i++)
    radius = Math.max(
      radius,
      Math.hypot(
        V[i * 3] - 0.5 * (lo[0] + hi[0]),
        V[i * 3 + 1] - 0.5 * (lo[1] + hi[1]),
        V[i * 3 + 2] - 0.5 * (lo[2] + hi[2]),
      ),
    );
  const vertexFaceStart = new Int32Array(n + 1);
  for (let q = 0; q < F.faceVertex.length; q++) vertexFaceStart[F.faceVertex[q] + 1]++;
  for (let i = 0; i < n; i++) vertexFaceStart[i + 1] += vertexFaceStart[i];
  const fill = vertexFaceStart.slice(0, n);
  const vertexFace = new Int32Array(F.faceVertex.length);
  // faces in ascending order, so every vertex's list is ascending
  for (let f = 0; f < F.faceCount; f++)
    for (let q = F.faceStart[f]; q < F.faceStart[f + 1]; q++) vertexFace[fill[F.faceVertex[q]]++] = f;
  g = {
    anchor,
    extent,
    radius,
    vertexFaceStart,
    vertexFace,
    vertexMark: new Int32Array(n),
    faceMark: new Int32Array(F.faceCount),
    stamp: 0,
    last: anchor[0],
  };
  GRAPHS.set(F, g);
  return g;
}

/** a fresh stamp for the marks of g (the marks are cleared when the counter wraps) */
function nextStamp(g: HullGraph): number {
  if (g.stamp === 0x7fffffff) {
    g.vertexMark.fill(0);
    g.faceMark.fill(0);
    g.stamp = 0;
  }
  return ++g.stamp;
}

let QUEUE = new Int32Array(256);
function pushQueue(n: number, v: number): void {
  if (n === QUEUE.length) {
    const q = new Int32Array(2 * QUEUE.length);
    q.set(QUEUE);
    QUEUE = q;
  }
  QUEUE[n] = v;
}

/** the faces found by the last {@link hullFacesNear}, ascending. Valid until the next walk. */
export let WALK_FACES = new Int32Array(256);

/** breadth-first search from `start` over the vertices with value ≥ level; returns their count (in QUEUE) */
function searchAbove(
  F: HullFaces,
  g: HullGraph,
  start: number,
  dx: number,
  dy: number,
  dz: number,
  level: number,
): number {
  const V = F.vertices,
    adjStart = F.adjStart,
    adj = F.adjacent,
    mark = g.vertexMark;
  const s = nextStamp(g);
  mark[start] = s;
  pushQueue(0, start);
  let n = 1;
  for (let h = 0; h < n; h++) {
    const u = QUEUE[h];
    for (let q = adjStart[u]; q < adjStart[u + 1]; q++) {
      const w = adj[q];
      if (mark[w] === s) continue;
      mark[w] = s;
      if (dx * V[w * 3] + dy * V[w * 3 + 1] + dz * V[w * 3 + 2] < level) continue;
      pushQueue(n++, w);
    }
  }
  return n;
}

/** the slack of a search in direction d: WALK_SLACK of the values' scale */
function slackOf(g: HullGraph, dx: number, dy: number, dz: number): number {
  return WALK_SLACK * (Math.abs(dx) + Math.abs(dy) + Math.abs(dz)) * Math.max(g.extent, 1e-300);
}

/**
 * Index of the vertex of F maximising d·v (values computed as `dx·x + dy·y + dz·z`), the lowest index
 * among equal maxima: the answer of a scan over all vertices.
 */
export function hullArgmax(F: HullFaces, dx: number, dy: number, dz: number): number {
  const V = F.vertices;
  const n = V.length / 3;
  if (n <= WALK_MIN_VERTICES) return scanArgmax(V, n, dx, dy, dz);
  const g = graphOf(F);
  // start at the extreme vertex of the closest anchor direction
  let ka = 0,
    bd = -Infinity;
  for (let k = 0; k < ANCHORS; k++) {
    const c = dx * ANCHOR_DIRS[k * 3] + dy * ANCHOR_DIRS[k * 3 + 1] + dz * ANCHOR_DIRS[k * 3 + 2];
    if (c > bd) {
      bd = c;
      ka = k;
    }
  }
  let u = g.anchor[ka];
  let b = dx * V[u * 3] + dy * V[u * 3 + 1] + dz * V[u * 3 + 2];
  // or at the last answer, when it lies higher
  const h0 = g.last;
  const bh = dx * V[h0 * 3] + dy * V[h0 * 3 + 1] + dz * V[h0 * 3 + 2];
  if (bh > b) {
    u = h0;
    b = bh;
  }
  // steepest ascent
  const adjStart = F.adjStart,
    adj = F.adjacent;
  for (;;) {
    let next = -1,
      nb = b;
    for (let q = adjStart[u]; q < adjStart[u + 1]; q++) {
      const w = adj[q];
      const v = dx * V[w * 3] + dy * V[w * 3 + 1] + dz * V[w * 3 + 2];
      if (v > nb) {
        nb = v;
        next = w;
      }
    }
    if (next < 0) break;
    u = next;
    b = nb;
  }
  // every vertex within the slack of the value reached: the highest value, then the lowest index
  const m = searchAbove(F, g, u, dx, dy, dz, b - slackOf(g, dx, dy, dz));
  let best = -Infinity,
    bi = 0;
  for (let h = 0; h < m; h++) {
    const w = QUEUE[h];
    const v = dx * V[w * 3] + dy * V[w * 3 + 1] + dz * V[w * 3 + 2];
    if (v > best || (v === best && w < bi)) {
      best = v;
      bi = w;
    }
  }
  g.last = bi;
  return bi;
}

/**
 * The faces of F that can hold the direction d's most parallel face normal when that normal is
 * within `cosTol` of d: every face with a vertex whose value lies within 2·r·√(2 − 2·cosTol)
 * (enlarged by a tenth) of the maximum, r the hull's radius times `scale` (the largest |scale| of
 * the hull's axes; d is the unit direction times the scale, per axis). A face whose unit normal n_f
 * has n_f·d̂ ≥ cosTol has all its vertices there: with x on the face, y on the hull and c any point,
 * (x − c)·d̂ ≥ max_y (y − c)·d̂ − 2·r·|d̂ − n_f|. In ascending order in {@link WALK_FACES}; returns
 * their count. `top` is the extreme vertex in d.
 */
export function hullFacesNear(
  F: HullFaces,
  top: number,
  dx: number,
  dy: number,
  dz: number,
  scale: number,
  cosTol: number,
): number {
  const V = F.vertices;
  const g = graphOf(F);
  const b = dx * V[top * 3] + dy * V[top * 3 + 1] + dz * V[top * 3 + 2];
  const reach = 2.2 * g.radius * scale * Math.sqrt(Math.max(2 - 2 * cosTol, 0));
  const n = searchAbove(F, g, top, dx, dy, dz, b - reach - slackOf(g, dx, dy, dz));
  const mark = g.faceMark;
  const s = nextStamp(g);
  let m = 0;
  for (let h = 0; h < n; h++) {
    const u = QUEUE[h];
    for (let q = g.vertexFaceStart[u]; q < g.vertexFaceStart[u + 1]; q++) {
      const f = g.vertexFace[q];
      if (mark[f] === s) continue;
      mark[f] = s;
      if (WALK_FACES.length === m) {
        const a = new Int32Array(2 * m);
        a.set(WALK_FACES);
        WALK_FACES = a;
      }
      WALK_FACES[m++] = f;
    }
  }
  WALK_FACES.subarray(0, m).sort();
  return m;
}
