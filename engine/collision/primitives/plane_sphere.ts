/** plane (A) – sphere (B): one point, normal = the plane's +z (from the plane into the sphere) */
import type { ShapeGeom } from '../geometry';
import type { ContactManifold } from '../manifold';
import { planePointContact } from './common';

/** feature 0; see {@link planePointContact} */
export function collidePlaneSphere(
  g: ShapeGeom,
  plane: number,
  sphere: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const c = sphere * 3;
  planePointContact(g, plane, g.pos[c], g.pos[c + 1], g.pos[c + 2], g.size[c], margin, gap, 0, out);
}
