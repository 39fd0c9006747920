/**
 * Security properties of the input surfaces (SPEC §8, §11): prototype-pollution-safe parsing of scenes,
 * XML, USD, links and protocol messages, and limits that name themselves in their errors.
 */
import { readFileSync } from 'node:fs';
import { deflateSync, strToU8, zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { LinkError, decodeLink } from '../../../app/link';
import { DropError, unzipInto } from '../../../app/files';
import { loadAnyFile } from '../../worker/load_any';
import { PROTOCOL_VERSION, type WorkerEvent } from '../../worker/protocol';
import { SimHost } from '../../worker/sim_host';
import { MemoryResolver } from '../assets/resolvers';
import { LIMITS, limitsTable } from '../limits';
import { parseMeshBytes } from '../mesh';
import { SceneError } from '../scene/errors';
import { loadScene, parseSceneText } from '../scene/load';
import { openStage, readUsdz } from '../usd';
import { parseXml } from '../xml/xml';

const enc = new TextEncoder();
const boxAtRest = readFileSync(new URL('../../../scenes/box_at_rest.yaml', import.meta.url), 'utf8');

/** Object.prototype, Array.prototype and friends are exactly as they were */
const PROTOS = [Object.prototype, Array.prototype, Function.prototype, String.prototype];
const before = PROTOS.map((p) => Reflect.ownKeys(p).length);
function expectClean(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  expect(PROTOS.map((p) => Reflect.ownKeys(p).length)).toEqual(before);
}
afterEach(() => {
  for (const p of PROTOS) {
    delete (p as Record<string, unknown>).polluted;
    delete (p as Record<string, unknown>).isAdmin;
  }
});

function sceneError(fn: () => unknown): SceneError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SceneError);
    return e as SceneError;
  }
  throw new Error('expected a SceneError');
}

