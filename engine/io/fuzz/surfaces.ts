/**
 * The fuzzed input surfaces: for each, a corpus of real models read in place from `../shared`
 * (never copied into the repository) and the built-in scenes, and a generator that turns
 * (corpus, rng) into one input — a mutation of a corpus file, a structural attack (deep nesting,
 * entity/alias bombs, huge counts, prototype keys) or generated garbage.
 *
 * An input is a file map + entry (what a drop or a `load_scene` command carries), a link payload
 * string, or a worker protocol message. The targets that consume them live next to the code they
 * exercise (`engine/worker/fuzz_targets.ts`, `app/link_fuzz_target.ts`).
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync, zipSync, strToU8 } from 'fflate';
import { parse as parseYaml } from 'yaml';
import {
  BAD_NUMBERS,
  decoder,
  encoder,
  garbageText,
  mutateBytes,
  mutateText,
  nest,
  type TextMutator,
} from './mutate';
import { Rng } from './rng';
import { PNG, PREVIEW_MATERIAL, STRIP } from '../usd/testing';

const here = path.dirname(fileURLToPath(import.meta.url));
/** the repository root */
export const REPO = path.resolve(here, '../../..');
/** the shared development assets (read in place) */
export const SHARED = path.resolve(REPO, '../shared');
const ASSETS = path.join(SHARED, 'assets');
const SAP = path.join(SHARED, 'reference/sap_warp');
const SAP_ASSETS = path.join(SAP, 'assets');

export type FuzzInput =
  | { kind: 'files'; files: Map<string, Uint8Array>; entry: string }
  | { kind: 'link'; payload: string }
  | { kind: 'command'; message: unknown };

export interface FuzzCase {
  desc: string;
  input: FuzzInput;
}

/** one corpus entry of a file surface: the file to mutate and the files it needs beside it */
interface FileSeed {
  name: string;
  entry: string;
  main: Uint8Array;
  siblings: Map<string, Uint8Array>;
}

export interface Surface {
  name: string;
  /** which target consumes the inputs */
  target: 'files' | 'link' | 'command';
  /** builds one input from the rng (the corpus is loaded once, lazily) */
  make(rng: Rng): FuzzCase;
  /** number of corpus files (for the report) */
  corpusSize(): number;
}

const read = (p: string): Uint8Array => new Uint8Array(readFileSync(p));

function fileSeed(name: string, entry: string, absMain: string, siblings: [string, string][] = []): FileSeed {
  const sib = new Map<string, Uint8Array>();
  for (const [rel, abs] of siblings) if (existsSync(abs)) sib.set(rel, read(abs));
  return { name, entry, main: read(absMain), siblings: sib };
}

function lazy<T>(fn: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= fn());
}

function filesCase(seed: FileSeed, main: Uint8Array, desc: string, entry = seed.entry): FuzzCase {
  const files = new Map(seed.siblings);
  files.set(entry, main);
  return { desc: `${seed.name}: ${desc}`, input: { kind: 'files', files, entry } };
}

/** a mutation of a text file: text mutators most of the time, byte mutators (invalid UTF-8 …) sometimes */
function mutateSeedText(seed: FileSeed, rng: Rng, extra: Record<string, TextMutator>): FuzzCase {
  if (rng.chance(0.15)) {
    const { bytes, ops } = mutateBytes(seed.main, rng);
    return filesCase(seed, bytes, ops.join('+'));
  }
  const { text, ops } = mutateText(decoder.decode(seed.main), rng, extra);
  return filesCase(seed, encoder.encode(text), ops.join('+'));
}

/** the surface generator: corpus mutations, structural attacks, garbage, in fixed proportions */
function fileSurface(
  name: string,
  corpus: () => FileSeed[],
  opts: {
    text: boolean;
    extra?: Record<string, TextMutator>;
    attacks?: Record<string, (rng: Rng, seed: FileSeed) => FuzzCase>;
    alphabet?: readonly string[];
    garbageEntry: string;
  },
): Surface {
  return {
    name,
    target: 'files',
    corpusSize: () => corpus().length,
    make(rng) {
      const seeds = corpus();
      const seed = rng.pick(seeds);
      const r = rng.float();
      const attacks = opts.attacks ? Object.entries(opts.attacks) : [];
      if (attacks.length && r < 0.12) {
        const [an, fn] = rng.pick(attacks);
        const c = fn(rng, seed);
        return { ...c, desc: `${c.desc} [${an}]` };
      }
      if (r < 0.17) {
        const data =
          opts.alphabet && rng.chance(0.6)
            ? encoder.encode(garbageText(rng, opts.alphabet))
            : rng.bytes(rng.skewed(4096));
        return {
          desc: `garbage ${data.length} bytes`,
          input: { kind: 'files', files: new Map([[opts.garbageEntry, data]]), entry: opts.garbageEntry },
        };
      }
      if (opts.text) return mutateSeedText(seed, rng, opts.extra ?? {});
      const other = rng.pick(seeds).main;
      const { bytes, ops } = mutateBytes(seed.main, rng, other);
      return filesCase(seed, bytes, ops.join('+'));
    },
  };
}

// ------------------------------------------------------------------------------------------ scenes

const PROTO_YAML = [
  '__proto__:\n  polluted: 1\n',
  'constructor:\n  prototype:\n    polluted: 1\n',
  '__proto__: {polluted: 1}\n',
  'prototype: {polluted: 1}\n',
];

