/**
 * sphere (A) – cylinder (B): one point (feature 0), worked in the cylinder frame with the sphere
 * centre p. Outside the solid cylinder the closest point is q = (clamp of the radial part to r,
 * clamp(p_z, −h, h)) and n_cyl = (p − q)/|p − q|; inside, the nearer of the side (depth r − ρ,
 * radial normal; local +x on the axis) and the cap (depth h − |p_z|, ±z; the side wins ties).
 * The written normal points from the sphere into the cylinder, n = −n_cyl.
 */
import type { ShapeGeom } from '../geometry';
import { addContact, inBand, type ContactManifold } from '../manifold';
import { len3 } from '../../math';

export function collideSphereCylinder(
  g: ShapeGeom,
  sphere: number,
  cyl: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const P = g.pos,
    R = g.rot,
    r = cyl * 9;
  const sx = P[sphere * 3],
    sy = P[sphere * 3 + 1],
    sz = P[sphere * 3 + 2];
  const rs = g.size[sphere * 3];
  const rad = g.size[cyl * 3],
    h = g.size[cyl * 3 + 1];
  const cx = P[cyl * 3],
    cy = P[cyl * 3 + 1],
    cz = P[cyl * 3 + 2];
  const wx = sx - cx,
    wy = sy - cy,
    wz = sz - cz;
  const px = R[r] * wx + R[r + 3] * wy + R[r + 6] * wz;
  const py = R[r + 1] * wx + R[r + 4] * wy + R[r + 7] * wz;
  const pz = R[r + 2] * wx + R[r + 5] * wy + R[r + 8] * wz;
  const rho = Math.hypot(px, py);
  let qx = px,
    qy = py;
  if (rho > rad) {
    qx = (px * rad) / rho;
    qy = (py * rad) / rho;
  }
  let qz = pz < -h ? -h : pz > h ? h : pz;
  let lx = px - qx,
    ly = py - qy,
    lz = pz - qz;
  let dc = len3(lx, ly, lz);
  if (dc > 0) {
    lx /= dc;
    ly /= dc;
    lz /= dc;
  } else {
    const side = rad - rho,
      cap = h - Math.abs(pz);
    if (side <= cap) {
      if (rho > 0) {
        lx = px / rho;
        ly = py / rho;
      } else {
        lx = 1;
        ly = 0;
      }
      lz = 0;
      qx = rad * lx;
      qy = rad * ly;
      dc = -side;
    } else {
      lx = 0;
      ly = 0;
      lz = pz < 0 ? -1 : 1;
      qz = lz * h;
      dc = -cap;
    }
  }
  const d = dc - rs;
  if (!inBand(d, margin, gap)) return;
  const nx = R[r] * lx + R[r + 1] * ly + R[r + 2] * lz;
  const ny = R[r + 3] * lx + R[r + 4] * ly + R[r + 5] * lz;
  const nz = R[r + 6] * lx + R[r + 7] * ly + R[r + 8] * lz;
  const bx = cx + R[r] * qx + R[r + 1] * qy + R[r + 2] * qz;
  const by = cy + R[r + 3] * qx + R[r + 4] * qy + R[r + 5] * qz;
  const bz = cz + R[r + 6] * qx + R[r + 7] * qy + R[r + 8] * qz;
  addContact(out, -nx, -ny, -nz, sx - rs * nx, sy - rs * ny, sz - rs * nz, bx, by, bz, d, 0);
}
