/**
 * Convex proxies for the general narrow phase: two module-level slots (0 = shape A, 1 = shape B),
 * each a convex *core* plus a radius. The full shape is core ⊕ ball(radius): a sphere is a point
 * core, a capsule a segment core; every other convex shape has radius 0. Margins are never part of
 * a proxy (they are inflation handled by the caller, SPEC §4).
 *
 * Each proxy offers
 * - a support function of its core, s(d) = argmax_{x ∈ core} dᵀx (world frame, deterministic ties);
 * - a contact *feature* in an outward direction n: the face, edge or vertex of the full shape that
 *   is extreme along n within an angular tolerance ({@link FEATURE_SIN_TOL}), as a point, a segment
 *   or a convex polygon (counter-clockwise about its outward face normal), all on the surface.
 *   Cylinder caps and the cone base are polygons of {@link DISC_POINTS} rim points.
 * Allocation-free.
 */
import { ShapeType } from '../model';
import type { ShapeGeom } from './geometry';
import type { HullFaces } from './hull';
import { meshHull, meshScale } from './mesh_data';
import { hullArgmax, hullFacesNear, WALK_FACES, WALK_MIN_VERTICES } from './hull_walk';

export const ProxyKind = {
  POINT: 0,
  SEGMENT: 1,
  BOX: 2,
  CYLINDER: 3,
  CONE: 4,
  ELLIPSOID: 5,
  HULL: 6,
  TRIANGLE: 7,
} as const;

/** sine of the angle within which a face (edge) counts as parallel (perpendicular) to a normal */
export const FEATURE_SIN_TOL = 0.05;
/** cosine counterpart of {@link FEATURE_SIN_TOL} */
export const FEATURE_COS_TOL = Math.sqrt(1 - FEATURE_SIN_TOL * FEATURE_SIN_TOL);
/** rim points of a cylinder cap or cone base polygon */
export const DISC_POINTS = 12;
/** the most vertices a feature polygon may have (larger hull faces fall back to a vertex) */
export const MAX_FEATURE_POINTS = 64;

// ---- proxy slots ----
const KIND = new Int32Array(2);
const POS = new Float64Array(6);
const ROT = new Float64Array(18);
/** sphere [-], capsule/cylinder/cone [r, h], box [hx, hy, hz], ellipsoid [a, b, c], hull scale */
const SIZE = new Float64Array(6);
const RADIUS = new Float64Array(2);
/** characteristic size (bounding radius about the proxy centre) [m] */
const SCALE = new Float64Array(2);
/** triangle vertices (world), 9 per slot, and unit normal */
const TRI = new Float64Array(18);
const TRI_N = new Float64Array(6);
/** hull: vertex array, first vertex (in vertices), count, faces (or null) */
const HULL_V: Float64Array[] = [new Float64Array(0), new Float64Array(0)];
const HULL_START = new Int32Array(2);
const HULL_COUNT = new Int32Array(2);
const HULL_F: (HullFaces | null)[] = [null, null];

/** the face normal of the last feature of each slot (valid when it had ≥ 3 points) */
export const FEATURE_NORMAL = new Float64Array(6);

/** kind of proxy slot p */
export function proxyKind(p: number): number {
  return KIND[p];
}
/** radius of proxy slot p [m] */
export function proxyRadius(p: number): number {
  return RADIUS[p];
}
/** characteristic size of proxy slot p [m] */
export function proxyScale(p: number): number {
  return SCALE[p];
}
/** a point inside proxy slot p's core (its centre), component k */
export function proxyCentre(p: number, k: number): number {
  return KIND[p] === ProxyKind.TRIANGLE
    ? (TRI[p * 9 + k] + TRI[p * 9 + 3 + k] + TRI[p * 9 + 6 + k]) / 3
    : POS[p * 3 + k];
}
/** component k of the unit normal of triangle proxy p */
export function triangleNormal(p: number, k: number): number {
  return TRI_N[p * 3 + k];
}
/** component k of vertex i of triangle proxy p */
export function triangleVertex(p: number, i: number, k: number): number {
  return TRI[p * 9 + i * 3 + k];
}

