/**
 * Convex hulls (for convex-mesh colliders) by our own quickhull (initial tetrahedron, outside sets,
 * farthest point first, horizon walk), producing a closed triangle mesh with outward winding and no
 * zero-area faces; and oriented bounding boxes (for `approximate_meshes: bounding_box`).
 */
import { MeshError } from '../assets/errors';
import { matQuat } from '../assets/frames';
import { compact, type TriMesh } from './types';

interface Face {
  v: [number, number, number];
  n: [number, number, number];
  d: number;
  outside: number[];
  alive: boolean;
}

/**
 * The convex hull of a point set as a closed triangle mesh (outward winding). Points lying on a hull
 * face or edge are not kept as vertices.
 */
export function convexHull(points: ArrayLike<number>, file?: string): TriMesh {
  const first = quickhull(points, file);
  // a vertex is extreme only when its incident face normals span 3D; drop the others and redo
  const normals = new Map<number, number[][]>();
  const V = first.vertices;
  for (let t = 0; t < first.triangles.length; t += 3) {
    const [a, b, c] = [first.triangles[t], first.triangles[t + 1], first.triangles[t + 2]];
    const u = [V[b * 3] - V[a * 3], V[b * 3 + 1] - V[a * 3 + 1], V[b * 3 + 2] - V[a * 3 + 2]];
    const w = [V[c * 3] - V[a * 3], V[c * 3 + 1] - V[a * 3 + 1], V[c * 3 + 2] - V[a * 3 + 2]];
    const nn = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]];
    const l = Math.hypot(nn[0], nn[1], nn[2]);
    for (const v of [a, b, c])
      (normals.get(v) ?? normals.set(v, []).get(v)!).push([nn[0] / l, nn[1] / l, nn[2] / l]);
  }
  const keep: number[] = [];
  for (let v = 0; v < V.length / 3; v++) {
    const ns = normals.get(v) ?? [];
    let extreme = false;
    outer: for (let i = 0; i < ns.length; i++) {
      for (let j = i + 1; j < ns.length; j++) {
        const cx = [
          ns[i][1] * ns[j][2] - ns[i][2] * ns[j][1],
          ns[i][2] * ns[j][0] - ns[i][0] * ns[j][2],
          ns[i][0] * ns[j][1] - ns[i][1] * ns[j][0],
        ];
        if (Math.hypot(cx[0], cx[1], cx[2]) < 1e-6) continue;
        for (let k = j + 1; k < ns.length; k++) {
          if (Math.abs(cx[0] * ns[k][0] + cx[1] * ns[k][1] + cx[2] * ns[k][2]) > 1e-6) {
            extreme = true;
            break outer;
          }
        }
      }
    }
    if (extreme) keep.push(V[v * 3], V[v * 3 + 1], V[v * 3 + 2]);
  }
  if (keep.length === V.length || keep.length < 12) return first;
  return quickhull(keep, file);
}

