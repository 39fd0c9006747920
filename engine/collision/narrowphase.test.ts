import { describe, expect, it } from 'vitest';
import { makeRng, quatFromAxisAngle, transformPointInv } from '../math';
import { ModelBuilder, ShapeType, type SapModel } from '../model';
import { makeState } from '../kinematics';
import { makeShapeGeom, updateShapeGeom, type ShapeGeom } from './geometry';
import { makeManifold, type ContactManifold } from './manifold';
import { NARROW_PHASE_TABLE } from './narrowphase';
import { collideOnce } from './pipeline';
import { posedState } from './test_fixtures';

const TOL = 1e-9;
const BIG = 1e9; // a gap wide enough that every pair emits

/** two bodies with one shape each (shape i on body i), identity poses */
function pairModel(
  t0: 'sphere' | 'capsule' | 'box',
  s0: number[],
  t1: 'sphere' | 'capsule' | 'box',
  s1: number[],
): SapModel {
  const b = new ModelBuilder();
  const a = b.addBody();
  b.addShape({ body: a, type: t0, size: s0 });
  const c = b.addBody();
  b.addShape({ body: c, type: t1, size: s1 });
  return b.finalize();
}

/** random poses for both bodies, then the world geometry */
function randomGeom(model: SapModel, rng: () => number, spread: number): { g: ShapeGeom; q: Float64Array } {
  const state = makeState(model);
  for (let k = 0; k < 2; k++) {
    const o = k * 7;
    state.body_q[o] = spread * (rng() - 0.5);
    state.body_q[o + 1] = spread * (rng() - 0.5);
    state.body_q[o + 2] = spread * (rng() - 0.5);
    quatFromAxisAngle(rng() - 0.5, rng() - 0.5, rng() - 0.5, 7 * rng(), state.body_q, o + 3);
  }
  const g = makeShapeGeom(model);
  updateShapeGeom(model, state.body_q, g);
  return { g, q: state.body_q };
}

function run(g: ShapeGeom, a: number, b: number, gap = BIG): ContactManifold {
  const out = makeManifold();
  const fn = NARROW_PHASE_TABLE[g.type[a]][g.type[b]];
  expect(fn).not.toBeNull();
  fn!(g, a, b, 0, gap, out);
  return out;
}

function vec(a: Float64Array, i: number): number[] {
  return [a[i * 3], a[i * 3 + 1], a[i * 3 + 2]];
}
const sub = (a: number[], b: number[]) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const len = (a: number[]) => Math.hypot(a[0], a[1], a[2]);

/** distance from point p to the segment c ± h·u */
function pointSegment(p: number[], c: number[], u: number[], h: number): number {
  const t = Math.max(-h, Math.min(h, dot(sub(p, c), u)));
  return len(sub(p, [c[0] + t * u[0], c[1] + t * u[1], c[2] + t * u[2]]));
}
function axis(g: ShapeGeom, s: number): number[] {
  return [g.rot[s * 9 + 2], g.rot[s * 9 + 5], g.rot[s * 9 + 8]];
}
function centre(g: ShapeGeom, s: number): number[] {
  return vec(g.pos, s);
}

function expectVec(a: number[], b: number[], tol = 1e-12): void {
  for (let k = 0; k < 3; k++) expect(Math.abs(a[k] - b[k])).toBeLessThan(tol);
}

/** common manifold checks plus swap consistency: (b, a) flips normals and swaps witnesses */
function checkSwap(g: ShapeGeom, a: number, b: number): ContactManifold {
  const m = run(g, a, b);
  const s = run(g, b, a);
  expect(s.count).toBe(m.count);
  for (let i = 0; i < m.count; i++) {
    const n = vec(m.normal, i);
    expect(len(n)).toBeCloseTo(1, 12);
    expect(Math.abs(dot(n, sub(vec(m.pointB, i), vec(m.pointA, i))) - m.distance[i])).toBeLessThan(TOL);
    expectVec(
      vec(s.normal, i),
      n.map((x) => -x),
    );
    expectVec(vec(s.pointA, i), vec(m.pointB, i));
    expectVec(vec(s.pointB, i), vec(m.pointA, i));
    expect(Math.abs(s.distance[i] - m.distance[i])).toBeLessThan(1e-12);
    expect(s.feature[i]).toBe(m.feature[i]);
  }
  return m;
}

