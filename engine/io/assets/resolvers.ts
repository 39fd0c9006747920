/**
 * Concrete asset resolvers (the interface is in `resolver.ts`):
 * - {@link MemoryResolver}: an in-memory file map (browser drops, folders, archives);
 * - {@link UrlResolver}: `fetch` under a base URL (browser, online);
 * - the Node file-system resolver lives in `node_fs.ts` (it imports `node:fs`; keep it out of workers).
 *
 * Reference forms understood by every resolver's `resolve(base, ref)`:
 * relative paths (against the folder of `base`), absolute paths, `file://`, `package://NAME/rest` and
 * `model://NAME/rest` (through a package map, else a search for a folder named NAME upwards from `base`),
 * and, for the URL resolver, `http(s)://`.
 */
import { OutsideAssetError } from './errors';
import { AssetError, MAX_ASSET_BYTES, dirname, normalizePath, type AssetResolver } from './resolver';

/** `package://NAME/rest` / `model://NAME/rest` split into its parts, or undefined */
export function parsePackageUri(ref: string): { scheme: string; name: string; rest: string } | undefined {
  const m = /^(package|model):\/\/([^/]+)\/?(.*)$/.exec(ref);
  if (!m) return undefined;
  return { scheme: m[1], name: m[2], rest: m[3] };
}

/** joins a folder and a relative path */
export function joinPath(dir: string, rel: string): string {
  if (dir === '') return normalizePath(rel);
  return normalizePath(`${dir}/${rel}`);
}

/** the last path segment */
export function basename(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? p : p.slice(i + 1);
}

/** common options of the resolvers */
export interface ResolverOptions {
  /** `package://NAME` → folder (resolver path) */
  packages?: Record<string, string>;
  /** largest single file [bytes] (default {@link MAX_ASSET_BYTES}) */
  maxBytes?: number;
}

/**
 * Candidate paths for a `package://` / `model://` reference without a package map entry: for each
 * ancestor folder D of `base` (nearest first), `D/rest` when D is named NAME, then `D/NAME/rest`.
 */