const yamlAttacks: Record<string, (rng: Rng, seed: FileSeed) => FuzzCase> = {
  alias_bomb(rng, seed) {
    const width = rng.range(8, 12);
    let s = `a0: &a0 [${Array(width).fill('"xxxxxxxx"').join(', ')}]\n`;
    for (let i = 1; i < rng.range(6, 10); i++)
      s += `a${i}: &a${i} [${Array(width)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`;
    return filesCase(seed, encoder.encode(s + decoder.decode(seed.main)), 'alias bomb');
  },
  deep_flow(rng, seed) {
    const d = rng.pick([200, 1000, 5000, 20000]);
    return filesCase(seed, encoder.encode(`bodies: ${nest('[', ']', d, '1')}\n`), `flow nesting ${d}`);
  },
  deep_block(rng, seed) {
    const d = rng.pick([100, 500, 2000]);
    let s = 'schema_version: 1\nbuilder:\n';
    for (let i = 0; i < d; i++) s += `${' '.repeat(2 * (i + 1))}k${i}:\n`;
    return filesCase(seed, encoder.encode(s), `block nesting ${d}`);
  },
  proto_keys(rng, seed) {
    const text = decoder.decode(seed.main);
    const lines = text.split('\n');
    const at = rng.int(lines.length + 1);
    // at the top level, and inside a nested map where the scene has one
    const ins = rng.pick(PROTO_YAML);
    const indent = (lines[at] ?? '').match(/^\s*/)?.[0] ?? '';
    lines.splice(
      at,
      0,
      ...ins
        .trimEnd()
        .split('\n')
        .map((l) => indent + l),
    );
    return filesCase(seed, encoder.encode(lines.join('\n')), 'prototype keys');
  },
  huge_counts(rng, seed) {
    const key = rng.pick(['num_worlds', 'max_rigid_contact']);
    const v = rng.pick(['1000000000', '65536', '4096', '100000', '2147483647', '1e12']);
    const text = decoder.decode(seed.main);
    const s = /simulation:/.test(text)
      ? text.replace(/simulation:\n/, `simulation:\n  ${key}: ${v}\n`)
      : `simulation:\n  ${key}: ${v}\n${text}`;
    return filesCase(
      seed,
      encoder.encode(s.replace(/(\n\s*(num_worlds|max_rigid_contact):.*)+/, `$&`)),
      `${key}=${v}`,
    );
  },
  many_bodies(rng, seed) {
    const n = rng.pick([1000, 5000, 20000]);
    let s = 'schema_version: 1\nname: many\nbodies:\n';
    for (let i = 0; i < n; i++)
      s += `  - {id: b${i}, transform: {p: [${i % 100}, ${Math.floor(i / 100)}, 1]}, shapes: [{type: sphere, radius: 0.1}]}\n`;
    return filesCase(seed, encoder.encode(s), `${n} bodies`);
  },
  long_string(rng, seed) {
    const n = rng.pick([1e5, 1e6, 8e6 + 10]);
    return filesCase(seed, encoder.encode(`schema_version: 1\nname: "${'x'.repeat(n)}"\n`), `string ${n}`);
  },
  expr(rng, seed) {
    const e = rng.pick([
      nest('(', ')', 5000, 'pi'),
      'pi' + '*pi'.repeat(2000),
      '1/0',
      '-1/0',
      '0/0',
      'constructor',
      '__proto__',
      'pi.constructor',
      "pi['x']",
      'this',
      'process.exit(1)',
    ]);
    const text = decoder.decode(seed.main).replace(/(:\s*)(-?\d+\.?\d*)/, `$1"${e}"`);
    return filesCase(seed, encoder.encode(text), `expression ${e.slice(0, 20)}`);
  },
};

const YAML_ALPHABET = [
  'a',
  'b',
  ':',
  ' ',
  '\n',
  '  ',
  '- ',
  '[',
  ']',
  '{',
  '}',
  ',',
  '&a',
  '*a',
  '!!',
  '|',
  '>',
  '#',
  '"',
  "'",
  '1',
  '0.5',
  '-',
  'bodies',
  'shapes',
  'type',
  'box',
  'joints',
  'id',
  'schema_version',
  '?',
  '%YAML',
  '---',
  '...',
];

export const sceneCorpus = lazy((): FileSeed[] => {
  const out: FileSeed[] = [];
  const dir = path.join(REPO, 'scenes');
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith('.yaml') || f.startsWith('pile_1000')) continue;
    out.push(fileSeed(f, f, path.join(dir, f)));
  }
  for (const f of ['free_cube.yaml', 'multi_joints.yaml', 'basic_cartpole_usd.yaml']) {
    out.push(fileSeed(`sap_warp/${f}`, f, path.join(SAP, 'scenes', f)));
  }
  // a scene with a git-sourced USD asset, the asset given beside it as a drop would
  const ant = path.join(SAP_ASSETS, 'newton/newton/examples/assets/ant.usda');
  out.push(
    fileSeed(
      'sap_warp/basic_ant_usd.yaml',
      'basic_ant_usd.yaml',
      path.join(SAP, 'scenes/basic_ant_usd.yaml'),
      [['newton/newton/examples/assets/ant.usda', ant]],
    ),
  );
  return out;
});

const jsonCorpus = lazy((): FileSeed[] =>
  sceneCorpus().map((s) => ({
    ...s,
    name: s.name.replace(/\.ya?ml$/, '.json'),
    entry: s.entry.replace(/\.ya?ml$/, '.json'),
    main: encoder.encode(JSON.stringify(parseYaml(decoder.decode(s.main)), null, rngIndent(s.name))),
  })),
);
function rngIndent(name: string): number {
  return name.length % 3;
}

const jsonAttacks: Record<string, (rng: Rng, seed: FileSeed) => FuzzCase> = {
  deep(rng, seed) {
    const d = rng.pick([500, 5000, 50000]);
    return filesCase(seed, encoder.encode(`{"bodies": ${nest('[', ']', d)}}`), `array nesting ${d}`);
  },
  deep_objects(rng, seed) {
    const d = rng.pick([500, 5000]);
    return filesCase(seed, encoder.encode(nest('{"a":', '}', d, '1')), `object nesting ${d}`);
  },
  proto(rng, seed) {
    const doc = JSON.parse(decoder.decode(seed.main)) as Record<string, unknown>;
    const text = JSON.stringify(doc);
    const key = rng.pick(['"__proto__"', '"constructor"', '"prototype"']);
    const inj = `${key}: {"polluted": 1, "prototype": {"polluted": 1}}, `;
    // top level or inside the first nested object
    const at = rng.chance(0.5) ? 1 : Math.max(1, text.indexOf('{', 1) + 1);
    return filesCase(seed, encoder.encode(text.slice(0, at) + inj + text.slice(at)), `${key} key`);
  },
  huge_array(rng, seed) {
    const n = rng.pick([1e5, 1e6]);
    return filesCase(
      seed,
      encoder.encode(`{"schema_version": 1, "bodies": [${Array(n).fill('{}').join(',')}]}`),
      `array ${n}`,
    );
  },
  numbers(rng, seed) {
    const text = decoder
      .decode(seed.main)
      .replace(/-?\d+\.?\d*(e[+-]?\d+)?/gi, () =>
        rng.chance(0.1)
          ? rng.pick(['1e308', '-1e308', '1e999', '-0', '1e-400', '123456789012345678901234567890'])
          : '$&',
      );
    return filesCase(seed, encoder.encode(text), 'numbers');
  },
};

// ------------------------------------------------------------------------------------------ XML

