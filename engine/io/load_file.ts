/**
 * Loads a model file by extension for the CLI and tests: scene files (.yaml, .yml, .json; with
 * `assets` through the importers), URDF (.urdf), MJCF (.xml, .mjcf; an .xml whose root is <robot>
 * is read as URDF) and USD (.usd, .usda, .usdc, .usdz, through the importer registered for 'usd').
 * Files are read from the local file system ({@link NodeFsResolver}).
 */
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SapModel } from '../model';
import type { ControlSequence } from '../state/control_sequence';
import { assetSearchRoots } from './asset_search';
import { keyframeRefusal } from './assets/importer';
import { ConfinedResolver } from './assets/confined';
import { NodeFsResolver } from './assets/node_fs';
import { decodeText } from './assets/resolver';
import {
  assetTypeOfPath,
  getImporter,
  loadModelAsset,
  registerImporter,
  sniffXmlType,
  type Importer,
} from './import';
import { besideSceneRoots } from './scene/asset_roots';
import { SceneUnsupportedError } from './scene/errors';
import { loadScene, loadSceneAsync, parseSceneText } from './scene/load';

/** what the CLI needs from any loaded file */
export interface LoadedSceneFile {
  name: string;
  dt: number;
  /** the time step the file itself names (MJCF `<option timestep>`, a USD PhysicsScene's), if any [s] */
  authored_dt?: number;
  max_rigid_contact: number;
  /** solver options from the file (normalized, not expanded) */
  solver: Record<string, unknown>;
  model: SapModel;
  warnings: string[];
  /** what the loader did that the user should know of, though nothing is wrong (a robot placed on the ground) */
  notes: string[];
  /** a scene file's control sequence (`control:`), played by `run` and the bench */
  control_sequence?: ControlSequence;
}

export interface LoadFileOptions {
  num_worlds?: number;
  /**
   * the first folder searched for scene assets (`<asset_root>/<repo name>/<path>`); then
   * `SAP_STUDIO_ASSET_ROOT`, the per-user cache and the folders beside the scene (`asset_search.ts`)
   */
  asset_root?: string;
  /** the environment read for `SAP_STUDIO_ASSET_ROOT` and `XDG_CACHE_HOME` (default `process.env`) */
  env?: Record<string, string | undefined>;
  /** the home folder of the default cache (default `os.homedir()`) */
  home?: string;
  /**
   * recognized features that the engine does not build or only approximates are errors
   * (SceneUnsupportedError) when true; by default they are warnings prefixed `unsupported: ` and the
   * file loads. Unknown scene keys are errors either way.
   */
  strict?: boolean;
  /** `package://NAME` → folder, for URDF meshes */
  packages?: Record<string, string>;
  /** MJCF model files: name or index of a `<key>` whose qpos (and ctrl) become the initial state */
  keyframe?: string | number;
  /**
   * read files outside the model's folder and the asset roots (absolute paths, `..` climbs); by
   * default such a reference is an OutsideAssetError (`--allow-outside-assets`)
   */
  allow_outside_assets?: boolean;
}

const SCENE_EXT = new Set(['.yaml', '.yml', '.json']);

/** registers the USD importer's registry adapter (`importUsdAsset`) when its module provides one */
async function ensureUsdImporter(): Promise<void> {
  if (getImporter('usd')) return;
  const mod = (await import('./usd/index')) as unknown as Record<string, unknown>;
  if (typeof mod.importUsdAsset === 'function') registerImporter('usd', mod.importUsdAsset as Importer);
}

/**
 * folders that hold a package's model files beside its other folders (`robot/urdf/robot.urdf` reads
 * `robot/meshes/…`, SAP Warp's `scenes/x.yaml` reads `control/…` and `assets/…`)
 */
export const MODEL_SUBFOLDERS: ReadonlySet<string> = new Set([
  'urdf',
  'mjcf',
  'xml',
  'usd',
  'robots',
  'models',
  'scenes',
]);

/**
 * the folder a model file may read from: the one that holds it or, when that is one of
 * {@link MODEL_SUBFOLDERS}, the package folder above it
 */
export function modelFolder(abs: string): string {
  const dir = path.posix.dirname(abs);
  return MODEL_SUBFOLDERS.has(path.posix.basename(dir).toLowerCase()) ? path.posix.dirname(dir) : dir;
}

/**
 * `fs` confined to the folders a file at `abs` may read from: its {@link modelFolder}, the asset search
 * roots, the package map's folders and, for a scene, the folders beside it (`assets/`, `../assets/`)
 */
