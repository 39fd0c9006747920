/**
 * Triangle meshes and heightfields against convex shapes (and mesh against mesh), per triangle:
 * - triangle mesh (shape A): B's bounding box in the mesh frame queries the mesh's triangle BVH
 *   (`bvh.ts`, built once per mesh);
 * - heightfield (shape A): B's bounding box in the heightfield frame selects a range of grid cells
 *   (cells entirely below the box are skipped); each cell is 2 triangles, (r, c)–(r, c+1)–(r+1, c+1)
 *   and (r, c)–(r+1, c+1)–(r+1, c), counter-clockwise seen from +z. MuJoCo layout: sample (r, c) at
 *   x = −size_x + 2·size_x·c/(ncol − 1), y = −size_y + 2·size_y·r/(nrow − 1),
 *   z = size_z·data[r·ncol + c]; only the top surface collides.
 * Every candidate triangle runs the general convex routine (`convex.ts`) with the triangle as a
 * one-sided shape A; all points of all triangles are pooled and at most {@link MESH_MAX_POINTS}
 * well-spread ones are kept (`selectSpread`). Feature = (triangle · 8 + point index within the
 * triangle), triangle = mesh triangle index, or (cell · 2 + half) for heightfields.
 * Mesh–mesh and heightfield–mesh collide one mesh's convex hull against the other's triangles: the
 * triangles come from the static shape when exactly one is static, else from the mesh with more
 * triangles (ties: the lower shape index) — a symmetric choice, so swapping the shapes flips the
 * manifold exactly.
 */
import { ShapeType } from '../model';
import type { ShapeGeom } from './geometry';
import { collideConvexProxies } from './convex';
import { queryTriangleBVH } from './bvh';
import { addContact, flipManifold, makeManifold, selectSpread, type ContactManifold } from './manifold';
import { meshBVH, meshNeighbors, meshScale } from './mesh_data';
import { loadShapeProxy, loadTriangleProxy, proxyRadius, proxyScale, supportCore } from './support';

/** the most points a mesh / heightfield pair emits */
export const MESH_MAX_POINTS = 4;

const TRI = new Float64Array(9);
const NBP = new Float64Array(9);
const LB = new Float64Array(6);
const S = new Float64Array(3);
const one = makeManifold();
let CAP = 0;
let AN = new Float64Array(0);
let AA = new Float64Array(0);
let AB = new Float64Array(0);
let AD = new Float64Array(0);
let AF = new Int32Array(0);
let NAG = 0;
const PICK = new Int32Array(4);

function ensure(n: number): void {
  if (n <= CAP) return;
  const cap = Math.max(n, 2 * CAP, 64);
  const grow = (a: Float64Array, k: number) => {
    const b = new Float64Array(cap * k);
    b.set(a);
    return b;
  };
  AN = grow(AN, 3);
  AA = grow(AA, 3);
  AB = grow(AB, 3);
  AD = grow(AD, 1);
  const f = new Int32Array(cap);
  f.set(AF);
  AF = f;
  CAP = cap;
}

/**
 * Bounds of proxy 1 (inflated by `pad`) in the frame of shape s: LB = [lo xyz, hi xyz], local
 * coordinates (before any mesh scale).
 */
function proxyBoundsIn(g: ShapeGeom, s: number, pad: number): void {
  const R = g.rot,
    r = s * 9;
  const rad = proxyRadius(1) + pad;
  for (let k = 0; k < 3; k++) {
    const ex = R[r + k],
      ey = R[r + 3 + k],
      ez = R[r + 6 + k];
    const o = ex * g.pos[s * 3] + ey * g.pos[s * 3 + 1] + ez * g.pos[s * 3 + 2];
    supportCore(1, ex, ey, ez, S, 0);
    LB[3 + k] = ex * S[0] + ey * S[1] + ez * S[2] - o + rad;
    supportCore(1, -ex, -ey, -ez, S, 0);
    LB[k] = ex * S[0] + ey * S[1] + ez * S[2] - o - rad;
  }
}

