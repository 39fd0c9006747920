/**
 * The importer registry, by asset type (SPEC §5.2): 'urdf', 'mjcf' and 'usd' are built in; more can
 * be added with `registerImporter` (same {@link Importer} signature).
 */
import { ModelBuilder, ModelError, type SapModel } from '../model';
import { ImportError } from './assets/errors';
import { builderSizeProblem } from './limits';
import { checkBuiltModel } from './model_check';
import { hasGroundPlane, standOnGround } from './placement';
import type { AssetResolver } from './assets/resolver';
import type { Importer, ImportOptions, ImportResult, ImportSource } from './assets/importer';
import { importMjcf } from './mjcf/mjcf';
import { importUrdf } from './urdf/urdf';
import { importUsdAsset } from './usd/physics';

export type {
  Importer,
  ImportOptions,
  ImportResult,
  ImportSource,
  ImportedKeyframe,
  ImportedActuator,
} from './assets/importer';
export { ImportError, XmlSyntaxError, MeshError } from './assets/errors';
export { withRollback } from './assets/importer';

const registry = new Map<string, Importer>([
  ['urdf', importUrdf],
  ['mjcf', importMjcf],
  ['usd', importUsdAsset as Importer],
]);

/** installs (or replaces) the importer of an asset type ('urdf', 'mjcf', 'usd', …) */
export function registerImporter(type: string, fn: Importer): void {
  registry.set(type.toLowerCase(), fn);
}

/** the importer of an asset type, if one is registered */
export function getImporter(type: string): Importer | undefined {
  return registry.get(type.toLowerCase());
}

/** the registered asset types */
export function importerTypes(): string[] {
  return [...registry.keys()];
}

/** imports an asset of the given type; an unknown type is an {@link ImportError} */
export async function importAsset(
  type: string,
  builder: ModelBuilder,
  source: ImportSource,
  opts: ImportOptions = {},
): Promise<ImportResult> {
  const fn = getImporter(type);
  if (!fn) {
    throw new ImportError(
      `no importer registered for '${type}' assets (registered: ${importerTypes().join(', ')})`,
      source.path,
    );
  }
  return fn(builder, source, opts);
}

/** the asset type a file name suggests (.urdf, .xml → mjcf, .usd/.usda/.usdc/.usdz), if any */
export function assetTypeOfPath(path: string): 'urdf' | 'mjcf' | 'usd' | undefined {
  const p = path.toLowerCase();
  if (p.endsWith('.urdf')) return 'urdf';
  if (p.endsWith('.xml') || p.endsWith('.mjcf')) return 'mjcf';
  if (/\.usd[acz]?$/.test(p)) return 'usd';
  return undefined;
}

/** for XML text: 'urdf' when the root element is <robot>, 'mjcf' for <mujoco>, else undefined */
export function sniffXmlType(text: string): 'urdf' | 'mjcf' | undefined {
  const s = text
    .replace(/<\?[\s\S]*?\?>/g, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<!DOCTYPE[^>]*>/gi, '');
  const m = /<\s*([A-Za-z_][\w.-]*)/.exec(s);
  if (!m) return undefined;
  return m[1] === 'robot' ? 'urdf' : m[1] === 'mujoco' ? 'mjcf' : undefined;
}

/** a URDF / MJCF / USD file loaded on its own as a simulation-ready model */
export interface LoadedModelAsset {
  name: string;
  /**
   * the file's time step (MJCF `<option timestep>`; USD: the PhysicsScene's `newton:` or
   * `physxScene:timeStepsPerSecond`), else 0.002 s for MJCF (MuJoCo's default) and 0.005 s otherwise
   */
  dt: number;
  max_rigid_contact: number;
  solver: Record<string, unknown>;
  model: SapModel;
  /** warnings, then the unsupported features prefixed `unsupported: ` */
  warnings: string[];
  /** what the loader did that the user should know of, though nothing is wrong (a robot placed on the ground) */
  notes: string[];
  result: ImportResult;
  builder: ModelBuilder;
}

