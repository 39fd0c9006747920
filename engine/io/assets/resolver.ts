/**
 * Asset resolution: one interface over in-memory file maps (browser drops, folders, zip/USDZ
 * archives), the file system (Node, `--asset-root DIR`) and URLs. Importers only see this
 * interface. Paths are POSIX-style strings; `resolve(base, ref)` turns a reference found inside
 * `base` (relative path, `package://NAME/...`, `model://NAME/...`, absolute) into a path the
 * resolver can read.
 */
import { LIMITS } from '../limits';
import { ImportError } from './errors';

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

/**
 * the encoding a UTF-16 or UTF-32 byte-order mark at the start of `bytes` announces, or undefined
 * (no such mark; a UTF-8 mark is fine)
 */
export function nonUtf8Bom(bytes: Uint8Array): string | undefined {
  const [a, b, c, d] = [bytes[0], bytes[1], bytes[2], bytes[3]];
  if (a === 0xff && b === 0xfe) return c === 0 && d === 0 && bytes.length >= 4 ? 'UTF-32 LE' : 'UTF-16 LE';
  if (a === 0xfe && b === 0xff) return 'UTF-16 BE';
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return 'UTF-32 BE';
  return undefined;
}

/** the reason text with a UTF-16/UTF-32 byte-order mark is refused, or undefined for other bytes */
export function nonUtf8BomReason(bytes: Uint8Array): string | undefined {
  const enc = nonUtf8Bom(bytes);
  return enc === undefined
    ? undefined
    : `${enc} text (its byte-order mark says so): text files are read as UTF-8, save it as UTF-8`;
}

/**
 * decodes UTF-8 text (with or without a BOM); text that starts with a UTF-16 or UTF-32 byte-order
 * mark is refused with an {@link ImportError} at line 1 of `file`
 */
export function decodeText(bytes: Uint8Array, file?: string): string {
  const bom = nonUtf8BomReason(bytes);
  if (bom !== undefined) throw new ImportError(bom, file, 1, 1);
  return new TextDecoder('utf-8').decode(bytes);
}
