/**
 * Where a scene's asset files are looked for (worker-safe: only resolver paths, no file system).
 *
 * A git source `{repo: …/NAME.git, rev: R, path: P}` is searched in each root in order:
 * a per-revision root (the per-user cache) at `<root>/NAME/R/P` (`<root>/NAME/HEAD/P` without a
 * rev); any other root at `<root>/NAME/R/P` when it has that revision folder, else `<root>/NAME/P`
 * as is. A plain path P is tried beside the scene (`<scene dir>/P`), then as `<root>/P` and
 * `<root>/sap_warp/P` (SAP Warp's own scenes use paths inside the sap_warp repository). The roots
 * are the caller's (`--asset-root`, the environment, the cache: `engine/io/asset_search.ts` in
 * Node) followed by the folders beside the scene: `<scene dir>/assets`, `<scene dir>/../assets`
 * (SAP Warp's layout: scenes/ beside assets/) and `<scene dir>` itself.
 */
import { normalizePath, type AssetResolver } from '../assets/resolver';
import { SceneAssetNotFoundError, type AssetPlace, type KeySegment } from './errors';

/** one folder that assets are looked for in */
export interface AssetRoot {
  /** the folder, as a resolver path */
  dir: string;
  /** where the root came from, for messages ('--asset-root', 'SAP_STUDIO_ASSET_ROOT', 'cache', …) */
  origin: string;
  /** the folder holds one checkout per revision (`<dir>/NAME/<rev>/`), as the per-user cache does */
  per_rev?: boolean;
}

/** a git source of a scene asset */
export interface GitSource {
  repo: string;
  rev?: string;
  sparse?: string[];
  path: string;
}

/** the folder name of a repository URL: `https://github.com/o/NAME.git` → `NAME` */
export function repoName(repo: string): string {
  const tail = repo
    .replace(/[/\\]+$/, '')
    .replace(/\.git$/, '')
    .split(/[/:\\]/)
    .pop();
  return !tail || tail === '.' || tail === '..' ? 'repo' : tail;
}

const join = (...p: string[]): string => normalizePath(p.filter((x) => x !== '').join('/'));

/** the folders beside a scene (scene dir '' = the resolver's root) */
export function besideSceneRoots(sceneDir: string): AssetRoot[] {
  const origin = 'beside the scene';
  const out: AssetRoot[] = [{ dir: join(sceneDir, 'assets'), origin }];
  // `..` of a relative root folder stays out of a memory map
  const up = join(sceneDir, '..', 'assets');
  if (!up.startsWith('..')) out.push({ dir: up, origin });
  out.push({ dir: sceneDir === '' ? '' : normalizePath(sceneDir), origin });
  return out;
}

/** the folder of a revision (`HEAD` without one); undefined for a rev that would leave its folder */
function revFolder(rev: string | undefined): string | undefined {
  if (rev === undefined) return 'HEAD';
  return rev.split('/').some((s) => s === '' || s === '.' || s === '..') ? undefined : rev;
}

/** the candidate paths of a git source in the roots, in search order */
export function gitCandidates(g: GitSource, roots: readonly AssetRoot[]): AssetPlace[] {
  const name = repoName(g.repo);
  const rev = revFolder(g.rev);
  const out: AssetPlace[] = [];
  for (const r of roots) {
    if (r.per_rev) {
      if (rev !== undefined) out.push({ origin: r.origin, path: join(r.dir, name, rev, g.path) });
    } else {
      if (g.rev && rev !== undefined) out.push({ origin: r.origin, path: join(r.dir, name, rev, g.path) });
      out.push({ origin: r.origin, path: join(r.dir, name, g.path) });
    }
  }
  return out;
}

/** the candidate paths of a plain (relative) asset path, in search order */
export function plainCandidates(p: string, sceneDir: string, roots: readonly AssetRoot[]): AssetPlace[] {
  const out: AssetPlace[] = [{ origin: 'the scene folder', path: join(sceneDir, p) }];
  for (const r of roots) {
    if (r.per_rev) continue; // the cache holds repositories only
    out.push(
      { origin: r.origin, path: join(r.dir, p) },
      { origin: r.origin, path: join(r.dir, 'sap_warp', p) },
    );
  }
  // a root listed twice (the scene folder is also a root) is tried once
  const seen = new Set<string>();
  return out.filter((c) => !seen.has(c.path) && (seen.add(c.path), true));
}

/** single-quotes a shell word when it needs it */
function shellWord(s: string): string {
  return /^[\w@%+=:,./~-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** the shell command that puts a git source into a per-revision root */
export function cloneCommand(g: GitSource, cacheDir: string): string {
  const dir = shellWord(join(cacheDir, repoName(g.repo), revFolder(g.rev) ?? 'HEAD'));
  const parts = [
    `git clone --filter=blob:none${g.sparse?.length ? ' --sparse' : ''} ${shellWord(g.repo)} ${dir}`,
  ];
  if (g.sparse?.length) {
    const folders = [...g.sparse];
    const parent = g.path.includes('/') ? g.path.slice(0, g.path.lastIndexOf('/')) : '';
    if (!folders.some((f) => isInside(g.path, f)) && parent) folders.push(parent);
    parts.push(`git -C ${dir} sparse-checkout set ${folders.map(shellWord).join(' ')}`);
  }
  if (g.rev) parts.push(`git -C ${dir} checkout ${shellWord(g.rev)}`);
  return parts.join(' && ');
}

/** whether `p` lies in the folder `folder` (both repository-relative) */
export function isInside(p: string, folder: string): boolean {
  const f = normalizePath(folder).replace(/\/+$/, '');
  const n = normalizePath(p);
  return f === '' || n === f || n.startsWith(`${f}/`);
}

/** the first candidate that exists; undefined when none does */
export async function firstExisting(
  resolver: AssetResolver,
  candidates: readonly AssetPlace[],
): Promise<AssetPlace | undefined> {
  for (const c of candidates) if (await resolver.exists(c.path)) return c;
  return undefined;
}

/** the error for a git source found in none of its candidates */
export function gitNotFound(
  path: readonly KeySegment[],
  what: string,
  g: GitSource,
  tried: AssetPlace[],
  roots: readonly AssetRoot[],
): SceneAssetNotFoundError {
  const name = repoName(g.repo);
  const rev = g.rev ? ` @ ${g.rev}` : '';
  const cache = roots.find((r) => r.per_rev);
  const fix = [
    ...(cache && revFolder(g.rev) !== undefined ? [cloneCommand(g, cache.dir)] : []),
    `or give a folder that holds ${name}/${g.path} as the asset root (--asset-root DIR, the library's asset_root option, or SAP_STUDIO_ASSET_ROOT=DIR)`,
  ];
  return new SceneAssetNotFoundError(path, `${what}: git ${g.repo}${rev} path ${g.path}`, g, tried, fix);
}

/** the error for a plain asset path found in none of its candidates */
export function plainNotFound(path: readonly KeySegment[], what: string, p: string, tried: AssetPlace[]) {
  const fix = [
    `put the file at ${tried[0].path}, or give a folder that holds ${p} (or sap_warp/${p}) as the asset root (--asset-root DIR or SAP_STUDIO_ASSET_ROOT=DIR)`,
  ];
  return new SceneAssetNotFoundError(path, `${what}: path ${p}`, undefined, tried, fix);
}