export interface LoadModelAssetOptions extends ImportOptions {
  num_worlds?: number;
  /** add a ground plane (default: true for URDF and USD, false for MJCF, whose files bring their floor) */
  ground?: boolean;
  /**
   * lift a robot whose colliders reach below the ground at its authored pose until the lowest
   * touches it (default: without an `xform`, true for URDF, whose format says nothing of where the
   * robot stands and whose base link's frame is often its torso, and for USD and MJCF files without
   * a ground plane of their own, which stand on the ground added here)
   */
  place_on_ground?: boolean;
  /** with strict, unsupported features are errors (default false: they are listed as warnings) */
  strict?: boolean;
}

/**
 * the time step of a model file that names none [s]: MuJoCo's 2 ms for MJCF (its `<option
 * timestep>` default), 5 ms for URDF and USD (SAP Warp's robot scenes run at 3–5 ms); the CLI, the
 * library and the studio all use it
 */
export function defaultTimeStep(type: string): number {
  return type === 'mjcf' ? 0.002 : 0.005;
}

/**
 * the warning that a time step `dt` [s] chosen by `by` (a flag, a scene) replaces the one the file
 * names (`authored` [s]); undefined when the file names none or the two agree
 */
export function timeStepOverrideWarning(
  authored: number | undefined,
  dt: number,
  by: string,
): string | undefined {
  if (authored === undefined || Math.abs(dt - authored) <= 1e-12 * authored) return undefined;
  return `the model file's time step ${authored} s is overridden by ${by}: ${dt} s`;
}

/** imports one asset file into a fresh builder and finalizes it (CLI, worker, tests) */
export async function loadModelAsset(
  type: string,
  source: ImportSource,
  opts: LoadModelAssetOptions = {},
): Promise<LoadedModelAsset> {
  const builder = new ModelBuilder();
  builder.name = source.path
    ? source.path.slice(source.path.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '')
    : type;
  const result = await importAsset(type, builder, source, opts);
  if (opts.strict && result.unsupported.length) {
    throw new ImportError(
      `unsupported: ${result.unsupported[0]}${result.unsupported.length > 1 ? ` (and ${result.unsupported.length - 1} more)` : ''}`,
      source.path,
    );
  }
  if (result.gravity) builder.gravity = [...result.gravity];
  const tooBig = builderSizeProblem(builder);
  if (tooBig) throw new ImportError(tooBig, source.path);
  const ground = opts.ground ?? type !== 'mjcf';
  const placement: string[] = [];
  const authoredGround = type !== 'urdf' && hasGroundPlane(builder);
  if (ground && (opts.place_on_ground ?? (opts.xform === undefined && !authoredGround))) {
    const note = standOnGround(builder);
    if (note) placement.push(note);
  }
  if (ground) builder.addGround();
  builder.num_worlds = opts.num_worlds ?? 1;
  let model: SapModel;
  let physical: string[];
  try {
    model = builder.finalize();
    physical = checkBuiltModel(model, builder);
  } catch (e) {
    throw e instanceof ModelError ? new ImportError(`model: ${e.message}`, source.path) : e;
  }
  return {
    name: result.name || builder.name,
    dt: result.timestep ?? defaultTimeStep(type),
    max_rigid_contact: 256,
    solver: {},
    model,
    warnings: [...result.warnings, ...physical, ...result.unsupported.map((u) => `unsupported: ${u}`)],
    notes: placement,
    result,
    builder,
  };
}

/** the request the worker's `loadAnyFile` passes to `import<Format>Files` */
export interface ImportFilesRequest {
  entry: string;
  text?: string;
  resolver: AssetResolver;
  num_worlds?: number;
  strict?: boolean;
}

/** `import<Format>Files` adapter over {@link loadModelAsset} */
export function importFilesOf(type: string): (req: ImportFilesRequest) => Promise<LoadedModelAsset> {
  return (req) =>
    loadModelAsset(
      type,
      req.text !== undefined && req.text !== '' ? { text: req.text, path: req.entry } : { path: req.entry },
      {
        resolver: req.resolver,
        num_worlds: req.num_worlds,
      },
    );
}
