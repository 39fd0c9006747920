/**
 * USDC crate reader (binary layers, versions 0.4.0 and later).
 *
 * File layout: an 88-byte bootstrap (`PXR-USDC`, version bytes, table-of-contents offset), the table
 * of contents (named sections), and six structural sections: TOKENS (LZ4-compressed NUL-separated
 * strings), STRINGS (token indices), FIELDS (token index + 64-bit ValueRep per field), FIELDSETS
 * (field indices, terminated by ~0), PATHS (a compressed pre-order path tree) and SPECS (path,
 * field set and spec type per spec). A ValueRep packs array/inlined/compressed flags, a type enum and
 * a 48-bit payload that is either the value itself (small scalars, int8-exact vectors, diagonal
 * matrices) or a file offset.
 *
 * Errors are {@link UsdError}s of kind 'crate' with the byte offset. Property default values and time
 * samples are decoded lazily, on first access.
 */
import { DEFAULT_USD_LIMITS, UsdError, type UsdLimits } from './errors';
import { decompressIntegers } from './intcoding';
import { Layer, PrimSpec, type PropSpec, type Specifier } from './layer';
import { decompressFast } from './lz4';
import {
  AssetPath,
  ListOp,
  NumArray,
  SdfPathValue,
  UsdDict,
  UsdList,
  UsdReference,
  type UsdValue,
} from './values';

/** crate value type enums (crateDataTypes.h) */
const T = {
  Bool: 1,
  UChar: 2,
  Int: 3,
  UInt: 4,
  Int64: 5,
  UInt64: 6,
  Half: 7,
  Float: 8,
  Double: 9,
  String: 10,
  Token: 11,
  AssetPath: 12,
  Matrix2d: 13,
  Matrix3d: 14,
  Matrix4d: 15,
  Quatd: 16,
  Quatf: 17,
  Quath: 18,
  Vec2d: 19,
  Vec2f: 20,
  Vec2h: 21,
  Vec2i: 22,
  Vec3d: 23,
  Vec3f: 24,
  Vec3h: 25,
  Vec3i: 26,
  Vec4d: 27,
  Vec4f: 28,
  Vec4h: 29,
  Vec4i: 30,
  Dictionary: 31,
  TokenListOp: 32,
  StringListOp: 33,
  PathListOp: 34,
  ReferenceListOp: 35,
  IntListOp: 36,
  Int64ListOp: 37,
  UIntListOp: 38,
  UInt64ListOp: 39,
  PathVector: 40,
  TokenVector: 41,
  Specifier: 42,
  Permission: 43,
  Variability: 44,
  VariantSelectionMap: 45,
  TimeSamples: 46,
  Payload: 47,
  DoubleVector: 48,
  LayerOffsetVector: 49,
  StringVector: 50,
  ValueBlock: 51,
  Value: 52,
  UnregisteredValue: 53,
  UnregisteredValueListOp: 54,
  PayloadListOp: 55,
  TimeCode: 56,
} as const;

/** vector/matrix/quaternion element layout: [scalar kind, component count] */
const TUPLE: Record<number, ['d' | 'f' | 'h' | 'i', number]> = {
  [T.Matrix2d]: ['d', 4],
  [T.Matrix3d]: ['d', 9],
  [T.Matrix4d]: ['d', 16],
  [T.Quatd]: ['d', 4],
  [T.Quatf]: ['f', 4],
  [T.Quath]: ['h', 4],
  [T.Vec2d]: ['d', 2],
  [T.Vec2f]: ['f', 2],
  [T.Vec2h]: ['h', 2],
  [T.Vec2i]: ['i', 2],
  [T.Vec3d]: ['d', 3],
  [T.Vec3f]: ['f', 3],
  [T.Vec3h]: ['h', 3],
  [T.Vec3i]: ['i', 3],
  [T.Vec4d]: ['d', 4],
  [T.Vec4f]: ['f', 4],
  [T.Vec4h]: ['h', 4],
  [T.Vec4i]: ['i', 4],
};
const SCALAR_BYTES = { d: 8, f: 4, h: 2, i: 4 } as const;
const QUATS: ReadonlySet<number> = new Set([T.Quatd, T.Quatf, T.Quath]);
const MATRICES: ReadonlySet<number> = new Set([T.Matrix2d, T.Matrix3d, T.Matrix4d]);

/** SdfSpecType */
const SpecType = {
  Attribute: 1,
  Prim: 6,
  PseudoRoot: 7,
  Relationship: 8,
  Variant: 10,
  VariantSet: 11,
} as const;

/** a decoded 64-bit ValueRep: low and high 32-bit words */
interface Rep {
  lo: number;
  hi: number;
}

const MIN_COMPRESSED_ARRAY_SIZE = 16;

