/**
 * Randomized property tests for every supported pair of the dispatch table (deterministic seeds):
 * - swapping the shapes flips the normals and swaps the witnesses (same distances and features);
 * - every point has a unit normal, d = nᵀ(p_B − p_A), witnesses on the (un-inflated) surfaces;
 * - separated pairs: the smallest d equals the brute-force reference distance (1e-6 relative);
 * - penetrating convex pairs with a single point: d equals minus the reference penetration depth;
 * - the gap band: a pair emits iff d − (m_a + m_b) ≤ g_a + g_b, on both sides of the threshold.
 */
import { describe, expect, it } from 'vitest';
import { makeRng, quatFromAxisAngle } from '../math';
import { ModelBuilder, SHAPE_TYPE_NAMES, ShapeType, type ShapeTypeName } from '../model';
import { makeState } from '../kinematics';
import { makeShapeGeom, updateShapeGeom, type ShapeGeom } from './geometry';
import { convexHull } from './hull';
import { makeManifold, type ContactManifold } from './manifold';
import { NARROW_PHASE_TABLE, pairSupported } from './narrowphase';
import {
  hfieldWorldTriangles,
  local,
  meshWorldTriangles,
  pointsSupport,
  separation,
  shapeSupport,
  surfaceResidual,
  type Support,
  type V3,
} from './reference';

type Rng = () => number;

interface Spec {
  type: ShapeTypeName;
  size: number[];
  mesh?: { vertices: number[]; triangles: number[] };
  hfield?: { nrow: number; ncol: number; size: number[]; data: number[] };
}

function hullMesh(rng: Rng, n: number): { vertices: number[]; triangles: number[] } {
  for (;;) {
    const pts: number[] = [];
    for (let i = 0; i < n; i++) pts.push(0.5 * (rng() - 0.5), 0.4 * (rng() - 0.5), 0.45 * (rng() - 0.5));
    const h = convexHull(pts);
    if (h && h.vertices.length >= 15)
      return { vertices: Array.from(h.vertices), triangles: Array.from(h.triangles) };
  }
}

function randomSpec(type: ShapeTypeName, rng: Rng): Spec {
  const r = (lo: number, hi: number) => lo + (hi - lo) * rng();
  switch (type) {
    case 'plane':
      return { type, size: rng() < 0.5 ? [0, 0, 0] : [r(2, 3), r(2, 3), 0] };
    case 'sphere':
      return { type, size: [r(0.05, 0.3)] };
    case 'capsule':
    case 'cylinder':
    case 'cone':
      return { type, size: [r(0.05, 0.25), r(0.05, 0.3)] };
    case 'box':
    case 'ellipsoid':
      return { type, size: [r(0.05, 0.3), r(0.05, 0.3), r(0.05, 0.3)] };
    case 'convex_mesh':
    case 'mesh':
      return { type, size: [r(0.6, 1.4), r(0.6, 1.4), r(0.6, 1.4)], mesh: hullMesh(rng, 12) };
    case 'heightfield': {
      const nrow = 5,
        ncol = 4;
      return {
        type,
        size: [0, 0, 0],
        hfield: {
          nrow,
          ncol,
          size: [0.6, 0.5, 0.25, 0.1],
          data: Array.from({ length: nrow * ncol }, () => rng()),
        },
      };
    }
  }
}

function randomQuat(rng: Rng): number[] {
  const q = new Float64Array([0, 0, 0, 1]);
  quatFromAxisAngle(rng() - 0.5, rng() - 0.5, rng() - 0.5, 7 * rng(), q, 0);
  return Array.from(q);
}

/** shape i on body i at pose X[i] (planes and heightfields too: the routines do not care) */
function build(specs: Spec[], X: number[][], margin = [0, 0]): ShapeGeom {
  const b = new ModelBuilder();
  specs.forEach((s, i) => {
    const body = b.addBody();
    const mesh = s.mesh ? b.addMesh(s.mesh) : undefined;
    const hfield = s.hfield ? b.addHeightfield(s.hfield) : undefined;
    b.addShape({ body, type: s.type, size: s.size, mesh, hfield, cfg: { margin: margin[i] } });
    void i;
  });
  const model = b.finalize();
  const st = makeState(model);
  X.forEach((x, i) => st.body_q.set(x, i * 7));
  const g = makeShapeGeom(model);
  updateShapeGeom(model, st.body_q, g);
  return g;
}