const xmlAttacks = (root: 'robot' | 'mujoco'): Record<string, (rng: Rng, seed: FileSeed) => FuzzCase> => ({
  deep(rng, seed) {
    const d = rng.pick([300, 3000, 30000]);
    const inner = root === 'robot' ? nest('<link name="a">', '</link>', d) : nest('<body>', '</body>', d);
    const wrap =
      root === 'robot'
        ? `<robot name="r">${inner}</robot>`
        : `<mujoco><worldbody>${inner}</worldbody></mujoco>`;
    return filesCase(seed, encoder.encode(wrap), `element nesting ${d}`);
  },
  entity_bomb(_rng, seed) {
    let dtd = '<!DOCTYPE r [<!ENTITY a0 "xxxxxxxxxx">';
    for (let i = 1; i < 10; i++) dtd += `<!ENTITY a${i} "${`&a${i - 1};`.repeat(10)}">`;
    dtd += ']>';
    return filesCase(seed, encoder.encode(`${dtd}<${root} name="&a9;"/>`), 'billion laughs');
  },
  external_entity(_rng, seed) {
    return filesCase(
      seed,
      encoder.encode(`<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><${root} name="&x;"/>`),
      'external entity',
    );
  },
  undeclared_entity(_rng, seed) {
    return filesCase(seed, encoder.encode(`<${root} name="&nope;&#0;&#xffffff;"/>`), 'bad entities');
  },
  many_elements(rng, seed) {
    const n = rng.pick([10000, 100000]);
    const el = root === 'robot' ? '<link name="l"/>' : '<body><geom size="0.1"/></body>';
    const text =
      root === 'robot'
        ? `<robot name="r">${el.repeat(n)}</robot>`
        : `<mujoco><worldbody>${el.repeat(n)}</worldbody></mujoco>`;
    return filesCase(seed, encoder.encode(text), `${n} elements`);
  },
  huge_attribute(rng, seed) {
    const n = rng.pick([1e5, 2e6]);
    return filesCase(seed, encoder.encode(`<${root} name="${'n'.repeat(n)}"/>`), `attribute ${n}`);
  },
  paths(rng, seed) {
    const p = rng.pick([
      '/etc/passwd',
      '../../../../../../etc/passwd',
      'file:///etc/passwd',
      'http://127.0.0.1:1/x.stl',
      'package://x/../../../etc/passwd',
      '',
      '.',
      'a'.repeat(5000),
    ]);
    const text = decoder.decode(seed.main).replace(/(filename|file)="[^"]*"/, `$1="${p}"`);
    return filesCase(seed, encoder.encode(text), `path ${p.slice(0, 30)}`);
  },
  self_include(_rng, seed) {
    const t = decoder.decode(seed.main);
    const s = t.replace(/<worldbody>/, `<include file="${seed.entry}"/><worldbody>`);
    return filesCase(seed, encoder.encode(s), 'self include');
  },
});

const XML_ALPHABET = [
  '<',
  '>',
  '</',
  '/>',
  ' ',
  '"',
  '=',
  'name',
  'link',
  'joint',
  'body',
  'geom',
  'robot',
  'mujoco',
  '<!--',
  '-->',
  '<![CDATA[',
  ']]>',
  '&amp;',
  '&',
  '1',
  '0.5',
  'type',
  'size',
  '\n',
  '<?xml version="1.0"?>',
];

const urdfCorpus = lazy((): FileSeed[] => {
  const fr3 = path.join(ASSETS, 'newton-assets/franka_emika_panda');
  const fr3Urdf = readFileSync(path.join(fr3, 'urdf/fr3_franka_hand.urdf'), 'utf8');
  // the collision meshes the URDF names, under the paths a package:// lookup finds in a drop
  const meshes: [string, string][] = [];
  for (const m of fr3Urdf.matchAll(/filename="package:\/\/([^"]+\.stl)"/gi)) {
    const rel = m[1].replace(/^[^/]+\//, '');
    meshes.push([`franka_emika_panda/${rel}`, path.join(fr3, rel)]);
  }
  return [
    fileSeed('cartpole.urdf', 'cartpole.urdf', path.join(ASSETS, 'newton/cartpole/cartpole.urdf')),
    fileSeed(
      'quadruped.urdf',
      'quadruped.urdf',
      path.join(SAP_ASSETS, 'newton/newton/examples/assets/quadruped.urdf'),
    ),
    fileSeed(
      'fr3_franka_hand.urdf',
      'franka_emika_panda/urdf/fr3_franka_hand.urdf',
      path.join(fr3, 'urdf/fr3_franka_hand.urdf'),
      meshes,
    ),
  ];
});

const mjcfCorpus = lazy((): FileSeed[] => {
  const ex = path.join(SAP_ASSETS, 'newton/newton/examples/assets');
  return [
    fileSeed('humanoid.xml', 'humanoid.xml', path.join(ASSETS, 'mujoco/humanoid/humanoid.xml')),
    fileSeed('nv_ant.xml', 'nv_ant.xml', path.join(ex, 'nv_ant.xml')),
    fileSeed('nv_humanoid.xml', 'nv_humanoid.xml', path.join(ex, 'nv_humanoid.xml')),
    fileSeed('tabletop.xml', 'tabletop.xml', path.join(ex, 'tabletop.xml')),
  ];
});

// ------------------------------------------------------------------------------------------ USD

const usdaAttacks: Record<string, (rng: Rng, seed: FileSeed) => FuzzCase> = {
  /** shader connections pointed elsewhere: at themselves, at missing prims, in loops */
  rewire(rng, seed) {
    const text = new TextDecoder().decode(seed.main);
    const targets = [...text.matchAll(/\.connect = <([^>]*)>/g)].map((m) => m[1]);
    const out = text.replace(/\.connect = <([^>]*)>/g, (m, own: string) =>
      rng.chance(0.5)
        ? `.connect = <${rng.pick([...targets, own, '/nowhere.outputs:rgb', '/Looks', '/Looks/Wood.inputs:stName'])}>`
        : m,
    );
    return filesCase(seed, encoder.encode(out), 'rewired connections');
  },
  deep_prims(rng, seed) {
    const d = rng.pick([300, 3000, 20000]);
    return filesCase(
      seed,
      encoder.encode(`#usda 1.0\n${nest('def Xform "a" {\n', '}\n', d)}`),
      `prim nesting ${d}`,
    );
  },
  deep_values(rng, seed) {
    const d = rng.pick([300, 5000, 50000]);
    return filesCase(
      seed,
      encoder.encode(`#usda 1.0\n(\n  customLayerData = ${nest('{ dictionary a = ', ' }', d, '{}')}\n)\n`),
      `dictionary nesting ${d}`,
    );
  },
  deep_tuple(rng, seed) {
    const d = rng.pick([300, 5000, 50000]);
    return filesCase(
      seed,
      encoder.encode(`#usda 1.0\ndef "a" { float3 x = ${nest('(', ')', d, '1')} }\n`),
      `tuple nesting ${d}`,
    );
  },
  self_sublayer(_rng, seed) {
    return filesCase(
      seed,
      encoder.encode(`#usda 1.0\n(\n  subLayers = [@./${seed.entry.split('/').pop()}@]\n)\n`),
      'self sublayer',
    );
  },
  self_reference(_rng, seed) {
    const t = decoder
      .decode(seed.main)
      .replace(/def (\w+ )?"(\w+)"/, `def $1"$2" (references = @./${seed.entry.split('/').pop()}@)`);
    return filesCase(seed, encoder.encode(t), 'self reference');
  },
  outside_paths(rng, seed) {
    const p = rng.pick([
      '/etc/passwd',
      '../../../../etc/passwd',
      'http://127.0.0.1:1/a.usda',
      'a'.repeat(5000),
      '',
    ]);
    return filesCase(
      seed,
      encoder.encode(`#usda 1.0\n(\n  subLayers = [@${p}@]\n)\ndef "x" (references = @${p}@</x>) {}\n`),
      `path ${p.slice(0, 20)}`,
    );
  },
  huge_array(rng, seed) {
    const n = rng.pick([1e5, 1e6]);
    return filesCase(
      seed,
      encoder.encode(
        `#usda 1.0\ndef Mesh "m" { point3f[] points = [${Array(n).fill('(1,2,3)').join(',')}] }\n`,
      ),
      `array ${n}`,
    );
  },
  numbers(rng, seed) {
    const text = decoder
      .decode(seed.main)
      .replace(/-?\d+\.?\d*(e[+-]?\d+)?/gi, (m) =>
        rng.chance(0.08) ? rng.pick(['nan', 'inf', '-inf', '1e308', '-1e308', '1e999', '-0', '-1']) : m,
      );
    return filesCase(seed, encoder.encode(text), 'numbers');
  },
};

