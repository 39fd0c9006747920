import { describe, expect, it } from 'vitest';
import { makeRng } from '../../math';
import { ModelBuilder } from '../../model';
import { SapCollisionPipeline } from '../pipeline';
import { posedState, worldWitnesses } from '../test_fixtures';
import type { ShapeGeom } from '../geometry';
import type { ContactManifold } from '../manifold';
import {
  BOX_BOX_AXIS_REL_TOL,
  BOX_BOX_CLOSEST_FEATURE,
  BOX_BOX_EDGE_FEATURE,
  BOX_BOX_EDGE_REL_TOL,
  BOX_BOX_MAX_FACE_POINTS,
  BOX_BOX_MAX_POINTS,
} from './box_box';
import {
  axisOf,
  boxBoxEdgeReference,
  boxBoxReference,
  boxSurfaceResidual,
  checkSwap,
  compose,
  deepest,
  dot,
  expectVec,
  len,
  pairGeom,
  pose,
  randomQuat,
  runPair,
  sub,
  toLocal,
  toWorld,
  vec,
  type V3,
} from './narrow_fixtures';

const TOL = 1e-9;

function boxes(h0: number[], X0: number[], h1: number[], X1: number[]): ShapeGeom {
  return pairGeom('box', h0, X0, 'box', h1, X1);
}

/** witness A on box 0's surface, B on box 1's */
function expectOnSurfaces(g: ShapeGeom, m: ContactManifold, tol: number): void {
  for (let i = 0; i < m.count; i++) {
    expect(Math.abs(boxSurfaceResidual(g, 0, vec(m.pointA, i)))).toBeLessThan(tol);
    expect(Math.abs(boxSurfaceResidual(g, 1, vec(m.pointB, i)))).toBeLessThan(tol);
  }
}

/** the multiset of points `pts` equals `want` (each matched within tol) */
function expectSamePoints(pts: V3[], want: V3[], tol: number): void {
  expect(pts.length).toBe(want.length);
  const used = new Array<boolean>(want.length).fill(false);
  for (const p of pts) {
    const j = want.findIndex((w, k) => !used[k] && len(sub(p, w)) < tol);
    expect(j).toBeGreaterThanOrEqual(0);
    used[j] = true;
  }
}

/** the 4 corners of box s's face with local outward normal sgn·e_k, world frame */
function faceCorners(g: ShapeGeom, s: number, k: number, sgn: number): V3[] {
  const h = [g.size[s * 3], g.size[s * 3 + 1], g.size[s * 3 + 2]];
  const out: V3[] = [];
  for (const a of [-1, 1]) {
    for (const b of [-1, 1]) {
      const l = [0, 0, 0];
      l[k] = sgn * h[k];
      l[(k + 1) % 3] = a * h[(k + 1) % 3];
      l[(k + 2) % 3] = b * h[(k + 2) % 3];
      const R = g.rot,
        o = s * 9;
      out.push([
        g.pos[s * 3] + R[o] * l[0] + R[o + 1] * l[1] + R[o + 2] * l[2],
        g.pos[s * 3 + 1] + R[o + 3] * l[0] + R[o + 4] * l[1] + R[o + 5] * l[2],
        g.pos[s * 3 + 2] + R[o + 6] * l[0] + R[o + 7] * l[1] + R[o + 8] * l[2],
      ]);
    }
  }
  return out;
}