/** whether shape type t has a convex proxy */
export function isConvexType(t: number): boolean {
  return (t >= ShapeType.SPHERE && t <= ShapeType.ELLIPSOID) || t === ShapeType.CONVEX_MESH;
}

/** loads shape s of the geometry as proxy p (a convex shape; meshes load as their hull) */
export function loadShapeProxy(p: number, g: ShapeGeom, s: number): void {
  const t = g.type[s];
  for (let k = 0; k < 3; k++) POS[p * 3 + k] = g.pos[s * 3 + k];
  for (let k = 0; k < 9; k++) ROT[p * 9 + k] = g.rot[s * 9 + k];
  const a = g.size[s * 3],
    b = g.size[s * 3 + 1],
    c = g.size[s * 3 + 2];
  SIZE[p * 3] = a;
  SIZE[p * 3 + 1] = b;
  SIZE[p * 3 + 2] = c;
  RADIUS[p] = 0;
  switch (t) {
    case ShapeType.SPHERE:
      KIND[p] = ProxyKind.POINT;
      RADIUS[p] = a;
      SCALE[p] = a;
      break;
    case ShapeType.CAPSULE:
      KIND[p] = ProxyKind.SEGMENT;
      RADIUS[p] = a;
      SCALE[p] = a + b;
      break;
    case ShapeType.BOX:
      KIND[p] = ProxyKind.BOX;
      SCALE[p] = Math.hypot(a, b, c);
      break;
    case ShapeType.CYLINDER:
      KIND[p] = ProxyKind.CYLINDER;
      SCALE[p] = Math.hypot(a, b);
      break;
    case ShapeType.CONE:
      KIND[p] = ProxyKind.CONE;
      SCALE[p] = Math.hypot(a, b);
      break;
    case ShapeType.ELLIPSOID:
      KIND[p] = ProxyKind.ELLIPSOID;
      SCALE[p] = Math.max(a, b, c);
      break;
    case ShapeType.CONVEX_MESH:
    case ShapeType.MESH: {
      KIND[p] = ProxyKind.HULL;
      const mi = g.model.shape_mesh[s];
      const sx = meshScale(g.size, s, 0),
        sy = meshScale(g.size, s, 1),
        sz = meshScale(g.size, s, 2);
      SIZE[p * 3] = sx;
      SIZE[p * 3 + 1] = sy;
      SIZE[p * 3 + 2] = sz;
      const hull = meshHull(g.model, g.meshes, mi);
      const e = g.meshes.meshes[mi];
      if (hull) {
        HULL_V[p] = hull.vertices;
        HULL_START[p] = 0;
        HULL_COUNT[p] = hull.vertices.length / 3;
      } else {
        HULL_V[p] = g.model.mesh_vertices;
        HULL_START[p] = e.vStart;
        HULL_COUNT[p] = e.vCount;
      }
      HULL_F[p] = hull;
      const bx = e.box;
      SCALE[p] = Math.hypot(
        Math.abs(sx) * Math.max(Math.abs(bx[0]), Math.abs(bx[3])),
        Math.abs(sy) * Math.max(Math.abs(bx[1]), Math.abs(bx[4])),
        Math.abs(sz) * Math.max(Math.abs(bx[2]), Math.abs(bx[5])),
      );
      break;
    }
    default:
      throw new RangeError(`shape type ${t} has no convex proxy`);
  }
}