const USDA_ALPHABET = [
  '#usda 1.0\n',
  'def',
  'over',
  'class',
  ' "a" ',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  '@./x.usda@',
  '<',
  '>',
  '/a',
  '=',
  'float',
  'double3',
  'token',
  'rel',
  'uniform',
  'prepend',
  'apiSchemas',
  '"',
  ',',
  '\n',
  '1',
  '-2.5',
  'inf',
  'physics:mass',
  'xformOp:translate',
  'references',
  'payload',
  'subLayers',
  'variantSet',
  ':',
  '.',
  'None',
];

/** a textured mesh: a preview surface, its texture and primvar reader, faceVarying indexed coordinates */
const TEXTURED_USDA = `${PREVIEW_MATERIAL}
def Xform "box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "MaterialBindingAPI"])
{
    float physics:mass = 1
    rel material:binding = </Looks/Wood>
    def Mesh "skin"
    {${STRIP}
    }
    def Cube "hull" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double size = 0.5
    }
}
`;

const usdaCorpus = lazy((): FileSeed[] => {
  const ex = path.join(SAP_ASSETS, 'newton/newton/examples/assets');
  return [
    {
      name: 'textured.usda',
      entry: 'textured.usda',
      main: encoder.encode(TEXTURED_USDA),
      siblings: new Map([['textures/wood.png', PNG]]),
    },
    fileSeed('cartpole.usda', 'cartpole.usda', path.join(ASSETS, 'newton/cartpole/cartpole.usda')),
    fileSeed('ant.usda', 'ant.usda', path.join(ASSETS, 'newton/ant/ant.usda')),
    fileSeed(
      'boxes_fourbar.usda',
      'boxes_fourbar.usda',
      path.join(ASSETS, 'newton/boxes_fourbar/boxes_fourbar.usda'),
    ),
    fileSeed(
      'cartpole_single_pendulum.usda',
      'cartpole_single_pendulum.usda',
      path.join(ex, 'cartpole_single_pendulum.usda'),
    ),
    fileSeed(
      'sensor_contact_scene.usda',
      'sensor_contact_scene.usda',
      path.join(ex, 'sensor_contact_scene.usda'),
    ),
  ];
});

const usdcCorpus = lazy((): FileSeed[] => {
  const ex = path.join(SAP_ASSETS, 'newton/newton/examples/assets');
  return [
    fileSeed('curvedSurface.usd', 'curvedSurface.usd', path.join(ex, 'curvedSurface.usd')),
    fileSeed(
      'MaterialsLibrary.usdc',
      'MaterialsLibrary.usdc',
      path.join(ASSETS, 'newton-assets/booster_t1/usd_structured/Payload/MaterialsLibrary.usdc'),
    ),
    fileSeed(
      'material_library.usd',
      'material_library.usd',
      path.join(SAP_ASSETS, 'newton-assets/universal_robots_ur10/usd/Materials/material_library.usd'),
    ),
    fileSeed('crazyflie.usd', 'crazyflie.usd', path.join(ASSETS, 'newton/crazyflie/crazyflie.usd')),
  ];
});

/** a stored (uncompressed) zip, as USDZ requires, or a deflated one */
function zip(files: Record<string, Uint8Array>, level: 0 | 6 = 0): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, [v, { level }]])));
}

const usdzCorpus = lazy((): FileSeed[] => {
  const cube = fileSeed('cube.usdz', 'cube.usdz', path.join(ASSETS, 'tinyusdz/cube.usdz'));
  const cart = read(path.join(ASSETS, 'newton/cartpole/cartpole.usda'));
  const curved = read(path.join(SAP_ASSETS, 'newton/newton/examples/assets/curvedSurface.usd'));
  return [
    cube,
    {
      name: 'cartpole.usdz',
      entry: 'cartpole.usdz',
      main: zip({ 'cartpole.usda': cart }),
      siblings: new Map(),
    },
    {
      name: 'two_layers.usdz',
      entry: 'two_layers.usdz',
      main: zip({
        'root.usda': encoder.encode('#usda 1.0\n(\n  subLayers = [@./sub/surface.usd@]\n)\n'),
        'sub/surface.usd': curved,
      }),
      siblings: new Map(),
    },
  ];
});

const usdzAttacks: Record<string, (rng: Rng, seed: FileSeed) => FuzzCase> = {
  zip_bomb(rng, seed) {
    const n = rng.pick([1 << 20, 16 << 20]);
    return filesCase(seed, zip({ 'a.usda': new Uint8Array(n).fill(0x20) }, 6), `deflated ${n} bytes`);
  },
  many_entries(rng, seed) {
    const n = rng.pick([1000, 20000]);
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < n; i++) files[`e${i}.usda`] = encoder.encode('#usda 1.0\n');
    return filesCase(seed, zip(files), `${n} entries`);
  },
  odd_names(rng, seed) {
    const name = rng.pick([
      '../../etc/passwd.usda',
      '/abs.usda',
      'a/./../../b.usda',
      '\u0000.usda',
      'x'.repeat(3000) + '.usda',
    ]);
    return filesCase(
      seed,
      zip({ [name]: encoder.encode('#usda 1.0\ndef "a" {}\n') }),
      `entry ${name.slice(0, 20)}`,
    );
  },
  deflated_layer(_rng, seed) {
    const cart = read(path.join(ASSETS, 'newton/cartpole/cartpole.usda'));
    return filesCase(seed, zip({ 'cartpole.usda': cart }, 6), 'deflated layer');
  },
  nested_usdz(_rng, seed) {
    return filesCase(
      seed,
      zip({
        'inner.usdz': seed.main,
        'root.usda': encoder.encode('#usda 1.0\n(\n subLayers = [@inner.usdz@]\n)\n'),
      }),
      'nested usdz',
    );
  },
};

// ------------------------------------------------------------------------------------------ meshes

