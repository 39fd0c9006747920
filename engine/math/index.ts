export * from './vec3';
export * from './quat';
export * from './rng';
export * from './arrays';
