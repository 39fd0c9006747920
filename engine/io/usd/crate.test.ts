import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStl } from '../mesh';
import { parseCrate, summarizeCrate, halfToNumber } from './crate';
import { UsdError } from './errors';
import { compressIntegers, decodeIntegers, decompressIntegers, encodeIntegers } from './intcoding';
import { compressFast, decompressFast, lz4CompressBlock, lz4DecompressBlock } from './lz4';
import { ASSETS, SAP_ASSETS, USD_MODELS } from './testing';
import { listZipEntries, readUsdz } from './usdz';
import { AssetPath, ListOp, NumArray, UsdDict, UsdList } from './values';

const read = (p: string) => new Uint8Array(readFileSync(p));
const T1_PAYLOAD = path.join(ASSETS, 'newton-assets/booster_t1/usd_structured/Payload');
const ANYMAL_CRATE = path.join(ASSETS, 'newton-assets/anybotics_anymal_d/usd/Props/instanceable_meshes.usd');

function expectUsdError(f: () => unknown, kind: string): UsdError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UsdError);
    expect((e as UsdError).kind).toBe(kind);
    return e as UsdError;
  }
  throw new Error('expected a UsdError');
}

describe('LZ4 block decoder', () => {
  it('decodes a hand-assembled block (literals, an overlapping match, last literals)', () => {
    // "abc" + match(offset 3, length 18) + "xyz12"
    const block = Uint8Array.from([0x3e, 0x61, 0x62, 0x63, 0x03, 0x00, 0x50, 0x78, 0x79, 0x7a, 0x31, 0x32]);
    const out = new Uint8Array(26);
    const n = lz4DecompressBlock(block, 0, block.length, out, 0, out.length);
    expect(n).toBe(26);
    expect(new TextDecoder().decode(out)).toBe('abcabcabcabcabcabcabcxyz12');
  });

  it('decodes extended literal and match lengths', () => {
    // 20 literals (15 + 5), then a match of 4 + 15 + 255 + 1 = 275 bytes at offset 1, then 1 literal
    const lits = Array.from({ length: 20 }, (_, i) => 65 + i);
    const block = Uint8Array.from([0xff, 5, ...lits, 0x01, 0x00, 255, 1, 0x10, 0x21]);
    const out = new Uint8Array(20 + 275 + 1);
    expect(lz4DecompressBlock(block, 0, block.length, out, 0, out.length)).toBe(out.length);
    expect(out[19]).toBe(65 + 19);
    expect(out.subarray(20, 295).every((x) => x === 65 + 19)).toBe(true);
    expect(out[295]).toBe(0x21);
  });

  it('round-trips known data through the compressor', () => {
    const text = new TextEncoder().encode(
      'PhysicsRevoluteJoint physics:body0 physics:body1 physics:localPos0 '.repeat(200) + 'tail',
    );
    const rnd = new Uint8Array(50_000);
    let s = 12345;
    for (let i = 0; i < rnd.length; i++) {
      s = (s * 1103515245 + 12345) >>> 0;
      rnd[i] = i % 7 === 0 ? s >>> 24 : (i * 31) & 0xff;
    }
    for (const src of [text, rnd, new Uint8Array(0), Uint8Array.from([1, 2, 3])]) {
      const c = compressFast(src);
      expect(c[0]).toBe(0);
      const d = decompressFast(c, 0, c.length, src.length);
      expect(Buffer.from(d).equals(Buffer.from(src))).toBe(true);
    }
    expect(lz4CompressBlock(text).length).toBeLessThan(text.length / 10);
  });

  it('reads multi-chunk TfFastCompression buffers', () => {
    const a = new TextEncoder().encode('first chunk '.repeat(10));
    const b = new TextEncoder().encode('second chunk!');
    const ca = lz4CompressBlock(a),
      cb = lz4CompressBlock(b);
    const buf = new Uint8Array(1 + 4 + ca.length + 4 + cb.length);
    const dv = new DataView(buf.buffer);
    buf[0] = 2;
    dv.setInt32(1, ca.length, true);
    buf.set(ca, 5);
    dv.setInt32(5 + ca.length, cb.length, true);
    buf.set(cb, 9 + ca.length);
    const out = decompressFast(buf, 0, buf.length, a.length + b.length);
    expect(new TextDecoder().decode(out)).toBe('first chunk '.repeat(10) + 'second chunk!');
  });

  it('rejects corrupt blocks with a typed error and offset', () => {
    const out = new Uint8Array(64);
    // a match offset pointing before the start of the output
    const e = expectUsdError(
      () => lz4DecompressBlock(Uint8Array.from([0x10, 0x41, 0x09, 0x00]), 0, 4, out, 0, 64),
      'decompress',
    );
    expect(e.location.offset).toBe(2);
    // a literal run past the end of the input
    expectUsdError(
      () => lz4DecompressBlock(Uint8Array.from([0xf0, 0x20, 0x41]), 0, 3, out, 0, 64),
      'decompress',
    );
    // output larger than declared
    const big = compressFast(new Uint8Array(100).fill(7));
    expectUsdError(() => decompressFast(big, 0, big.length, 50), 'decompress');
    // decompression bomb guard
    expectUsdError(() => decompressFast(big, 0, big.length, 1e9, 1e6), 'decompress');
  });
});