/** a scene and a URDF that use `parts/m.EXT` as convex and triangle-mesh colliders */
function meshHosts(ext: string): { scene: Uint8Array; urdf: Uint8Array; mjcf: Uint8Array } {
  const scene = `schema_version: 1
name: mesh_host
simulation: {dt: 0.005}
ground: true
bodies:
  - id: m
    transform: {p: [0, 0, 0.5]}
    shapes:
      - {type: mesh, source: parts/m${ext}, is_convex: true, scale: 0.01}
      - {type: mesh, source: parts/m${ext}, scale: [0.01, 0.01, -0.01]}
`;
  const urdf = `<robot name="mesh_host">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="parts/m${ext}" scale="0.01 0.01 0.01"/></geometry></visual>
    <collision><geometry><mesh filename="parts/m${ext}" scale="0.01 0.01 0.01"/></geometry></collision></link>
</robot>
`;
  // a textured visual (OBJ coordinates under a 2D texture) beside the mesh's convex hull as collider
  const mjcf = `<mujoco model="mesh_host"><compiler meshdir="parts" texturedir="parts"/>
  <asset><texture name="t" file="t.png" type="2d"/><material name="skin" texture="t" rgba="1 0.5 0.5 1"/>
    <mesh name="m" file="m${ext}" scale="0.01 0.01 0.01"/></asset>
  <worldbody><body name="b" pos="0 0 0.5"><freejoint/>
    <geom type="mesh" mesh="m" material="skin" contype="0" conaffinity="0"/>
    <geom type="mesh" mesh="m"/></body></worldbody></mujoco>
`;
  return { scene: encoder.encode(scene), urdf: encoder.encode(urdf), mjcf: encoder.encode(mjcf) };
}

function meshSurface(
  name: string,
  ext: '.stl' | '.obj' | '.dae',
  corpus: () => Uint8Array[],
  text: boolean,
  attacks: Record<string, (rng: Rng) => Uint8Array>,
): Surface {
  const hosts = meshHosts(ext);
  return {
    name,
    target: 'files',
    corpusSize: () => corpus().length,
    make(rng) {
      const seeds = corpus();
      const base = rng.pick(seeds);
      let mesh: Uint8Array;
      let desc: string;
      const r = rng.float();
      const entries = Object.entries(attacks);
      if (r < 0.12) {
        const [an, fn] = rng.pick(entries);
        mesh = fn(rng);
        desc = an;
      } else if (r < 0.17) {
        mesh = rng.bytes(rng.skewed(4096));
        desc = `garbage ${mesh.length} bytes`;
      } else if (text && rng.chance(0.7)) {
        const m = mutateText(decoder.decode(base), rng);
        mesh = encoder.encode(m.text);
        desc = m.ops.join('+');
      } else {
        const m = mutateBytes(base, rng, rng.pick(seeds));
        mesh = m.bytes;
        desc = m.ops.join('+');
      }
      // the DAE reader is not among MJCF's mesh formats
      const host = rng.pick(ext === '.dae' ? ['urdf', 'yaml'] : ['urdf', 'yaml', 'yaml', 'xml']);
      const entry = `host.${host}`;
      const files = new Map([
        [entry, host === 'urdf' ? hosts.urdf : host === 'xml' ? hosts.mjcf : hosts.scene],
        [`parts/m${ext}`, mesh],
        ['parts/t.png', PNG],
      ]);
      return { desc: `${desc} via ${entry}`, input: { kind: 'files', files, entry } };
    },
  };
}

function stlBinary(tris: number[][], count = tris.length): Uint8Array {
  const b = new Uint8Array(84 + 50 * tris.length);
  const dv = new DataView(b.buffer);
  dv.setUint32(80, count, true);
  tris.forEach((t, i) => t.forEach((v, k) => dv.setFloat32(84 + i * 50 + 12 + k * 4, v, true)));
  return b;
}

const TET = [
  [0, 0, 0, 1, 0, 0, 0, 1, 0],
  [0, 0, 0, 0, 0, 1, 1, 0, 0],
  [0, 0, 0, 0, 1, 0, 0, 0, 1],
  [1, 0, 0, 0, 0, 1, 0, 1, 0],
].map((t) => t.map((x) => x * 10));

const stlCorpus = lazy((): Uint8Array[] => {
  const fr3 = path.join(ASSETS, 'newton-assets/franka_emika_panda/meshes/robot_arms/fr3/collision');
  const g1 = path.join(SAP_ASSETS, 'newton-assets/unitree_g1/meshes');
  const ascii = `solid t\n${TET.map((t) => `facet normal 0 0 0\nouter loop\n${[0, 3, 6].map((o) => `vertex ${t[o]} ${t[o + 1]} ${t[o + 2]}`).join('\n')}\nendloop\nendfacet`).join('\n')}\nendsolid t\n`;
  return [
    read(path.join(fr3, 'link7.stl')),
    read(path.join(g1, 'left_hand_thumb_0_link.STL')),
    read(
      path.join(
        ASSETS,
        'newton-assets/franka_emika_panda/meshes/robot_ee/franka_hand_white/collision/hand.stl',
      ),
    ),
    stlBinary(TET),
    encoder.encode(ascii),
  ];
});

const stlAttacks: Record<string, (rng: Rng) => Uint8Array> = {
  huge_count: (rng) => {
    const b = stlBinary(TET);
    new DataView(b.buffer).setUint32(80, rng.pick([0xffffffff, 4_000_001, 100_000_000]), true);
    return b;
  },
  nonfinite: (rng) =>
    stlBinary(
      TET.map((t) => t.map((x) => (rng.chance(0.3) ? rng.pick([NaN, Infinity, -Infinity, 3e38, -3e38]) : x))),
    ),
  degenerate: () =>
    stlBinary([
      [0, 0, 0, 0, 0, 0, 0, 0, 0],
      [1, 1, 1, 1, 1, 1, 2, 2, 2],
    ]),
  coplanar: () =>
    stlBinary([
      [0, 0, 0, 1, 0, 0, 0, 1, 0],
      [1, 0, 0, 1, 1, 0, 0, 1, 0],
    ]),
  ascii_nonfinite: (rng) =>
    encoder.encode(
      `solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex ${rng.pick(BAD_NUMBERS)} 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid\n`,
    ),
  ascii_many: (rng) => {
    const n = rng.pick([10000, 200000]);
    return encoder.encode(`solid x\n${'vertex 0 0 0\n'.repeat(n)}endsolid\n`);
  },
  empty: () => new Uint8Array(0),
  header_only: () => new Uint8Array(84),
};

const objCorpus = lazy((): Uint8Array[] => {
  const cube = `# cube\no cube\nv -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\nv -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\nvn 0 0 1\nvt 0 0\nf 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n`;
  return [
    read(path.join(ASSETS, 'mujoco_menagerie/agility_cassie/assets/foot-crank.obj')),
    read(path.join(SAP_ASSETS, 'sap_warp/assets/robot/urdf/piper_description/meshes/link6.obj')),
    encoder.encode(cube),
    encoder.encode(cube.replace(/f (\d+) (\d+) (\d+) (\d+)/g, 'f $1/1/1 $2/1/1 $3/1/1 $4/1/1')),
  ];
});