describe('sphere–sphere', () => {
  it('random property: distance, normal, witnesses, swap', () => {
    const rng = makeRng(1234);
    for (let trial = 0; trial < 300; trial++) {
      const r0 = 0.05 + rng(),
        r1 = 0.05 + rng();
      const model = pairModel('sphere', [r0], 'sphere', [r1]);
      const { g } = randomGeom(model, rng, 4);
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBe(1);
      const c0 = centre(g, 0),
        c1 = centre(g, 1);
      const dist = len(sub(c1, c0));
      expect(Math.abs(m.distance[0] - (dist - r0 - r1))).toBeLessThan(TOL);
      const n = vec(m.normal, 0);
      const expectedN = sub(c1, c0).map((x) => x / dist);
      for (let k = 0; k < 3; k++) expect(Math.abs(n[k] - expectedN[k])).toBeLessThan(TOL);
      expect(Math.abs(len(sub(vec(m.pointA, 0), c0)) - r0)).toBeLessThan(TOL);
      expect(Math.abs(len(sub(vec(m.pointB, 0), c1)) - r1)).toBeLessThan(TOL);
    }
  });

  it('through the pipeline the lower shape index is shape 0; swapping authoring order flips the normal', () => {
    const build = (first: number) => {
      const b = new ModelBuilder();
      const pos = [
        [0, 0, 1],
        [0.15, 0.02, 1.01],
      ];
      for (const k of [first, 1 - first]) {
        const body = b.addBody({ X_wb: [...pos[k], 0, 0, 0, 1] });
        b.addShape({ body, type: 'sphere', size: [0.1] });
      }
      const model = b.finalize();
      const state = posedState(model);
      return { c: collideOnce(model, state), state };
    };
    const A = build(0).c,
      B = build(1).c;
    expect(A.count[0]).toBe(1);
    expect(B.count[0]).toBe(1);
    expect([A.shape0[0], A.shape1[0]]).toEqual([0, 1]);
    for (let k = 0; k < 3; k++) {
      expect(B.normal[k]).toBeCloseTo(-A.normal[k], 14);
      expect(B.point0[k]).toBeCloseTo(A.point1[k], 14);
      expect(B.point1[k]).toBeCloseTo(A.point0[k], 14);
    }
    expect(B.phi0[0]).toBeCloseTo(A.phi0[0], 14);
  });
});

describe('sphere–capsule', () => {
  it('random property against the point–segment distance', () => {
    const rng = makeRng(99);
    for (let trial = 0; trial < 300; trial++) {
      const rs = 0.05 + 0.3 * rng(),
        rc = 0.05 + 0.3 * rng(),
        h = 0.6 * rng();
      const model = pairModel('sphere', [rs], 'capsule', [rc, h]);
      const { g } = randomGeom(model, rng, 2);
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBe(1);
      const ref = pointSegment(centre(g, 0), centre(g, 1), axis(g, 1), h) - rs - rc;
      expect(Math.abs(m.distance[0] - ref)).toBeLessThan(TOL);
      expect(Math.abs(len(sub(vec(m.pointA, 0), centre(g, 0))) - rs)).toBeLessThan(TOL);
      expect(Math.abs(pointSegment(vec(m.pointB, 0), centre(g, 1), axis(g, 1), h) - rc)).toBeLessThan(TOL);
    }
  });
});