function run(g: ShapeGeom, a: number, b: number, margin: number, gap: number): ContactManifold {
  const out = makeManifold();
  NARROW_PHASE_TABLE[g.type[a]][g.type[b]]!(g, a, b, margin, gap, out);
  return out;
}

const v = (a: Float64Array, i: number): V3 => [a[i * 3], a[i * 3 + 1], a[i * 3 + 2]];

/** swap consistency plus per-point invariants; returns the (0, 1) manifold */
function checkPair(g: ShapeGeom, margin: number, gap: number): ContactManifold {
  const m = run(g, 0, 1, margin, gap);
  const s = run(g, 1, 0, margin, gap);
  expect(s.count).toBe(m.count);
  const seen = new Set<number>();
  for (let i = 0; i < m.count; i++) {
    const n = v(m.normal, i);
    expect(Math.abs(Math.hypot(...n) - 1)).toBeLessThan(1e-12);
    const pa = v(m.pointA, i),
      pb = v(m.pointB, i);
    const d = n[0] * (pb[0] - pa[0]) + n[1] * (pb[1] - pa[1]) + n[2] * (pb[2] - pa[2]);
    expect(Math.abs(d - m.distance[i])).toBeLessThan(1e-9);
    expect(m.distance[i] - margin).toBeLessThanOrEqual(gap);
    // exact for pairs of different types (the table flips one evaluation); same-type analytic
    // routines are symmetric up to round-off
    for (let k = 0; k < 3; k++) {
      expect(Math.abs(s.normal[i * 3 + k] + m.normal[i * 3 + k])).toBeLessThan(1e-12);
      expect(Math.abs(s.pointA[i * 3 + k] - m.pointB[i * 3 + k])).toBeLessThan(1e-12);
      expect(Math.abs(s.pointB[i * 3 + k] - m.pointA[i * 3 + k])).toBeLessThan(1e-12);
    }
    expect(Math.abs(s.distance[i] - m.distance[i])).toBeLessThan(1e-12);
    expect(s.feature[i]).toBe(m.feature[i]);
    expect(seen.has(m.feature[i])).toBe(false);
    seen.add(m.feature[i]);
    // witnesses on the surfaces
    expect(surfaceResidual(g, 0, pa)).toBeLessThan(1e-6);
    expect(surfaceResidual(g, 1, pb)).toBeLessThan(1e-6);
  }
  return m;
}

function minDistance(m: ContactManifold): number {
  let d = Infinity;
  for (let i = 0; i < m.count; i++) d = Math.min(d, m.distance[i]);
  return d;
}

/** the brute-force distance of shapes 0 and 1 (> 0 when separated), or NaN when not computable */
function referenceDistance(g: ShapeGeom): number {
  const t0 = g.type[0],
    t1 = g.type[1];
  const soup = (s: number) =>
    g.type[s] === ShapeType.HEIGHTFIELD
      ? hfieldWorldTriangles(g, s)
      : g.type[s] === ShapeType.MESH
        ? meshWorldTriangles(g, s)
        : null;
  if (t0 === ShapeType.PLANE) {
    const n: V3 = [g.rot[2], g.rot[5], g.rot[8]];
    const p = shapeSupport(g, 1)([-n[0], -n[1], -n[2]]);
    return n[0] * (p[0] - g.pos[0]) + n[1] * (p[1] - g.pos[1]) + n[2] * (p[2] - g.pos[2]);
  }
  const tris0 = soup(0),
    tris1 = soup(1);
  if (tris0 || tris1) {
    // triangles of the soup (the static / larger one for mesh–mesh) against the other's hull
    let triSide = tris0 ? 0 : 1;
    if (tris0 && tris1) {
      // mesh–mesh: the mesh with more triangles (ties: shape 0); heightfield–mesh: the heightfield
      if (t1 === ShapeType.HEIGHTFIELD) triSide = 1;
      else triSide = tris1.length > tris0.length ? 1 : 0;
    }
    const tris = triSide === 0 ? tris0! : tris1!;
    const other: Support = shapeSupport(g, 1 - triSide);
    let best = Infinity;
    for (const t of tris) {
      const D = separation(pointsSupport(t), other, 1200).D;
      best = Math.min(best, D);
    }
    return best;
  }
  return separation(shapeSupport(g, 0), shapeSupport(g, 1)).D;
}

