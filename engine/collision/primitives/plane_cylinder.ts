/**
 * plane (A) – cylinder (B), from the rim points (the deepest point of a cylinder along −n is always
 * on a cap rim). With n the plane normal, a the cylinder axis, e the unit direction within the cap
 * plane most against n (e = −(n − (nᵀa)a)/|…|; the cylinder's local +x when |n − (nᵀa)a| <
 * {@link CYLINDER_FLAT_EPS}):
 * - standing on a cap (|nᵀa| ≥ cos θ, θ = asin {@link FEATURE_SIN_TOL}): 4 points of the lower cap's
 *   rim at e, a × e, −e, −a × e (features 0–3, +4 for the +h cap);
 * - lying on its side (|nᵀa| ≤ sin θ): 2 points, the rim points at e on both caps (features 8, 9);
 * - otherwise: the deepest rim point (feature 10 for the −h cap, 11 for +h).
 * Each point is emitted when inside the band and over a finite plane's extent; witnesses are the rim
 * point (B) and its projection onto the plane (A); d is its height above the plane.
 */
import type { ShapeGeom } from '../geometry';
import type { ContactManifold } from '../manifold';
import { FEATURE_COS_TOL, FEATURE_SIN_TOL } from '../support';
import { planePointContact } from './common';
import { len3 } from '../../math';

/** below this |n − (nᵀa)a| the cap counts as exactly flat and the rim points use the local x axis */
export const CYLINDER_FLAT_EPS = 1e-9;

/** writes the unit in-cap direction most against n into E (e) and F (a × e) */
const E = new Float64Array(6);
export function rimDirections(g: ShapeGeom, plane: number, s: number): number {
  const R = g.rot,
    pr = plane * 9,
    r = s * 9;
  const nx = R[pr + 2],
    ny = R[pr + 5],
    nz = R[pr + 8];
  const ax = R[r + 2],
    ay = R[r + 5],
    az = R[r + 8];
  const c = nx * ax + ny * ay + nz * az;
  let ex = -(nx - c * ax),
    ey = -(ny - c * ay),
    ez = -(nz - c * az);
  const l = len3(ex, ey, ez);
  if (l < CYLINDER_FLAT_EPS) {
    ex = R[r];
    ey = R[r + 3];
    ez = R[r + 6];
  } else {
    ex /= l;
    ey /= l;
    ez /= l;
  }
  E[0] = ex;
  E[1] = ey;
  E[2] = ez;
  E[3] = ay * ez - az * ey;
  E[4] = az * ex - ax * ez;
  E[5] = ax * ey - ay * ex;
  return c;
}
/** the rim directions of the last {@link rimDirections} call: e at [0, 3), a × e at [3, 6) */
export const RIM_DIR = E;

export function collidePlaneCylinder(
  g: ShapeGeom,
  plane: number,
  cyl: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const c = rimDirections(g, plane, cyl);
  const r = cyl * 9,
    R = g.rot;
  const rad = g.size[cyl * 3],
    h = g.size[cyl * 3 + 1];
  const ax = R[r + 2],
    ay = R[r + 5],
    az = R[r + 8];
  const px = g.pos[cyl * 3],
    py = g.pos[cyl * 3 + 1],
    pz = g.pos[cyl * 3 + 2];
  if (Math.abs(c) >= FEATURE_COS_TOL) {
    const s = c > 0 ? -1 : 1; // the cap facing the plane
    const cx = px + s * h * ax,
      cy = py + s * h * ay,
      cz = pz + s * h * az;
    const base = s > 0 ? 4 : 0;
    for (let k = 0; k < 4; k++) {
      const u = k === 0 ? 1 : k === 2 ? -1 : 0,
        v = k === 1 ? 1 : k === 3 ? -1 : 0;
      const dx = u * E[0] + v * E[3],
        dy = u * E[1] + v * E[4],
        dz = u * E[2] + v * E[5];
      planePointContact(g, plane, cx + rad * dx, cy + rad * dy, cz + rad * dz, 0, margin, gap, base + k, out);
    }
    return;
  }
  if (Math.abs(c) <= FEATURE_SIN_TOL) {
    for (let k = 0; k < 2; k++) {
      const s = k === 0 ? -1 : 1;
      planePointContact(
        g,
        plane,
        px + s * h * ax + rad * E[0],
        py + s * h * ay + rad * E[1],
        pz + s * h * az + rad * E[2],
        0,
        margin,
        gap,
        8 + k,
        out,
      );
    }
    return;
  }
  const s = c > 0 ? -1 : 1;
  planePointContact(
    g,
    plane,
    px + s * h * ax + rad * E[0],
    py + s * h * ay + rad * E[1],
    pz + s * h * az + rad * E[2],
    0,
    margin,
    gap,
    s > 0 ? 11 : 10,
    out,
  );
}
