import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRng, quatFromAxisAngle } from '../math';
import { ModelBuilder, ShapeType } from '../model';
import { makeState } from '../kinematics';
import { makeShapeGeom, updateShapeGeom, type ShapeGeom } from './geometry';
import { makeManifold, selectSpread } from './manifold';
import { meshHull } from './mesh_data';
import { NARROW_PHASE_TABLE } from './narrowphase';
import { parseMeshBytes } from '../io/mesh';
import { convexHull, hullFaces, type HullFaces } from './hull';
import { hullArgmax, hullFacesNear, WALK_FACES, WALK_MIN_VERTICES } from './hull_walk';
import { FEATURE_COS_TOL } from './support';

const SHARED = path.resolve(__dirname, '../../../shared');

/** the hulls of every shared STL / OBJ with more vertices than the walk's threshold */
function sharedHulls(): { file: string; F: HullFaces }[] {
  const out: { file: string; F: HullFaces }[] = [];
  for (const dir of [path.join(SHARED, 'assets'), path.join(SHARED, 'reference/sap_warp/assets')]) {
    for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (!/\.(stl|obj)$/i.test(f)) continue;
      const file = path.join(dir, f);
      let m;
      try {
        m = parseMeshBytes(new Uint8Array(readFileSync(file)), file);
      } catch {
        continue;
      }
      const h = convexHull(m.vertices);
      if (h && h.vertices.length / 3 > WALK_MIN_VERTICES) out.push({ file, F: hullFaces(h) });
    }
  }
  return out;
}

/** the scan the walk replaces: first vertex of the largest value */
function scanArgmax(V: Float64Array, dx: number, dy: number, dz: number): number {
  let best = -Infinity,
    bi = 0;
  for (let i = 0; i < V.length / 3; i++) {
    const v = dx * V[i * 3] + dy * V[i * 3 + 1] + dz * V[i * 3 + 2];
    if (v > best) {
      best = v;
      bi = i;
    }
  }
  return bi;
}

/** the most parallel face of the scaled hull to the unit local direction l (support.ts's scan) */
function scanFace(F: HullFaces, faces: ArrayLike<number>, count: number, l: number[], s: number[]) {
  let bf = -1,
    bd = -Infinity;
  for (let k = 0; k < count; k++) {
    const f = faces[k];
    const fx = F.faceNormal[f * 3] / s[0],
      fy = F.faceNormal[f * 3 + 1] / s[1],
      fz = F.faceNormal[f * 3 + 2] / s[2];
    const d = (fx * l[0] + fy * l[1] + fz * l[2]) / Math.hypot(fx, fy, fz);
    if (d > bd) {
      bd = d;
      bf = f;
    }
  }
  return { bf, bd };
}

function unit(rng: () => number): number[] {
  for (;;) {
    const v = [2 * rng() - 1, 2 * rng() - 1, 2 * rng() - 1];
    const l = Math.hypot(v[0], v[1], v[2]);
    if (l > 0.1 && l <= 1) return v.map((x) => x / l);
  }
}

/** cylinder rims (n/2 points per rim at equal angles): whole caps and sides tie */
function cylinderHull(n: number): HullFaces {
  const p = new Float64Array(n * 3);
  for (let i = 0; i < n; i++) {
    const a = ((i % (n / 2)) / (n / 2)) * 2 * Math.PI;
    p.set([Math.cos(a), Math.sin(a), i < n / 2 ? -0.5 : 0.5], i * 3);
  }
  return hullFaces(convexHull(p)!);
}

