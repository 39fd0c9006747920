/**
 * Broad phases (SPEC §4). Each produces, per world, the shape pairs (a < b) that pass the static
 * filter (`filter.ts`) and whose inflated AABBs overlap, in ascending (a, b) order — so every mode
 * yields the same pair sequence and therefore identical contact lists.
 *
 * - `explicit`: the filtered pair list is built once (construction); each collide AABB-tests it.
 * - `sap`: sweep and prune per world along the axis of largest AABB-centre variance: the world's
 *   bounded shapes are sorted by AABB minimum (a merge sort warm-started from the previous order:
 *   O(n) when nothing moved much, O(n log n) always), swept once, and the found pairs sorted.
 *   Unbounded shapes (infinite planes) are tested against every shape of the world. O(n log n + k)
 *   and allocation-free after warm-up (the pair buffer only grows).
 * - `nxn`: every pair of the world filtered and AABB-tested each collide (debugging).
 */
import { ShapeType, type SapModel } from '../model';
import { aabbOverlap } from './geometry';
import { pairAllowed, shapeCollides, type PairFilter } from './filter';

/** the broad-phase modes */
export const BROAD_PHASE_MODES = ['explicit', 'sap', 'nxn'] as const;
export type BroadPhaseMode = (typeof BROAD_PHASE_MODES)[number];

/** a growable list of shape pairs, stored as keys a·S + b (S = shape count) */
export class PairList {
  keys = new Float64Array(64);
  tmp = new Float64Array(64);
  count = 0;
  constructor(readonly shapeCount: number) {}
  clear(): void {
    this.count = 0;
  }
  push(a: number, b: number): void {
    if (this.count === this.keys.length) {
      const k = new Float64Array(this.keys.length * 2);
      k.set(this.keys);
      this.keys = k;
      this.tmp = new Float64Array(k.length);
    }
    this.keys[this.count++] = a < b ? a * this.shapeCount + b : b * this.shapeCount + a;
  }
  /** sorts ascending (stable merge sort, allocation-free) */
  sort(): void {
    mergeSortKeys(this.keys, null, 0, this.count, this.tmp, null);
  }
  /** lower shape of pair i */
  first(i: number): number {
    return Math.floor(this.keys[i] / this.shapeCount);
  }
  /** higher shape of pair i */
  second(i: number): number {
    return this.keys[i] - Math.floor(this.keys[i] / this.shapeCount) * this.shapeCount;
  }
}

/**
 * Sorts keys[lo, hi) ascending (ties: vals ascending when given), carrying vals along. Top-down
 * merge sort that skips merging already ordered halves (linear on sorted input); tk / tv are
 * scratch of the same length. Allocation-free.
 */
export function mergeSortKeys(
  k: Float64Array,
  v: Int32Array | null,
  lo: number,
  hi: number,
  tk: Float64Array,
  tv: Int32Array | null,
): void {
  if (hi - lo <= 16) {
    for (let i = lo + 1; i < hi; i++) {
      const x = k[i],
        y = v !== null ? v[i] : 0;
      let j = i - 1;
      while (j >= lo && (k[j] > x || (k[j] === x && v !== null && v[j] > y))) {
        k[j + 1] = k[j];
        if (v !== null) v[j + 1] = v[j];
        j--;
      }
      k[j + 1] = x;
      if (v !== null) v[j + 1] = y;
    }
    return;
  }
  const mid = (lo + hi) >> 1;
  mergeSortKeys(k, v, lo, mid, tk, tv);
  mergeSortKeys(k, v, mid, hi, tk, tv);
  // already in order?
  if (k[mid - 1] < k[mid] || (k[mid - 1] === k[mid] && (v === null || v[mid - 1] <= v[mid]))) return;
  for (let i = lo; i < mid; i++) {
    tk[i] = k[i];
    if (v !== null && tv !== null) tv[i] = v[i];
  }
  let i = lo,
    j = mid,
    o = lo;
  while (i < mid && j < hi) {
    const takeRight = k[j] < tk[i] || (k[j] === tk[i] && v !== null && tv !== null && v[j] < tv[i]);
    if (takeRight) {
      k[o] = k[j];
      if (v !== null) v[o] = v[j];
      j++;
    } else {
      k[o] = tk[i];
      if (v !== null && tv !== null) v[o] = tv[i];
      i++;
    }
    o++;
  }
  while (i < mid) {
    k[o] = tk[i];
    if (v !== null && tv !== null) v[o] = tv[i];
    i++;
    o++;
  }
}

