/**
 * sphere (A) – box (B): one point (feature 0). With the sphere centre p in the box frame:
 * outside the box, the closest box point q = clamp(p, −h, h) and n_box = R(p − q)/|p − q|;
 * inside, the face of least penetration (lowest axis index on ties, + side when p_i = 0).
 * The written normal points from the sphere into the box, n = −n_box.
 */
import type { ShapeGeom } from '../geometry';
import { addContact, inBand, type ContactManifold } from '../manifold';
import { len3 } from '../../math';

export function collideSphereBox(
  g: ShapeGeom,
  sphere: number,
  box: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const P = g.pos,
    R = g.rot,
    r = box * 9;
  const sx = P[sphere * 3],
    sy = P[sphere * 3 + 1],
    sz = P[sphere * 3 + 2];
  const rad = g.size[sphere * 3];
  const hx = g.size[box * 3],
    hy = g.size[box * 3 + 1],
    hz = g.size[box * 3 + 2];
  const cx = P[box * 3],
    cy = P[box * 3 + 1],
    cz = P[box * 3 + 2];
  // sphere centre in the box frame: Rᵀ(s − c)
  const wx = sx - cx,
    wy = sy - cy,
    wz = sz - cz;
  const px = R[r] * wx + R[r + 3] * wy + R[r + 6] * wz;
  const py = R[r + 1] * wx + R[r + 4] * wy + R[r + 7] * wz;
  const pz = R[r + 2] * wx + R[r + 5] * wy + R[r + 8] * wz;
  let qx = px < -hx ? -hx : px > hx ? hx : px;
  let qy = py < -hy ? -hy : py > hy ? hy : py;
  let qz = pz < -hz ? -hz : pz > hz ? hz : pz;
  // local normal from the box towards the sphere centre, and the centre's signed distance to the box
  let lx = px - qx,
    ly = py - qy,
    lz = pz - qz;
  let dc = len3(lx, ly, lz);
  if (dc > 0) {
    lx /= dc;
    ly /= dc;
    lz /= dc;
  } else {
    // centre inside (or on) the box: push out through the nearest face
    const fx = hx - Math.abs(px),
      fy = hy - Math.abs(py),
      fz = hz - Math.abs(pz);
    lx = ly = lz = 0;
    if (fx <= fy && fx <= fz) {
      lx = px < 0 ? -1 : 1;
      qx = lx * hx;
      dc = -fx;
    } else if (fy <= fz) {
      ly = py < 0 ? -1 : 1;
      qy = ly * hy;
      dc = -fy;
    } else {
      lz = pz < 0 ? -1 : 1;
      qz = lz * hz;
      dc = -fz;
    }
  }
  const d = dc - rad;
  if (!inBand(d, margin, gap)) return;
  // world normal from the box into the sphere
  const nx = R[r] * lx + R[r + 1] * ly + R[r + 2] * lz;
  const ny = R[r + 3] * lx + R[r + 4] * ly + R[r + 5] * lz;
  const nz = R[r + 6] * lx + R[r + 7] * ly + R[r + 8] * lz;
  const bx = cx + R[r] * qx + R[r + 1] * qy + R[r + 2] * qz;
  const by = cy + R[r + 3] * qx + R[r + 4] * qy + R[r + 5] * qz;
  const bz = cz + R[r + 6] * qx + R[r + 7] * qy + R[r + 8] * qz;
  addContact(out, -nx, -ny, -nz, sx - rad * nx, sy - rad * ny, sz - rad * nz, bx, by, bz, d, 0);
}
