/**
 * `npm run sim -- <command>`: the headless CLI (SPEC §9).
 *
 *   run SCENE [--steps N] [--dt S] [--num-worlds N] [--preset P] [--line-search L]
 *             [--set key=value]... [--trace K] [--backend cpu|webgpu] [--json]
 *   inspect MODEL [--q v,v,...] [--qd v,v,...] [--json]
 *   ablate SCENE --steps N [--dt S] [--json]
 *   (run, inspect, ablate: --asset-root DIR, --keyframe NAME|INDEX for an MJCF <key>, --strict)
 *   schema run|inspect|ablate      print the JSON Schema of a command's --json output
 *   bench [SCENE|ID...] [--preset P,…] [--line-search L,…] [--islands off,on] [--variant key=value,…]... [--backend cpu,webgpu] [--worlds N,…] [--peers mujoco,mujoco_whole,mujoco_elliptic,rapier|none]
 *         [--steps N] [--repeats R] [--settle N] [--warmup-ms MS] [--peers-inline] [--linear-solver M] [--json]   CPU steps/s vs MuJoCo, Rapier
 *   bench webgpu [SCENE] [--worlds 1,64,…] [--steps N] [--json]   CPU vs WebGPU over num_worlds
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadModelFile } from '../io/load_file';
import { normalizeSolverOptions } from '../sap/options';
import {
  PEER_NAMES,
  benchMarkdown,
  runBackendScaling,
  runBench,
  scalingMarkdown,
  writeBenchResults,
  writeScalingResults,
  type PeerName,
} from './bench';
import { ablateCommand, inspectCommand, runCommand, runCommandBackend } from './commands';
import { formatAblate, formatInspect, formatRun } from './format';
import { AblateOutputSchema, InspectOutputSchema, RunOutputSchema } from './schema';
import { zodToJsonSchema } from './json_schema';

const USAGE = `usage: npm run sim -- <command> [options]
  run SCENE [--steps N] [--dt S] [--num-worlds N] [--preset P] [--line-search L] [--set key=value]... [--trace K] [--backend cpu|webgpu] [--json]
  inspect MODEL [--q v,v,...] [--qd v,v,...] [--json]
  ablate SCENE --steps N [--dt S] [--json]
  schema run|inspect|ablate
  bench [SCENE|ID...] [--preset P,…] [--line-search L,…] [--islands off,on] [--variant key=value,…]... [--backend cpu,webgpu] [--worlds N,…] [--peers mujoco,mujoco_whole,mujoco_elliptic,rapier|none] [--steps N] [--repeats R] [--settle N] [--warmup-ms MS] [--peers-inline] [--linear-solver auto|dense|block_sparse] [--json]
  bench webgpu [SCENE] [--worlds 1,64,256,1024,4096] [--steps N] [--json]
run, inspect and ablate also take --asset-root DIR (a scene's git-backed assets; then $SAP_STUDIO_ASSET_ROOT,
~/.cache/sap-studio/assets/<repo>/<rev>/ and the scene's assets/ or ../assets/), --keyframe NAME|INDEX
(an MJCF <key> as the initial state, e.g. a MuJoCo Menagerie robot's 'home') and --strict (refuse a file
whose features the engine only approximates, instead of warning). bench --line-search takes
monotone_decay, armijo_decay, exact_root and scene (the one the scene file names).`;

/** the loader options of run, inspect and ablate */
function loadOptions(values: { 'asset-root'?: string; keyframe?: string; strict?: boolean }): {
  asset_root?: string;
  keyframe?: string | number;
  strict: boolean;
} {
  const k = values.keyframe;
  return {
    asset_root: values['asset-root'],
    strict: values.strict === true,
    ...(k !== undefined ? { keyframe: /^\d+$/.test(k) ? Number(k) : k } : {}),
  };
}

