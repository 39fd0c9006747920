/**
 * Bounded memory on every input (SPEC §11): the three hostile files measured at 0.6–1.1 GB (a USDZ
 * whose two entries share one deflate stream, a 50 MB MJCF attribute, a 40 MB OBJ line) now end in a
 * typed, located error under 200 MiB of peak memory, each run in a process of its own
 * (`bounded_input_cases.ts`); and the limits behind them (zip directory checks, XML value length,
 * line length, polygon size, USDA token length, YAML depth, UTF-16/32 text) each refuse with the
 * limit's name and the place.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Inflate, strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DropError, unzipInto } from '../../app/files';
import { ImportError, MeshError, OutsideAssetError, XmlSyntaxError } from './assets/errors';
import { decodeText } from './assets/resolver';
import { MemoryResolver } from './assets/resolvers';
import { deflatedText, zipOf } from './bounded_input_cases';
import { loadModelAsset } from './import';
import { LIMITS } from './limits';
import { parseMeshBytes, parseObj } from './mesh';
import { SceneSyntaxError } from './scene/errors';
import { parseSceneText } from './scene/load';
import { yamlDepthExcess } from './scene/yaml_depth';
import { parseUsda, readUsdz, UsdError } from './usd';
import { parseLayerBytes } from './usd/compose';
import { parseXml } from './xml/xml';
import { ZipError, listZip } from './zip';

const MiB = 1024 * 1024;
const root = path.resolve(__dirname, '../..');

/** runs one case of bounded_input_cases.ts in a fresh process: its outcome and peak memory */
function measure(name: string): { peak_mib: number; outcome: string; name: string; message: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'engine/io/bounded_input_cases.ts', name], {
    cwd: root,
    encoding: 'utf8',
    timeout: 240_000,
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

/** the error `fn` throws (fails the test when it returns) */
async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}

describe('peak memory of the measured hostile inputs (a process each)', () => {
  it('the harness measures what a case holds (300 MiB held reads as 300 MiB)', () => {
    const r = measure('control_300mib');
    expect(r.outcome).toBe('loaded');
    expect(r.peak_mib).toBeGreaterThan(280);
  });

  it('a USDZ whose two entries share one deflate stream: refused before inflating', () => {
    const r = measure('usdz_shared_stream');
    expect(r.outcome).toBe('refused');
    expect(r.name).toBe('UsdError');
    expect(r.message).toMatch(/^shared\.usdz@0: entry 'b\.usda' overlaps entry 'a\.usda'/);
    expect(r.peak_mib).toBeLessThan(200);
  });

  it('a 50 MB MJCF attribute: refused at its line and column', () => {
    const r = measure('mjcf_attribute');
    expect(r.outcome).toBe('refused');
    expect(r.name).toBe('XmlSyntaxError');
    expect(r.message).toMatch(/^long\.xml:1:39: an attribute value of \d+ characters .*max_xml_value_chars/);
    expect(r.peak_mib).toBeLessThan(200);
  });

  it('a 40 MB OBJ line: refused at its line', () => {
    const r = measure('obj_line');
    expect(r.outcome).toBe('refused');
    expect(r.name).toBe('MeshError');
    expect(r.message).toMatch(/^long\.obj:4:1: line of \d+ characters exceeds max_line_chars = 1048576/);
    expect(r.peak_mib).toBeLessThan(200);
  });
});

