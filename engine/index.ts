/**
 * The engine's public facade (SPEC §2, layout principle 10): one canonical export per concept.
 * Browser-safe: nothing here touches Node APIs (the CLI's file loader lives in engine/io/load_file)
 * and the worker is not re-exported (the app reaches it through engine/worker/client).
 */

// data and conventions
export * from './math';
export * from './model';
export * from './state';
export { makeState } from './kinematics/initial_state';

// collision
export {
  SapCollisionPipeline,
  makeContacts,
  clearContacts,
  totalContacts,
  totalTruncated,
  ContactSlip,
  type SapContacts,
} from './collision';

// solver options and the pure-data problem API
export {
  SOLVER_OPTION_KEYS,
  PRESETS,
  OptionsError,
  allowedValues,
  resolveSolverOptions,
  normalizeSolverOptions,
  changedKeys,
  epsilonOf,
  solveSapProblem,
  type SapSolverOptions,
  type SolverOptionKey,
  type Precision,
  type ContactPresetVariant,
  type ContactWeightMode,
  type ContactPointMode,
  type PositionIntegration,
  type LineSearchVariant,
  type SapProblem,
  type SapConstraintSpec,
  type SapSolveResult,
} from './sap';

// the step
export * from './pipeline';

// scene files
export {
  loadScene,
  loadSceneText,
  parseSceneText,
  SceneError,
  SceneSyntaxError,
  SceneValidationError,
  SceneUnsupportedError,
  sceneJsonSchema,
  MAX_SCENE_TEXT,
  type LoadedScene,
  type LoadSceneOptions,
} from './io/scene';

// robots and assets: URDF, MJCF and USD importers, scene files with assets, resolvers
export { loadSceneAsync, type LoadSceneAsyncOptions } from './io/scene';
export {
  loadModelAsset,
  importAsset,
  registerImporter,
  importerTypes,
  ImportError,
  XmlSyntaxError,
  MeshError,
  type LoadedModelAsset,
  type LoadModelAssetOptions,
  type Importer,
  type ImportOptions,
  type ImportResult,
  type ImportSource,
} from './io/import';
export { MemoryResolver, UrlResolver, AssetError, type AssetResolver } from './io/assets';
