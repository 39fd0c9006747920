/**
 * Unit tests of the general-path building blocks: GJK distance and EPA penetration against
 * brute-force references, the convex hull and its faces, the triangle BVH.
 */
import { describe, expect, it } from 'vitest';
import { makeRng, quatFromAxisAngle } from '../math';
import { ModelBuilder, type ShapeTypeName } from '../model';
import { makeState } from '../kinematics';
import { buildTriangleBVH, queryTriangleBVH } from './bvh';
import { makeShapeGeom, updateShapeGeom, type ShapeGeom } from './geometry';
import { makeManifold } from './manifold';
import { NARROW_PHASE_TABLE } from './narrowphase';
import { epaPenetration, gjkDistance, GjkStatus, GJK_OUT } from './gjk';
import { convexHull, hullFaces } from './hull';
import {
  meshWorldVertices,
  penetration,
  satPenetration,
  separation,
  shapeSupport,
  type V3,
} from './reference';
import { loadShapeProxy, proxyRadius } from './support';

type Rng = () => number;

function randomHull(rng: Rng): { vertices: number[]; triangles: number[] } {
  for (;;) {
    const pts: number[] = [];
    for (let i = 0; i < 10; i++) pts.push(0.4 * (rng() - 0.5), 0.3 * (rng() - 0.5), 0.35 * (rng() - 0.5));
    const h = convexHull(pts);
    if (h) return { vertices: Array.from(h.vertices), triangles: Array.from(h.triangles) };
  }
}

function pair(
  rng: Rng,
  t0: ShapeTypeName,
  s0: number[],
  t1: ShapeTypeName,
  s1: number[],
  dist: number,
): ShapeGeom {
  const b = new ModelBuilder();
  for (const [t, s] of [
    [t0, s0],
    [t1, s1],
  ] as [ShapeTypeName, number[]][]) {
    const body = b.addBody();
    const mesh = t === 'convex_mesh' ? b.addMesh(randomHull(rng)) : undefined;
    b.addShape({ body, type: t, size: s, mesh });
  }
  const model = b.finalize();
  const st = makeState(model);
  const q = new Float64Array([0, 0, 0, 1]);
  quatFromAxisAngle(rng() - 0.5, rng() - 0.5, rng() - 0.5, 7 * rng(), q, 0);
  st.body_q.set([0, 0, 0, ...q], 0);
  quatFromAxisAngle(rng() - 0.5, rng() - 0.5, rng() - 0.5, 7 * rng(), q, 0);
  const d = [rng() - 0.5, rng() - 0.5, rng() - 0.5];
  const l = Math.hypot(d[0], d[1], d[2]);
  st.body_q.set([(dist * d[0]) / l, (dist * d[1]) / l, (dist * d[2]) / l, ...q], 7);
  const g = makeShapeGeom(model);
  updateShapeGeom(model, st.body_q, g);
  return g;
}

function hullTriangles(g: ShapeGeom, s: number): { V: V3[]; T: number[][] } {
  const m = g.model;
  const mi = m.shape_mesh[s];
  const T: number[][] = [];
  for (let t = m.mesh_triangle_start[mi]; t < m.mesh_triangle_start[mi + 1]; t++)
    T.push([0, 1, 2].map((e) => m.mesh_triangles[t * 3 + e]));
  return { V: meshWorldVertices(g, s), T };
}

function boxTriangles(g: ShapeGeom, s: number): { V: V3[]; T: number[][] } {
  const V: V3[] = [];
  for (let k = 0; k < 8; k++) {
    const l = [k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1].map((x, i) => x * g.size[s * 3 + i]);
    const p: V3 = [g.pos[s * 3], g.pos[s * 3 + 1], g.pos[s * 3 + 2]];
    for (let i = 0; i < 3; i++) for (let c = 0; c < 3; c++) p[c] += g.rot[s * 9 + c * 3 + i] * l[i];
    V.push(p);
  }
  // the 6 faces as triangles (orientation irrelevant for the axes)
  const F = [
    [0, 1, 3, 2],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [2, 3, 7, 6],
    [0, 2, 6, 4],
    [1, 3, 7, 5],
  ];
  const T: number[][] = [];
  for (const f of F) T.push([f[0], f[1], f[2]], [f[0], f[2], f[3]]);
  return { V, T };
}

