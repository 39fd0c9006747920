import { describe, expect, it } from 'vitest';
import { makeRng } from '../math';
import {
  HULL_DIRECTIONS,
  HULL_EXACT_POINTS,
  convexHull,
  hullFaces,
  type HullMesh,
  type HullStats,
} from './hull';

/** n points on the two rims of a unit cylinder, the rims' points at the same angles */
function cylinderRims(n: number): Float64Array {
  const p = new Float64Array(n * 3);
  for (let i = 0; i < n; i++) {
    const a = ((i % (n / 2)) / (n / 2)) * 2 * Math.PI;
    p.set([Math.cos(a), Math.sin(a), i < n / 2 ? 0 : 1], i * 3);
  }
  return p;
}

/** the hull's signed volume (positive when its triangles wind outwards), about its first vertex */
function volume(h: HullMesh): number {
  const V = h.vertices.map((x, i) => x - h.vertices[i % 3]);
  let vol = 0;
  for (let t = 0; t < h.triangles.length; t += 3) {
    const [a, b, c] = [0, 1, 2].map((e) => h.triangles[t + e] * 3);
    vol +=
      (V[a] * (V[b + 1] * V[c + 2] - V[b + 2] * V[c + 1]) -
        V[a + 1] * (V[b] * V[c + 2] - V[b + 2] * V[c]) +
        V[a + 2] * (V[b] * V[c + 1] - V[b + 1] * V[c])) /
      6;
  }
  return vol;
}

/**
 * Checks what every hull must be: a closed, consistently wound 2-manifold of sphere topology,
 * with every input point inside every face's plane (within tol) and every vertex a corner (its
 * incident faces span three directions).
 */
function expectValidHull(points: ArrayLike<number>, h: HullMesh, tol: number): void {
  const V = h.vertices.length / 3,
    T = h.triangles.length / 3;
  const edges = new Map<number, number>();
  for (let t = 0; t < T; t++)
    for (let e = 0; e < 3; e++) {
      const k = h.triangles[t * 3 + e] * V + h.triangles[t * 3 + ((e + 1) % 3)];
      edges.set(k, (edges.get(k) ?? 0) + 1);
    }
  let unpaired = 0;
  for (const [k, c] of edges) if (c !== 1 || edges.get((k % V) * V + Math.floor(k / V)) !== 1) unpaired++;
  expect(unpaired).toBe(0);
  expect(V - edges.size / 2 + T).toBe(2);
  expect(volume(h)).toBeGreaterThan(0);
  const f = hullFaces(h);
  let worst = -Infinity;
  for (let k = 0; k < f.faceCount; k++) {
    const v = f.faceVertex[f.faceStart[k]] * 3;
    for (let i = 0; i < points.length; i += 3) {
      const s =
        f.faceNormal[k * 3] * (points[i] - h.vertices[v]) +
        f.faceNormal[k * 3 + 1] * (points[i + 1] - h.vertices[v + 1]) +
        f.faceNormal[k * 3 + 2] * (points[i + 2] - h.vertices[v + 2]);
      worst = Math.max(worst, s);
    }
  }
  expect(worst).toBeLessThan(tol);
  // a corner is on at least three polygonal faces
  const faces = new Int32Array(V);
  for (let i = 0; i < f.faceVertex.length; i++) faces[f.faceVertex[i]]++;
  expect(Math.min(...faces)).toBeGreaterThanOrEqual(3);
  // the source map points at the input
  for (let v = 0; v < V; v++)
    for (let k = 0; k < 3; k++) expect(h.vertices[v * 3 + k]).toBe(points[h.source[v] * 3 + k]);
}