/** IEEE half → number */
export function halfToNumber(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

/** the element kinds of decoded paths */
const enum PathKind {
  Root = 0,
  Prim = 1,
  Prop = 2,
  Variant = 3,
  Other = 4,
}

/** parses a crate file into a layer */
export function parseCrate(bytes: Uint8Array, identifier: string, limits: Partial<UsdLimits> = {}): Layer {
  return new CrateReader(bytes, identifier, { ...DEFAULT_USD_LIMITS, ...limits }).read();
}

/** crate version and structural counts, for diagnostics and tests */
export interface CrateSummary {
  version: [number, number, number];
  tokens: string[];
  numFields: number;
  numPaths: number;
  numSpecs: number;
}

/** reads only the structural sections of a crate and summarises them */
export function summarizeCrate(bytes: Uint8Array, identifier: string): CrateSummary {
  const r = new CrateReader(bytes, identifier, DEFAULT_USD_LIMITS);
  r.readStructure();
  return {
    version: r.version,
    tokens: r.tokens,
    numFields: r.fieldTokens.length,
    numPaths: r.paths.length,
    numSpecs: r.specPath.length,
  };
}

class CrateReader {
  private readonly dv: DataView;
  version: [number, number, number] = [0, 0, 0];
  tokens: string[] = [];
  strings: string[] = [];
  fieldTokens: Int32Array = new Int32Array(0);
  fieldReps: Uint32Array = new Uint32Array(0); // lo, hi pairs
  fieldSets: Int32Array = new Int32Array(0);
  paths: string[] = [];
  pathParent: Int32Array = new Int32Array(0);
  pathKind: Uint8Array = new Uint8Array(0);
  pathName: string[] = [];
  specPath: Int32Array = new Int32Array(0);
  specFieldSet: Int32Array = new Int32Array(0);
  specType: Int32Array = new Int32Array(0);
  private sections = new Map<string, { start: number; size: number }>();
  private recursion = 0;

  constructor(
    private readonly b: Uint8Array,
    private readonly id: string,
    private readonly limits: UsdLimits,
  ) {
    this.dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }

  // ------------------------------------------------------------------ primitive reads

  private fail(reason: string, offset: number): UsdError {
    return new UsdError('crate', { layer: this.id, offset }, reason);
  }

  private check(at: number, n: number): void {
    if (!(at >= 0 && at + n <= this.b.length)) {
      throw this.fail(
        `read of ${n} bytes at offset ${at} past the end of the file (${this.b.length} bytes)`,
        at,
      );
    }
  }
  private u8(at: number): number {
    this.check(at, 1);
    return this.b[at];
  }
  private u32(at: number): number {
    this.check(at, 4);
    return this.dv.getUint32(at, true);
  }
  private i32(at: number): number {
    this.check(at, 4);
    return this.dv.getInt32(at, true);
  }
  /** a non-negative uint64 as a number (throws past 2^53) */
  private u64(at: number): number {
    this.check(at, 8);
    const lo = this.dv.getUint32(at, true),
      hi = this.dv.getUint32(at + 4, true);
    if (hi >= 0x200000) throw this.fail('64-bit count or offset too large', at);
    return hi * 4294967296 + lo;
  }
  private i64(at: number): number {
    this.check(at, 8);
    return Number(this.dv.getBigInt64(at, true));
  }
  private f32(at: number): number {
    this.check(at, 4);
    return this.dv.getFloat32(at, true);
  }
  private f64(at: number): number {
    this.check(at, 8);
    return this.dv.getFloat64(at, true);
  }
  private count(at: number, what: string, elemBytes: number): number {
    const n = this.u64(at);
    if (n > this.limits.maxArrayElements)
      throw this.fail(
        `${what}: ${n} elements exceed max_array_elements = ${this.limits.maxArrayElements}`,
        at,
      );
    if (elemBytes > 0 && at + 8 + n * elemBytes > this.b.length) {
      throw this.fail(`${what}: ${n} elements of ${elemBytes} bytes run past the end of the file`, at);
    }
    return n;
  }
  private verAtLeast(maj: number, min: number, patch = 0): boolean {
    const [a, b, c] = this.version;
    return a !== maj ? a > maj : b !== min ? b > min : c >= patch;
  }

  // ------------------------------------------------------------------ structure

  readStructure(): void {
    const b = this.b;
    if (b.length < 88) throw this.fail('file too small for a crate bootstrap (88 bytes)', 0);
    const magic = String.fromCharCode(...b.subarray(0, 8));
    if (magic !== 'PXR-USDC') throw this.fail(`not a USDC crate (magic '${magic}')`, 0);
    this.version = [b[8], b[9], b[10]];
    if (this.version[0] !== 0 || this.version[1] < 4) {
      throw this.fail(`unsupported crate version ${this.version.join('.')} (0.4.0 or later is read)`, 8);
    }
    const toc = this.u64(16);
    const nsec = this.u64(toc);
    if (nsec > 64) throw this.fail(`implausible section count ${nsec}`, toc);
    for (let i = 0; i < nsec; i++) {
      const at = toc + 8 + i * 32;
      this.check(at, 32);
      let name = '';
      for (let k = 0; k < 16 && b[at + k] !== 0; k++) name += String.fromCharCode(b[at + k]);
      const start = this.u64(at + 16);
      const size = this.u64(at + 24);
      if (start + size > b.length) throw this.fail(`section ${name} runs past the end of the file`, at);
      this.sections.set(name, { start, size });
    }
    for (const name of ['TOKENS', 'STRINGS', 'FIELDS', 'FIELDSETS', 'PATHS', 'SPECS']) {
      if (!this.sections.has(name)) throw this.fail(`missing ${name} section`, toc);
    }
    this.readTokens();
    this.readStrings();
    this.readFields();
    this.readFieldSets();
    this.readPaths();
    this.readSpecs();
  }

  private section(name: string): number {
    return this.sections.get(name)!.start;
  }

  private compressedInts(
    at: number,
    n: number,
    bits: 32 | 64,
  ): { values: Int32Array | Float64Array; next: number } {
    const size = this.u64(at);
    this.check(at + 8, size);
    try {
      const values = decompressIntegers(this.b, at + 8, size, n, bits);
      return { values, next: at + 8 + size };
    } catch (e) {
      throw e instanceof UsdError ? rebase(e, this.id, at + 8) : e;
    }
  }

  private fast(at: number, size: number, outSize: number): Uint8Array {
    try {
      return decompressFast(
        this.b,
        at,
        size,
        outSize,
        this.limits.maxDecompressedBytes,
        this.limits.maxCompressionRatio,
      );
    } catch (e) {
      throw e instanceof UsdError ? rebase(e, this.id, at) : e;
    }
  }

  private readTokens(): void {
    const at = this.section('TOKENS');
    const n = this.u64(at);
    const raw = this.u64(at + 8);
    const comp = this.u64(at + 16);
    if (n > raw + 1) throw this.fail(`${n} tokens cannot fit in ${raw} bytes`, at);
    const chars = this.fast(at + 24, comp, raw);
    const text = new TextDecoder('utf-8').decode(chars);
    const parts = text.split('\0');
    if (parts.length < n) throw this.fail(`token table holds ${parts.length} strings, expected ${n}`, at);
    this.tokens = parts.slice(0, n);
  }

  private token(i: number, at: number): string {
    const t = this.tokens[i];
    if (t === undefined) throw this.fail(`token index ${i} out of range`, at);
    return t;
  }

  private readStrings(): void {
    const at = this.section('STRINGS');
    const n = this.count(at, 'STRINGS', 4);
    this.strings = new Array(n);
    for (let i = 0; i < n; i++) this.strings[i] = this.token(this.u32(at + 8 + i * 4), at);
  }

  private string(i: number, at: number): string {
    const s = this.strings[i];
    if (s === undefined) throw this.fail(`string index ${i} out of range`, at);
    return s;
  }

  private path(i: number, at: number): string {
    const p = this.paths[i];
    if (p === undefined) throw this.fail(`path index ${i} out of range`, at);
    return p;
  }

  private readFields(): void {
    const at = this.section('FIELDS');
    const n = this.count(at, 'FIELDS', 0);
    const t = this.compressedInts(at + 8, n, 32);
    this.fieldTokens = t.values as Int32Array;
    const repsSize = this.u64(t.next);
    const reps = this.fast(t.next + 8, repsSize, n * 8);
    this.fieldReps = new Uint32Array(n * 2);
    const dv = new DataView(reps.buffer, reps.byteOffset, reps.byteLength);
    for (let i = 0; i < n * 2; i++) this.fieldReps[i] = dv.getUint32(i * 4, true);
  }

  private readFieldSets(): void {
    const at = this.section('FIELDSETS');
    const n = this.count(at, 'FIELDSETS', 0);
    this.fieldSets = this.compressedInts(at + 8, n, 32).values as Int32Array;
  }

  private readPaths(): void {
    const at = this.section('PATHS');
    const numPaths = this.count(at, 'PATHS', 0);
    const numEncoded = this.count(at + 8, 'PATHS', 0);
    const a = this.compressedInts(at + 16, numEncoded, 32);
    const pathIndexes = a.values as Int32Array;
    const b = this.compressedInts(a.next, numEncoded, 32);
    const elementTokens = b.values as Int32Array;
    const c = this.compressedInts(b.next, numEncoded, 32);
    const jumps = c.values as Int32Array;
    // the table holds what the encoding names: a path count far beyond its entries (a corrupted
    // header) must not allocate tens of millions of slots; an index past them is out of range
    let used = 0;
    for (let i = 0; i < numEncoded; i++) {
      const pi = pathIndexes[i];
      if (pi < 0 || pi >= numPaths) throw this.fail(`path index ${pi} out of range`, at);
      used = Math.max(used, pi + 1);
    }
    this.paths = new Array(used).fill('');
    this.pathParent = new Int32Array(used).fill(-1);
    this.pathKind = new Uint8Array(used).fill(PathKind.Other);
    this.pathName = new Array(used).fill('');
    // iterative pre-order decode with an explicit stack of (index, parent path index)
    const stack: [number, number][] = [];
    if (numEncoded > 0) stack.push([0, -1]);
    let visited = 0;
    while (stack.length) {
      let [cur, parent] = stack.pop()!;
      while (true) {
        if (cur < 0 || cur >= numEncoded) throw this.fail(`path tree index ${cur} out of range`, at);
        if (++visited > numEncoded) throw this.fail('path tree is cyclic', at);
        const pi = pathIndexes[cur];
        if (parent < 0) {
          this.paths[pi] = '/';
          this.pathKind[pi] = PathKind.Root;
        } else {
          const tok = elementTokens[cur];
          const name = this.token(Math.abs(tok), at);
          const pp = this.paths[parent];
          const pk = this.pathKind[parent];
          this.pathParent[pi] = parent;
          this.pathName[pi] = name;
          if (tok < 0) {
            this.paths[pi] = `${pp}.${name}`;
            this.pathKind[pi] = PathKind.Prop;
          } else if (name.startsWith('{')) {
            this.paths[pi] = `${pp}${name}`;
            this.pathKind[pi] = PathKind.Variant;
          } else if (name.startsWith('[') || name.startsWith('.')) {
            this.paths[pi] = `${pp}${name}`;
            this.pathKind[pi] = PathKind.Other;
          } else {
            this.paths[pi] =
              pp === '/' ? `/${name}` : pk === PathKind.Variant ? `${pp}${name}` : `${pp}/${name}`;
            this.pathKind[pi] = PathKind.Prim;
          }
        }
        const jump = jumps[cur];
        const hasChild = jump > 0 || jump === -1;
        const hasSibling = jump >= 0;
        if (hasChild) {
          if (hasSibling) stack.push([cur + jump, parent]);
          parent = pi;
          cur = cur + 1;
        } else if (hasSibling) {
          cur = cur + 1;
        } else break;
      }
    }
  }

  private readSpecs(): void {
    const at = this.section('SPECS');
    const n = this.count(at, 'SPECS', 0);
    const a = this.compressedInts(at + 8, n, 32);
    const b = this.compressedInts(a.next, n, 32);
    const c = this.compressedInts(b.next, n, 32);
    this.specPath = a.values as Int32Array;
    this.specFieldSet = b.values as Int32Array;
    this.specType = c.values as Int32Array;
  }

  // ------------------------------------------------------------------ values

  private rep(field: number): Rep {
    return { lo: this.fieldReps[field * 2], hi: this.fieldReps[field * 2 + 1] };
  }

  /** decodes a ValueRep into a value; undefined for types the importer does not use */
  unpack(r: Rep): UsdValue | undefined {
    if (++this.recursion > 64) throw this.fail('value nesting deeper than 64', 0);
    try {
      return this.unpackImpl(r);
    } finally {
      this.recursion--;
    }
  }

  private unpackImpl(r: Rep): UsdValue | undefined {
    const isArray = (r.hi & 0x80000000) !== 0;
    const inlined = (r.hi & 0x40000000) !== 0;
    const compressed = (r.hi & 0x20000000) !== 0;
    const arrayEdit = (r.hi & 0x10000000) !== 0;
    const type = (r.hi >>> 16) & 0xff;
    const payload = (r.hi & 0xffff) * 4294967296 + r.lo;
    if (arrayEdit) return undefined;
    if (isArray) return this.array(type, payload, compressed);
    const lo = r.lo;
    switch (type) {
      case T.Bool:
        return (lo & 0xff) !== 0;
      case T.UChar:
        return lo & 0xff;
      case T.Int:
        return lo | 0;
      case T.UInt:
        return lo >>> 0;
      case T.Int64:
        return inlined ? lo | 0 : this.i64(payload);
      case T.UInt64:
        return inlined ? lo >>> 0 : this.u64(payload);
      case T.Half:
        return halfToNumber(lo & 0xffff);
      case T.Float:
        return bitsToFloat(lo);
      case T.Double:
        return inlined ? bitsToFloat(lo) : this.f64(payload);
      case T.TimeCode:
        return inlined ? bitsToFloat(lo) : this.f64(payload);
      case T.String:
        return this.string(lo, payload);
      case T.Token:
        return this.token(lo, payload);
      case T.AssetPath:
        return new AssetPath(this.token(lo, payload));
      case T.Specifier:
        return lo === 0 ? 'def' : lo === 1 ? 'over' : 'class';
      case T.Permission:
        return lo === 0 ? 'public' : 'private';
      case T.Variability:
        return lo === 1 ? 'uniform' : 'varying';
      case T.ValueBlock:
        return null;
      case T.Dictionary:
        return inlined ? new UsdDict() : this.dictAt(payload).value;
      case T.TokenListOp:
        return this.listOp(payload, (at) => this.token(this.u32(at), at));
      case T.StringListOp:
        return this.listOp(payload, (at) => this.string(this.u32(at), at));
      case T.PathListOp:
        return this.listOp(payload, (at) => this.path(this.u32(at), at));
      case T.ReferenceListOp:
        return this.refListOp(payload, false);
      case T.PayloadListOp:
        return this.refListOp(payload, true);
      case T.Payload:
        return ListOp.explicit([this.referenceAt(payload, true).value]);
      case T.PathVector:
        return new UsdList(this.u32Vector(payload).map((i) => new SdfPathValue(this.path(i, payload))));
      case T.TokenVector:
        return new UsdList(this.u32Vector(payload).map((i) => this.token(i, payload)));
      case T.StringVector:
        return new UsdList(this.u32Vector(payload).map((i) => this.string(i, payload)));
      case T.DoubleVector: {
        const n = this.count(payload, 'double vector', 8);
        const out = new Float64Array(n);
        for (let i = 0; i < n; i++) out[i] = this.f64(payload + 8 + i * 8);
        return new NumArray(out, 1);
      }
      case T.LayerOffsetVector: {
        const n = this.count(payload, 'layer offsets', 16);
        const out = new Float64Array(n * 2);
        for (let i = 0; i < n * 2; i++) out[i] = this.f64(payload + 8 + i * 8);
        return new NumArray(out, 2);
      }
      case T.VariantSelectionMap: {
        const n = this.count(payload, 'variant selections', 8);
        const d = new UsdDict();
        for (let i = 0; i < n; i++) {
          const at = payload + 8 + i * 8;
          d.entries.set(this.string(this.u32(at), at), this.string(this.u32(at + 4), at + 4));
        }
        return d;
      }
      case T.TimeSamples:
        return this.firstTimeSample(payload);
      case T.Value:
      case T.UnregisteredValue:
        return this.vtValueAt(payload).value;
    }
    const tup = TUPLE[type];
    if (tup) {
      const [kind, n] = tup;
      if (inlined) {
        if (type === T.Vec2h) return [halfToNumber(lo & 0xffff), halfToNumber(lo >>> 16)];
        const b = [lo & 0xff, (lo >>> 8) & 0xff, (lo >>> 16) & 0xff, (lo >>> 24) & 0xff].map(
          (x) => (x << 24) >> 24,
        );
        if (MATRICES.has(type)) {
          const dim = Math.round(Math.sqrt(n));
          const m = new Array<number>(n).fill(0);
          for (let i = 0; i < dim; i++) m[i * dim + i] = b[i];
          return m;
        }
        return b.slice(0, n);
      }
      const vals = this.tupleAt(payload, kind, n);
      return QUATS.has(type) ? [vals[3], vals[0], vals[1], vals[2]] : vals;
    }
    return undefined;
  }

  private tupleAt(at: number, kind: 'd' | 'f' | 'h' | 'i', n: number): number[] {
    const sz = SCALAR_BYTES[kind];
    this.check(at, n * sz);
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const p = at + i * sz;
      out[i] =
        kind === 'd'
          ? this.dv.getFloat64(p, true)
          : kind === 'f'
            ? this.dv.getFloat32(p, true)
            : kind === 'i'
              ? this.dv.getInt32(p, true)
              : halfToNumber(this.dv.getUint16(p, true));
    }
    return out;
  }

  private u32Vector(at: number): number[] {
    const n = this.count(at, 'index vector', 4);
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = this.u32(at + 8 + i * 4);
    return out;
  }

  /** reads an array value at `at` */
  private array(type: number, at: number, compressed: boolean): UsdValue | undefined {
    if (at === 0) return emptyArray(type);
    let p = at;
    if (!this.verAtLeast(0, 5)) p += 4; // rank
    const v7 = this.verAtLeast(0, 7);
    const n = v7 ? this.u64(p) : this.u32(p);
    if (n > this.limits.maxArrayElements)
      throw this.fail(
        `array of ${n} elements exceeds max_array_elements = ${this.limits.maxArrayElements}`,
        p,
      );
    p += v7 ? 8 : 4;
    switch (type) {
      case T.Bool:
      case T.UChar: {
        this.check(p, n);
        return new NumArray(this.b.slice(p, p + n), 1);
      }
      case T.Int:
      case T.UInt:
      case T.Int64:
      case T.UInt64: {
        const wide = type === T.Int64 || type === T.UInt64;
        if (compressed && n >= MIN_COMPRESSED_ARRAY_SIZE) {
          const v = this.compressedInts(p, n, wide ? 64 : 32).values;
          if (type === T.UInt) return new NumArray(new Uint32Array(v.buffer as ArrayBuffer), 1);
          return new NumArray(v, 1);
        }
        if (wide) {
          this.check(p, n * 8);
          const out = new Float64Array(n);
          for (let i = 0; i < n; i++) out[i] = type === T.Int64 ? this.i64(p + i * 8) : this.u64(p + i * 8);
          return new NumArray(out, 1);
        }
        this.check(p, n * 4);
        const out = type === T.Int ? new Int32Array(n) : new Uint32Array(n);
        for (let i = 0; i < n; i++)
          out[i] = type === T.Int ? this.dv.getInt32(p + i * 4, true) : this.dv.getUint32(p + i * 4, true);
        return new NumArray(out, 1);
      }
      case T.Half:
      case T.Float:
      case T.Double:
        return new NumArray(this.floatArray(type, p, n, compressed), 1);
      case T.TimeCode: {
        this.check(p, n * 8);
        const out = new Float64Array(n);
        for (let i = 0; i < n; i++) out[i] = this.dv.getFloat64(p + i * 8, true);
        return new NumArray(out, 1);
      }
      case T.String:
      case T.Token:
      case T.AssetPath: {
        this.check(p, n * 4);
        const items: UsdValue[] = new Array(n);
        for (let i = 0; i < n; i++) {
          const idx = this.u32(p + i * 4);
          items[i] =
            type === T.Token
              ? this.token(idx, p)
              : type === T.String
                ? this.string(idx, p)
                : new AssetPath(this.string(idx, p));
        }
        return new UsdList(items);
      }
    }
    const tup = TUPLE[type];
    if (tup) {
      const [kind, w] = tup;
      const sz = SCALAR_BYTES[kind];
      this.check(p, n * w * sz);
      const out =
        kind === 'd'
          ? new Float64Array(n * w)
          : kind === 'i'
            ? new Int32Array(n * w)
            : new Float32Array(n * w);
      for (let i = 0; i < n * w; i++) {
        const q = p + i * sz;
        out[i] =
          kind === 'd'
            ? this.dv.getFloat64(q, true)
            : kind === 'f'
              ? this.dv.getFloat32(q, true)
              : kind === 'i'
                ? this.dv.getInt32(q, true)
                : halfToNumber(this.dv.getUint16(q, true));
      }
      if (QUATS.has(type)) {
        // (x, y, z, w) in memory → (w, x, y, z)
        for (let i = 0; i < n; i++) {
          const o = i * 4;
          const x = out[o],
            y = out[o + 1],
            z = out[o + 2],
            ww = out[o + 3];
          out[o] = ww;
          out[o + 1] = x;
          out[o + 2] = y;
          out[o + 3] = z;
        }
      }
      return new NumArray(out, w);
    }
    return undefined;
  }

  private floatArray(type: number, p: number, n: number, compressed: boolean): Float64Array | Float32Array {
    const out = type === T.Double ? new Float64Array(n) : new Float32Array(n);
    const sz = type === T.Double ? 8 : type === T.Float ? 4 : 2;
    const readRaw = (q: number, count: number, into: Float64Array | Float32Array) => {
      this.check(q, count * sz);
      for (let i = 0; i < count; i++) {
        const a = q + i * sz;
        into[i] =
          sz === 8
            ? this.dv.getFloat64(a, true)
            : sz === 4
              ? this.dv.getFloat32(a, true)
              : halfToNumber(this.dv.getUint16(a, true));
      }
    };
    if (!compressed || !this.verAtLeast(0, 6) || n < MIN_COMPRESSED_ARRAY_SIZE) {
      readRaw(p, n, out);
      return out;
    }
    const code = this.u8(p);
    if (code === 105 /* 'i' */) {
      const ints = this.compressedInts(p + 1, n, 32).values;
      for (let i = 0; i < n; i++) out[i] = ints[i];
    } else if (code === 116 /* 't' */) {
      const lutSize = this.u32(p + 1);
      if (lutSize > n) throw this.fail(`lookup table of ${lutSize} entries for ${n} values`, p + 1);
      const lut = type === T.Double ? new Float64Array(lutSize) : new Float32Array(lutSize);
      readRaw(p + 5, lutSize, lut);
      const idx = this.compressedInts(p + 5 + lutSize * sz, n, 32).values;
      for (let i = 0; i < n; i++) {
        const k = idx[i] >>> 0;
        if (k >= lutSize) throw this.fail(`lookup index ${k} out of range`, p);
        out[i] = lut[k];
      }
    } else throw this.fail(`corrupt compressed float array (code ${code})`, p);
    return out;
  }

  private listOp<T extends string>(at: number, item: (at: number) => T): ListOp<T> {
    const h = this.u8(at);
    const op = new ListOp<T>();
    let p = at + 1;
    const vec = (): T[] => {
      const n = this.count(p, 'list op', 4);
      const out: T[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = item(p + 8 + i * 4);
      p += 8 + n * 4;
      return out;
    };
    if (h & 1) op.isExplicit = true;
    if (h & 2) op.explicit = vec();
    if (h & 4) op.add = vec();
    if (h & 32) op.prepend = vec();
    if (h & 64) op.append = vec();
    if (h & 8) op.delete = vec();
    if (h & 16) op.order = vec();
    return op;
  }

  private refListOp(at: number, payload: boolean): ListOp<UsdReference> {
    const h = this.u8(at);
    const op = new ListOp<UsdReference>();
    let p = at + 1;
    const vec = (): UsdReference[] => {
      const n = this.count(p, 'reference list', 8);
      p += 8;
      const out: UsdReference[] = [];
      for (let i = 0; i < n; i++) {
        const r = this.referenceAt(p, payload);
        out.push(r.value);
        p = r.next;
      }
      return out;
    };
    if (h & 1) op.isExplicit = true;
    if (h & 2) op.explicit = vec();
    if (h & 4) op.add = vec();
    if (h & 32) op.prepend = vec();
    if (h & 64) op.append = vec();
    if (h & 8) op.delete = vec();
    if (h & 16) op.order = vec();
    return op;
  }

  private referenceAt(at: number, payload: boolean): { value: UsdReference; next: number } {
    const asset = this.string(this.u32(at), at);
    const primIdx = this.u32(at + 4);
    const prim = this.paths[primIdx] ?? '';
    let p = at + 8;
    let offset = 0,
      scale = 1;
    if (!payload || this.verAtLeast(0, 8)) {
      offset = this.f64(p);
      scale = this.f64(p + 8);
      p += 16;
    }
    if (!payload) p = this.dictAt(p).next; // customData
    return { value: new UsdReference(asset, prim === '/' ? '' : prim, { offset, scale }), next: p };
  }

  private dictAt(at: number): { value: UsdDict; next: number } {
    const n = this.count(at, 'dictionary', 12);
    const d = new UsdDict();
    let p = at + 8;
    for (let i = 0; i < n; i++) {
      const key = this.string(this.u32(p), p);
      const v = this.vtValueAt(p + 4);
      if (v.value !== undefined) d.entries.set(key, v.value);
      p = v.next;
    }
    return { value: d, next: p };
  }

  /** a VtValue: an int64 relative offset to its ValueRep; returns the position after the rep */
  private vtValueAt(at: number): { value: UsdValue | undefined; next: number } {
    const off = this.i64(at);
    const repAt = at + off;
    this.check(repAt, 8);
    const r = { lo: this.u32(repAt), hi: this.u32(repAt + 4) };
    return { value: this.unpack(r), next: repAt + 8 };
  }

  private firstTimeSample(at: number): UsdValue | undefined {
    // int64 jump to the times rep; the times; int64 jump to the values; count; reps
    const timesRepAt = at + this.i64(at);
    this.check(timesRepAt, 8);
    const timesRep = { lo: this.u32(timesRepAt), hi: this.u32(timesRepAt + 4) };
    const times = this.unpack(timesRep);
    const afterTimes = timesRepAt + 8;
    const valuesAt = afterTimes + this.i64(afterTimes);
    const n = this.count(valuesAt, 'time samples', 8);
    if (n === 0) return undefined;
    let best = 0;
    if (times instanceof NumArray) {
      for (let i = 1; i < Math.min(n, times.data.length); i++) if (times.data[i] < times.data[best]) best = i;
    }
    const q = valuesAt + 8 + best * 8;
    return this.unpack({ lo: this.u32(q), hi: this.u32(q + 4) });
  }

  // ------------------------------------------------------------------ layer

  read(): Layer {
    this.readStructure();
    const layer = new Layer(this.id, 'usdc');
    const primOf = new Map<number, PrimSpec>();
    const childOrder = new Map<PrimSpec, string[]>();
    const specOfPath = (pi: number, at: number, depth = 0): PrimSpec => {
      if (depth > this.limits.maxNesting)
        throw this.fail(`prim path nested deeper than max_usda_nesting = ${this.limits.maxNesting}`, at);
      const cached = primOf.get(pi);
      if (cached) return cached;
      const kind = this.pathKind[pi];
      let spec: PrimSpec;
      if (kind === PathKind.Root) spec = layer.root;
      else if (kind === PathKind.Prim)
        spec = specOfPath(this.pathParent[pi], at, depth + 1).child(this.pathName[pi]);
      else if (kind === PathKind.Variant) {
        const m = /^\{([^=]*)=([^}]*)\}$/.exec(this.pathName[pi]);
        if (!m) throw this.fail(`bad variant path element '${this.pathName[pi]}'`, at);
        spec = specOfPath(this.pathParent[pi], at, depth + 1).variant(m[1], m[2]);
      } else throw this.fail(`path <${this.paths[pi]}> is not a prim path`, at);
      primOf.set(pi, spec);
      return spec;
    };
    const specsAt = this.section('SPECS');
    let primCount = 0;
    for (let s = 0; s < this.specPath.length; s++) {
      const pi = this.specPath[s];
      if (pi < 0 || pi >= this.paths.length)
        throw this.fail(`spec ${s}: path index ${pi} out of range`, specsAt);
      const fields = this.fieldsOf(this.specFieldSet[s], specsAt);
      const type = this.specType[s];
      if (type === SpecType.PseudoRoot) {
        this.applyLayerFields(layer, fields);
      } else if (type === SpecType.Prim || type === SpecType.Variant) {
        if (++primCount > this.limits.maxPrims)
          throw this.fail(`the crate exceeds max_prims = ${this.limits.maxPrims}`, specsAt);
        const spec = specOfPath(pi, specsAt);
        this.applyPrimFields(spec, fields, childOrder);
        if (type === SpecType.Prim && !fields.has('specifier')) spec.specifier = 'over';
      } else if (type === SpecType.Attribute || type === SpecType.Relationship) {
        const parent = this.pathParent[pi];
        if (parent < 0) continue;
        const owner = specOfPath(parent, specsAt);
        owner.props.set(
          this.pathName[pi],
          new CratePropSpec(
            this,
            this.pathName[pi],
            type === SpecType.Attribute ? 'attribute' : 'relationship',
            fields,
          ),
        );
      }
      // VariantSet specs and target/connection specs carry nothing the importer needs
    }
    // order children as primChildren says
    for (const [spec, order] of childOrder) {
      const rank = new Map(order.map((n, i) => [n, i]));
      spec.children.sort((a, b) => (rank.get(a.name) ?? 1e9) - (rank.get(b.name) ?? 1e9));
    }
    return layer;
  }

  /** field name → ValueRep for one field set */
  private fieldsOf(fs: number, at: number): Map<string, Rep> {
    const out = new Map<string, Rep>();
    if (fs < 0 || fs > this.fieldSets.length) throw this.fail(`field set index ${fs} out of range`, at);
    for (let i = fs; i < this.fieldSets.length; i++) {
      const f = this.fieldSets[i];
      if (f === -1) break;
      if (f < 0 || f >= this.fieldTokens.length) throw this.fail(`field index ${f} out of range`, at);
      out.set(this.token(this.fieldTokens[f], at), this.rep(f));
    }
    return out;
  }

  private applyLayerFields(layer: Layer, fields: Map<string, Rep>): void {
    for (const [name, r] of fields) {
      if (name === 'primChildren') continue;
      const v = this.unpack(r);
      if (v === undefined) continue;
      layer.meta.set(name, v);
      if (name === 'upAxis' && typeof v === 'string') layer.info.upAxis = v;
      else if (name === 'metersPerUnit' && typeof v === 'number') layer.info.metersPerUnit = v;
      else if (name === 'kilogramsPerUnit' && typeof v === 'number') layer.info.kilogramsPerUnit = v;
      else if (name === 'defaultPrim' && typeof v === 'string') layer.info.defaultPrim = v;
      else if (name === 'subLayers' && v instanceof UsdList) {
        layer.info.subLayers = v.items.filter((x): x is string => typeof x === 'string');
      }
    }
  }

  private applyPrimFields(
    spec: PrimSpec,
    fields: Map<string, Rep>,
    childOrder: Map<PrimSpec, string[]>,
  ): void {
    for (const [name, r] of fields) {
      switch (name) {
        case 'specifier': {
          const v = this.unpack(r);
          if (v === 'def' || v === 'over' || v === 'class') spec.specifier = v as Specifier;
          break;
        }
        case 'typeName': {
          const v = this.unpack(r);
          if (typeof v === 'string') spec.typeName = v;
          break;
        }
        case 'primChildren': {
          const v = this.unpack(r);
          if (v instanceof UsdList) childOrder.set(spec, v.items as string[]);
          break;
        }
        case 'properties':
        case 'variantChildren':
        case 'variantSetChildren':
          break;
        case 'inheritPaths':
          this.setMeta(spec, 'inherits', r);
          break;
        case 'variantSelection':
          this.setMeta(spec, 'variants', r);
          break;
        default:
          this.setMeta(spec, name, r);
      }
    }
  }

  private setMeta(spec: PrimSpec, key: string, r: Rep): void {
    const v = this.unpack(r);
    if (v !== undefined) spec.meta.set(key, v);
  }

  /** the decoded value of a field (used lazily by property specs) */
  value(r: Rep | undefined): UsdValue | undefined {
    return r === undefined ? undefined : this.unpack(r);
  }
}

