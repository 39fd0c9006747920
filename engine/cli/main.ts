/**
 * `npm run sim -- <command>`: the headless CLI (SPEC §9). USAGE below lists every command and
 * flag; exit codes are in `errors.ts` (0 ok, 1 the run failed or diverged, 2 usage). With `--json`
 * every outcome, a failure included, is one JSON document on stdout, written in full before the
 * process exits.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pkg from '../../package.json';
import { loadModelFile } from '../io/load_file';
import { normalizeSolverOptions } from '../sap/options';
import {
  PEER_NAMES,
  benchMarkdown,
  runBackendScaling,
  runBench,
  runBenchRepeated,
  type BenchOptions,
  scalingMarkdown,
  writeBenchResults,
  writeScalingResults,
  type PeerName,
} from './bench';
import { ablateCommand, inspectCommand, runCommand, runCommandBackend } from './commands';
import { EXIT, UsageError, errorDocument, exitCodeOf, exitWhenFlushed, isUsageError, toJson } from './errors';
import { formatAblate, formatInspect, formatRun } from './format';
import {
  AblateOutputSchema,
  ErrorOutputSchema,
  InspectOutputSchema,
  RunOutputSchema,
  type RunOutput,
} from './schema';
import { toJsonSchema } from '../io/json_schema';

/** the CLI's version: the package's */
export const VERSION: string = pkg.version;

const LOAD_FLAGS = `      --asset-root DIR    root of a scene's git-sourced assets (<DIR>/<repo>[/<rev>]/<path>); then
                          $SAP_STUDIO_ASSET_ROOT, ~/.cache/sap-studio/assets/<repo>/<rev>/, and the
                          scene's assets/ or ../assets/ (SAP Warp's layout)
      --keyframe K        an MJCF <key> (name or index) as the initial state
      --strict            refuse a model whose features the engine only approximates (default: warn)
      --allow-outside-assets
                          read files outside the model's folder and the asset roots (absolute
                          paths, '..' climbs in URDF, MJCF and USD references; default: refused)`;

/** per-command usage, printed by `<command> --help` */
const COMMAND_USAGE: Record<string, string> = {
  run: `usage: npm run sim -- run MODEL [options]
  Simulates a scene file (.yaml/.yml/.json), URDF, MJCF or USD on the CPU reference (or --backend)
  and prints the final state: bodies, joint_q, joint_qd, contacts and the solver's status.
      --steps N           steps to take (default 100)
      --duration S        simulated seconds instead of --steps (steps = round(S / dt))
      --dt S              time step [s] (default: the model's)
      --num-worlds N      replicate the model into N worlds
      --preset P          approx32 | approx64 | drake
      --line-search L     monotone_decay | armijo_decay | exact_root
      --set key=value     any solver option (repeatable), e.g. --set contact_sigma=0.01
      --trace K           record joint_q, joint_qd and the step's solver stats every K steps
      --backend B         cpu | webgpu (WebGPU falls back to the CPU with the reason)
      --json              one JSON document on stdout (schema: npm run sim -- schema run)
${LOAD_FLAGS}`,
  inspect: `usage: npm run sim -- inspect MODEL [options]
  Prints the model (bodies, joints, masses, inertias) and, at q and qd, M(q) and the bias forces.
      --q v,v,...         joint positions (default: the model's initial ones)
      --qd v,v,...        joint velocities
      --dense             write M(q) whole for models over 300 DOFs too (else its per-tree blocks)
      --json              one JSON document on stdout (schema: npm run sim -- schema inspect)
${LOAD_FLAGS}`,
  ablate: `usage: npm run sim -- ablate SCENE [options]
  The SPEC §3.8 series: Δprecision and Δmodel per step (2-norm, per world, max-abs) along the
  approx64 trajectory, and the three presets' trajectory divergence.
      --steps N           steps (default 100)
      --duration S        simulated seconds instead of --steps
      --dt S              time step [s]
      --json              one JSON document on stdout (schema: npm run sim -- schema ablate)
${LOAD_FLAGS}`,
  schema: `usage: npm run sim -- schema run|inspect|ablate|error
  Prints the JSON Schema of a command's --json output (error: the failure document).`,
  bench: `usage: npm run bench -- [SCENE|ID...] [options]
  CPU steps/s against MuJoCo (WebAssembly) and Rapier in one process; writes bench.json and bench.md.
      --preset P,…  --line-search L,… (monotone_decay, armijo_decay, exact_root, scene)
      --islands off,on  --variant key=value,…  (repeatable)  --backend cpu,webgpu  --worlds N,…
      --peers mujoco,mujoco_whole,mujoco_elliptic,rapier|none  --steps N  --repeats R  --settle N
      --warmup-ms MS  --peers-inline  --linear-solver auto|dense|block_sparse
      --warmup-max-ms MS  the warm-up's cap: after --warmup-ms (default 1000) it goes on until each
                          side's time per step is steady (default cap 5 × --warmup-ms)
      --repeat N          run the whole bench N times in this process and report each row's ratio
                          change between the runs (the repeat check; the tables are the last run's)
      --out DIR           where bench.json and bench.md go (default bench-results/)
      --json              the results as one JSON document on stdout
  npm run bench -- webgpu [SCENE] [--worlds 1,64,…] [--steps N] [--out DIR] [--json]: CPU vs WebGPU over num_worlds`,
};