/**
 * Random poses: a plane / heightfield gets a nearly upright pose at the origin and the other shape is
 * placed `dist` above it; otherwise shape 1 is placed at a random direction and distance `dist`.
 */
function randomPoses(t0: number, t1: number, rng: Rng, dist: number): number[][] {
  const ground = (t: number) => t === ShapeType.PLANE || t === ShapeType.HEIGHTFIELD;
  if (ground(t0) || ground(t1)) {
    const gt = ground(t0) ? t0 : t1;
    const q = new Float64Array([0, 0, 0, 1]);
    quatFromAxisAngle(rng() - 0.5, rng() - 0.5, 0, 0.3 * rng(), q, 0);
    const G = [0, 0, 0, ...q];
    const up = q; // the shape rises along the ground's (slightly tilted) normal
    const n = [
      2 * (up[0] * up[2] + up[3] * up[1]),
      2 * (up[1] * up[2] - up[3] * up[0]),
      1 - 2 * (up[0] ** 2 + up[1] ** 2),
    ];
    const h = (gt === ShapeType.HEIGHTFIELD ? 0.25 : 0) + dist;
    const x = 0.3 * (rng() - 0.5),
      y = 0.3 * (rng() - 0.5);
    const O = [x + h * n[0], y + h * n[1], h * n[2], ...randomQuat(rng)];
    return ground(t0) ? [G, O] : [O, G];
  }
  const X0 = [0, 0, 0, ...randomQuat(rng)];
  let dx = rng() - 0.5,
    dy = rng() - 0.5,
    dz = rng() - 0.5;
  const l = Math.hypot(dx, dy, dz);
  dx /= l;
  dy /= l;
  dz /= l;
  return [X0, [dist * dx, dist * dy, dist * dz, ...randomQuat(rng)]];
}

const isGround = (t0: number, t1: number) =>
  t0 === ShapeType.PLANE || t0 === ShapeType.HEIGHTFIELD || t1 === ShapeType.HEIGHTFIELD;

const NAMES = SHAPE_TYPE_NAMES;
const PAIRS: [number, number][] = [];
for (let a = 0; a < NAMES.length; a++)
  for (let b = a; b < NAMES.length; b++) if (pairSupported(a, b)) PAIRS.push([a, b]);

const CONVEX = new Set<number>([
  ShapeType.SPHERE,
  ShapeType.CAPSULE,
  ShapeType.BOX,
  ShapeType.CYLINDER,
  ShapeType.CONE,
  ShapeType.ELLIPSOID,
  ShapeType.CONVEX_MESH,
]);

/** trials per pair (fewer for the expensive triangle-soup references) */
function trials(t0: number, t1: number): number {
  const soup =
    t0 === ShapeType.MESH ||
    t0 === ShapeType.HEIGHTFIELD ||
    t1 === ShapeType.MESH ||
    t1 === ShapeType.HEIGHTFIELD;
  return soup ? 6 : 14;
}