/** per edge e of the current triangle: the neighbour's unit normal (world) and whether there is one */
const NB_N = new Float64Array(9);
const NB_HAS = new Uint8Array(3);
const TN = new Float64Array(3);

/** sets neighbour e's normal from three world points (counter-clockwise) */
function setNeighbor(e: number, P: Float64Array): void {
  const e1x = P[3] - P[0],
    e1y = P[4] - P[1],
    e1z = P[5] - P[2];
  const e2x = P[6] - P[0],
    e2y = P[7] - P[1],
    e2z = P[8] - P[2];
  const nx = e1y * e2z - e1z * e2y,
    ny = e1z * e2x - e1x * e2z,
    nz = e1x * e2y - e1y * e2x;
  const l = Math.hypot(nx, ny, nz);
  if (!(l > 0)) {
    NB_HAS[e] = 0;
    return;
  }
  NB_HAS[e] = 1;
  NB_N[e * 3] = nx / l;
  NB_N[e * 3 + 1] = ny / l;
  NB_N[e * 3 + 2] = nz / l;
}

/**
 * Whether point i of `one` is a genuine contact of the current triangle within its surface: a
 * normal along the face normal always is; otherwise (an edge or vertex contact) the normal must lie
 * within the normal cone of every edge its triangle witness lies on — between the triangle's normal
 * and the neighbour's across that edge (anything outward at a boundary edge). This rejects the
 * "ghost" contacts of internal edges of flat or concave surfaces (a box sliding over a flat
 * heightfield must not catch on cell edges).
 */
function acceptTrianglePoint(i: number): boolean {
  const nx = one.normal[i * 3],
    ny = one.normal[i * 3 + 1],
    nz = one.normal[i * 3 + 2];
  const cT = nx * TN[0] + ny * TN[1] + nz * TN[2];
  if (cT >= 1 - 1e-9) return true;
  // barycentrics of the triangle witness
  const px = one.pointA[i * 3],
    py = one.pointA[i * 3 + 1],
    pz = one.pointA[i * 3 + 2];
  let area = 0;
  for (let e = 0; e < 3; e++) {
    const a = e * 3,
      b = ((e + 1) % 3) * 3;
    area += subArea(TRI[a], TRI[a + 1], TRI[a + 2], TRI[b], TRI[b + 1], TRI[b + 2], px, py, pz);
  }
  const tol = 1e-9 * Math.abs(area);
  for (let e = 0; e < 3; e++) {
    const a = e * 3,
      b = ((e + 1) % 3) * 3;
    // the sub-triangle opposite vertex e+2 is (v_e, v_e+1, p): zero when p is on edge e
    const lam = subArea(TRI[a], TRI[a + 1], TRI[a + 2], TRI[b], TRI[b + 1], TRI[b + 2], px, py, pz);
    if (lam > tol) continue;
    // outward in-plane direction of edge e: (v_e+1 − v_e) × n_T
    const tx = TRI[b] - TRI[a],
      ty = TRI[b + 1] - TRI[a + 1],
      tz = TRI[b + 2] - TRI[a + 2];
    let ox = ty * TN[2] - tz * TN[1],
      oy = tz * TN[0] - tx * TN[2],
      oz = tx * TN[1] - ty * TN[0];
    const ol = Math.hypot(ox, oy, oz);
    if (!(ol > 0)) continue;
    ox /= ol;
    oy /= ol;
    oz /= ol;
    const thN = Math.atan2(nx * ox + ny * oy + nz * oz, cT);
    if (thN <= 1e-7) continue;
    if (!NB_HAS[e]) continue;
    const mx = NB_N[e * 3],
      my = NB_N[e * 3 + 1],
      mz = NB_N[e * 3 + 2];
    const thM = Math.atan2(mx * ox + my * oy + mz * oz, mx * TN[0] + my * TN[1] + mz * TN[2]);
    if (thN > thM + 1e-7) return false;
  }
  return true;
}

