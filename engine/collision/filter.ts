/**
 * Static shape-pair filtering (SPEC §4): world, collision group, flags, same body, static–static,
 * parent/child bodies and explicitly filtered pairs. None of it depends on the state, so the
 * explicit broad phase evaluates it once at construction.
 */
import { ShapeFlags, type SapModel } from '../model';

/**
 * Whether two collision groups interact (Newton's rule, symmetric):
 * - 0 never collides;
 * - +n collides with +n (same positive group) and with every negative group;
 * - −n collides with everything (any positive group, any other negative group) except −n itself.
 *
 * So "+n same group only" restricts positive–positive pairs, and a negative group acts as a
 * wildcard that still excludes its own members.
 */
export function groupsCollide(a: number, b: number): boolean {
  if (a === 0 || b === 0) return false;
  if (a > 0) return a === b || b < 0;
  return a !== b;
}

export interface PairFilterOptions {
  /** exclude pairs whose bodies are joint parent and child (default true) */
  filter_parent_child?: boolean;
  /** extra shape pairs that never collide (order within a pair is irrelevant) */
  filter_pairs?: readonly (readonly [number, number])[];
}

/** a symmetric key for a shape pair */
function pairKey(a: number, b: number, n: number): number {
  return a < b ? a * n + b : b * n + a;
}

/** the set of explicitly filtered pairs, keyed for {@link shapePairAllowed} */
export function makeFilterPairSet(
  model: SapModel,
  pairs: readonly (readonly [number, number])[] = [],
): Set<number> {
  const set = new Set<number>();
  for (const [a, b] of pairs) set.add(pairKey(a, b, model.shape_count));
  return set;
}

/**
 * Whether shapes a ≠ b may ever collide (before the AABB test). Rejects: a shape without
 * COLLIDE_SHAPES; groups that do not collide ({@link groupsCollide}); different worlds (world −1
 * shapes meet every world; two world −1 shapes never meet); shapes of the same body; two static
 * shapes (both body −1); joint parent/child bodies when `filterParentChild`; pairs in `filtered`.
 */
export function shapePairAllowed(
  model: SapModel,
  a: number,
  b: number,
  filterParentChild: boolean,
  filtered: Set<number> | null,
): boolean {
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
  if (ba === bb) return false; // same body, or both static (-1)
  if (filterParentChild && ba >= 0 && bb >= 0) {
    if (model.joint_parent[ba] === bb || model.joint_parent[bb] === ba) return false;
  }
  if (filtered !== null && filtered.size > 0 && filtered.has(pairKey(a, b, model.shape_count))) return false;
  return true;
}