/** loads a world-frame triangle (v0, v1, v2 counter-clockwise about its outward normal) as proxy p */
export function loadTriangleProxy(p: number, v: Float64Array, o: number): void {
  KIND[p] = ProxyKind.TRIANGLE;
  RADIUS[p] = 0;
  const t = p * 9;
  for (let k = 0; k < 9; k++) TRI[t + k] = v[o + k];
  const e1x = TRI[t + 3] - TRI[t],
    e1y = TRI[t + 4] - TRI[t + 1],
    e1z = TRI[t + 5] - TRI[t + 2];
  const e2x = TRI[t + 6] - TRI[t],
    e2y = TRI[t + 7] - TRI[t + 1],
    e2z = TRI[t + 8] - TRI[t + 2];
  let nx = e1y * e2z - e1z * e2y,
    ny = e1z * e2x - e1x * e2z,
    nz = e1x * e2y - e1y * e2x;
  const l = Math.hypot(nx, ny, nz);
  if (l > 0) {
    nx /= l;
    ny /= l;
    nz /= l;
  } else {
    nx = 0;
    ny = 0;
    nz = 1;
  }
  TRI_N[p * 3] = nx;
  TRI_N[p * 3 + 1] = ny;
  TRI_N[p * 3 + 2] = nz;
  const cx = (TRI[t] + TRI[t + 3] + TRI[t + 6]) / 3,
    cy = (TRI[t + 1] + TRI[t + 4] + TRI[t + 7]) / 3,
    cz = (TRI[t + 2] + TRI[t + 5] + TRI[t + 8]) / 3;
  let sc = 0;
  for (let i = 0; i < 3; i++) {
    sc = Math.max(sc, Math.hypot(TRI[t + i * 3] - cx, TRI[t + i * 3 + 1] - cy, TRI[t + i * 3 + 2] - cz));
  }
  SCALE[p] = sc;
}

/** direction d (world) into proxy p's frame, written to L[0..3) */
const L = new Float64Array(3);
function toLocal(p: number, dx: number, dy: number, dz: number): void {
  const r = p * 9;
  L[0] = ROT[r] * dx + ROT[r + 3] * dy + ROT[r + 6] * dz;
  L[1] = ROT[r + 1] * dx + ROT[r + 4] * dy + ROT[r + 7] * dz;
  L[2] = ROT[r + 2] * dx + ROT[r + 5] * dy + ROT[r + 8] * dz;
}

/** writes pos + R·(x, y, z) of proxy p to out[o..o+3) */
function toWorld(p: number, x: number, y: number, z: number, out: Float64Array, o: number): void {
  const r = p * 9;
  out[o] = POS[p * 3] + ROT[r] * x + ROT[r + 1] * y + ROT[r + 2] * z;
  out[o + 1] = POS[p * 3 + 1] + ROT[r + 3] * x + ROT[r + 4] * y + ROT[r + 5] * z;
  out[o + 2] = POS[p * 3 + 2] + ROT[r + 6] * x + ROT[r + 7] * y + ROT[r + 8] * z;
}

/** rotates a local vector of proxy p into the world, writes out[o..o+3) */
function rotWorld(p: number, x: number, y: number, z: number, out: Float64Array, o: number): void {
  const r = p * 9;
  out[o] = ROT[r] * x + ROT[r + 1] * y + ROT[r + 2] * z;
  out[o + 1] = ROT[r + 3] * x + ROT[r + 4] * y + ROT[r + 5] * z;
  out[o + 2] = ROT[r + 6] * x + ROT[r + 7] * y + ROT[r + 8] * z;
}

/** index (within the hull) of the support vertex of hull proxy p for a local direction L */
function hullSupportIndex(p: number): number {
  const V = HULL_V[p];
  const s0 = HULL_START[p],
    n = HULL_COUNT[p];
  const dx = L[0] * SIZE[p * 3],
    dy = L[1] * SIZE[p * 3 + 1],
    dz = L[2] * SIZE[p * 3 + 2];
  const F = HULL_F[p];
  if (F !== null) return hullArgmax(F, dx, dy, dz);
  let best = -Infinity,
    bi = 0;
  for (let i = 0; i < n; i++) {
    const o = (s0 + i) * 3;
    const v = dx * V[o] + dy * V[o + 1] + dz * V[o + 2];
    if (v > best) {
      best = v;
      bi = i;
    }
  }
  return bi;
}

/**
 * Support point of proxy p's core in the world direction d (not necessarily unit), written to
 * out[o..o+3). Ties resolve to the + side / the lowest vertex index.
 */
