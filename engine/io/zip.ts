/**
 * Zip archive listing with every size check made from the central directory BEFORE anything is
 * inflated (SPEC §11): archive size, entry count, each entry's declared inflated size, the total over
 * all entries, the inflate ratio of each entry, and entries whose data ranges overlap (two entries
 * that share one deflate stream inflate it twice: the classic zip-bomb trick). USDZ packages
 * (`usd/usdz.ts`) and the studio's zip drops (`app/files.ts`) both list through here; each refusal is
 * a {@link ZipError} naming the archive, the entry and the byte offset of its record.
 */
import { ImportError } from './assets/errors';
import { LIMITS, limitMessage, type LimitName } from './limits';

/** one archive entry, as the central directory declares it */
export interface ZipEntryRecord {
  /** the entry's path inside the archive */
  name: string;
  /** compression method (0 stored, 8 deflate) */
  method: number;
  /** bytes of the entry's data in the archive */
  compressedSize: number;
  /** bytes the entry inflates to (declared) */
  size: number;
  /** byte offset of the entry's local header */
  localOffset: number;
  /** byte offset of the entry's data */
  dataOffset: number;
}

/** a zip archive that is corrupt or over a limit; `entry` is the entry name when one is at fault */
export class ZipError extends ImportError {
  constructor(
    reason: string,
    /** the archive's file name */
    readonly archive: string,
    /** the entry at fault, when one is */
    readonly entry?: string,
    /** byte offset of the record at fault */
    readonly offset?: number,
  ) {
    super(reason, archive);
    this.message = `${archive}${offset !== undefined ? `@${offset}` : ''}: ${reason}`;
    this.name = 'ZipError';
  }
}

/** the limits of {@link listZip} (defaults from {@link LIMITS}) */
export interface ZipLimits {
  /** largest archive [bytes] (max_archive_bytes) */
  maxArchiveBytes: number;
  /** most entries (max_archive_entries) */
  maxEntries: number;
  /** largest inflated entry [bytes] (max_entry_bytes) */
  maxEntryBytes: number;
  /** most bytes over all entries, inflated (max_decompressed_bytes) */
  maxTotalBytes: number;
  /** largest inflated / compressed ratio of an entry above 1 MiB (max_compression_ratio) */
  maxRatio: number;
}

/** the default limits, from {@link LIMITS} */
export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxArchiveBytes: LIMITS.max_archive_bytes,
  maxEntries: LIMITS.max_archive_entries,
  maxEntryBytes: LIMITS.max_entry_bytes,
  maxTotalBytes: LIMITS.max_decompressed_bytes,
  maxRatio: LIMITS.max_compression_ratio,
};

/** "WHAT exceeds NAME = VALUE", with the caller's value where it overrides the table's */
function over(what: string, name: LimitName, value: number): string {
  return value === LIMITS[name] ? limitMessage(what, name) : `${what} exceeds ${name} = ${value}`;
}

/** entries at most this large [bytes] are not held to the ratio limit (small files compress well) */
const RATIO_FREE_BYTES = 1024 * 1024;

const SIG_EOCD = 0x06054b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_LOCAL = 0x04034b50;

/**
 * Lists a zip archive's entries from its central directory and checks them against `limits` (see the
 * module comment) without inflating anything. Throws a {@link ZipError} on corruption or a limit.
 */
