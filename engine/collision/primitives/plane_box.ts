/**
 * plane (A) – box (B): the box corners inside the band (and over a finite plane's extent), at most
 * {@link PLANE_BOX_MAX_POINTS} — the deepest ones, ties broken by corner index — emitted in corner order.
 * Feature = corner index k, whose local position is (±hx, ±hy, ±hz) with the sign of axis i negative
 * when bit i of k is 0. A box resting flat yields exactly its 4 bottom corners.
 */
import type { ShapeGeom } from '../geometry';
import { addContact, inBand, type ContactManifold } from '../manifold';
import { onPlane } from './common';

/** the most corners a plane–box pair emits */
export const PLANE_BOX_MAX_POINTS = 4;

const cornerD = new Float64Array(8);
const cornerP = new Float64Array(24);
const keep = new Uint8Array(8);

export function collidePlaneBox(
  g: ShapeGeom,
  plane: number,
  box: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const R = g.rot,
    pr = plane * 9,
    br = box * 9;
  const nx = R[pr + 2],
    ny = R[pr + 5],
    nz = R[pr + 8];
  const ox = g.pos[plane * 3],
    oy = g.pos[plane * 3 + 1],
    oz = g.pos[plane * 3 + 2];
  const hx = g.size[box * 3],
    hy = g.size[box * 3 + 1],
    hz = g.size[box * 3 + 2];
  const cx = g.pos[box * 3],
    cy = g.pos[box * 3 + 1],
    cz = g.pos[box * 3 + 2];
  let n = 0;
  for (let k = 0; k < 8; k++) {
    const lx = k & 1 ? hx : -hx,
      ly = k & 2 ? hy : -hy,
      lz = k & 4 ? hz : -hz;
    const x = cx + R[br] * lx + R[br + 1] * ly + R[br + 2] * lz;
    const y = cy + R[br + 3] * lx + R[br + 4] * ly + R[br + 5] * lz;
    const z = cz + R[br + 6] * lx + R[br + 7] * ly + R[br + 8] * lz;
    const d = nx * (x - ox) + ny * (y - oy) + nz * (z - oz);
    cornerP[k * 3] = x;
    cornerP[k * 3 + 1] = y;
    cornerP[k * 3 + 2] = z;
    cornerD[k] = d;
    const ok = inBand(d, margin, gap) && onPlane(g, plane, x - d * nx, y - d * ny, z - d * nz);
    keep[k] = ok ? 1 : 0;
    if (ok) n++;
  }
  // drop the shallowest corners beyond the cap (the largest d; the higher index on ties)
  while (n > PLANE_BOX_MAX_POINTS) {
    let worst = -1;
    for (let k = 0; k < 8; k++) {
      if (keep[k] && (worst < 0 || cornerD[k] >= cornerD[worst])) worst = k;
    }
    keep[worst] = 0;
    n--;
  }
  for (let k = 0; k < 8; k++) {
    if (!keep[k]) continue;
    const x = cornerP[k * 3],
      y = cornerP[k * 3 + 1],
      z = cornerP[k * 3 + 2],
      d = cornerD[k];
    addContact(out, nx, ny, nz, x - d * nx, y - d * ny, z - d * nz, x, y, z, d, k);
  }
}