export function supportCore(
  p: number,
  dx: number,
  dy: number,
  dz: number,
  out: Float64Array,
  o: number,
): void {
  const k = KIND[p];
  if (k === ProxyKind.POINT) {
    out[o] = POS[p * 3];
    out[o + 1] = POS[p * 3 + 1];
    out[o + 2] = POS[p * 3 + 2];
    return;
  }
  if (k === ProxyKind.TRIANGLE) {
    const t = p * 9;
    let bi = 0,
      best = dx * TRI[t] + dy * TRI[t + 1] + dz * TRI[t + 2];
    for (let i = 1; i < 3; i++) {
      const v = dx * TRI[t + i * 3] + dy * TRI[t + i * 3 + 1] + dz * TRI[t + i * 3 + 2];
      if (v > best) {
        best = v;
        bi = i;
      }
    }
    out[o] = TRI[t + bi * 3];
    out[o + 1] = TRI[t + bi * 3 + 1];
    out[o + 2] = TRI[t + bi * 3 + 2];
    return;
  }
  toLocal(p, dx, dy, dz);
  const lx = L[0],
    ly = L[1],
    lz = L[2];
  const a = SIZE[p * 3],
    b = SIZE[p * 3 + 1],
    c = SIZE[p * 3 + 2];
  switch (k) {
    case ProxyKind.SEGMENT:
      toWorld(p, 0, 0, lz >= 0 ? b : -b, out, o);
      return;
    case ProxyKind.BOX:
      toWorld(p, lx >= 0 ? a : -a, ly >= 0 ? b : -b, lz >= 0 ? c : -c, out, o);
      return;
    case ProxyKind.CYLINDER: {
      const rho = Math.hypot(lx, ly);
      const z = lz >= 0 ? b : -b;
      if (rho > 0) toWorld(p, (a * lx) / rho, (a * ly) / rho, z, out, o);
      else toWorld(p, 0, 0, z, out, o);
      return;
    }
    case ProxyKind.CONE: {
      const rho = Math.hypot(lx, ly);
      // apex (0, 0, h) against the best base rim point (r·e, −h)
      if (lz * b >= a * rho - lz * b) toWorld(p, 0, 0, b, out, o);
      else if (rho > 0) toWorld(p, (a * lx) / rho, (a * ly) / rho, -b, out, o);
      else toWorld(p, 0, 0, -b, out, o);
      return;
    }
    case ProxyKind.ELLIPSOID: {
      const ax = a * lx,
        by = b * ly,
        cz = c * lz;
      const den = Math.hypot(ax, by, cz);
      if (den > 0) toWorld(p, (a * ax) / den, (b * by) / den, (c * cz) / den, out, o);
      else toWorld(p, 0, 0, c, out, o);
      return;
    }
    case ProxyKind.HULL: {
      const i = hullSupportIndex(p);
      const V = HULL_V[p],
        v = (HULL_START[p] + i) * 3;
      toWorld(p, a * V[v], b * V[v + 1], c * V[v + 2], out, o);
      return;
    }
  }
}

// ---- features ----

/** offsets every point [from, to) of out by r·(x, y, z) */
function offset(
  out: Float64Array,
  from: number,
  to: number,
  r: number,
  x: number,
  y: number,
  z: number,
): void {
  if (r === 0) return;
  for (let i = from; i < to; i++) {
    out[i * 3] += r * x;
    out[i * 3 + 1] += r * y;
    out[i * 3 + 2] += r * z;
  }
}

function setFaceNormal(p: number, x: number, y: number, z: number): void {
  FEATURE_NORMAL[p * 3] = x;
  FEATURE_NORMAL[p * 3 + 1] = y;
  FEATURE_NORMAL[p * 3 + 2] = z;
}

/** writes a disc polygon (rim radius r at local height z, CCW about local ±z per `sign`) */
function disc(p: number, r: number, z: number, sign: number, out: Float64Array): number {
  for (let i = 0; i < DISC_POINTS; i++) {
    const t = (sign * 2 * Math.PI * i) / DISC_POINTS;
    toWorld(p, r * Math.cos(t), r * Math.sin(t), z, out, i * 3);
  }
  rotWorld(p, 0, 0, sign, FEATURE_NORMAL, p * 3);
  return DISC_POINTS;
}

