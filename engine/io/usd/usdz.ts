/**
 * USDZ archives: a zip file whose entries are (by the USDZ spec) stored uncompressed and 64-byte
 * aligned. This reader accepts stored entries and, where the runtime offers `DecompressionStream`,
 * deflated ones too, with size and ratio limits. The first `.usd`/`.usda`/`.usdc` entry is the root
 * layer; other layers inside the archive are found by their archive-relative paths.
 */
import { LIMITS, limitMessage } from '../limits';
import { DEFAULT_USD_LIMITS, UsdError, type UsdLimits } from './errors';

/** one archive entry */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  dataOffset: number;
}

/** whether the bytes start like a zip archive */
export function isZip(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
}

/** lists the entries of a zip archive (central directory); throws a typed error on corruption */
export function listZipEntries(b: Uint8Array, id: string, limits: Partial<UsdLimits> = {}): ZipEntry[] {
  const lim = { ...DEFAULT_USD_LIMITS, ...limits };
  const fail = (reason: string, offset: number) => new UsdError('zip', { layer: id, offset }, reason);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  // end of central directory: scan back over a possible comment
  let eocd = -1;
  for (let p = b.length - 22; p >= Math.max(0, b.length - 22 - 65535); p--) {
    if (dv.getUint32(p, true) === 0x06054b50) {
      eocd = p;
      break;
    }
  }
  if (eocd < 0) throw fail('no end-of-central-directory record (not a zip archive, or truncated)', b.length);
  const count = dv.getUint16(eocd + 10, true);
  const cdSize = dv.getUint32(eocd + 12, true);
  const cdOffset = dv.getUint32(eocd + 16, true);
  if (cdOffset === 0xffffffff || count === 0xffff) throw fail('zip64 archives are not supported', eocd);
  if (cdOffset + cdSize > b.length) throw fail('central directory past the end of the file', eocd);
  if (b.length > LIMITS.max_archive_bytes) {
    throw fail(limitMessage(`USDZ archive of ${b.length} bytes`, 'max_archive_bytes'), 0);
  }
  if (count > LIMITS.max_archive_entries) {
    throw fail(limitMessage(`USDZ archive with ${count} entries`, 'max_archive_entries'), eocd);
  }
  const entries: ZipEntry[] = [];
  let p = cdOffset;
  let total = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > b.length || dv.getUint32(p, true) !== 0x02014b50)
      throw fail('corrupt central directory entry', p);
    const method = dv.getUint16(p + 10, true);
    const flags = dv.getUint16(p + 8, true);
    const compressedSize = dv.getUint32(p + 20, true);
    const size = dv.getUint32(p + 24, true);
    const nameLen = dv.getUint16(p + 28, true);
    const extraLen = dv.getUint16(p + 30, true);
    const commentLen = dv.getUint16(p + 32, true);
    const local = dv.getUint32(p + 42, true);
    if (p + 46 + nameLen > b.length) throw fail('entry name past the end', p);
    const name = new TextDecoder('utf-8').decode(b.subarray(p + 46, p + 46 + nameLen));
    if (flags & 1) throw fail(`entry '${name}' is encrypted`, p);
    if (local + 30 > b.length || dv.getUint32(local, true) !== 0x04034b50)
      throw fail(`bad local header of '${name}'`, local);
    const dataOffset = local + 30 + dv.getUint16(local + 26, true) + dv.getUint16(local + 28, true);
    if (dataOffset + compressedSize > b.length)
      throw fail(`data of '${name}' past the end of the file`, local);
    if (method !== 0 && method !== 8)
      throw fail(`entry '${name}' uses unsupported compression method ${method}`, p);
    if (method === 0 && compressedSize !== size) throw fail(`stored entry '${name}' has mismatched sizes`, p);
    if (size > lim.maxLayerBytes) {
      throw fail(`USDZ entry '${name}' of ${size} bytes exceeds max_layer_bytes = ${lim.maxLayerBytes}`, p);
    }
    if (method === 8 && size > 1024 * 1024 && size / Math.max(1, compressedSize) > lim.maxCompressionRatio) {
      throw fail(
        `USDZ entry '${name}' inflates ${(size / Math.max(1, compressedSize)).toFixed(0)}× (${compressedSize} → ${size} bytes), which exceeds max_compression_ratio = ${lim.maxCompressionRatio}`,
        p,
      );
    }
    total += size;
    if (total > lim.maxDecompressedBytes) {
      throw fail(
        `USDZ archive inflates to more than ${total} bytes, which exceeds max_decompressed_bytes = ${lim.maxDecompressedBytes}`,
        p,
      );
    }
    entries.push({ name, method, compressedSize, size, dataOffset });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
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