function quickhull(input: ArrayLike<number>, file?: string): TriMesh {
  const n = Math.floor(input.length / 3);
  if (n < 4) throw new MeshError(`a convex hull needs at least 4 points; got ${n}`, file);
  let ext = 0;
  for (let i = 0; i < n * 3; i++) ext = Math.max(ext, Math.abs(input[i]));
  if (!Number.isFinite(ext)) throw new MeshError('non-finite points', file);
  // a tiny deterministic jitter removes exact coplanarity and collinearity (cube faces, grids); the
  // output keeps the original coordinates
  const points = new Float64Array(n * 3);
  let seed = 0x9e3779b9;
  const rnd = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return ((seed >>> 0) / 4294967296) * 2 - 1;
  };
  for (let i = 0; i < n * 3; i++) points[i] = input[i] + ext * 1e-9 * rnd();
  const P = (i: number, k: number) => points[i * 3 + k];
  const eps = Math.max(ext, 1e-300) * 1e-13;
  // initial simplex: extreme points along x, then farthest from the line, then from the plane
  let i0 = 0,
    i1 = 0;
  for (let i = 1; i < n; i++) {
    if (P(i, 0) < P(i0, 0)) i0 = i;
    if (P(i, 0) > P(i1, 0)) i1 = i;
  }
  const sub = (a: number, b: number): number[] => [P(a, 0) - P(b, 0), P(a, 1) - P(b, 1), P(a, 2) - P(b, 2)];
  const crs = (a: number[], b: number[]) => [
    a[1] * b[2] - a[2] * b[1],
    a[2] * b[0] - a[0] * b[2],
    a[0] * b[1] - a[1] * b[0],
  ];
  const dot = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  if (i0 === i1) {
    // all x equal: pick any two distinct points
    for (let i = 1; i < n; i++) if (Math.hypot(...sub(i, i0)) > eps) i1 = i;
  }
  const u = sub(i1, i0);
  // degeneracy is judged well above the jitter
  const flat = Math.max(ext, 1e-300) * 1e-7;
  let i2 = -1,
    best = flat * Math.hypot(...sub(i1, i0));
  for (let i = 0; i < n; i++) {
    const d = Math.hypot(...crs(u, sub(i, i0)));
    if (d > best) [best, i2] = [d, i];
  }
  if (i2 < 0) throw new MeshError('the points are collinear: no 3D convex hull', file);
  const nrm = crs(u, sub(i2, i0));
  let i3 = -1;
  best = flat * Math.hypot(...nrm);
  for (let i = 0; i < n; i++) {
    const d = Math.abs(dot(nrm, sub(i, i0)));
    if (d > best) [best, i3] = [d, i];
  }
  if (i3 < 0) throw new MeshError('the points are flat or degenerate: no 3D convex hull', file);

  const faces: Face[] = [];
  const makeFace = (a: number, b: number, c: number): Face => {
    const nn = crs(sub(b, a), sub(c, a));
    const len = Math.hypot(nn[0], nn[1], nn[2]);
    const nv: [number, number, number] = [nn[0] / len, nn[1] / len, nn[2] / len];
    return {
      v: [a, b, c],
      n: nv,
      d: nv[0] * P(a, 0) + nv[1] * P(a, 1) + nv[2] * P(a, 2),
      outside: [],
      alive: true,
    };
  };
  const dist = (f: Face, i: number) => f.n[0] * P(i, 0) + f.n[1] * P(i, 1) + f.n[2] * P(i, 2) - f.d;
  // the tetrahedron's faces, each oriented away from the opposite vertex
  for (const [a, b, c, opp] of [
    [i0, i1, i2, i3],
    [i0, i1, i3, i2],
    [i0, i2, i3, i1],
    [i1, i2, i3, i0],
  ]) {
    let f = makeFace(a, b, c);
    if (dist(f, opp) > 0) f = makeFace(a, c, b);
    faces.push(f);
  }
  const assign = (cands: Iterable<number>, targets: Face[]) => {
    for (const i of cands) {
      for (const f of targets) {
        if (dist(f, i) > eps) {
          f.outside.push(i);
          break;
        }
      }
    }
  };
  const simplex = new Set([i0, i1, i2, i3]);
  assign(
    (function* () {
      for (let i = 0; i < n; i++) if (!simplex.has(i)) yield i;
    })(),
    faces,
  );
  // edge → face lookup
  const edgeKey = (a: number, b: number) => a * n + b;
  const edgeFace = new Map<number, number>();
  const link = (fi: number) => {
    const [a, b, c] = faces[fi].v;
    edgeFace.set(edgeKey(a, b), fi);
    edgeFace.set(edgeKey(b, c), fi);
    edgeFace.set(edgeKey(c, a), fi);
  };
  faces.forEach((_, fi) => link(fi));
  const maxIter = 4 * n + 16;
  const pending = faces.map((_, i) => i);
  for (let iter = 0; iter < maxIter && pending.length; iter++) {
    const fi = pending.pop()!;
    if (!faces[fi].alive || faces[fi].outside.length === 0) {
      iter--;
      continue;
    }
    const f0 = faces[fi];
    let eye = f0.outside[0],
      far = -Infinity;
    for (const i of f0.outside) {
      const d = dist(f0, i);
      if (d > far) [far, eye] = [d, i];
    }
    // visible faces by flood fill from f0
    const visible = new Set<number>([fi]);
    const stack = [fi];
    while (stack.length) {
      const cur = faces[stack.pop()!];
      const [a, b, c] = cur.v;
      for (const [x, y] of [
        [a, b],
        [b, c],
        [c, a],
      ]) {
        const nb = edgeFace.get(edgeKey(y, x));
        if (nb === undefined || visible.has(nb) || !faces[nb].alive) continue;
        if (dist(faces[nb], eye) > eps) {
          visible.add(nb);
          stack.push(nb);
        }
      }
    }
    // horizon: edges of visible faces whose twin is not visible
    const horizon: [number, number][] = [];
    const orphans: number[] = [];
    for (const vi of visible) {
      const [a, b, c] = faces[vi].v;
      for (const [x, y] of [
        [a, b],
        [b, c],
        [c, a],
      ]) {
        const nb = edgeFace.get(edgeKey(y, x));
        if (nb === undefined || !visible.has(nb)) horizon.push([x, y]);
      }
    }
    for (const vi of visible) {
      const f = faces[vi];
      const [a, b, c] = f.v;
      for (const i of f.outside) if (i !== eye) orphans.push(i);
      f.alive = false;
      f.outside = [];
      for (const [x, y] of [
        [a, b],
        [b, c],
        [c, a],
      ]) {
        if (edgeFace.get(edgeKey(x, y)) === vi) edgeFace.delete(edgeKey(x, y));
      }
    }
    const created: Face[] = [];
    for (const [x, y] of horizon) {
      const nf = makeFace(x, y, eye);
      if (!nf.n.every(Number.isFinite)) continue;
      faces.push(nf);
      link(faces.length - 1);
      created.push(nf);
    }
    assign(orphans, created);
    for (let k = faces.length - created.length; k < faces.length; k++)
      if (faces[k].outside.length) pending.push(k);
  }
  const tris: number[] = [];
  for (const f of faces) if (f.alive) tris.push(...f.v);
  if (tris.length < 12) throw new MeshError('the points are flat or degenerate: no 3D convex hull', file);
  return compact(input, tris);
}

