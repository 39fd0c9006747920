/**
 * Axis-aligned bounding-volume hierarchy over a triangle mesh, in the mesh's own (unscaled) frame.
 * Built once per mesh (median split of triangle centroids along the longest axis, ≤
 * {@link BVH_LEAF_SIZE} triangles per leaf); queried with a box every collide, allocation-free.
 * A per-axis scale s > 0 maps the tree to a scaled mesh exactly (query with the box divided by s).
 */

/** the most triangles in a leaf */
export const BVH_LEAF_SIZE = 4;

export interface TriangleBVH {
  /** number of nodes; node 0 is the root */
  readonly nodeCount: number;
  /** (nodes × 6) [minx, miny, minz, maxx, maxy, maxz] [m] */
  readonly bounds: Float64Array;
  /** (nodes) left child, or -1 for a leaf (the right child is left + 1... see `right`) */
  readonly left: Int32Array;
  /** (nodes) right child (internal nodes) */
  readonly right: Int32Array;
  /** (nodes) leaf range start into `order` */
  readonly start: Int32Array;
  /** (nodes) leaf triangle count (0 for internal nodes) */
  readonly count: Int32Array;
  /** (T) triangle indices in leaf order */
  readonly order: Int32Array;
  /** traversal stack (depth bound) */
  readonly stack: Int32Array;
}

/**
 * Builds the hierarchy of triangles `tris` (T × 3 indices into `verts`, V × 3 coordinates).
 * @param verts vertex coordinates [m]
 * @param vStart first vertex of this mesh in `verts` (indices in `tris` are relative to it)
 */
export function buildTriangleBVH(
  verts: ArrayLike<number>,
  vStart: number,
  tris: ArrayLike<number>,
  tStart: number,
  tCount: number,
): TriangleBVH {
  const T = tCount;
  const cen = new Float64Array(T * 3);
  const tb = new Float64Array(T * 6);
  for (let t = 0; t < T; t++) {
    for (let k = 0; k < 3; k++) {
      tb[t * 6 + k] = Infinity;
      tb[t * 6 + 3 + k] = -Infinity;
    }
    for (let e = 0; e < 3; e++) {
      const v = (vStart + tris[(tStart + t) * 3 + e]) * 3;
      for (let k = 0; k < 3; k++) {
        const x = verts[v + k];
        if (x < tb[t * 6 + k]) tb[t * 6 + k] = x;
        if (x > tb[t * 6 + 3 + k]) tb[t * 6 + 3 + k] = x;
      }
    }
    for (let k = 0; k < 3; k++) cen[t * 3 + k] = 0.5 * (tb[t * 6 + k] + tb[t * 6 + 3 + k]);
  }
  const order = Int32Array.from({ length: T }, (_, i) => i);
  const bounds: number[] = [];
  const left: number[] = [],
    right: number[] = [],
    start: number[] = [],
    count: number[] = [];
  let maxDepth = 1;
  const build = (lo: number, hi: number, depth: number): number => {
    const node = left.length;
    left.push(-1);
    right.push(-1);
    start.push(lo);
    count.push(hi - lo);
    const b = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
    const cb = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
    for (let i = lo; i < hi; i++) {
      const t = order[i];
      for (let k = 0; k < 3; k++) {
        b[k] = Math.min(b[k], tb[t * 6 + k]);
        b[3 + k] = Math.max(b[3 + k], tb[t * 6 + 3 + k]);
        cb[k] = Math.min(cb[k], cen[t * 3 + k]);
        cb[3 + k] = Math.max(cb[3 + k], cen[t * 3 + k]);
      }
    }
    bounds.push(...b);
    maxDepth = Math.max(maxDepth, depth);
    if (hi - lo <= BVH_LEAF_SIZE) return node;
    let axis = 0;
    for (let k = 1; k < 3; k++) if (cb[3 + k] - cb[k] > cb[3 + axis] - cb[axis]) axis = k;
    // median split by centroid (ties by index for determinism)
    const part = Array.from(order.subarray(lo, hi)).sort(
      (x, y) => cen[x * 3 + axis] - cen[y * 3 + axis] || x - y,
    );
    order.set(part, lo);
    const mid = (lo + hi) >> 1;
    count[node] = 0;
    const l = build(lo, mid, depth + 1);
    const r = build(mid, hi, depth + 1);
    left[node] = l;
    right[node] = r;
    return node;
  };
  if (T > 0) build(0, T, 1);
  return {
    nodeCount: left.length,
    bounds: Float64Array.from(bounds),
    left: Int32Array.from(left),
    right: Int32Array.from(right),
    start: Int32Array.from(start),
    count: Int32Array.from(count),
    order,
    stack: new Int32Array(2 * maxDepth + 2),
  };
}

/**
 * Writes into `out` (from index 0) the triangles whose leaf boxes overlap the query box
 * [lo, hi] (mesh frame), in leaf order; returns how many. `out` must hold every triangle.
 */
export function queryTriangleBVH(
  bvh: TriangleBVH,
  lx: number,
  ly: number,
  lz: number,
  hx: number,
  hy: number,
  hz: number,
  out: Int32Array,
): number {
  if (bvh.nodeCount === 0) return 0;
  const { bounds: B, left, right, start, count, order, stack } = bvh;
  let sp = 0;
  let n = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    const node = stack[--sp];
    const o = node * 6;
    if (B[o] > hx || B[o + 3] < lx || B[o + 1] > hy || B[o + 4] < ly || B[o + 2] > hz || B[o + 5] < lz)
      continue;
    const l = left[node];
    if (l < 0) {
      const s = start[node],
        e = s + count[node];
      for (let i = s; i < e; i++) out[n++] = order[i];
    } else {
      // right first so the left subtree is visited first
      stack[sp++] = right[node];
      stack[sp++] = l;
    }
  }
  return n;
}