const FW = new Float64Array(3);
const HV = new Float64Array(3);
const VV = new Float64Array(3);

/**
 * The contact feature of proxy p in the unit world direction n (pointing out of p towards the other
 * shape): writes 1 (vertex), 2 (edge) or ≥ 3 (face, counter-clockwise about
 * {@link FEATURE_NORMAL}[p]) surface points of the full shape (radius included) to `out`; returns
 * the count.
 */
export function proxyFeature(p: number, nx: number, ny: number, nz: number, out: Float64Array): number {
  const k = KIND[p];
  const rad = RADIUS[p];
  switch (k) {
    case ProxyKind.POINT:
      out[0] = POS[p * 3] + rad * nx;
      out[1] = POS[p * 3 + 1] + rad * ny;
      out[2] = POS[p * 3 + 2] + rad * nz;
      return 1;
    case ProxyKind.TRIANGLE:
      return triangleFeature(p, nx, ny, nz, out);
  }
  toLocal(p, nx, ny, nz);
  const lx = L[0],
    ly = L[1],
    lz = L[2];
  const a = SIZE[p * 3],
    b = SIZE[p * 3 + 1],
    c = SIZE[p * 3 + 2];
  switch (k) {
    case ProxyKind.SEGMENT: {
      if (Math.abs(lz) <= FEATURE_SIN_TOL) {
        // the side line: the segment offset by r along the radial part of n
        const rho = Math.hypot(lx, ly);
        toWorld(p, 0, 0, -b, out, 0);
        toWorld(p, 0, 0, b, out, 3);
        rotWorld(p, lx / rho, ly / rho, 0, FW, 0);
        offset(out, 0, 2, rad, FW[0], FW[1], FW[2]);
        return 2;
      }
      toWorld(p, 0, 0, lz >= 0 ? b : -b, out, 0);
      offset(out, 0, 1, rad, nx, ny, nz);
      return 1;
    }
    case ProxyKind.BOX: {
      const ax = Math.abs(lx),
        ay = Math.abs(ly),
        az = Math.abs(lz);
      let i = 0,
        best = ax;
      if (ay > best) {
        best = ay;
        i = 1;
      }
      if (az > best) {
        best = az;
        i = 2;
      }
      const sx = lx >= 0 ? 1 : -1,
        sy = ly >= 0 ? 1 : -1,
        sz = lz >= 0 ? 1 : -1;
      if (best >= FEATURE_COS_TOL) {
        const s = i === 0 ? sx : i === 1 ? sy : sz;
        const j = (i + 1) % 3,
          m = (i + 2) % 3;
        HV[0] = a;
        HV[1] = b;
        HV[2] = c;
        for (let q = 0; q < 4; q++) {
          // (−,−), (+,−), (+,+), (−,+) in (j, m): CCW about +e_i; reversed for the − face
          const qq = s > 0 ? q : 3 - q;
          const uj = qq === 1 || qq === 2 ? 1 : -1;
          const um = qq >= 2 ? 1 : -1;
          VV[i] = s * HV[i];
          VV[j] = uj * HV[j];
          VV[m] = um * HV[m];
          toWorld(p, VV[0], VV[1], VV[2], out, q * 3);
        }
        rotWorld(p, i === 0 ? s : 0, i === 1 ? s : 0, i === 2 ? s : 0, FEATURE_NORMAL, p * 3);
        return 4;
      }
      // an edge along the axis most perpendicular to n
      let e = 0,
        lo = ax;
      if (ay < lo) {
        lo = ay;
        e = 1;
      }
      if (az < lo) {
        lo = az;
        e = 2;
      }
      const vx = sx * a,
        vy = sy * b,
        vz = sz * c;
      if (lo <= FEATURE_SIN_TOL) {
        toWorld(p, e === 0 ? -a : vx, e === 1 ? -b : vy, e === 2 ? -c : vz, out, 0);
        toWorld(p, e === 0 ? a : vx, e === 1 ? b : vy, e === 2 ? c : vz, out, 3);
        return 2;
      }
      toWorld(p, vx, vy, vz, out, 0);
      return 1;
    }
    case ProxyKind.CYLINDER: {
      if (Math.abs(lz) >= FEATURE_COS_TOL) return disc(p, a, lz >= 0 ? b : -b, lz >= 0 ? 1 : -1, out);
      const rho = Math.hypot(lx, ly);
      const ex = lx / rho,
        ey = ly / rho;
      if (Math.abs(lz) <= FEATURE_SIN_TOL) {
        toWorld(p, a * ex, a * ey, -b, out, 0);
        toWorld(p, a * ex, a * ey, b, out, 3);
        return 2;
      }
      toWorld(p, a * ex, a * ey, lz >= 0 ? b : -b, out, 0);
      return 1;
    }
    case ProxyKind.CONE: {
      if (-lz >= FEATURE_COS_TOL) return disc(p, a, -b, -1, out);
      const rho = Math.hypot(lx, ly);
      if (rho === 0) {
        toWorld(p, 0, 0, b, out, 0);
        return 1;
      }
      const ex = lx / rho,
        ey = ly / rho;
      // outward normal of the side along the generator at azimuth e: (2h·e + r·z)/√(4h² + r²)
      const sl = Math.hypot(2 * b, a);
      const side = (2 * b * rho + a * lz) / sl;
      if (side >= FEATURE_COS_TOL) {
        toWorld(p, 0, 0, b, out, 0);
        toWorld(p, a * ex, a * ey, -b, out, 3);
        return 2;
      }
      if (lz * b >= a * rho - lz * b) toWorld(p, 0, 0, b, out, 0);
      else toWorld(p, a * ex, a * ey, -b, out, 0);
      return 1;
    }
    case ProxyKind.ELLIPSOID: {
      const ax = a * lx,
        by = b * ly,
        cz = c * lz;
      const den = Math.hypot(ax, by, cz);
      toWorld(p, (a * ax) / den, (b * by) / den, (c * cz) / den, out, 0);
      return 1;
    }
    case ProxyKind.HULL:
      return hullFeature(p, nx, ny, nz, out);
  }
  return 0;
}