/** per-world shape lists: the world's shapes and the shared (world −1) ones, ascending */
export interface WorldShapes {
  /** (num_worlds + 1) ranges into `shapes` */
  readonly start: Int32Array;
  readonly shapes: Int32Array;
}

/** builds the per-world shape lists (only shapes that collide with shapes at all) */
export function makeWorldShapes(model: SapModel): WorldShapes {
  const nw = model.num_worlds;
  const lists: number[][] = Array.from({ length: nw }, () => []);
  for (let s = 0; s < model.shape_count; s++) {
    if (!shapeCollides(model, s)) continue;
    const w = model.shape_world[s];
    if (w === -1) for (const l of lists) l.push(s);
    else if (w >= 0 && w < nw) lists[w].push(s);
  }
  for (const l of lists) l.sort((a, b) => a - b);
  const start = new Int32Array(nw + 1);
  for (let w = 0; w < nw; w++) start[w + 1] = start[w] + lists[w].length;
  return { start, shapes: Int32Array.from(lists.flat()) };
}

/** explicit mode: the statically allowed pairs of every world, ascending */
export class ExplicitBroadPhase {
  /** (num_worlds + 1) ranges into pairs (in pairs) */
  readonly pairStart: Int32Array;
  /** (P × 2) allowed pairs a < b */
  readonly pairs: Int32Array;
  constructor(ws: WorldShapes, filter: PairFilter) {
    const nw = ws.start.length - 1;
    const pairStart = new Int32Array(nw + 1);
    const pairs: number[] = [];
    for (let w = 0; w < nw; w++) {
      for (let i = ws.start[w]; i < ws.start[w + 1]; i++) {
        for (let j = i + 1; j < ws.start[w + 1]; j++) {
          if (pairAllowed(filter, ws.shapes[i], ws.shapes[j])) pairs.push(ws.shapes[i], ws.shapes[j]);
        }
      }
      pairStart[w + 1] = pairs.length / 2;
    }
    this.pairStart = pairStart;
    this.pairs = Int32Array.from(pairs);
  }
  /** the overlapping pairs of world w, ascending, into out */
  collect(w: number, aabb: Float64Array, out: PairList): void {
    out.clear();
    const p = this.pairs;
    for (let k = this.pairStart[w]; k < this.pairStart[w + 1]; k++) {
      const a = p[2 * k],
        b = p[2 * k + 1];
      if (aabbOverlap(aabb, a, b)) out.push(a, b);
    }
  }
}

/** nxn mode: all pairs, filtered and tested every collide */
export class AllPairsBroadPhase {
  constructor(
    readonly ws: WorldShapes,
    readonly filter: PairFilter,
  ) {}
  collect(w: number, aabb: Float64Array, out: PairList): void {
    out.clear();
    const { start, shapes } = this.ws;
    for (let i = start[w]; i < start[w + 1]; i++) {
      const a = shapes[i];
      for (let j = i + 1; j < start[w + 1]; j++) {
        const b = shapes[j];
        if (pairAllowed(this.filter, a, b) && aabbOverlap(aabb, a, b)) out.push(a, b);
      }
    }
  }
}

/** sap mode: sweep and prune per world */
export class SweepAndPruneBroadPhase {
  /** (num_worlds + 1) ranges into `order` / `keys` (bounded shapes) */
  private readonly bStart: Int32Array;
  /** bounded shapes of every world, in the last sorted order */
  private readonly order: Int32Array;
  private readonly keys: Float64Array;
  private readonly tmpK: Float64Array;
  private readonly tmpV: Int32Array;
  /** (num_worlds + 1) ranges into `unbounded` */
  private readonly uStart: Int32Array;
  private readonly unbounded: Int32Array;
  /** the sweep axis used last, per world (0, 1, 2) */
  readonly lastAxis: Int32Array;

