import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { meshMassProperties } from '../../model';
import { MeshError } from '../assets/errors';
import {
  convexHull,
  isBinaryStl,
  orientedBoundingBox,
  parseMeshBytes,
  parseObj,
  parseStl,
  scaleMesh,
} from '.';
import { SAP_WARP, SHARED_ASSETS } from '../testing_assets';

/** a binary STL of the given triangles (9 numbers each), with an optional header text */
function binaryStl(tris: number[][], header = ''): Uint8Array {
  const buf = new ArrayBuffer(84 + 50 * tris.length);
  const u8 = new Uint8Array(buf);
  u8.set(new TextEncoder().encode(header).subarray(0, 80));
  const dv = new DataView(buf);
  dv.setUint32(80, tris.length, true);
  tris.forEach((t, i) => t.forEach((v, k) => dv.setFloat32(84 + i * 50 + 12 + k * 4, v, true)));
  return u8;
}

// a unit tetrahedron, outward winding
const TET = [
  [0, 0, 0, 0, 1, 0, 1, 0, 0],
  [0, 0, 0, 1, 0, 0, 0, 0, 1],
  [0, 0, 0, 0, 0, 1, 0, 1, 0],
  [1, 0, 0, 0, 1, 0, 0, 0, 1],
];

describe('STL', () => {
  it('detects binary by the size formula, even when the header starts with "solid"', () => {
    const bin = binaryStl(TET, 'solid fooled you');
    expect(isBinaryStl(bin)).toBe(true);
    const m = parseStl(bin);
    expect(m.vertices.length / 3).toBe(4); // welded
    expect(m.triangles.length / 3).toBe(4);
    expect(meshMassProperties(m.vertices, m.triangles, [1, 1, 1], 6).mass).toBeCloseTo(1, 6);
  });

  it('reads ASCII STL when the size does not match', () => {
    const facets = TET.map(
      (t) =>
        `facet normal 0 0 0\n outer loop\n${[0, 3, 6].map((o) => `  vertex ${t[o]} ${t[o + 1]} ${t[o + 2]}`).join('\n')}\n endloop\nendfacet`,
    ).join('\n');
    const bytes = new TextEncoder().encode(`solid tet\n${facets}\nendsolid tet\n`);
    expect(isBinaryStl(bytes)).toBe(false);
    const m = parseMeshBytes(bytes, 'x/TET.STL');
    expect(m.triangles.length / 3).toBe(4);
    expect(m.vertices.length / 3).toBe(4);
  });

  it('drops zero-area faces and rejects garbage', () => {
    const m = parseStl(binaryStl([...TET, [0, 0, 0, 1, 1, 1, 2, 2, 2], [1, 0, 0, 1, 0, 0, 0, 1, 0]]));
    expect(m.triangles.length / 3).toBe(4);
    expect(() => parseStl(new Uint8Array(100))).toThrow(MeshError);
    expect(() => parseStl(new TextEncoder().encode('solid x\n vertex 1 2\n'))).toThrow(/bad vertex/);
  });
});

