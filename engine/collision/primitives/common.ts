/**
 * Helpers shared by the primitive routines. Conventions: see `../manifold.ts` and `../narrowphase.ts`.
 */
import { addContact, inBand, type ContactManifold } from '../manifold';
import type { ShapeGeom } from '../geometry';
import { len3 } from '../../math';

/** the signature of every narrow-phase routine: shapes a (A) and b (B), margin m_a+m_b, gap g_a+g_b */
export type NarrowPhaseRoutine = (
  g: ShapeGeom,
  a: number,
  b: number,
  margin: number,
  gap: number,
  out: ContactManifold,
) => void;

/**
 * Contact between two spheres (centres c_A, c_B, radii r_A, r_B) — also the core of every
 * capsule routine (a capsule is a sphere swept along its segment). n = (c_B − c_A)/|c_B − c_A|
 * (+z when the centres coincide), d = |c_B − c_A| − r_A − r_B, witnesses c_A + r_A n and c_B − r_B n.
 * Appends one point with `feature` when inside the band.
 */
export function sphereSphereContact(
  ax: number,
  ay: number,
  az: number,
  ra: number,
  bx: number,
  by: number,
  bz: number,
  rb: number,
  margin: number,
  gap: number,
  feature: number,
  out: ContactManifold,
): void {
  let nx = bx - ax,
    ny = by - ay,
    nz = bz - az;
  const len = len3(nx, ny, nz);
  const d = len - (ra + rb);
  if (!inBand(d, margin, gap)) return;
  if (len > 0) {
    nx /= len;
    ny /= len;
    nz /= len;
  } else {
    nx = 0;
    ny = 0;
    nz = 1;
  }
  addContact(
    out,
    nx,
    ny,
    nz,
    ax + ra * nx,
    ay + ra * ny,
    az + ra * nz,
    bx - rb * nx,
    by - rb * ny,
    bz - rb * nz,
    d,
    feature,
  );
}

/** whether plane shape p has a finite extent (both half extents positive; else it is infinite) */
export function planeBounded(g: ShapeGeom, p: number): boolean {
  return g.size[p * 3] > 0 && g.size[p * 3 + 1] > 0;
}

/**
 * Whether a world point's projection lies on plane shape p: always for an infinite plane (a size of 0
 * on either half extent), else |u| ≤ hx and |v| ≤ hy in the plane's local frame.
 */
export function onPlane(g: ShapeGeom, p: number, x: number, y: number, z: number): boolean {
  if (!planeBounded(g, p)) return true;
  const hx = g.size[p * 3],
    hy = g.size[p * 3 + 1];
  const R = g.rot,
    r = p * 9;
  const dx = x - g.pos[p * 3],
    dy = y - g.pos[p * 3 + 1],
    dz = z - g.pos[p * 3 + 2];
  const u = R[r] * dx + R[r + 3] * dy + R[r + 6] * dz;
  const v = R[r + 1] * dx + R[r + 4] * dy + R[r + 7] * dz;
  return Math.abs(u) <= hx && Math.abs(v) <= hy;
}

/**
 * Contact of plane p (shape A; normal = local +z through the origin, a half-space below it) with a
 * sphere of centre c and radius r (a point of shape B): d = nᵀ(c − o) − r, witness on the plane
 * c − (d + r) n, on the sphere c − r n. Appends when inside the band and over a finite plane's extent.
 */
export function planePointContact(
  g: ShapeGeom,
  p: number,
  cx: number,
  cy: number,
  cz: number,
  r: number,
  margin: number,
  gap: number,
  feature: number,
  out: ContactManifold,
): void {
  const R = g.rot,
    ro = p * 9;
  const nx = R[ro + 2],
    ny = R[ro + 5],
    nz = R[ro + 8];
  const dc = nx * (cx - g.pos[p * 3]) + ny * (cy - g.pos[p * 3 + 1]) + nz * (cz - g.pos[p * 3 + 2]);
  const d = dc - r;
  if (!inBand(d, margin, gap)) return;
  const px = cx - dc * nx,
    py = cy - dc * ny,
    pz = cz - dc * nz;
  if (!onPlane(g, p, px, py, pz)) return;
  addContact(out, nx, ny, nz, px, py, pz, cx - r * nx, cy - r * ny, cz - r * nz, d, feature);
}