describe('GJK', () => {
  it('core distance of separated convex shapes matches the ellipsoid-method reference', () => {
    const rng = makeRng(11);
    const types: [ShapeTypeName, number[]][] = [
      ['box', [0.2, 0.1, 0.15]],
      ['cylinder', [0.15, 0.2]],
      ['cone', [0.2, 0.15]],
      ['ellipsoid', [0.2, 0.1, 0.15]],
      ['convex_mesh', [1, 1, 1]],
      ['capsule', [0.1, 0.2]],
    ];
    for (let trial = 0; trial < 40; trial++) {
      const [t0, s0] = types[trial % types.length];
      const [t1, s1] = types[Math.floor(trial / types.length) % types.length];
      const g = pair(rng, t0, s0, t1, s1, 0.8 + 0.4 * rng());
      loadShapeProxy(0, g, 0);
      loadShapeProxy(1, g, 1);
      expect(gjkDistance(10)).toBe(GjkStatus.SEPARATED);
      const d = GJK_OUT[0] - proxyRadius(0) - proxyRadius(1);
      const ref = separation(shapeSupport(g, 0), shapeSupport(g, 1)).D;
      expect(Math.abs(d - ref)).toBeLessThan(1e-7 * ref);
      // the early exit: a bound below the distance reports FAR
      expect(gjkDistance(0.5 * GJK_OUT[0])).toBe(GjkStatus.FAR);
    }
  });
});

describe('EPA', () => {
  it('smooth shapes: depth matches the direction-search reference and the normal attains it', () => {
    const rng = makeRng(12);
    const cases: [ShapeTypeName, number[], ShapeTypeName, number[]][] = [
      ['ellipsoid', [0.2, 0.12, 0.15], 'ellipsoid', [0.15, 0.2, 0.1]],
      ['sphere', [0.1], 'ellipsoid', [0.25, 0.15, 0.2]],
    ];
    let n = 0;
    for (let trial = 0; trial < 30; trial++) {
      const [t0, s0, t1, s1] = cases[trial % cases.length];
      const g = pair(rng, t0, s0, t1, s1, 0.15 * rng());
      loadShapeProxy(0, g, 0);
      loadShapeProxy(1, g, 1);
      if (gjkDistance(10) !== GjkStatus.OVERLAP) continue;
      expect(epaPenetration()).toBe(true);
      const depth = GJK_OUT[0] + proxyRadius(0) + proxyRadius(1);
      const ref = penetration(shapeSupport(g, 0), shapeSupport(g, 1));
      expect(Math.abs(depth - ref.depth)).toBeLessThan(1e-6 * ref.depth);
      // the normal is a minimiser: the reference penetration along it equals the depth
      const sa = shapeSupport(g, 0),
        sb = shapeSupport(g, 1);
      const u = [GJK_OUT[1], GJK_OUT[2], GJK_OUT[3]];
      const a = sa(u),
        b = sb(u.map((x) => -x));
      const along = u[0] * (a[0] - b[0]) + u[1] * (a[1] - b[1]) + u[2] * (a[2] - b[2]);
      expect(Math.abs(along - ref.depth)).toBeLessThan(1e-6 * ref.depth);
      n++;
    }
    expect(n).toBeGreaterThan(10);
  });

  it('polytopes: depth matches the separating-axis reference exactly', () => {
    const rng = makeRng(13);
    let n = 0;
    for (let trial = 0; trial < 40; trial++) {
      const kinds: [ShapeTypeName, number[]][] = [
        ['box', [0.2, 0.1, 0.15]],
        ['convex_mesh', [1, 1, 1]],
      ];
      const [t0, s0] = kinds[trial % 2];
      const [t1, s1] = kinds[Math.floor(trial / 2) % 2];
      const g = pair(rng, t0, s0, t1, s1, 0.2 * rng());
      loadShapeProxy(0, g, 0);
      loadShapeProxy(1, g, 1);
      if (gjkDistance(10) !== GjkStatus.OVERLAP) continue;
      expect(epaPenetration()).toBe(true);
      const A = t0 === 'box' ? boxTriangles(g, 0) : hullTriangles(g, 0);
      const B = t1 === 'box' ? boxTriangles(g, 1) : hullTriangles(g, 1);
      const ref = satPenetration(A.V, A.T, B.V, B.T);
      expect(Math.abs(GJK_OUT[0] - ref.depth)).toBeLessThan(1e-9);
      n++;
    }
    expect(n).toBeGreaterThan(10);
  });
});