describe('crate integer coding', () => {
  it('decodes a hand-encoded stream', () => {
    // values 1 2 3 1000 1000 → deltas 1 1 1 997 0; common 1; codes 0 0 0 2 | 1
    const enc = Uint8Array.from([1, 0, 0, 0, 0x80, 0x01, 0xe5, 0x03, 0x00]);
    const out = new Int32Array(5);
    decodeIntegers(enc, 0, enc.length, 5, 32, out);
    expect(Array.from(out)).toEqual([1, 2, 3, 1000, 1000]);
    expect(Array.from(encodeIntegers([1, 2, 3, 1000, 1000], 32))).toEqual(Array.from(enc));
  });

  it('round-trips 32- and 64-bit integers of every delta size', () => {
    const v32 = [0, 1, 2, 3, -5, 300, -40000, 2_000_000_000, -2_000_000_000, 7, 7, 7, 7, 8];
    const c32 = compressIntegers(v32, 32);
    expect(Array.from(decompressIntegers(c32, 0, c32.length, v32.length, 32))).toEqual(v32);
    const v64 = [0, 1, -1, 30000, -70000, 5_000_000_000, -5_000_000_000, 2 ** 50, 3, 3, 3];
    const c64 = compressIntegers(v64, 64);
    expect(Array.from(decompressIntegers(c64, 0, c64.length, v64.length, 64))).toEqual(v64);
  });

  it('rejects truncated streams', () => {
    const out = new Int32Array(8);
    expectUsdError(() => decodeIntegers(Uint8Array.from([1, 0, 0, 0, 0xff]), 0, 5, 8, 32, out), 'decompress');
  });
});

