/**
 * Convex hulls for convex-mesh colliders (the collision module's quickhull, as a closed triangle mesh
 * with outward winding and no zero-area faces, its failures as located MeshErrors) and oriented
 * bounding boxes (for `approximate_meshes: bounding_box`).
 */
import { MeshError } from '../assets/errors';
import { matQuat } from '../assets/frames';
import { HULL_DIRECTIONS, HULL_EXACT_POINTS, convexHull as hullOf } from '../../collision/hull';
import type { TriMesh } from './types';

/**
 * The convex hull of a point set as a closed triangle mesh (outward winding). Points lying on a hull
 * face or edge are not kept as vertices. Throws a MeshError (with `file`) when the points span no
 * volume. Beyond {@link HULL_EXACT_POINTS} candidate points the hull is approximated (see
 * `HullMesh.approximatedFrom`) and `warn` hears of it.
 */
export function convexHull(
  points: ArrayLike<number>,
  file?: string,
  warn?: (message: string) => void,
): TriMesh {
  const n = Math.floor(points.length / 3);
  if (n < 4) throw new MeshError(`a convex hull needs at least 4 points; got ${n}`, file);
  for (let i = 0; i < n * 3; i++)
    if (!Number.isFinite(points[i])) throw new MeshError('non-finite points', file);
  const h = hullOf(points);
  if (h === null)
    throw new MeshError('the points are flat, collinear or coincident: no 3D convex hull', file);
  if (h.approximatedFrom > 0)
    warn?.(
      `${file ?? 'mesh'}: convex hull of ${h.approximatedFrom} points approximated by the hull of their ` +
        `farthest points in ${HULL_DIRECTIONS} direction cells (${h.vertices.length / 3} vertices; more than ` +
        `${HULL_EXACT_POINTS} candidates)`,
    );
  return { vertices: h.vertices, triangles: h.triangles };
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