describe('hull walks answer exactly what the scans answer', () => {
  const hulls = sharedHulls();

  it('the extreme vertex, ties to the lowest index, on every shared mesh hull', () => {
    expect(hulls.length).toBeGreaterThan(100);
    const rng = makeRng(17);
    let walked = 0;
    for (const { file, F } of hulls) {
      const V = F.vertices;
      const dirs: number[][] = [];
      for (let k = 0; k < 60; k++) dirs.push(unit(rng));
      // axis directions and face normals: whole faces tie on CAD meshes
      for (let k = 0; k < 3; k++) for (const s of [1, -1]) dirs.push([0, 1, 2].map((j) => (j === k ? s : 0)));
      for (let k = 0; k < 20; k++) {
        const f = Math.floor(rng() * F.faceCount);
        dirs.push([F.faceNormal[f * 3], F.faceNormal[f * 3 + 1], F.faceNormal[f * 3 + 2]]);
      }
      for (const d of dirs) {
        // unit, and scaled per axis as support.ts passes it (mirrored too)
        for (const s of [
          [1, 1, 1],
          [0.3, 2, -1.5],
        ]) {
          const dx = d[0] * s[0],
            dy = d[1] * s[1],
            dz = d[2] * s[2];
          expect(hullArgmax(F, dx, dy, dz), file).toBe(scanArgmax(V, dx, dy, dz));
          walked++;
        }
      }
    }
    expect(walked).toBeGreaterThan(10000);
  });

  it('the extreme vertex along a slowly turning direction (the ascent starts from the last answer)', () => {
    const rng = makeRng(17);
    let walked = 0;
    for (const { file, F } of hulls.slice(0, 20)) {
      const V = F.vertices;
      let d = unit(rng);
      for (let k = 0; k < 200; k++) {
        // a turn of a few milliradians per call, as a shape resting on a plane is asked each step
        const e = unit(rng);
        d = [d[0] + 0.004 * e[0], d[1] + 0.004 * e[1], d[2] + 0.004 * e[2]];
        expect(hullArgmax(F, d[0], d[1], d[2]), file).toBe(scanArgmax(V, d[0], d[1], d[2]));
        expect(hullArgmax(F, -d[0], -d[1], -d[2]), file).toBe(scanArgmax(V, -d[0], -d[1], -d[2]));
        walked += 2;
      }
    }
    expect(walked).toBeGreaterThan(1000);
  });

  it('the extreme vertex on generated hulls with many ties, and for degenerate directions', () => {
    const rng = makeRng(5);
    for (const n of [100, 400, 2000]) {
      const F = cylinderHull(n);
      const V = F.vertices;
      const dirs = [
        [0, 0, 1],
        [0, 0, -1],
        [1, 0, 0],
        [0, -1, 0],
        [0, 0, 0],
        [NaN, 0, 1],
      ];
      for (let k = 0; k < 200; k++) dirs.push(unit(rng));
      // rim directions: two vertices (one per rim) tie
      for (let k = 0; k < 50; k++) {
        const a = ((Math.floor(rng() * (n / 2)) + 0.5) / (n / 2)) * 2 * Math.PI;
        dirs.push([Math.cos(a), Math.sin(a), 0]);
      }
      for (const d of dirs)
        expect(hullArgmax(F, d[0], d[1], d[2]), `n ${n} d ${d}`).toBe(scanArgmax(V, d[0], d[1], d[2]));
    }
  });

  it('the face most parallel to a direction, whenever it is within the feature tolerance', () => {
    const rng = makeRng(29);
    let within = 0;
    const all = new Int32Array(1 << 16).map((_, i) => i);
    for (const { file, F } of hulls.slice(0, 30)) {
      for (const s of [
        [1, 1, 1],
        [0.5, 1.5, -1],
      ]) {
        for (let k = 0; k < 40; k++) {
          // a face normal of the scaled hull turned by up to ~4° (inside and outside the tolerance)
          const f = Math.floor(rng() * F.faceCount);
          const n = [0, 1, 2].map((j) => F.faceNormal[f * 3 + j] / s[j]);
          const t = unit(rng);
          const a = 0.07 * rng();
          const l0 = [0, 1, 2].map((j) => n[j] / Math.hypot(n[0], n[1], n[2]) + a * t[j]);
          const l = l0.map((x) => x / Math.hypot(l0[0], l0[1], l0[2]));
          const top = hullArgmax(F, l[0] * s[0], l[1] * s[1], l[2] * s[2]);
          const m = hullFacesNear(F, top, l[0] * s[0], l[1] * s[1], l[2] * s[2], 1.5, FEATURE_COS_TOL);
          const near = scanFace(F, WALK_FACES, m, l, s);
          const full = scanFace(F, all, F.faceCount, l, s);
          if (full.bd >= FEATURE_COS_TOL) {
            within++;
            expect(near.bf, file).toBe(full.bf);
          } else expect(near.bd, file).toBeLessThan(FEATURE_COS_TOL);
          for (let q = 1; q < m; q++) expect(WALK_FACES[q]).toBeGreaterThan(WALK_FACES[q - 1]);
        }
      }
    }
    expect(within).toBeGreaterThan(250);
  });
});