export function listZip(b: Uint8Array, archive: string, limits: Partial<ZipLimits> = {}): ZipEntryRecord[] {
  const lim = { ...DEFAULT_ZIP_LIMITS, ...limits };
  const fail = (reason: string, offset: number, entry?: string) =>
    new ZipError(reason, archive, entry, offset);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.length > lim.maxArchiveBytes) {
    throw fail(over(`zip archive of ${b.length} bytes`, 'max_archive_bytes', lim.maxArchiveBytes), 0);
  }
  // end of central directory: scan back over a possible comment
  let eocd = -1;
  for (let p = b.length - 22; p >= Math.max(0, b.length - 22 - 65535); p--) {
    if (dv.getUint32(p, true) === SIG_EOCD) {
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
  if (count > lim.maxEntries) {
    throw fail(over(`zip archive with ${count} entries`, 'max_archive_entries', lim.maxEntries), eocd);
  }
  const entries: ZipEntryRecord[] = [];
  const names = new Set<string>();
  let p = cdOffset;
  let total = 0;
  const decoder = new TextDecoder('utf-8');
  for (let i = 0; i < count; i++) {
    if (p + 46 > b.length || dv.getUint32(p, true) !== SIG_CENTRAL)
      throw fail('corrupt central directory entry', p);
    const flags = dv.getUint16(p + 8, true);
    const method = dv.getUint16(p + 10, true);
    const compressedSize = dv.getUint32(p + 20, true);
    const size = dv.getUint32(p + 24, true);
    const nameLen = dv.getUint16(p + 28, true);
    const extraLen = dv.getUint16(p + 30, true);
    const commentLen = dv.getUint16(p + 32, true);
    const localOffset = dv.getUint32(p + 42, true);
    if (p + 46 + nameLen > b.length) throw fail('entry name past the end', p);
    const name = decoder.decode(b.subarray(p + 46, p + 46 + nameLen));
    const at = (reason: string, offset = p) => fail(`entry '${name}': ${reason}`, offset, name);
    if (names.has(name)) throw at('listed twice');
    names.add(name);
    if (flags & 1) throw at('is encrypted');
    if (method !== 0 && method !== 8) throw at(`unsupported compression method ${method}`);
    if (method === 0 && compressedSize !== size) throw at('stored with mismatched sizes');
    if (size > lim.maxEntryBytes) {
      throw at(over(`inflated size of ${size} bytes`, 'max_entry_bytes', lim.maxEntryBytes));
    }
    if (method === 8 && size > RATIO_FREE_BYTES && size / Math.max(1, compressedSize) > lim.maxRatio) {
      throw at(
        over(
          `inflate ratio of ${(size / Math.max(1, compressedSize)).toFixed(0)} (${compressedSize} → ${size} bytes)`,
          'max_compression_ratio',
          lim.maxRatio,
        ),
      );
    }
    total += size;
    if (total > lim.maxTotalBytes) {
      throw at(
        over(`archive inflating to ${total} bytes or more`, 'max_decompressed_bytes', lim.maxTotalBytes),
      );
    }
    if (localOffset + 30 > b.length || dv.getUint32(localOffset, true) !== SIG_LOCAL)
      throw at('bad local header', localOffset);
    const dataOffset =
      localOffset + 30 + dv.getUint16(localOffset + 26, true) + dv.getUint16(localOffset + 28, true);
    if (dataOffset + compressedSize > b.length) throw at('data past the end of the file', localOffset);
    if (dataOffset + compressedSize > cdOffset) throw at('data runs into the central directory', localOffset);
    entries.push({ name, method, compressedSize, size, localOffset, dataOffset });
    p += 46 + nameLen + extraLen + commentLen;
  }
  refuseOverlaps(entries, fail);
  return entries;
}

/** throws when two entries' ranges (local header through data) overlap */
function refuseOverlaps(
  entries: readonly ZipEntryRecord[],
  fail: (reason: string, offset: number, entry?: string) => ZipError,
): void {
  const order = entries.map((_, i) => i).sort((x, y) => entries[x].localOffset - entries[y].localOffset);
  for (let k = 1; k < order.length; k++) {
    const prev = entries[order[k - 1]];
    const cur = entries[order[k]];
    if (cur.localOffset < prev.dataOffset + prev.compressedSize) {
      throw fail(
        `entry '${cur.name}' overlaps entry '${prev.name}' (their data share bytes ${cur.localOffset}…${
          prev.dataOffset + prev.compressedSize - 1
        }: overlapping entries are refused, they inflate the same data more than once)`,
        cur.localOffset,
        cur.name,
      );
    }
  }
}
