/** sphere (A) – sphere (B): one point along the line of centres (feature 0) */
import type { ShapeGeom } from '../geometry';
import type { ContactManifold } from '../manifold';
import { sphereSphereContact } from './common';

/** n = (c_B − c_A)/|c_B − c_A| (+z for coincident centres), d = |c_B − c_A| − r_A − r_B */
export function collideSphereSphere(
  g: ShapeGeom,
  a: number,
  b: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): void {
  const p = g.pos,
    s = g.size;
  sphereSphereContact(
    p[a * 3],
    p[a * 3 + 1],
    p[a * 3 + 2],
    s[a * 3],
    p[b * 3],
    p[b * 3 + 1],
    p[b * 3 + 2],
    s[b * 3],
    margin,
    gap,
    0,
    out,
  );
}
