/**
 * Asset resolution: one interface over in-memory file maps (browser drops, folders, zip/USDZ
 * archives), the file system (Node, `--asset-root DIR`) and URLs. Importers only see this
 * interface. Paths are POSIX-style strings; `resolve(base, ref)` turns a reference found inside
 * `base` (relative path, `package://NAME/...`, `model://NAME/...`, absolute) into a path the
 * resolver can read.
 */
import { LIMITS } from '../limits';

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
export const MAX_ASSET_BYTES = LIMITS.max_asset_bytes;

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

/** the byte offset of the first invalid UTF-8 sequence, or -1 when the bytes are valid UTF-8 */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  const n = b.length;
  while (i < n) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) [need, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [need, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    if (i + need >= n) return i;
    let cp = c & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

/** decodes UTF-8 text (with or without a BOM) */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}