describe('every supported pair: separated distance, witnesses, swap', () => {
  it('the table covers every pair except plane–plane, plane–heightfield and heightfield–heightfield', () => {
    const missing: string[] = [];
    for (let a = 0; a < NAMES.length; a++)
      for (let b = a; b < NAMES.length; b++)
        if (!pairSupported(a, b)) missing.push(`${NAMES[a]}–${NAMES[b]}`);
    expect(missing.sort()).toEqual(['heightfield–heightfield', 'plane–heightfield', 'plane–plane']);
    for (let a = 0; a < NAMES.length; a++)
      for (let b = 0; b < NAMES.length; b++) expect(pairSupported(a, b)).toBe(pairSupported(b, a));
  });

  for (const [t0, t1] of PAIRS) {
    const name = `${NAMES[t0]}–${NAMES[t1]}`;
    it(`${name}: separated pairs report the reference distance`, () => {
      const rng = makeRng(1000 + t0 * 31 + t1);
      let checked = 0;
      for (let trial = 0; checked < trials(t0, t1) && trial < 200; trial++) {
        const specs = [randomSpec(NAMES[t0], rng), randomSpec(NAMES[t1], rng)];
        const dist = isGround(t0, t1) ? 0.3 + 0.5 * rng() : 0.3 + 0.6 * rng();
        const g = build(specs, randomPoses(t0, t1, rng, dist));
        const D = referenceDistance(g);
        if (!(D > 0.01)) continue;
        checked++;
        const m = checkPair(g, 0, 1e9);
        expect(m.count).toBeGreaterThan(0);
        const dmin = minDistance(m);
        expect(Math.abs(dmin - D)).toBeLessThanOrEqual(1e-6 * D + 1e-12);
      }
      expect(checked).toBe(trials(t0, t1));
    });

    it(`${name}: penetrating pairs keep the invariants and report an overlap`, () => {
      const rng = makeRng(2000 + t0 * 31 + t1);
      for (let trial = 0; trial < trials(t0, t1); trial++) {
        const specs = [randomSpec(NAMES[t0], rng), randomSpec(NAMES[t1], rng)];
        const dist = isGround(t0, t1) ? 0.15 * rng() - 0.05 : 0.25 * rng();
        const g = build(specs, randomPoses(t0, t1, rng, dist));
        const m = checkPair(g, 0, 1e9);
        if (CONVEX.has(t0) && CONVEX.has(t1)) {
          const D = separation(shapeSupport(g, 0), shapeSupport(g, 1)).D;
          if (D < -1e-6) {
            expect(m.count).toBeGreaterThan(0);
            expect(minDistance(m)).toBeLessThan(0);
          }
        }
      }
    });

    it(`${name}: gap band d − (m_a + m_b) ≤ g_a + g_b on both sides`, () => {
      const rng = makeRng(3000 + t0 * 31 + t1);
      let checked = 0;
      for (let trial = 0; checked < 3 && trial < 100; trial++) {
        const specs = [randomSpec(NAMES[t0], rng), randomSpec(NAMES[t1], rng)];
        const dist = isGround(t0, t1) ? 0.3 + 0.3 * rng() : 0.4 + 0.4 * rng();
        const g = build(specs, randomPoses(t0, t1, rng, dist));
        const full = run(g, 0, 1, 0, 1e9);
        if (full.count === 0) continue;
        const D = minDistance(full);
        if (!(D > 0.01)) continue;
        checked++;
        const margin = 0.02 + 0.05 * rng();
        for (const eps of [1e-7, -1e-7]) {
          const gap = D - margin + eps;
          const m = run(g, 0, 1, margin, gap);
          if (eps > 0) {
            expect(m.count).toBeGreaterThan(0);
            expect(Math.abs(minDistance(m) - D)).toBeLessThan(1e-9);
          } else expect(m.count).toBe(0);
        }
      }
      expect(checked).toBe(3);
    });
  }
});

