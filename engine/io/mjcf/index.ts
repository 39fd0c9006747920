/** MJCF importer (SPEC §5.2) */
import { importFilesOf } from '../import';

export { importMjcf } from './mjcf';
export { loadMjcfTree, readCompiler, DefaultClasses, type CompilerSettings } from './document';

/** the worker's drop entry point: an MJCF among dropped files → a finalized model */
export const importMjcfFiles = importFilesOf('mjcf');