describe('zip archives: sizes checked from the central directory before inflating', () => {
  const tiny = strToU8('#usda 1.0\n');

  it('the shared stream is a real one: it inflates to the size its entries declare, at a ratio under the bound (16 MiB of the 200)', async () => {
    const stream = deflatedText(16);
    const ratio = (16 * MiB) / stream.length;
    expect(ratio).toBeGreaterThan(100);
    expect(ratio).toBeLessThan(LIMITS.max_compression_ratio);
    // inflated as a stream (nothing held): exactly the size the entries declare
    let inflated = 0;
    new Inflate((chunk) => (inflated += chunk.length)).push(stream, true);
    expect(inflated).toBe(16 * MiB);
    // listing accepts one such entry; only the second, overlapping one is refused
    const one = zipOf([{ name: 'a.usda', data: stream, method: 8, size: 16 * MiB }]);
    expect(listZip(one, 'one.usdz').map((e) => e.name)).toEqual(['a.usda']);
    const two = zipOf([
      { name: 'a.usda', data: stream, method: 8, size: 16 * MiB },
      { name: 'b.usda', data: tiny, method: 8, size: 16 * MiB, at: 0 },
    ]);
    const e = (await thrown(() => readUsdz(two, 'two.usdz'))) as UsdError;
    expect(e).toBeInstanceOf(UsdError);
    expect(e.kind).toBe('zip');
    expect(e.message).toMatch(/entry 'b\.usda' overlaps entry 'a\.usda'/);
  });

  it('each limit names the entry: entry size, total size, ratio; a listing without them passes', () => {
    const over = (entries: Parameters<typeof zipOf>[0], re: RegExp, entry: string) => {
      const e = (() => {
        try {
          listZip(zipOf(entries), 'x.zip');
        } catch (err) {
          return err;
        }
        throw new Error('expected a ZipError');
      })() as ZipError;
      expect(e).toBeInstanceOf(ZipError);
      expect(e).toBeInstanceOf(ImportError);
      expect(e.entry).toBe(entry);
      expect(e.message).toMatch(re);
    };
    // declared sizes only: nothing is inflated, so a 1 KiB stream may claim anything
    const k = new Uint8Array(1024 * 1024);
    over(
      [{ name: 'huge.usda', data: k, method: 8, size: LIMITS.max_entry_bytes + 1 }],
      /entry 'huge\.usda': inflated size of 268435457 bytes exceeds max_entry_bytes = 268435456/,
      'huge.usda',
    );
    over(
      [
        { name: 'a.usda', data: k, method: 8, size: 190 * MiB },
        { name: 'b.usda', data: k, method: 8, size: 190 * MiB },
        { name: 'c.usda', data: k, method: 8, size: 190 * MiB },
      ],
      /entry 'c\.usda': archive inflating to \d+ bytes or more exceeds max_decompressed_bytes/,
      'c.usda',
    );
    over(
      [{ name: 'bomb.usda', data: new Uint8Array(4096), method: 8, size: 10 * MiB }],
      /entry 'bomb\.usda': inflate ratio of 2560 .* exceeds max_compression_ratio = 200/,
      'bomb.usda',
    );
    over(
      [
        { name: 'a.usda', data: tiny, method: 0, size: tiny.length },
        { name: 'a.usda', data: tiny, method: 0, size: tiny.length },
      ],
      /entry 'a\.usda': listed twice/,
      'a.usda',
    );
    expect(
      listZip(
        zipOf([
          { name: 'a.usda', data: tiny, method: 0, size: tiny.length },
          { name: 'b.usda', data: tiny, method: 0, size: tiny.length },
        ]),
        'ok.zip',
      ).map((e) => [e.name, e.size]),
    ).toEqual([
      ['a.usda', tiny.length],
      ['b.usda', tiny.length],
    ]);
  });

  it("the studio's zip drops refuse overlapping entries too, before fflate inflates them", () => {
    const shared = zipOf([
      { name: 'a.urdf', data: tiny, method: 0, size: tiny.length },
      { name: 'b.urdf', data: tiny, method: 0, size: tiny.length, at: 0 },
    ]);
    expect(() => unzipInto('drop.zip', shared, new Map(), { bytes: 1e9 })).toThrow(DropError);
    expect(() => unzipInto('drop.zip', shared, new Map(), { bytes: 1e9 })).toThrow(
      /drop\.zip\/b\.urdf: entry 'b\.urdf' overlaps entry 'a\.urdf'/,
    );
    // an ordinary archive still unpacks
    const out = new Map<string, Uint8Array>();
    unzipInto('ok.zip', zipSync({ 'r/a.urdf': tiny }), out, { bytes: 1e9 });
    expect([...out.keys()]).toEqual(['r/a.urdf']);
  });
});

