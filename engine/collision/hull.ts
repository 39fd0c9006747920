/**
 * 3D convex hull (incremental, deterministic) and its face structure for the collision module:
 * convex meshes use the hull for their support function and flat-contact features, triangle meshes
 * use it where they are collided as a hull (mesh–mesh, mesh–heightfield), and scene loading uses it
 * for `is_convex` point clouds without triangles.
 *
 * Algorithm: an initial tetrahedron from extreme points, then every other point (in input order) is
 * added when it lies outside the current hull by more than eps = 1e-10 · (bounding-box diagonal):
 * the faces it sees are removed and the horizon is coned to it. O(n·f); meant for hulls of up to a
 * few thousand points (collision hulls are small). Degenerate input (all points coplanar or
 * collinear) has no volume and yields `null`.
 */

/** a closed convex hull: its vertices and outward counter-clockwise triangles */
export interface HullMesh {
  /** (V × 3) hull vertices (a subset of the input, in first-use order) [m] */
  readonly vertices: Float64Array;
  /** (T × 3) vertex indices into `vertices`, counter-clockwise seen from outside */
  readonly triangles: Int32Array;
  /** (V) index of each hull vertex in the input point list */
  readonly source: Int32Array;
}

/**
 * Convex hull of a point cloud given as flat xyz triples. Returns null when the points span no
 * volume (fewer than 4 points, or all coplanar within eps).
 */
