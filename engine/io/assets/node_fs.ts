/**
 * The Node file-system resolver (CLI, tests): paths are file-system paths, relative ones taken from
 * `root` (default: the working directory). Imports `node:fs`, so it is not exported from the
 * worker-safe barrel; import it from here.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import nodePath from 'node:path';
import { AssetError, MAX_ASSET_BYTES, normalizePath, type AssetResolver } from './resolver';
import { resolveCommon, type ResolverOptions } from './resolvers';

export interface NodeFsResolverOptions extends ResolverOptions {
  /** folder that relative paths start from (default `process.cwd()`) */
  root?: string;
}

/** reads files from the local file system, with a case-insensitive fallback per path segment */
export class NodeFsResolver implements AssetResolver {
  readonly root: string;
  private readonly packages: Record<string, string>;
  private readonly maxBytes: number;

  constructor(opts: NodeFsResolverOptions = {}) {
    this.root = nodePath.resolve(opts.root ?? process.cwd());
    this.packages = Object.fromEntries(Object.entries(opts.packages ?? {}).map(([k, v]) => [k, this.abs(v)]));
    this.maxBytes = opts.maxBytes ?? MAX_ASSET_BYTES;
  }

  /** an absolute, normalized path */
  abs(p: string): string {
    return normalizePath(nodePath.resolve(this.root, p).split(nodePath.sep).join('/'));
  }

  /** the existing file for `p`, matching each missing segment case-insensitively; undefined if none */
  locate(p: string): string | undefined {
    const a = this.abs(p);
    if (existsSync(a)) return a;
    const segs = a.split('/').filter((s) => s !== '');
    let cur = '/';
    for (const seg of segs) {
      const exact = nodePath.posix.join(cur, seg);
      if (existsSync(exact)) {
        cur = exact;
        continue;
      }
      let entries: string[];
      try {
        entries = readdirSync(cur);
      } catch {
        return undefined;
      }
      const hit = entries.find((e) => e.toLowerCase() === seg.toLowerCase());
      if (hit === undefined) return undefined;
      cur = nodePath.posix.join(cur, hit);
    }
    return cur;
  }

  resolve(base: string, ref: string): string {
    return resolveCommon(this.abs(base), ref, this.packages, (cands) =>
      cands.find((c) => {
        const hit = this.locate(c);
        return hit !== undefined && statSync(hit).isFile();
      }),
    );
  }

  async read(path: string): Promise<Uint8Array> {
    const hit = this.locate(path);
    if (hit === undefined) throw new AssetError(path, 'file not found');
    const st = await stat(hit);
    if (!st.isFile()) throw new AssetError(path, 'not a file');
    if (st.size > this.maxBytes) {
      throw new AssetError(path, `file of ${st.size} bytes exceeds max_asset_bytes = ${this.maxBytes}`);
    }
    return new Uint8Array(await readFile(hit));
  }

  async exists(path: string): Promise<boolean> {
    const hit = this.locate(path);
    return hit !== undefined && statSync(hit).isFile();
  }
}
