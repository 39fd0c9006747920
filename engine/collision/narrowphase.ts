/**
 * The narrow-phase dispatch table `[typeA][typeB] → routine` (SPEC §4).
 *
 * Each primitive pair lives in its own file under `primitives/` and is written for one ordering,
 * (lower ShapeType, higher ShapeType). Registering it with {@link registerRoutine} also fills the
 * mirrored entry with a wrapper that calls it with the shapes swapped and then flips the manifold
 * (negates normals, swaps witnesses), so `NARROW_PHASE_TABLE[tA][tB](g, a, b, …)` always reports the
 * normal from a into b whichever order the pair arrives in. A null entry means "not supported yet".
 */
import { SHAPE_TYPE_NAMES, ShapeType } from '../model';
import { flipManifold, type ContactManifold } from './manifold';
import type { ShapeGeom } from './geometry';
import type { NarrowPhaseRoutine } from './primitives/common';
import { collideBoxBox } from './primitives/box_box';
import { collideCapsuleBox } from './primitives/capsule_box';
import { collideCapsuleCapsule } from './primitives/capsule_capsule';
import { collidePlaneBox } from './primitives/plane_box';
import { collidePlaneCapsule } from './primitives/plane_capsule';
import { collidePlaneSphere } from './primitives/plane_sphere';
import { collideSphereBox } from './primitives/sphere_box';
import { collideSphereCapsule } from './primitives/sphere_capsule';
import { collideSphereSphere } from './primitives/sphere_sphere';

export type { NarrowPhaseRoutine } from './primitives/common';

/** number of shape types (rows and columns of the table) */
export const SHAPE_TYPE_COUNT = SHAPE_TYPE_NAMES.length;

/** the dispatch table, indexed [typeA][typeB] */
export const NARROW_PHASE_TABLE: (NarrowPhaseRoutine | null)[][] = Array.from(
  { length: SHAPE_TYPE_COUNT },
  () => new Array<NarrowPhaseRoutine | null>(SHAPE_TYPE_COUNT).fill(null),
);

/** a routine for (B, A) built from one for (A, B) */
function swapped(fn: NarrowPhaseRoutine): NarrowPhaseRoutine {
  return (g: ShapeGeom, a: number, b: number, margin: number, gap: number, out: ContactManifold) => {
    const from = out.count;
    fn(g, b, a, margin, gap, out);
    flipManifold(out, from);
  };
}

/** installs `fn` for (typeA, typeB) and its swapped form for (typeB, typeA) */
export function registerRoutine(typeA: number, typeB: number, fn: NarrowPhaseRoutine): void {
  NARROW_PHASE_TABLE[typeA][typeB] = fn;
  if (typeA !== typeB) NARROW_PHASE_TABLE[typeB][typeA] = swapped(fn);
}

registerRoutine(ShapeType.PLANE, ShapeType.SPHERE, collidePlaneSphere);
registerRoutine(ShapeType.PLANE, ShapeType.CAPSULE, collidePlaneCapsule);
registerRoutine(ShapeType.PLANE, ShapeType.BOX, collidePlaneBox);
registerRoutine(ShapeType.SPHERE, ShapeType.SPHERE, collideSphereSphere);
registerRoutine(ShapeType.SPHERE, ShapeType.CAPSULE, collideSphereCapsule);
registerRoutine(ShapeType.SPHERE, ShapeType.BOX, collideSphereBox);
registerRoutine(ShapeType.CAPSULE, ShapeType.CAPSULE, collideCapsuleCapsule);
registerRoutine(ShapeType.CAPSULE, ShapeType.BOX, collideCapsuleBox);
registerRoutine(ShapeType.BOX, ShapeType.BOX, collideBoxBox);

/**
 * Runs the routine for shapes a and b (appending to `out`); returns false when the pair has none.
 * @param margin m_a + m_b [m]
 * @param gap g_a + g_b [m]
 */
export function collideShapes(
  g: ShapeGeom,
  a: number,
  b: number,
  margin: number,
  gap: number,
  out: ContactManifold,
): boolean {
  const fn = NARROW_PHASE_TABLE[g.type[a]][g.type[b]];
  if (fn === null) return false;
  fn(g, a, b, margin, gap, out);
  return true;
}
