/**
 * LZ4 block format (no frame header) and OpenUSD's TfFastCompression wrapper around it, which the
 * USDC crate uses for its structural sections and compressed arrays:
 *
 * - byte 0: number of chunks; 0 means one LZ4 block follows (the rest of the buffer);
 * - otherwise each chunk is an int32 (little-endian) compressed size followed by that many bytes
 *   of one LZ4 block; every chunk but the last decompresses to LZ4_MAX_INPUT_SIZE bytes.
 *
 * The decoder is bounds-checked (corrupt input throws a {@link UsdError} of kind 'decompress' with the
 * byte offset) and never writes past the declared output size. A small greedy compressor exists for
 * round-trip tests.
 */
import { UsdError } from './errors';

/** LZ4's largest input per block [bytes] */
export const LZ4_MAX_INPUT_SIZE = 0x7e000000;

function fail(reason: string, offset: number): UsdError {
  return new UsdError('decompress', { offset }, `LZ4: ${reason}`);
}

/**
 * Decodes one LZ4 block `src[srcStart, srcEnd)` into `dst[dstStart, dstEnd)`.
 * @returns the number of bytes written
 */
export function lz4DecompressBlock(
  src: Uint8Array,
  srcStart: number,
  srcEnd: number,
  dst: Uint8Array,
  dstStart: number,
  dstEnd: number,
): number {
  let ip = srcStart;
  let op = dstStart;
  if (srcEnd > src.length || srcStart > srcEnd) throw fail('block extends past the buffer', srcStart);
  if (ip === srcEnd) throw fail('empty block', ip);
  while (true) {
    if (ip >= srcEnd) throw fail('truncated block (missing token)', ip);
    const token = src[ip++];
    // literals
    let lit = token >>> 4;
    if (lit === 15) {
      let b: number;
      do {
        if (ip >= srcEnd) throw fail('truncated literal length', ip);
        b = src[ip++];
        lit += b;
      } while (b === 255);
    }
    if (ip + lit > srcEnd) throw fail(`literal run of ${lit} bytes past the end of the block`, ip);
    if (op + lit > dstEnd) throw fail(`output larger than the declared ${dstEnd - dstStart} bytes`, ip);
    dst.set(src.subarray(ip, ip + lit), op);
    ip += lit;
    op += lit;
    if (ip === srcEnd) break; // the last sequence has literals only
    // match
    if (ip + 2 > srcEnd) throw fail('truncated match offset', ip);
    const offset = src[ip] | (src[ip + 1] << 8);
    ip += 2;
    if (offset === 0 || offset > op - dstStart)
      throw fail(`match offset ${offset} outside the output`, ip - 2);
    let len = token & 15;
    if (len === 15) {
      let b: number;
      do {
        if (ip >= srcEnd) throw fail('truncated match length', ip);
        b = src[ip++];
        len += b;
      } while (b === 255);
    }
    len += 4;
    if (op + len > dstEnd) throw fail(`output larger than the declared ${dstEnd - dstStart} bytes`, ip);
    let m = op - offset;
    if (offset >= len) {
      dst.copyWithin(op, m, m + len);
      op += len;
    } else {
      // overlapping copy: byte by byte repeats the pattern
      const end = op + len;
      while (op < end) dst[op++] = dst[m++];
    }
  }
  return op - dstStart;
}

/**
 * Decompresses a TfFastCompression buffer `src[start, start + size)` into `out` (at most
 * `out.length` bytes). @returns the number of bytes written
 */