describe('box–box: resting manifolds', () => {
  it('box flat on box: 4 points, depth and witnesses on both surfaces', () => {
    const hA = [0.5, 0.4, 0.1],
      hB = [0.2, 0.15, 0.05];
    for (const pen of [0.001, 0, -0.003]) {
      // B above A; A (shape 0) below: normal +z
      const g = boxes(hA, pose(0.1, -0.2, 0.3), hB, pose(0.15, -0.1, 0.3 + 0.1 + 0.05 - pen));
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBe(4);
      for (let i = 0; i < 4; i++) {
        expectVec(vec(m.normal, i), [0, 0, 1], 1e-15);
        expect(Math.abs(m.distance[i] + pen)).toBeLessThan(TOL);
        expect(Math.abs(vec(m.pointA, i)[2] - 0.4)).toBeLessThan(TOL); // A's top face
        expect(Math.abs(vec(m.pointB, i)[2] - (0.4 - pen))).toBeLessThan(TOL); // B's bottom face
      }
      expectOnSurfaces(g, m, TOL);
      expectSamePoints(
        Array.from({ length: 4 }, (_, i) => vec(m.pointB, i)),
        faceCorners(g, 1, 2, -1),
        TOL,
      );
    }
  });

  it('rotated about z by random angles: still 4 points', () => {
    const rng = makeRng(2024);
    for (let trial = 0; trial < 200; trial++) {
      const hA = [0.1 + 0.3 * rng(), 0.1 + 0.3 * rng(), 0.05 + 0.1 * rng()];
      const hB = [0.1 + 0.3 * rng(), 0.1 + 0.3 * rng(), 0.05 + 0.1 * rng()];
      const pen = 0.004 * (rng() - 0.3);
      const dx = 0.05 * (rng() - 0.5),
        dy = 0.05 * (rng() - 0.5);
      const zb = hA[2] + hB[2] - pen;
      const local0 = pose(0, 0, 0, 0, 0, 1, 7 * rng());
      const local1 = pose(dx, dy, zb, 0, 0, 1, 7 * rng());
      // the stack itself in a random world pose half of the time
      const G = trial % 2 ? [rng(), rng(), rng(), ...randomQuat(rng)] : [0, 0, 0, 0, 0, 0, 1];
      const lowerFirst = trial % 4 < 2;
      const g = lowerFirst
        ? boxes(hA, compose(G, local0), hB, compose(G, local1))
        : boxes(hB, compose(G, local1), hA, compose(G, local0));
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBe(4);
      const up = axisOf(g, lowerFirst ? 0 : 1, 2);
      for (let i = 0; i < 4; i++) {
        expect(Math.abs(m.distance[i] + pen)).toBeLessThan(TOL);
        expectVec(vec(m.normal, i), lowerFirst ? up : up.map((x) => -x), 1e-9);
      }
      expectOnSurfaces(g, m, TOL);
    }
  });

  it('small box on a big box: exactly the small box’s 4 bottom corners, either order', () => {
    const rng = makeRng(31);
    for (let trial = 0; trial < 100; trial++) {
      const big = [0.5 + rng(), 0.5 + rng(), 0.2];
      const small = [0.05 + 0.1 * rng(), 0.05 + 0.1 * rng(), 0.05 + 0.1 * rng()];
      const pen = 0.003 * (rng() - 0.5);
      const G = [rng(), rng(), rng(), ...randomQuat(rng)];
      const Xbig = compose(G, pose(0, 0, 0, 0, 0, 1, 7 * rng()));
      const Xsmall = compose(
        G,
        pose(0.2 * (rng() - 0.5), 0.2 * (rng() - 0.5), 0.2 + small[2] - pen, 0, 0, 1, 7 * rng()),
      );
      const smallFirst = trial % 2 === 0;
      const g = smallFirst ? boxes(small, Xsmall, big, Xbig) : boxes(big, Xbig, small, Xsmall);
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBe(4);
      const s = smallFirst ? 0 : 1;
      const onSmall = Array.from({ length: 4 }, (_, i) => vec(smallFirst ? m.pointA : m.pointB, i));
      expectSamePoints(onSmall, faceCorners(g, s, 2, -1), TOL);
      for (let i = 0; i < 4; i++) expect(Math.abs(m.distance[i] + pen)).toBeLessThan(TOL);
      expectOnSurfaces(g, m, TOL);
    }
  });

  it('two equal boxes aligned exactly: 4 points at the face corners', () => {
    const h = [0.2, 0.1, 0.05];
    const rng = makeRng(8);
    for (let trial = 0; trial < 50; trial++) {
      const G = trial === 0 ? [0, 0, 0, 0, 0, 0, 1] : [rng(), rng(), rng(), ...randomQuat(rng)];
      const g = boxes(h, compose(G, pose(0, 0, 0)), h, compose(G, pose(0, 0, 0.1 - 0.001)));
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBe(4);
      expectSamePoints(
        Array.from({ length: 4 }, (_, i) => vec(m.pointA, i)),
        faceCorners(g, 0, 2, 1),
        1e-9,
      );
      for (let i = 0; i < 4; i++) expect(Math.abs(m.distance[i] + 0.001)).toBeLessThan(TOL);
    }
  });

  it('a box rotated 45° on an equal box: the octagon is reduced to 4 points spanning it', () => {
    const h = [0.2, 0.2, 0.05];
    const g = boxes(h, pose(0, 0, 0), h, pose(0, 0, 0.1, 0, 0, 1, Math.PI / 4));
    const m = checkSwap(g, 0, 1);
    expect(m.count).toBe(BOX_BOX_MAX_FACE_POINTS);
    // spread: the best 4 of the octagon's vertices (alternate ones, radius ≈ 0.2165) span 2r² ≈ 0.0937
    const p = Array.from({ length: 4 }, (_, i) => vec(m.pointA, i));
    const c = p.reduce((s, x) => [s[0] + x[0] / 4, s[1] + x[1] / 4, 0], [0, 0, 0]);
    p.sort((u, v) => Math.atan2(u[1] - c[1], u[0] - c[0]) - Math.atan2(v[1] - c[1], v[0] - c[0]));
    let area = 0;
    for (let i = 0; i < 4; i++) area += p[i][0] * p[(i + 1) % 4][1] - p[(i + 1) % 4][0] * p[i][1];
    expect(Math.abs(area) / 2).toBeGreaterThan(0.09);
  });
});