export function packageCandidates(base: string, name: string, rest: string): string[] {
  const out: string[] = [];
  let d = dirname(base);
  for (let guard = 0; guard < 64; guard++) {
    if (basename(d) === name) out.push(joinPath(d, rest));
    out.push(joinPath(d === '' ? name : `${d}/${name}`, rest));
    if (d === '' || d === '/') break;
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return out;
}

/** the shared part of `resolve`: everything but package lookups without a map */
export function resolveCommon(
  base: string,
  ref: string,
  packages: Record<string, string>,
  pickCandidate: (candidates: string[]) => string | undefined,
): string {
  const r = ref.trim();
  if (r.startsWith('file://')) return normalizePath(decodeURIComponent(r.slice('file://'.length)));
  const pkg = parsePackageUri(r);
  if (pkg) {
    const mapped = packages[pkg.name];
    if (mapped !== undefined) return joinPath(mapped, pkg.rest);
    const cands = packageCandidates(base, pkg.name, pkg.rest);
    return pickCandidate(cands) ?? cands[0] ?? r;
  }
  if (r.startsWith('/')) return normalizePath(r);
  return joinPath(dirname(base), r);
}

function sizeError(path: string, size: number, limit: number): AssetError {
  return new AssetError(path, `file of ${size} bytes exceeds max_asset_bytes = ${limit}`);
}

/**
 * An in-memory file map. Keys are POSIX paths (a leading '/' or './' is ignored). A missing path falls
 * back to a case-insensitive match (URDFs often disagree with the file system on `.STL` vs `.stl`).
 */
export class MemoryResolver implements AssetResolver {
  private readonly files = new Map<string, Uint8Array>();
  private readonly lower = new Map<string, string>();
  private readonly packages: Record<string, string>;
  private readonly maxBytes: number;

  constructor(
    files: Map<string, Uint8Array | string> | Record<string, Uint8Array | string>,
    opts: ResolverOptions = {},
  ) {
    this.packages = opts.packages ?? {};
    this.maxBytes = opts.maxBytes ?? MAX_ASSET_BYTES;
    const entries = files instanceof Map ? [...files.entries()] : Object.entries(files);
    for (const [k, v] of entries) this.add(k, v);
  }

  /** adds or replaces a file */
  add(path: string, data: Uint8Array | string): void {
    const key = MemoryResolver.key(path);
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    this.files.set(key, bytes);
    this.lower.set(key.toLowerCase(), key);
  }

  /** the stored paths */
  paths(): string[] {
    return [...this.files.keys()];
  }

  private static key(p: string): string {
    return normalizePath(p).replace(/^\/+/, '');
  }

  private find(path: string): string | undefined {
    const k = MemoryResolver.key(path);
    if (this.files.has(k)) return k;
    return this.lower.get(k.toLowerCase());
  }

  /** the path `ref` written in `base` names; a climb above the map's root is an OutsideAssetError */
  resolve(base: string, ref: string): string {
    const p = resolveCommon(MemoryResolver.key(base), ref, this.packages, (c) => c.find((q) => this.find(q)));
    if (p === '..' || p.startsWith('../'))
      throw new OutsideAssetError(base, ref, p, ['the dropped files'], 'only the dropped files can be read');
    return p;
  }

  async read(path: string): Promise<Uint8Array> {
    const k = this.find(path);
    if (k === undefined) throw new AssetError(path, 'file not found');
    const data = this.files.get(k)!;
    if (data.length > this.maxBytes) throw sizeError(path, data.length, this.maxBytes);
    return data;
  }

  async exists(path: string): Promise<boolean> {
    return this.find(path) !== undefined;
  }
}

/** the `fetch` signature used by {@link UrlResolver} */
export type FetchLike = (url: string) => Promise<{
  ok: boolean;
  status: number;
  headers: { get(name: string): string | null };
  arrayBuffer(): Promise<ArrayBuffer>;
}>;

/**
 * Reads assets over HTTP(S) with `fetch` (the browser's, online). Relative references resolve
 * against the referencing file's URL; `package://NAME/rest` uses the package map, else the folder
 * named NAME in the base URL's path, else the folder above the referencing file's folder.
 */
export class UrlResolver implements AssetResolver {
  private readonly packages: Record<string, string>;
  private readonly maxBytes: number;

  constructor(
    private readonly fetchFn: FetchLike = (u) => fetch(u),
    opts: ResolverOptions = {},
  ) {
    this.packages = opts.packages ?? {};
    this.maxBytes = opts.maxBytes ?? MAX_ASSET_BYTES;
  }

  resolve(base: string, ref: string): string {
    const r = ref.trim();
    if (/^https?:\/\//.test(r)) return r;
    const pkg = parsePackageUri(r);
    if (pkg && this.packages[pkg.name] === undefined) {
      const u = new URL(base);
      const segs = u.pathname.split('/');
      const at = segs.lastIndexOf(pkg.name);
      const dir = at >= 0 ? segs.slice(0, at + 1).join('/') : segs.slice(0, -2).concat(pkg.name).join('/');
      return new URL(`${dir}/${pkg.rest}`, u).toString();
    }
    if (pkg) return new URL(pkg.rest, this.packages[pkg.name].replace(/\/?$/, '/')).toString();
    return new URL(r, base).toString();
  }

  async read(path: string): Promise<Uint8Array> {
    let res;
    try {
      res = await this.fetchFn(path);
    } catch (e) {
      throw new AssetError(path, `fetch failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!res.ok) throw new AssetError(path, `HTTP ${res.status}`);
    const len = Number(res.headers.get('content-length') ?? NaN);
    if (len > this.maxBytes) throw sizeError(path, len, this.maxBytes);
    const buf = new Uint8Array(await res.arrayBuffer());
    if (buf.length > this.maxBytes) throw sizeError(path, buf.length, this.maxBytes);
    return buf;
  }

  async exists(path: string): Promise<boolean> {
    try {
      await this.read(path);
      return true;
    } catch {
      return false;
    }
  }
}