/** a crate property spec; values decode on first access */
class CratePropSpec implements PropSpec {
  typeName = '';
  custom = false;
  variability: 'varying' | 'uniform' = 'varying';
  targets?: ListOp<string>;
  connections?: ListOp<string>;
  meta?: Map<string, UsdValue>;
  private _value: UsdValue | undefined;
  private _sample: UsdValue | undefined;
  private decoded = 0;

  constructor(
    private readonly reader: CrateReader,
    readonly name: string,
    readonly kind: 'attribute' | 'relationship',
    private readonly fields: Map<string, Rep>,
  ) {
    for (const [f, r] of fields) {
      switch (f) {
        case 'default':
        case 'timeSamples':
          break;
        case 'typeName': {
          const v = reader.value(r);
          if (typeof v === 'string') this.typeName = v;
          break;
        }
        case 'custom':
          this.custom = reader.value(r) === true;
          break;
        case 'variability':
          this.variability = reader.value(r) === 'uniform' ? 'uniform' : 'varying';
          break;
        case 'targetPaths': {
          const v = reader.value(r);
          if (v instanceof ListOp) this.targets = v as ListOp<string>;
          break;
        }
        case 'connectionPaths': {
          const v = reader.value(r);
          if (v instanceof ListOp) this.connections = v as ListOp<string>;
          break;
        }
        case 'targetChildren':
        case 'connectionChildren':
          break;
        default: {
          const v = reader.value(r);
          if (v !== undefined) (this.meta ??= new Map()).set(f, v);
        }
      }
    }
  }

