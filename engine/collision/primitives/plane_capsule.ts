/**
 * plane (A) – capsule (B): up to 2 points, one per end cap (feature 0 at −half_height along the
 * capsule's local z, feature 1 at +half_height), each emitted when that cap sphere is inside the band.
 * A capsule lying flat on the plane therefore gets both; an upright one only its lower cap.
 */
import type { ShapeGeom } from '../geometry';
import type { ContactManifold } from '../manifold';
import { planePointContact } from './common';

export function collidePlaneCapsule(
  g: ShapeGeom,
  plane: number,
  capsule: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const c = capsule * 3,
    r = capsule * 9;
  const rad = g.size[c],
    h = g.size[c + 1];
  const ax = g.rot[r + 2] * h,
    ay = g.rot[r + 5] * h,
    az = g.rot[r + 8] * h;
  const cx = g.pos[c],
    cy = g.pos[c + 1],
    cz = g.pos[c + 2];
  planePointContact(g, plane, cx - ax, cy - ay, cz - az, rad, margin, gap, 0, out);
  planePointContact(g, plane, cx + ax, cy + ay, cz + az, rad, margin, gap, 1, out);
}