describe('box–box: penetration', () => {
  it('axis-aligned overlapping boxes: depth = the minimum overlap along the face axes', () => {
    const rng = makeRng(404);
    for (let trial = 0; trial < 300; trial++) {
      const hA = [0.05 + 0.3 * rng(), 0.05 + 0.3 * rng(), 0.05 + 0.3 * rng()];
      const hB = [0.05 + 0.3 * rng(), 0.05 + 0.3 * rng(), 0.05 + 0.3 * rng()];
      // offsets with a positive overlap on every axis
      const off = [0, 1, 2].map((k) => (rng() - 0.5) * 2 * (hA[k] + hB[k]) * 0.98);
      const overlap = off.map((o, k) => hA[k] + hB[k] - Math.abs(o));
      const kMin = overlap.indexOf(Math.min(...overlap));
      const G = trial % 2 ? [rng(), rng(), rng(), ...randomQuat(rng)] : [0, 0, 0, 0, 0, 0, 1];
      const g = boxes(hA, compose(G, pose(0, 0, 0)), hB, compose(G, pose(off[0], off[1], off[2])));
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBeGreaterThan(0);
      const nWant = axisOf(g, 0, kMin).map((x) => (off[kMin] >= 0 ? x : -x));
      for (let i = 0; i < m.count; i++) {
        expect(Math.abs(m.distance[i] + overlap[kMin])).toBeLessThan(TOL);
        expectVec(vec(m.normal, i), nWant, 1e-9);
      }
      expectOnSurfaces(g, m, 1e-9);
    }
  });

  it('random overlapping pairs: witnesses on the surfaces, a penetrating deepest point', () => {
    const rng = makeRng(55);
    let n = 0;
    for (let trial = 0; trial < 400; trial++) {
      const hA = [0.05 + 0.3 * rng(), 0.05 + 0.3 * rng(), 0.05 + 0.3 * rng()];
      const hB = [0.05 + 0.3 * rng(), 0.05 + 0.3 * rng(), 0.05 + 0.3 * rng()];
      const g = boxes(hA, [0, 0, 0, ...randomQuat(rng)], hB, [
        0.6 * (rng() - 0.5),
        0.6 * (rng() - 0.5),
        0.6 * (rng() - 0.5),
        ...randomQuat(rng),
      ]);
      if (boxBoxReference(g, 0, 1).D > 1e-9) continue;
      n++;
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBeGreaterThan(0);
      expect(m.count).toBeLessThanOrEqual(BOX_BOX_MAX_POINTS);
      expect(deepest(m).d).toBeLessThanOrEqual(TOL);
      expectOnSurfaces(g, m, 1e-6);
    }
    expect(n).toBeGreaterThan(100);
  });
});

