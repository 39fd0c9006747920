/**
 * The USD reader (SPEC §5.2): USDA text, USDC crates and USDZ archives, the composition real physics
 * assets use, and the UsdPhysics → ModelBuilder mapping.
 *
 * - {@link importUsd} / {@link importUsdAsset}: import an asset into a ModelBuilder;
 * - {@link openStage}: load and compose a stage (for inspection and tests);
 * - {@link parseUsda}, {@link parseCrate}, {@link readUsdz}: single layers and archives.
 */
export { importUsd, importUsdAsset, importUsdStage } from './physics';
export type {
  UsdImportOptions,
  UsdImportResult,
  UsdMaterialOverrides,
  UsdMeshRequest,
  UsdFallbackMesh,
} from './physics';
export {
  openStage,
  openStageFromText,
  composeStage,
  parseLayerBytes,
  UsdStage,
  UsdPrim,
  UsdProperty,
} from './compose';
export type { LayerStack, OpenStageOptions } from './compose';
export { parseUsda } from './usda';
export { parseCrate, summarizeCrate, halfToNumber, type CrateSummary } from './crate';
export { readUsdz, listZipEntries, isZip, type UsdzPackage, type ZipEntry } from './usdz';
export { Layer, PrimSpec, PropSpecData, type PropSpec, type LayerInfo, type Specifier } from './layer';
export {
  UsdError,
  DEFAULT_USD_LIMITS,
  type UsdErrorKind,
  type UsdErrorLocation,
  type UsdLimits,
} from './errors';
export {
  AssetPath,
  ListOp,
  NumArray,
  SdfPathValue,
  UsdDict,
  UsdList,
  UsdReference,
  composeListOps,
  type UsdValue,
  type LayerOffset,
} from './values';
export { lz4DecompressBlock, decompressFast, LZ4_MAX_INPUT_SIZE } from './lz4';
export { decodeIntegers, decompressIntegers } from './intcoding';
export { localXform, opMatrix, type Mat4 } from './xform';
