import { describe, expect, it } from 'vitest';
import { makeRng } from '../../math';
import type { ShapeGeom } from '../geometry';
import type { ContactManifold } from '../manifold';
import { CAPSULE_BOX_PARALLEL_SIN } from './capsule_box';
import {
  add,
  axisOf,
  boxSurfaceResidual,
  checkSwap,
  compose,
  deepest,
  expectVec,
  len,
  pairGeom,
  pose,
  randomQuat,
  runPair,
  scl,
  segmentBoxReference,
  sub,
  toLocal,
  vec,
  type V3,
} from './narrow_fixtures';

const TOL = 1e-9;

/** capsule (radius r, half height h) as shape 0, box as shape 1 */
function capBox(r: number, h: number, Xc: number[], hb: number[], Xb: number[]): ShapeGeom {
  return pairGeom('capsule', [r, h], Xc, 'box', hb, Xb);
}

function pointSegment(p: V3, c: V3, u: V3, h: number): number {
  const t = Math.max(-h, Math.min(h, (p[0] - c[0]) * u[0] + (p[1] - c[1]) * u[1] + (p[2] - c[2]) * u[2]));
  return len(sub(p, add(c, scl(u, t))));
}

/** witness A on the capsule's surface, B on the box's */
function expectOnSurfaces(g: ShapeGeom, m: ContactManifold, tol: number): void {
  const c = vec(g.pos, 0),
    u = axisOf(g, 0, 2),
    r = g.size[0],
    h = g.size[1];
  for (let i = 0; i < m.count; i++) {
    expect(Math.abs(pointSegment(vec(m.pointA, i), c, u, h) - r)).toBeLessThan(tol);
    expect(Math.abs(boxSurfaceResidual(g, 1, vec(m.pointB, i)))).toBeLessThan(tol);
  }
}

/** a capsule lying along local x (its z axis turned onto x) */
const lying = (x: number, y: number, z: number, yaw = 0): number[] =>
  compose(pose(x, y, z, 0, 0, 1, yaw), pose(0, 0, 0, 0, 1, 0, Math.PI / 2));