function hullFeature(p: number, nx: number, ny: number, nz: number, out: Float64Array): number {
  const V = HULL_V[p],
    s0 = HULL_START[p];
  const sx = SIZE[p * 3],
    sy = SIZE[p * 3 + 1],
    sz = SIZE[p * 3 + 2];
  const F = HULL_F[p];
  const lx = L[0],
    ly = L[1],
    lz = L[2];
  // the support vertex: found once, by the face search of a hull with many faces or by the fallback
  let i = -1;
  if (F !== null) {
    // face normals of the scaled hull: n_f ⊘ s, normalized; only a face within FEATURE_COS_TOL of
    // the direction is used, and those are among the faces near its extreme vertex (ascending, as
    // the scan over all faces takes them)
    let bf = -1,
      bd = -Infinity,
      bnx = 0,
      bny = 0,
      bnz = 0;
    const many = F.faceCount > WALK_MIN_VERTICES;
    if (many) i = hullSupportIndex(p);
    const nf = many
      ? hullFacesNear(
          F,
          i,
          lx * sx,
          ly * sy,
          lz * sz,
          Math.max(Math.abs(sx), Math.abs(sy), Math.abs(sz)),
          FEATURE_COS_TOL,
        )
      : F.faceCount;
    for (let k = 0; k < nf; k++) {
      const f = many ? WALK_FACES[k] : k;
      const fx = F.faceNormal[f * 3] / sx,
        fy = F.faceNormal[f * 3 + 1] / sy,
        fz = F.faceNormal[f * 3 + 2] / sz;
      const l = Math.hypot(fx, fy, fz);
      const d = (fx * lx + fy * ly + fz * lz) / l;
      if (d > bd) {
        bd = d;
        bf = f;
        bnx = fx / l;
        bny = fy / l;
        bnz = fz / l;
      }
    }
    const cnt = bf >= 0 ? F.faceStart[bf + 1] - F.faceStart[bf] : 0;
    if (bd >= FEATURE_COS_TOL && cnt <= MAX_FEATURE_POINTS) {
      for (let q = 0; q < cnt; q++) {
        const v = (s0 + F.faceVertex[F.faceStart[bf] + q]) * 3;
        toWorld(p, sx * V[v], sy * V[v + 1], sz * V[v + 2], out, q * 3);
      }
      rotWorld(p, bnx, bny, bnz, FEATURE_NORMAL, p * 3);
      return cnt;
    }
  }
  if (i < 0) i = hullSupportIndex(p);
  const v = (s0 + i) * 3;
  if (F !== null) {
    // the edge from the support vertex most perpendicular to n
    let bw = -1,
      bs = Infinity;
    for (let q = F.adjStart[i]; q < F.adjStart[i + 1]; q++) {
      const w = (s0 + F.adjacent[q]) * 3;
      const ex = sx * (V[w] - V[v]),
        ey = sy * (V[w + 1] - V[v + 1]),
        ez = sz * (V[w + 2] - V[v + 2]);
      const s = Math.abs(ex * lx + ey * ly + ez * lz) / Math.hypot(ex, ey, ez);
      if (s < bs) {
        bs = s;
        bw = w;
      }
    }
    if (bw >= 0 && bs <= FEATURE_SIN_TOL) {
      toWorld(p, sx * V[v], sy * V[v + 1], sz * V[v + 2], out, 0);
      toWorld(p, sx * V[bw], sy * V[bw + 1], sz * V[bw + 2], out, 3);
      return 2;
    }
  }
  toWorld(p, sx * V[v], sy * V[v + 1], sz * V[v + 2], out, 0);
  return 1;
}