function parseSet(items: string[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of items ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new Error(`--set expects key=value; got '${item}'`);
    out[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return out;
}

/**
 * `bench --variant key=value[,key=value…]` (repeatable): the scene's options ({}) first, then each
 * variant's solver options, validated
 */
function variantList(items: string[] | undefined): Record<string, unknown>[] | undefined {
  if (items === undefined) return undefined;
  return [
    {},
    ...items.map((v) => {
      const pairs = v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      if (pairs.length === 0) throw new Error(`--variant expects key=value[,key=value…]; got '${v}'`);
      return normalizeSolverOptions(parseSet(pairs));
    }),
  ];
}

/** `bench --backend cpu,webgpu` */
function benchBackends(xs: string[] | undefined): ('cpu' | 'webgpu')[] | undefined {
  if (xs === undefined) return undefined;
  for (const x of xs)
    if (x !== 'cpu' && x !== 'webgpu') throw new Error(`--backend: expected cpu or webgpu; got '${x}'`);
  return xs as ('cpu' | 'webgpu')[];
}

/** `bench --islands off,on` → solve_islands values */
function islandList(s: string | undefined): boolean[] | undefined {
  if (s === undefined) return undefined;
  return s.split(',').map((x) => {
    const t = x.trim();
    if (t === 'on' || t === 'true') return true;
    if (t === 'off' || t === 'false') return false;
    throw new Error(`--islands: expected comma-separated on/off; got '${s}'`);
  });
}

/** the loader's warnings and notes, on stderr (stdout stays the command's output, JSON included) */
function reportWarnings({
  warnings,
  notes,
}: {
  warnings: readonly string[];
  notes: readonly string[];
}): void {
  for (const w of warnings) console.error(`warning: ${w}`);
  for (const n of notes) console.error(`note: ${n}`);
}

function parseList(s: string | undefined, flag: string): number[] | undefined {
  if (s === undefined) return undefined;
  const v = s.split(',').map((x) => Number(x.trim()));
  if (v.some((x) => !Number.isFinite(x)))
    throw new Error(`${flag}: expected comma-separated numbers; got '${s}'`);
  return v;
}

/**
 * the bundled peer worker beside this module when the CLI runs bundled (`npm run bench`,
 * scripts/cli.mjs): the peers then run in worker threads of their own; undefined from the sources
 */
function peerWorker(): URL | undefined {
  const u = new URL('./peer_worker.mjs', import.meta.url);
  return u.protocol === 'file:' && existsSync(fileURLToPath(u)) ? u : undefined;
}

function positiveInt(s: string | undefined, flag: string, dflt: number): number {
  if (s === undefined) return dflt;
  const n = Number(s);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${flag}: expected a non-negative integer; got '${s}'`);
  return n;
}

function positiveNumber(s: string | undefined, flag: string): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(s);
  if (!(n > 0) || !Number.isFinite(n)) throw new Error(`${flag}: expected a positive number; got '${s}'`);
  return n;
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      steps: { type: 'string' },
      dt: { type: 'string' },
      'num-worlds': { type: 'string' },
      preset: { type: 'string' },
      'line-search': { type: 'string' },
      islands: { type: 'string' },
      set: { type: 'string', multiple: true },
      variant: { type: 'string', multiple: true },
      trace: { type: 'string' },
      json: { type: 'boolean', default: false },
      q: { type: 'string' },
      qd: { type: 'string' },
      'asset-root': { type: 'string' },
      strict: { type: 'boolean', default: false },
      keyframe: { type: 'string' },
      repeats: { type: 'string' },
      backend: { type: 'string' },
      worlds: { type: 'string' },
      peers: { type: 'string' },
      settle: { type: 'string' },
      'warmup-ms': { type: 'string' },
      'peers-inline': { type: 'boolean', default: false },
      'linear-solver': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, target] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const print = (obj: unknown, text: () => string) =>
    console.log(
      values.json
        ? JSON.stringify(obj, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v))
        : text(),
    );
  switch (command) {
    case 'run': {
      if (!target) throw new Error('run: missing SCENE');
      const numWorlds =
        values['num-worlds'] !== undefined ? positiveInt(values['num-worlds'], '--num-worlds', 1) : undefined;
      const scene = await loadModelFile(target, { num_worlds: numWorlds, ...loadOptions(values) });
      reportWarnings(scene);
      const set: Record<string, unknown> = {};
      if (values.preset) set.contact_preset_variant = values.preset;
      if (values['line-search']) set.line_search_variant = values['line-search'];
      Object.assign(set, parseSet(values.set));
      const trace = values.trace !== undefined ? positiveInt(values.trace, '--trace', 1) : undefined;
      const runArgs = {
        steps: positiveInt(values.steps, '--steps', 100),
        dt: positiveNumber(values.dt, '--dt'),
        set,
        trace: trace || undefined,
      };
      const backend = values.backend;
      if (backend !== undefined && backend !== 'cpu' && backend !== 'webgpu') {
        throw new Error(`--backend: expected cpu or webgpu; got '${backend}'`);
      }
      const out = backend ? await runCommandBackend(scene, runArgs, backend) : runCommand(scene, runArgs);
      if (out.backend?.fallback) console.error(`warning: ${out.backend.fallback}`);
      print(out, () =>
        out.backend ? `backend ${out.backend.description}\n${formatRun(out)}` : formatRun(out),
      );
      return out.stats.status === 'invalid_input' ? 1 : 0;
    }
    case 'inspect': {
      if (!target) throw new Error('inspect: missing MODEL');
      const scene = await loadModelFile(target, { num_worlds: 1, ...loadOptions(values) });
      const out = inspectCommand(
        scene.name,
        scene.model,
        parseList(values.q, '--q'),
        parseList(values.qd, '--qd'),
        scene.warnings,
        scene.notes,
      );
      print(out, () => formatInspect(out));
      return 0;
    }
    case 'ablate': {
      if (!target) throw new Error('ablate: missing SCENE');
      const scene = await loadModelFile(target, loadOptions(values));
      reportWarnings(scene);
      const out = ablateCommand(
        scene,
        positiveInt(values.steps, '--steps', 100),
        positiveNumber(values.dt, '--dt'),
      );
      print(out, () => formatAblate(out));
      return 0;
    }
    case 'bench': {
      if (positionals[1] === 'webgpu') {
        const rows = await runBackendScaling({
          scene: positionals[2] ?? 'scenes/box_at_rest.yaml',
          worlds: parseList(values.worlds, '--worlds') ?? [1, 64, 256, 1024, 4096],
          steps: positiveInt(values.steps, '--steps', 5),
          warmup: 2,
        });
        const files = writeScalingResults(rows);
        print({ rows, files }, () => `${scalingMarkdown(rows)}\n\nwritten: ${files.json}, ${files.md}`);
        return 0;
      }
      const scenes = positionals.slice(1);
      const list = (x: string | undefined): string[] | undefined =>
        x === undefined
          ? undefined
          : x
              .split(',')
              .map((y) => y.trim())
              .filter(Boolean);
      const peers = (list(values.peers) ?? [...PEER_NAMES]).filter((x) => x !== 'none');
      for (const p of peers)
        if (!(PEER_NAMES as readonly string[]).includes(p))
          throw new Error(`--peers: expected ${PEER_NAMES.join(', ')} or none; got '${p}'`);
      const ls = values['linear-solver'];
      if (ls !== undefined && ls !== 'auto' && ls !== 'dense' && ls !== 'block_sparse') {
        throw new Error(`--linear-solver: expected auto, dense or block_sparse; got '${ls}'`);
      }
      const res = await runBench({
        scenes: scenes.length
          ? scenes
          : [
              'humanoid',
              'arm7',
              'pile_64',
              'pile_64_tumbling',
              'pile_64_landing',
              'pile_1000',
              'scaling',
              'sap_warp',
              'barkour',
            ],
        presets: list(values.preset) ?? ['approx32', 'drake'],
        line_searches: list(values['line-search']),
        islands: islandList(values.islands),
        variants: variantList(values.variant),
        num_worlds: parseList(values.worlds, '--worlds') ?? [1],
        backends: benchBackends(list(values.backend)),
        steps: values.steps !== undefined ? positiveInt(values.steps, '--steps', 1) : undefined,
        repeats: values.repeats !== undefined ? positiveInt(values.repeats, '--repeats', 1) : undefined,
        settle: values.settle !== undefined ? positiveInt(values.settle, '--settle', 0) : undefined,
        warmup_ms:
          values['warmup-ms'] !== undefined ? positiveInt(values['warmup-ms'], '--warmup-ms', 0) : undefined,
        peers: peers as PeerName[],
        peer_worker: values['peers-inline'] ? undefined : peerWorker(),
        linear_solver: ls,
        log: (line) => console.error(line),
      });
      const files = writeBenchResults(res);
      print({ ...res, files }, () => `${benchMarkdown(res)}\n\nwritten: ${files.json}, ${files.md}`);
      return 0;
    }
    case 'schema': {
      const schemas = { run: RunOutputSchema, inspect: InspectOutputSchema, ablate: AblateOutputSchema };
      const s = schemas[target as keyof typeof schemas];
      if (!s) throw new Error(`schema: expected one of run, inspect, ablate; got '${target}'`);
      console.log(JSON.stringify(zodToJsonSchema(s), null, 2));
      return 0;
    }
    default:
      console.error(`unknown command '${command}'\n${USAGE}`);
      return 2;
  }
}

const isEntry =
  process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '');
if (isEntry) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      const e = err as Error;
      console.error(`error: ${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message}`);
      process.exit(1);
    },
  );
}
