import { ImportError } from '../assets/errors';
import { LIMITS } from '../limits';

/**
 * Typed errors of the USD reader (SPEC §11). Every failure names the layer (file) it came from and,
 * where it applies, a line/column (USDA text), a byte offset (USDC crate, USDZ zip) or a prim path
 * (composition, physics mapping).
 */

/** what went wrong, coarsely */
export type UsdErrorKind =
  /** USDA text that does not follow the grammar */
  | 'syntax'
  /** a USDC crate that is truncated, corrupt or of an unsupported version */
  | 'crate'
  /** a USDZ archive that is corrupt or uses compression */
  | 'zip'
  /** LZ4 / integer-coding streams that do not decode */
  | 'decompress'
  /** composition problems: cycles, depth limits, unresolvable arcs */
  | 'composition'
  /** a size, count or depth limit was exceeded */
  | 'limit'
  /** a file could not be read */
  | 'asset'
  /** the composed stage cannot be mapped to a model (bad joints, bad geometry) */
  | 'schema';

/** where in the input an error happened; every field is optional but `layer` is almost always set */
export interface UsdErrorLocation {
  /** the layer (file) identifier, as resolved by the asset resolver */
  layer?: string;
  /** 1-based line (USDA) */
  line?: number;
  /** 1-based column (USDA) */
  column?: number;
  /** byte offset into the file (USDC, USDZ) */
  offset?: number;
  /** the prim or property path, when known */
  primPath?: string;
}

function formatLocation(loc: UsdErrorLocation): string {
  let s = loc.layer ?? '<unknown layer>';
  if (loc.line !== undefined) s += `:${loc.line}${loc.column !== undefined ? `:${loc.column}` : ''}`;
  if (loc.offset !== undefined) s += `@${loc.offset}`;
  if (loc.primPath !== undefined) s += ` <${loc.primPath}>`;
  return s;
}

/**
 * Every error thrown by engine/io/usd. It is an {@link ImportError} (file, line, column, reason), so
 * the importer registry treats it like any other importer failure, plus a kind and, for binary input,
 * the byte offset and, for composition and physics mapping, the prim path.
 */
export class UsdError extends ImportError {
  readonly kind: UsdErrorKind;
  readonly location: UsdErrorLocation;

  constructor(kind: UsdErrorKind, location: UsdErrorLocation, reason: string) {
    super(reason, location.layer, location.line, location.column);
    this.message = `${formatLocation(location)}: ${reason}`;
    this.name = 'UsdError';
    this.kind = kind;
    this.location = location;
  }

  /** a copy with the layer filled in when it was unknown where the error was raised */
  withLayer(layer: string): UsdError {
    if (this.location.layer !== undefined) return this;
    return new UsdError(this.kind, { ...this.location, layer }, this.reason);
  }
}

/** resource limits of the reader; every field has a default (see {@link DEFAULT_USD_LIMITS}) */
export interface UsdLimits {
  /** largest single layer file [bytes] */
  maxLayerBytes: number;
  /** largest decompressed block (LZ4, zip entry) [bytes] */
  maxDecompressedBytes: number;
  /** largest ratio decompressed / compressed accepted for one block */
  maxCompressionRatio: number;
  /** most layers loaded for one stage (sublayers, references, payloads) */
  maxLayers: number;
  /** deepest chain of composition arcs (reference → reference → …) and sublayer nesting */
  maxArcDepth: number;
  /** most composed prims of a stage */
  maxPrims: number;
  /** deepest nesting of values/prims in USDA text */
  maxNesting: number;
  /** most elements of one array value */
  maxArrayElements: number;
  /** longest USDA token: identifier, string, asset path, path or number [characters] */
  maxTokenChars: number;
}

export const DEFAULT_USD_LIMITS: UsdLimits = {
  maxLayerBytes: LIMITS.max_layer_bytes,
  maxDecompressedBytes: LIMITS.max_decompressed_bytes,
  maxCompressionRatio: LIMITS.max_compression_ratio,
  maxLayers: LIMITS.max_layers,
  maxArcDepth: LIMITS.max_arc_depth,
  maxPrims: LIMITS.max_prims,
  maxNesting: LIMITS.max_usda_nesting,
  maxArrayElements: LIMITS.max_array_elements,
  maxTokenChars: LIMITS.max_token_chars,
};

/** the LIMITS key of each UsdLimits field, for messages */
export const USD_LIMIT_NAMES: Record<keyof UsdLimits, string> = {
  maxLayerBytes: 'max_layer_bytes',
  maxDecompressedBytes: 'max_decompressed_bytes',
  maxCompressionRatio: 'max_compression_ratio',
  maxLayers: 'max_layers',
  maxArcDepth: 'max_arc_depth',
  maxPrims: 'max_prims',
  maxNesting: 'max_usda_nesting',
  maxArrayElements: 'max_array_elements',
  maxTokenChars: 'max_token_chars',
};