const objAttacks: Record<string, (rng: Rng) => Uint8Array> = {
  bad_indices: (rng) =>
    encoder.encode(
      `v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 ${rng.pick(['4', '-4', '0', '1e9', '2147483648', 'x', '-0', '3.5', ''])}\n`,
    ),
  nonfinite: (rng) =>
    encoder.encode(
      `v 0 0 0\nv ${rng.pick(BAD_NUMBERS)} 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n`,
    ),
  huge_polygon: (rng) => {
    const n = rng.pick([1000, 100000]);
    let s = '';
    for (let i = 0; i < n; i++) s += `v ${Math.cos(i)} ${Math.sin(i)} ${i % 7}\n`;
    return encoder.encode(s + 'f ' + Array.from({ length: n }, (_, i) => i + 1).join(' ') + '\n');
  },
  many_faces: (rng) => {
    const n = rng.pick([100000, 1500000]);
    return encoder.encode('v 0 0 0\nv 1 0 0\nv 0 1 0\n' + 'f 1 2 3\n'.repeat(n));
  },
  no_faces: () => encoder.encode('v 0 0 0\nv 1 1 1\n'),
};

/** a COLLADA document: a cube as a polylist (position + normal inputs) in a node with a material */
function daeCube(
  opts: { positions?: string; p?: string; vcount?: string; count?: string; scene?: string } = {},
): string {
  const positions = opts.positions ?? '0 0 0 1 0 0 1 1 0 0 1 0 0 0 1 1 0 1 1 1 1 0 1 1';
  const quads = [
    [0, 3, 2, 1],
    [4, 5, 6, 7],
    [0, 1, 5, 4],
    [2, 3, 7, 6],
    [1, 2, 6, 5],
    [0, 4, 7, 3],
  ];
  const p = opts.p ?? quads.flatMap((q, f) => q.flatMap((v) => [v, f])).join(' ');
  return `<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="0.1"/><up_axis>Y_UP</up_axis></asset>
  <library_effects><effect id="fx"><profile_COMMON><technique sid="c"><phong><diffuse><color>0.2 0.4 0.8 1</color></diffuse></phong></technique></profile_COMMON></effect></library_effects>
  <library_materials><material id="blue" name="blue"><instance_effect url="#fx"/></material></library_materials>
  <library_geometries><geometry id="g"><mesh>
    <source id="pos"><float_array id="pa" count="${opts.count ?? 24}">${positions}</float_array>
      <technique_common><accessor source="#pa" count="8" stride="3"/></technique_common></source>
    <source id="nrm"><float_array id="na" count="18">0 0 -1 0 0 1 0 -1 0 0 1 0 1 0 0 -1 0 0</float_array>
      <technique_common><accessor source="#na" count="6" stride="3"/></technique_common></source>
    <vertices id="v"><input semantic="POSITION" source="#pos"/></vertices>
    <polylist material="m" count="6"><input semantic="VERTEX" source="#v" offset="0"/><input semantic="NORMAL" source="#nrm" offset="1"/>
      <vcount>${opts.vcount ?? '4 4 4 4 4 4'}</vcount><p>${p}</p></polylist>
  </mesh></geometry></library_geometries>
  <library_nodes><node id="lib"><rotate>1 0 0 30</rotate><instance_geometry url="#g"><bind_material><technique_common><instance_material symbol="m" target="#blue"/></technique_common></bind_material></instance_geometry></node></library_nodes>
  <library_visual_scenes><visual_scene id="s">${opts.scene ?? '<node><matrix>1 0 0 0.5 0 1 0 0 0 0 1 0 0 0 0 1</matrix><instance_node url="#lib"/></node><node><scale>-1 1 1</scale><instance_node url="#lib"/></node>'}</visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
`;
}

const daeCorpus = lazy((): Uint8Array[] => [
  read(
    path.join(ASSETS, 'newton-assets/franka_emika_panda/meshes/robot_ee/franka_hand_white/visual/finger.dae'),
  ),
  encoder.encode(daeCube()),
  // textured (its image is not beside it here: the loader's warning path)
  read(path.join(SHARED, 'reference/sap_warp/assets/newton-assets/anybotics_anymal_c/meshes/battery.dae')),
]);

const daeAttacks: Record<string, (rng: Rng) => Uint8Array> = {
  bad_index: (rng) =>
    encoder.encode(daeCube({ p: `0 0 1 0 ${rng.pick(['8', '-1', '1e9', '2.5', 'x', '4294967296'])} 0 3 0` })),
  nonfinite: (rng) =>
    encoder.encode(
      daeCube({ positions: `0 0 0 ${rng.pick(BAD_NUMBERS)} 0 0 1 1 0 0 1 0 0 0 1 1 0 1 1 1 1 0 1 1` }),
    ),
  count_mismatch: (rng) => encoder.encode(daeCube({ count: rng.pick(['23', '1e12', '-1', 'x']) })),
  vcount_overrun: (rng) =>
    encoder.encode(daeCube({ vcount: rng.pick(['4 4 4 4 4 5', '1e9', '-3 4', '4 4 4 4 4 4 4']) })),
  instance_cycle: () => encoder.encode(daeCube({ scene: '<node id="a"><instance_node url="#a"/></node>' })),
  dangling: (rng) =>
    encoder.encode(
      daeCube({
        scene: `<node><instance_${rng.pick(['node', 'geometry'])} url="#${rng.pick(['nope', 'fx', '', 'pa'])}"/></node>`,
      }),
    ),
  deep_nodes: (rng) => {
    const n = rng.pick([200, 5000]);
    return encoder.encode(
      daeCube({ scene: '<node>'.repeat(n) + '<instance_node url="#lib"/>' + '</node>'.repeat(n) }),
    );
  },
  many_instances: (rng) => {
    const n = rng.pick([1000, 300000]);
    return encoder.encode(daeCube({ scene: '<node><instance_node url="#lib"/></node>'.repeat(n) }));
  },
  empty: () => encoder.encode('<COLLADA/>'),
  texcoords: (rng) => {
    // a textured material whose coordinates index past their source, or name odd images
    const image = rng.pick([
      't.png',
      '',
      '%zz.png',
      'file:///C:/x/t.jpg',
      '../../../../etc/passwd',
      'a'.repeat(5000),
    ]);
    const uvIndex = rng.pick(['0', '3', '-1', '1e9', 'x']);
    const text = daeCube({ p: `0 0 ${uvIndex} 1 0 1 2 0 2 3 0 3` })
      .replace(
        '<library_effects>',
        `<library_images><image id="im"><init_from>${image}</init_from></image></library_images><library_effects>`,
      )
      .replace('<color>0.2 0.4 0.8 1</color>', '<texture texture="im" texcoord="uv"/>')
      .replace(
        '<input semantic="NORMAL" source="#nrm" offset="1"/>',
        '<input semantic="NORMAL" source="#nrm" offset="1"/><input semantic="TEXCOORD" source="#nrm" offset="2"/>',
      )
      .replace('<vcount>4 4 4 4 4 4</vcount>', '<vcount>4</vcount>');
    return encoder.encode(text);
  },
};