const USAGE = `usage: npm run sim -- <command> [options]      (sap-studio ${VERSION})
  run MODEL        simulate a scene, URDF, MJCF or USD file and print the final state
  inspect MODEL    the model, M(q) and the bias forces
  ablate SCENE     Δprecision and Δmodel along a run (SPEC §3.8)
  schema CMD       the JSON Schema of a command's --json output
  bench [...]      steps/s against MuJoCo and Rapier (npm run bench)
  <command> --help shows that command's options.   --version prints the version.
exit codes: 0 ok; 1 the run failed or diverged (or its input could not be loaded); 2 usage.
With --json every outcome, failures included, is one JSON document on stdout.`;

/** the loader options of run, inspect and ablate */
function loadOptions(values: {
  'asset-root'?: string;
  keyframe?: string;
  strict?: boolean;
  'allow-outside-assets'?: boolean;
}): {
  asset_root?: string;
  keyframe?: string | number;
  strict: boolean;
  allow_outside_assets: boolean;
} {
  const k = values.keyframe;
  return {
    asset_root: values['asset-root'],
    strict: values.strict === true,
    allow_outside_assets: values['allow-outside-assets'] === true,
    ...(k !== undefined ? { keyframe: /^\d+$/.test(k) ? Number(k) : k } : {}),
  };
}