describe('box–box: separated pairs', () => {
  it('distance equals the brute-force reference (alternating projections)', () => {
    const rng = makeRng(77);
    let n = 0;
    const kinds = new Set<string>();
    for (let trial = 0; trial < 400; trial++) {
      const hA = [0.05 + 0.3 * rng(), 0.05 + 0.3 * rng(), 0.05 + 0.3 * rng()];
      const hB = [0.05 + 0.3 * rng(), 0.05 + 0.3 * rng(), 0.05 + 0.3 * rng()];
      const g = boxes(hA, [0, 0, 0, ...randomQuat(rng)], hB, [
        1.5 * (rng() - 0.5),
        1.5 * (rng() - 0.5),
        1.5 * (rng() - 0.5),
        ...randomQuat(rng),
      ]);
      const ref = boxBoxReference(g, 0, 1);
      if (ref.D < 1e-4) continue;
      n++;
      const m = checkSwap(g, 0, 1);
      expect(m.count).toBeGreaterThan(0);
      const { d, i } = deepest(m);
      expect(Math.abs(d - ref.D)).toBeLessThan(1e-6 * (1 + ref.D));
      // every point is a true gap (an upper bound on the distance) and the deepest is realised
      for (let k = 0; k < m.count; k++) expect(m.distance[k]).toBeGreaterThan(ref.D - 1e-9);
      expect(Math.abs(len(sub(vec(m.pointB, i), vec(m.pointA, i))) - d)).toBeLessThan(1e-9);
      expectOnSurfaces(g, m, 1e-9);
      const f = m.feature[i];
      kinds.add(f >= BOX_BOX_CLOSEST_FEATURE ? 'closest' : f >= BOX_BOX_EDGE_FEATURE ? 'edge' : 'face');
      if (m.count === 1) {
        // single point: the closest pair is unique here, so the witnesses match the reference pair
        expect(len(sub(vec(m.pointA, 0), ref.x))).toBeLessThan(1e-5);
        expect(len(sub(vec(m.pointB, 0), ref.y))).toBeLessThan(1e-5);
      }
    }
    expect(n).toBeGreaterThan(200);
    expect([...kinds].sort()).toEqual(['closest', 'edge', 'face']);
  });

  it('nearly parallel stacked boxes: exact distance against the edge-enumeration reference', () => {
    const rng = makeRng(12);
    let overhang = 0;
    for (let trial = 0; trial < 100; trial++) {
      const hA = [0.2 + 0.3 * rng(), 0.2 + 0.3 * rng(), 0.1];
      const hB = [0.05 + 0.15 * rng(), 0.05 + 0.15 * rng(), 0.05 + 0.1 * rng()];
      const G = [rng(), rng(), rng(), ...randomQuat(rng)];
      const tilt = pose(0, 0, 0, rng() - 0.5, rng() - 0.5, 0, 1e-4 * rng());
      const lift = 0.1 + hB[2] + 0.001 + 0.01 * rng();
      const X1 = compose(
        G,
        compose(pose(0.1 * (rng() - 0.5), 0.1 * (rng() - 0.5), lift, 0, 0, 1, 7 * rng()), tilt),
      );
      const g = boxes(hA, compose(G, pose(0, 0, 0)), hB, X1);
      const D = boxBoxEdgeReference(g, 0, 1);
      const m = checkSwap(g, 0, 1);
      // the face manifold (4 corners, or the clipped polygon when B overhangs A's edge), plus the
      // exact closest point when the face does not realise the distance
      let face = 0;
      for (let k = 0; k < m.count; k++) if (m.feature[k] < BOX_BOX_EDGE_FEATURE) face++;
      expect(face).toBeGreaterThanOrEqual(3);
      expect(m.count - face).toBeLessThanOrEqual(1);
      if (m.count - face === 1) overhang++;
      expect(Math.abs(deepest(m).d - D)).toBeLessThan(1e-9);
      for (let k = 0; k < m.count; k++) expect(m.distance[k]).toBeGreaterThan(D - 1e-12);
      expectOnSurfaces(g, m, 1e-9);
    }
    expect(overhang).toBeGreaterThan(0);
  });

  it('edge–edge crossing: one point at the closest points of the edges', () => {
    // A: unit cube edge along x at (y, z) = (0.5, 0.5)·…; B rotated so an edge along y crosses above it
    const s = Math.SQRT1_2;
    const gap = 0.01;
    const X0 = pose(0, 0, 0, 1, 0, 0, Math.PI / 4); // top edge along x at z = 0.5·√2
    const X1 = pose(0, 0, 2 * 0.5 * Math.SQRT2 + gap, 0, 1, 0, Math.PI / 4); // bottom edge along y
    const g = boxes([0.5, 0.5, 0.5], X0, [0.5, 0.5, 0.5], X1);
    const m = checkSwap(g, 0, 1);
    expect(m.count).toBe(1);
    expect(m.feature[0]).toBeGreaterThanOrEqual(BOX_BOX_EDGE_FEATURE);
    expect(m.feature[0]).toBeLessThan(BOX_BOX_CLOSEST_FEATURE);
    expect(Math.abs(m.distance[0] - gap)).toBeLessThan(TOL);
    expectVec(vec(m.normal, 0), [0, 0, 1], 1e-9);
    expectVec(vec(m.pointA, 0), [0, 0, s], 1e-9);
    expectVec(vec(m.pointB, 0), [0, 0, s + gap], 1e-9);
    // pushed together: still one edge–edge point with the penetration depth
    const p = boxes(
      [0.5, 0.5, 0.5],
      X0,
      [0.5, 0.5, 0.5],
      pose(0, 0, Math.SQRT2 - 0.02, 0, 1, 0, Math.PI / 4),
    );
    const q = checkSwap(p, 0, 1);
    expect(q.count).toBe(1);
    expect(Math.abs(q.distance[0] + 0.02)).toBeLessThan(TOL);
  });

  it('corner to corner along the diagonal: the exact distance, not a SAT lower bound', () => {
    const h = [0.1, 0.1, 0.1];
    const D = 0.05;
    const diag = [1, 1, 1].map((x) => x / Math.sqrt(3));
    const c = 0.1 * Math.sqrt(3) * 2 + D;
    const g = boxes(h, pose(0, 0, 0), h, pose(c * diag[0], c * diag[1], c * diag[2]));
    const m = checkSwap(g, 0, 1);
    expect(m.count).toBe(1);
    expect(m.feature[0]).toBeGreaterThanOrEqual(BOX_BOX_CLOSEST_FEATURE);
    expect(Math.abs(m.distance[0] - D)).toBeLessThan(TOL);
    expectVec(vec(m.normal, 0), diag, 1e-9);
    expectVec(vec(m.pointA, 0), [0.1, 0.1, 0.1], 1e-9);
  });
});

