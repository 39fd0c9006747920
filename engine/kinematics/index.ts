export * from './data';
export * from './fk';
export * from './body_state';
export * from './initial_state';