function triangleFeature(p: number, nx: number, ny: number, nz: number, out: Float64Array): number {
  const t = p * 9;
  const c = nx * TRI_N[p * 3] + ny * TRI_N[p * 3 + 1] + nz * TRI_N[p * 3 + 2];
  if (Math.abs(c) >= FEATURE_COS_TOL) {
    const s = c > 0 ? 1 : -1;
    for (let q = 0; q < 3; q++) {
      const i = s > 0 ? q : (3 - q) % 3;
      out[q * 3] = TRI[t + i * 3];
      out[q * 3 + 1] = TRI[t + i * 3 + 1];
      out[q * 3 + 2] = TRI[t + i * 3 + 2];
    }
    setFaceNormal(p, s * TRI_N[p * 3], s * TRI_N[p * 3 + 1], s * TRI_N[p * 3 + 2]);
    return 3;
  }
  // support vertex, then its more perpendicular incident edge
  let bi = 0,
    best = nx * TRI[t] + ny * TRI[t + 1] + nz * TRI[t + 2];
  for (let i = 1; i < 3; i++) {
    const v = nx * TRI[t + i * 3] + ny * TRI[t + i * 3 + 1] + nz * TRI[t + i * 3 + 2];
    if (v > best) {
      best = v;
      bi = i;
    }
  }
  let bj = -1,
    bs = Infinity;
  for (let q = 1; q < 3; q++) {
    const j = (bi + q) % 3;
    const ex = TRI[t + j * 3] - TRI[t + bi * 3],
      ey = TRI[t + j * 3 + 1] - TRI[t + bi * 3 + 1],
      ez = TRI[t + j * 3 + 2] - TRI[t + bi * 3 + 2];
    const s = Math.abs(ex * nx + ey * ny + ez * nz) / Math.hypot(ex, ey, ez);
    if (s < bs) {
      bs = s;
      bj = j;
    }
  }
  out[0] = TRI[t + bi * 3];
  out[1] = TRI[t + bi * 3 + 1];
  out[2] = TRI[t + bi * 3 + 2];
  if (bs <= FEATURE_SIN_TOL) {
    out[3] = TRI[t + bj * 3];
    out[4] = TRI[t + bj * 3 + 1];
    out[5] = TRI[t + bj * 3 + 2];
    return 2;
  }
  return 1;
}