describe('box–box: the gap band', () => {
  const margin = 0.01,
    gap = 0.02;
  for (const eps of [-1e-9, 1e-9]) {
    const inside = eps < 0;
    it(`face, edge and corner contacts at the limit ${inside ? '−' : '+'} 1e-9`, () => {
      const lim = margin + gap + eps;
      // face: 4 points or none
      const f = boxes(
        [0.3, 0.3, 0.1],
        pose(0, 0, 0),
        [0.1, 0.1, 0.1],
        pose(0.05, 0, 0.2 + lim, 0, 0, 1, 0.3),
      );
      const mf = runPair(f, 0, 1, margin, gap);
      expect(mf.count).toBe(inside ? 4 : 0);
      for (let i = 0; i < mf.count; i++) expect(Math.abs(mf.distance[i] - lim)).toBeLessThan(1e-12);
      // edge–edge
      const e = boxes(
        [0.5, 0.5, 0.5],
        pose(0, 0, 0, 1, 0, 0, Math.PI / 4),
        [0.5, 0.5, 0.5],
        pose(0, 0, Math.SQRT2 + lim, 0, 1, 0, Math.PI / 4),
      );
      const me = runPair(e, 0, 1, margin, gap);
      expect(me.count).toBe(inside ? 1 : 0);
      // corner–corner (exact fallback)
      const diag = [1, 1, 1].map((x) => x / Math.sqrt(3));
      const c = 0.2 * Math.sqrt(3) + lim;
      const k = boxes(
        [0.1, 0.1, 0.1],
        pose(0, 0, 0),
        [0.1, 0.1, 0.1],
        pose(c * diag[0], c * diag[1], c * diag[2]),
      );
      const mk = runPair(k, 0, 1, margin, gap);
      expect(mk.count).toBe(inside ? 1 : 0);
    });
  }

  it('a slightly tilted box keeps only the corners inside the band', () => {
    // tilted about x by θ: the bottom corners at +y are higher by 2·hy·sin θ
    const th = 0.01,
      hy = 0.1;
    // put the low corners exactly 0.001 above A's top
    const low = 0.1 + 0.05 * Math.cos(th) + hy * Math.sin(th) + 0.001;
    const g2 = boxes([0.5, 0.5, 0.1], pose(0, 0, 0), [0.1, hy, 0.05], pose(0, 0, low, 1, 0, 0, th));
    const all = runPair(g2, 0, 1, 0, 1);
    expect(all.count).toBe(4);
    const some = runPair(g2, 0, 1, 0, 0.002);
    expect(some.count).toBe(2);
    for (let i = 0; i < 2; i++) expect(Math.abs(some.distance[i] - 0.001)).toBeLessThan(TOL);
    // the separated distance is the face gap to the lowest corners
    expect(Math.abs(deepest(all).d - 0.001)).toBeLessThan(TOL);
    expect(dot(vec(all.normal, 0), [0, 0, 1])).toBeCloseTo(1, 12);
    expect(toLocal(g2, 1, vec(all.pointB, deepest(all).i))[1]).toBeCloseTo(-hy, 9);
  });
});

