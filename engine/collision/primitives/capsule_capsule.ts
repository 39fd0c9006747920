/**
 * capsule (A) – capsule (B): closest points of the two segments, each treated as a sphere of its
 * capsule's radius. Skew segments give one point (feature 0). Nearly parallel segments
 * (sin²θ < {@link PARALLEL_SIN2}) whose projections overlap give two points, at the two ends of the
 * overlap interval along A (features 0 and 1), so a capsule lying along another is supported stably.
 */
import type { ShapeGeom } from '../geometry';
import type { ContactManifold } from '../manifold';
import { sphereSphereContact } from './common';

/** squared sine of the angle below which two segments count as parallel */
export const PARALLEL_SIN2 = 1e-6;

function clamp(x: number, h: number): number {
  return x < -h ? -h : x > h ? h : x;
}

export function collideCapsuleCapsule(
  g: ShapeGeom,
  a: number,
  b: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const p = g.pos,
    R = g.rot;
  const ax = p[a * 3],
    ay = p[a * 3 + 1],
    az = p[a * 3 + 2];
  const bx = p[b * 3],
    by = p[b * 3 + 1],
    bz = p[b * 3 + 2];
  const uax = R[a * 9 + 2],
    uay = R[a * 9 + 5],
    uaz = R[a * 9 + 8];
  const ubx = R[b * 9 + 2],
    uby = R[b * 9 + 5],
    ubz = R[b * 9 + 8];
  const ra = g.size[a * 3],
    ha = g.size[a * 3 + 1];
  const rb = g.size[b * 3],
    hb = g.size[b * 3 + 1];
  // points A(s) = c_A + s u_A, B(t) = c_B + t u_B; minimise |r + s u_A − t u_B|², r = c_A − c_B
  const rx = ax - bx,
    ry = ay - by,
    rz = az - bz;
  const bb = uax * ubx + uay * uby + uaz * ubz;
  const c = uax * rx + uay * ry + uaz * rz;
  const f = ubx * rx + uby * ry + ubz * rz;
  const denom = 1 - bb * bb;
  if (denom < PARALLEL_SIN2) {
    // overlap of B's projection onto A's parameter range
    const s0 = -c - hb * bb,
      s1 = -c + hb * bb;
    const lo = Math.max(-ha, Math.min(s0, s1)),
      hi = Math.min(ha, Math.max(s0, s1));
    if (hi - lo > 1e-9 * (1 + ha + hb)) {
      for (let k = 0; k < 2; k++) {
        const s = k === 0 ? lo : hi;
        const t = clamp(f + s * bb, hb);
        sphereSphereContact(
          ax + s * uax,
          ay + s * uay,
          az + s * uaz,
          ra,
          bx + t * ubx,
          by + t * uby,
          bz + t * ubz,
          rb,
          margin,
          gap,
          k,
          out,
        );
      }
      return;
    }
  }
  let s = denom < PARALLEL_SIN2 ? 0 : clamp((bb * f - c) / denom, ha);
  const t = clamp(bb * s + f, hb);
  s = clamp(bb * t - c, ha);
  sphereSphereContact(
    ax + s * uax,
    ay + s * uay,
    az + s * uaz,
    ra,
    bx + t * ubx,
    by + t * uby,
    bz + t * ubz,
    rb,
    margin,
    gap,
    0,
    out,
  );
}
