/**
 * Asset confinement (SPEC §11): a resolver wrapper that keeps every file a model or scene reads inside
 * a set of root folders: the model's own folder, the asset roots (`--asset-root`, the environment,
 * the cache) and, for scenes, the folders beside the scene. A reference that resolves elsewhere (an
 * absolute path, a `..` climb, a `package://` name that matches a folder far above, a symbolic link
 * out of a root) is an {@link OutsideAssetError} naming the referencing file and the reference, not
 * a read. The CLI confines by default (`--allow-outside-assets` lifts it); the studio reads only
 * dropped files, whose memory resolver cannot climb out of the drop either.
 */
import { OutsideAssetError } from './errors';

export { OutsideAssetError };
import { dirname, normalizePath, type AssetResolver } from './resolver';
import { basename, parsePackageUri } from './resolvers';

/** rethrows `e` when it is an {@link OutsideAssetError}: importers that turn read failures into warnings call it first */
export function rethrowOutside(e: unknown): void {
  if (e instanceof OutsideAssetError) throw e;
}

/** whether the normalized absolute or relative path `p` lies in folder `dir` (or is it) */
export function isWithin(p: string, dir: string): boolean {
  const d = dir.replace(/\/+$/, '');
  if (d === '') return !p.startsWith('/') && p !== '..' && !p.startsWith('../');
  return p === d || p.startsWith(`${d}/`);
}

/** how many folders above a root the package folder of a `package://NAME/…` reference may sit */
export const PACKAGE_LEVELS_ABOVE_ROOT = 1;

export interface ConfinedResolverOptions {
  /** the real path of an existing file or folder (symbolic links followed), undefined when missing */
  realPath?: (p: string) => string | undefined;
}

/** an {@link AssetResolver} that refuses paths outside its roots (see the module comment) */
export class ConfinedResolver implements AssetResolver {
  private readonly roots: string[];
  private realRoots: string[] | undefined;

  constructor(
    private readonly inner: AssetResolver,
    roots: readonly string[],
    private readonly opts: ConfinedResolverOptions = {},
  ) {
    this.roots = [...new Set(roots.map((r) => normalizePath(r)))];
  }

  /** the folders assets may come from (the model's package folder joins when a reference names it) */
  allowedRoots(): readonly string[] {
    return this.roots;
  }

  private inside(p: string): boolean {
    const n = normalizePath(p);
    return this.roots.some((r) => isWithin(n, r));
  }

  /** throws when the real path of `p` (links followed) leaves every root's real path */
  private checkReal(file: string, ref: string, p: string): void {
    const real = this.opts.realPath;
    if (!real) return;
    const rp = real(p);
    if (rp === undefined) return;
    this.realRoots ??= this.roots.map((r) => real(r) ?? r);
    if (!this.realRoots.some((r) => isWithin(normalizePath(rp), r)))
      throw new OutsideAssetError(file, ref, `${p} (a link to ${rp})`, this.roots);
  }

  /**
   * the package folder a `package://NAME/rest` reference written in `base` names: the nearest folder
   * NAME above `base`, when it sits at most {@link PACKAGE_LEVELS_ABOVE_ROOT} levels above the root
   * that holds `base` (a ROS package holding the model: `pkg/urdf/robot.urdf` → `pkg/meshes/…`)
   */
  private packageFolder(base: string, ref: string): string | undefined {
    const pkg = parsePackageUri(ref.trim());
    if (!pkg) return undefined;
    const b = normalizePath(base);
    const root = this.roots.filter((r) => isWithin(b, r)).sort((x, y) => y.length - x.length)[0];
    if (root === undefined) return undefined;
    let d = root;
    for (let up = 0; up <= PACKAGE_LEVELS_ABOVE_ROOT; up++) {
      if (basename(d) === pkg.name) return d;
      const next = dirname(d);
      if (next === d) break;
      d = next;
    }
    return undefined;
  }

  resolve(base: string, ref: string): string {
    const target = this.inner.resolve(base, ref);
    if (!this.inside(target)) {
      const pkgDir = this.packageFolder(base, ref);
      if (pkgDir === undefined || !isWithin(normalizePath(target), pkgDir))
        throw new OutsideAssetError(base, ref, target, this.roots);
      this.roots.push(pkgDir);
      this.realRoots = undefined;
    }
    this.checkReal(base, ref, target);
    return target;
  }

  async read(path: string): Promise<Uint8Array> {
    if (!this.inside(path)) throw new OutsideAssetError('', path, path, this.roots);
    this.checkReal('', path, path);
    return this.inner.read(path);
  }

  async exists(path: string): Promise<boolean> {
    if (!this.inside(path)) throw new OutsideAssetError('', path, path, this.roots);
    if (!(await this.inner.exists(path))) return false;
    this.checkReal('', path, path);
    return true;
  }
}
