/**
 * Test-only helpers for the primitive narrow-phase tests: two-shape geometries at given poses,
 * manifold views, box-frame transforms and brute-force reference distances.
 */
import { expect } from 'vitest';
import { f64, quatFromAxisAngle, quatMul } from '../../math';
import { ModelBuilder } from '../../model';
import { makeState } from '../../kinematics';
import { makeShapeGeom, updateShapeGeom, type ShapeGeom } from '../geometry';
import { makeManifold, type ContactManifold } from '../manifold';
import { NARROW_PHASE_TABLE } from '../narrowphase';

export type V3 = number[];
export type PrimName = 'sphere' | 'capsule' | 'box';

export const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const add = (a: V3, b: V3): V3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
export const scl = (a: V3, s: number): V3 => [a[0] * s, a[1] * s, a[2] * s];
export const dot = (a: V3, b: V3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const len = (a: V3): number => Math.hypot(a[0], a[1], a[2]);

/** a pose [x, y, z, qx, qy, qz, qw] rotated by `angle` about (ax, ay, az) */
export function pose(x: number, y: number, z: number, ax = 0, ay = 0, az = 1, angle = 0): number[] {
  const q = new Float64Array([0, 0, 0, 1]);
  quatFromAxisAngle(ax, ay, az, angle, q, 0);
  return [x, y, z, ...q];
}

/** a uniformly random-ish unit quaternion from the rng */
export function randomQuat(rng: () => number): number[] {
  const q = new Float64Array([0, 0, 0, 1]);
  quatFromAxisAngle(rng() - 0.5, rng() - 0.5, rng() - 0.5, 7 * rng(), q, 0);
  return Array.from(q);
}

/** the pose G ∘ X (X expressed in the frame G) */
export function compose(G: number[], X: number[]): number[] {
  const q = new Float64Array([0, 0, 0, 1]);
  quatMul(f64(G), 3, f64(X), 3, q, 0);
  const p = rotate(G.slice(3), X.slice(0, 3));
  return [G[0] + p[0], G[1] + p[1], G[2] + p[2], ...q];
}

/** rotates v by the unit quaternion q = [x, y, z, w] */
export function rotate(q: number[], v: V3): V3 {
  const [x, y, z, w] = q;
  // v + 2w (u × v) + 2 u × (u × v), u = (x, y, z)
  const cx = y * v[2] - z * v[1],
    cy = z * v[0] - x * v[2],
    cz = x * v[1] - y * v[0];
  return [
    v[0] + 2 * (w * cx + y * cz - z * cy),
    v[1] + 2 * (w * cy + z * cx - x * cz),
    v[2] + 2 * (w * cz + x * cy - y * cx),
  ];
}

/** two bodies with one shape each (shape i on body i) at the given world poses */
export function pairGeom(
  t0: PrimName,
  s0: number[],
  X0: number[],
  t1: PrimName,
  s1: number[],
  X1: number[],
): ShapeGeom {
  const b = new ModelBuilder();
  b.addShape({ body: b.addBody(), type: t0, size: s0 });
  b.addShape({ body: b.addBody(), type: t1, size: s1 });
  const model = b.finalize();
  const state = makeState(model);
  state.body_q.set(X0, 0);
  state.body_q.set(X1, 7);
  const g = makeShapeGeom(model);
  updateShapeGeom(model, state.body_q, g);
  return g;
}

/** runs the table routine for (a, b) into a fresh manifold */
export function runPair(g: ShapeGeom, a: number, b: number, margin = 0, gap = 1e9): ContactManifold {
  const out = makeManifold();
  const fn = NARROW_PHASE_TABLE[g.type[a]][g.type[b]];
  expect(fn).not.toBeNull();
  fn!(g, a, b, margin, gap, out);
  return out;
}

export function vec(a: Float64Array, i: number): V3 {
  return [a[i * 3], a[i * 3 + 1], a[i * 3 + 2]];
}

/** world point → frame of shape s */
export function toLocal(g: ShapeGeom, s: number, p: V3): V3 {
  const R = g.rot,
    o = s * 9;
  const d = sub(p, vec(g.pos, s));
  return [
    R[o] * d[0] + R[o + 3] * d[1] + R[o + 6] * d[2],
    R[o + 1] * d[0] + R[o + 4] * d[1] + R[o + 7] * d[2],
    R[o + 2] * d[0] + R[o + 5] * d[1] + R[o + 8] * d[2],
  ];
}

/** frame of shape s → world */
export function toWorld(g: ShapeGeom, s: number, p: V3): V3 {
  const R = g.rot,
    o = s * 9;
  return add(vec(g.pos, s), [
    R[o] * p[0] + R[o + 1] * p[1] + R[o + 2] * p[2],
    R[o + 3] * p[0] + R[o + 4] * p[1] + R[o + 5] * p[2],
    R[o + 6] * p[0] + R[o + 7] * p[1] + R[o + 8] * p[2],
  ]);
}

/** local axis k of shape s in the world */
export function axisOf(g: ShapeGeom, s: number, k: number): V3 {
  return [g.rot[s * 9 + k], g.rot[s * 9 + 3 + k], g.rot[s * 9 + 6 + k]];
}

/** signed distance-like surface residual of a world point for box s: max_k(|p_k| − h_k) (0 on the surface) */
export function boxSurfaceResidual(g: ShapeGeom, s: number, p: V3): number {
  const l = toLocal(g, s, p);
  return Math.max(...l.map((x, k) => Math.abs(x) - g.size[s * 3 + k]));
}

/** projection of a world point onto the solid box s */
export function projectBox(g: ShapeGeom, s: number, p: V3): V3 {
  const l = toLocal(g, s, p).map((x, k) => Math.max(-g.size[s * 3 + k], Math.min(g.size[s * 3 + k], x)));
  return toWorld(g, s, l);
}

/** distance from a world point to the solid box s */
export function pointBoxDistance(g: ShapeGeom, s: number, p: V3): number {
  return len(sub(p, projectBox(g, s, p)));
}

/**
 * Reference distance between two solid boxes by alternating projections (converges to a closest
 * pair for disjoint convex sets); returns the distance and the pair.
 */
export function boxBoxReference(g: ShapeGeom, a: number, b: number): { D: number; x: V3; y: V3 } {
  let x = vec(g.pos, a);
  let y = projectBox(g, b, x);
  for (let it = 0; it < 200000; it++) {
    const x2 = projectBox(g, a, y);
    const y2 = projectBox(g, b, x2);
    const moved = len(sub(x2, x)) + len(sub(y2, y));
    x = x2;
    y = y2;
    if (moved < 1e-16 || len(sub(y, x)) < 1e-13) break;
  }
  return { D: len(sub(y, x)), x, y };
}

/** distance from the segment c ± h·u to box s by golden-section search (the distance is convex in t) */
export function segmentBoxReference(
  g: ShapeGeom,
  s: number,
  c: V3,
  u: V3,
  h: number,
): { D: number; t: number } {
  const f = (t: number) => pointBoxDistance(g, s, add(c, scl(u, t)));
  // coarse scan, then refine around the best sample
  const N = 200;
  let bi = 0,
    bf = Infinity;
  for (let i = 0; i <= N; i++) {
    const v = f(-h + (2 * h * i) / N);
    if (v < bf) {
      bf = v;
      bi = i;
    }
  }
  let lo = -h + (2 * h * Math.max(0, bi - 1)) / N,
    hi = -h + (2 * h * Math.min(N, bi + 1)) / N;
  const r = (Math.sqrt(5) - 1) / 2;
  for (let it = 0; it < 200 && hi - lo > 1e-15; it++) {
    const m1 = hi - r * (hi - lo),
      m2 = lo + r * (hi - lo);
    if (f(m1) <= f(m2)) hi = m2;
    else lo = m1;
  }
  const t = 0.5 * (lo + hi);
  return { D: Math.min(f(t), bf), t };
}

/**
 * Reference distance between two disjoint solid boxes as the minimum, over the 12 edges of each box,
 * of the golden-section edge-to-other-box distance (the closest pair of two disjoint boxes always
 * has a point on an edge of one of them). Robust where alternating projections crawl (nearly
 * parallel faces).
 */
export function boxBoxEdgeReference(g: ShapeGeom, a: number, b: number): number {
  let D = Infinity;
  for (const [s, o] of [
    [a, b],
    [b, a],
  ]) {
    for (let i = 0; i < 3; i++) {
      const j = (i + 1) % 3,
        k = (i + 2) % 3;
      for (let e = 0; e < 4; e++) {
        const c = add(
          add(vec(g.pos, s), scl(axisOf(g, s, j), (e & 1 ? 1 : -1) * g.size[s * 3 + j])),
          scl(axisOf(g, s, k), (e & 2 ? 1 : -1) * g.size[s * 3 + k]),
        );
        D = Math.min(D, segmentBoxReference(g, o, c, axisOf(g, s, i), g.size[s * 3 + i]).D);
      }
    }
  }
  return D;
}

export function expectVec(a: V3, b: V3, tol = 1e-12): void {
  for (let k = 0; k < 3; k++) expect(Math.abs(a[k] - b[k])).toBeLessThan(tol);
}

/**
 * Runs (a, b) and (b, a): same count, normals negated, witnesses swapped, equal distances and
 * features; every point has a unit normal, d = nᵀ(p_B − p_A), and features unique. Returns (a, b).
 */
export function checkSwap(g: ShapeGeom, a: number, b: number, margin = 0, gap = 1e9): ContactManifold {
  const m = runPair(g, a, b, margin, gap);
  const s = runPair(g, b, a, margin, gap);
  expect(s.count).toBe(m.count);
  const seen = new Set<number>();
  for (let i = 0; i < m.count; i++) {
    const n = vec(m.normal, i);
    expect(Math.abs(len(n) - 1)).toBeLessThan(1e-12);
    expect(Math.abs(dot(n, sub(vec(m.pointB, i), vec(m.pointA, i))) - m.distance[i])).toBeLessThan(1e-9);
    expect(m.distance[i] - margin).toBeLessThanOrEqual(gap);
    expectVec(vec(s.normal, i), scl(n, -1), 1e-12);
    expectVec(vec(s.pointA, i), vec(m.pointB, i), 1e-12);
    expectVec(vec(s.pointB, i), vec(m.pointA, i), 1e-12);
    expect(Math.abs(s.distance[i] - m.distance[i])).toBeLessThan(1e-12);
    expect(s.feature[i]).toBe(m.feature[i]);
    expect(m.feature[i]).toBeGreaterThanOrEqual(0);
    expect(seen.has(m.feature[i])).toBe(false);
    seen.add(m.feature[i]);
  }
  return m;
}

/** the smallest distance of a manifold and its index */
export function deepest(m: ContactManifold): { d: number; i: number } {
  let i0 = 0;
  for (let i = 1; i < m.count; i++) if (m.distance[i] < m.distance[i0]) i0 = i;
  return { d: m.distance[i0], i: i0 };
}
