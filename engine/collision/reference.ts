/**
 * Test-only brute-force references for the narrow phase, written independently of `support.ts` /
 * `gjk.ts`:
 * - world-frame support functions h_X(u) = max_{x ∈ X} uᵀx of every convex shape and of a triangle;
 * - the separation distance of two convex sets as the maximum over the unit ball of the concave
 *   function sep(u) = −h_A(u) − h_B(−u), solved by the (central-cut) ellipsoid method in ℝ³ — a
 *   convex program over support functions only, converging geometrically to ~1e-12;
 * - the penetration depth min_{|u| = 1} h_A(u) + h_B(−u) by dense direction sampling and local
 *   refinement;
 * - surface residuals (0 exactly on a shape's surface) for witness checks.
 */
import { ShapeType, type SapModel } from '../model';
import type { ShapeGeom } from './geometry';

export type V3 = [number, number, number];

const dot = (a: readonly number[], b: readonly number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/** column k of shape s's rotation (its local axis k in the world) */
function axis(g: ShapeGeom, s: number, k: number): V3 {
  return [g.rot[s * 9 + k], g.rot[s * 9 + 3 + k], g.rot[s * 9 + 6 + k]];
}
function centre(g: ShapeGeom, s: number): V3 {
  return [g.pos[s * 3], g.pos[s * 3 + 1], g.pos[s * 3 + 2]];
}
/** world point → local coordinates of shape s */
export function local(g: ShapeGeom, s: number, p: readonly number[]): V3 {
  const c = centre(g, s);
  const d = [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
  return [dot(axis(g, s, 0), d), dot(axis(g, s, 1), d), dot(axis(g, s, 2), d)];
}
/** local → world */
export function world(g: ShapeGeom, s: number, l: readonly number[]): V3 {
  const c = centre(g, s);
  const out: V3 = [c[0], c[1], c[2]];
  for (let k = 0; k < 3; k++) {
    const a = axis(g, s, k);
    for (let i = 0; i < 3; i++) out[i] += l[k] * a[i];
  }
  return out;
}

function meshScale(g: ShapeGeom, s: number): V3 {
  return [0, 1, 2].map((k) => g.size[s * 3 + k] || 1) as V3;
}

/** world vertices of a mesh shape */
export function meshWorldVertices(g: ShapeGeom, s: number): V3[] {
  const m = g.model;
  const mi = m.shape_mesh[s];
  const sc = meshScale(g, s);
  const out: V3[] = [];
  for (let v = m.mesh_vertex_start[mi]; v < m.mesh_vertex_start[mi + 1]; v++) {
    out.push(
      world(
        g,
        s,
        [0, 1, 2].map((k) => sc[k] * m.mesh_vertices[v * 3 + k]),
      ),
    );
  }
  return out;
}

/** world triangles of a mesh shape */
export function meshWorldTriangles(g: ShapeGeom, s: number): V3[][] {
  const m = g.model;
  const mi = m.shape_mesh[s];
  const V = meshWorldVertices(g, s);
  const out: V3[][] = [];
  for (let t = m.mesh_triangle_start[mi]; t < m.mesh_triangle_start[mi + 1]; t++) {
    out.push([0, 1, 2].map((e) => V[m.mesh_triangles[t * 3 + e]]));
  }
  return out;
}

/** world triangles of a heightfield shape (both halves of every cell) */
export function hfieldWorldTriangles(g: ShapeGeom, s: number): V3[][] {
  const m: SapModel = g.model;
  const h = m.shape_hfield[s];
  const nr = m.hfield_nrow[h],
    nc = m.hfield_ncol[h];
  const [sx, sy, sz] = [m.hfield_size[h * 4], m.hfield_size[h * 4 + 1], m.hfield_size[h * 4 + 2]];
  const P = (r: number, c: number) =>
    world(g, s, [
      -sx + (2 * sx * c) / (nc - 1),
      -sy + (2 * sy * r) / (nr - 1),
      sz * m.hfield_data[m.hfield_data_start[h] + r * nc + c],
    ]);
  const out: V3[][] = [];
  for (let r = 0; r + 1 < nr; r++) {
    for (let c = 0; c + 1 < nc; c++) {
      out.push([P(r, c), P(r, c + 1), P(r + 1, c + 1)]);
      out.push([P(r, c), P(r + 1, c + 1), P(r + 1, c)]);
    }
  }
  return out;
}

/** a support function: the extreme point along u (world) */
export type Support = (u: readonly number[]) => V3;

/** the support function of convex shape s (mesh shapes: their vertices) */
export function shapeSupport(g: ShapeGeom, s: number): Support {
  const t = g.type[s];
  const sz = [g.size[s * 3], g.size[s * 3 + 1], g.size[s * 3 + 2]];
  const c = centre(g, s);
  const ax = axis(g, s, 2);
  const unit = (u: readonly number[]) => {
    const l = Math.hypot(u[0], u[1], u[2]);
    return l > 0 ? [u[0] / l, u[1] / l, u[2] / l] : [0, 0, 0];
  };
  switch (t) {
    case ShapeType.SPHERE:
      return (u) => {
        const e = unit(u);
        return [c[0] + sz[0] * e[0], c[1] + sz[0] * e[1], c[2] + sz[0] * e[2]];
      };
    case ShapeType.CAPSULE:
      return (u) => {
        const e = unit(u);
        const s2 = dot(u, ax) >= 0 ? sz[1] : -sz[1];
        return [0, 1, 2].map((k) => c[k] + s2 * ax[k] + sz[0] * e[k]) as V3;
      };
    case ShapeType.BOX:
      return (u) => {
        const l = local(g, s, [c[0] + u[0], c[1] + u[1], c[2] + u[2]]);
        return world(
          g,
          s,
          l.map((x, k) => (x >= 0 ? sz[k] : -sz[k])),
        );
      };
    case ShapeType.CYLINDER:
      return (u) => {
        const l = local(g, s, [c[0] + u[0], c[1] + u[1], c[2] + u[2]]);
        const rho = Math.hypot(l[0], l[1]);
        const r = rho > 0 ? sz[0] / rho : 0;
        return world(g, s, [l[0] * r, l[1] * r, l[2] >= 0 ? sz[1] : -sz[1]]);
      };
    case ShapeType.CONE:
      return (u) => {
        const l = local(g, s, [c[0] + u[0], c[1] + u[1], c[2] + u[2]]);
        const rho = Math.hypot(l[0], l[1]);
        const apex: V3 = [0, 0, sz[1]];
        const rim: V3 = rho > 0 ? [(sz[0] * l[0]) / rho, (sz[0] * l[1]) / rho, -sz[1]] : [0, 0, -sz[1]];
        return world(g, s, dot(apex, l) >= dot(rim, l) ? apex : rim);
      };
    case ShapeType.ELLIPSOID:
      return (u) => {
        const l = local(g, s, [c[0] + u[0], c[1] + u[1], c[2] + u[2]]);
        const q = l.map((x, k) => x * sz[k] * sz[k]);
        const den = Math.sqrt(l.reduce((acc, x, k) => acc + x * x * sz[k] * sz[k], 0));
        return world(g, s, den > 0 ? q.map((x) => x / den) : [0, 0, 0]);
      };
    case ShapeType.MESH:
    case ShapeType.CONVEX_MESH: {
      const V = meshWorldVertices(g, s);
      return pointsSupport(V);
    }
  }
  throw new Error(`no reference support for type ${t}`);
}

/** the support function of a point set (a triangle, a mesh's vertices) */
export function pointsSupport(P: readonly V3[]): Support {
  return (u) => {
    let best = P[0],
      bv = dot(P[0], u);
    for (const p of P) {
      const v = dot(p, u);
      if (v > bv) {
        bv = v;
        best = p;
      }
    }
    return best;
  };
}

/**
 * Separation distance of two convex sets (> 0 when disjoint): max_{|u| ≤ 1} −h_A(u) − h_B(−u)
 * by the central-cut ellipsoid method; returns the value and the maximising unit direction (A → B).
 */
export function separation(sa: Support, sb: Support, iters = 2000): { D: number; u: V3 } {
  const f = (u: readonly number[]) => -dot(sa(u), u) + dot(sb([-u[0], -u[1], -u[2]]), u);
  let x: V3 = [0, 0, 0];
  let P = [1.01, 0, 0, 0, 1.01, 0, 0, 0, 1.01];
  let best = -Infinity;
  let bu: V3 = [0, 0, 1];
  const n = 3;
  for (let it = 0; it < iters; it++) {
    let a: V3;
    const r = Math.hypot(x[0], x[1], x[2]);
    if (r > 1) {
      a = [x[0], x[1], x[2]]; // feasibility cut: keep {y : xᵀ(y − x) ≤ 0}
    } else {
      const v = f(x);
      if (v > best) {
        best = v;
        bu = r > 0 ? [x[0] / r, x[1] / r, x[2] / r] : bu;
      }
      // supergradient g = s_B(−x) − s_A(x); keep {y : gᵀ(y − x) ≥ 0}
      const gA = sa(x),
        gB = sb([-x[0], -x[1], -x[2]]);
      a = [gA[0] - gB[0], gA[1] - gB[1], gA[2] - gB[2]];
      if (r === 0 && Math.hypot(a[0], a[1], a[2]) === 0) a = [0, 0, -1];
    }
    const Pa = [
      P[0] * a[0] + P[1] * a[1] + P[2] * a[2],
      P[3] * a[0] + P[4] * a[1] + P[5] * a[2],
      P[6] * a[0] + P[7] * a[1] + P[8] * a[2],
    ];
    const aPa = dot(a, Pa);
    if (!(aPa > 0)) break;
    const s = Math.sqrt(aPa);
    const b = Pa.map((v) => v / s);
    x = [x[0] - b[0] / (n + 1), x[1] - b[1] / (n + 1), x[2] - b[2] / (n + 1)];
    const k = (n * n) / (n * n - 1);
    const Q = new Array<number>(9);
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 3; j++) Q[i * 3 + j] = k * (P[i * 3 + j] - (2 / (n + 1)) * b[i] * b[j]);
    P = Q;
  }
  // the value is positively homogeneous: rescale the best direction to unit length
  return { D: best > 0 ? f(bu) : best, u: bu };
}

/**
 * Penetration depth min_{|u|=1} h_A(u) + h_B(−u) (≥ 0 when overlapping) and its direction (A → B):
 * dense direction sampling, then Riemannian gradient descent (gradient s_A(u) − s_B(−u)) with
 * backtracking from the best samples. Accurate for smooth shapes; use {@link satPenetration} for
 * polytopes.
 */
export function penetration(sa: Support, sb: Support): { depth: number; u: V3 } {
  const f = (u: readonly number[]) => dot(sa(u), u) - dot(sb([-u[0], -u[1], -u[2]]), u);
  const norm = (u: readonly number[]): V3 => {
    const l = Math.hypot(u[0], u[1], u[2]);
    return [u[0] / l, u[1] / l, u[2] / l];
  };
  const samples: { v: number; u: V3 }[] = [];
  const N = 30;
  for (let i = 0; i <= N; i++) {
    const th = (Math.PI * i) / N;
    for (let j = 0; j < 2 * N; j++) {
      const ph = (Math.PI * j) / N;
      const u: V3 = [Math.sin(th) * Math.cos(ph), Math.sin(th) * Math.sin(ph), Math.cos(th)];
      samples.push({ v: f(u), u });
    }
  }
  samples.sort((a, b) => a.v - b.v);
  let best = samples[0];
  for (const start of samples.slice(0, 6)) {
    let u = start.u,
      v = start.v,
      step = 0.05;
    for (let it = 0; it < 4000 && step > 1e-16; it++) {
      const a = sa(u),
        b = sb([-u[0], -u[1], -u[2]]);
      const g = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
      const gu = dot(g, u);
      const gt = [g[0] - gu * u[0], g[1] - gu * u[1], g[2] - gu * u[2]];
      const gl = Math.hypot(gt[0], gt[1], gt[2]);
      if (gl < 1e-15) break;
      const cand = norm([u[0] - (step * gt[0]) / gl, u[1] - (step * gt[1]) / gl, u[2] - (step * gt[2]) / gl]);
      const cv = f(cand);
      if (cv < v) {
        u = cand;
        v = cv;
        step *= 1.2;
      } else step *= 0.5;
    }
    if (v < best.v) best = { v, u };
  }
  return { depth: best.v, u: best.u };
}

/**
 * Penetration depth of two convex polytopes given as world vertex lists and triangle lists, by the
 * separating-axis theorem: the minimum of h_A(u) + h_B(−u) over the face normals of both and the
 * cross products of their edges (exact for polytopes).
 */
export function satPenetration(
  va: readonly V3[],
  ta: readonly number[][],
  vb: readonly V3[],
  tb: readonly number[][],
): { depth: number; u: V3 } {
  const axes: V3[] = [];
  const edges = (V: readonly V3[], T: readonly number[][]) => {
    const E: V3[] = [];
    for (const t of T) {
      const n = cross(sub(V[t[1]], V[t[0]]), sub(V[t[2]], V[t[0]]));
      axes.push(n);
      for (let e = 0; e < 3; e++) E.push(sub(V[t[(e + 1) % 3]], V[t[e]]));
    }
    return E;
  };
  const ea = edges(va, ta),
    eb = edges(vb, tb);
  for (const a of ea) for (const b of eb) axes.push(cross(a, b));
  const sa = pointsSupport(va),
    sb = pointsSupport(vb);
  let best = { depth: Infinity, u: [0, 0, 1] as V3 };
  for (const ax of axes) {
    const l = Math.hypot(ax[0], ax[1], ax[2]);
    if (!(l > 1e-9)) continue;
    for (const s of [1, -1]) {
      const u: V3 = [(s * ax[0]) / l, (s * ax[1]) / l, (s * ax[2]) / l];
      const v = dot(sa(u), u) - dot(sb([-u[0], -u[1], -u[2]]), u);
      if (v < best.depth) best = { depth: v, u };
    }
  }
  return best;
}

function sub(a: readonly number[], b: readonly number[]): V3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}
function cross(a: readonly number[], b: readonly number[]): V3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