  get value(): UsdValue | undefined {
    if (!(this.decoded & 1)) {
      this._value = coerceBool(this.reader.value(this.fields.get('default')), this.typeName);
      this.decoded |= 1;
    }
    return this._value;
  }

  get firstSample(): UsdValue | undefined {
    if (!(this.decoded & 2)) {
      this._sample = coerceBool(this.reader.value(this.fields.get('timeSamples')), this.typeName);
      this.decoded |= 2;
    }
    return this._sample;
  }
}

function coerceBool(v: UsdValue | undefined, typeName: string): UsdValue | undefined {
  if (typeName === 'bool' && typeof v === 'number') return v !== 0;
  return v;
}

const f32buf = new DataView(new ArrayBuffer(4));
function bitsToFloat(bits: number): number {
  f32buf.setUint32(0, bits >>> 0, true);
  return f32buf.getFloat32(0, true);
}

function emptyArray(type: number): UsdValue {
  if (type === T.String || type === T.Token || type === T.AssetPath) return new UsdList([]);
  const tup = TUPLE[type];
  return new NumArray(new Float64Array(0), tup ? tup[1] : 1);
}

function rebase(e: UsdError, layer: string, base: number): UsdError {
  const off = e.location.offset;
  return new UsdError(e.kind, { ...e.location, layer, offset: off === undefined ? base : off }, e.reason);
}