describe('penetrating sphere / capsule / box / cylinder pairs report the analytic depth and normal', () => {
  const sub = (a: number[], b: number[]) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const dot3 = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const unit = (a: number[]) => a.map((x) => x / Math.hypot(a[0], a[1], a[2]));
  const axisOf = (g: ShapeGeom, s: number, k: number) => [
    g.rot[s * 9 + k],
    g.rot[s * 9 + 3 + k],
    g.rot[s * 9 + 6 + k],
  ];
  const pos = (g: ShapeGeom, s: number) => [g.pos[s * 3], g.pos[s * 3 + 1], g.pos[s * 3 + 2]];
  /** closest point parameters of two segments by dense search + refinement (independent of the routine) */
  function segSeg(c0: number[], u0: number[], h0: number, c1: number[], u1: number[], h1: number): number {
    const at = (c: number[], u: number[], t: number) => [c[0] + t * u[0], c[1] + t * u[1], c[2] + t * u[2]];
    const segPoint = (p: number[]) => {
      const t = Math.max(-h1, Math.min(h1, dot3(sub(p, c1), u1)));
      return Math.hypot(...sub(p, at(c1, u1, t)));
    };
    let lo = -h0,
      hi = h0;
    for (let it = 0; it < 200; it++) {
      const m1 = lo + (hi - lo) / 3,
        m2 = hi - (hi - lo) / 3;
      if (segPoint(at(c0, u0, m1)) <= segPoint(at(c0, u0, m2))) hi = m2;
      else lo = m1;
    }
    return segPoint(at(c0, u0, 0.5 * (lo + hi)));
  }
  const N = 40;

  it('sphere–sphere, sphere–capsule, capsule–capsule (skew): r_a + r_b − core distance along the core normal', () => {
    const rng = makeRng(501);
    for (let t = 0; t < N; t++) {
      for (const [ta, tb] of [
        ['sphere', 'sphere'],
        ['sphere', 'capsule'],
        ['capsule', 'capsule'],
      ] as [ShapeTypeName, ShapeTypeName][]) {
        const sa = randomSpec(ta, rng),
          sb = randomSpec(tb, rng);
        const g = build([sa, sb], randomPoses(1, 1, rng, 0.2 * rng()));
        const m = run(g, 0, 1, 0, 1e9);
        const core = (s: number, spec: Spec) => ({
          c: pos(g, s),
          u: axisOf(g, s, 2),
          h: spec.type === 'capsule' ? spec.size[1] : 0,
        });
        const A = core(0, sa),
          B = core(1, sb);
        const D = segSeg(A.c, A.u, A.h, B.c, B.u, B.h);
        const depth = sa.size[0] + sb.size[0] - D;
        if (depth <= 0 || m.count !== 1) continue;
        expect(Math.abs(-m.distance[0] - depth)).toBeLessThan(1e-7);
        // the normal is the core offset direction: p_B − p_A along it spans r_a + r_b − depth… of the cores
        const n = v(m.normal, 0);
        const coreA = sub(
          v(m.pointA, 0),
          n.map((x) => x * sa.size[0]),
        );
        const coreB = sub(
          v(m.pointB, 0),
          n.map((x) => -x * sb.size[0]),
        );
        expect(Math.abs(Math.hypot(...sub(coreB, coreA)) - D)).toBeLessThan(1e-7);
        expect(Math.abs(dot3(unit(sub(coreB, coreA)), n) - 1)).toBeLessThan(1e-9);
      }
    }
  });

  it('sphere–box and sphere–cylinder: outside r − dist; centre inside r + distance to the nearest face', () => {
    const rng = makeRng(502);
    for (let t = 0; t < N; t++) {
      for (const tb of ['box', 'cylinder'] as ShapeTypeName[]) {
        const sa = randomSpec('sphere', rng),
          sb = randomSpec(tb, rng);
        const g = build([sa, sb], randomPoses(1, 1, rng, 0.3 * rng()));
        const m = run(g, 0, 1, 0, 1e9);
        expect(m.count).toBe(1);
        const l = local(g, 1, pos(g, 0));
        let inside: number, nLocal: number[];
        if (tb === 'box') {
          const q = l.map((x, k) => Math.max(-sb.size[k], Math.min(sb.size[k], x)));
          const d = Math.hypot(...sub(l, q));
          if (d > 0) {
            expect(Math.abs(m.distance[0] - (d - sa.size[0]))).toBeLessThan(1e-9);
            nLocal = unit(sub(q, l));
          } else {
            const f = l.map((x, k) => sb.size[k] - Math.abs(x));
            const k = f.indexOf(Math.min(...f));
            inside = f[k];
            expect(Math.abs(m.distance[0] - (-inside - sa.size[0]))).toBeLessThan(1e-9);
            nLocal = [0, 0, 0];
            nLocal[k] = l[k] < 0 ? 1 : -1;
          }
        } else {
          const [r, h] = sb.size;
          const rho = Math.hypot(l[0], l[1]);
          const qr = Math.min(rho, r),
            qz = Math.max(-h, Math.min(h, l[2]));
          const q = [rho > 0 ? (l[0] * qr) / rho : 0, rho > 0 ? (l[1] * qr) / rho : 0, qz];
          const d = Math.hypot(...sub(l, q));
          if (d > 1e-12) {
            expect(Math.abs(m.distance[0] - (d - sa.size[0]))).toBeLessThan(1e-9);
            nLocal = unit(sub(q, l));
          } else {
            const side = r - rho,
              cap = h - Math.abs(l[2]);
            inside = Math.min(side, cap);
            expect(Math.abs(m.distance[0] - (-inside - sa.size[0]))).toBeLessThan(1e-9);
            nLocal = side <= cap ? [-l[0] / rho, -l[1] / rho, 0] : [0, 0, l[2] < 0 ? 1 : -1];
          }
        }
        const nWorld = [0, 1, 2].map(
          (i) =>
            axisOf(g, 1, 0)[i] * nLocal[0] + axisOf(g, 1, 1)[i] * nLocal[1] + axisOf(g, 1, 2)[i] * nLocal[2],
        );
        expect(Math.hypot(...sub(v(m.normal, 0), nWorld))).toBeLessThan(1e-9);
      }
    }
  });

  it('box–box and capsule–box sunk face-down by δ: depth δ along the face normal (4 and 2 points)', () => {
    const rng = makeRng(503);
    for (let t = 0; t < N; t++) {
      const delta = 0.001 + 0.02 * rng();
      const yaw = 6 * rng();
      const q = [0, 0, Math.sin(yaw / 2), Math.cos(yaw / 2)];
      const big: Spec = { type: 'box', size: [0.5, 0.5, 0.2] };
      const top: Spec =
        rng() < 0.5 ? { type: 'box', size: [0.1, 0.08, 0.05] } : { type: 'capsule', size: [0.04, 0.1] };
      const lift = top.type === 'box' ? top.size[2] : top.size[0];
      // a capsule lies along x (its local z turned onto x about y), then yawed
      const qa =
        top.type === 'capsule'
          ? [
              Math.SQRT1_2 * Math.cos(yaw / 2),
              Math.SQRT1_2 * Math.sin(yaw / 2),
              Math.SQRT1_2 * Math.sin(yaw / 2),
              Math.SQRT1_2 * Math.cos(yaw / 2),
            ]
          : q;
      void qa;
      const qc = top.type === 'capsule' ? quatMulArr(q, [0, Math.SQRT1_2, 0, Math.SQRT1_2]) : q;
      const g = build(
        [big, top],
        [
          [0, 0, -0.2, 0, 0, 0, 1],
          [0.1 * (rng() - 0.5), 0.1 * (rng() - 0.5), lift - delta, ...qc],
        ],
      );
      const m = run(g, 0, 1, 0, 0);
      expect(m.count).toBe(top.type === 'box' ? 4 : 2);
      for (let i = 0; i < m.count; i++) {
        expect(Math.abs(m.distance[i] + delta)).toBeLessThan(1e-9);
        expect(Math.hypot(...sub(v(m.normal, i), [0, 0, 1]))).toBeLessThan(1e-9);
      }
    }
  });
});

/** quaternion product a ⊗ b (xyzw) */
function quatMulArr(a: number[], b: number[]): number[] {
  const [ax, ay, az, aw] = a,
    [bx, by, bz, bw] = b;
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}
