/**
 * plane (A) – convex mesh / triangle mesh (B): the mesh's (scaled) vertices inside the band and over
 * a finite plane's extent are candidates (the deepest point of a polyhedral surface along −n is
 * always a vertex); at most {@link PLANE_MESH_MAX_POINTS} well-spread ones are kept (the deepest, then
 * spread, `selectSpread`). A convex mesh uses its hull's vertices; a large hull is first walked to
 * its lowest vertex (`hull_walk.ts`), and the pair ends there when that one lies beyond the band.
 * Feature = vertex index (hull vertex index for convex meshes).
 */
import type { ShapeGeom } from '../geometry';
import { addContact, inBand, selectSpread, type ContactManifold } from '../manifold';
import { meshHull, meshScale } from '../mesh_data';
import { ShapeType } from '../../model';
import { onPlane, planeBounded } from './common';
import { hullArgmax, WALK_MIN_VERTICES } from '../hull_walk';

/** the largest |coordinate| of a box given as [min xyz, max xyz] */
function boxExtent(b: ArrayLike<number>): number {
  let e = 0;
  for (let k = 0; k < 6; k++) e = Math.max(e, Math.abs(b[k]));
  return e;
}

/** the most points a plane–mesh pair emits */
export const PLANE_MESH_MAX_POINTS = 4;

let CAP = 0;
let CP = new Float64Array(0);
let CD = new Float64Array(0);
let CF = new Int32Array(0);
const PICK = new Int32Array(4);

function ensure(n: number): void {
  if (n <= CAP) return;
  CAP = Math.max(n, 2 * CAP, 64);
  CP = new Float64Array(CAP * 3);
  CD = new Float64Array(CAP);
  CF = new Int32Array(CAP);
}

export function collidePlaneMesh(
  g: ShapeGeom,
  plane: number,
  mesh: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  // the mesh's world AABB (it holds every vertex) entirely beyond the band: no candidate
  const A = g.aabb,
    a = mesh * 6;
  const pn = plane * 9;
  const pnx = g.rot[pn + 2],
    pny = g.rot[pn + 5],
    pnz = g.rot[pn + 8];
  const lowest =
    pnx * (0.5 * (A[a] + A[a + 3]) - g.pos[plane * 3]) +
    pny * (0.5 * (A[a + 1] + A[a + 4]) - g.pos[plane * 3 + 1]) +
    pnz * (0.5 * (A[a + 2] + A[a + 5]) - g.pos[plane * 3 + 2]) -
    0.5 *
      (Math.abs(pnx) * (A[a + 3] - A[a]) +
        Math.abs(pny) * (A[a + 4] - A[a + 1]) +
        Math.abs(pnz) * (A[a + 5] - A[a + 2]));
  if (!inBand(lowest, margin, gap)) return;
  const model = g.model;
  const mi = model.shape_mesh[mesh];
  let V: Float64Array, v0: number, nv: number;
  const hull = g.type[mesh] === ShapeType.CONVEX_MESH ? meshHull(model, g.meshes, mi) : null;
  if (hull) {
    V = hull.vertices;
    v0 = 0;
    nv = V.length / 3;
  } else {
    const e = g.meshes.meshes[mi];
    V = model.mesh_vertices;
    v0 = e.vStart;
    nv = e.vCount;
  }
  ensure(nv);
  const R = g.rot,
    pr = plane * 9,
    r = mesh * 9;
  const nx = R[pr + 2],
    ny = R[pr + 5],
    nz = R[pr + 8];
  const ox = g.pos[plane * 3],
    oy = g.pos[plane * 3 + 1],
    oz = g.pos[plane * 3 + 2];
  const sx = meshScale(g.size, mesh, 0),
    sy = meshScale(g.size, mesh, 1),
    sz = meshScale(g.size, mesh, 2);
  const cx = g.pos[mesh * 3],
    cy = g.pos[mesh * 3 + 1],
    cz = g.pos[mesh * 3 + 2];
  // d = n·(c − o) + w·v with w = s ⊙ Rᵀn: a vertex is tested in full (world position, then d, as
  // below) only when w·v is within rounding of the band; the values' rounding is of the size of
  // |c|, |o| and the scaled mesh
  const wx = sx * (R[r] * nx + R[r + 3] * ny + R[r + 6] * nz),
    wy = sy * (R[r + 1] * nx + R[r + 4] * ny + R[r + 7] * nz),
    wz = sz * (R[r + 2] * nx + R[r + 5] * ny + R[r + 8] * nz);
  const base = nx * (cx - ox) + ny * (cy - oy) + nz * (cz - oz);
  const slack =
    1e-9 *
    (Math.abs(cx) +
      Math.abs(cy) +
      Math.abs(cz) +
      Math.abs(ox) +
      Math.abs(oy) +
      Math.abs(oz) +
      Math.abs(margin) +
      Math.abs(gap) +
      Math.abs(base) +
      (Math.abs(wx) + Math.abs(wy) + Math.abs(wz)) * boxExtent(g.meshes.meshes[mi].box));
  const reach = margin + gap - base + slack;
  // a large hull: its lowest vertex along n (a walk over its edge graph) decides whether any is near
  if (hull && nv > WALK_MIN_VERTICES) {
    const low = hullArgmax(hull, -wx, -wy, -wz);
    if (wx * V[low * 3] + wy * V[low * 3 + 1] + wz * V[low * 3 + 2] > reach) return;
  }
  let n = 0;
  let ext = 0;
  // (the mesh's rotation in locals: the candidate stores below would otherwise reload it)
  const r00 = R[r],
    r01 = R[r + 1],
    r02 = R[r + 2],
    r10 = R[r + 3],
    r11 = R[r + 4],
    r12 = R[r + 5],
    r20 = R[r + 6],
    r21 = R[r + 7],
    r22 = R[r + 8];
  const bounded = planeBounded(g, plane);
  for (let i = 0; i < nv; i++) {
    const o = (v0 + i) * 3;
    if (wx * V[o] + wy * V[o + 1] + wz * V[o + 2] > reach) continue;
    const lx = sx * V[o],
      ly = sy * V[o + 1],
      lz = sz * V[o + 2];
    const x = cx + r00 * lx + r01 * ly + r02 * lz;
    const y = cy + r10 * lx + r11 * ly + r12 * lz;
    const z = cz + r20 * lx + r21 * ly + r22 * lz;
    const d = nx * (x - ox) + ny * (y - oy) + nz * (z - oz);
    if (!inBand(d, margin, gap)) continue;
    if (bounded && !onPlane(g, plane, x - d * nx, y - d * ny, z - d * nz)) continue;
    CP[n * 3] = x;
    CP[n * 3 + 1] = y;
    CP[n * 3 + 2] = z;
    CD[n] = d;
    CF[n] = i;
    ext = Math.max(ext, Math.abs(lx), Math.abs(ly), Math.abs(lz));
    n++;
  }
  if (n === 0) return;
  const m = selectSpread(n, CP, CD, PLANE_MESH_MAX_POINTS, 1e-9 * Math.max(ext, 1e-300), PICK);
  for (let q = 0; q < m; q++) {
    const i = PICK[q];
    const x = CP[i * 3],
      y = CP[i * 3 + 1],
      z = CP[i * 3 + 2],
      d = CD[i];
    addContact(out, nx, ny, nz, x - d * nx, y - d * ny, z - d * nz, x, y, z, d, CF[i]);
  }
}