/** signed area (×2) of (a, b, p) about the current triangle normal */
function subArea(
  ax: number,
  ay: number,
  az: number,
  bx: number,
  by: number,
  bz: number,
  px: number,
  py: number,
  pz: number,
): number {
  const ux = bx - ax,
    uy = by - ay,
    uz = bz - az;
  const vx = px - ax,
    vy = py - ay,
    vz = pz - az;
  return TN[0] * (uy * vz - uz * vy) + TN[1] * (uz * vx - ux * vz) + TN[2] * (ux * vy - uy * vx);
}

/** runs the current triangle (TRI, world; NB_* set) against proxy 1 and pools its points with feature base */
function triangle(margin: number, gap: number, base: number): void {
  loadTriangleProxy(0, TRI, 0);
  one.count = 0;
  collideConvexProxies(margin, gap, true, one);
  if (one.count === 0) return;
  const e1x = TRI[3] - TRI[0],
    e1y = TRI[4] - TRI[1],
    e1z = TRI[5] - TRI[2];
  const e2x = TRI[6] - TRI[0],
    e2y = TRI[7] - TRI[1],
    e2z = TRI[8] - TRI[2];
  const nx = e1y * e2z - e1z * e2y,
    ny = e1z * e2x - e1x * e2z,
    nz = e1x * e2y - e1y * e2x;
  const nl = Math.hypot(nx, ny, nz) || 1;
  TN[0] = nx / nl;
  TN[1] = ny / nl;
  TN[2] = nz / nl;
  ensure(NAG + one.count);
  for (let i = 0; i < one.count; i++) {
    if (!acceptTrianglePoint(i)) continue;
    const o = NAG * 3;
    for (let k = 0; k < 3; k++) {
      AN[o + k] = one.normal[i * 3 + k];
      AA[o + k] = one.pointA[i * 3 + k];
      AB[o + k] = one.pointB[i * 3 + k];
    }
    AD[NAG] = one.distance[i];
    AF[NAG] = base * 8 + one.feature[i];
    NAG++;
  }
}

/** writes the pooled points (at most MESH_MAX_POINTS, spread) to out */
function flush(out: ContactManifold, scale: number): void {
  if (NAG === 0) return;
  const m = selectSpread(NAG, AB, AD, MESH_MAX_POINTS, 1e-9 * scale, PICK);
  for (let q = 0; q < m; q++) {
    const i = PICK[q],
      o = i * 3;
    addContact(
      out,
      AN[o],
      AN[o + 1],
      AN[o + 2],
      AA[o],
      AA[o + 1],
      AA[o + 2],
      AB[o],
      AB[o + 1],
      AB[o + 2],
      AD[i],
      AF[i],
    );
  }
}