export function decompressFastInto(src: Uint8Array, start: number, size: number, out: Uint8Array): number {
  if (size < 1 || start + size > src.length) throw fail('compressed buffer extends past the file', start);
  const end = start + size;
  const nChunks = src[start];
  if (nChunks === 0) return size === 1 ? 0 : lz4DecompressBlock(src, start + 1, end, out, 0, out.length);
  let p = start + 1;
  let written = 0;
  for (let i = 0; i < nChunks; i++) {
    if (p + 4 > end) throw fail('truncated chunk header', p);
    const chunk = (src[p] | (src[p + 1] << 8) | (src[p + 2] << 16) | (src[p + 3] << 24)) >>> 0;
    p += 4;
    if (p + chunk > end) throw fail(`chunk of ${chunk} bytes past the end`, p);
    written += lz4DecompressBlock(src, p, p + chunk, out, written, out.length);
    p += chunk;
  }
  return written;
}

/**
 * Decompresses a TfFastCompression buffer whose decompressed size is exactly `outSize` bytes
 * (known from the crate). Throws on corrupt data, on a size mismatch, when `outSize` exceeds
 * `maxBytes` or when the ratio outSize / size exceeds `maxRatio`.
 */
export function decompressFast(
  src: Uint8Array,
  start: number,
  size: number,
  outSize: number,
  maxBytes = 512 * 1024 * 1024,
  maxRatio = Infinity,
): Uint8Array {
  if (outSize > maxBytes)
    throw fail(`decompressed size ${outSize} exceeds max_decompressed_bytes = ${maxBytes}`, start);
  if (outSize > 4096 && outSize / Math.max(size, 1) > maxRatio) {
    throw fail(
      `compression ratio ${(outSize / Math.max(size, 1)).toFixed(0)} exceeds max_compression_ratio = ${maxRatio}`,
      start,
    );
  }
  const out = new Uint8Array(outSize);
  const written = decompressFastInto(src, start, size, out);
  if (written !== outSize) throw fail(`decompressed ${written} bytes, expected ${outSize}`, start);
  return out;
}

/**
 * A small greedy LZ4 block compressor (hash of 4-byte sequences). Output is valid LZ4 that any
 * decoder accepts; it exists for round-trip tests, not for speed or ratio.
 */
export function lz4CompressBlock(src: Uint8Array): Uint8Array {
  const n = src.length;
  const out: number[] = [];
  const table = new Map<number, number>();
  const MFLIMIT = 12;
  const LASTLITERALS = 5;
  let anchor = 0;
  let ip = 0;
  const writeLen = (len: number) => {
    while (len >= 255) {
      out.push(255);
      len -= 255;
    }
    out.push(len);
  };
  const emit = (litEnd: number, matchLen: number, offset: number) => {
    const lit = litEnd - anchor;
    const tokenLit = lit >= 15 ? 15 : lit;
    const ml = matchLen - 4;
    const tokenMatch = matchLen === 0 ? 0 : ml >= 15 ? 15 : ml;
    out.push((tokenLit << 4) | tokenMatch);
    if (lit >= 15) writeLen(lit - 15);
    for (let k = anchor; k < litEnd; k++) out.push(src[k]);
    if (matchLen > 0) {
      out.push(offset & 255, offset >>> 8);
      if (ml >= 15) writeLen(ml - 15);
    }
  };
  if (n >= MFLIMIT + 1) {
    const limit = n - MFLIMIT;
    while (ip < limit) {
      const key = src[ip] | (src[ip + 1] << 8) | (src[ip + 2] << 16) | (src[ip + 3] << 24);
      const cand = table.get(key);
      table.set(key, ip);
      if (cand !== undefined && ip - cand <= 0xffff) {
        let len = 4;
        while (ip + len < n - LASTLITERALS && src[cand + len] === src[ip + len]) len++;
        emit(ip, len, ip - cand);
        ip += len;
        anchor = ip;
      } else ip++;
    }
  }
  emit(n, 0, 0);
  return Uint8Array.from(out);
}

/** TfFastCompression framing of {@link lz4CompressBlock} (one chunk) */
export function compressFast(src: Uint8Array): Uint8Array {
  const block = lz4CompressBlock(src);
  const out = new Uint8Array(block.length + 1);
  out[0] = 0;
  out.set(block, 1);
  return out;
}