/** unsigned distance from p to the triangle (a, b, c) */
export function pointTriangleDistance(p: readonly number[], t: readonly V3[]): number {
  const [a, b, c] = t;
  const ab = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const ac = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
  const n = [ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]];
  const nl = Math.hypot(n[0], n[1], n[2]);
  // inside the prism: the plane distance
  const ap = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
  const inside = [0, 1, 2].every((e) => {
    const u = t[e],
      v = t[(e + 1) % 3];
    const ev = [v[0] - u[0], v[1] - u[1], v[2] - u[2]];
    const up = [p[0] - u[0], p[1] - u[1], p[2] - u[2]];
    const cr = [ev[1] * up[2] - ev[2] * up[1], ev[2] * up[0] - ev[0] * up[2], ev[0] * up[1] - ev[1] * up[0]];
    return dot(cr, n) >= 0;
  });
  if (inside && nl > 0) return Math.abs(dot(ap, n)) / nl;
  let best = Infinity;
  for (let e = 0; e < 3; e++) {
    const u = t[e],
      v = t[(e + 1) % 3];
    const ev = [v[0] - u[0], v[1] - u[1], v[2] - u[2]];
    const ee = dot(ev, ev);
    let s = ee > 0 ? dot([p[0] - u[0], p[1] - u[1], p[2] - u[2]], ev) / ee : 0;
    s = Math.max(0, Math.min(1, s));
    best = Math.min(
      best,
      Math.hypot(p[0] - u[0] - s * ev[0], p[1] - u[1] - s * ev[1], p[2] - u[2] - s * ev[2]),
    );
  }
  return best;
}

