/**
 * The asset search roots of the CLI and of `loadModelFile` (Node only: reads the environment and the
 * home folder). In order: the `asset_root` option (`--asset-root DIR`), the environment variable
 * `SAP_STUDIO_ASSET_ROOT` (one folder, or several separated by the platform's path delimiter), and the
 * per-user cache `$XDG_CACHE_HOME/sap-studio/assets` (default `~/.cache/sap-studio/assets`), which holds
 * one checkout per revision: `<cache>/<repo name>/<rev>/`. The scene loader then searches the folders
 * beside the scene (`engine/io/scene/asset_roots.ts`).
 */
import os from 'node:os';
import nodePath from 'node:path';
import type { AssetRoot } from './scene/asset_roots';

/** the environment variable naming asset roots */
export const ASSET_ROOT_ENV = 'SAP_STUDIO_ASSET_ROOT';

export interface AssetSearchOptions {
  /** `--asset-root DIR` (relative to the working directory) */
  asset_root?: string;
  /** the environment (default `process.env`) */
  env?: Record<string, string | undefined>;
  /** the home folder (default `os.homedir()`) */
  home?: string;
}

/** the per-user asset cache folder (absolute) */
export function assetCacheDir(opts: Pick<AssetSearchOptions, 'env' | 'home'> = {}): string {
  const env = opts.env ?? process.env;
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && nodePath.isAbsolute(xdg) ? xdg : nodePath.join(opts.home ?? os.homedir(), '.cache');
  return toPosix(nodePath.join(base, 'sap-studio', 'assets'));
}

const toPosix = (p: string): string => p.split(nodePath.sep).join('/');

/** the roots searched before the folders beside the scene, in order, as absolute paths */
export function assetSearchRoots(opts: AssetSearchOptions = {}): AssetRoot[] {
  const env = opts.env ?? process.env;
  const abs = (p: string) => toPosix(nodePath.resolve(p));
  const roots: AssetRoot[] = [];
  if (opts.asset_root !== undefined) roots.push({ dir: abs(opts.asset_root), origin: '--asset-root' });
  for (const dir of (env[ASSET_ROOT_ENV] ?? '').split(nodePath.delimiter)) {
    if (dir.trim() !== '') roots.push({ dir: abs(dir.trim()), origin: ASSET_ROOT_ENV });
  }
  roots.push({ dir: assetCacheDir(opts), origin: 'cache', per_rev: true });
  return roots;
}