function parseSet(items: string[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of items ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set expects key=value; got '${item}'`);
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
      if (pairs.length === 0) throw new UsageError(`--variant expects key=value[,key=value…]; got '${v}'`);
      try {
        return normalizeSolverOptions(parseSet(pairs));
      } catch (e) {
        throw new UsageError(`--variant: ${(e as Error).message}`);
      }
    }),
  ];
}

/** `bench --backend cpu,webgpu` */
function benchBackends(xs: string[] | undefined): ('cpu' | 'webgpu')[] | undefined {
  if (xs === undefined) return undefined;
  for (const x of xs)
    if (x !== 'cpu' && x !== 'webgpu') throw new UsageError(`--backend: expected cpu or webgpu; got '${x}'`);
  return xs as ('cpu' | 'webgpu')[];
}

/** `bench --islands off,on` → solve_islands values */
function islandList(s: string | undefined): boolean[] | undefined {
  if (s === undefined) return undefined;
  return s.split(',').map((x) => {
    const t = x.trim();
    if (t === 'on' || t === 'true') return true;
    if (t === 'off' || t === 'false') return false;
    throw new UsageError(`--islands: expected comma-separated on/off; got '${s}'`);
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
    throw new UsageError(`${flag}: expected comma-separated numbers; got '${s}'`);
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
  if (!Number.isInteger(n) || n < 0)
    throw new UsageError(`${flag}: expected a non-negative integer; got '${s}'`);
  return n;
}

function positiveNumber(s: string | undefined, flag: string): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(s);
  if (!(n > 0) || !Number.isFinite(n))
    throw new UsageError(`${flag}: expected a positive number; got '${s}'`);
  return n;
}

/** the steps of `--steps N` or `--duration S` (at the time step dt) */
function stepCount(values: { steps?: string; duration?: string }, dt: number, dflt: number): number {
  if (values.steps !== undefined && values.duration !== undefined)
    throw new UsageError('give --steps or --duration, not both');
  if (values.duration !== undefined) {
    const d = positiveNumber(values.duration, '--duration')!;
    return Math.max(1, Math.round(d / dt));
  }
  return positiveInt(values.steps, '--steps', dflt);
}

const OPTIONS = {
  steps: { type: 'string' },
  duration: { type: 'string' },
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
  keyframe: { type: 'string' },
  strict: { type: 'boolean', default: false },
  repeats: { type: 'string' },
  backend: { type: 'string' },
  worlds: { type: 'string' },
  peers: { type: 'string' },
  settle: { type: 'string' },
  'warmup-ms': { type: 'string' },
  'warmup-max-ms': { type: 'string' },
  repeat: { type: 'string' },
  'peers-inline': { type: 'boolean', default: false },
  'linear-solver': { type: 'string' },
  out: { type: 'string' },
  dense: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'V', default: false },
  'allow-outside-assets': { type: 'boolean', default: false },
} as const;

const LOAD = ['asset-root', 'keyframe', 'strict', 'allow-outside-assets'];
const COMMON = ['json', 'help', 'version'];
/** the flags each command takes: any other is refused (a flag that would change nothing) */
const COMMAND_FLAGS: Record<string, readonly string[]> = {
  run: [
    ...COMMON,
    ...LOAD,
    'steps',
    'duration',
    'dt',
    'num-worlds',
    'preset',
    'line-search',
    'set',
    'trace',
    'backend',
  ],
  inspect: [...COMMON, ...LOAD, 'q', 'qd', 'dense'],
  ablate: [...COMMON, ...LOAD, 'steps', 'duration', 'dt'],
  schema: COMMON,
  bench: [
    ...COMMON,
    'preset',
    'line-search',
    'islands',
    'variant',
    'backend',
    'worlds',
    'peers',
    'steps',
    'repeats',
    'settle',
    'warmup-ms',
    'warmup-max-ms',
    'repeat',
    'peers-inline',
    'linear-solver',
    'out',
  ],
};

/** refuses the flags a command does not take */
function checkFlags(command: string, values: Record<string, unknown>): void {
  const allowed = COMMAND_FLAGS[command];
  if (!allowed) return;
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined || v === false || allowed.includes(k)) continue;
    throw new UsageError(
      `${command} does not take --${k} (npm run sim -- ${command} --help lists its options)`,
    );
  }
}

/** a run's exit code: 0 when every step converged, 1 when the solver's accuracy was not met, it diverged, or values went non-finite */
export function runExitCode(out: RunOutput): number {
  return out.stats.status === 'converged' ? EXIT.ok : EXIT.failed;
}

/**
 * runs the CLI on `argv` and returns its exit code; output goes to stdout (the result) and stderr
 * (warnings, progress). Failures are printed, not thrown: as `error: …` on stderr, or with
 * `--json` as the JSON error document on stdout.
 */
export async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  try {
    return await dispatch(argv);
  } catch (err) {
    if (json) console.log(toJson(errorDocument(err)));
    else {
      const e = err as Error;
      const name = e?.name && !['Error', 'TypeError', 'UsageError'].includes(e.name) ? `${e.name}: ` : '';
      const doc = errorDocument(err);
      console.error(`error: ${name}${doc.error.message}`);
      if (isUsageError(err)) console.error(`(npm run sim -- --help lists the commands and options)`);
    }
    return exitCodeOf(err);
  }
}

async function dispatch(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  const [command, target] = positionals;
  if (values.version) {
    console.log(values.json ? toJson({ name: 'sap-studio', version: VERSION }) : `sap-studio ${VERSION}`);
    return EXIT.ok;
  }
  if (values.help) {
    console.log((command && COMMAND_USAGE[command]) || USAGE);
    return EXIT.ok;
  }
  if (!command) {
    console.error(USAGE);
    return EXIT.usage;
  }
  checkFlags(command, values);
  const print = (obj: unknown, text: () => string) => console.log(values.json ? toJson(obj) : text());
  switch (command) {
    case 'run': {
      if (!target) throw new UsageError('run: missing MODEL (a scene, URDF, MJCF or USD file)');
      const numWorlds =
        values['num-worlds'] !== undefined ? positiveInt(values['num-worlds'], '--num-worlds', 1) : undefined;
      const backend = values.backend;
      if (backend !== undefined && backend !== 'cpu' && backend !== 'webgpu') {
        throw new UsageError(`--backend: expected cpu or webgpu; got '${backend}'`);
      }
      const trace = values.trace !== undefined ? positiveInt(values.trace, '--trace', 1) : undefined;
      const dtFlag = positiveNumber(values.dt, '--dt');
      const set: Record<string, unknown> = {};
      if (values.preset) set.contact_preset_variant = values.preset;
      if (values['line-search']) set.line_search_variant = values['line-search'];
      Object.assign(set, parseSet(values.set));
      // the flags' option values are usage errors (the scene file's own are input errors)
      try {
        normalizeSolverOptions(set);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      const scene = await loadModelFile(target, { num_worlds: numWorlds, ...loadOptions(values) });
      reportWarnings(scene);
      const runArgs = {
        steps: stepCount(values, dtFlag ?? scene.dt, 100),
        dt: dtFlag,
        set,
        trace: trace || undefined,
      };
      const out = backend ? await runCommandBackend(scene, runArgs, backend) : runCommand(scene, runArgs);
      // the run's own warnings (flags without effect, dropped contacts) after the loader's
      if (!values.json)
        for (const w of out.warnings.slice(scene.warnings.length)) console.error(`warning: ${w}`);
      if (out.backend?.fallback) console.error(`warning: ${out.backend.fallback}`);
      if (out.stats.reason && !values.json) console.error(`${out.stats.status}: ${out.stats.reason}`);
      print(out, () =>
        out.backend ? `backend ${out.backend.description}\n${formatRun(out)}` : formatRun(out),
      );
      return runExitCode(out);
    }
    case 'inspect': {
      if (!target) throw new UsageError('inspect: missing MODEL');
      const q = parseList(values.q, '--q');
      const qd = parseList(values.qd, '--qd');
      const scene = await loadModelFile(target, { num_worlds: 1, ...loadOptions(values) });
      const out = inspectCommand(scene.name, scene.model, q, qd, scene.warnings, scene.notes, {
        dense: values.dense ? true : undefined,
      });
      print(out, () => formatInspect(out));
      return EXIT.ok;
    }
    case 'ablate': {
      if (!target) throw new UsageError('ablate: missing SCENE');
      const dt = positiveNumber(values.dt, '--dt');
      const scene = await loadModelFile(target, loadOptions(values));
      reportWarnings(scene);
      const out = ablateCommand(scene, stepCount(values, dt ?? scene.dt, 100), dt);
      print(out, () => formatAblate(out));
      return EXIT.ok;
    }
    case 'bench': {
      const outDir = values.out ?? 'bench-results';
      if (positionals[1] === 'webgpu') {
        const rows = await runBackendScaling({
          scene: positionals[2] ?? 'scenes/box_at_rest.yaml',
          worlds: parseList(values.worlds, '--worlds') ?? [1, 64, 256, 1024, 4096],
          steps: positiveInt(values.steps, '--steps', 5),
          warmup: 2,
        });
        const files = writeScalingResults(rows, outDir);
        print({ rows, files }, () => `${scalingMarkdown(rows)}\n\nwritten: ${files.json}, ${files.md}`);
        return EXIT.ok;
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
          throw new UsageError(`--peers: expected ${PEER_NAMES.join(', ')} or none; got '${p}'`);
      const ls = values['linear-solver'];
      if (ls !== undefined && ls !== 'auto' && ls !== 'dense' && ls !== 'block_sparse') {
        throw new UsageError(`--linear-solver: expected auto, dense or block_sparse; got '${ls}'`);
      }
      const benchOptions: BenchOptions = {
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
        warmup_max_ms:
          values['warmup-max-ms'] !== undefined
            ? positiveInt(values['warmup-max-ms'], '--warmup-max-ms', 0)
            : undefined,
        linear_solver: ls,
        log: (line) => console.error(line),
      };
      const runs = positiveInt(values.repeat, '--repeat', 1);
      if (runs < 1) throw new UsageError(`--repeat: expected at least 1 run; got '${values.repeat}'`);
      const res = runs > 1 ? await runBenchRepeated(benchOptions, runs) : await runBench(benchOptions);
      const files = writeBenchResults(res, outDir);
      print({ ...res, files }, () => `${benchMarkdown(res)}\n\nwritten: ${files.json}, ${files.md}`);
      return EXIT.ok;
    }
    case 'schema': {
      const schemas = {
        run: RunOutputSchema,
        inspect: InspectOutputSchema,
        ablate: AblateOutputSchema,
        error: ErrorOutputSchema,
      };
      const s = schemas[target as keyof typeof schemas];
      if (!s)
        throw new UsageError(`schema: expected one of run, inspect, ablate, error; got '${target ?? ''}'`);
      console.log(JSON.stringify(toJsonSchema(s), null, 2));
      return EXIT.ok;
    }
    default:
      throw new UsageError(`unknown command '${command}' (run, inspect, ablate, schema, bench)`);
  }
}

const isEntry =
  process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '');
if (isEntry) {
  main(process.argv.slice(2)).then(exitWhenFlushed, (err: unknown) => {
    // main prints its failures; this is a failure of the printing itself
    console.error(`error: ${(err as Error)?.message ?? String(err)}`);
    exitWhenFlushed(EXIT.failed);
  });
}