/** triangle mesh `mesh` (A) against the shape loaded as proxy 1 */
function meshAgainstProxy(
  g: ShapeGeom,
  mesh: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const model = g.model;
  const mi = model.shape_mesh[mesh];
  const e = g.meshes.meshes[mi];
  const sx = meshScale(g.size, mesh, 0),
    sy = meshScale(g.size, mesh, 1),
    sz = meshScale(g.size, mesh, 2);
  proxyBoundsIn(g, mesh, margin + gap);
  const bvh = meshBVH(model, g.meshes, mi);
  const lo0 = Math.min(LB[0] / sx, LB[3] / sx),
    hi0 = Math.max(LB[0] / sx, LB[3] / sx);
  const lo1 = Math.min(LB[1] / sy, LB[4] / sy),
    hi1 = Math.max(LB[1] / sy, LB[4] / sy);
  const lo2 = Math.min(LB[2] / sz, LB[5] / sz),
    hi2 = Math.max(LB[2] / sz, LB[5] / sz);
  const q = g.meshes.query;
  const n = queryTriangleBVH(bvh, lo0, lo1, lo2, hi0, hi1, hi2, q);
  const V = model.mesh_vertices,
    T = model.mesh_triangles;
  const R = g.rot,
    r = mesh * 9;
  const px = g.pos[mesh * 3],
    py = g.pos[mesh * 3 + 1],
    pz = g.pos[mesh * 3 + 2];
  // (scales are ≥ 0 in the model, so the winding is never mirrored)
  const nb = meshNeighbors(model, g.meshes, mi);
  NAG = 0;
  for (let k = 0; k < n; k++) {
    const t = q[k];
    if (!triangleBoxOverlap(V, e.vStart, T, e.tStart + t, lo0, lo1, lo2, hi0, hi1, hi2)) continue;
    for (let c = 0; c < 3; c++) {
      const vi = (e.vStart + T[(e.tStart + t) * 3 + c]) * 3;
      const x = sx * V[vi],
        y = sy * V[vi + 1],
        z = sz * V[vi + 2];
      TRI[c * 3] = px + R[r] * x + R[r + 1] * y + R[r + 2] * z;
      TRI[c * 3 + 1] = py + R[r + 3] * x + R[r + 4] * y + R[r + 5] * z;
      TRI[c * 3 + 2] = pz + R[r + 6] * x + R[r + 7] * y + R[r + 8] * z;
    }
    for (let ed = 0; ed < 3; ed++) {
      const nt = nb[t * 3 + ed];
      if (nt < 0) {
        NB_HAS[ed] = 0;
        continue;
      }
      for (let c = 0; c < 3; c++) {
        const vi = (e.vStart + T[(e.tStart + nt) * 3 + c]) * 3;
        const x = sx * V[vi],
          y = sy * V[vi + 1],
          z = sz * V[vi + 2];
        NBP[c * 3] = R[r] * x + R[r + 1] * y + R[r + 2] * z;
        NBP[c * 3 + 1] = R[r + 3] * x + R[r + 4] * y + R[r + 5] * z;
        NBP[c * 3 + 2] = R[r + 6] * x + R[r + 7] * y + R[r + 8] * z;
      }
      setNeighbor(ed, NBP);
    }
    triangle(margin, gap, t);
  }
  flush(out, proxyScale(1) + proxyRadius(1));
}

/** conservative: the triangle's own bounding box overlaps the query box */
function triangleBoxOverlap(
  V: Float64Array,
  v0: number,
  T: Int32Array,
  t: number,
  l0: number,
  l1: number,
  l2: number,
  h0: number,
  h1: number,
  h2: number,
): boolean {
  let a0 = Infinity,
    a1 = Infinity,
    a2 = Infinity,
    b0 = -Infinity,
    b1 = -Infinity,
    b2 = -Infinity;
  for (let c = 0; c < 3; c++) {
    const vi = (v0 + T[t * 3 + c]) * 3;
    a0 = Math.min(a0, V[vi]);
    b0 = Math.max(b0, V[vi]);
    a1 = Math.min(a1, V[vi + 1]);
    b1 = Math.max(b1, V[vi + 1]);
    a2 = Math.min(a2, V[vi + 2]);
    b2 = Math.max(b2, V[vi + 2]);
  }
  return a0 <= h0 && b0 >= l0 && a1 <= h1 && b1 >= l1 && a2 <= h2 && b2 >= l2;
}

