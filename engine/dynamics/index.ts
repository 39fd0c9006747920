export * from './crba';
export * from './rnea';
