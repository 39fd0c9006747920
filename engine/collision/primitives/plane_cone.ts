/**
 * plane (A) – cone (B) (apex at +h along the local z axis, base of radius r at −h). The deepest
 * point along −n is the apex or the base rim point at e (the in-base direction most against n, as
 * for the cylinder, see {@link rimDirections}).
 * - standing on its base (nᵀa ≥ cos θ): 4 base rim points at e, a × e, −e, −a × e (features 0–3);
 * - lying on its side (the side normal along the generator at e, (2h·e + r·a)/√(4h² + r²), within θ
 *   of −n): 2 points, the apex and the rim point at e (features 4, 5);
 * - otherwise the deeper of apex and rim point (feature 6 apex, 7 rim).
 * Each point is emitted when inside the band and over a finite plane's extent.
 */
import type { ShapeGeom } from '../geometry';
import type { ContactManifold } from '../manifold';
import { FEATURE_COS_TOL } from '../support';
import { planePointContact } from './common';
import { RIM_DIR as E, rimDirections } from './plane_cylinder';

export function collidePlaneCone(
  g: ShapeGeom,
  plane: number,
  cone: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const c = rimDirections(g, plane, cone);
  const r = cone * 9,
    R = g.rot;
  const rad = g.size[cone * 3],
    h = g.size[cone * 3 + 1];
  const ax = R[r + 2],
    ay = R[r + 5],
    az = R[r + 8];
  const px = g.pos[cone * 3],
    py = g.pos[cone * 3 + 1],
    pz = g.pos[cone * 3 + 2];
  const bx = px - h * ax,
    by = py - h * ay,
    bz = pz - h * az;
  if (c >= FEATURE_COS_TOL) {
    for (let k = 0; k < 4; k++) {
      const u = k === 0 ? 1 : k === 2 ? -1 : 0,
        v = k === 1 ? 1 : k === 3 ? -1 : 0;
      planePointContact(
        g,
        plane,
        bx + rad * (u * E[0] + v * E[3]),
        by + rad * (u * E[1] + v * E[4]),
        bz + rad * (u * E[2] + v * E[5]),
        0,
        margin,
        gap,
        k,
        out,
      );
    }
    return;
  }
  const nx = R[plane * 9 + 2],
    ny = R[plane * 9 + 5],
    nz = R[plane * 9 + 8];
  // side normal along the generator at e, against −n
  const sl = Math.hypot(2 * h, rad);
  const side = -((2 * h * (E[0] * nx + E[1] * ny + E[2] * nz) + rad * (ax * nx + ay * ny + az * nz)) / sl);
  const apx = px + h * ax,
    apy = py + h * ay,
    apz = pz + h * az;
  const rmx = bx + rad * E[0],
    rmy = by + rad * E[1],
    rmz = bz + rad * E[2];
  if (side >= FEATURE_COS_TOL) {
    planePointContact(g, plane, apx, apy, apz, 0, margin, gap, 4, out);
    planePointContact(g, plane, rmx, rmy, rmz, 0, margin, gap, 5, out);
    return;
  }
  const dApex = nx * apx + ny * apy + nz * apz,
    dRim = nx * rmx + ny * rmy + nz * rmz;
  if (dApex <= dRim) planePointContact(g, plane, apx, apy, apz, 0, margin, gap, 6, out);
  else planePointContact(g, plane, rmx, rmy, rmz, 0, margin, gap, 7, out);
}