/** heightfield `hf` (A) against the shape loaded as proxy 1 */
function hfieldAgainstProxy(
  g: ShapeGeom,
  hs: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const model = g.model;
  const h = model.shape_hfield[hs];
  const nrow = model.hfield_nrow[h],
    ncol = model.hfield_ncol[h];
  const sx = model.hfield_size[h * 4],
    sy = model.hfield_size[h * 4 + 1],
    sz = model.hfield_size[h * 4 + 2];
  const D = model.hfield_data,
    d0 = model.hfield_data_start[h];
  proxyBoundsIn(g, hs, margin + gap);
  const dx = (2 * sx) / (ncol - 1),
    dy = (2 * sy) / (nrow - 1);
  const c0 = Math.max(0, Math.floor((LB[0] + sx) / dx)),
    c1 = Math.min(ncol - 2, Math.floor((LB[3] + sx) / dx));
  const r0 = Math.max(0, Math.floor((LB[1] + sy) / dy)),
    r1 = Math.min(nrow - 2, Math.floor((LB[4] + sy) / dy));
  const R = g.rot,
    ro = hs * 9;
  const px = g.pos[hs * 3],
    py = g.pos[hs * 3 + 1],
    pz = g.pos[hs * 3 + 2];
  HF.D = D;
  HF.d0 = d0;
  HF.ncol = ncol;
  HF.sx = sx;
  HF.sy = sy;
  HF.sz = sz;
  HF.dx = dx;
  HF.dy = dy;
  HF.R = R;
  HF.ro = ro;
  NAG = 0;
  for (let r = r0; r <= r1; r++) {
    for (let c = c0; c <= c1; c++) {
      const z00 = sz * D[d0 + r * ncol + c],
        z01 = sz * D[d0 + r * ncol + c + 1];
      const z10 = sz * D[d0 + (r + 1) * ncol + c],
        z11 = sz * D[d0 + (r + 1) * ncol + c + 1];
      if (LB[2] > Math.max(z00, z01, z10, z11)) continue;
      const x0 = -sx + dx * c,
        x1 = x0 + dx;
      const y0 = -sy + dy * r,
        y1 = y0 + dy;
      const cell = r * (ncol - 1) + c;
      for (let half = 0; half < 2; half++) {
        if (half === 0) {
          hfNeighbor(0, r > 0, r - 1, c, r, c + 1, r, c);
          hfNeighbor(1, c + 1 <= ncol - 2, r, c + 1, r + 1, c + 2, r + 1, c + 1);
          hfNeighbor(2, true, r, c, r + 1, c + 1, r + 1, c);
        } else {
          hfNeighbor(0, true, r, c, r, c + 1, r + 1, c + 1);
          hfNeighbor(1, r + 1 <= nrow - 2, r + 1, c, r + 1, c + 1, r + 2, c + 1);
          hfNeighbor(2, c > 0, r, c - 1, r, c, r + 1, c);
        }
        // (x0,y0,z00) (x1,y0,z01) (x1,y1,z11) | (x0,y0,z00) (x1,y1,z11) (x0,y1,z10)
        setLocal(0, x0, y0, z00);
        if (half === 0) {
          setLocal(1, x1, y0, z01);
          setLocal(2, x1, y1, z11);
        } else {
          setLocal(1, x1, y1, z11);
          setLocal(2, x0, y1, z10);
        }
        for (let v = 0; v < 3; v++) {
          const x = TRI[v * 3],
            y = TRI[v * 3 + 1],
            z = TRI[v * 3 + 2];
          TRI[v * 3] = px + R[ro] * x + R[ro + 1] * y + R[ro + 2] * z;
          TRI[v * 3 + 1] = py + R[ro + 3] * x + R[ro + 4] * y + R[ro + 5] * z;
          TRI[v * 3 + 2] = pz + R[ro + 6] * x + R[ro + 7] * y + R[ro + 8] * z;
        }
        triangle(margin, gap, cell * 2 + half);
      }
    }
  }
  flush(out, proxyScale(1) + proxyRadius(1));
}

/** the heightfield being collided (for neighbour normals) */
const HF: {
  D: Float64Array;
  d0: number;
  ncol: number;
  sx: number;
  sy: number;
  sz: number;
  dx: number;
  dy: number;
  R: Float64Array;
  ro: number;
} = {
  D: new Float64Array(0),
  d0: 0,
  ncol: 0,
  sx: 0,
  sy: 0,
  sz: 0,
  dx: 0,
  dy: 0,
  R: new Float64Array(0),
  ro: 0,
};