describe('capsule–box', () => {
  it('a capsule lying on a box gets 2 points, at the segment ends', () => {
    const rng = makeRng(3);
    for (let trial = 0; trial < 100; trial++) {
      const r = 0.02 + 0.05 * rng(),
        h = 0.05 + 0.1 * rng();
      const pen = 0.004 * (rng() - 0.3);
      const G = trial % 2 ? [rng(), rng(), rng(), ...randomQuat(rng)] : [0, 0, 0, 0, 0, 0, 1];
      const hb = [0.4, 0.4, 0.1];
      const Xc = compose(G, lying(0.1 * (rng() - 0.5), 0.1 * (rng() - 0.5), 0.1 + r - pen, 7 * rng()));
      const g = capBox(r, h, Xc, hb, compose(G, pose(0, 0, 0, 0, 0, 1, 7 * rng())));
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBe(2);
      const up = axisOf(g, 1, 2);
      const ends = [
        add(vec(g.pos, 0), scl(axisOf(g, 0, 2), -h)),
        add(vec(g.pos, 0), scl(axisOf(g, 0, 2), h)),
      ];
      for (let i = 0; i < 2; i++) {
        expect(Math.abs(m.distance[i] + pen)).toBeLessThan(TOL);
        expectVec(
          vec(m.normal, i),
          up.map((x) => -x),
          1e-12,
        );
        // feature i sits at segment end i, its capsule witness straight below it
        expect(m.feature[i]).toBe(i);
        expectVec(vec(m.pointA, i), add(ends[i], scl(up, -r)), TOL);
      }
      expectOnSurfaces(g, m, TOL);
    }
  });

  it('a capsule longer than the box: 2 points at the ends of the overlap with the face', () => {
    const r = 0.05,
      h = 1;
    const g = capBox(r, h, lying(0.3, 0, 0.1 + r - 0.001), [0.2, 0.2, 0.1], pose(0, 0, 0));
    const m = checkSwap(g, 0, 1);
    expect(m.count).toBe(2);
    // overlap of the segment x ∈ [−0.7, 1.3] with the face x ∈ [−0.2, 0.2]
    expectVec(vec(m.pointB, 0), [-0.2, 0, 0.1], TOL);
    expectVec(vec(m.pointB, 1), [0.2, 0, 0.1], TOL);
    for (let i = 0; i < 2; i++) expect(Math.abs(m.distance[i] + 0.001)).toBeLessThan(TOL);
  });

  it('end-on and tilted capsules get 1 point', () => {
    const r = 0.05,
      h = 0.2;
    // upright on the face
    const g = capBox(r, h, pose(0.05, 0.02, 0.1 + h + r - 0.002), [0.3, 0.3, 0.1], pose(0, 0, 0));
    const m = checkSwap(g, 0, 1);
    expect(m.count).toBe(1);
    expect(Math.abs(m.distance[0] + 0.002)).toBeLessThan(TOL);
    expectVec(vec(m.pointB, 0), [0.05, 0.02, 0.1], TOL);
    expectVec(vec(m.normal, 0), [0, 0, -1], 1e-15);
    expect(m.feature[0]).toBe(0); // the lower (−h) end
    // tilted well past the parallel tolerance: one point, at the lower end
    const tilt = 4 * CAPSULE_BOX_PARALLEL_SIN;
    const Xt = compose(pose(0, 0, 0.3, 0, 1, 0, tilt), pose(0, 0, 0, 0, 1, 0, Math.PI / 2));
    const t = checkSwap(capBox(r, h, Xt, [0.3, 0.3, 0.1], pose(0, 0, 0)), 0, 1);
    expect(t.count).toBe(1);
    // slightly tilted: two points, each with its own gap
    const Xs = compose(pose(0, 0, 0.1 + r + 0.001, 0, 1, 0, -0.01), pose(0, 0, 0, 0, 1, 0, Math.PI / 2));
    const gs = capBox(r, h, Xs, [0.3, 0.3, 0.1], pose(0, 0, 0));
    const s = checkSwap(gs, 0, 1);
    expect(s.count).toBe(2);
    // the low end touches with its cap (gap − r); the high end with the cylinder (gap − r cos θ)
    const zc = 0.1 + r + 0.001;
    expect(Math.abs(s.distance[0] - (zc - h * Math.sin(0.01) - 0.1 - r))).toBeLessThan(TOL);
    expect(Math.abs(s.distance[1] - (zc + h * Math.sin(0.01) - 0.1 - r * Math.cos(0.01)))).toBeLessThan(TOL);
    expectOnSurfaces(gs, s, TOL);
    expect(runPair(gs, 0, 1, 0, 0.002).count).toBe(1); // the far end is outside a 2 mm band
  });

  it('separated: the distance equals the brute-force segment–box distance minus the radius', () => {
    const rng = makeRng(17);
    let n = 0;
    for (let trial = 0; trial < 400; trial++) {
      const r = 0.02 + 0.1 * rng(),
        h = 0.4 * rng();
      const hb = [0.05 + 0.3 * rng(), 0.05 + 0.3 * rng(), 0.05 + 0.3 * rng()];
      const g = capBox(
        r,
        h,
        [1.4 * (rng() - 0.5), 1.4 * (rng() - 0.5), 1.4 * (rng() - 0.5), ...randomQuat(rng)],
        hb,
        [0, 0, 0, ...randomQuat(rng)],
      );
      const ref = segmentBoxReference(g, 1, vec(g.pos, 0), axisOf(g, 0, 2), h);
      if (ref.D < 1e-3) continue;
      n++;
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBeGreaterThan(0);
      const { d, i } = deepest(m);
      expect(Math.abs(d - (ref.D - r))).toBeLessThan(1e-7);
      for (let k = 0; k < m.count; k++) expect(m.distance[k]).toBeGreaterThan(ref.D - r - 1e-9);
      expect(Math.abs(len(sub(vec(m.pointB, i), vec(m.pointA, i))) - Math.abs(d))).toBeLessThan(1e-9);
      expectOnSurfaces(g, m, 1e-9);
    }
    expect(n).toBeGreaterThan(200);
  });

  it('penetrating random pairs: witnesses on the surfaces, a penetrating deepest point', () => {
    const rng = makeRng(23);
    let n = 0;
    for (let trial = 0; trial < 400; trial++) {
      const r = 0.02 + 0.1 * rng(),
        h = 0.4 * rng();
      const hb = [0.05 + 0.3 * rng(), 0.05 + 0.3 * rng(), 0.05 + 0.3 * rng()];
      const g = capBox(
        r,
        h,
        [0.5 * (rng() - 0.5), 0.5 * (rng() - 0.5), 0.5 * (rng() - 0.5), ...randomQuat(rng)],
        hb,
        [0, 0, 0, ...randomQuat(rng)],
      );
      const ref = segmentBoxReference(g, 1, vec(g.pos, 0), axisOf(g, 0, 2), h);
      if (ref.D - r > -1e-6) continue;
      n++;
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBeGreaterThan(0);
      expect(m.count).toBeLessThanOrEqual(2);
      expect(deepest(m).d).toBeLessThan(0);
      if (ref.D > 1e-6) expect(Math.abs(deepest(m).d - (ref.D - r))).toBeLessThan(1e-7); // axis outside the box
      expectOnSurfaces(g, m, 1e-9);
    }
    expect(n).toBeGreaterThan(100);
  });

  it('the gap band, both sides of the threshold (lying: 2 points; end-on: 1)', () => {
    const margin = 0.004,
      gap = 0.006,
      r = 0.05,
      h = 0.2;
    for (const eps of [-1e-9, 1e-9]) {
      const lim = margin + gap + eps;
      const lie = capBox(r, h, lying(0, 0, 0.1 + r + lim, 0.4), [0.3, 0.3, 0.1], pose(0, 0, 0));
      const ml = runPair(lie, 0, 1, margin, gap);
      expect(ml.count).toBe(eps < 0 ? 2 : 0);
      const up = capBox(r, h, pose(0.1, 0, 0.1 + h + r + lim), [0.3, 0.3, 0.1], pose(0, 0, 0));
      const mu = runPair(up, 0, 1, margin, gap);
      expect(mu.count).toBe(eps < 0 ? 1 : 0);
      // over a box edge (edge region, exact distance)
      const ed = capBox(
        r,
        h,
        lying(0, 0.3 + (r + lim) / Math.SQRT2, 0.1 + (r + lim) / Math.SQRT2),
        [0.3, 0.3, 0.1],
        pose(0, 0, 0),
      );
      const me = runPair(ed, 0, 1, margin, gap);
      expect(me.count).toBe(eps < 0 ? 1 : 0);
      if (me.count) expect(Math.abs(me.distance[0] - lim)).toBeLessThan(1e-12);
    }
  });

  it('through both table orders the box–capsule entry mirrors capsule–box', () => {
    const g = pairGeom('box', [0.3, 0.2, 0.1], pose(0, 0, 0), 'capsule', [0.05, 0.2], lying(0, 0, 0.149));
    const m = checkSwap(g, 0, 1);
    expect(m.count).toBe(2);
    for (let i = 0; i < 2; i++) {
      expectVec(vec(m.normal, i), [0, 0, 1], 1e-15); // from the box (shape 0) into the capsule
      expect(Math.abs(m.distance[i] + 0.001)).toBeLessThan(TOL);
      expect(toLocal(g, 0, vec(m.pointA, i))[2]).toBeCloseTo(0.1, 12);
    }
  });
});
