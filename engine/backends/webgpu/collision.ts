/// <reference types="@webgpu/types" />
/**
 * GPU collision for primitive shapes (host side of shaders/kernels/collision.wgsl; SPEC §4).
 *
 *   host, once per model                       GPU, every step (after fk_boundary)
 *   candidate pairs: the statically allowed     collide_pairs   (per pair): shape poses from body_X,
 *   pairs of every world (filter.ts), sorted    inflated AABBs, overlap test, narrow phase, points
 *   by world then (lower, higher) shape index   sorted by feature into CP_MAX fixed slots
 *   + per-pair margins, gaps and materials      collide_compact (per world): pairs in order, points
 *                                               into the world's slots until capacity, the rest
 *                                               counted (truncated)
 *                                               copy gc_* (data) → contact_* (input)
 *
 * Same contact list as SapCollisionPipeline with its default options (explicit broad phase, the
 * model's filters): same pairs, order, points, normals, gaps, capacity and truncation counts;
 * df64 arithmetic (collision is fp64 on the CPU). A model runs collision on the GPU only when every
 * pair it can present to the narrow phase is one of the ported primitive pairs
 * ({@link GPU_ROUTINES}); otherwise the backend collides on the CPU and says why
 * ({@link GpuCollisionPlan.reason}).
 */
import { combineFriction, combineStiffness, type SapContacts } from '../../collision/contacts';
import { makeWorldShapes } from '../../collision/broadphase';
import { makePairFilter, pairAllowed } from '../../collision/filter';
import {
  DEFAULT_MATERIAL_FALLBACKS,
  shapeMaterialFallback,
  type MaterialFallbacks,
  type ShapeMaterial,
} from '../../collision/material';
import { SHAPE_TYPE_NAMES, ShapeType, type SapModel } from '../../model';
import { GPU_INFINITY } from '../../model/layout';
import type { GpuViews } from '../../model/layout_views';
import { toDf64 } from './gpu';

/** points per candidate pair (box–box: a 4-point face manifold plus the exact closest point; capsule–box ≤ 2) */
export const CP_MAX = 5;
/** AABB round-off guard of engine/collision/geometry.ts [m] */
const AABB_GUARD = 1e-9;

/** routine codes of collision.wgsl, by (lower type, higher type) */
const ROUTINE: Record<string, number> = {
  [`${ShapeType.PLANE},${ShapeType.SPHERE}`]: 0,
  [`${ShapeType.PLANE},${ShapeType.CAPSULE}`]: 1,
  [`${ShapeType.PLANE},${ShapeType.BOX}`]: 2,
  [`${ShapeType.SPHERE},${ShapeType.SPHERE}`]: 3,
  [`${ShapeType.SPHERE},${ShapeType.CAPSULE}`]: 4,
  [`${ShapeType.SPHERE},${ShapeType.BOX}`]: 5,
  [`${ShapeType.CAPSULE},${ShapeType.CAPSULE}`]: 6,
  [`${ShapeType.CAPSULE},${ShapeType.BOX}`]: 7,
  [`${ShapeType.BOX},${ShapeType.BOX}`]: 8,
};

/** the type pairs collided on the GPU, as "a–b" names */
export const GPU_ROUTINES: readonly string[] = Object.keys(ROUTINE).map((k) => {
  const [a, b] = k.split(',').map(Number);
  return `${SHAPE_TYPE_NAMES[a]}–${SHAPE_TYPE_NAMES[b]}`;
});

export interface GpuCollisionPlan {
  /** every candidate pair has a GPU routine */
  readonly supported: boolean;
  /** why collision stays on the CPU (undefined when supported) */
  readonly reason?: string;
  /** candidate pairs (all worlds) */
  readonly count: number;
  /** (count × 4) shape 0, shape 1, world, routine */
  readonly pairs: Int32Array;
  /** (num_worlds + 1) pair ranges */
  readonly worldStart: Int32Array;
  /** (count × 8) m0, m1, m0 + m1, g0 + g1, 1/ke, τ, μ, α0 (as the contact upload computes them) */
  readonly pairD: Float64Array;
  /** per-shape material with the fallbacks applied (the CPU pipeline's `material`) */
  readonly material: ShapeMaterial;
}

const plans = new WeakMap<SapModel, Map<string, GpuCollisionPlan>>();

function finiteOr(x: number): number {
  if (Number.isFinite(x)) return x;
  if (Number.isNaN(x)) return 0;
  return x > 0 ? GPU_INFINITY : -GPU_INFINITY;
}

/**
 * The candidate pairs of a model for the default pipeline options and the given material
 * fallbacks (memoized), and whether they can all be collided on the GPU.
 */
