/**
 * Static shape-pair filtering (SPEC §4): world, collision group, flags, same body, static–static,
 * parent/child bodies and explicitly filtered pairs. None of it depends on the state, so the
 * explicit broad phase evaluates it once at construction; `sap` and `nxn` evaluate it per candidate.
 */
import { JointType, ShapeFlags, type SapModel } from '../model';

/**
 * Whether two collision groups interact (Newton's rule, symmetric):
 * - 0 never collides;
 * - +n collides with +n (same positive group) and with every negative group;
 * - −n collides with everything (any positive group, any other negative group) except −n itself.
 *
 * So "+n same group only" restricts positive–positive pairs, and a negative group acts as a
 * wildcard that still excludes its own members. (Chosen over "+n meets only +n" so that a shape
 * tagged −1, e.g. the ground or a robot part, meets every positive group; it is the rule of the
 * Newton-authored assets this engine loads.)
 */
export function groupsCollide(a: number, b: number): boolean {
  if (a === 0 || b === 0) return false;
  if (a > 0) return a === b || b < 0;
  return a !== b;
}

export interface PairFilterOptions {
  /**
   * Parent/child exclusion. Omitted (default): the model decides per joint
   * (`joint_collision_filter_parent`, 1 = the joint's parent and child never collide). true: every
   * parent/child pair is excluded. false: none is (the model's flags are ignored).
   */
  filter_parent_child?: boolean;
  /** extra shape pairs that never collide, added to the model's `shape_filter_pairs` (order irrelevant) */
  filter_pairs?: readonly (readonly [number, number])[];
}

/** precomputed filter state of a model (see {@link pairAllowed}) */
export interface PairFilter {
  readonly model: SapModel;
  /** symmetric keys of the filtered pairs */
  readonly filtered: Set<number>;
  /** (body_count) 1 when the body is welded to the world (a chain of fixed joints up to the world) */
  readonly bodyStatic: Uint8Array;
  /** per body: 1 when the shapes of the body and its joint parent are filtered */
  readonly parentFiltered: Uint8Array;
}

/** a symmetric key for a shape pair */
function pairKey(a: number, b: number, n: number): number {
  return a < b ? a * n + b : b * n + a;
}

/** builds the filter of a model: model filter pairs + options, static bodies, parent/child flags */
export function makePairFilter(model: SapModel, opts: PairFilterOptions = {}): PairFilter {
  const n = model.shape_count;
  const filtered = new Set<number>();
  const fp = model.shape_filter_pairs;
  for (let k = 0; k + 1 < fp.length; k += 2) {
    const a = fp[k],
      b = fp[k + 1];
    if (a >= 0 && b >= 0 && a < n && b < n) filtered.add(pairKey(a, b, n));
  }
  for (const [a, b] of opts.filter_pairs ?? []) {
    if (!(Number.isInteger(a) && Number.isInteger(b) && a >= 0 && b >= 0 && a < n && b < n)) {
      throw new RangeError(`filter_pairs: unknown shape pair (${a}, ${b}); the model has ${n} shapes`);
    }
    filtered.add(pairKey(a, b, n));
  }
  const nb = model.body_count;
  const bodyStatic = new Uint8Array(nb);
  // joints are sorted parents before children; joint j's child is body j
  for (let j = 0; j < model.joint_count; j++) {
    const c = model.joint_child[j],
      p = model.joint_parent[j];
    if (model.joint_type[j] === JointType.FIXED && (p < 0 || bodyStatic[p] === 1)) bodyStatic[c] = 1;
  }
  const parentFiltered = new Uint8Array(nb);
  for (let j = 0; j < model.joint_count; j++) {
    const c = model.joint_child[j];
    const flag = opts.filter_parent_child;
    parentFiltered[c] = flag === undefined ? (model.joint_collision_filter_parent[j] ? 1 : 0) : flag ? 1 : 0;
  }
  return { model, filtered, bodyStatic, parentFiltered };
}

/** whether shape s takes part in shape–shape collision at all (flag COLLIDE_SHAPES, group ≠ 0) */
export function shapeCollides(model: SapModel, s: number): boolean {
  return (model.shape_flags[s] & ShapeFlags.COLLIDE_SHAPES) !== 0 && model.shape_collision_group[s] !== 0;
}

/**
 * Whether shapes a ≠ b may ever collide (before the AABB test). Rejects: a shape without
 * COLLIDE_SHAPES; groups that do not collide ({@link groupsCollide}); different worlds (world −1
 * shapes meet every world; two world −1 shapes never meet); shapes of the same body; two static
 * shapes (body −1 or welded to the world by fixed joints); joint parent/child bodies whose joint is
 * filtered ({@link PairFilterOptions.filter_parent_child}); filtered pairs.
 */
export function pairAllowed(f: PairFilter, a: number, b: number): boolean {
  const model = f.model;
  if (a === b) return false;
  if ((model.shape_flags[a] & ShapeFlags.COLLIDE_SHAPES) === 0) return false;
  if ((model.shape_flags[b] & ShapeFlags.COLLIDE_SHAPES) === 0) return false;
  if (!groupsCollide(model.shape_collision_group[a], model.shape_collision_group[b])) return false;
  const wa = model.shape_world[a],
    wb = model.shape_world[b];
  if (wa === -1 && wb === -1) return false;
  if (wa !== wb && wa !== -1 && wb !== -1) return false;
  const ba = model.shape_body[a],
    bb = model.shape_body[b];
  if (ba === bb) return false; // same body, or both world geometry (-1)
  const sa = ba < 0 || f.bodyStatic[ba] === 1,
    sb = bb < 0 || f.bodyStatic[bb] === 1;
  if (sa && sb) return false;
  if (ba >= 0 && bb >= 0) {
    if (model.joint_parent[ba] === bb && f.parentFiltered[ba]) return false;
    if (model.joint_parent[bb] === ba && f.parentFiltered[bb]) return false;
  }
  if (f.filtered.size > 0 && f.filtered.has(pairKey(a, b, model.shape_count))) return false;
  return true;
}
