export * from './types';
export * from './model';
export * from './builder';
export * from './mass';
export * from './errors';
export * from './transmissions';
