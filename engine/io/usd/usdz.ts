/**
 * USDZ archives: a zip file whose entries are (by the USDZ spec) stored uncompressed and 64-byte
 * aligned. This reader accepts stored entries and, where the runtime offers `DecompressionStream`,
 * deflated ones too, with size and ratio limits. The first `.usd`/`.usda`/`.usdc` entry is the root
 * layer; other layers inside the archive are found by their archive-relative paths.
 */
import { LIMITS } from '../limits';
import { ZipError, listZip, type ZipEntryRecord } from '../zip';
import { DEFAULT_USD_LIMITS, UsdError, type UsdLimits } from './errors';

/** one archive entry */
export type ZipEntry = ZipEntryRecord;

/** whether the bytes start like a zip archive */
export function isZip(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
}

/**
 * lists the entries of a zip archive (central directory) with every size limit checked before
 * anything inflates ({@link listZip}); throws a UsdError of kind 'zip' naming the entry
 */
export function listZipEntries(b: Uint8Array, id: string, limits: Partial<UsdLimits> = {}): ZipEntry[] {
  const lim = { ...DEFAULT_USD_LIMITS, ...limits };
  try {
    return listZip(b, id, {
      maxEntryBytes: Math.min(LIMITS.max_entry_bytes, lim.maxLayerBytes),
      maxTotalBytes: lim.maxDecompressedBytes,
      maxRatio: lim.maxCompressionRatio,
    });
  } catch (e) {
    if (e instanceof ZipError) throw new UsdError('zip', { layer: id, offset: e.offset }, e.reason);
    throw e;
  }
}

/** the bytes of one entry (inflating deflated entries where the runtime can) */
export async function readZipEntry(b: Uint8Array, e: ZipEntry, id: string): Promise<Uint8Array> {
  const raw = b.subarray(e.dataOffset, e.dataOffset + e.compressedSize);
  if (e.method === 0) return raw;
  const DS = (globalThis as { DecompressionStream?: new (f: string) => TransformStream }).DecompressionStream;
  if (!DS)
    throw new UsdError(
      'zip',
      { layer: id, offset: e.dataOffset },
      `'${e.name}' is deflated (USDZ requires stored entries)`,
    );
  const stream = new Blob([raw as BlobPart]).stream().pipeThrough(new DS('deflate-raw'));
  const reader = stream.getReader();
  const out = new Uint8Array(e.size);
  let n = 0;
  while (true) {
    let chunk: { done: boolean; value?: Uint8Array };
    try {
      chunk = (await reader.read()) as { done: boolean; value?: Uint8Array };
    } catch (err) {
      throw new UsdError(
        'decompress',
        { layer: id, offset: e.dataOffset },
        `'${e.name}' is not valid deflate data (${err instanceof Error ? err.message : String(err)})`,
      );
    }
    const { done, value } = chunk;
    if (done) break;
    if (!value) continue;
    if (n + value.length > e.size) {
      await reader.cancel().catch(() => undefined);
      throw new UsdError(
        'zip',
        { layer: id, offset: e.dataOffset },
        `'${e.name}' inflates past its declared size`,
      );
    }
    out.set(value, n);
    n += value.length;
  }
  if (n !== e.size)
    throw new UsdError(
      'zip',
      { layer: id, offset: e.dataOffset },
      `'${e.name}' inflated to ${n} of ${e.size} bytes`,
    );
  return out;
}

/** an opened USDZ package: entry name → bytes, plus the root layer's entry name */
export interface UsdzPackage {
  files: Map<string, Uint8Array>;
  root: string;
}

/** opens a USDZ archive */
export async function readUsdz(
  b: Uint8Array,
  id: string,
  limits: Partial<UsdLimits> = {},
): Promise<UsdzPackage> {
  const entries = listZipEntries(b, id, limits);
  const files = new Map<string, Uint8Array>();
  let root = '';
  for (const e of entries) {
    if (e.name.endsWith('/')) continue;
    files.set(e.name, await readZipEntry(b, e, id));
    if (!root && /\.usd[ac]?$/i.test(e.name)) root = e.name;
  }
  if (!root) throw new UsdError('zip', { layer: id }, 'the archive holds no .usd/.usda/.usdc layer');
  return { files, root };
}