describe('text limits while parsing', () => {
  it('XML: an attribute value, a text run and a comment over max_xml_value_chars are refused where they start', () => {
    const max = 1000;
    const long = 'x'.repeat(max + 1);
    const at = (text: string) => {
      try {
        parseXml(text, { file: 'm.xml', maxValueChars: max });
      } catch (e) {
        expect(e).toBeInstanceOf(XmlSyntaxError);
        const x = e as XmlSyntaxError;
        return `${x.line}:${x.column} ${x.reason}`;
      }
      return 'parsed';
    };
    expect(at(`<a>\n  <b v="${long}"/></a>`)).toMatch(/^2:9 an attribute value of 1001 characters .*= 1000$/);
    expect(at(`<a>\n<b>${long}</b></a>`)).toMatch(/^2:4 a run of text of 1001 /);
    expect(at(`<a><!--${long}--></a>`)).toMatch(/^1:8 a comment of 1001 /);
    expect(at(`<a ${'n'.repeat(max + 5)}="1"/>`)).toMatch(/^1:1 a tag of 1001 /);
    // at the bound it parses, `>` inside a value included
    expect(at(`<a><b v="${'y'.repeat(max - 2)}>z"/>${'t'.repeat(max)}</a>`)).toBe('parsed');
  });

  it('OBJ: polygons over max_polygon_vertices are refused with their line; one at the bound loads', () => {
    const ring = (n: number) => {
      let s = '';
      for (let i = 0; i < n; i++) {
        const a = (2 * Math.PI * i) / n;
        s += `v ${Math.cos(a).toFixed(6)} ${Math.sin(a).toFixed(6)} 0\n`;
      }
      return s;
    };
    const n = LIMITS.max_polygon_vertices;
    const ok = `${ring(n)}f ${Array.from({ length: n }, (_, i) => i + 1).join(' ')}\n`;
    expect(parseObj(ok, 'ok.obj').triangles.length).toBe((n - 2) * 3);
    const big = `${ring(n + 1)}f ${Array.from({ length: n + 1 }, (_, i) => i + 1).join(' ')}\n`;
    const e = (() => {
      try {
        parseObj(big, 'big.obj');
      } catch (err) {
        return err as MeshError;
      }
      throw new Error('expected a MeshError');
    })();
    expect(e).toBeInstanceOf(MeshError);
    expect(e.line).toBe(n + 2);
    expect(e.reason).toBe(`polygon of ${n + 1} vertices exceeds max_polygon_vertices = ${n}`);
  });

  it('MTL and ASCII STL lines over max_line_chars are refused with their line', () => {
    const long = 'x'.repeat(LIMITS.max_line_chars + 1);
    expect(() => parseMeshBytes(strToU8(`solid s\nfacet ${long}\nendsolid`), 's.stl')).toThrow(
      /s\.stl:2:1: line of 1048583 characters exceeds max_line_chars/,
    );
  });

  it('USDA: a token over max_token_chars is refused at its start, escapes included', () => {
    const text = `#usda 1.0\ndef Xform "A" (\n    doc = "${'\\n'.repeat(600)}"\n)\n{\n}\n`;
    expect(parseUsda(text, 'ok.usda', { maxTokenChars: 2000 }).identifier).toBe('ok.usda');
    let e: unknown;
    try {
      parseUsda(text, 'long.usda', { maxTokenChars: 1000 });
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(UsdError);
    expect((e as UsdError).message).toMatch(
      /^long\.usda:3:11: a string of 10\d\d characters or more exceeds max_token_chars = 1000/,
    );
    expect(() =>
      parseUsda(`#usda 1.0\ndef Xform "${'a'.repeat(LIMITS.max_token_chars + 1)}" {\n}\n`, 'name.usda'),
    ).toThrow(/name\.usda:2:11: a string of \d+ characters or more exceeds max_token_chars = 1048576/);
  });

  it('YAML nested deeper than max_scene_depth is refused before the parser recurses', () => {
    const depth = (text: string) => {
      const t0 = performance.now();
      let e: unknown;
      try {
        parseSceneText(text, 's.yaml');
      } catch (err) {
        e = err;
      }
      expect(e).toBeInstanceOf(SceneSyntaxError);
      expect(performance.now() - t0).toBeLessThan(2000);
      return (e as SceneSyntaxError).message;
    };
    // 200,000 open brackets: the yaml package's composer overflowed its stack after seconds
    expect(depth(`a: ${'['.repeat(200_000)}${']'.repeat(200_000)}`)).toMatch(
      /s\.yaml:1:\d+: YAML text nesting 67 collections deep exceeds max_scene_depth = 64/,
    );
    expect(depth(Array.from({ length: 900 }, (_, i) => `${' '.repeat(i)}k:`).join('\n'))).toMatch(
      /s\.yaml:67:67: YAML text nesting 67 collections deep/,
    );
    expect(depth(`${'- '.repeat(100)}1`)).toMatch(/YAML text nesting 67 collections deep/);
    // brackets inside quotes, comments and block scalars are text
    const text = `name: "${'['.repeat(100)}"\n# ${'{'.repeat(100)}\ndescription: |\n  ${'['.repeat(100)}\nbodies: [{a: [1]}]\n`;
    expect(yamlDepthExcess(text, 4)).toBeUndefined();
    expect(yamlDepthExcess(text, 3)).toEqual({ line: 5, column: 14, depth: 4 });
  });

  it('UTF-16 and UTF-32 text is refused with the reason (we read UTF-8)', async () => {
    const body = '<robot name="r"><link name="a"/></robot>';
    const le16 = new Uint8Array([0xff, 0xfe, ...[...body].flatMap((c) => [c.charCodeAt(0), 0])]);
    const be16 = new Uint8Array([0xfe, 0xff, ...[...body].flatMap((c) => [0, c.charCodeAt(0)])]);
    const le32 = new Uint8Array([0xff, 0xfe, 0, 0, ...[...body].flatMap((c) => [c.charCodeAt(0), 0, 0, 0])]);
    const be32 = new Uint8Array([0, 0, 0xfe, 0xff, ...[...body].flatMap((c) => [0, 0, 0, c.charCodeAt(0)])]);
    for (const [bytes, enc] of [
      [le16, 'UTF-16 LE'],
      [be16, 'UTF-16 BE'],
      [le32, 'UTF-32 LE'],
      [be32, 'UTF-32 BE'],
    ] as const) {
      expect(() => decodeText(bytes, 'r.urdf')).toThrow(
        `r.urdf:1:1: ${enc} text (its byte-order mark says so): text files are read as UTF-8, save it as UTF-8`,
      );
      const e = await thrown(() =>
        loadModelAsset('urdf', { path: 'r.urdf' }, { resolver: new MemoryResolver({ 'r.urdf': bytes }) }),
      );
      expect(e).toBeInstanceOf(ImportError);
      expect((e as ImportError).reason).toMatch(new RegExp(`^${enc} text`));
      expect(() => parseLayerBytes(bytes, 'l.usda')).toThrow(new RegExp(`l\\.usda@0: ${enc} text`));
    }
    // a UTF-8 byte-order mark is fine
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]), 'a.txt')).toBe('a');
  });
});

describe("the studio's memory resolver cannot climb out of the dropped files", () => {
  it('a reference above the drop is an OutsideAssetError naming the file and the reference', () => {
    const r = new MemoryResolver({ 'robot/urdf/r.urdf': '<robot/>', 'robot/meshes/a.stl': 'solid' });
    expect(r.resolve('robot/urdf/r.urdf', '../meshes/a.stl')).toBe('robot/meshes/a.stl');
    expect(r.resolve('robot/urdf/r.urdf', '/robot/meshes/a.stl')).toBe('/robot/meshes/a.stl');
    let e: unknown;
    try {
      r.resolve('robot/urdf/r.urdf', '../../../etc/passwd');
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(OutsideAssetError);
    expect((e as OutsideAssetError).file).toBe('robot/urdf/r.urdf');
    expect((e as OutsideAssetError).ref).toBe('../../../etc/passwd');
    expect((e as Error).message).toMatch(/only the dropped files can be read/);
  });
});