describe('USDC crate reader on the shared assets', () => {
  it('reads the structural sections of every crate', () => {
    const crates: [string, [number, number, number], number][] = [
      [ANYMAL_CRATE, [0, 8, 0], 151],
      [path.join(T1_PAYLOAD, 'GeometryLibrary.usdc'), [0, 8, 0], 70],
      [path.join(T1_PAYLOAD, 'MaterialsLibrary.usdc'), [0, 8, 0], 38],
      [path.join(ASSETS, USD_MODELS.S6), [0, 8, 0], 51],
      [path.join(SAP_ASSETS, 'newton/newton/examples/assets/curvedSurface.usd'), [0, 9, 0], 55],
    ];
    for (const [file, version, tokens] of crates) {
      const s = summarizeCrate(read(file), file);
      expect(s.version).toEqual(version);
      expect(s.tokens.length).toBe(tokens);
      expect(s.numSpecs).toBeGreaterThan(0);
      expect(s.tokens).toContain('typeName');
    }
    expect(summarizeCrate(read(ANYMAL_CRATE), 'x').tokens).toContain('PhysicsCollisionAPI');
  });

  it('decodes the T1 trunk mesh exactly as its source STL (deduplicated vertices)', () => {
    const L = parseCrate(read(path.join(T1_PAYLOAD, 'GeometryLibrary.usdc')), 'GeometryLibrary.usdc');
    expect(L.info.defaultPrim).toBe('Geometry');
    const trunk = L.primAt('/Geometry/Trunk')!;
    expect(trunk.typeName).toBe('Mesh');
    const pts = trunk.props.get('points')!.value as NumArray;
    const idx = trunk.props.get('faceVertexIndices')!.value as NumArray;
    const counts = trunk.props.get('faceVertexCounts')!.value as NumArray;
    const stl = parseStl(read(path.join(ASSETS, 'mujoco_menagerie/booster_t1/assets/Trunk.stl')));
    expect(counts.length).toBe(stl.triangles.length / 3);
    expect(Array.from(counts.data).every((c) => c === 3)).toBe(true);
    const key = (a: ArrayLike<number>, i: number) =>
      `${Math.fround(a[3 * i])},${Math.fround(a[3 * i + 1])},${Math.fround(a[3 * i + 2])}`;
    const usdSet = new Set<string>();
    for (let i = 0; i < pts.length; i++) usdSet.add(key(pts.data, i));
    const stlSet = new Set<string>();
    for (let i = 0; i < stl.vertices.length / 3; i++) stlSet.add(key(stl.vertices, i));
    expect(usdSet.size).toBe(pts.length);
    expect(usdSet).toEqual(stlSet);
    // the faces reference the same corners as the STL triangles
    const tri0 = [0, 1, 2].map((k) => key(pts.data, idx.data[k]));
    const stl0 = [0, 1, 2].map((k) => key(stl.vertices, stl.triangles[k]));
    expect(tri0).toEqual(stl0);
  });

  it('decodes token list ops, quaternions and scales of the ANYmal collision prims', () => {
    const L = parseCrate(read(ANYMAL_CRATE), 'instanceable_meshes.usd');
    const cube = L.primAt('/anymal/LF_THIGH/collisions/mesh_0')!;
    expect(cube.typeName).toBe('Cube');
    const api = cube.listOp('apiSchemas') as ListOp<string>;
    expect(api.isExplicit).toBe(true);
    expect(api.explicit).toEqual(['PhysicsCollisionAPI']);
    const p = (n: string) => cube.props.get(n)!.value;
    expect(p('size')).toBe(1);
    expect(p('purpose')).toBe('guide');
    const scale = p('xformOp:scale') as number[];
    const extent = p('extent') as NumArray;
    // the authored extent is half the scaled unit cube
    for (let k = 0; k < 3; k++) expect(extent.data[3 + k]).toBeCloseTo(scale[k] / 2, 6);
    const q = p('xformOp:orient') as number[];
    expect(Math.hypot(...q)).toBeCloseTo(1, 6);
    expect(q[0]).toBeCloseTo(Math.SQRT1_2, 6); // w first
    expect(q[3]).toBeCloseTo(Math.SQRT1_2, 6);
    expect((p('xformOpOrder') as UsdList).items).toEqual([
      'xformOp:translate',
      'xformOp:orient',
      'xformOp:scale',
    ]);
  });

  it('decodes materials (MJCF rgba 0.76 → linear 0.538) and layer metadata', () => {
    const L = parseCrate(read(path.join(T1_PAYLOAD, 'MaterialsLibrary.usdc')), 'MaterialsLibrary.usdc');
    expect(L.info).toMatchObject({
      upAxis: 'Z',
      metersPerUnit: 1,
      kilogramsPerUnit: 1,
      defaultPrim: 'Materials',
    });
    const m = L.primAt('/Materials/light_gray')!;
    expect(m.meta.get('instanceable')).toBe(true);
    const c = m.props.get('inputs:diffuseColor')!.value as number[];
    const srgbToLinear = (x: number) => ((x + 0.055) / 1.055) ** 2.4;
    expect(c[0]).toBeCloseTo(srgbToLinear(0.76), 5);
    const shaderIn = L.primAt('/Materials/light_gray/PreviewSurface')!.props.get('inputs:diffuseColor')!;
    expect(shaderIn.connections!.explicit).toEqual(['/Materials/light_gray.inputs:diffuseColor']);
  });

  it('reads the crazyflie crate: 12 meshes and 6 xforms, Y up', () => {
    const L = parseCrate(read(path.join(ASSETS, USD_MODELS.S6)), 'crazyflie.usd');
    expect(L.info.upAxis).toBe('Y');
    const types: Record<string, number> = {};
    const visit = (p: (typeof L)['root']) => {
      if (p.typeName) types[p.typeName] = (types[p.typeName] ?? 0) + 1;
      p.children.forEach(visit);
    };
    visit(L.root);
    expect(types.Mesh).toBe(12);
    expect(types.Xform).toBe(6);
  });

  it('decodes halves', () => {
    expect(halfToNumber(0x3c00)).toBe(1);
    expect(halfToNumber(0xc000)).toBe(-2);
    expect(halfToNumber(0x7c00)).toBe(Infinity);
    expect(halfToNumber(0x0001)).toBeCloseTo(5.96e-8, 9);
  });

  it('rejects malformed crates with a byte offset, and never hangs', () => {
    const good = read(path.join(T1_PAYLOAD, 'MaterialsLibrary.usdc'));
    // truncated bootstrap
    expect(expectUsdError(() => parseCrate(good.slice(0, 40), 'short.usdc'), 'crate').location.offset).toBe(
      0,
    );
    // bad magic
    const bad = good.slice();
    bad[0] = 0x58;
    expectUsdError(() => parseCrate(bad, 'magic.usdc'), 'crate');
    // table of contents past the end
    const toc = good.slice();
    new DataView(toc.buffer).setUint32(16, good.length + 100, true);
    const e = expectUsdError(() => parseCrate(toc, 'toc.usdc'), 'crate');
    expect(e.location).toMatchObject({ layer: 'toc.usdc' });
    expect(e.location.offset).toBeGreaterThan(0);
    // a path count far beyond the encoded paths (fuzz seed 20261123, usdc #29621: one flipped bit
    // raised it by 2^25) allocates only what the encoding names, instead of 33 million slots for 12 s
    const paths = good.slice();
    const dv = new DataView(paths.buffer);
    const toc0 = Number(dv.getBigUint64(16, true));
    for (let k = 0, n = Number(dv.getBigUint64(toc0, true)); k < n; k++) {
      const e = toc0 + 8 + k * 32;
      if (new TextDecoder().decode(paths.subarray(e, e + 5)) !== 'PATHS') continue;
      const at = Number(dv.getBigUint64(e + 16, true));
      dv.setBigUint64(at, dv.getBigUint64(at, true) + 2n ** 25n, true);
    }
    expect(paths).not.toEqual(good);
    const wide = parseCrate(paths, 'paths.usdc');
    expect([...wide.primAt('/')!.children.keys()]).toEqual([
      ...parseCrate(good, 'g.usdc').primAt('/')!.children.keys(),
    ]);
    expect(summarizeCrate(paths, 'paths.usdc').numPaths).toBe(summarizeCrate(good, 'g.usdc').numPaths);
    // every single-byte corruption either decodes or throws a typed error
    for (let i = 88; i < good.length; i += 7) {
      const c = good.slice();
      c[i] ^= 0xa5;
      try {
        parseCrate(c, 'corrupt.usdc');
      } catch (err) {
        expect(err).toBeInstanceOf(UsdError);
      }
    }
    // truncation at every section boundary region
    for (let n = 100; n < good.length; n += 97) {
      try {
        parseCrate(good.slice(0, n), 'trunc.usdc');
      } catch (err) {
        expect(err).toBeInstanceOf(UsdError);
      }
    }
  });
});