/**
 * The separations of the 15 SAT axes, computed here independently of box_box.ts (each axis
 * normalised, projections summed over both boxes' half extents): the best face of A, of B, and the
 * best edge–edge cross axis, with A's best face axis oriented from A into B [m].
 */
function satSeparations(g: ShapeGeom): { sA: number; sB: number; sE: number; nA: V3 } {
  const t = sub([g.pos[3], g.pos[4], g.pos[5]], [g.pos[0], g.pos[1], g.pos[2]]);
  const sep = (L: V3): number => {
    const n = L.map((x) => x / len(L));
    let r = 0;
    for (let s = 0; s < 2; s++)
      for (let k = 0; k < 3; k++) r += g.size[s * 3 + k] * Math.abs(dot(axisOf(g, s, k), n));
    return Math.abs(dot(t, n)) - r;
  };
  let sA = -Infinity,
    sB = -Infinity,
    sE = -Infinity,
    nA: V3 = [0, 0, 0];
  for (let k = 0; k < 3; k++) {
    const a = axisOf(g, 0, k);
    if (sep(a) > sA) {
      sA = sep(a);
      nA = dot(a, t) >= 0 ? a : a.map((x) => -x);
    }
    sB = Math.max(sB, sep(axisOf(g, 1, k)));
  }
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const a = axisOf(g, 0, i),
        b = axisOf(g, 1, j);
      const L = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
      if (len(L) > 1e-9) sE = Math.max(sE, sep(L));
    }
  }
  return { sA, sB, sE, nA };
}

/**
 * how much better (less negative) the edge axis is than the reference face, relative to it: A's
 * best face unless B's beats it by the face–face tolerance (the routine's order of preference)
 */
function edgeAdvantage(s: { sA: number; sB: number; sE: number }): number {
  const sF = s.sB > s.sA + BOX_BOX_AXIS_REL_TOL * Math.abs(s.sA) ? s.sB : s.sA;
  return (s.sE - sF) / Math.abs(sF);
}

/**
 * the SAT separations of an overlap whose edge axis lies inside the edge band (better than the face
 * by more than the face–face tolerance, by less than the edge one), and its penetrating points
 * (gap 0): at least two, all face points
 */
function faceManifoldInEdgeBand(g: ShapeGeom): {
  sat: ReturnType<typeof satSeparations>;
  m: ContactManifold;
} {
  const sat = satSeparations(g);
  const adv = edgeAdvantage(sat);
  expect(adv).toBeGreaterThan(BOX_BOX_AXIS_REL_TOL);
  expect(adv).toBeLessThan(BOX_BOX_EDGE_REL_TOL);
  const m = checkSwap(g, 0, 1, 0, 0);
  expect(m.count).toBeGreaterThanOrEqual(2);
  for (let i = 0; i < m.count; i++) expect(m.feature[i]).toBeLessThan(BOX_BOX_EDGE_FEATURE);
  return { sat, m };
}