describe('prototype pollution', () => {
  const yamlAttacks = [
    '__proto__:\n  polluted: 1\n',
    'constructor:\n  prototype:\n    polluted: 1\n',
    'bodies:\n  - id: a\n    __proto__: {polluted: 1}\n',
    'simulation:\n  solver:\n    __proto__: {isAdmin: true}\n',
    '<<: {__proto__: {polluted: 1}}\n',
  ];
  for (const attack of yamlAttacks) {
    it(`YAML scene: ${JSON.stringify(attack.split('\n')[0])}`, () => {
      const e = sceneError(() => loadScene(parseSceneText(`schema_version: 1\n${attack}`, 'p.yaml')));
      // an unknown key, reported at its key path and line
      expect(e.message).toMatch(/__proto__|constructor|<</);
      expect(e.line).toBeGreaterThan(0);
      expectClean();
    });
  }

  it('JSON scene', () => {
    for (const attack of [
      '{"schema_version": 1, "__proto__": {"polluted": 1}}',
      '{"schema_version": 1, "constructor": {"prototype": {"polluted": 1}}}',
      '{"schema_version": 1, "bodies": [{"id": "a", "__proto__": {"polluted": 1}}]}',
    ]) {
      const e = sceneError(() => loadScene(parseSceneText(attack, 'p.json')));
      expect(e.message).toMatch(/unknown key '(__proto__|constructor)'/);
      expect(e.line).toBe(1);
      expectClean();
    }
  });

  it('XML attributes named __proto__ or constructor stay plain attributes', () => {
    const el = parseXml('<robot __proto__="x" constructor="y" name="r"><link name="a"/></robot>');
    expect(el.attrs.__proto__).toBe('x');
    expect(el.attrs.constructor).toBe('y');
    expect(el.attrs.toString).toBeUndefined();
    expectClean();
  });

  it('URDF, MJCF and USDA files with prototype keys load or fail cleanly', async () => {
    const files = new Map([
      [
        'a.urdf',
        enc.encode('<robot name="__proto__"><link name="constructor"/><link name="__proto__"/></robot>'),
      ],
      [
        'b.xml',
        enc.encode(
          '<mujoco><default class="__proto__"/><worldbody><body name="constructor"><geom size="0.1"/></body></worldbody></mujoco>',
        ),
      ],
      [
        'c.usda',
        enc.encode(
          '#usda 1.0\n(\n  customLayerData = { dictionary __proto__ = { int polluted = 1 } }\n)\ndef Xform "__proto__" {}\n',
        ),
      ],
    ]);
    for (const entry of files.keys()) {
      await loadAnyFile(files, entry).catch((e: Error) => expect(e.name).toBe('LoadError'));
      expectClean();
    }
  });

  it('links: unknown keys are refused, by key path', () => {
    const link = (json: string) => Buffer.from(deflateSync(strToU8(json))).toString('base64url');
    const cases: [string, RegExp][] = [
      [
        '{"__proto__": {"polluted": 1}, "v": 1, "scene": {"kind": "catalog", "id": "box_stack"}}',
        /__proto__/,
      ],
      ['{"v": 1, "scene": {"kind": "catalog", "id": "box_stack", "__proto__": {"polluted": 1}}}', /scene/],
      ['{"v": 1, "scene": {"kind": "catalog", "id": "box_stack"}, "options": {"__proto__": 1}}', /options/],
      [
        '{"v": 1, "constructor": {"prototype": {"polluted": 1}}, "scene": {"kind": "catalog", "id": "x"}}',
        /constructor/,
      ],
    ];
    for (const [json, path] of cases) {
      let err: unknown;
      try {
        decodeLink(link(json));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(LinkError);
      expect((err as LinkError).path).toMatch(path);
      expectClean();
    }
  });

  it('protocol messages: refused or ignored, never merged into prototypes', async () => {
    const events: WorkerEvent[] = [];
    const h = new SimHost((e) => events.push(e));
    const v = PROTOCOL_VERSION;
    h.handle({ v, type: 'load_scene', source: { kind: 'text', text: boxAtRest, file_name: 'b.yaml' } });
    await h.idle();
    const explicit = h.optionsInfo().explicit;
    for (const options of [
      JSON.parse('{"__proto__": {"polluted": 1}}'),
      JSON.parse('{"__proto__": "x"}'),
      JSON.parse('{"constructor": "y"}'),
      JSON.parse('{"prototype": 1}'),
    ]) {
      h.handle({ v, type: 'set_options', options });
      await h.idle();
      const last = events.filter((e) => e.type === 'error').at(-1);
      expect(last && last.type === 'error' && last.error.code).toMatch(/protocol|options/);
      expectClean();
    }
    h.handle(JSON.parse('{"v": 2, "type": "play", "__proto__": {"polluted": 1}}'));
    h.handle({ v, type: 'set_sim', ...JSON.parse('{"constructor": {"prototype": {"polluted": 1}}}') });
    await h.idle();
    expectClean();
    expect(h.optionsInfo().explicit).toEqual(explicit);
  });
});

describe('limits name themselves', () => {
  it('one table of limits', () => {
    const names = limitsTable().map(([k]) => k);
    for (const k of [
      'max_upload_bytes',
      'max_archive_bytes',
      'max_archive_entries',
      'max_compression_ratio',
      'max_mesh_triangles',
      'max_mesh_vertices',
      'max_xml_depth',
      'max_xml_entity_expansions',
      'max_link_chars',
      'max_link_json_bytes',
    ]) {
      expect(names).toContain(k);
    }
  });

  it('XML depth, elements and entity expansion', () => {
    const deep = '<a>'.repeat(LIMITS.max_xml_depth + 1) + '</a>'.repeat(LIMITS.max_xml_depth + 1);
    expect(() => parseXml(deep)).toThrow(/max_xml_depth = 256/);
    expect(() => parseXml('<!DOCTYPE r [<!ENTITY a "x">]><r>&a;</r>')).toThrow(
      /max_xml_entity_expansions = 0/,
    );
  });

  it('mesh triangle and vertex counts', () => {
    const stl = new Uint8Array(84 + 50);
    new DataView(stl.buffer).setUint32(80, LIMITS.max_mesh_triangles + 1, true);
    // a header count that does not match the size is not binary; one that does is checked by the limit
    const big = new Uint8Array(84);
    new DataView(big.buffer).setUint32(80, 0xffffffff, true);
    expect(() => parseMeshBytes(stl, 'a.stl')).toThrow(/not an STL file|max_mesh_triangles/);
    const verts = 'v 0 0 0\n'.repeat(LIMITS.max_mesh_vertices + 1);
    expect(() => parseMeshBytes(enc.encode(verts), 'a.obj')).toThrow(/exceeds max_mesh_vertices = 1000000/);
  });

  it('USDZ archive size, entries and decompression ratio', async () => {
    const entries: Record<string, Uint8Array> = {};
    for (let i = 0; i <= LIMITS.max_archive_entries; i++) entries[`e${i}.usda`] = enc.encode('#usda 1.0\n');
    const many = zipSync(entries, { level: 0 });
    await expect(readUsdz(many, 'many.usdz')).rejects.toThrow(/exceeds max_archive_entries = 4096/);
    const bomb = zipSync({ 'a.usda': [new Uint8Array(8 * 1024 * 1024).fill(32), { level: 9 }] });
    await expect(readUsdz(bomb, 'bomb.usdz')).rejects.toThrow(/exceeds max_compression_ratio = 200/);
    const r = new MemoryResolver({ 'bomb.usdz': bomb });
    await expect(openStage('bomb.usdz', r)).rejects.toThrow(/bomb\.usdz@\d+/); // with the byte offset
  });

  it('zip drops and link payloads', () => {
    const bomb = zipSync({ 'a.yaml': [new Uint8Array(16 * 1024 * 1024), { level: 9 }] });
    expect(() => unzipInto('a.zip', bomb, new Map(), { bytes: 1e9 })).toThrow(DropError);
    expect(() => decodeLink('A'.repeat(LIMITS.max_link_chars + 1))).toThrow(/exceeds max_link_chars = 98304/);
    const inflating = Buffer.from(deflateSync(new Uint8Array(4 * 1024 * 1024), { level: 9 })).toString(
      'base64url',
    );
    expect(() => decodeLink(inflating)).toThrow(/exceeds max_link_json_bytes = 1048576/);
  });

  it('scene size, nesting and counts', () => {
    expect(() => parseSceneText('a: 1\n' + '#'.repeat(LIMITS.max_yaml_chars), 's.yaml')).toThrow(
      /exceeds max_yaml_chars = 524288/,
    );
    const deep = `{"bodies": ${'['.repeat(100)}${']'.repeat(100)}}`;
    expect(() => parseSceneText(deep, 's.json')).toThrow(/exceeds max_scene_depth = 64/);
    const bodies = Array.from({ length: LIMITS.max_bodies + 1 }, (_, i) => ({ id: `b${i}` }));
    const e = sceneError(() => parseSceneText(JSON.stringify({ schema_version: 1, bodies }), 's.json'));
    expect(e.message).toMatch(/^s\.json:1:\d+: bodies: a list of 4097 entries exceeds max_bodies = 4096/);
  });
});
