/**
 * Static shape-pair filtering (SPEC §4): world, collision group, flags, same body, static–static,
 * welded groups and their articulated parent/child groups, and explicitly filtered pairs.
 * A welded group is a body with the bodies joined to it by filtered fixed joints, and the massless
 * bodies without colliders joined to it by any filtered joint (the dummy links of URDF multi-axis
 * joints): as MuJoCo's parent filter after its body fusion, no pair inside a group collides, nor a
 * group and the group of its root's joint parent. A joint whose parent/child filter is off
 * (`collision_filter_parent: false`, USD `physics:collisionEnabled`) neither welds nor filters, so
 * a scene or importer can still ask for that pair's contact. None of it depends on the state, so the
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
  /** per body: its welded group, named by the group's top body (see the module comment) */
  readonly bodyGroup: Int32Array;
  /** per group (by its top body): the group it does not collide with above it, or −1 */
  readonly groupParent: Int32Array;
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
  const { bodyGroup, groupParent } = weldedGroups(model, parentFiltered);
  return { model, filtered, bodyStatic, parentFiltered, bodyGroup, groupParent };
}

/** the welded groups of a model's bodies and each group's filtered parent group */
function weldedGroups(
  model: SapModel,
  parentFiltered: Uint8Array,
): { bodyGroup: Int32Array; groupParent: Int32Array } {
  const nb = model.body_count;
  const hasCollider = new Uint8Array(nb);
  for (let s = 0; s < model.shape_count; s++) {
    const b = model.shape_body[s];
    if (b >= 0 && shapeCollides(model, s)) hasCollider[b] = 1;
  }
  const bodyGroup = new Int32Array(nb);
  const groupParent = new Int32Array(nb).fill(-1);
  // joints are sorted parents before children; joint j's child is body j
  for (let j = 0; j < model.joint_count; j++) {
    const c = model.joint_child[j],
      p = model.joint_parent[j];
    const dummy = model.body_mass[c] === 0 && hasCollider[c] === 0;
    const welds = p >= 0 && parentFiltered[c] === 1 && (model.joint_type[j] === JointType.FIXED || dummy);
    bodyGroup[c] = welds ? bodyGroup[p] : c;
    if (!welds && p >= 0 && parentFiltered[c] === 1) groupParent[c] = bodyGroup[p];
  }
  return { bodyGroup, groupParent };
}

/** whether shape s takes part in shape–shape collision at all (flag COLLIDE_SHAPES, group ≠ 0) */
export function shapeCollides(model: SapModel, s: number): boolean {
  return (model.shape_flags[s] & ShapeFlags.COLLIDE_SHAPES) !== 0 && model.shape_collision_group[s] !== 0;
}

/**
 * Whether shapes a ≠ b may ever collide (before the AABB test). Rejects: a shape without
 * COLLIDE_SHAPES; groups that do not collide ({@link groupsCollide}); different worlds (world −1
 * shapes meet every world; two world −1 shapes never meet); shapes of the same body; two static
 * shapes (body −1 or welded to the world by fixed joints); bodies of one welded group, or of a group
 * and its parent group, through filtered joints ({@link PairFilterOptions.filter_parent_child});
 * filtered pairs.
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
    const ga = f.bodyGroup[ba],
      gb = f.bodyGroup[bb];
    if (ga === gb || f.groupParent[ga] === gb || f.groupParent[gb] === ga) return false;
  }
  if (f.filtered.size > 0 && f.filtered.has(pairKey(a, b, model.shape_count))) return false;
  return true;
}