function confine(fs: NodeFsResolver, abs: string, scene: boolean, opts: LoadFileOptions): ConfinedResolver {
  const dir = path.posix.dirname(abs);
  const roots = [
    modelFolder(abs),
    ...(scene ? besideSceneRoots(dir).map((r) => r.dir) : []),
    ...assetSearchRoots(opts).map((r) => r.dir),
    ...Object.values(opts.packages ?? {}).map((p) => fs.abs(p)),
  ];
  const realPath = (p: string): string | undefined => {
    const hit = fs.locate(p);
    if (hit === undefined) return undefined;
    try {
      return realpathSync(hit).split(path.sep).join('/');
    } catch {
      return undefined;
    }
  };
  return new ConfinedResolver(fs, roots, { realPath });
}

export async function loadModelFile(file: string, opts: LoadFileOptions = {}): Promise<LoadedSceneFile> {
  const ext = path.extname(file).toLowerCase();
  const fsResolver = new NodeFsResolver({ packages: opts.packages });
  const abs = fsResolver.abs(file);
  const resolver = opts.allow_outside_assets
    ? fsResolver
    : confine(fsResolver, abs, SCENE_EXT.has(ext), opts);
  const keyframeOnly = (kind: string) => new SceneUnsupportedError([], `${file}: ${keyframeRefusal(kind)}`);
  if (SCENE_EXT.has(ext)) {
    if (opts.keyframe !== undefined) throw keyframeOnly('a scene file');
    const text = decodeText(await readFile(file), file);
    const doc = parseSceneText(text, file);
    const assets = (doc as { assets?: { type?: unknown }[] } | null)?.assets;
    // the asynchronous loader reads the files a scene names: assets and its control sequence
    const hasAssets = Array.isArray(assets) || (doc as { control?: unknown } | null)?.control !== undefined;
    if (Array.isArray(assets) && assets.some((a) => a?.type === 'usd')) await ensureUsdImporter();
    const common = { strict: opts.strict === true, num_worlds: opts.num_worlds };
    const loaded = hasAssets
      ? await loadSceneAsync(doc, {
          ...common,
          resolver,
          scene_path: abs,
          asset_roots: assetSearchRoots(opts),
        })
      : loadScene(doc, common);
    return {
      name: loaded.name,
      dt: loaded.dt,
      max_rigid_contact: loaded.max_rigid_contact,
      solver: loaded.solver,
      model: loaded.model,
      warnings: [...loaded.warnings, ...loaded.unsupported.map((u) => `unsupported: ${u}`)],
      notes: [],
      ...(loaded.control_sequence ? { control_sequence: loaded.control_sequence } : {}),
    };
  }
  let type = assetTypeOfPath(file);
  if (type === undefined) {
    throw new SceneUnsupportedError(
      [],
      `${file}: '${ext}' files are not supported (scene .yaml/.yml/.json, URDF .urdf, MJCF .xml, USD .usd/.usda/.usdc/.usdz)`,
    );
  }
  if (type === 'mjcf') {
    const head = new TextDecoder().decode((await resolver.read(abs)).subarray(0, 4096));
    type = sniffXmlType(head) ?? 'mjcf';
  }
  if (opts.keyframe !== undefined && type !== 'mjcf') throw keyframeOnly(`a ${type.toUpperCase()} file`);
  if (type === 'usd') await ensureUsdImporter();
  const loaded = await loadModelAsset(
    type,
    { path: abs },
    {
      resolver,
      num_worlds: opts.num_worlds,
      strict: opts.strict === true,
      keyframe: opts.keyframe,
    },
  );
  // an MJCF file's keys, when none was chosen: say which there are
  const keys = (loaded.result.keyframes ?? []).map((k) => k.name);
  const keyNote =
    keys.length && opts.keyframe === undefined
      ? [
          `starts from the reference pose (qpos0); the file's keyframes: ${keys.join(', ')} (--keyframe NAME starts from one)`,
        ]
      : [];
  return {
    name: loaded.name,
    dt: loaded.dt,
    ...(loaded.result.timestep !== undefined ? { authored_dt: loaded.result.timestep } : {}),
    max_rigid_contact: loaded.max_rigid_contact,
    solver: loaded.solver,
    model: loaded.model,
    warnings: loaded.warnings,
    notes: [...loaded.notes, ...keyNote],
  };
}