describe('OBJ', () => {
  it('reads faces with v, v/vt, v//vn and v/vt/vn forms, negative indices and polygons', () => {
    const text = [
      'o cube-ish',
      'v 0 0 0',
      'v 1 0 0',
      'v 1 1 0',
      'v 0 1 0',
      'vn 0 0 1',
      'vt 0 0',
      'f 1 2 3 4', // quad → 2 triangles
      'v 0 0 1',
      'f -5/1 -4//1 -1/1/1', // relative: vertices 1, 2, 5
      'g other',
      'f 2 3 5',
    ].join('\n');
    const m = parseObj(text);
    expect(m.triangles.length / 3).toBe(4);
    expect(Array.from(m.triangles.slice(0, 6))).toEqual([0, 1, 2, 0, 2, 3]);
    expect(Array.from(m.vertices.slice(m.triangles[8] * 3, m.triangles[8] * 3 + 3))).toEqual([0, 0, 1]);
  });

  it('reports bad indices with the line', () => {
    try {
      parseObj('v 0 0 0\nv 1 0 0\nf 1 2 7\n', 'a.obj');
      throw new Error('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(MeshError);
      expect((e as MeshError).line).toBe(3);
      expect((e as MeshError).message).toMatch(/^a\.obj:3:1: face index 7/);
    }
  });
});

describe('convex hull and bounding boxes', () => {
  it('a hull of more candidates than the exact budget is approximated, and the caller hears of it', () => {
    // 60k points on a sphere: every one a candidate
    const n = 60_000;
    const pts = new Float64Array(n * 3);
    for (let i = 0; i < n; i++) {
      const z = 1 - (2 * i + 1) / n,
        r = Math.sqrt(1 - z * z),
        a = i * 2.399963229728653;
      pts.set([r * Math.cos(a), r * Math.sin(a), z], i * 3);
    }
    const warnings: string[] = [];
    const h = convexHull(pts, 'ball.obj', (w) => warnings.push(w));
    expect(h.vertices.length / 3).toBeLessThan(1000);
    expect(warnings).toEqual([expect.stringMatching(/^ball\.obj: convex hull of 60000 points approximated/)]);
    // a small hull is exact and silent
    const small = convexHull(pts.subarray(0, 3 * 3000), 'part.obj', (w) => warnings.push(w));
    expect(small.vertices.length / 3).toBe(3000);
    expect(warnings).toHaveLength(1);
  });

  it('the hull of a cube’s corners (plus interior points) is the cube: 8 vertices, 12 triangles, volume 8', () => {
    const pts: number[] = [];
    for (const x of [-1, 1]) for (const y of [-1, 1]) for (const z of [-1, 1]) pts.push(x, y, z);
    pts.push(0, 0, 0, 0.5, 0.2, -0.3, 0, 1, 0); // interior and on-face points
    const h = convexHull(pts);
    expect(h.vertices.length / 3).toBe(8);
    expect(h.triangles.length / 3).toBe(12);
    const mp = meshMassProperties(h.vertices, h.triangles, [1, 1, 1], 1);
    expect(mp.mass).toBeCloseTo(8, 9);
    // outward winding: the signed volume is positive
    let signed = 0;
    for (let t = 0; t < h.triangles.length; t += 3) {
      const [a, b, c] = [h.triangles[t] * 3, h.triangles[t + 1] * 3, h.triangles[t + 2] * 3].map((i) => [
        h.vertices[i],
        h.vertices[i + 1],
        h.vertices[i + 2],
      ]);
      signed +=
        a[0] * (b[1] * c[2] - b[2] * c[1]) -
        a[1] * (b[0] * c[2] - b[2] * c[0]) +
        a[2] * (b[0] * c[1] - b[1] * c[0]);
    }
    expect(signed / 6).toBeCloseTo(8, 9);
    expect(() => convexHull([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0])).toThrow(MeshError); // flat
  });

  it('an oriented box fits a rotated box tightly', () => {
    const c = Math.cos(0.5),
      s = Math.sin(0.5);
    const pts: number[] = [];
    for (const x of [-2, 2])
      for (const y of [-1, 1]) for (const z of [-0.5, 0.5]) pts.push(c * x - s * y + 1, s * x + c * y, z + 3);
    const box = orientedBoundingBox(pts);
    expect([...box.half].sort((a, b) => a - b)).toEqual([0.5, 1, 2].map((v) => expect.closeTo(v, 9)));
    expect(box.center.map((v) => +v.toFixed(9))).toEqual([1, 0, 3]);
  });

  it('a mirroring scale flips the winding so the volume stays positive', () => {
    const m = parseStl(binaryStl(TET));
    const mir = scaleMesh(m, [1, -1, 1]);
    let signed = 0;
    for (let t = 0; t < mir.triangles.length; t += 3) {
      const [a, b, c] = [0, 1, 2].map((k) =>
        Array.from(mir.vertices.slice(mir.triangles[t + k] * 3, mir.triangles[t + k] * 3 + 3)),
      );
      signed +=
        a[0] * (b[1] * c[2] - b[2] * c[1]) -
        a[1] * (b[0] * c[2] - b[2] * c[0]) +
        a[2] * (b[0] * c[1] - b[1] * c[0]);
    }
    expect(signed / 6).toBeCloseTo(1 / 6, 7);
  });
});

/** every STL and OBJ file under a folder */
function meshFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(stl|obj)$/i.test(f))
    .map((f) => path.join(dir, f));
}

