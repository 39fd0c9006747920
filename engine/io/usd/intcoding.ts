/**
 * The crate's integer coding (Usd_IntegerCompression): a delta code with a most-common delta and
 * 2-bit size codes, then compressed with TfFastCompression.
 *
 * Encoded layout for n integers of `B` bytes (B = 4 or 8):
 * - the common delta value (B bytes, signed);
 * - ceil(2n / 8) bytes of 2-bit codes, four per byte, lowest bits first: 0 = the common delta,
 *   1 = small (int8 for 32-bit ints, int16 for 64-bit), 2 = medium (int16 / int32), 3 = full width;
 * - the non-common deltas in order, little-endian.
 * Each value is the running sum of the deltas, starting at 0.
 */
import { UsdError } from './errors';
import { compressFast, decompressFastInto } from './lz4';

/** bytes of the encoded (pre-LZ4) stream for n integers of `bits` width */
export function encodedBufferSize(n: number, bits: 32 | 64): number {
  const B = bits / 8;
  return n ? B + ((n * 2 + 7) >> 3) + n * B : 0;
}

function fail(reason: string, offset: number): UsdError {
  return new UsdError('decompress', { offset }, `integer coding: ${reason}`);
}

/**
 * Decodes n integers from an encoded stream `buf[start, end)`.
 * 32-bit results are written as int32 (reinterpret with `>>> 0` for unsigned); 64-bit results as
 * doubles (exact up to 2^53).
 */
export function decodeIntegers(
  buf: Uint8Array,
  start: number,
  end: number,
  n: number,
  bits: 32 | 64,
  out: Int32Array | Float64Array,
): void {
  if (n === 0) return;
  const B = bits / 8;
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (start + B > end) throw fail('truncated common value', start);
  const common = bits === 32 ? dv.getInt32(start, true) : Number(dv.getBigInt64(start, true));
  const codes = start + B;
  let vints = codes + ((n * 2 + 7) >> 3);
  if (vints > end) throw fail('truncated code bytes', codes);
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const code = (buf[codes + (i >> 2)] >> ((i & 3) * 2)) & 3;
    let d: number;
    switch (code) {
      case 0:
        d = common;
        break;
      case 1:
        if (bits === 32) {
          if (vints + 1 > end) throw fail('truncated small value', vints);
          d = dv.getInt8(vints);
          vints += 1;
        } else {
          if (vints + 2 > end) throw fail('truncated small value', vints);
          d = dv.getInt16(vints, true);
          vints += 2;
        }
        break;
      case 2:
        if (bits === 32) {
          if (vints + 2 > end) throw fail('truncated medium value', vints);
          d = dv.getInt16(vints, true);
          vints += 2;
        } else {
          if (vints + 4 > end) throw fail('truncated medium value', vints);
          d = dv.getInt32(vints, true);
          vints += 4;
        }
        break;
      default:
        if (vints + B > end) throw fail('truncated large value', vints);
        d = bits === 32 ? dv.getInt32(vints, true) : Number(dv.getBigInt64(vints, true));
        vints += B;
    }
    prev = bits === 32 ? (prev + d) | 0 : prev + d;
    out[i] = prev;
  }
}

/**
 * Decompresses (TfFastCompression) then decodes n integers from `src[start, start + size)`.
 */
export function decompressIntegers(
  src: Uint8Array,
  start: number,
  size: number,
  n: number,
  bits: 32 | 64,
): Int32Array | Float64Array {
  const out = bits === 32 ? new Int32Array(n) : new Float64Array(n);
  if (n === 0) return out;
  // the encoded stream is at most encodedBufferSize bytes (usually shorter)
  const raw = new Uint8Array(encodedBufferSize(n, bits));
  const written = decompressFastInto(src, start, size, raw);
  decodeIntegers(raw, 0, written, n, bits, out);
  return out;
}

/** encodes integers (the inverse of {@link decodeIntegers}); for tests */
export function encodeIntegers(values: ArrayLike<number>, bits: 32 | 64): Uint8Array {
  const n = values.length;
  const B = bits / 8;
  if (n === 0) return new Uint8Array(0);
  // most common delta (largest on ties)
  const counts = new Map<number, number>();
  let prev = 0;
  let common = 0,
    best = 0;
  for (let i = 0; i < n; i++) {
    const d = bits === 32 ? (values[i] - prev) | 0 : values[i] - prev;
    prev = values[i];
    const c = (counts.get(d) ?? 0) + 1;
    counts.set(d, c);
    if (c > best || (c === best && d > common)) {
      best = c;
      common = d;
    }
  }
  const out = new Uint8Array(encodedBufferSize(n, bits));
  const dv = new DataView(out.buffer);
  if (bits === 32) dv.setInt32(0, common, true);
  else dv.setBigInt64(0, BigInt(common), true);
  const codes = B;
  let v = codes + ((n * 2 + 7) >> 3);
  prev = 0;
  const small = bits === 32 ? 127 : 32767;
  const medium = bits === 32 ? 32767 : 2147483647;
  for (let i = 0; i < n; i++) {
    const d = bits === 32 ? (values[i] - prev) | 0 : values[i] - prev;
    prev = values[i];
    let code: number;
    if (d === common) code = 0;
    else if (d >= -small - 1 && d <= small) {
      code = 1;
      if (bits === 32) dv.setInt8(v, d);
      else dv.setInt16(v, d, true);
      v += B / 4;
    } else if (d >= -medium - 1 && d <= medium) {
      code = 2;
      if (bits === 32) dv.setInt16(v, d, true);
      else dv.setInt32(v, d, true);
      v += B / 2;
    } else {
      code = 3;
      if (bits === 32) dv.setInt32(v, d, true);
      else dv.setBigInt64(v, BigInt(d), true);
      v += B;
    }
    out[codes + (i >> 2)] |= code << ((i & 3) * 2);
  }
  return out.slice(0, v);
}

/** encodes and compresses integers the way the crate writer does; for tests */
export function compressIntegers(values: ArrayLike<number>, bits: 32 | 64): Uint8Array {
  return compressFast(encodeIntegers(values, bits));
}