export function convexHull(points: ArrayLike<number>): HullMesh | null {
  const n = Math.floor(points.length / 3);
  if (n < 4) return null;
  const P = Float64Array.from({ length: n * 3 }, (_, i) => points[i]);
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  const iMin = [0, 0, 0],
    iMax = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 3; k++) {
      const v = P[i * 3 + k];
      if (v < lo[k]) {
        lo[k] = v;
        iMin[k] = i;
      }
      if (v > hi[k]) {
        hi[k] = v;
        iMax[k] = i;
      }
    }
  }
  const diag = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  if (!(diag > 0) || !Number.isFinite(diag)) return null;
  const eps = 1e-10 * diag;
  const px = (i: number) => P[i * 3],
    py = (i: number) => P[i * 3 + 1],
    pz = (i: number) => P[i * 3 + 2];

  // initial tetrahedron: the most distant extreme pair, then the farthest from that line, then from that plane
  let a = 0,
    b = 0,
    best = -1;
  for (let k = 0; k < 3; k++) {
    const d = Math.hypot(px(iMax[k]) - px(iMin[k]), py(iMax[k]) - py(iMin[k]), pz(iMax[k]) - pz(iMin[k]));
    if (d > best) {
      best = d;
      a = iMin[k];
      b = iMax[k];
    }
  }
  const ux = px(b) - px(a),
    uy = py(b) - py(a),
    uz = pz(b) - pz(a);
  let c = -1;
  best = eps * diag;
  for (let i = 0; i < n; i++) {
    const wx = px(i) - px(a),
      wy = py(i) - py(a),
      wz = pz(i) - pz(a);
    const cx = uy * wz - uz * wy,
      cy = uz * wx - ux * wz,
      cz = ux * wy - uy * wx;
    const d = Math.hypot(cx, cy, cz);
    if (d > best) {
      best = d;
      c = i;
    }
  }
  if (c < 0) return null;
  let nx = uy * (pz(c) - pz(a)) - uz * (py(c) - py(a)),
    ny = uz * (px(c) - px(a)) - ux * (pz(c) - pz(a)),
    nz = ux * (py(c) - py(a)) - uy * (px(c) - px(a));
  const nl = Math.hypot(nx, ny, nz);
  nx /= nl;
  ny /= nl;
  nz /= nl;
  let d4 = -1;
  best = eps;
  for (let i = 0; i < n; i++) {
    const d = Math.abs(nx * (px(i) - px(a)) + ny * (py(i) - py(a)) + nz * (pz(i) - pz(a)));
    if (d > best) {
      best = d;
      d4 = i;
    }
  }
  if (d4 < 0) return null;

  // faces: vertex triples (input indices), outward plane (normal, offset), alive flag
  const fv: number[] = [];
  const fn: number[] = [];
  const alive: boolean[] = [];
  const addFace = (i: number, j: number, k: number) => {
    const e1x = px(j) - px(i),
      e1y = py(j) - py(i),
      e1z = pz(j) - pz(i);
    const e2x = px(k) - px(i),
      e2y = py(k) - py(i),
      e2z = pz(k) - pz(i);
    let cx = e1y * e2z - e1z * e2y,
      cy = e1z * e2x - e1x * e2z,
      cz = e1x * e2y - e1y * e2x;
    const l = Math.hypot(cx, cy, cz) || 1;
    cx /= l;
    cy /= l;
    cz /= l;
    fv.push(i, j, k);
    fn.push(cx, cy, cz, cx * px(i) + cy * py(i) + cz * pz(i));
    alive.push(true);
  };
  const orient = nx * (px(d4) - px(a)) + ny * (py(d4) - py(a)) + nz * (pz(d4) - pz(a));
  if (orient < 0) {
    // d4 below the plane (a, b, c) with its CCW normal: (a, b, c) faces outward
    addFace(a, b, c);
    addFace(a, d4, b);
    addFace(b, d4, c);
    addFace(c, d4, a);
  } else {
    addFace(a, c, b);
    addFace(a, b, d4);
    addFace(b, c, d4);
    addFace(c, a, d4);
  }
  const used = new Uint8Array(n);
  used[a] = used[b] = used[c] = used[d4] = 1;

  const edgeA: number[] = [],
    edgeB: number[] = [];
  for (let i = 0; i < n; i++) {
    if (used[i]) continue;
    const x = px(i),
      y = py(i),
      z = pz(i);
    let sees = false;
    for (let f = 0; f < alive.length; f++) {
      if (alive[f] && fn[f * 4] * x + fn[f * 4 + 1] * y + fn[f * 4 + 2] * z - fn[f * 4 + 3] > eps) {
        sees = true;
        break;
      }
    }
    if (!sees) continue;
    // remove visible faces, collecting their directed edges; shared edges cancel
    edgeA.length = 0;
    edgeB.length = 0;
    for (let f = 0; f < alive.length; f++) {
      if (!alive[f]) continue;
      if (fn[f * 4] * x + fn[f * 4 + 1] * y + fn[f * 4 + 2] * z - fn[f * 4 + 3] <= eps) continue;
      alive[f] = false;
      for (let e = 0; e < 3; e++) {
        const p = fv[f * 3 + e],
          q = fv[f * 3 + ((e + 1) % 3)];
        let found = -1;
        for (let k = 0; k < edgeA.length; k++) {
          if (edgeA[k] === q && edgeB[k] === p) {
            found = k;
            break;
          }
        }
        if (found >= 0) {
          edgeA.splice(found, 1);
          edgeB.splice(found, 1);
        } else {
          edgeA.push(p);
          edgeB.push(q);
        }
      }
    }
    for (let k = 0; k < edgeA.length; k++) addFace(edgeA[k], edgeB[k], i);
    used[i] = 1;
  }

  // compact: hull vertices in first-use order
  const map = new Int32Array(n).fill(-1);
  const src: number[] = [];
  const tris: number[] = [];
  for (let f = 0; f < alive.length; f++) {
    if (!alive[f]) continue;
    for (let e = 0; e < 3; e++) {
      const v = fv[f * 3 + e];
      if (map[v] < 0) {
        map[v] = src.length;
        src.push(v);
      }
      tris.push(map[v]);
    }
  }
  const vertices = new Float64Array(src.length * 3);
  src.forEach((v, i) => vertices.set([px(v), py(v), pz(v)], i * 3));
  return { vertices, triangles: Int32Array.from(tris), source: Int32Array.from(src) };
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
  let ext = 0;
  for (let i = 0; i < P.length; i++) ext = Math.max(ext, Math.abs(P[i]));
  const tn = new Float64Array(T * 4);
  for (let t = 0; t < T; t++) {
    const i = h.triangles[t * 3] * 3,
      j = h.triangles[t * 3 + 1] * 3,
      k = h.triangles[t * 3 + 2] * 3;
    const e1 = [P[j] - P[i], P[j + 1] - P[i + 1], P[j + 2] - P[i + 2]];
    const e2 = [P[k] - P[i], P[k + 1] - P[i + 1], P[k + 2] - P[i + 2]];
    const c = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
    const l = Math.hypot(c[0], c[1], c[2]) || 1;
    tn[t * 4] = c[0] / l;
    tn[t * 4 + 1] = c[1] / l;
    tn[t * 4 + 2] = c[2] / l;
    tn[t * 4 + 3] = (c[0] * P[i] + c[1] * P[i + 1] + c[2] * P[i + 2]) / l;
  }
  const group = new Int32Array(T).fill(-1);
  const faceStart: number[] = [0];
  const faceVertex: number[] = [];
  const faceNormal: number[] = [];
  const planeTol = 1e-9 * Math.max(ext, 1e-300);
  for (let t = 0; t < T; t++) {
    if (group[t] >= 0) continue;
    const f = faceNormal.length / 3;
    const verts = new Set<number>();
    let sx = 0,
      sy = 0,
      sz = 0;
    for (let u = t; u < T; u++) {
      if (group[u] >= 0) continue;
      const c = tn[t * 4] * tn[u * 4] + tn[t * 4 + 1] * tn[u * 4 + 1] + tn[t * 4 + 2] * tn[u * 4 + 2];
      if (c < COPLANAR_COS || Math.abs(tn[u * 4 + 3] - tn[t * 4 + 3]) > planeTol) continue;
      group[u] = f;
      for (let e = 0; e < 3; e++) verts.add(h.triangles[u * 3 + e]);
      sx += tn[u * 4];
      sy += tn[u * 4 + 1];
      sz += tn[u * 4 + 2];
    }
    const l = Math.hypot(sx, sy, sz) || 1;
    const n = [sx / l, sy / l, sz / l];
    // order the face's vertices counter-clockwise about n around their centroid
    const list = [...verts].sort((x, y) => x - y);
    const cen = [0, 0, 0];
    for (const v of list) for (let k = 0; k < 3; k++) cen[k] += P[v * 3 + k] / list.length;
    const helper = Math.abs(n[0]) < 0.6 ? [1, 0, 0] : [0, 1, 0];
    const t1 = [
      n[1] * helper[2] - n[2] * helper[1],
      n[2] * helper[0] - n[0] * helper[2],
      n[0] * helper[1] - n[1] * helper[0],
    ];
    const tl = Math.hypot(t1[0], t1[1], t1[2]);
    for (let k = 0; k < 3; k++) t1[k] /= tl;
    const t2 = [n[1] * t1[2] - n[2] * t1[1], n[2] * t1[0] - n[0] * t1[2], n[0] * t1[1] - n[1] * t1[0]];
    const ang = new Map<number, number>();
    for (const v of list) {
      const d = [P[v * 3] - cen[0], P[v * 3 + 1] - cen[1], P[v * 3 + 2] - cen[2]];
      ang.set(
        v,
        Math.atan2(d[0] * t2[0] + d[1] * t2[1] + d[2] * t2[2], d[0] * t1[0] + d[1] * t1[1] + d[2] * t1[2]),
      );
    }
    list.sort((x, y) => ang.get(x)! - ang.get(y)! || x - y);
    faceVertex.push(...list);
    faceStart.push(faceVertex.length);
    faceNormal.push(...n);
  }
  // adjacency from the triangle edges
  const adj: Set<number>[] = Array.from({ length: V }, () => new Set<number>());
  for (let t = 0; t < T; t++) {
    for (let e = 0; e < 3; e++) {
      const p = h.triangles[t * 3 + e],
        q = h.triangles[t * 3 + ((e + 1) % 3)];
      adj[p].add(q);
      adj[q].add(p);
    }
  }
  const adjStart = new Int32Array(V + 1);
  const adjacent: number[] = [];
  for (let v = 0; v < V; v++) {
    adjacent.push(...[...adj[v]].sort((x, y) => x - y));
    adjStart[v + 1] = adjacent.length;
  }
  return {
    vertices: h.vertices,
    faceCount: faceNormal.length / 3,
    faceStart: Int32Array.from(faceStart),
    faceVertex: Int32Array.from(faceVertex),
    faceNormal: Float64Array.from(faceNormal),
    adjStart,
    adjacent: Int32Array.from(adjacent),
  };
}