describe('plane–convex mesh with a large hull', () => {
  /** the routine's answer from a scan of every hull vertex (its formulas, independently written) */
  function reference(g: ShapeGeom, F: HullFaces, margin: number, gap: number) {
    const V = F.vertices;
    const R = g.rot,
      n = [R[2], R[5], R[8]],
      o = [g.pos[0], g.pos[1], g.pos[2]],
      c = [g.pos[3], g.pos[4], g.pos[5]],
      s = [g.size[3], g.size[4], g.size[5]];
    const P: number[] = [],
      D: number[] = [],
      I: number[] = [];
    let ext = 0;
    for (let i = 0; i < V.length / 3; i++) {
      const l = [0, 1, 2].map((k) => s[k] * V[i * 3 + k]);
      const x = [0, 1, 2].map(
        (k) => c[k] + R[9 + k * 3] * l[0] + R[9 + k * 3 + 1] * l[1] + R[9 + k * 3 + 2] * l[2],
      );
      const d = n[0] * (x[0] - o[0]) + n[1] * (x[1] - o[1]) + n[2] * (x[2] - o[2]);
      if (d - margin > gap) continue;
      P.push(...x);
      D.push(d);
      I.push(i);
      ext = Math.max(ext, ...l.map(Math.abs));
    }
    const picked = new Int32Array(4);
    const m = I.length
      ? selectSpread(I.length, Float64Array.from(P), Float64Array.from(D), 4, 1e-9 * ext, picked)
      : 0;
    return Array.from(picked.subarray(0, m), (q) => [I[q], D[q]]);
  }

  it('emits the points of a scan over every hull vertex, bit for bit', () => {
    const rng = makeRng(41);
    const g1 = path.join(
      SHARED,
      'reference/sap_warp/assets/newton-assets/unitree_g1/meshes/pelvis_contour_link.STL',
    );
    const meshes = [
      cylinderHull(400),
      hullFaces(convexHull(parseMeshBytes(new Uint8Array(readFileSync(g1)), g1).vertices)!),
    ];
    let touching = 0;
    for (const F of meshes) {
      const b = new ModelBuilder();
      b.addShape({ body: -1, type: 'plane', size: [0, 0, 0] });
      const body = b.addBody();
      const mesh = b.addMesh({ vertices: Array.from(F.vertices), triangles: [0, 1, 2] });
      b.addShape({ body, type: 'convex_mesh', size: [1.3, 0.8, 1.1], mesh });
      const model = b.finalize();
      const st = makeState(model);
      const g = makeShapeGeom(model);
      const hull = meshHull(model, g.meshes, 0)!;
      for (let k = 0; k < 300; k++) {
        // flat on the plane (whole faces tie), or turned at random, across the band
        const q = k % 3 === 0 ? [0, 0, 0, 1] : randomQuat(rng);
        st.body_q.set([rng() - 0.5, rng() - 0.5, 0, ...q], 0);
        updateShapeGeom(model, st.body_q, g);
        const low = Math.min(
          ...Array.from({ length: hull.vertices.length / 3 }, (_, i) => worldZ(g, hull, i)),
        );
        st.body_q[2] = -low + 0.01 * (rng() - 0.5);
        updateShapeGeom(model, st.body_q, g);
        const out = makeManifold();
        const margin = 0.002 * rng(),
          gap = 0.003 * rng();
        NARROW_PHASE_TABLE[ShapeType.PLANE][ShapeType.CONVEX_MESH]!(g, 0, 1, margin, gap, out);
        const want = reference(g, hull, margin, gap);
        expect(out.count).toBe(want.length);
        for (let i = 0; i < out.count; i++) {
          expect(out.feature[i]).toBe(want[i][0]);
          expect(out.distance[i]).toBe(want[i][1]);
        }
        if (out.count > 0) touching++;
      }
    }
    expect(touching).toBeGreaterThan(300);
  });
});

/** world z of hull vertex i of shape 1 */
function worldZ(g: ShapeGeom, F: HullFaces, i: number): number {
  const R = g.rot;
  const l = [0, 1, 2].map((k) => g.size[3 + k] * F.vertices[i * 3 + k]);
  return g.pos[5] + R[15] * l[0] + R[16] * l[1] + R[17] * l[2];
}

function randomQuat(rng: () => number): number[] {
  const q = new Float64Array([0, 0, 0, 1]);
  quatFromAxisAngle(rng() - 0.5, rng() - 0.5, rng() - 0.5, 7 * rng(), q, 0);
  return Array.from(q);
}