describe('convex hull', () => {
  it('a cube with interior points: 8 vertices, 12 outward triangles, 6 quad faces', () => {
    const rng = makeRng(5);
    const pts: number[] = [];
    for (let k = 0; k < 8; k++) pts.push(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1);
    for (let i = 0; i < 30; i++) pts.push(1.8 * (rng() - 0.5), 1.8 * (rng() - 0.5), 1.8 * (rng() - 0.5));
    const h = convexHull(pts)!;
    expect(h.vertices.length / 3).toBe(8);
    expect(h.triangles.length / 3).toBe(12);
    // outward: every triangle's normal points away from the centre
    for (let t = 0; t < 12; t++) {
      const [a, b, c] = [0, 1, 2].map((e) =>
        Array.from(h.vertices.slice(h.triangles[t * 3 + e] * 3, h.triangles[t * 3 + e] * 3 + 3)),
      );
      const n = [
        (b[1] - a[1]) * (c[2] - a[2]) - (b[2] - a[2]) * (c[1] - a[1]),
        (b[2] - a[2]) * (c[0] - a[0]) - (b[0] - a[0]) * (c[2] - a[2]),
        (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]),
      ];
      expect(n[0] * a[0] + n[1] * a[1] + n[2] * a[2]).toBeGreaterThan(0);
    }
    const f = hullFaces(h);
    expect(f.faceCount).toBe(6);
    for (let i = 0; i < 6; i++) expect(f.faceStart[i + 1] - f.faceStart[i]).toBe(4);
    for (let v = 0; v < 8; v++) expect(f.adjStart[v + 1] - f.adjStart[v]).toBeGreaterThanOrEqual(3);
  });

  it('contains every input point; flat input has no hull', () => {
    const rng = makeRng(6);
    const pts: number[] = [];
    for (let i = 0; i < 200; i++) pts.push(rng() - 0.5, 2 * (rng() - 0.5), 0.5 * (rng() - 0.5));
    const h = convexHull(pts)!;
    const f = hullFaces(h);
    for (let i = 0; i < 200; i++) {
      for (let k = 0; k < f.faceCount; k++) {
        const v = f.faceVertex[f.faceStart[k]] * 3;
        const s =
          f.faceNormal[k * 3] * (pts[i * 3] - h.vertices[v]) +
          f.faceNormal[k * 3 + 1] * (pts[i * 3 + 1] - h.vertices[v + 1]) +
          f.faceNormal[k * 3 + 2] * (pts[i * 3 + 2] - h.vertices[v + 2]);
        expect(s).toBeLessThan(1e-9);
      }
    }
    expect(convexHull([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.5, 0.5, 0])).toBeNull();
    expect(convexHull([0, 0, 0, 1, 0, 0])).toBeNull();
  });
});

describe('triangle BVH', () => {
  it('box queries return a superset of the brute-force overlapping triangles', () => {
    const rng = makeRng(7);
    const V: number[] = [],
      T: number[] = [];
    const n = 20;
    for (let r = 0; r <= n; r++) for (let c = 0; c <= n; c++) V.push(c / n, r / n, 0.1 * Math.sin(7 * c * r));
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const a = r * (n + 1) + c;
        T.push(a, a + 1, a + n + 2, a, a + n + 2, a + n + 1);
      }
    }
    const bvh = buildTriangleBVH(V, 0, T, 0, T.length / 3);
    const out = new Int32Array(T.length / 3);
    for (let q = 0; q < 50; q++) {
      const lo = [rng(), rng(), -0.2 + 0.3 * rng()];
      const hi = lo.map((x) => x + 0.2 * rng());
      const k = queryTriangleBVH(bvh, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], out);
      const got = new Set(Array.from(out.subarray(0, k)));
      expect(got.size).toBe(k);
      for (let t = 0; t < T.length / 3; t++) {
        const xs = [0, 1, 2].map((e) => V.slice(T[t * 3 + e] * 3, T[t * 3 + e] * 3 + 3));
        const overlaps = [0, 1, 2].every(
          (ax) => Math.min(...xs.map((x) => x[ax])) <= hi[ax] && Math.max(...xs.map((x) => x[ax])) >= lo[ax],
        );
        if (overlaps) expect(got.has(t)).toBe(true);
      }
    }
  });
});

describe('touching and degenerate configurations', () => {
  it('exactly touching flat faces give d = 0 along the face normal with a full manifold', () => {
    const cases: [ShapeTypeName, number[], number][] = [
      ['cylinder', [0.1, 0.15], 0.15],
      ['cone', [0.1, 0.12], 0.12],
      ['box', [0.1, 0.08, 0.05], 0.05],
    ];
    for (const [t, s, h] of cases) {
      for (const base of ['box', 'cylinder'] as ShapeTypeName[]) {
        const b = new ModelBuilder();
        const b0 = b.addBody(),
          b1 = b.addBody();
        b.addShape({ body: b0, type: base, size: base === 'box' ? [0.5, 0.5, 0.2] : [0.5, 0.2] });
        b.addShape({ body: b1, type: t, size: s });
        const model = b.finalize();
        const st = makeState(model);
        st.body_q.set([0, 0, -0.2, 0, 0, 0, 1], 0);
        st.body_q.set([0.01, -0.02, h, 0, 0, 0, 1], 7);
        const g = makeShapeGeom(model);
        updateShapeGeom(model, st.body_q, g);
        const out = makeManifold();
        NARROW_PHASE_TABLE[g.type[0]][g.type[1]]!(g, 0, 1, 0, 0.001, out);
        expect(out.count).toBeGreaterThanOrEqual(t === 'box' ? 4 : 3);
        for (let i = 0; i < out.count; i++) {
          expect(Math.abs(out.distance[i])).toBeLessThan(1e-9);
          expect(Math.abs(out.normal[i * 3 + 2] - 1)).toBeLessThan(1e-9);
        }
      }
    }
  });
});