describe('USDZ', () => {
  it('opens the tinyusdz cube archive (stored crate v0.7.0)', async () => {
    const bytes = read(path.join(ASSETS, USD_MODELS.S7));
    const entries = listZipEntries(bytes, 'cube.usdz');
    expect(entries.map((e) => [e.name, e.method])).toEqual([['cube.usdc', 0]]);
    const pkg = await readUsdz(bytes, 'cube.usdz');
    expect(pkg.root).toBe('cube.usdc');
    const crate = pkg.files.get('cube.usdc')!;
    expect(summarizeCrate(crate, 'cube.usdc').version).toEqual([0, 7, 0]);
    const L = parseCrate(crate, 'cube.usdz[cube.usdc]');
    expect(L.primAt('/Cube')!.props.get('xformOp:transform')!.value).toHaveLength(16);
    expect(L.primAt('/Cube/Cube')!.typeName).toBe('Mesh');
  });

  it('rejects corrupt archives', async () => {
    const bytes = read(path.join(ASSETS, USD_MODELS.S7));
    expectUsdError(() => listZipEntries(bytes.slice(0, 100), 'cut.usdz'), 'zip');
    const noLayer = makeZip([['readme.txt', new TextEncoder().encode('hi')]]);
    await expect(readUsdz(noLayer, 'nolayer.usdz')).rejects.toBeInstanceOf(UsdError);
    const tooBig = makeZip([['a.usda', new Uint8Array(5000)]]);
    expectUsdError(() => listZipEntries(tooBig, 'big.usdz', { maxLayerBytes: 1000 }), 'zip');
    const enc = makeZip([['a.usda', new Uint8Array(10)]]);
    new DataView(enc.buffer).setUint16(enc.length - 22 - (46 + 6) + 8, 1, true); // central directory flags: encrypted
    expectUsdError(() => listZipEntries(enc, 'enc.usdz'), 'zip');
  });
});

