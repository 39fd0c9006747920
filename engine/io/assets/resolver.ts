/**
 * Asset resolution: one interface over in-memory file maps (browser drops, folders, zip/USDZ
 * archives), the file system (Node, `--asset-root DIR`) and URLs. Importers only see this
 * interface. Paths are POSIX-style strings; `resolve(base, ref)` turns a reference found inside
 * `base` (relative path, `package://NAME/...`, `model://NAME/...`, absolute) into a path the
 * resolver can read.
 */

/** a typed asset error carrying the path that failed */
export class AssetError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'AssetError';
  }
}

export interface AssetResolver {
  /** the path that `ref`, written inside the file `base`, designates */
  resolve(base: string, ref: string): string;
  /** the bytes of a file; rejects with AssetError when missing or over the size limit */
  read(path: string): Promise<Uint8Array>;
  /** whether a file exists (no error) */
  exists(path: string): Promise<boolean>;
}

/** largest single asset read by default [bytes] */
export const MAX_ASSET_BYTES = 256 * 1024 * 1024;

/** joins and normalizes POSIX path segments ('.', '..', repeated slashes) */
export function normalizePath(p: string): string {
  const abs = p.startsWith('/');
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length && out[out.length - 1] !== '..') out.pop();
      else if (!abs) out.push('..');
      continue;
    }
    out.push(seg);
  }
  return (abs ? '/' : '') + out.join('/');
}

/** the folder part of a path ('' for a bare file name) */
export function dirname(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : i === 0 ? '/' : p.slice(0, i);
}

/** decodes UTF-8 text (with or without a BOM) */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}
