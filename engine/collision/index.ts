export * from './contacts';
export * from './manifold';
export * from './geometry';
export * from './filter';
export * from './narrowphase';
export * from './pipeline';
export { PairList, mergeSortKeys } from './broadphase';
export { convexHull, hullFaces, type HullMesh, type HullFaces } from './hull';
export { getCollisionMeshData, type CollisionMeshData } from './mesh_data';
export { CONVEX_MAX_POINTS } from './convex';
export { MESH_MAX_POINTS } from './mesh_collide';
export { FEATURE_SIN_TOL, DISC_POINTS } from './support';
export { PLANE_BOX_MAX_POINTS } from './primitives/plane_box';
export { PLANE_MESH_MAX_POINTS } from './primitives/plane_mesh';
export { PARALLEL_SIN2 } from './primitives/capsule_capsule';
export { BOX_BOX_MAX_POINTS } from './primitives/box_box';
export { CAPSULE_BOX_PARALLEL_SIN } from './primitives/capsule_box';
export {
  shapeMaterialFallback,
  DEFAULT_MATERIAL_FALLBACKS,
  type MaterialFallbacks,
  type ShapeMaterial,
} from './material';