describe('capsule–capsule', () => {
  it('random property against a dense segment–segment search', () => {
    const rng = makeRng(5);
    for (let trial = 0; trial < 150; trial++) {
      const r0 = 0.05 + 0.2 * rng(),
        h0 = 0.5 * rng(),
        r1 = 0.05 + 0.2 * rng(),
        h1 = 0.5 * rng();
      const model = pairModel('capsule', [r0, h0], 'capsule', [r1, h1]);
      const { g } = randomGeom(model, rng, 1.5);
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBe(1);
      const c0 = centre(g, 0),
        u0 = axis(g, 0),
        c1 = centre(g, 1),
        u1 = axis(g, 1);
      let best = Infinity;
      const N = 4000;
      for (let i = 0; i <= N; i++) {
        const s = -h0 + (2 * h0 * i) / N;
        best = Math.min(
          best,
          pointSegment([c0[0] + s * u0[0], c0[1] + s * u0[1], c0[2] + s * u0[2]], c1, u1, h1),
        );
      }
      const ref = best - r0 - r1;
      expect(m.distance[0]).toBeLessThanOrEqual(ref + TOL);
      expect(ref - m.distance[0]).toBeLessThan(1e-4);
      expect(Math.abs(pointSegment(vec(m.pointA, 0), c0, u0, h0) - r0)).toBeLessThan(TOL);
      expect(Math.abs(pointSegment(vec(m.pointB, 0), c1, u1, h1) - r1)).toBeLessThan(TOL);
    }
  });

  it('parallel overlapping capsules give 2 points at the overlap ends; end-to-end gives 1', () => {
    const model = pairModel('capsule', [0.1, 0.5], 'capsule', [0.1, 0.3]);
    const q = makeState(model).body_q;
    q.set([0, 0, 0, 0, 0, 0, 1], 0);
    q.set([0.15, 0, 0.4, 0, 0, 0, 1], 7); // B spans z ∈ [0.1, 0.7]; overlap with A's [−0.5, 0.5] is [0.1, 0.5]
    const g = makeShapeGeom(model);
    updateShapeGeom(model, q, g);
    const m = checkSwap(g, 0, 1);
    expect(m.count).toBe(2);
    expect(vec(m.pointA, 0)[2]).toBeCloseTo(0.1, 12);
    expect(vec(m.pointA, 1)[2]).toBeCloseTo(0.5, 12);
    for (let i = 0; i < 2; i++) {
      expect(m.distance[i]).toBeCloseTo(0.15 - 0.2, 12);
      expectVec(vec(m.normal, i), [1, 0, 0]);
    }
    q.set([0, 0, 1.2, 0, 0, 0, 1], 7); // B spans [0.9, 1.5]: end to end
    updateShapeGeom(model, q, g);
    const e = checkSwap(g, 0, 1);
    expect(e.count).toBe(1);
    expect(e.distance[0]).toBeCloseTo(0.4 - 0.2, 12);
  });
});

describe('sphere–box', () => {
  it('random property against the box distance (outside and inside)', () => {
    const rng = makeRng(77);
    let inside = 0;
    for (let trial = 0; trial < 400; trial++) {
      const r = 0.02 + 0.2 * rng();
      const h = [0.05 + 0.3 * rng(), 0.05 + 0.3 * rng(), 0.05 + 0.3 * rng()];
      const model = pairModel('sphere', [r], 'box', h);
      const { g, q } = randomGeom(model, rng, 1.2);
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBe(1);
      // sphere centre in the box frame (box body pose = shape pose here)
      const pf = new Float64Array(3);
      transformPointInv(q, 7, g.pos, 0, pf, 0);
      const p = Array.from(pf);
      const cl = p.map((x, k) => Math.max(-h[k], Math.min(h[k], x)));
      const out = len(sub(p, cl));
      const ref = out > 0 ? out - r : -Math.min(...p.map((x, k) => h[k] - Math.abs(x))) - r;
      if (out === 0) inside++;
      expect(Math.abs(m.distance[0] - ref)).toBeLessThan(TOL);
      expect(Math.abs(len(sub(vec(m.pointA, 0), centre(g, 0))) - r)).toBeLessThan(TOL);
      const pb = new Float64Array(3);
      transformPointInv(q, 7, m.pointB, 0, pb, 0);
      const onSurface = Math.max(...pb.map((x, k) => Math.abs(x) / h[k]));
      expect(Math.abs(onSurface - 1)).toBeLessThan(TOL);
    }
    expect(inside).toBeGreaterThan(5);
  });
});

describe('plane routines through the swapped table entries', () => {
  it('box–plane and capsule–plane mirror plane–box and plane–capsule', () => {
    const b = new ModelBuilder();
    b.addShape({ body: -1, type: 'plane', size: [0, 0, 0], X_bs: [0, 0, 0.1, 0.1, 0.05, 0, 0.99] });
    const bx = b.addBody({ X_wb: [0, 0, 0.1, 0.02, 0.03, 0, 1] });
    b.addShape({ body: bx, type: 'box', size: [0.2, 0.1, 0.05] });
    const cp = b.addBody({ X_wb: [0, 1, 0.1, 0.7, 0, 0, 0.7] });
    b.addShape({ body: cp, type: 'capsule', size: [0.05, 0.2] });
    const model = b.finalize();
    const g = makeShapeGeom(model);
    updateShapeGeom(model, posedState(model).body_q, g);
    expect(g.type[0]).toBe(ShapeType.PLANE);
    expect(checkSwap(g, 0, 1).count).toBe(4);
    // the capsule is tilted ~0.2 rad against the plane: only its lower end (2 points need |nᵀu| ≤ 0.05)
    expect(checkSwap(g, 0, 2).count).toBe(1);
    const m = run(g, 0, 1, 0.0);
    for (let i = 0; i < m.count; i++) expect(m.distance[i]).toBeLessThanOrEqual(0);
  });
});
