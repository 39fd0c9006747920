export * from './contacts';
export * from './manifold';
export * from './geometry';
export * from './filter';
export * from './narrowphase';
export * from './pipeline';
export { PLANE_BOX_MAX_POINTS } from './primitives/plane_box';
export { PARALLEL_SIN2 } from './primitives/capsule_capsule';
