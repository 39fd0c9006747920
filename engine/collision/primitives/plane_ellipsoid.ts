/**
 * plane (A) – ellipsoid (B): one point (feature 0), the ellipsoid's deepest point along −n:
 * p = c + R·D²m/|D m| with m = Rᵀ(−n) and D = diag(a, b, c); d is its height above the plane.
 */
import type { ShapeGeom } from '../geometry';
import type { ContactManifold } from '../manifold';
import { planePointContact } from './common';
import { len3 } from '../../math';

export function collidePlaneEllipsoid(
  g: ShapeGeom,
  plane: number,
  ell: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const R = g.rot,
    r = ell * 9,
    pr = plane * 9;
  const nx = -R[pr + 2],
    ny = -R[pr + 5],
    nz = -R[pr + 8];
  const mx = R[r] * nx + R[r + 3] * ny + R[r + 6] * nz;
  const my = R[r + 1] * nx + R[r + 4] * ny + R[r + 7] * nz;
  const mz = R[r + 2] * nx + R[r + 5] * ny + R[r + 8] * nz;
  const a = g.size[ell * 3],
    b = g.size[ell * 3 + 1],
    c = g.size[ell * 3 + 2];
  const den = len3(a * mx, b * my, c * mz);
  const lx = (a * a * mx) / den,
    ly = (b * b * my) / den,
    lz = (c * c * mz) / den;
  const px = g.pos[ell * 3] + R[r] * lx + R[r + 1] * ly + R[r + 2] * lz;
  const py = g.pos[ell * 3 + 1] + R[r + 3] * lx + R[r + 4] * ly + R[r + 5] * lz;
  const pz = g.pos[ell * 3 + 2] + R[r + 6] * lx + R[r + 7] * ly + R[r + 8] * lz;
  planePointContact(g, plane, px, py, pz, 0, margin, gap, 0, out);
}
