/**
 * The narrow-phase dispatch table `[typeA][typeB] → routine` (SPEC §4).
 *
 * Each primitive pair lives in its own file under `primitives/` and is written for one ordering,
 * (lower ShapeType, higher ShapeType). Registering it with {@link registerRoutine} also fills the
 * mirrored entry with a wrapper that calls it with the shapes swapped and then flips the manifold
 * (negates normals, swaps witnesses), so `NARROW_PHASE_TABLE[tA][tB](g, a, b, …)` always reports the
 * normal from a into b whichever order the pair arrives in. A null entry means "unsupported"; the
 * pipeline counts such pairs (never silently: see `SapCollisionPipeline.last_unsupported_pair_count`).
 *
 * What each pair uses:
 * - plane–sphere / capsule / box / cylinder / cone / ellipsoid: analytic (`primitives/plane_*`);
 *   plane–convex mesh / triangle mesh: the mesh's vertices (`primitives/plane_mesh`);
 * - sphere–sphere / capsule / box / cylinder, capsule–capsule / box, box–box: analytic;
 * - every other pair of convex shapes (sphere, capsule, box, cylinder, cone, ellipsoid, convex mesh):
 *   GJK / EPA with a clipped multi-point manifold (`convex.ts`);
 * - triangle mesh and heightfield against convex shapes: per triangle / cell (`mesh_collide.ts`);
 *   mesh–mesh and heightfield–mesh: one mesh's convex hull against the other's triangles;
 * - unsupported: plane–plane, plane–heightfield, heightfield–heightfield.
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
import { collideSphereCylinder } from './primitives/sphere_cylinder';
import { collidePlaneCylinder } from './primitives/plane_cylinder';
import { collidePlaneCone } from './primitives/plane_cone';
import { collidePlaneEllipsoid } from './primitives/plane_ellipsoid';
import { collidePlaneMesh } from './primitives/plane_mesh';
import { collideConvexConvex } from './convex';
import {
  collideHeightfieldConvex,
  collideHeightfieldMesh,
  collideMeshConvex,
  collideMeshMesh,
} from './mesh_collide';

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
registerRoutine(ShapeType.PLANE, ShapeType.CYLINDER, collidePlaneCylinder);
registerRoutine(ShapeType.PLANE, ShapeType.CONE, collidePlaneCone);
registerRoutine(ShapeType.PLANE, ShapeType.ELLIPSOID, collidePlaneEllipsoid);
registerRoutine(ShapeType.PLANE, ShapeType.CONVEX_MESH, collidePlaneMesh);
registerRoutine(ShapeType.PLANE, ShapeType.MESH, collidePlaneMesh);
registerRoutine(ShapeType.SPHERE, ShapeType.CYLINDER, collideSphereCylinder);

/** the convex shape types (the general path covers every pair of them without an analytic routine) */
export const CONVEX_SHAPE_TYPES: readonly number[] = [
  ShapeType.SPHERE,
  ShapeType.CAPSULE,
  ShapeType.BOX,
  ShapeType.CYLINDER,
  ShapeType.CONE,
  ShapeType.ELLIPSOID,
  ShapeType.CONVEX_MESH,
];
for (const a of CONVEX_SHAPE_TYPES) {
  for (const b of CONVEX_SHAPE_TYPES) {
    if (a <= b && NARROW_PHASE_TABLE[a][b] === null) registerRoutine(a, b, collideConvexConvex);
  }
  registerRoutine(ShapeType.MESH, a, collideMeshConvex);
  registerRoutine(ShapeType.HEIGHTFIELD, a, collideHeightfieldConvex);
}
registerRoutine(ShapeType.MESH, ShapeType.MESH, collideMeshMesh);
registerRoutine(ShapeType.HEIGHTFIELD, ShapeType.MESH, collideHeightfieldMesh);

/** whether shape types a and b have a narrow-phase routine */
export function pairSupported(a: number, b: number): boolean {
  return NARROW_PHASE_TABLE[a][b] !== null;
}

/** "typeA–typeB" with the model's type names */
export function pairName(a: number, b: number): string {
  return `${SHAPE_TYPE_NAMES[a] ?? a}–${SHAPE_TYPE_NAMES[b] ?? b}`;
}

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