/** an oriented box: centre and orientation (xyzw) in the mesh frame, half extents [m] */
export interface OrientedBox {
  center: [number, number, number];
  quat: [number, number, number, number];
  half: [number, number, number];
}

/** eigen-decomposition of a symmetric 3×3 matrix by Jacobi rotations; columns of V are eigenvectors */
function symEigen(A: number[]): { V: number[] } {
  const a = [...A];
  const V = [1, 0, 0, 0, 1, 0, 0, 0, 1];
  for (let sweep = 0; sweep < 50; sweep++) {
    const off = Math.abs(a[1]) + Math.abs(a[2]) + Math.abs(a[5]);
    if (off < 1e-300) break;
    for (const [p, q] of [
      [0, 1],
      [0, 2],
      [1, 2],
    ]) {
      const apq = a[p * 3 + q];
      if (Math.abs(apq) < 1e-300) continue;
      const theta = (a[q * 3 + q] - a[p * 3 + p]) / (2 * apq);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1),
        s = t * c;
      for (let k = 0; k < 3; k++) {
        const akp = a[k * 3 + p],
          akq = a[k * 3 + q];
        a[k * 3 + p] = c * akp - s * akq;
        a[k * 3 + q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k++) {
        const apk = a[p * 3 + k],
          aqk = a[q * 3 + k];
        a[p * 3 + k] = c * apk - s * aqk;
        a[q * 3 + k] = s * apk + c * aqk;
      }
      for (let k = 0; k < 3; k++) {
        const vkp = V[k * 3 + p],
          vkq = V[k * 3 + q];
        V[k * 3 + p] = c * vkp - s * vkq;
        V[k * 3 + q] = s * vkp + c * vkq;
      }
    }
  }
  return { V };
}

function boxAlong(points: ArrayLike<number>, R: number[]): OrientedBox & { volume: number } {
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i + 2 < points.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      // coordinate along axis k (column k of R)
      const d = points[i] * R[k] + points[i + 1] * R[3 + k] + points[i + 2] * R[6 + k];
      lo[k] = Math.min(lo[k], d);
      hi[k] = Math.max(hi[k], d);
    }
  }
  const mid = [0, 1, 2].map((k) => (lo[k] + hi[k]) / 2);
  const half: [number, number, number] = [0, 1, 2].map((k) => (hi[k] - lo[k]) / 2) as [
    number,
    number,
    number,
  ];
  const center: [number, number, number] = [0, 1, 2].map(
    (r) => R[r * 3] * mid[0] + R[r * 3 + 1] * mid[1] + R[r * 3 + 2] * mid[2],
  ) as [number, number, number];
  return { center, quat: matQuat(R), half, volume: half[0] * half[1] * half[2] };
}

/**
 * A tight oriented bounding box: the smaller of the box along the point cloud's principal axes and
 * the box along the mesh axes.
 */
export function orientedBoundingBox(points: ArrayLike<number>): OrientedBox {
  const n = Math.floor(points.length / 3);
  const c = [0, 0, 0];
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) c[k] += points[i * 3 + k] / n;
  const C = new Array<number>(9).fill(0);
  for (let i = 0; i < n; i++) {
    const d = [points[i * 3] - c[0], points[i * 3 + 1] - c[1], points[i * 3 + 2] - c[2]];
    for (let r = 0; r < 3; r++) for (let k = 0; k < 3; k++) C[r * 3 + k] += d[r] * d[k];
  }
  const { V } = symEigen(C);
  // make it a proper rotation
  const det =
    V[0] * (V[4] * V[8] - V[5] * V[7]) -
    V[1] * (V[3] * V[8] - V[5] * V[6]) +
    V[2] * (V[3] * V[7] - V[4] * V[6]);
  if (det < 0) for (const r of [0, 1, 2]) V[r * 3 + 2] = -V[r * 3 + 2];
  const pca = boxAlong(points, V);
  const axis = boxAlong(points, [1, 0, 0, 0, 1, 0, 0, 0, 1]);
  const best = axis.volume <= pca.volume * (1 + 1e-9) ? axis : pca;
  return { center: best.center, quat: best.quat, half: best.half };
}