// ------------------------------------------------------------------------------------------ links

/** the link payload encoding of app/link.ts (deflate + base64url), without validation */
export function encodeLinkPayload(json: string): string {
  return Buffer.from(deflateSync(strToU8(json), { level: 9 })).toString('base64url');
}

const linkCorpus = lazy((): string[] => {
  const box = readFileSync(path.join(REPO, 'scenes/box_stack.yaml'), 'utf8');
  const states = [
    { v: 1, scene: { kind: 'catalog', id: 'box_stack' }, step: 40, playing: false },
    {
      v: 1,
      scene: { kind: 'catalog', id: 'double_pendulum' },
      options: {
        contact_preset_variant: 'approx64',
        line_search_variant: 'armijo_decay',
        max_iterations: 50,
      },
      sim: { dt: 0.002, speed: 0.5, num_worlds: 2 },
      camera: { position: [1, 2, 3], target: [0, 0, 0.5] },
      step: 10,
      time: 0.02,
      playing: true,
      selection: 1,
      view: { overlay: true, collision: false, visual: true },
    },
    { v: 1, scene: { kind: 'inline', name: 'box_stack.yaml', text: box }, step: 0 },
    { v: 1, scene: { kind: 'url', url: 'https://example.com/scenes/a.yaml' } },
  ];
  return states.map((s) => JSON.stringify(s));
});

const LINK_JSON_ATTACKS: ((rng: Rng) => string)[] = [
  () => '{"__proto__": {"polluted": 1}, "v": 1, "scene": {"kind": "catalog", "id": "box_stack"}}',
  () => '{"v": 1, "scene": {"kind": "catalog", "id": "box_stack", "__proto__": {"polluted": 1}}}',
  () =>
    '{"v": 1, "scene": {"kind": "catalog", "id": "box_stack"}, "options": {"__proto__": {"polluted": 1}}}',
  () =>
    '{"v": 1, "constructor": {"prototype": {"polluted": 1}}, "scene": {"kind": "catalog", "id": "box_stack"}}',
  () => '{"v": 1, "scene": {"kind": "catalog", "id": "<img src=x onerror=alert(1)>"}}',
  () =>
    '{"v": 1, "scene": {"kind": "inline", "name": "<script>alert(1)</script>.yaml", "text": "name: <b>x</b>"}}',
  () => '{"v": 1, "scene": {"kind": "url", "url": "javascript:alert(1)"}}',
  () => '{"v": 1, "scene": {"kind": "url", "url": "data:text/yaml,a: 1"}}',
  (rng) =>
    `{"v": 1, "scene": {"kind": "catalog", "id": "box_stack"}, "step": ${rng.pick(BAD_NUMBERS) || '0'}}`,
  (rng) => nest('[', ']', rng.pick([1000, 100000])),
  (rng) =>
    `{"v": 1, "scene": {"kind": "inline", "name": "a.yaml", "text": "${'x'.repeat(rng.pick([600000, 2000000]))}"}}`,
];

const LINK_ALPHABET = [
  'A',
  'z',
  '0',
  '9',
  '-',
  '_',
  '=',
  '+',
  '/',
  '!',
  '%',
  '#',
  '&',
  'link=',
  'eJ',
  '\u00e9',
];

function linkSurface(): Surface {
  return {
    name: 'link',
    target: 'link',
    corpusSize: () => linkCorpus().length,
    make(rng) {
      const base = rng.pick(linkCorpus());
      const r = rng.float();
      if (r < 0.15) {
        const j = rng.pick(LINK_JSON_ATTACKS)(rng);
        return {
          desc: `json attack ${j.slice(0, 40)}`,
          input: { kind: 'link', payload: encodeLinkPayload(j) },
        };
      }
      if (r < 0.2) {
        const p = garbageText(rng, LINK_ALPHABET, 2000);
        return { desc: `garbage ${p.length} chars`, input: { kind: 'link', payload: p } };
      }
      if (r < 0.23) {
        // a payload that inflates far beyond the limit: zeros compress ~1000:1
        const n = rng.pick([2 << 20, 8 << 20]);
        const bomb = Buffer.from(deflateSync(new Uint8Array(n).fill(0x20), { level: 9 })).toString(
          'base64url',
        );
        return { desc: `deflate bomb ${n}`, input: { kind: 'link', payload: bomb } };
      }
      if (r < 0.6) {
        const { text, ops } = mutateText(base, rng);
        return { desc: `json ${ops.join('+')}`, input: { kind: 'link', payload: encodeLinkPayload(text) } };
      }
      const enc = encodeLinkPayload(base);
      if (r < 0.8) {
        const raw = new Uint8Array(Buffer.from(enc, 'base64url'));
        const { bytes, ops } = mutateBytes(raw, rng);
        return {
          desc: `deflate ${ops.join('+')}`,
          input: { kind: 'link', payload: Buffer.from(bytes).toString('base64url') },
        };
      }
      const { text, ops } = mutateText(enc, rng);
      return { desc: `base64 ${ops.join('+')}`, input: { kind: 'link', payload: text } };
    },
  };
}

// ------------------------------------------------------------------------------------------ protocol

const WEIRD_VALUES: (() => unknown)[] = [
  () => NaN,
  () => Infinity,
  () => -Infinity,
  () => -1,
  () => 0,
  () => 1e308,
  () => 2 ** 31,
  () => 2 ** 53 + 2,
  () => 0.5,
  () => -0,
  () => '',
  () => 'x'.repeat(100000),
  () => '<img src=x onerror=alert(1)>',
  () => null,
  () => undefined,
  () => true,
  () => [],
  () => ({}),
  () => [1, 2, 3],
  () => new Uint8Array(3),
  () => new Map([['a', new Uint8Array(1)]]),
  () => JSON.parse('{"__proto__": {"polluted": 1}}'),
  () => JSON.parse('{"constructor": {"prototype": {"polluted": 1}}}'),
  () => nestValue(5000),
  () => Array(200000).fill(1),
  () => 12345678901234567890n,
  () => Symbol.iterator,
];

function nestValue(d: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < d; i++) v = { a: v };
  return v;
}