export function gpuCollisionPlan(m: SapModel, fallbacks: Partial<MaterialFallbacks> = {}): GpuCollisionPlan {
  const fb = { ...DEFAULT_MATERIAL_FALLBACKS, ...fallbacks };
  const key = `${fb.tau_d},${fb.mu},${fb.stiffness}`;
  let byModel = plans.get(m);
  if (!byModel) plans.set(m, (byModel = new Map()));
  const cached = byModel.get(key);
  if (cached) return cached;
  const material = shapeMaterialFallback(m, fb);
  const filter = makePairFilter(m, {});
  const ws = makeWorldShapes(m);
  const list: number[] = [];
  const worldStart = new Int32Array(m.num_worlds + 1);
  const unsupported = new Map<string, [number, number]>();
  for (let w = 0; w < m.num_worlds; w++) {
    for (let i = ws.start[w]; i < ws.start[w + 1]; i++) {
      for (let j = i + 1; j < ws.start[w + 1]; j++) {
        const a = ws.shapes[i],
          b = ws.shapes[j];
        if (!pairAllowed(filter, a, b)) continue;
        // shape 0 = lower type, ties → lower index (a < b)
        let s0 = a,
          s1 = b;
        if (m.shape_type[b] < m.shape_type[a]) {
          s0 = b;
          s1 = a;
        }
        const r = ROUTINE[`${m.shape_type[s0]},${m.shape_type[s1]}`];
        if (r === undefined) {
          const name = `${SHAPE_TYPE_NAMES[m.shape_type[s0]] ?? m.shape_type[s0]}–${SHAPE_TYPE_NAMES[m.shape_type[s1]] ?? m.shape_type[s1]}`;
          if (!unsupported.has(name)) unsupported.set(name, [s0, s1]);
          continue;
        }
        list.push(s0, s1, w, r);
      }
    }
    worldStart[w + 1] = list.length / 4;
  }
  const count = list.length / 4;
  const pairs = Int32Array.from(list);
  const pairD = new Float64Array(count * 8);
  for (let p = 0; p < count; p++) {
    const s0 = pairs[4 * p],
      s1 = pairs[4 * p + 1];
    const m0 = m.shape_margin[s0],
      m1 = m.shape_margin[s1];
    const k0 = material.ke[s0],
      k1 = material.ke[s1];
    const ke = combineStiffness(k0, k1);
    const sum = k0 + k1;
    const o = 8 * p;
    pairD[o] = m0;
    pairD[o + 1] = m1;
    pairD[o + 2] = m0 + m1;
    pairD[o + 3] = m.shape_gap[s0] + m.shape_gap[s1];
    pairD[o + 4] = Number.isFinite(ke) && ke > 0 ? 1 / ke : ke > 0 ? 0 : GPU_INFINITY;
    pairD[o + 5] = finiteOr(material.tau[s0] + material.tau[s1]);
    pairD[o + 6] = combineFriction(material.mu[s0], material.mu[s1]);
    pairD[o + 7] = sum > 0 && Number.isFinite(sum) ? k0 / sum : 0.5;
  }
  let reason: string | undefined;
  if (unsupported.size > 0) {
    const parts = [...unsupported].map(([name, [a, b]]) => `${name} (shapes ${a} and ${b})`);
    reason = `collision on the CPU: ${parts.join(', ')} ${unsupported.size > 1 ? 'are' : 'is'} not on the GPU yet`;
  }
  const plan: GpuCollisionPlan = {
    supported: unsupported.size === 0,
    reason,
    count,
    pairs,
    worldStart,
    pairD,
    material,
  };
  byModel.set(key, plan);
  return plan;
}

function putDf(dst: Float32Array, src: ArrayLike<number>): void {
  for (let i = 0; i < src.length; i++) toDf64(finiteOr(src[i]), dst, 2 * i);
}

/** packs the shape and candidate-pair fields (pairs only when the layout has room for them) */
export function packCollision(m: SapModel, v: GpuViews, fallbacks?: Partial<MaterialFallbacks>): void {
  v.shape_type.set(m.shape_type);
  v.shape_body.set(m.shape_body);
  putDf(v.shape_X_bs, m.shape_X_bs);
  putDf(v.shape_size, m.shape_size);
  const infl = new Float64Array(m.shape_count);
  for (let s = 0; s < m.shape_count; s++) infl[s] = m.shape_margin[s] + m.shape_gap[s] + AABB_GUARD;
  putDf(v.shape_infl, infl);
  const plan = gpuCollisionPlan(m, fallbacks);
  if (v.cpair.length >= plan.pairs.length && plan.count > 0) {
    v.cpair.set(plan.pairs);
    putDf(v.cpair_d, plan.pairD);
    v.world_cpair_start.set(plan.worldStart);
  } else {
    v.world_cpair_start.fill(0);
  }
}