describe('convex hull: degenerate and large inputs', () => {
  it('40k points on a cylinder’s rims: every point a vertex, two caps and the side quads, linear work', () => {
    const n = 40_000;
    const pts = cylinderRims(n);
    const stats: HullStats = { facesCreated: 0, dropped: 0 };
    const h = convexHull(pts, stats)!;
    expect(h.vertices.length / 3).toBe(n);
    expect(h.triangles.length / 3).toBe(2 * n - 4);
    const f = hullFaces(h);
    // the side is n/2 rectangles; the caps are two n/2-gons
    expect(f.faceCount).toBe(n / 2 + 2);
    const sizes = Array.from({ length: f.faceCount }, (_, k) => f.faceStart[k + 1] - f.faceStart[k]).sort(
      (a, b) => b - a,
    );
    expect(sizes.slice(0, 3)).toEqual([n / 2, n / 2, 4]);
    expect(volume(h)).toBeCloseTo(Math.PI, 6);
    // the farthest-point order created ~65 n triangles at n = 8000, growing with n; this order
    // creates a few per point
    expect(stats.facesCreated).toBeLessThan(6 * n);
    expect(stats.dropped).toBe(0);
    expectValidHull(cylinderRims(2000), convexHull(cylinderRims(2000))!, 1e-12);
  });

  it('beyond the exact budget: interior points culled exactly, else the hull of the support points', () => {
    const rng = makeRng(7);
    // 200k points in a cube: the culled candidates stay within budget, so the hull is exact
    const cloud = Float64Array.from({ length: 600_000 }, () => rng() * 2 - 1);
    const exact = convexHull(cloud)!;
    expect(exact.approximatedFrom).toBe(0);
    expectValidHull(cloud, exact, 1e-12);
    // 100k points on a helix around a cylinder (the fuzzer's OBJ polygon): all are hull vertices
    const n = 100_000;
    const helix = new Float64Array(n * 3);
    for (let i = 0; i < n; i++) helix.set([Math.cos(i), Math.sin(i), i % 7], i * 3);
    expect(n).toBeGreaterThan(HULL_EXACT_POINTS);
    const stats: HullStats = { facesCreated: 0, dropped: 0 };
    const h = convexHull(helix, stats)!;
    expect(h.approximatedFrom).toBe(n);
    expect(h.vertices.length / 3).toBeLessThanOrEqual(HULL_DIRECTIONS);
    expect(stats.facesCreated).toBeLessThan(10 * HULL_DIRECTIONS);
    // an inner hull: exact in its directions, no input point farther out than the angular spacing allows
    // (radius 1, height 6)
    for (let v = 0; v < h.source.length; v++) expect(h.vertices[v * 3]).toBe(helix[h.source[v] * 3]);
    // a closed outward hull of sphere topology
    const V = h.vertices.length / 3,
      T = h.triangles.length / 3;
    expect(V - (3 * T) / 2 + T).toBe(2);
    expect(volume(h)).toBeGreaterThan(0.9 * 6 * Math.PI);
    const f = hullFaces(h);
    let worst = 0;
    for (let k = 0; k < f.faceCount; k++) {
      const v = f.faceVertex[f.faceStart[k]] * 3;
      for (let i = 0; i < n; i += 7) {
        const s =
          f.faceNormal[k * 3] * (helix[i * 3] - h.vertices[v]) +
          f.faceNormal[k * 3 + 1] * (helix[i * 3 + 1] - h.vertices[v + 1]) +
          f.faceNormal[k * 3 + 2] * (helix[i * 3 + 2] - h.vertices[v + 2]);
        worst = Math.max(worst, s);
      }
    }
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThan(0.01);
  });

  const families: Record<string, (rng: () => number) => number[]> = {
    'a random cloud': (rng) => Array.from({ length: 3000 }, () => rng() * 2 - 1),
    'a lattice cube with duplicates': () => {
      const p: number[] = [];
      for (let i = 0; i <= 6; i++)
        for (let j = 0; j <= 6; j++)
          for (let k = 0; k <= 6; k++) p.push(i / 6, j / 6, k / 6, i / 6, j / 6, k / 6);
      return p;
    },
    'sphere points snapped to a coarse grid (many coplanar and cocircular sets)': (rng) => {
      const p: number[] = [];
      for (let i = 0; i < 4000; i++) {
        const z = rng() * 2 - 1,
          a = rng() * 2 * Math.PI,
          r = Math.sqrt(1 - z * z);
        p.push(...[r * Math.cos(a), r * Math.sin(a), z].map((x) => Math.round(x * 8) / 8));
      }
      return p;
    },
    'a CAD cylinder: three rings, a far origin': () => {
      const p: number[] = [];
      for (let s = 0; s < 96; s++)
        for (const z of [0, 0.013, 0.05]) {
          const a = (s / 96) * 2 * Math.PI;
          p.push(1e4 + 0.01 * Math.cos(a), -2e4 + 0.01 * Math.sin(a), 300 + z);
        }
      return p;
    },
    'random points on a box’s surface': (rng) => {
      const p: number[] = [];
      for (let i = 0; i < 3000; i++) {
        const q = [rng() * 2 - 1, rng() * 2 - 1, rng() * 2 - 1];
        q[Math.floor(rng() * 3)] = rng() < 0.5 ? -1 : 1;
        p.push(q[0], 0.5 * q[1], 0.2 * q[2]);
      }
      return p;
    },
    'a tetrahedron blurred below tolerance': (rng) => {
      const c = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1];
      return Array.from({ length: 400 * 12 }, (_, i) => c[i % 12] + (rng() - 0.5) * 1e-13);
    },
  };
  for (const [name, make] of Object.entries(families)) {
    it(`${name}: a closed outward manifold of corners containing every point`, () => {
      for (const seed of [1, 2, 3, 4, 85, 142, 150]) {
        const pts = make(makeRng(seed));
        const h = convexHull(pts);
        expect(h).not.toBeNull();
        // within the hull's tolerance, 1e-10 of the bounding box's diagonal
        const lo = [0, 1, 2].map((k) => Math.min(...pts.filter((_, i) => i % 3 === k)));
        const hi = [0, 1, 2].map((k) => Math.max(...pts.filter((_, i) => i % 3 === k)));
        expectValidHull(pts, h!, 2e-10 * Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]));
      }
    });
  }

  it('the lattice cube is the cube; the blurred tetrahedron is the tetrahedron', () => {
    const cube = convexHull(families['a lattice cube with duplicates'](makeRng(1)))!;
    expect(cube.vertices.length / 3).toBe(8);
    expect(volume(cube)).toBeCloseTo(1, 12);
    const tet = convexHull(families['a tetrahedron blurred below tolerance'](makeRng(1)))!;
    expect(tet.vertices.length / 3).toBe(4);
    expect(volume(tet)).toBeCloseTo(1 / 6, 10);
  });

  it('no volume, no hull: coplanar, collinear, coincident, non-finite or too few points', () => {
    const flat = Array.from({ length: 300 }, (_, i) => (i % 3 === 2 ? 0.5 : Math.sin(i)));
    expect(convexHull(flat)).toBeNull();
    expect(convexHull([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, -1, -1, -1])).toBeNull();
    expect(convexHull(new Array(30).fill(0.25))).toBeNull();
    expect(convexHull([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, NaN])).toBeNull();
    expect(convexHull([0, 0, 0, 1, 0, 0, 0, 1, 0])).toBeNull();
  });
});