describe('box–box: deep overlaps prefer a face axis over a nearly-as-good edge axis', () => {
  it('a tilted box pressed 0.1 into a box’s top edge: the top face’s normal and a multi-point manifold, not one edge point', () => {
    // B (half 0.3) tilted 25° about x then 40° about y, centred above A's +x top edge, its lowest
    // corner exactly 0.1 below A's top face (z = 0.5)
    const qx = pose(0, 0, 0, 1, 0, 0, (25 * Math.PI) / 180);
    const q = compose(pose(0, 0, 0, 0, 1, 0, (40 * Math.PI) / 180), qx);
    const hB = [0.3, 0.3, 0.3];
    const probe = boxes([0.5, 0.5, 0.5], pose(0, 0, 0), hB, [0.5, 0, 0, q[3], q[4], q[5], q[6]]);
    let low = Infinity;
    for (let k = 0; k < 8; k++) {
      const l = [k & 1 ? 0.3 : -0.3, k & 2 ? 0.3 : -0.3, k & 4 ? 0.3 : -0.3];
      low = Math.min(low, toWorld(probe, 1, l)[2]);
    }
    const g = boxes([0.5, 0.5, 0.5], pose(0, 0, 0), hB, [0.5, 0, 0.4 - low, q[3], q[4], q[5], q[6]]);
    // the edge axis beats the face by more than the face–face tolerance, less than the edge band:
    // the old single 5 % rule took the edge (one point), the edge band keeps the face
    const { sat, m } = faceManifoldInEdgeBand(g);
    expect(sat.sA).toBeCloseTo(-0.1, 12);
    for (let i = 0; i < m.count; i++) {
      expectVec(vec(m.normal, i), [0, 0, 1], 1e-15);
      const pA = vec(m.pointA, i),
        pB = vec(m.pointB, i);
      // A's witness on its top face, B's on B's surface, d the height of B's point over that face
      expect(Math.abs(pA[2] - 0.5)).toBeLessThan(TOL);
      expect(Math.max(Math.abs(pA[0]), Math.abs(pA[1]))).toBeLessThanOrEqual(0.5 + TOL);
      expect(Math.abs(m.distance[i] - (pB[2] - 0.5))).toBeLessThan(TOL);
      expect(m.distance[i]).toBeLessThan(0);
    }
    expectOnSurfaces(g, m, 1e-9);
    // the deepest point is B's lowest corner, at the SAT depth of the face axis
    expect(deepest(m).d).toBeCloseTo(sat.sA, 12);
  });

  it('a Franka gripper pad squeezing a cube near its top edge (recorded poses): the pad face’s normal, a face manifold', () => {
    // fr3 finger tip pad (half 8.75 × 7.6 × 9.25 mm) and the 4 cm cube of franka_panda_cube_urdf at
    // t = 4.0 s of the pick, as the old rule left them: the pad 9 mm into the cube
    const norm = (q: number[]): number[] => q.map((x) => x / Math.hypot(...q));
    const pad = [0.34354656062283306, -0.1722553914850568, 0.045613785987570564];
    const cube = [0.34963494155332414, -0.15236656579924374, 0.021268163008081643];
    const g = boxes(
      [0.00875, 0.0076, 0.00925],
      [...pad, ...norm([0.9765305, -0.0829458, -0.1897504, 0.059186])],
      [0.02, 0.02, 0.02],
      [...cube, ...norm([-0.0089329, 0.0013736, 0.0085347, 0.9999227])],
    );
    const { sat, m } = faceManifoldInEdgeBand(g);
    expect(sat.sA).toBeLessThan(-0.008);
    for (let i = 0; i < m.count; i++) {
      // the pad's closing face: its local y axis, pointing into the cube
      expectVec(vec(m.normal, i), sat.nA, 1e-12);
      expect(m.distance[i]).toBeLessThan(0);
    }
    expectOnSurfaces(g, m, 1e-9);
    expect(deepest(m).d).toBeGreaterThanOrEqual(sat.sA - TOL);
  });

  it('crossed edges pushed deep (0.15 of a 1 m cube): still one edge–edge point at the exact depth', () => {
    // A rotated 45° about x (top edge along x at z = √2/2), B rotated 45° about y (bottom edge
    // along y); face separations are −(0.354 + 0.707·δ), the edge axis z gives −δ: far outside the band
    const delta = 0.15;
    const s = Math.SQRT1_2;
    const g = boxes(
      [0.5, 0.5, 0.5],
      pose(0, 0, 0, 1, 0, 0, Math.PI / 4),
      [0.5, 0.5, 0.5],
      pose(0, 0, Math.SQRT2 - delta, 0, 1, 0, Math.PI / 4),
    );
    const sat = satSeparations(g);
    expect(sat.sE).toBeCloseTo(-delta, 12);
    expect(sat.sA).toBeCloseTo(-(0.5 + 0.5 * (0.5 + s + 0.5) - s * (Math.SQRT2 - delta)), 12);
    expect(edgeAdvantage(sat)).toBeGreaterThan(BOX_BOX_EDGE_REL_TOL);
    const m = checkSwap(g, 0, 1);
    expect(m.count).toBe(1);
    expect(m.feature[0]).toBeGreaterThanOrEqual(BOX_BOX_EDGE_FEATURE);
    expect(m.feature[0]).toBeLessThan(BOX_BOX_CLOSEST_FEATURE);
    expect(Math.abs(m.distance[0] + delta)).toBeLessThan(TOL);
    expectVec(vec(m.normal, 0), [0, 0, 1], 1e-12);
    expectVec(vec(m.pointA, 0), [0, 0, s], 1e-9);
    expectVec(vec(m.pointB, 0), [0, 0, s - delta], 1e-9);
  });
});

