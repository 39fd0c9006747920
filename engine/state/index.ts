export * from './state';
export * from './control_sequence';
