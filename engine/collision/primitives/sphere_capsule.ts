/**
 * sphere (A) – capsule (B): the sphere against the closest point of the capsule's segment, treated as
 * a sphere of the capsule radius (feature 0).
 */
import type { ShapeGeom } from '../geometry';
import type { ContactManifold } from '../manifold';
import { sphereSphereContact } from './common';

export function collideSphereCapsule(
  g: ShapeGeom,
  sphere: number,
  capsule: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const p = g.pos,
    R = g.rot,
    r = capsule * 9;
  const sx = p[sphere * 3],
    sy = p[sphere * 3 + 1],
    sz = p[sphere * 3 + 2];
  const cx = p[capsule * 3],
    cy = p[capsule * 3 + 1],
    cz = p[capsule * 3 + 2];
  const ux = R[r + 2],
    uy = R[r + 5],
    uz = R[r + 8];
  const h = g.size[capsule * 3 + 1];
  let t = ux * (sx - cx) + uy * (sy - cy) + uz * (sz - cz);
  t = t < -h ? -h : t > h ? h : t;
  sphereSphereContact(
    sx,
    sy,
    sz,
    g.size[sphere * 3],
    cx + t * ux,
    cy + t * uy,
    cz + t * uz,
    g.size[capsule * 3],
    margin,
    gap,
    0,
    out,
  );
}