describe("convex hull against three.js's ConvexHull (a peer on the same points)", () => {
  it('random clouds and sphere samples: the same vertices and volume', async () => {
    const THREE = await import('three');
    const { ConvexHull } = await import('three/examples/jsm/math/ConvexHull.js');
    for (let seed = 1; seed <= 6; seed++) {
      const rng = makeRng(seed);
      const n = 500 * seed;
      const pts: number[] = [];
      for (let i = 0; i < n; i++) {
        const q = [rng() * 2 - 1, rng() * 2 - 1, rng() * 2 - 1];
        // even seeds: on a sphere (every point a vertex); odd: in an ellipsoid-ish cloud
        const s = seed % 2 === 0 ? 1 / Math.hypot(q[0], q[1], q[2]) : 1;
        pts.push(q[0] * s * 2, q[1] * s, q[2] * s * 0.5);
      }
      const ours = convexHull(pts)!;
      const peer = new ConvexHull().setFromPoints(
        Array.from({ length: n }, (_, i) => new THREE.Vector3(pts[i * 3], pts[i * 3 + 1], pts[i * 3 + 2])),
      );
      const peerVerts = new Set<string>();
      let peerVolume = 0;
      for (const face of peer.faces) {
        const ring: number[][] = [];
        let e = face.edge;
        do {
          const p = e.head().point;
          ring.push([p.x, p.y, p.z]);
          peerVerts.add(`${p.x},${p.y},${p.z}`);
          e = e.next;
        } while (e !== face.edge);
        for (let k = 1; k + 1 < ring.length; k++) {
          const [a, b, c] = [ring[0], ring[k], ring[k + 1]];
          peerVolume +=
            (a[0] * (b[1] * c[2] - b[2] * c[1]) -
              a[1] * (b[0] * c[2] - b[2] * c[0]) +
              a[2] * (b[0] * c[1] - b[1] * c[0])) /
            6;
        }
      }
      const ourVerts = new Set<string>();
      for (let v = 0; v < ours.vertices.length / 3; v++)
        ourVerts.add(`${ours.vertices[v * 3]},${ours.vertices[v * 3 + 1]},${ours.vertices[v * 3 + 2]}`);
      expect([...ourVerts].sort()).toEqual([...peerVerts].sort());
      expect(volume(ours)).toBeCloseTo(peerVolume, 12);
    }
  });
});
