/**
 * One entry point for every model file the studio accepts: `loadAnyFile(files, entry)` dispatches
 * by the entry's extension and returns a model ready to simulate, or throws a {@link LoadError}
 * that says which file, where (line/column or key path) and why.
 *
 * - scene files (.yaml, .yml, .json): the scene loader; scenes with `assets` use `loadSceneAsync`
 *   (when the scene loader provides it) with an in-memory resolver over the dropped files;
 * - URDF, MJCF (.xml sniffed by its root element), USD (.usd/.usda/.usdc/.usdz): the importer
 *   registry of `engine/io/import.ts` (`getImporter(type)`), into a fresh ModelBuilder with a ground
 *   plane added when the file brings none.
 * The registry and the format modules are imported lazily (plain dynamic imports, so the same code
 * runs in the Vite worker bundle, in Node under tsx and in vitest); the USD reader is only loaded
 * when a USD file is opened.
 */
import type { ControlSequence } from '../state/control_sequence';
import { ModelBuilder, type SapModel } from '../model';
import { MemoryResolver } from '../io/assets/resolvers';
import { firstInvalidUtf8, nonUtf8BomReason } from '../io/assets/resolver';
import { ImportError } from '../io/assets/errors';
import { keyframeRefusal } from '../io/assets/importer';
import { builderSizeProblem } from '../io/limits';
import { checkBuiltModel, timeStepProblem } from '../io/model_check';
import { hasGroundPlane, standOnGround } from '../io/placement';
import * as sceneLoader from '../io/scene/load';
import { SceneError } from '../io/scene/errors';
import { OptionsError } from '../sap/options';
import type { AssetResolver } from '../io/assets/resolver';
import type { ErrorInfo, LoadPhase, LoadProgress } from './protocol';

/** what the worker needs from any loaded file */
export interface LoadedAny {
  name: string;
  description: string;
  dt: number;
  max_rigid_contact: number;
  /** solver options from the file (normalized, not expanded) */
  solver: Record<string, unknown>;
  model: SapModel;
  warnings: string[];
  /** what the loader did that the user should know of, though nothing is wrong (a robot placed on the ground) */
  notes: string[];
  /** the file's keyframes by name (MJCF `<key>`s; unnamed ones are `key<i>`), in file order */
  keyframes: string[];
  /** the keyframe the initial state was taken from, or null (the model's reference pose) */
  keyframe: string | null;
  /** a scene file's control sequence (`control:`), played by the worker */
  control_sequence?: ControlSequence;
}

export interface LoadAnyOptions {
  num_worlds?: number;
  dt?: number;
  /**
   * recognized features that the engine does not build or only approximates are errors when true; by
   * default (false) the file loads and they are warnings prefixed `unsupported: `. Unknown scene keys
   * are errors either way.
   */
  strict?: boolean;
  /** MJCF only: the name or index of the `<key>` whose state (qpos, qvel, ctrl) starts the simulation */
  keyframe?: string | number;
  /** hears each file read (by kind: files, meshes, textures) and the model build */
  progress?: (p: LoadProgress) => void;
  /** asked before each file read: true abandons the load with a {@link LoadError} whose reason is `cancelled` */
  cancelled?: () => boolean;
}

/** the reason of the LoadError that ends a cancelled load */
export const CANCELLED = 'cancelled';

/** the error that ends a load the user cancelled */
export function loadCancelled(file: string): LoadError {
  return new LoadError({
    code: 'load',
    file,
    message: `${file}: loading cancelled; the current scene keeps running`,
    reason: CANCELLED,
  });
}

const MESH_EXT = new Set(['.stl', '.obj', '.dae', '.ply', '.msh']);
const IMAGE_EXT = new Set(['.png', '.jpg', '.jpeg', '.webp', '.bmp', '.gif', '.tga', '.ktx2', '.hdr']);

/** the progress phase a file read belongs to */
function phaseOf(path: string): LoadPhase {
  const e = extensionOf(path);
  return MESH_EXT.has(e) ? 'meshes' : IMAGE_EXT.has(e) ? 'textures' : 'files';
}

/**
 * a resolver that reports each read to `progress` (counted per phase against the files of that kind
 * in the map) and refuses to read once `cancelled()` is true
 */