const protocolCorpus = lazy((): Record<string, unknown>[] => {
  const text = readFileSync(path.join(REPO, 'scenes/box_at_rest.yaml'), 'utf8');
  return [
    {
      v: 2,
      type: 'load_scene',
      source: { kind: 'text', text, file_name: 'box_at_rest.yaml' },
      num_worlds: 2,
      options: { max_iterations: 50 },
      dt: 0.004,
      play: false,
      request_id: 7,
    },
    {
      v: 2,
      type: 'load_scene',
      source: { kind: 'files', files: new Map([['a/b.yaml', encoder.encode(text)]]), entry: 'a/b.yaml' },
    },
    { v: 2, type: 'reload', num_worlds: 1 },
    {
      v: 2,
      type: 'set_options',
      options: {
        contact_preset_variant: 'approx64',
        rho: 0.5,
        line_search_variant: 'exact_root',
        max_iterations: null,
      },
    },
    { v: 2, type: 'set_sim', dt: 0.002, speed: 2, contacts: true },
    { v: 2, type: 'play' },
    { v: 2, type: 'pause' },
    { v: 2, type: 'step', n: 3 },
    { v: 2, type: 'reset' },
    { v: 2, type: 'seek', step: 1 },
    { v: 2, type: 'perturb', body: 0, point: [0, 0, 0.1], target: [0.2, 0, 0.5], stiffness: 100 },
    { v: 2, type: 'perturb', body: -1 },
    { v: 2, type: 'set_control', field: 'joint_f', dofs: [0, 1, 2], values: [1, 2, 3], all_worlds: true },
    { v: 2, type: 'request_ablation', every: 5, now: true },
    { v: 2, type: 'ping', id: 3 },
    { v: 2, type: 'snapshot' },
    {
      v: 2,
      type: 'restore',
      step: 5,
      time: 0.025,
      joint_q: new Float64Array([0, 0, 0.1, 0, 0, 0, 1]),
      joint_qd: [0, 0, 0, 0, 0, 0],
    },
    { v: 2, type: 'debug', fault: 'nan', world: 0 },
    { v: 2, type: 'debug', fault: 'energy' },
    // v3: the backend switch (the fuzz host has no WebGPU adapter: it falls back to the CPU)
    { v: 3, type: 'set_backend', backend: 'webgpu' },
    { v: 3, type: 'set_backend', backend: 'cpu' },
  ];
});

/** a deep copy of a message (Maps and typed arrays kept, as structured clone does) */
function clone(v: unknown): unknown {
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, clone(x)]));
  if (v instanceof Uint8Array || v instanceof Float64Array) return v.slice();
  if (Array.isArray(v)) return v.map(clone);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clone(x)]));
  return v;
}

/** every (parent, key) pair of a message tree */
function slots(v: unknown, out: [Record<string | number, unknown>, string | number][] = [], depth = 0) {
  if (depth > 6 || !v || typeof v !== 'object' || ArrayBuffer.isView(v)) return out;
  if (v instanceof Map) return out;
  for (const k of Object.keys(v)) {
    out.push([v as Record<string, unknown>, Array.isArray(v) ? Number(k) : k]);
    slots((v as Record<string, unknown>)[k], out, depth + 1);
  }
  return out;
}

function protocolSurface(): Surface {
  return {
    name: 'protocol',
    target: 'command',
    corpusSize: () => protocolCorpus().length,
    make(rng) {
      const base = rng.pick(protocolCorpus());
      const r = rng.float();
      if (r < 0.08) {
        const v = rng.pick(WEIRD_VALUES)();
        return { desc: `bare ${typeof v}`, input: { kind: 'command', message: v } };
      }
      const msg = clone(base) as Record<string, unknown>;
      const ops: string[] = [];
      const n = rng.chance(0.6) ? 1 : rng.range(2, 4);
      for (let i = 0; i < n; i++) {
        const all = slots(msg);
        if (all.length === 0) {
          msg.v = 2;
          msg.type = rng.pick(['play', 'step', 'seek']);
          ops.push('rebuilt');
          continue;
        }
        const [parent, key] = rng.pick(all);
        const op = rng.float();
        if (op < 0.55) {
          parent[key] = rng.pick(WEIRD_VALUES)();
          ops.push(`${String(key)}=weird`);
        } else if (op < 0.7) {
          delete parent[key];
          ops.push(`-${String(key)}`);
        } else if (op < 0.8) {
          const k = rng.pick([
            '__proto__',
            'constructor',
            'prototype',
            'extra',
            'toString',
            'hasOwnProperty',
          ]);
          Object.defineProperty(parent, k, {
            value: { polluted: 1 },
            enumerable: true,
            configurable: true,
            writable: true,
          });
          ops.push(`+${k}`);
        } else if (op < 0.9 && typeof parent[key] === 'string') {
          parent[key] = mutateText(parent[key] as string, rng).text;
          ops.push(`${String(key)}~text`);
        } else {
          msg.type = rng.pick([
            'load_scene',
            'reload',
            'set_options',
            'set_sim',
            'play',
            'pause',
            'step',
            'reset',
            'seek',
            'perturb',
            'set_control',
            'request_ablation',
            'ping',
            'snapshot',
            'restore',
            'debug',
            'LOAD_SCENE',
            'eval',
            '',
          ]);
          ops.push(`type=${String(msg.type)}`);
        }
      }
      return { desc: `${String(base.type)}: ${ops.join(', ')}`, input: { kind: 'command', message: msg } };
    },
  };
}

// ------------------------------------------------------------------------------------------ registry

export const SURFACES: Record<string, Surface> = {
  scene_yaml: fileSurface('scene_yaml', sceneCorpus, {
    text: true,
    attacks: yamlAttacks,
    alphabet: YAML_ALPHABET,
    garbageEntry: 'garbage.yaml',
  }),
  scene_json: fileSurface('scene_json', jsonCorpus, {
    text: true,
    attacks: jsonAttacks,
    alphabet: [
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"a"',
      '1',
      '-2e5',
      'true',
      'null',
      ' ',
      '"bodies"',
      '"__proto__"',
    ],
    garbageEntry: 'garbage.json',
  }),
  urdf: fileSurface('urdf', urdfCorpus, {
    text: true,
    attacks: xmlAttacks('robot'),
    alphabet: XML_ALPHABET,
    garbageEntry: 'garbage.urdf',
  }),
  mjcf: fileSurface('mjcf', mjcfCorpus, {
    text: true,
    attacks: xmlAttacks('mujoco'),
    alphabet: XML_ALPHABET,
    garbageEntry: 'garbage.xml',
  }),
  usda: fileSurface('usda', usdaCorpus, {
    text: true,
    attacks: usdaAttacks,
    alphabet: USDA_ALPHABET,
    garbageEntry: 'garbage.usda',
  }),
  usdc: fileSurface('usdc', usdcCorpus, { text: false, garbageEntry: 'garbage.usdc' }),
  usdz: fileSurface('usdz', usdzCorpus, { text: false, attacks: usdzAttacks, garbageEntry: 'garbage.usdz' }),
  stl: meshSurface('stl', '.stl', stlCorpus, false, stlAttacks),
  obj: meshSurface('obj', '.obj', objCorpus, true, objAttacks),
  dae: meshSurface('dae', '.dae', daeCorpus, true, daeAttacks),
  link: linkSurface(),
  protocol: protocolSurface(),
};