/**
 * How far a world point is from shape s's surface: 0 on it (up to round-off), a residual of the
 * order of the distance otherwise (not a true distance for every type).
 */
export function surfaceResidual(g: ShapeGeom, s: number, p: readonly number[]): number {
  const t = g.type[s];
  const sz = [g.size[s * 3], g.size[s * 3 + 1], g.size[s * 3 + 2]];
  const l = local(g, s, p);
  switch (t) {
    case ShapeType.PLANE:
      return Math.abs(l[2]);
    case ShapeType.SPHERE:
      return Math.abs(Math.hypot(l[0], l[1], l[2]) - sz[0]);
    case ShapeType.CAPSULE: {
      const z = Math.max(-sz[1], Math.min(sz[1], l[2]));
      return Math.abs(Math.hypot(l[0], l[1], l[2] - z) - sz[0]);
    }
    case ShapeType.BOX:
      return Math.abs(Math.max(...l.map((x, k) => Math.abs(x) - sz[k])));
    case ShapeType.CYLINDER:
      return Math.abs(Math.max(Math.hypot(l[0], l[1]) - sz[0], Math.abs(l[2]) - sz[1]));
    case ShapeType.CONE: {
      const [r, h] = sz;
      const side = ((Math.hypot(l[0], l[1]) - (r * (h - l[2])) / (2 * h)) * 2 * h) / Math.hypot(2 * h, r);
      return Math.abs(Math.max(side, -h - l[2], l[2] - h));
    }
    case ShapeType.ELLIPSOID:
      return Math.abs(Math.hypot(l[0] / sz[0], l[1] / sz[1], l[2] / sz[2]) - 1) * Math.min(...sz);
    case ShapeType.MESH:
    case ShapeType.CONVEX_MESH:
      return Math.min(...meshWorldTriangles(g, s).map((tr) => pointTriangleDistance(p, tr)));
    case ShapeType.HEIGHTFIELD:
      return Math.min(...hfieldWorldTriangles(g, s).map((tr) => pointTriangleDistance(p, tr)));
  }
  throw new Error(`no residual for type ${t}`);
}