class WatchedResolver implements AssetResolver {
  private readonly total: Record<LoadPhase, number> = {
    files: 0,
    meshes: 0,
    textures: 0,
    model: 1,
    simulation: 1,
  };
  private readonly done: Record<LoadPhase, number> = {
    files: 0,
    meshes: 0,
    textures: 0,
    model: 0,
    simulation: 0,
  };
  private readonly seen = new Set<string>();

  constructor(
    private readonly inner: AssetResolver,
    paths: Iterable<string>,
    private readonly entry: string,
    private readonly opts: LoadAnyOptions,
  ) {
    for (const p of paths) this.total[phaseOf(p)]++;
  }

  resolve(base: string, ref: string): string {
    return this.inner.resolve(base, ref);
  }

  async read(path: string): Promise<Uint8Array> {
    if (this.opts.cancelled?.()) throw loadCancelled(this.entry);
    const bytes = await this.inner.read(path);
    if (this.opts.progress && !this.seen.has(path)) {
      this.seen.add(path);
      const phase = phaseOf(path);
      this.done[phase]++;
      this.opts.progress({
        phase,
        done: this.done[phase],
        total: Math.max(this.total[phase], this.done[phase]),
        file: path,
      });
    }
    return bytes;
  }

  exists(path: string): Promise<boolean> {
    return this.inner.exists(path);
  }
}

/** a keyframe was asked of a file that has none to give */
function keyframeRefused(file: string, kind: string): LoadError {
  const reason = keyframeRefusal(kind);
  return new LoadError({ code: 'load', file, path: 'keyframe', message: `${file}: ${reason}`, reason });
}

/** a typed load error carrying the location; `cause` is the importer's or loader's own error */
export class LoadError extends Error {
  constructor(
    readonly info: ErrorInfo,
    cause?: unknown,
  ) {
    super(info.message, cause === undefined ? undefined : { cause });
    this.name = 'LoadError';
  }
}

/** model formats by extension (an .xml is URDF or MJCF by its root element) */
export const MODEL_FORMATS: Record<string, 'urdf' | 'mjcf' | 'usd'> = {
  '.urdf': 'urdf',
  '.xml': 'mjcf',
  '.mjcf': 'mjcf',
  '.usd': 'usd',
  '.usda': 'usd',
  '.usdc': 'usd',
  '.usdz': 'usd',
};
const SCENE_EXT = new Set(['.yaml', '.yml', '.json']);

// the importer registry (URDF, MJCF and the USD adapter), loaded on the first model file
const importRegistry = () => import('../io/import');

/** lowercase extension including the dot ('' when none) */
export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const i = base.lastIndexOf('.');
  return i <= 0 ? '' : base.slice(i).toLowerCase();
}

