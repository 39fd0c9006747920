/** asset resolution and the importer contract (worker-safe: the Node resolver is in `node_fs.ts`) */
export * from './resolver';
export * from './resolvers';
export * from './errors';
export * from './importer';
export * from './frames';