/** a minimal stored-only zip writer for tests */
function makeZip(files: [string, Uint8Array][]): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const [name, data] of files) {
    const nb = new TextEncoder().encode(name);
    const lh = new Uint8Array(30 + nb.length);
    const dv = new DataView(lh.buffer);
    dv.setUint32(0, 0x04034b50, true);
    dv.setUint32(18, data.length, true);
    dv.setUint32(22, data.length, true);
    dv.setUint16(26, nb.length, true);
    lh.set(nb, 30);
    const ch = new Uint8Array(46 + nb.length);
    const cv = new DataView(ch.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint32(20, data.length, true);
    cv.setUint32(24, data.length, true);
    cv.setUint16(28, nb.length, true);
    cv.setUint32(42, offset, true);
    ch.set(nb, 46);
    parts.push(lh, data);
    central.push(ch);
    offset += lh.length + data.length;
  }
  const cdSize = central.reduce((n, c) => n + c.length, 0);
  const eocd = new Uint8Array(22);
  const ev = new DataView(eocd.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, files.length, true);
  ev.setUint16(10, files.length, true);
  ev.setUint32(12, cdSize, true);
  ev.setUint32(16, offset, true);
  const all = [...parts, ...central, eocd];
  const out = new Uint8Array(all.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of all) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// A minimal crate writer (test only) to cover value types the shared crates do not use.

type Rep = [number, number];
const TYPE = {
  Bool: 1,
  Int: 3,
  Int64: 5,
  Half: 7,
  Float: 8,
  Double: 9,
  String: 10,
  Token: 11,
  AssetPath: 12,
  Matrix4d: 15,
  Quatd: 16,
  Vec3d: 23,
  Vec3f: 24,
  Dictionary: 31,
  TokenListOp: 32,
  PathListOp: 34,
  ReferenceListOp: 35,
  TokenVector: 41,
  Specifier: 42,
  Variability: 44,
  VariantSelectionMap: 45,
  TimeSamples: 46,
  DoubleVector: 48,
  PayloadListOp: 55,
} as const;

class CrateWriter {
  tokens: string[] = [];
  strings: number[] = [];
  paths: string[] = [];
  bytes: number[] = new Array(88).fill(0);
  fields: { tok: number; rep: Rep }[] = [];
  fieldSets: number[] = [];
  specs: { path: number; fs: number; type: number }[] = [];

  token(s: string): number {
    let i = this.tokens.indexOf(s);
    if (i < 0) i = this.tokens.push(s) - 1;
    return i;
  }
  string(s: string): number {
    const t = this.token(s);
    let i = this.strings.indexOf(t);
    if (i < 0) i = this.strings.push(t) - 1;
    return i;
  }
  path(p: string): number {
    let i = this.paths.indexOf(p);
    if (i < 0) i = this.paths.push(p) - 1;
    return i;
  }
  here(): number {
    return this.bytes.length;
  }
  put(b: ArrayLike<number>): void {
    for (let i = 0; i < b.length; i++) this.bytes.push(b[i]);
  }
  u8(v: number) {
    this.bytes.push(v & 255);
  }
  u32(v: number) {
    const a = new Uint8Array(4);
    new DataView(a.buffer).setUint32(0, v >>> 0, true);
    this.put(a);
  }
  i64(v: number) {
    const a = new Uint8Array(8);
    new DataView(a.buffer).setBigInt64(0, BigInt(v), true);
    this.put(a);
  }
  u64(v: number) {
    this.i64(v);
  }
  f32(v: number) {
    const a = new Uint8Array(4);
    new DataView(a.buffer).setFloat32(0, v, true);
    this.put(a);
  }
  f64(v: number) {
    const a = new Uint8Array(8);
    new DataView(a.buffer).setFloat64(0, v, true);
    this.put(a);
  }
  static rep(
    type: number,
    payload: number,
    flags: { inline?: boolean; array?: boolean; compressed?: boolean } = {},
  ): Rep {
    const hi =
      ((flags.array ? 0x80000000 : 0) |
        (flags.inline ? 0x40000000 : 0) |
        (flags.compressed ? 0x20000000 : 0) |
        (type << 16) |
        Math.floor(payload / 2 ** 32)) >>>
      0;
    return [payload >>> 0, hi];
  }
  spec(path: string, type: number, fields: Record<string, Rep>): void {
    const fs = this.fieldSets.length;
    for (const [name, rep] of Object.entries(fields))
      this.fieldSets.push(this.fields.push({ tok: this.token(name), rep }) - 1);
    this.fieldSets.push(-1);
    this.specs.push({ path: this.path(path), fs, type });
  }
  /** serialises: sections after the value data, then the TOC, then the bootstrap */
  finish(): Uint8Array {
    const sections: [string, number, number][] = [];
    const section = (name: string, f: () => void) => {
      const s = this.here();
      f();
      sections.push([name, s, this.here() - s]);
    };
    const ints = (v: number[]) => {
      const c = compressIntegers(v, 32);
      this.u64(c.length);
      this.put(c);
    };
    // the path tree: paths sorted so that parents precede children (pre-order)
    const tree = this.pathTree();
    section('TOKENS', () => {
      const raw = new TextEncoder().encode(this.tokens.map((t) => t + '\0').join(''));
      const c = compressFast(raw);
      this.u64(this.tokens.length);
      this.u64(raw.length);
      this.u64(c.length);
      this.put(c);
    });
    section('STRINGS', () => {
      this.u64(this.strings.length);
      for (const s of this.strings) this.u32(s);
    });
    section('FIELDS', () => {
      this.u64(this.fields.length);
      ints(this.fields.map((f) => f.tok));
      const reps = new Uint8Array(this.fields.length * 8);
      const dv = new DataView(reps.buffer);
      this.fields.forEach((f, i) => {
        dv.setUint32(i * 8, f.rep[0], true);
        dv.setUint32(i * 8 + 4, f.rep[1], true);
      });
      const c = compressFast(reps);
      this.u64(c.length);
      this.put(c);
    });
    section('FIELDSETS', () => {
      this.u64(this.fieldSets.length);
      ints(this.fieldSets);
    });
    section('PATHS', () => {
      this.u64(this.paths.length);
      this.u64(tree.index.length);
      ints(tree.index);
      ints(tree.elem);
      ints(tree.jump);
    });
    section('SPECS', () => {
      this.u64(this.specs.length);
      ints(this.specs.map((s) => s.path));
      ints(this.specs.map((s) => s.fs));
      ints(this.specs.map((s) => s.type));
    });
    const toc = this.here();
    this.u64(sections.length);
    for (const [name, start, size] of sections) {
      const nb = new Uint8Array(16);
      nb.set(new TextEncoder().encode(name));
      this.put(nb);
      this.u64(start);
      this.u64(size);
    }
    const out = Uint8Array.from(this.bytes);
    out.set(new TextEncoder().encode('PXR-USDC'), 0);
    out.set([0, 8, 0], 8);
    new DataView(out.buffer).setBigUint64(16, BigInt(toc), true);
    return out;
  }
  private pathTree(): { index: number[]; elem: number[]; jump: number[] } {
    const parentOf = (p: string): string => {
      if (p === '/') return '';
      const dot = p.lastIndexOf('.');
      const brace = p.lastIndexOf('{');
      const slash = p.lastIndexOf('/');
      const cut = Math.max(dot, brace, slash);
      if (cut === dot || cut === brace) return p.slice(0, cut);
      return cut === 0 ? '/' : p.slice(0, cut);
    };
    const children = new Map<string, string[]>();
    for (const p of this.paths) {
      let q = p;
      while (q !== '/') {
        const par = parentOf(q);
        if (!children.has(par)) children.set(par, []);
        if (!children.get(par)!.includes(q)) children.get(par)!.push(q);
        this.path(q);
        q = par;
      }
    }
    this.path('/');
    const index: number[] = [],
      elem: number[] = [],
      jump: number[] = [];
    const visit = (p: string, hasSibling: boolean) => {
      const me = index.length;
      index.push(this.path(p));
      const par = parentOf(p);
      const name = p === '/' ? '' : p.slice(par.length).replace(/^[/.]/, '');
      const isProp = p.slice(par.length).startsWith('.');
      elem.push(p === '/' ? 0 : isProp ? -this.token(name) : this.token(name));
      jump.push(0);
      const kids = children.get(p) ?? [];
      kids.forEach((k, i) => visit(k, i < kids.length - 1));
      const hasChild = kids.length > 0;
      jump[me] = hasChild && hasSibling ? index.length - me : hasSibling ? 0 : hasChild ? -1 : -2;
    };
    visit('/', false);
    return { index, elem, jump };
  }
}

describe('crate value types (synthetic crate)', () => {
  const w = new CrateWriter();
  const R = CrateWriter.rep;
  // out-of-line values first
  const at = () => w.here();
  const i64At = at();
  w.i64(5_000_000_000);
  const v3fAt = at();
  w.f32(0.5);
  w.f32(1.5);
  w.f32(-2.25);
  const qdAt = at();
  for (const x of [0, 0, 0.6, 0.8]) w.f64(x); // memory order (x, y, z, w)
  const m4At = at();
  for (let i = 0; i < 16; i++) w.f64(i === 12 ? 7 : i % 5 === 0 ? 1 : 0);
  const dictAt = at();
  w.u64(2);
  w.u32(w.string('a'));
  w.i64(8);
  w.u32(R(TYPE.Int, 5, { inline: true })[0]);
  w.u32(R(TYPE.Int, 5, { inline: true })[1]);
  w.u32(w.string('s'));
  w.i64(8);
  const sr = R(TYPE.String, w.string('hello'), { inline: true });
  w.u32(sr[0]);
  w.u32(sr[1]);
  const tlopAt = at();
  w.u8(32 | 8); // prepend, delete
  w.u64(1);
  w.u32(w.token('PhysicsRigidBodyAPI'));
  w.u64(1);
  w.u32(w.token('Gone'));
  const refAt = at();
  w.u8(32); // prepend
  w.u64(1);
  w.u32(w.string('./lib.usd'));
  w.u32(w.path('/Lib/X'));
  w.f64(0);
  w.f64(1);
  w.u64(0); // empty customData
  const payAt = at();
  w.u8(1 | 2); // explicit
  w.u64(1);
  w.u32(w.string('./payload.usda'));
  w.u32(w.path('/P'));
  w.f64(0);
  w.f64(1);
  const plopAt = at();
  w.u8(1 | 2);
  w.u64(1);
  w.u32(w.path('/Root/Child'));
  const vselAt = at();
  w.u64(1);
  w.u32(w.string('color'));
  w.u32(w.string('red'));
  const kidsAt = at();
  w.u64(1);
  w.u32(w.token('Child'));
  const timesAt = at();
  w.u64(2);
  w.f64(2);
  w.f64(1);
  const tsAt = at();
  w.i64(8); // jump to the times rep
  const tr = R(TYPE.DoubleVector, timesAt);
  w.u32(tr[0]);
  w.u32(tr[1]);
  w.i64(8); // jump to the values
  w.u64(2);
  for (const v of [10, 20]) {
    const r = R(TYPE.Double, new DataView(new Float32Array([v]).buffer).getUint32(0, true), { inline: true });
    w.u32(r[0]);
    w.u32(r[1]);
  }
  const faAt = at();
  w.u64(20);
  w.u8(105);
  {
    const c = compressIntegers(
      Array.from({ length: 20 }, (_, i) => i * 3 - 7),
      32,
    );
    w.u64(c.length);
    w.put(c);
  }
  const daAt = at();
  w.u64(20);
  w.u8(116);
  w.u32(2);
  w.f64(0.25);
  w.f64(-1.5);
  {
    const c = compressIntegers(
      Array.from({ length: 20 }, (_, i) => i % 2),
      32,
    );
    w.u64(c.length);
    w.put(c);
  }
  const iaAt = at();
  w.u64(20);
  {
    const c = compressIntegers(
      Array.from({ length: 20 }, (_, i) => 1000 - i * i),
      32,
    );
    w.u64(c.length);
    w.put(c);
  }
  const taAt = at();
  w.u64(2);
  w.u32(w.token('x'));
  w.u32(w.token('y'));

  w.spec('/', 7, {
    defaultPrim: R(TYPE.Token, w.token('Root'), { inline: true }),
    upAxis: R(TYPE.Token, w.token('Z'), { inline: true }),
    metersPerUnit: R(TYPE.Double, new DataView(new Float32Array([0.01]).buffer).getUint32(0, true), {
      inline: true,
    }),
    customLayerData: R(TYPE.Dictionary, dictAt),
  });
  w.spec('/Root', 6, {
    specifier: R(TYPE.Specifier, 0, { inline: true }),
    typeName: R(TYPE.Token, w.token('Xform'), { inline: true }),
    primChildren: R(TYPE.TokenVector, kidsAt),
    apiSchemas: R(TYPE.TokenListOp, tlopAt),
    references: R(TYPE.ReferenceListOp, refAt),
    payload: R(TYPE.PayloadListOp, payAt),
    inheritPaths: R(TYPE.PathListOp, plopAt),
    variantSelection: R(TYPE.VariantSelectionMap, vselAt),
    instanceable: R(TYPE.Bool, 1, { inline: true }),
  });
  w.spec('/Root/Child', 6, { specifier: R(TYPE.Specifier, 1, { inline: true }) });
  const attr = (name: string, type: string, fields: Record<string, Rep>) =>
    w.spec(`/Root.${name}`, 1, { typeName: R(TYPE.Token, w.token(type), { inline: true }), ...fields });
  attr('i64', 'int64', { default: R(TYPE.Int64, i64At) });
  attr('h', 'half', { default: R(TYPE.Half, 0x3e00, { inline: true }) });
  attr('v3d', 'double3', {
    default: R(TYPE.Vec3d, (1 & 255) | ((-2 & 255) << 8) | (3 << 16), { inline: true }),
    variability: R(TYPE.Variability, 1, { inline: true }),
  });
  attr('v3f', 'float3', { default: R(TYPE.Vec3f, v3fAt) });
  attr('qd', 'quatd', { default: R(TYPE.Quatd, qdAt) });
  attr('mdiag', 'matrix4d', {
    default: R(TYPE.Matrix4d, 2 | (3 << 8) | (4 << 16) | (1 << 24), { inline: true }),
  });
  attr('m', 'matrix4d', { default: R(TYPE.Matrix4d, m4At) });
  attr('ts', 'double', { timeSamples: R(TYPE.TimeSamples, tsAt) });
  attr('fa', 'float[]', { default: R(TYPE.Float, faAt, { array: true, compressed: true }) });
  attr('da', 'double[]', { default: R(TYPE.Double, daAt, { array: true, compressed: true }) });
  attr('ia', 'int[]', { default: R(TYPE.Int, iaAt, { array: true, compressed: true }) });
  attr('ta', 'token[]', { default: R(TYPE.Token, taAt, { array: true }) });
  attr('empty', 'float[]', { default: R(TYPE.Float, 0, { array: true }) });
  attr('flag', 'bool', { default: R(TYPE.Bool, 1, { inline: true }) });
  attr('tex', 'asset', { default: R(TYPE.AssetPath, w.token('./t.png'), { inline: true }) });
  w.spec('/Root.rel', 8, { targetPaths: R(TYPE.PathListOp, plopAt) });
  w.spec('/Root{color=red}', 10, {});
  w.spec('/Root{color=red}.shade', 1, {
    typeName: R(TYPE.Token, w.token('float'), { inline: true }),
    default: R(TYPE.Float, new DataView(new Float32Array([3]).buffer).getUint32(0, true), { inline: true }),
  });
  const bytes = w.finish();

  it('decodes layer metadata, prim metadata and every value kind', () => {
    const L = parseCrate(bytes, 'synthetic.usdc');
    expect(L.info).toMatchObject({ defaultPrim: 'Root', upAxis: 'Z' });
    expect(L.info.metersPerUnit).toBeCloseTo(0.01, 9);
    const cld = L.meta.get('customLayerData') as UsdDict;
    expect(cld.get('a')).toBe(5);
    expect(cld.get('s')).toBe('hello');
    const root = L.primAt('/Root')!;
    expect(root.specifier).toBe('def');
    expect(root.typeName).toBe('Xform');
    expect(root.children.map((c) => c.name)).toEqual(['Child']);
    expect(L.primAt('/Root/Child')!.specifier).toBe('over');
    const api = root.listOp('apiSchemas')!;
    expect(api.prepend).toEqual(['PhysicsRigidBodyAPI']);
    expect(api.delete).toEqual(['Gone']);
    expect(root.listOp('references')!.prepend[0]).toMatchObject({
      assetPath: './lib.usd',
      primPath: '/Lib/X',
    });
    const pay = root.listOp('payload')!;
    expect(pay.isExplicit).toBe(true);
    expect(pay.explicit[0]).toMatchObject({ assetPath: './payload.usda', primPath: '/P' });
    expect(root.listOp('inherits')!.explicit).toEqual(['/Root/Child']);
    expect((root.meta.get('variants') as UsdDict).get('color')).toBe('red');
    expect(root.meta.get('instanceable')).toBe(true);
    const v = (n: string) => root.props.get(n)!.value;
    expect(v('i64')).toBe(5_000_000_000);
    expect(v('h')).toBe(1.5);
    expect(v('v3d')).toEqual([1, -2, 3]);
    expect(root.props.get('v3d')!.variability).toBe('uniform');
    expect(v('v3f')).toEqual([0.5, 1.5, -2.25]);
    expect(v('qd')).toEqual([0.8, 0, 0, 0.6]); // (w, x, y, z)
    expect(v('mdiag')).toEqual([2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 1]);
    expect((v('m') as number[])[12]).toBe(7);
    expect(root.props.get('ts')!.value).toBeUndefined();
    expect(root.props.get('ts')!.firstSample).toBe(20); // the sample at the earliest time
    expect(Array.from((v('fa') as NumArray).data)).toEqual(Array.from({ length: 20 }, (_, i) => i * 3 - 7));
    expect(Array.from((v('da') as NumArray).data)).toEqual(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? -1.5 : 0.25)),
    );
    expect(Array.from((v('ia') as NumArray).data)).toEqual(
      Array.from({ length: 20 }, (_, i) => 1000 - i * i),
    );
    expect((v('ta') as UsdList).items).toEqual(['x', 'y']);
    expect((v('empty') as NumArray).length).toBe(0);
    expect(v('flag')).toBe(true);
    expect((v('tex') as AssetPath).path).toBe('./t.png');
    expect(root.props.get('rel')!.kind).toBe('relationship');
    expect(root.props.get('rel')!.targets!.explicit).toEqual(['/Root/Child']);
    expect(root.variantSets.get('color')!.get('red')!.props.get('shade')!.value).toBe(3);
  });
});