/** normalizes a POSIX path ('.', '..', repeated and leading slashes) */
export function normalizePath(p: string): string {
  const out: string[] = [];
  for (const seg of p.replace(/\\/g, '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return out.join('/');
}

/** in-memory resolver over a dropped file map */
export class FileMapResolver {
  constructor(readonly files: Map<string, Uint8Array>) {}

  resolve(base: string, ref: string): string {
    const pkg = /^(?:package|model):\/\/([^/]+)\/(.*)$/.exec(ref);
    if (pkg) {
      // a package path resolves to the first dropped file ending in NAME/rest, or rest alone
      const want = normalizePath(`${pkg[1]}/${pkg[2]}`);
      for (const k of this.files.keys()) if (k === want || k.endsWith('/' + want)) return k;
      const rest = normalizePath(pkg[2]);
      for (const k of this.files.keys()) if (k === rest || k.endsWith('/' + rest)) return k;
      return want;
    }
    if (ref.startsWith('/')) return normalizePath(ref);
    const dir = base.includes('/') ? base.slice(0, base.lastIndexOf('/')) : '';
    return normalizePath(dir ? `${dir}/${ref}` : ref);
  }

  async read(path: string): Promise<Uint8Array> {
    const b = this.files.get(normalizePath(path));
    if (!b)
      throw new LoadError({
        code: 'asset',
        file: path,
        message: `${path}: file not found among the dropped files`,
        reason: 'file not found among the dropped files',
      });
    return b;
  }

  async exists(path: string): Promise<boolean> {
    return this.files.has(normalizePath(path));
  }
}

/** converts any thrown value into a located error description */
export function toErrorInfo(err: unknown, code: string, file?: string): ErrorInfo {
  if (err instanceof LoadError) return err.info;
  if (err instanceof SceneError) {
    return {
      code,
      message: err.message,
      file: err.file ?? file,
      line: err.line,
      column: err.column,
      path: err.path || undefined,
      reason: err.reason,
    };
  }
  if (err instanceof OptionsError) {
    return { code, message: err.message, file, path: err.key, reason: err.message };
  }
  if (err instanceof Error) {
    const e = err as Error & {
      path?: unknown;
      line?: unknown;
      column?: unknown;
      file?: unknown;
      reason?: unknown;
      offset?: unknown;
      location?: { offset?: unknown; primPath?: unknown };
    };
    const offset = typeof e.offset === 'number' ? e.offset : e.location?.offset;
    const primPath = e.location?.primPath;
    return {
      code,
      message: e.message,
      file: typeof e.file === 'string' && e.file !== '' ? e.file : file,
      line: typeof e.line === 'number' ? e.line : undefined,
      column: typeof e.column === 'number' ? e.column : undefined,
      path: typeof e.path === 'string' ? e.path : typeof primPath === 'string' ? primPath : undefined,
      offset: typeof offset === 'number' ? offset : undefined,
      reason:
        typeof (e as { reason?: unknown }).reason === 'string' ? (e as { reason: string }).reason : e.message,
    };
  }
  return { code, message: String(err), file };
}

function decode(bytes: Uint8Array, file: string): string {
  const bom = nonUtf8BomReason(bytes);
  if (bom !== undefined)
    throw new LoadError({
      code: 'load',
      file,
      offset: 0,
      line: 1,
      column: 1,
      message: `${file}: ${bom}`,
      reason: bom,
    });
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const offset = Math.max(0, firstInvalidUtf8(bytes));
    throw new LoadError({
      code: 'load',
      file,
      offset,
      message: `${file}: not UTF-8 text (invalid byte 0x${(bytes[offset] ?? 0).toString(16)} at offset ${offset})`,
      reason: 'not UTF-8 text',
    });
  }
}

/**
 * Loads `entry` from `files` (paths are normalized). Scene files load synchronously unless they
 * reference assets; URDF, MJCF and USD go to their importers when present.
 */
export async function loadAnyFile(
  files: Map<string, Uint8Array>,
  entry: string,
  opts: LoadAnyOptions = {},
): Promise<LoadedAny> {
  const norm = new Map<string, Uint8Array>();
  for (const [k, b] of files) norm.set(normalizePath(k), b);
  const key = normalizePath(entry);
  const bytes = norm.get(key);
  if (!bytes) {
    throw new LoadError({
      code: 'load',
      file: entry,
      message: `${entry}: not among the given files`,
      reason: 'not among the given files',
    });
  }
  const ext = extensionOf(key);
  const strict = opts.strict === true;
  const resolver = new WatchedResolver(new MemoryResolver(norm), norm.keys(), entry, opts);
  const building = () => opts.progress?.({ phase: 'model', done: 0, total: 1 });

  if (opts.cancelled?.()) throw loadCancelled(entry);
  opts.progress?.({ phase: 'files', done: 0, total: 1, file: key });
  if (SCENE_EXT.has(ext)) {
    if (opts.keyframe !== undefined) throw keyframeRefused(entry, 'a scene file');
    const text = decode(bytes, entry);
    try {
      const doc = sceneLoader.parseSceneText(text, entry);
      // the asynchronous loader reads the files the scene names: its assets and its control sequence
      const hasAssets =
        Array.isArray((doc as { assets?: unknown[] } | null)?.assets) ||
        (doc as { control?: unknown } | null)?.control !== undefined;
      const loaderOpts = { strict, num_worlds: opts.num_worlds, dt: opts.dt };
      // looked up by name: the async loader (assets) joins the scene loader with the importers
      const asyncLoader = Object.entries(sceneLoader).find(([k]) => k === 'loadSceneAsync')?.[1];
      const loaded =
        hasAssets && typeof asyncLoader === 'function'
          ? await (asyncLoader as (d: unknown, o: unknown) => Promise<sceneLoader.LoadedScene>)(doc, {
              ...loaderOpts,
              resolver,
              base: key,
              file: key,
            })
          : sceneLoader.loadScene(doc, loaderOpts);
      const description = (doc as { description?: unknown } | null)?.description;
      return {
        name: loaded.name,
        description: typeof description === 'string' ? description : '',
        dt: loaded.dt,
        max_rigid_contact: loaded.max_rigid_contact,
        solver: loaded.solver,
        model: loaded.model,
        warnings: [...loaded.warnings, ...loaded.unsupported.map((u) => `unsupported: ${u}`)],
        notes: [],
        keyframes: [],
        keyframe: null,
        ...(loaded.control_sequence ? { control_sequence: loaded.control_sequence } : {}),
      };
    } catch (e) {
      throw new LoadError(toErrorInfo(e, 'load', entry), e);
    }
  }

  const type = ext === '.xml' ? 'mjcf' : MODEL_FORMATS[ext];
  if (!type) {
    const known = [...SCENE_EXT, ...Object.keys(MODEL_FORMATS)].join(', ');
    throw new LoadError({
      code: 'unsupported_format',
      file: entry,
      message: `${entry}: '${ext || '(no extension)'}' is not a model format (accepted: ${known})`,
      reason: 'unknown file type',
    });
  }
  const registry = await importRegistry();
  let kind: string = type;
  if (ext === '.xml') kind = registry.sniffXmlType(decode(bytes, entry)) ?? 'mjcf';
  const importer = registry.getImporter(kind);
  const label = kind.toUpperCase();
  if (!importer) {
    throw new LoadError({
      code: 'unsupported_format',
      file: entry,
      message: `${entry}: ${label} files are not supported yet (no ${label} importer in this build)`,
      reason: `${label} format not supported yet`,
    });
  }
  if (opts.keyframe !== undefined && kind !== 'mjcf') throw keyframeRefused(entry, `a ${label} file`);
  try {
    const builder = new ModelBuilder();
    builder.num_worlds = opts.num_worlds ?? 1;
    const keyframe = opts.keyframe;
    const res = await importer(builder, { path: key }, { resolver, keyframe });
    const unsupported = res.unsupported ?? [];
    if (strict && unsupported.length) {
      const more = unsupported.length > 1 ? ` (and ${unsupported.length - 1} more)` : '';
      throw new ImportError(`unsupported (strict loading): ${unsupported[0]}${more}`, key);
    }
    if (res.gravity) builder.gravity = [res.gravity[0], res.gravity[1], res.gravity[2]];
    if (opts.cancelled?.()) throw loadCancelled(entry);
    building();
    const tooBig = builderSizeProblem(builder);
    if (tooBig) throw new ImportError(tooBig, key);
    // a robot on its own gets a ground plane to stand on; the ground is the studio's, not the
    // author's, so a robot that reaches into it at its authored pose stands on it instead
    const hasPlane = hasGroundPlane(builder);
    const placed = hasPlane ? null : standOnGround(builder);
    if (!hasPlane) builder.addGround({}, 'ground');
    const model = builder.finalize();
    const physical = checkBuiltModel(model, builder);
    const dtBad = opts.dt === undefined ? undefined : timeStepProblem(opts.dt);
    if (dtBad) throw new ImportError(`dt: ${dtBad}`, key);
    const base = entry.slice(entry.lastIndexOf('/') + 1);
    const keyframes = (res.keyframes ?? []).map((k) => k.name);
    const chosen =
      keyframe === undefined ? null : typeof keyframe === 'number' ? keyframes[keyframe] : keyframe;
    const notes = placed ? [placed] : [];
    const dtWarning =
      opts.dt === undefined
        ? undefined
        : registry.timeStepOverrideWarning(res.timestep, opts.dt, 'the chosen dt');
    if (keyframes.length && chosen === null)
      notes.push(
        `starts from the reference pose (qpos0); the file's keyframes (${keyframes.join(', ')}) are under simulation ▸ keyframe`,
      );
    return {
      name: res.name || base,
      description: `${label} model ${base}`,
      dt: opts.dt ?? res.timestep ?? registry.defaultTimeStep(kind),
      max_rigid_contact: 256,
      solver: {},
      model,
      notes,
      warnings: [
        ...(res.warnings ?? []),
        ...physical,
        ...unsupported.map((u) => `unsupported: ${u}`),
        ...(dtWarning ? [dtWarning] : []),
      ],
      keyframes,
      keyframe: chosen ?? null,
    };
  } catch (e) {
    throw new LoadError(toErrorInfo(e, 'load', entry), e);
  }
}