/** GPU contact fields (data) and the step-input fields they are copied to */
export const CONTACT_COPIES: readonly [keyof GpuViews, keyof GpuViews][] = [
  ['gc_point0', 'contact_point0'],
  ['gc_point1', 'contact_point1'],
  ['gc_normal', 'contact_normal'],
  ['gc_phi0', 'contact_phi0'],
  ['gc_inv_ke', 'contact_inv_ke'],
  ['gc_tau', 'contact_tau'],
  ['gc_mu', 'contact_mu'],
  ['gc_alpha0', 'contact_alpha0'],
  ['gc_count', 'contact_count'],
  ['gc_body0', 'contact_body0'],
  ['gc_body1', 'contact_body1'],
];

/** the data fields read back to fill the host contact buffer */
export const CONTACT_READBACK: readonly (keyof GpuViews)[] = [
  'gc_count',
  'gc_truncated',
  'gc_shape',
  'gc_body0',
  'gc_body1',
  'gc_feature',
  'gc_point0',
  'gc_point1',
  'gc_normal',
  'gc_phi0',
];

/**
 * Fills the host contact buffer from the read-back GPU contacts (geometry from the GPU; margins and
 * materials from the shapes, as the CPU pipeline writes them). Results (force, position, slip) are
 * zeroed; the step writes them.
 */
export function unpackContacts(
  m: SapModel,
  g: GpuViews,
  capacity: number,
  c: SapContacts,
  material: ShapeMaterial = gpuCollisionPlan(m).material,
): void {
  const fromDf = (a: Float32Array, i: number) => a[2 * i] + a[2 * i + 1];
  c.unsupported.fill(0);
  for (let w = 0; w < m.num_worlds; w++) {
    const n = g.gc_count[w];
    c.count[w] = n;
    c.truncated[w] = g.gc_truncated[w];
    for (let i = 0; i < n; i++) {
      const k = w * capacity + i;
      const s = w * c.capacity + i;
      const s0 = g.gc_shape[2 * k],
        s1 = g.gc_shape[2 * k + 1];
      c.shape0[s] = s0;
      c.shape1[s] = s1;
      c.body0[s] = g.gc_body0[k];
      c.body1[s] = g.gc_body1[k];
      for (let d = 0; d < 3; d++) {
        c.point0[3 * s + d] = fromDf(g.gc_point0, 3 * k + d);
        c.point1[3 * s + d] = fromDf(g.gc_point1, 3 * k + d);
        c.normal[3 * s + d] = fromDf(g.gc_normal, 3 * k + d);
        c.force[3 * s + d] = 0;
        c.position[3 * s + d] = 0;
      }
      c.slip_state[s] = 0;
      c.margin0[s] = m.shape_margin[s0];
      c.margin1[s] = m.shape_margin[s1];
      c.phi0[s] = fromDf(g.gc_phi0, k);
      const ke0 = material.ke[s0],
        ke1 = material.ke[s1];
      c.ke0[s] = ke0;
      c.ke1[s] = ke1;
      c.ke[s] = combineStiffness(ke0, ke1);
      c.tau[s] = material.tau[s0] + material.tau[s1];
      c.mu[s] = combineFriction(material.mu[s0], material.mu[s1]);
      c.feature[s] = g.gc_feature[k];
    }
  }
}

/** the part of GpuSapContext the copies need */
interface CopyTarget {
  readonly views: GpuViews;
  buffer(name: 'input_d' | 'input_i' | 'data_d' | 'data_i'): GPUBuffer;
}

/** encodes the copies of the GPU contacts (data gc_*) into the step inputs (input contact_*) */
export function encodeContactCopies(ctx: CopyTarget, enc: GPUCommandEncoder): void {
  for (const [src, dst] of CONTACT_COPIES) {
    const a = ctx.views[src],
      b = ctx.views[dst];
    if (a.byteLength !== b.byteLength) throw new Error(`GPU collision: ${src} and ${dst} differ in size`);
    if (a.byteLength === 0) continue;
    const df = a instanceof Float32Array;
    enc.copyBufferToBuffer(
      ctx.buffer(df ? 'data_d' : 'data_i'),
      a.byteOffset,
      ctx.buffer(df ? 'input_d' : 'input_i'),
      b.byteOffset,
      a.byteLength,
    );
  }
}
