/**
 * The engine's Node entry point (`sap-studio/node`): everything of the browser-safe facade
 * (`sap-studio`, engine/index.ts) plus what reads the local file system: `loadModelFile` (scene
 * files with their assets, URDF, MJCF, USD) and the file-system resolver.
 */
export * from './index';
export { loadModelFile, type LoadedSceneFile, type LoadFileOptions } from './io/load_file';
export { NodeFsResolver } from './io/assets/node_fs';