/** the volume of a closed triangle surface, about its first vertex (far origins keep their digits) */
function closedVolume(V: ArrayLike<number>, tris: ArrayLike<number>): number {
  let vol = 0;
  for (let t = 0; t < tris.length; t += 3) {
    const [a, b, c] = [0, 1, 2].map((e) => [0, 1, 2].map((k) => V[tris[t + e] * 3 + k] - V[k]));
    vol +=
      a[0] * (b[1] * c[2] - b[2] * c[1]) -
      a[1] * (b[0] * c[2] - b[2] * c[0]) +
      a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return vol / 6;
}

describe("convex hulls of the shared assets' meshes, against three.js's ConvexHull", () => {
  it('every STL and OBJ: a closed outward hull holding every vertex, of the peer’s volume', async () => {
    const THREE = await import('three');
    const { ConvexHull } = await import('three/examples/jsm/math/ConvexHull.js');
    const files = [...meshFiles(SHARED_ASSETS), ...meshFiles(path.join(SAP_WARP, 'assets'))];
    expect(files.length).toBeGreaterThan(150);
    let hulls = 0;
    for (const file of files) {
      let m;
      try {
        m = parseMeshBytes(new Uint8Array(readFileSync(file)), file);
      } catch {
        continue; // unreadable files are the readers' tests' business
      }
      const p = m.vertices;
      const h = convexHull(p, file);
      hulls++;
      const V = h.vertices;
      const nv = V.length / 3;
      // closed: every directed edge once, with its twin
      const edges = new Set<number>();
      for (let t = 0; t < h.triangles.length; t += 3)
        for (let e = 0; e < 3; e++) edges.add(h.triangles[t + e] * nv + h.triangles[t + ((e + 1) % 3)]);
      expect(edges.size, file).toBe(h.triangles.length);
      for (const k of edges) expect(edges.has((k % nv) * nv + Math.floor(k / nv)), file).toBe(true);
      // outward and holding every input vertex (within 1e-7 of the bounding box’s diagonal: a sliver
      // triangle’s plane tilts with the rounding of its corners; a folded face is off by the diagonal)
      const lo = [Infinity, Infinity, Infinity],
        hi = [-Infinity, -Infinity, -Infinity];
      for (let i = 0; i < p.length; i++) {
        lo[i % 3] = Math.min(lo[i % 3], p[i]);
        hi[i % 3] = Math.max(hi[i % 3], p[i]);
      }
      const tol = 1e-7 * Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
      let worst = -Infinity;
      for (let t = 0; t < h.triangles.length; t += 3) {
        const [a, b, c] = [0, 1, 2].map((e) => h.triangles[t + e] * 3);
        const u = [V[b] - V[a], V[b + 1] - V[a + 1], V[b + 2] - V[a + 2]];
        const w = [V[c] - V[a], V[c + 1] - V[a + 1], V[c + 2] - V[a + 2]];
        const n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]];
        const l = Math.hypot(n[0], n[1], n[2]);
        for (let i = 0; i < p.length; i += 3)
          worst = Math.max(
            worst,
            (n[0] * (p[i] - V[a]) + n[1] * (p[i + 1] - V[a + 1]) + n[2] * (p[i + 2] - V[a + 2])) / l,
          );
      }
      expect(worst, file).toBeLessThan(tol);
      // the peer's hull of the same vertices has the same volume
      const peer = new ConvexHull().setFromPoints(
        Array.from(
          { length: p.length / 3 },
          (_, i) => new THREE.Vector3(p[i * 3], p[i * 3 + 1], p[i * 3 + 2]),
        ),
      );
      const pv: number[] = [],
        pt: number[] = [];
      for (const face of peer.faces) {
        const ring: number[] = [];
        let e = face.edge;
        do {
          const q = e.head().point;
          ring.push(pv.length / 3);
          pv.push(q.x, q.y, q.z);
          e = e.next;
        } while (e !== face.edge);
        for (let k = 1; k + 1 < ring.length; k++) pt.push(ring[0], ring[k], ring[k + 1]);
      }
      const ours = closedVolume(V, h.triangles);
      expect(Math.abs(ours - closedVolume(pv, pt)) / ours, file).toBeLessThan(1e-9);
    }
    expect(hulls).toBeGreaterThan(150);
  });
});