describe('box–box and capsule–box through the pipeline', () => {
  it('a box stacked on a box on the ground, and a capsule lying on the top box', () => {
    const b = new ModelBuilder();
    b.addGround();
    const lower = b.addBody({ X_wb: pose(0, 0, 0.1 - 0.0005) });
    b.addShape({ body: lower, type: 'box', size: [0.4, 0.4, 0.1] });
    const upper = b.addBody({ X_wb: pose(0.05, 0, 0.1995 + 0.05 - 0.001, 0, 0, 1, 0.3) });
    b.addShape({ body: upper, type: 'box', size: [0.1, 0.15, 0.05] });
    const cap = b.addBody({
      X_wb: compose(pose(0, 0, 0.2985 + 0.03 - 0.0002), pose(0, 0, 0, 0, 1, 0, Math.PI / 2)),
    });
    b.addShape({ body: cap, type: 'capsule', size: [0.03, 0.05] });
    const model = b.finalize();
    const state = posedState(model);
    const p = new SapCollisionPipeline(model);
    const c = p.contacts();
    p.collide(state, c);
    expect(p.last_unsupported_pair_count).toBe(0);
    expect(c.truncated[0]).toBe(0);
    // ground–lower 4, lower–upper 4, upper–capsule 2
    expect(c.count[0]).toBe(10);
    const byPair = new Map<string, number[]>();
    for (let i = 0; i < c.count[0]; i++) {
      const key = `${c.body0[i]},${c.body1[i]}`;
      byPair.set(key, [...(byPair.get(key) ?? []), c.phi0[i]]);
    }
    expect(byPair.get(`-1,${lower}`)!.length).toBe(4);
    // box–box: shape 0 = the lower shape index (the lower box), normal up
    const bb = byPair.get(`${lower},${upper}`)!;
    expect(bb.length).toBe(4);
    for (const phi of bb) expect(phi).toBeCloseTo(-0.001, 12);
    // capsule (type 2) is shape 0 against the box (type 3): normal points down into the box
    const cb = byPair.get(`${cap},${upper}`)!;
    expect(cb.length).toBe(2);
    for (const phi of cb) expect(phi).toBeCloseTo(-0.0002, 12);
    for (let i = 0; i < c.count[0]; i++) {
      const { x0, x1, n } = worldWitnesses(c, state, i);
      const d = n[0] * (x1[0] - x0[0]) + n[1] * (x1[1] - x0[1]) + n[2] * (x1[2] - x0[2]);
      expect(Math.abs(d - c.margin0[i] - c.margin1[i] - c.phi0[i])).toBeLessThan(TOL);
      if (c.body0[i] === cap) expect(n[2]).toBeCloseTo(-1, 12);
      else expect(n[2]).toBeCloseTo(1, 12);
    }
  });
});