/** sets neighbour e from the grid samples (ra, ca), (rb, cb), (rc, cc) (counter-clockwise from +z) */
function hfNeighbor(
  e: number,
  exists: boolean,
  ra: number,
  ca: number,
  rb: number,
  cb: number,
  rc: number,
  cc: number,
): void {
  if (!exists) {
    NB_HAS[e] = 0;
    return;
  }
  const { D, d0, ncol, sz, dx, dy, R, ro } = HF;
  const za = sz * D[d0 + ra * ncol + ca],
    zb = sz * D[d0 + rb * ncol + cb],
    zc = sz * D[d0 + rc * ncol + cc];
  // local edge vectors (x, y spacing dx, dy), then rotated
  const e1x = (cb - ca) * dx,
    e1y = (rb - ra) * dy,
    e1z = zb - za;
  const e2x = (cc - ca) * dx,
    e2y = (rc - ra) * dy,
    e2z = zc - za;
  const lx = e1y * e2z - e1z * e2y,
    ly = e1z * e2x - e1x * e2z,
    lz = e1x * e2y - e1y * e2x;
  NBP[0] = 0;
  NBP[1] = 0;
  NBP[2] = 0;
  NBP[3] = R[ro] * lx + R[ro + 1] * ly + R[ro + 2] * lz;
  NBP[4] = R[ro + 3] * lx + R[ro + 4] * ly + R[ro + 5] * lz;
  NBP[5] = R[ro + 6] * lx + R[ro + 7] * ly + R[ro + 8] * lz;
  const l = Math.hypot(NBP[3], NBP[4], NBP[5]);
  if (!(l > 0)) {
    NB_HAS[e] = 0;
    return;
  }
  NB_HAS[e] = 1;
  NB_N[e * 3] = NBP[3] / l;
  NB_N[e * 3 + 1] = NBP[4] / l;
  NB_N[e * 3 + 2] = NBP[5] / l;
}

function setLocal(v: number, x: number, y: number, z: number): void {
  TRI[v * 3] = x;
  TRI[v * 3 + 1] = y;
  TRI[v * 3 + 2] = z;
}

/** triangle mesh (A) – convex shape (B) */
export function collideMeshConvex(
  g: ShapeGeom,
  mesh: number,
  convex: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  loadShapeProxy(1, g, convex);
  meshAgainstProxy(g, mesh, margin, gap, out);
}

/** heightfield (A) – convex shape (B) */
export function collideHeightfieldConvex(
  g: ShapeGeom,
  hf: number,
  convex: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  loadShapeProxy(1, g, convex);
  hfieldAgainstProxy(g, hf, margin, gap, out);
}

/** heightfield (A) – triangle mesh (B): B's convex hull against the heightfield's cells */
export function collideHeightfieldMesh(
  g: ShapeGeom,
  hf: number,
  mesh: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  loadShapeProxy(1, g, mesh);
  hfieldAgainstProxy(g, hf, margin, gap, out);
}

/** which of two meshes supplies triangles (the other its hull); symmetric in (a, b) */
function triangleSource(g: ShapeGeom, a: number, b: number): number {
  const m = g.model;
  const sa = m.shape_body[a] < 0,
    sb = m.shape_body[b] < 0;
  if (sa !== sb) return sa ? a : b;
  const ta = g.meshes.meshes[m.shape_mesh[a]].tCount,
    tb = g.meshes.meshes[m.shape_mesh[b]].tCount;
  if (ta !== tb) return ta > tb ? a : b;
  return a < b ? a : b;
}

/** triangle mesh (A) – triangle mesh (B): one's hull against the other's triangles */
export function collideMeshMesh(
  g: ShapeGeom,
  a: number,
  b: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const tri = triangleSource(g, a, b);
  const hull = tri === a ? b : a;
  const from = out.count;
  loadShapeProxy(1, g, hull);
  meshAgainstProxy(g, tri, margin, gap, out);
  if (tri !== a) flipManifold(out, from);
}

/** whether a shape type collides against triangles through its convex proxy */
export function isProxyType(t: number): boolean {
  return (
    (t >= ShapeType.SPHERE && t <= ShapeType.ELLIPSOID) || t === ShapeType.CONVEX_MESH || t === ShapeType.MESH
  );
}
