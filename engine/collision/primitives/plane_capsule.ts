/**
 * plane (A) – capsule (B), with n the plane normal, u the capsule axis and e the unit direction
 * ⊥ u most against n:
 * - lying along the plane (|nᵀu| ≤ sin θ, θ = asin FEATURE_SIN_TOL): 2 points, one per end — the
 *   lower end's deepest point c_low − r·n (the exact minimum) and the other end's point on the
 *   capsule's bottom line, c_high + r·e (features 0 for the −half_height end, 1 for +half_height);
 *   a capsule lying exactly flat gets both ends' c ± h·u − r·n;
 * - otherwise 1 point, the lower end's c_low − r·n (feature of that end).
 * Every witness lies on the capsule's surface; each point is emitted when inside the band and over a
 * finite plane's extent. An upright capsule therefore gets only its lower cap.
 */
import type { ShapeGeom } from '../geometry';
import type { ContactManifold } from '../manifold';
import { FEATURE_SIN_TOL } from '../support';
import { planePointContact } from './common';
import { len3 } from '../../math';

export function collidePlaneCapsule(
  g: ShapeGeom,
  plane: number,
  capsule: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const c = capsule * 3,
    r = capsule * 9,
    pr = plane * 9;
  const rad = g.size[c],
    h = g.size[c + 1];
  const ux = g.rot[r + 2],
    uy = g.rot[r + 5],
    uz = g.rot[r + 8];
  const nx = g.rot[pr + 2],
    ny = g.rot[pr + 5],
    nz = g.rot[pr + 8];
  const cx = g.pos[c],
    cy = g.pos[c + 1],
    cz = g.pos[c + 2];
  const cu = nx * ux + ny * uy + nz * uz;
  // the lower end: −h when the axis points up along n (ties: −h)
  const low = cu >= 0 ? -1 : 1;
  const lowFeature = low < 0 ? 0 : 1;
  planePointContact(
    g,
    plane,
    cx + low * h * ux,
    cy + low * h * uy,
    cz + low * h * uz,
    rad,
    margin,
    gap,
    lowFeature,
    out,
  );
  if (Math.abs(cu) > FEATURE_SIN_TOL) return;
  let ex = -(nx - cu * ux),
    ey = -(ny - cu * uy),
    ez = -(nz - cu * uz);
  const l = len3(ex, ey, ez);
  ex /= l;
  ey /= l;
  ez /= l;
  // the other end's point on the bottom line (a point of zero radius offset by r·e)
  planePointContact(
    g,
    plane,
    cx - low * h * ux + rad * ex,
    cy - low * h * uy + rad * ey,
    cz - low * h * uz + rad * ez,
    0,
    margin,
    gap,
    1 - lowFeature,
    out,
  );
}
