/** scene files: schema, parsing, validation and loading (SPEC §5.1) */
export * from './errors';
export * from './expr';
export {
  sceneSchema,
  sceneJsonSchema,
  SCHEMA_VERSION,
  ARRAY_NAMES,
  POST_BUILD_OPS,
  TARGET_MODES,
  SHAPE_CFG_ALIASES,
  type ArrayName,
  type SceneDoc,
  type PostBuildOp,
  type JsonSchema,
} from './schema';
export { toJsonSchema } from '../json_schema';
export { validateScene, assertValidScene, type ValidateOptions, type ValidationResult } from './validate';
export { locateKeyPath, MAX_SCENE_TEXT } from './source';
export { TargetMode } from './authoring';
export * from './load';