  constructor(
    model: SapModel,
    readonly ws: WorldShapes,
    readonly filter: PairFilter,
  ) {
    const nw = ws.start.length - 1;
    const bounded: number[] = [],
      unb: number[] = [];
    this.bStart = new Int32Array(nw + 1);
    this.uStart = new Int32Array(nw + 1);
    for (let w = 0; w < nw; w++) {
      for (let i = ws.start[w]; i < ws.start[w + 1]; i++) {
        const s = ws.shapes[i];
        const infinitePlane =
          model.shape_type[s] === ShapeType.PLANE &&
          !(model.shape_size[s * 3] > 0 && model.shape_size[s * 3 + 1] > 0);
        (infinitePlane ? unb : bounded).push(s);
      }
      this.bStart[w + 1] = bounded.length;
      this.uStart[w + 1] = unb.length;
    }
    this.order = Int32Array.from(bounded);
    this.keys = new Float64Array(bounded.length);
    this.tmpK = new Float64Array(bounded.length);
    this.tmpV = new Int32Array(bounded.length);
    this.unbounded = Int32Array.from(unb);
    this.lastAxis = new Int32Array(nw);
  }

  collect(w: number, aabb: Float64Array, out: PairList): void {
    out.clear();
    const lo = this.bStart[w],
      hi = this.bStart[w + 1];
    const order = this.order,
      keys = this.keys;
    // axis of largest variance of the AABB centres
    let sx = 0,
      sy = 0,
      sz = 0,
      qx = 0,
      qy = 0,
      qz = 0;
    for (let i = lo; i < hi; i++) {
      const o = order[i] * 6;
      const cx = 0.5 * (aabb[o] + aabb[o + 3]),
        cy = 0.5 * (aabb[o + 1] + aabb[o + 4]),
        cz = 0.5 * (aabb[o + 2] + aabb[o + 5]);
      sx += cx;
      sy += cy;
      sz += cz;
      qx += cx * cx;
      qy += cy * cy;
      qz += cz * cz;
    }
    const n = Math.max(1, hi - lo);
    const vx = qx / n - (sx / n) ** 2,
      vy = qy / n - (sy / n) ** 2,
      vz = qz / n - (sz / n) ** 2;
    const axis = vx >= vy && vx >= vz ? 0 : vy >= vz ? 1 : 2;
    this.lastAxis[w] = axis;
    for (let i = lo; i < hi; i++) keys[i] = aabb[order[i] * 6 + axis];
    mergeSortKeys(keys, order, lo, hi, this.tmpK, this.tmpV);
    const ax3 = axis + 3;
    const o1 = (axis + 1) % 3,
      o2 = (axis + 2) % 3;
    for (let i = lo; i < hi; i++) {
      const a = order[i];
      const ao = a * 6;
      const amax = aabb[ao + ax3];
      for (let j = i + 1; j < hi; j++) {
        if (keys[j] > amax) break;
        const b = order[j];
        const bo = b * 6;
        if (
          aabb[ao + o1] > aabb[bo + o1 + 3] ||
          aabb[bo + o1] > aabb[ao + o1 + 3] ||
          aabb[ao + o2] > aabb[bo + o2 + 3] ||
          aabb[bo + o2] > aabb[ao + o2 + 3]
        )
          continue;
        if (pairAllowed(this.filter, a, b)) out.push(a, b);
      }
    }
    // unbounded shapes against everything in the world
    const U = this.unbounded;
    for (let u = this.uStart[w]; u < this.uStart[w + 1]; u++) {
      const a = U[u];
      for (let i = lo; i < hi; i++) {
        const b = order[i];
        if (pairAllowed(this.filter, a, b) && aabbOverlap(aabb, a, b)) out.push(a, b);
      }
      for (let v = u + 1; v < this.uStart[w + 1]; v++) {
        const b = U[v];
        if (pairAllowed(this.filter, a, b) && aabbOverlap(aabb, a, b)) out.push(a, b);
      }
    }
    out.sort();
  }
}
