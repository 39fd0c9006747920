/**
 * `npm run bench`: scenes × presets × line searches × backend × num_worlds (SPEC §10), with peers
 * measured in the same process: MuJoCo's official WebAssembly build and Rapier, on the same
 * scenes, dt and (for the piles) the same starting state.
 *
 * Per scene: load, settle once with the scene's own options until the measured phase (a settled
 * or landing pile, a fallen humanoid, …; cached in bench-results/settled) and snapshot the state;
 * then every configuration is built and warmed up in untimed rounds (JIT tier-up), and timed in
 * `repeats` interleaved rounds — each round restarts every configuration from the snapshot, takes
 * the scene's untimed lead-in steps and times `steps` steps — reporting the median steps/s, the
 * real-time factor, mean Newton and line-search iterations, contacts per world and the mean time
 * per stage (StepReport.timing + collision).
 * Peers start from the same snapshot where the state carries over (piles, arm7) or run their own
 * warm-up of the same simulated duration (humanoid, loaded from the same MJCF), and are timed in the
 * same rounds, right after our configurations, every round from that same start state (as ours), so
 * a change of machine load during the run falls on ours and the peers alike; ratios are ours / peer
 * from the same run. With {@link BenchOptions.peer_worker} each peer runs in a worker thread of its
 * own (peers/peer_worker.ts), which keeps their WebAssembly memories' growth out of our isolate.
 * Writes bench-results/bench.json and bench.md.
 * `bench webgpu` compares the CPU and WebGPU backends over num_worlds.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { loadModelFile, type LoadFileOptions, type LoadedSceneFile } from '../io/load_file';
import { BackendSimulation, createBackend } from '../backends';
import { JointType, type SapModel } from '../model';
import { applyControlSequence, Simulation, type StageMs, type StepReport } from '../pipeline';
import type { LinearSolverMode } from '../sap/solver';
import { cloneState, copyState, type SapState } from '../state';
import type { PeerWorkerReply, PeerWorkerRequest } from './peers/peer_worker';
import { startMujoco, startRapier, type PeerRunner, type PeerSetup } from './peers/runners';
import { pileSceneYaml, type PileGrid } from './pile';
import { repeatCheck, repeatCheckMarkdown, type RepeatCheck } from './bench_repeat';
import { PEER_NAMES, type BenchScene, type PeerName, type PeerRow } from './bench_scene';
import {
  countedMs,
  knowsRunQueueWaits,
  median,
  MIN_ROUND_MS,
  runQueueWaitMs,
  pairedRatio,
  ratioSpread,
  warmUp,
  WARMUP_MS,
  WARMUP_TOLERANCE,
  type RatioSpread,
  type Span,
  type WarmUpReport,
} from './timing';

export { PEER_NAMES, type BenchScene, type PeerName, type PeerRow };

/** the bench table's ratio column of each peer */
const PEER_COLUMNS: Record<PeerName, string> = {
  mujoco: 'ours/MuJoCo',
  mujoco_whole: 'ours/MuJoCo, its islands off',
  mujoco_elliptic: 'ours/MuJoCo, elliptic cones',
  rapier: 'ours/Rapier',
};
export type BenchBackend = 'cpu' | 'webgpu';

/**
 * SAP's friction regularization Rt = σ·w at σ = 0.1 (default 1e-3): about the softness of
 * MuJoCo's default friction (R = (1 − d)/d · Â with impedance d of 0.9–0.99, impratio 1). Measured
 * beside the default on the humanoid and the landing piles: it shows how much of the Newton
 * iteration count, and so of the gap to the peer and of the contact scaling, is the model's stiff
 * stiction rather than the solver.
 */
const SOFT_FRICTION: Record<string, unknown>[] = [{}, { contact_sigma: 0.1 }];

/** the built-in benchmark scenes (ids for the command line) */
/** the 64-box pile at rest (bench scene pile_64; pile_64_tumbling is it at an earlier phase) */
const PILE_64: BenchScene = {
  file: 'scenes/pile_64.yaml',
  settle: 1000,
  steps: 60,
  repeats: 16,
  arrangements: 8,
  snapshots: 2,
  snapshot_spacing: 20,
  line_searches: ['monotone_decay', 'exact_root'],
  islands: [false, true],
  peers: ['mujoco', 'mujoco_whole', 'mujoco_elliptic', 'rapier'],
  lead_in: 25,
};

export const BENCH_SCENES: Record<string, BenchScene> = {
  humanoid: {
    file: '../shared/assets/mujoco/humanoid/humanoid.xml',
    settle: 200,
    steps: 200,
    repeats: 15,
    line_searches: ['monotone_decay', 'exact_root'],
    variants: SOFT_FRICTION,
    peers: ['mujoco', 'mujoco_elliptic'],
    mjcf: '../shared/assets/mujoco/humanoid/humanoid.xml',
  },
  arm7: {
    file: 'scenes/arm7.yaml',
    settle: 50,
    steps: 300,
    // (a round of 300 steps takes ~4 ms: many rounds, so that the median passes by the loaded ones)
    repeats: 61,
    line_searches: ['monotone_decay', 'exact_root'],
    peers: ['mujoco'],
    sinusoid: { amplitude: 0.3, hz: 0.5 },
  },
  // the pile at rest: 2 s after the drop every box lies still (rms velocity ~1e-4), eight
  // arrangements of it, two start states 20 steps apart each, each state timed once
  pile_64: PILE_64,
  // the same pile 0.8 s after the drop, as its last boxes tip over (rms velocity ~0.5, up to
  // 15 m/s or rad/s): every step a different contact problem, and each engine's cost varies by up
  // to 2× from state to state, hence sixteen states again
  pile_64_tumbling: { ...PILE_64, settle: 380, line_searches: ['monotone_decay'] },
  // pile_64 in pile_1000's phase (0.2 s after the drop + the same lead-in: bottom layers landing),
  // so that the contact-scaling fit compares like with like
  pile_64_landing: {
    file: 'scenes/pile_64.yaml',
    settle: 100,
    steps: 20,
    repeats: 7,
    line_searches: ['monotone_decay'],
    islands: [false, true],
    variants: SOFT_FRICTION,
    peers: ['mujoco', 'mujoco_whole', 'mujoco_elliptic', 'rapier'],
    lead_in: 20,
  },
  pile_1000: {
    file: 'scenes/pile_1000.yaml',
    settle: 100,
    // (Newton iterations per step range from 30 to 90 here: 6 steps average them somewhat)
    steps: 6,
    repeats: 1,
    line_searches: ['monotone_decay'],
    islands: [false, true],
    variants: SOFT_FRICTION,
    peers: ['mujoco', 'mujoco_elliptic', 'rapier'],
    lead_in: 20,
  },
};

/**
 * A generated pile of the contact-scaling series, timed in pile_1000's phase (0.2 s after the drop
 * and the same lead-in: its lower layers landing) like pile_64_landing, with the peers that run it in
 * reasonable time, so that each engine's growth is fitted over the same piles.
 */
function scalingPile(g: PileGrid, steps: number, repeats: number, peers: PeerName[]): BenchScene {
  return {
    file: `bench-results/scenes/pile_${g.nx}x${g.ny}x${g.nz}.yaml`,
    pile: g,
    settle: 100,
    steps,
    repeats,
    line_searches: ['monotone_decay'],
    variants: SOFT_FRICTION,
    peers,
    lead_in: 20,
  };
}
/** MuJoCo with both friction cones, and Rapier */
const MUJOCO_BOTH_AND_RAPIER: PeerName[] = ['mujoco', 'mujoco_elliptic', 'rapier'];
// between the 4×4×4 and the 10×10×10 pile: the same cubic grid
BENCH_SCENES.pile_216_landing = scalingPile({ nx: 6, ny: 6, nz: 6 }, 10, 5, MUJOCO_BOTH_AND_RAPIER);
BENCH_SCENES.pile_512_landing = scalingPile({ nx: 8, ny: 8, nz: 8 }, 6, 3, MUJOCO_BOTH_AND_RAPIER);
// four layers like the 4×4×4 pile, on a wider grid: more contacts at the same stack height
BENCH_SCENES.pile_256_flat = scalingPile({ nx: 8, ny: 8, nz: 4 }, 10, 3, MUJOCO_BOTH_AND_RAPIER);
// (no MuJoCo: with it, this scene's bench had not finished after ten minutes; its dense solver
// takes 0.22 s a step on pile_256_flat's ~1300 contacts, and this pile has ~5900; three rounds: with
// one, Rapier read 107 and 46 steps/s in two runs)
BENCH_SCENES.pile_1024_flat = scalingPile({ nx: 16, ny: 16, nz: 4 }, 6, 3, ['rapier']);

// a robot colliding through mesh hulls (25 of them, its feet of 1495 hull vertices): MuJoCo
// Menagerie's Barkour vB standing from its 'home' keyframe (at qpos0 its legs start through the floor)
BENCH_SCENES.barkour = {
  file: '../shared/assets/mujoco_menagerie/google_barkour_vb/scene.xml',
  keyframe: 'home',
  lenient: true,
  settle: 300,
  steps: 100,
  repeats: 41,
  line_searches: ['monotone_decay'],
  peers: ['mujoco'],
};

/** the SAP Warp example scenes (../shared/reference/sap_warp), bench ids `sapwarp_<name>` */
export const SAP_WARP_SCENES = [
  'agilex_piper_urdf',
  'anymal_c_urdf',
  'anymal_d_usd',
  'basic_ant_usd',
  'basic_cartpole_usd',
  'franka_panda_cube_urdf',
  'franka_panda_urdf',
  'free_cube',
  'multi_joints',
  'unitree_g1_usd',
  'unitree_h1_usd',
  'universal_ur10_usd',
] as const;
for (const name of SAP_WARP_SCENES) {
  BENCH_SCENES[`sapwarp_${name}`] = {
    file: `../shared/reference/sap_warp/scenes/${name}.yaml`,
    asset_root: '../shared/reference/sap_warp/assets',
    lenient: true,
    settle: 100,
    steps: 100,
    // a robot's 100 steps take 0.2–5 ms: 201 short rounds of at least MIN_ROUND_MS each
    // (timing.ts), so that the median of the per-round ratios passes by the rounds a burst of
    // machine load or a descheduling falls in (with 5 rounds of one play each, the Piper's ratio
    // read 0.90 in 2 runs of 12 against 1.3–1.4; with 41 rounds of ≥ 4 ms, 1.89 against 0.96)
    repeats: 201,
    // SAP Warp's default, and the scene's own (armijo_decay in all but multi_joints)
    line_searches: ['monotone_decay', 'scene'],
    peers: ['mujoco', 'rapier'],
  };
}

/** bench ids that stand for several scenes */
export const BENCH_GROUPS: Record<string, string[]> = {
  sap_warp: SAP_WARP_SCENES.map((n) => `sapwarp_${n}`),
  scaling: ['pile_216_landing', 'pile_512_landing', 'pile_256_flat', 'pile_1024_flat'],
};

/** mean milliseconds per step and stage */
export interface BenchStageMs extends StageMs {
  /** collision + SolverSAP.step */
  total: number;
}

export interface BenchRow {
  scene: string;
  preset: string;
  line_search: string;
  /** solve_islands of the configuration */
  solve_islands: boolean;
  /** solver options set on top of the scene, preset, line search and islands (`--variant`; {} none) */
  overrides: Record<string, unknown>;
  backend: BenchBackend;
  num_worlds: number;
  dt: number;
  steps_per_s: number;
  real_time_factor: number;
  newton_iterations_mean: number;
  line_search_iterations_mean: number;
  contacts_per_world: number;
  /** constraint islands per world (1 when solved whole) */
  islands_per_world: number;
  /** factorization chosen by SapSolver ('auto' unless --linear-solver) */
  linear_solver: string;
  stage_ms: BenchStageMs;
  /**
   * ours / peer steps/s (same run), per peer measured on this scene: the median over the timed
   * rounds of the round's ratio (both engines timed in the same round from the same start state;
   * see {@link pairedRatio})
   */
  ratio?: Partial<Record<PeerName, number>>;
  /** ours / peer as the ratio of the two medians over the rounds (steps_per_s / the peer's) */
  ratio_of_medians?: Partial<Record<PeerName, number>>;
  /**
   * the spread of the per-round ratios behind {@link BenchRow.ratio}: quartiles, range and the
   * number of rounds, per peer
   */
  ratio_spread?: Partial<Record<PeerName, RatioSpread>>;
  /** how the configuration's untimed warm-up went (time, steps, steady state before the cap) */
  warmup?: WarmUpReport;
}

export interface BenchOptions {
  /** scene ids of {@link BENCH_SCENES} or scene files */
  scenes: string[];
  presets: string[];
  /** overrides each scene's line_searches */
  line_searches?: string[];
  /** overrides each scene's solve_islands values */
  islands?: boolean[];
  /**
   * sets of solver options (validated, normalized: `normalizeSolverOptions`), each measured as
   * configurations of its own beside the others in the same interleaved rounds (default [{}]:
   * the scene's options only)
   */
  variants?: Record<string, unknown>[];
  num_worlds: number[];
  /** backends measured (default cpu); webgpu falls back with a note when it cannot run */
  backends?: BenchBackend[];
  /** overrides steps / repeats / settle of every scene */
  steps?: number;
  repeats?: number;
  settle?: number;
  peers: PeerName[];
  linear_solver?: LinearSolverMode;
  /**
   * the least untimed warm-up per configuration and per peer before the timed rounds [ms] (default
   * {@link WARMUP_MS}; at least 3 steps), after which it goes on until steady (timing.ts `warmUp`)
   */
  warmup_ms?: number;
  /** the warm-up's cap [ms] (default WARMUP_CAP_FACTOR × warmup_ms) */
  warmup_max_ms?: number;
  /**
   * the peer worker module (a bundled peer_worker.ts that plain node runs): each peer then runs in a
   * worker thread of its own, its own V8 isolate (see peer_worker.ts for why). Without it the
   * peers run in the bench's thread, and their WebAssembly memories' growth costs our JS ~6–9%.
   */
  peer_worker?: string | URL;
  /** folder of cached settled states ({@link SETTLE_CACHE}); null: always settle, cache nothing */
  settle_cache?: string | null;
  /** progress lines (stderr) */
  log?: (line: string) => void;
}

export interface BenchResult {
  rows: BenchRow[];
  peers: PeerRow[];
  notes: string[];
  /**
   * fitted exponent p of per-step time ∝ contacts^p over each series of {@link SCALING_SERIES}
   * (least squares in log–log over the series' piles measured), per preset × line search × islands
   * × variant
   */
  contact_scaling: {
    /** the series' name */
    series: string;
    preset: string;
    line_search: string;
    solve_islands: boolean;
    overrides: Record<string, unknown>;
    /** the least-squares slope of ln t over ln contacts */
    exponent: number;
    /** the slopes between consecutive piles */
    local: number[];
    from: string;
    to: string;
    points: { scene: string; contacts_per_world: number; steps_per_s: number }[];
  }[];
  /**
   * the same fit for each peer over the piles it ran, against its own contact count (its rows in
   * {@link BenchResult.peers}): how its per-step time grows over the same piles
   */
  peer_contact_scaling: {
    series: string;
    peer: PeerName;
    /** the peer's name and version as in its rows */
    version: string;
    exponent: number;
    local: number[];
    from: string;
    to: string;
    points: { scene: string; contacts: number; steps_per_s: number }[];
  }[];
  /**
   * with `--repeat N` ({@link runBenchRepeated}): each row's ratio in each of the N runs and its
   * change between them (the rows and peers above are the last run's)
   */
  repeat_check?: RepeatCheck;
}

function sceneSpec(id: string): { id: string; spec: BenchScene } {
  const s = BENCH_SCENES[id];
  if (s) return { id, spec: s };
  return {
    id: path.basename(id).replace(/\.[^.]+$/, ''),
    spec: {
      file: id,
      settle: 100,
      steps: 200,
      repeats: 3,
      line_searches: ['monotone_decay'],
      peers: ['mujoco', 'rapier'],
    },
  };
}

/** PD targets along the scene's sinusoid at time t */
function applySinusoid(
  spec: BenchScene,
  q0: Float64Array,
  targets: Float64Array,
  driven: number[],
  t: number,
): void {
  if (!spec.sinusoid) return;
  const s = spec.sinusoid.amplitude * Math.sin(2 * Math.PI * spec.sinusoid.hz * t);
  for (const d of driven) targets[d] = q0[d] + s;
}

/** what the timing loop needs of Simulation (CPU, synchronous) and BackendSimulation (async) */
interface Stepper {
  readonly model: Simulation['model'];
  /** per-stage clock reads (CPU simulation; see SolverSAP.stage_timing) */
  stage_timing?: boolean;
  state: SapState;
  readonly control: Simulation['control'];
  step(): StepReport | Promise<StepReport>;
}

/** per-step sums of one configuration over its timed rounds */
interface StepStats {
  n: number;
  /** steps whose stage times are in `stage` (the profiled round) */
  nStage: number;
  it: number;
  ls: number;
  contacts: number;
  islands: number;
  stage: BenchStageMs;
}

function newStepStats(): StepStats {
  return {
    n: 0,
    nStage: 0,
    it: 0,
    ls: 0,
    contacts: 0,
    islands: 0,
    stage: { collision: 0, free_motion: 0, constraints: 0, solve: 0, integrate: 0, total: 0 },
  };
}

/**
 * times `steps` steps and returns their span (wall ms and the thread's run-queue waits in it, read
 * outside the timed span: timing.ts `timeSpan`); adds the reports' iterations and contacts to
 * `acc` and, when `stages`, their stage times (otherwise the step does not read the clock per stage)
 */
async function timeRound(
  sim: Stepper,
  steps: number,
  before: (sim: Stepper) => void,
  acc: StepStats,
  stages = false,
): Promise<Span> {
  if (sim.stage_timing !== undefined) sim.stage_timing = stages;
  const nw = sim.model.num_worlds;
  const stage = acc.stage;
  const w0 = runQueueWaitMs();
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) {
    before(sim);
    const r = sim.step();
    // the CPU path stays synchronous: no await (microtask) per step
    const rep: StepReport = r instanceof Promise ? await r : r;
    acc.it += rep.iterations_mean;
    acc.ls += rep.line_search_iterations / nw;
    acc.contacts += rep.contact_count / nw;
    for (const w of rep.worlds) acc.islands += (w.islands ?? 1) / nw;
    acc.n++;
    if (!stages) continue;
    const tm = rep.timing;
    stage.collision += tm.collision ?? 0;
    stage.free_motion += tm.free_motion;
    stage.constraints += tm.constraints;
    stage.solve += tm.solve;
    stage.integrate += tm.integrate;
    stage.total += tm.total + (tm.collision ?? 0);
    acc.nStage++;
  }
  const ms = performance.now() - t0;
  const waited = runQueueWaitMs() - w0;
  return { ms, waited: Number.isFinite(waited) ? waited : 0 };
}

/**
 * The contact-scaling series, each from a 64-box pile to about a thousand boxes: the cubic grids in
 * the landing phase (the issue's 64 → 1000 boxes, with two generated sizes between), the tumbling
 * 64-box pile against the landing 1000 (two phases: an upper bound), and four-layer piles of
 * growing footprint in the landing phase (more contacts at the same stack height).
 */
export const SCALING_SERIES: { name: string; scenes: string[] }[] = [
  { name: 'landing', scenes: ['pile_64_landing', 'pile_216_landing', 'pile_512_landing', 'pile_1000'] },
  { name: 'tumbling → landing', scenes: ['pile_64_tumbling', 'pile_1000'] },
  { name: 'landing, four layers', scenes: ['pile_64_landing', 'pile_256_flat', 'pile_1024_flat'] },
];

/** where settled snapshots are kept between bench runs (ignored by git) */
export const SETTLE_CACHE = 'bench-results/settled';

let engineHash: string | undefined;

/**
 * a hash of the engine's sources (engine/**.ts without tests): a settled state belongs to the code
 * that produced it, since a bit-level change of the solver moves a contact-rich trajectory (and with
 * it the pile's Newton counts) anywhere
 */
function engineSourceHash(): string {
  if (engineHash !== undefined) return engineHash;
  // (scripts/cli.mjs hashes the same sources, with package.json, to find its bundle, and passes it on)
  const given = process.env.SAP_ENGINE_HASH;
  if (given && /^[0-9a-f]{64}$/.test(given)) return (engineHash = given);
  // (the bundled CLI, scripts/cli.mjs, names the engine folder: this module is not in it then)
  const root =
    process.env.SAP_ENGINE_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const f = path.join(dir, e.name);
      if (e.isDirectory()) walk(f);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) files.push(f);
    }
  };
  walk(root);
  files.sort();
  const h = createHash('sha256');
  for (const f of files) {
    h.update(path.relative(root, f));
    h.update(readFileSync(f));
  }
  engineHash = h.digest('hex');
  return engineHash;
}

/**
 * the cache file of a settled state: scene file content, solver options, settle length, worlds and
 * the engine's sources
 */
function settleKey(
  dir: string,
  file: string,
  solver: Record<string, unknown>,
  settle: number,
  nw: number,
  arrangement: number,
): string {
  const h = createHash('sha256');
  h.update(readFileSync(file));
  h.update(JSON.stringify(solver));
  h.update(`${settle}/${nw}`);
  if (arrangement > 0) h.update(`/arrangement ${arrangement}`);
  h.update(engineSourceHash());
  const a = arrangement > 0 ? `a${arrangement}_` : '';
  return path.join(
    dir,
    `${path.basename(file).replace(/\.[^.]+$/, '')}_${settle}_${nw}_${a}${h.digest('hex').slice(0, 16)}.json`,
  );
}

/**
 * Arrangement k > 0 of a scene's start ({@link BenchScene.arrangements}): every free body turned
 * about the world z axis by an angle in [−2°, 2°] and shifted in x and y by up to 1 mm, from a
 * generator seeded with k (the same k gives the same start on every machine).
 */
export function jitterFreeBodies(m: SapModel, st: SapState, k: number): void {
  let seed = (k * 2654435761) >>> 0 || 1;
  const next = (): number => {
    // xorshift32
    seed ^= seed << 13;
    seed >>>= 0;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    seed >>>= 0;
    return seed / 4294967296;
  };
  const q = st.joint_q;
  for (let j = 0; j < m.joint_count; j++) {
    if (m.joint_type[j] !== JointType.FREE) continue;
    const o = m.joint_q_start[j];
    q[o] += (2 * next() - 1) * 1e-3;
    q[o + 1] += (2 * next() - 1) * 1e-3;
    const half = ((2 * next() - 1) * 2 * Math.PI) / 360;
    const s = Math.sin(half);
    const c = Math.cos(half);
    // q ← (0, 0, s, c) ⊗ q, quaternions xyzw
    const x = q[o + 3],
      y = q[o + 4],
      z = q[o + 5],
      w = q[o + 6];
    q[o + 3] = c * x - s * y;
    q[o + 4] = c * y + s * x;
    q[o + 5] = c * z + s * w;
    q[o + 6] = c * w - s * z;
  }
}

/** restores the cached settled joint state of `file` into `st`; false when there is none */
function readSettleCache(file: string, st: SapState): boolean {
  if (!existsSync(file)) return false;
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as {
      time: number;
      joint_q: number[];
      joint_qd: number[];
    };
    if (c.joint_q.length !== st.joint_q.length || c.joint_qd.length !== st.joint_qd.length) return false;
    st.joint_q.set(c.joint_q);
    st.joint_qd.set(c.joint_qd);
    st.time = c.time;
    return true;
  } catch {
    return false;
  }
}

function writeSettleCache(file: string, st: SapState): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify({ time: st.time, joint_q: Array.from(st.joint_q), joint_qd: Array.from(st.joint_qd) }),
  );
}

/**
 * Runs the benchmark. Never throws for a peer or scene that cannot run: it is skipped with a note.
 */
export async function runBench(o: BenchOptions): Promise<BenchResult> {
  const log = o.log ?? (() => {});
  const warmupMs = o.warmup_ms ?? WARMUP_MS;
  const warmupMaxMs = o.warmup_max_ms;
  const rows: BenchRow[] = [];
  const peers: PeerRow[] = [];
  const notes: string[] = [];
  for (const sid of o.scenes.flatMap((x) => BENCH_GROUPS[x] ?? [x])) {
    if (!BENCH_SCENES[sid] && !existsSync(sid)) {
      notes.push(
        `${sid}: not measured, neither a bench id (${[...Object.keys(BENCH_SCENES), ...Object.keys(BENCH_GROUPS)].join(', ')}) nor a scene file`,
      );
      continue;
    }
    const { id, spec } = sceneSpec(sid);
    const steps = o.steps ?? spec.steps;
    const repeats = o.repeats ?? spec.repeats;
    const settle = o.settle ?? spec.settle;
    if (spec.pile) {
      mkdirSync(path.dirname(spec.file), { recursive: true });
      writeFileSync(spec.file, pileSceneYaml(id, spec.pile));
    }
    // how the scene file loads, for us and for the peers' worker
    const fileOptions: LoadFileOptions = {
      ...(spec.asset_root ? { asset_root: spec.asset_root } : {}),
      strict: spec.lenient !== true, // the scenes not marked lenient are measured only as built exactly
      keyframe: spec.keyframe,
    };
    for (const nw of o.num_worlds) {
      let scene: LoadedSceneFile;
      try {
        scene = await loadModelFile(spec.file, { num_worlds: nw, ...fileOptions });
        if (nw === o.num_worlds[0])
          for (const w of scene.warnings)
            notes.push(`${id}: loaded with a warning: ${w.length > 200 ? `${w.slice(0, 200)}…` : w}`);
      } catch (e) {
        notes.push(`${id}: not measured, ${spec.file} does not load (${(e as Error).message})`);
        continue;
      }
      const m = scene.model;
      const dt = scene.dt;
      const mkSim = (solver: Record<string, unknown>): Simulation => {
        const sim = new Simulation(m, { dt, solver, max_rigid_contact: scene.max_rigid_contact });
        if (o.linear_solver) sim.solver.linear_solver = o.linear_solver;
        return sim;
      };
      // driven dofs and their initial targets (sinusoid scenes)
      const driven: number[] = [];
      for (let d = 0; d < m.joint_dof_count; d++)
        if (m.joint_target_ke[d] > 0 || m.joint_target_kd[d] > 0) driven.push(d);
      const ref = mkSim(scene.solver);
      const q0 = Float64Array.from(ref.control.joint_target_pos);
      // a scene's control sequence drives it as in `run` (from t = 0); the others follow the sinusoid
      const seq = scene.control_sequence;
      const t0 = m.time0;
      const drive = (sim: Stepper): void =>
        seq
          ? applyControlSequence(seq, sim.control, sim.state.time - t0)
          : applySinusoid(spec, q0, sim.control.joint_target_pos, driven, sim.state.time);
      // settle once per arrangement with the scene's own options (or reuse a cached settle), then
      // snapshot
      const ts = performance.now();
      const cacheDir = o.settle_cache === undefined ? SETTLE_CACHE : o.settle_cache;
      const arrangements = spec.arrangements ?? 1;
      const spacing = spec.snapshot_spacing ?? steps;
      const snaps: SapState[] = [];
      let cached = true;
      for (let a = 0; a < arrangements; a++) {
        const settler = a === 0 ? ref : mkSim(scene.solver);
        if (a > 0) {
          jitterFreeBodies(m, settler.state, a);
          settler.solver.updateBodyState(settler.state);
        }
        const cacheFile =
          cacheDir === null ? null : settleKey(cacheDir, spec.file, scene.solver, settle, nw, a);
        const hit = cacheFile !== null && readSettleCache(cacheFile, settler.state);
        if (hit) {
          settler.solver.updateBodyState(settler.state);
        } else {
          for (let i = 0; i < settle; i++) {
            drive(settler);
            settler.step();
          }
          if (cacheFile !== null) writeSettleCache(cacheFile, settler.state);
        }
        cached &&= hit;
        const snap: SapState = cloneState(settler.state);
        snaps.push(snap);
        // the further start states, stepped on from the snapshot by a simulation that starts there
        // afresh, as after a cache read (no warm-start history, no broad-phase order from the
        // settle): the same states whether the settle ran now or came from the cache
        const more = hit ? settler : mkSim(scene.solver);
        if (more !== settler) {
          copyState(snap, more.state);
          more.solver.updateBodyState(more.state);
        }
        for (let k = 1; k < (spec.snapshots ?? 1); k++) {
          for (let i = 0; i < spacing; i++) {
            drive(more);
            more.step();
          }
          snaps.push(cloneState(more.state));
        }
      }
      // restart a configuration from start state `r` (mod their count) and take the scene's
      // untimed lead-in steps
      const restart = async (sim: Stepper, r = 0): Promise<void> => {
        copyState(snaps[r % snaps.length], sim.state);
        for (let i = 0; i < (spec.lead_in ?? 0); i++) {
          drive(sim);
          await sim.step();
        }
      };
      log(
        `[bench] ${id} (${nw} world${nw > 1 ? 's' : ''}): ${arrangements > 1 ? `${arrangements} arrangements, ` : ''}${cached ? `settled state${arrangements > 1 ? 's' : ''} of ${settle} steps from ${cacheDir}` : `settled ${settle} steps in ${((performance.now() - ts) / 1000).toFixed(1)} s`}`,
      );
      // 'scene': the line search the scene file names (monotone_decay when it names none)
      const sceneLs = String(
        (scene.solver as { line_search_variant?: unknown } | undefined)?.line_search_variant ??
          'monotone_decay',
      );
      const lss = [
        ...new Set((o.line_searches ?? spec.line_searches).map((l) => (l === 'scene' ? sceneLs : l))),
      ];
      const isls = o.islands ?? spec.islands ?? [false];
      const variants = o.variants ?? spec.variants ?? [{}];
      // every configuration is built and warmed up first, then timed in interleaved rounds (each
      // round restarts every configuration from the snapshot), so JIT tier-up and machine load
      // fall on all configurations alike instead of on the first one measured
      interface Config {
        preset: string;
        ls: string;
        islands: boolean;
        overrides: Record<string, unknown>;
        kind: BenchBackend;
        sim: Stepper;
        linear: () => string;
        dispose: () => void;
        acc: StepStats;
        /** the profiled round (stage times) */
        prof: StepStats;
        rates: number[];
        warmup?: WarmUpReport;
      }
      const configs: Config[] = [];
      const runners: BenchPeer[] = [];
      try {
        for (const preset of o.presets) {
          for (const [ls, islands, overrides] of lss.flatMap((l) =>
            isls.flatMap((b) => variants.map((v) => [l, b, v] as const)),
          )) {
            const solver = {
              ...scene.solver,
              contact_preset_variant: preset,
              line_search_variant: ls,
              solve_islands: islands,
              ...overrides,
            };
            for (const kind of o.backends ?? ['cpu']) {
              if (kind !== 'cpu' && islands) continue; // CPU-only option
              const acc = newStepStats();
              if (kind === 'cpu') {
                const cpu = mkSim(solver);
                configs.push({
                  preset,
                  ls,
                  islands,
                  overrides,
                  kind,
                  sim: cpu,
                  linear: () => cpu.solver.last_linear_solver,
                  dispose: () => {},
                  acc,
                  prof: newStepStats(),
                  rates: [],
                });
                continue;
              }
              const { backend, fallback } = await createBackend('webgpu', m, {
                solver,
                max_rigid_contact: scene.max_rigid_contact,
              });
              if (fallback) {
                backend.dispose();
                notes.push(`${id} ${preset} ${ls}: webgpu not measured: ${fallback}`);
                continue;
              }
              const device = backend.kind === 'webgpu' ? backend.description.split(';')[0] : backend.kind;
              if (!notes.includes(`webgpu device: ${device}`)) notes.push(`webgpu device: ${device}`);
              configs.push({
                preset,
                ls,
                islands,
                overrides,
                kind,
                sim: new BackendSimulation(m, backend, { dt, max_rigid_contact: scene.max_rigid_contact }),
                linear: () => 'dense per world (WebGPU)',
                dispose: () => backend.dispose(),
                acc,
                prof: newStepStats(),
                rates: [],
              });
            }
          }
        }
        // untimed warm-up rounds (JIT tier-up; see WARMUP_MS)
        // (stage clocks off, as in the timed rounds: switching them later invalidates compiled code
        // that had taken the flag as a constant)
        for (const c of configs) {
          if (c.sim.stage_timing !== undefined) c.sim.stage_timing = false;
          c.warmup = await warmUp(
            warmupMs,
            async (r, more) => {
              await restart(c.sim, r);
              for (let i = 0; i < steps && more(); i++) {
                drive(c.sim);
                await c.sim.step();
              }
            },
            { maxMs: warmupMaxMs },
          );
        }
        // peers (one world): set up and warmed up now, timed in the same rounds as ours
        if (nw === 1) {
          const duration = settle * dt;
          for (const peer of o.peers) {
            if (!spec.peers.includes(peer)) continue;
            const setup = { id, spec, snaps, spacing, steps, duration, q0, driven, warmupMs, warmupMaxMs };
            try {
              const pr = o.peer_worker
                ? await workerPeer(o.peer_worker, peer, setup, { num_worlds: 1, ...fileOptions })
                : inlinePeer(
                    peer === 'rapier'
                      ? await startRapier({ ...setup, scene })
                      : await startMujoco({ ...setup, scene }, peer),
                  );
              if (typeof pr === 'string') notes.push(`${id}: ${peer} not measured: ${pr}`);
              else runners.push(pr);
            } catch (e) {
              notes.push(`${id}: ${peer} failed: ${(e as Error).message}`);
            }
          }
        }
        // one round times every configuration and every peer once, one right after the other, from
        // the round's start state; every other round in the reverse order (ours first, then the
        // peers first: ABBA), so that neither side always runs first after a round's restarts and
        // a load that changes within a round falls on both sides alike over two rounds
        const replayStats = newStepStats();
        const timeConfig = async (c: Config, r: number): Promise<void> => {
          // the round's steps from its start state, again until MIN_ROUND_MS is timed (as the
          // peers' segmentedRate; ours may await a GPU step)
          // a segment the thread was descheduled in is played again (timing.ts countedMs); the
          // iteration and contact statistics from the round's first segment only (the others
          // replay the same steps), so that they do not depend on how often a segment was played
          let ms = 0,
            n = 0,
            replays = 0,
            first = true;
          do {
            await restart(c.sim, r);
            const span = await timeRound(c.sim, steps, drive, first ? c.acc : replayStats);
            first = false;
            const counted = countedMs(span, replays);
            if (counted === null) {
              replays++;
              continue;
            }
            replays = 0;
            ms += counted;
            n += steps;
          } while (ms < MIN_ROUND_MS);
          c.rates[r] = n / (ms / 1000);
        };
        const timePeer = async (p: BenchPeer, r: number): Promise<void> => {
          if (p.failed) return;
          try {
            p.rates[r] = await p.round(r);
          } catch (e) {
            p.failed = true;
            notes.push(`${id}: ${p.peer} failed: ${(e as Error).message}`);
          }
        };
        const order: ((r: number) => Promise<void>)[] = [
          ...configs.map((c) => (r: number) => timeConfig(c, r)),
          ...runners.map((p) => (r: number) => timePeer(p, r)),
        ];
        for (let r = 0; r < repeats; r++) {
          const round = r % 2 === 0 ? order : [...order].reverse();
          for (const time of round) await time(r);
        }
        // the split per stage from one more round with the stage clocks on (the timed rounds leave
        // them off: reading the clock at every stage boundary costs a small scene ~8%)
        for (const c of configs) {
          await restart(c.sim);
          await timeRound(c.sim, steps, drive, c.prof, true);
        }
        const rowsBefore = rows.length;
        for (const c of configs) {
          const t = c.acc;
          const n = Math.max(1, t.n);
          const stage_ms = { ...c.prof.stage };
          const ns = Math.max(1, c.prof.nStage);
          for (const k of Object.keys(stage_ms) as (keyof BenchStageMs)[]) stage_ms[k] /= ns;
          const sps = median(c.rates);
          const row: BenchRow = {
            scene: id,
            preset: c.preset,
            line_search: c.ls,
            solve_islands: c.islands,
            overrides: c.overrides,
            backend: c.kind,
            num_worlds: nw,
            dt,
            steps_per_s: sps,
            real_time_factor: sps * dt,
            newton_iterations_mean: t.it / n,
            line_search_iterations_mean: t.ls / n,
            contacts_per_world: t.contacts / n,
            islands_per_world: t.islands / n,
            linear_solver: c.linear(),
            stage_ms,
            ...(c.warmup ? { warmup: c.warmup } : {}),
          };
          rows.push(row);
          log(
            `[bench] ${id} ${c.preset} ${c.ls}${c.islands ? ' islands' : ''}${overrideText(c.overrides, ' ')} ${c.kind}: ${sps.toFixed(1)} steps/s, ${row.newton_iterations_mean.toFixed(2)} Newton it., ${row.contacts_per_world.toFixed(0)} contacts, ${row.linear_solver}`,
          );
        }
        for (const p of runners) {
          if (p.failed) continue;
          const pr = {
            ...(await p.result()),
            thread: o.peer_worker ? ('worker' as const) : ('bench' as const),
          };
          peers.push(pr);
          log(
            `[bench] ${id} ${p.peer} ${pr.version}: ${pr.steps_per_s.toFixed(1)} steps/s, ${pr.contacts} contacts`,
          );
          for (let k = 0; k < configs.length; k++) {
            const row = rows[rowsBefore + k];
            if (row.num_worlds !== 1) continue;
            (row.ratio ??= {})[p.peer] = pairedRatio(configs[k].rates, p.rates);
            (row.ratio_of_medians ??= {})[p.peer] = row.steps_per_s / pr.steps_per_s;
            (row.ratio_spread ??= {})[p.peer] = ratioSpread(configs[k].rates, p.rates);
          }
        }
      } finally {
        for (const c of configs) c.dispose();
        for (const p of runners) p.dispose();
      }
    }
  }
  // contact scaling between the two piles
  const contact_scaling = contactScaling(rows);
  const peer_contact_scaling = peerContactScaling(peers);
  if (!knowsRunQueueWaits())
    notes.push(
      'this system does not give the timing thread its run-queue waits (/proc/thread-self/schedstat): segments in which a thread was descheduled are timed as they came, not played again',
    );
  if (peers.length > 0 && !o.peer_worker)
    notes.push(
      "the peers ran in the bench's thread: their WebAssembly memories' growth detached buffers in our isolate, and V8 then checks every typed-array access of our JS for detachment (~6–9% of a CPU step; `npm run bench` runs them in worker threads of their own)",
    );
  return { rows, peers, notes, contact_scaling, peer_contact_scaling };
}

/**
 * `npm run bench -- --repeat N`: {@link runBench} `runs` times over, each run from scratch in this
 * process, and the last run's result with the {@link RepeatCheck} of every row's ratio over the
 * runs. Notes of all runs are kept (once each).
 */
export async function runBenchRepeated(o: BenchOptions, runs: number): Promise<BenchResult> {
  const results: BenchResult[] = [];
  for (let k = 0; k < runs; k++) {
    o.log?.(`[bench] run ${k + 1} of ${runs}`);
    results.push(await runBench(o));
  }
  const last = results[results.length - 1];
  return {
    ...last,
    notes: [...new Set(results.flatMap((r) => r.notes))],
    repeat_check: repeatCheck(results.map((r) => r.rows)),
  };
}

/**
 * The least-squares slope of ln t over ln c (t = 1 / steps per second, c = contacts) and the slopes
 * between neighbouring points, for points of increasing c.
 */
export function logLogFit(points: { contacts: number; steps_per_s: number }[]): {
  exponent: number;
  local: number[];
} {
  const x = points.map((r) => Math.log(r.contacts));
  const y = points.map((r) => -Math.log(r.steps_per_s));
  const mx = x.reduce((s, v) => s + v, 0) / x.length;
  const my = y.reduce((s, v) => s + v, 0) / y.length;
  let sxy = 0,
    sxx = 0;
  for (let k = 0; k < x.length; k++) {
    sxy += (x[k] - mx) * (y[k] - my);
    sxx += (x[k] - mx) ** 2;
  }
  const local: number[] = [];
  for (let k = 1; k < x.length; k++) local.push((y[k] - y[k - 1]) / (x[k] - x[k - 1]));
  return { exponent: sxy / sxx, local };
}

/**
 * The measurements along a series: `first` (on its first pile), then for each further pile the
 * one `find` gives where it has more contacts than the last point.
 */
function seriesPoints<T>(
  scenes: string[],
  first: T,
  find: (scene: string) => T | undefined,
  contacts: (t: T) => number,
): T[] {
  const points = [first];
  for (const scene of scenes.slice(1)) {
    const b = find(scene);
    if (b && contacts(b) > contacts(points[points.length - 1])) points.push(b);
  }
  return points;
}

/**
 * Fitted exponent p of per-step time ∝ contacts^p over each series of {@link SCALING_SERIES}, per
 * preset × line search × islands × variant measured on the series' first pile and at least one
 * other (single world): the least-squares slope in log–log, and the slopes between neighbours.
 */
export function contactScaling(rows: BenchRow[]): BenchResult['contact_scaling'] {
  const contact_scaling: BenchResult['contact_scaling'] = [];
  for (const series of SCALING_SERIES) {
    for (const a of rows.filter((r) => r.scene === series.scenes[0] && r.num_worlds === 1)) {
      const points = seriesPoints(
        series.scenes,
        a,
        (scene) =>
          rows.find(
            (r) =>
              r.scene === scene &&
              r.num_worlds === 1 &&
              r.preset === a.preset &&
              r.line_search === a.line_search &&
              r.solve_islands === a.solve_islands &&
              overrideText(r.overrides) === overrideText(a.overrides),
          ),
        (r) => r.contacts_per_world,
      );
      if (points.length < 2) continue;
      contact_scaling.push({
        series: series.name,
        preset: a.preset,
        line_search: a.line_search,
        solve_islands: a.solve_islands,
        overrides: a.overrides,
        ...logLogFit(points.map((r) => ({ contacts: r.contacts_per_world, steps_per_s: r.steps_per_s }))),
        from: points[0].scene,
        to: points[points.length - 1].scene,
        points: points.map((r) => ({
          scene: r.scene,
          contacts_per_world: r.contacts_per_world,
          steps_per_s: r.steps_per_s,
        })),
      });
    }
  }
  return contact_scaling;
}

/**
 * The fit of {@link contactScaling} for each peer that ran a series' first pile and at least one
 * other, against the peer's own contact count.
 */
export function peerContactScaling(peers: PeerRow[]): BenchResult['peer_contact_scaling'] {
  const out: BenchResult['peer_contact_scaling'] = [];
  for (const series of SCALING_SERIES) {
    for (const a of peers.filter((p) => p.scene === series.scenes[0])) {
      const points = seriesPoints(
        series.scenes,
        a,
        (scene) => peers.find((p) => p.scene === scene && p.peer === a.peer),
        (p) => p.contacts,
      );
      if (points.length < 2) continue;
      out.push({
        series: series.name,
        peer: a.peer,
        version: a.version,
        ...logLogFit(points),
        from: points[0].scene,
        to: points[points.length - 1].scene,
        points: points.map((p) => ({ scene: p.scene, contacts: p.contacts, steps_per_s: p.steps_per_s })),
      });
    }
  }
  return out;
}

/** a peer as the bench's rounds see it, in this thread or in a peer worker */
interface BenchPeer {
  peer: PeerName;
  failed: boolean;
  /** steps/s of each timed round, by round */
  rates: number[];
  /** restarts from start state `r` and times a round (recorded for the result); steps/s */
  round(r: number): Promise<number>;
  /** the peer's row from the rounds so far (median steps/s) */
  result(): Promise<PeerRow>;
  dispose(): void;
}

function inlinePeer(p: PeerRunner | string): BenchPeer | string {
  if (typeof p === 'string') return p;
  return {
    peer: p.peer,
    failed: false,
    rates: [],
    round: (r) => {
      const rate = p.round(r);
      p.rates.push(rate);
      return Promise.resolve(rate);
    },
    result: () => Promise.resolve(p.result()),
    dispose: () => p.dispose(),
  };
}

/** starts `peer` in a worker thread of its own running `file` (a bundled peer_worker.ts) */
async function workerPeer(
  file: string | URL,
  peer: PeerName,
  setup: Omit<PeerSetup, 'scene'>,
  load: LoadFileOptions,
): Promise<BenchPeer | string> {
  const worker = new Worker(file);
  // one request at a time: each answered by the next message (or the worker's failure)
  let pending: { ok: (m: PeerWorkerReply) => void; fail: (e: Error) => void } | null = null;
  let dead: Error | null = null;
  worker.on('message', (m: PeerWorkerReply) => {
    const p = pending;
    pending = null;
    p?.ok(m);
  });
  const die = (e: Error): void => {
    dead ??= e;
    const p = pending;
    pending = null;
    p?.fail(e);
  };
  worker.on('error', die);
  worker.on('exit', (code) => die(new Error(`the ${peer} worker exited (code ${code})`)));
  const ask = (m: PeerWorkerRequest): Promise<PeerWorkerReply> =>
    new Promise((ok, fail) => {
      if (dead) return fail(dead);
      pending = { ok, fail };
      worker.postMessage(m);
    });
  const expect = async <T extends PeerWorkerReply['type']>(
    m: PeerWorkerRequest,
    type: T,
  ): Promise<Extract<PeerWorkerReply, { type: T }>> => {
    const a = await ask(m);
    if (a.type === 'error') throw new Error(a.message);
    if (a.type !== type) throw new Error(`the ${peer} worker answered '${a.type}' to '${m.type}'`);
    return a as Extract<PeerWorkerReply, { type: T }>;
  };
  const dispose = (): void => {
    worker.removeAllListeners('exit');
    void worker.terminate();
  };
  try {
    const a = await ask({ type: 'start', peer, setup, load });
    if (a.type === 'unfit') {
      dispose();
      return a.why;
    }
    if (a.type !== 'ready') throw new Error(a.type === 'error' ? a.message : `unexpected '${a.type}'`);
  } catch (e) {
    dispose();
    throw e;
  }
  return {
    peer,
    failed: false,
    rates: [],
    round: async (r) => (await expect({ type: 'round', r }, 'rate')).rate,
    result: async () => (await expect({ type: 'result' }, 'row')).row,
    dispose,
  };
}

const fx = (x: number, d = 0): string => (Number.isFinite(x) ? x.toFixed(d) : '–');

/** a stage time given in ms as µs with three significant digits (whole µs from 100 µs up) */
export function microseconds(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  const us = ms * 1000;
  return us >= 100 ? us.toFixed(0) : us.toPrecision(3);
}

/** `key=value,…` of a configuration's `--variant` options ('' for none), after `sep` when there are some */
export function overrideText(o: Record<string, unknown> | undefined, sep = ''): string {
  const e = Object.entries(o ?? {});
  return e.length ? sep + e.map(([k, v]) => `${k}=${String(v)}`).join(',') : '';
}

export function benchMarkdown(res: BenchResult): string {
  const out: string[] = [];
  out.push(
    `| scene | preset | line search | islands | set | backend | worlds | dt [s] | steps/s | real-time × | Newton it. | LS it. | contacts/world | factorization | µs/step: collision · free motion · constraints · solve · integrate | ${PEER_NAMES.map((p) => PEER_COLUMNS[p]).join(' | ')} |`,
    `|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|${PEER_NAMES.map(() => '---:').join('|')}|`,
  );
  // the median per-round ratio and, after it, the quartiles of the per-round ratios
  const ratio = (r: BenchRow, p: PeerName): string => {
    if (r.ratio?.[p] === undefined) return '–';
    const q = r.ratio_spread?.[p];
    const iqr = q && q.rounds > 1 && Number.isFinite(q.q1) ? ` (${q.q1.toFixed(2)}–${q.q3.toFixed(2)})` : '';
    return `${r.ratio[p].toFixed(2)}${iqr}`;
  };
  for (const r of res.rows) {
    const s = r.stage_ms;
    out.push(
      `| ${r.scene} | ${r.preset} | ${r.line_search} | ${r.solve_islands ? `on (${fx(r.islands_per_world, 1)}/world)` : 'off'} | ${overrideText(r.overrides) || '–'} | ${r.backend} | ${r.num_worlds} | ${r.dt} | ${fx(r.steps_per_s, 1)} | ${fx(r.real_time_factor, 2)} | ${fx(r.newton_iterations_mean, 2)} | ${fx(r.line_search_iterations_mean, 2)} | ${fx(r.contacts_per_world, 1)} | ${r.linear_solver} | ${[s.collision, s.free_motion, s.constraints, s.solve, s.integrate].map(microseconds).join(' · ')} | ${PEER_NAMES.map((p) => ratio(r, p)).join(' | ')} |`,
    );
  }
  if (res.peers.length) {
    out.push(
      '',
      '| scene | peer | dt [s] | steps/s | real-time × | contacts | solver it. | islands | start |',
      '|---|---|---:|---:|---:|---:|---:|---:|---|',
    );
    for (const p of res.peers) {
      out.push(
        `| ${p.scene} | ${p.version} | ${p.dt} | ${fx(p.steps_per_s, 1)} | ${fx(p.real_time_factor, 2)} | ${p.contacts} | ${p.iterations_mean !== undefined ? p.iterations_mean.toFixed(2) : '–'} | ${p.islands_mean !== undefined ? p.islands_mean.toFixed(1) : '–'} | ${p.start}${p.thread === 'worker' ? '; in a worker thread of its own' : ''} |`,
      );
    }
  }
  if (res.contact_scaling.length) {
    out.push('', 'Per-step time vs contacts (fitted exponent p of t ∝ contacts^p):', '');
    for (const c of res.contact_scaling) {
      const path = c.points.map((p) => `${p.scene} (${Math.round(p.contacts_per_world)})`).join(' → ');
      out.push(
        `- ${c.series}: ${path}, ${c.preset} / ${c.line_search}${c.solve_islands ? ' / islands' : ''}${overrideText(c.overrides, ' / ')}: p = ${c.exponent.toFixed(2)}${neighbours(c.local)}`,
      );
    }
  }
  if (res.peer_contact_scaling.length) {
    out.push('', 'The peers over the same piles (against their own contact counts):', '');
    for (const c of res.peer_contact_scaling) {
      const path = c.points.map((p) => `${p.scene} (${p.contacts})`).join(' → ');
      out.push(`- ${c.series}: ${path}, ${c.version}: p = ${c.exponent.toFixed(2)}${neighbours(c.local)}`);
    }
  }
  if (res.rows.some((r) => r.ratio_spread))
    out.push(
      '',
      "Ratios: the median over the rounds of the round's ours / peer, in brackets the quartiles of those per-round ratios.",
    );
  const unsteady = [
    ...res.rows
      .filter((r) => r.warmup && !r.warmup.steady)
      .map(
        (r) =>
          `${r.scene} ${r.preset} ${r.line_search}${r.solve_islands ? ' islands' : ''}${overrideText(r.overrides, ' ')} (${warmupText(r.warmup!)})`,
      ),
    ...res.peers
      .filter((p) => p.warmup && !p.warmup.steady)
      .map((p) => `${p.scene} ${p.peer} (${warmupText(p.warmup!)})`),
  ];
  if (unsteady.length)
    out.push(
      '',
      `Not in steady state at the warm-up's cap (time per step over the last warm-up windows still moving by more than ${(100 * WARMUP_TOLERANCE).toFixed(0)}%): ${unsteady.join('; ')}`,
    );
  if (res.repeat_check) out.push('', ...repeatCheckMarkdown(res.repeat_check));
  if (res.notes.length) out.push('', 'Notes:', '', ...res.notes.map((n) => `- ${n}`));
  return out.join('\n');
}

/** a warm-up's time, steps and drift, for the markdown */
function warmupText(w: WarmUpReport): string {
  return `${(w.ms / 1000).toFixed(1)} s, ${w.steps} steps, drift ${Number.isFinite(w.drift) ? `${(100 * w.drift).toFixed(1)}%` : '–'}`;
}

/** the slopes between neighbouring piles, where there are more than two piles */
function neighbours(local: number[]): string {
  return local.length > 1 ? ` (between neighbours ${local.map((v) => v.toFixed(2)).join(', ')})` : '';
}

export function writeBenchResults(res: BenchResult, dir = 'bench-results'): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const json = path.join(dir, 'bench.json');
  const md = path.join(dir, 'bench.md');
  writeFileSync(
    json,
    JSON.stringify({ date: new Date().toISOString(), node: process.version, ...res }, null, 2),
  );
  writeFileSync(md, benchMarkdown(res) + '\n');
  return { json, md };
}

/** one row of `bench webgpu`: a backend at one num_worlds */
export interface ScalingRow {
  scene: string;
  preset: string;
  backend: 'cpu' | 'webgpu';
  /** the device, e.g. the adapter name; fp64 knobs run as fp64 (df64) on WebGPU */
  device: string;
  num_worlds: number;
  steps_per_s: number;
  /** num_worlds × steps/s */
  world_steps_per_s: number;
  newton_iterations_mean: number;
  /** set when WebGPU was requested but the CPU ran, with the reason */
  fallback?: string;
}

export interface ScalingOptions {
  scene: string;
  worlds: number[];
  /** timed steps per (backend, num_worlds) */
  steps: number;
  warmup: number;
}

/**
 * `npm run bench -- webgpu`: steps/s and world-steps/s of the CPU reference and the WebGPU backend
 * (on whatever adapter is available, SwiftShader without a GPU) over num_worlds. Collision runs on
 * the CPU in both. Kept short by default: few steps per point.
 */
export async function runBackendScaling(o: ScalingOptions): Promise<ScalingRow[]> {
  const rows: ScalingRow[] = [];
  for (const n of o.worlds) {
    const scene = await loadModelFile(o.scene, { num_worlds: n });
    for (const kind of ['cpu', 'webgpu'] as const) {
      const { backend, fallback } = await createBackend(kind, scene.model, {
        solver: scene.solver,
        max_rigid_contact: scene.max_rigid_contact,
      });
      try {
        const sim = new BackendSimulation(scene.model, backend, {
          dt: scene.dt,
          max_rigid_contact: scene.max_rigid_contact,
        });
        // warm up: at least `warmup` steps and ~0.3 s (the CPU path needs the JIT to tier up)
        const tw = performance.now();
        for (let i = 0; i < o.warmup || (performance.now() - tw < 300 && i < 200); i++) await sim.step();
        let it = 0;
        const t0 = performance.now();
        for (let i = 0; i < o.steps; i++) it += (await sim.step()).iterations_mean;
        const sps = o.steps / ((performance.now() - t0) / 1000);
        const row: ScalingRow = {
          scene: scene.name,
          preset: String(backend.options.contact_preset_variant),
          backend: kind,
          device: backend.kind === 'webgpu' ? backend.description.split(';')[0] : 'cpu (this process)',
          num_worlds: n,
          steps_per_s: sps,
          world_steps_per_s: sps * n,
          newton_iterations_mean: it / Math.max(1, o.steps),
          ...(fallback ? { fallback } : {}),
        };
        rows.push(row);
        console.error(
          `[bench webgpu] ${kind} ${n} worlds: ${sps.toFixed(2)} steps/s, ${(sps * n).toFixed(0)} world-steps/s${fallback ? ` (${fallback})` : ''}`,
        );
      } finally {
        backend.dispose();
      }
    }
  }
  return rows;
}

export function scalingMarkdown(rows: ScalingRow[]): string {
  const head =
    '| scene | preset | backend | device | worlds | steps/s | world-steps/s | Newton it. |\n' +
    '|---|---|---|---|---:|---:|---:|---:|';
  const body = rows.map(
    (r) =>
      `| ${r.scene} | ${r.preset} | ${r.backend}${r.fallback ? ' (fallback: cpu)' : ''} | ${r.device} | ${r.num_worlds} | ${r.steps_per_s.toFixed(2)} | ${r.world_steps_per_s.toFixed(0)} | ${r.newton_iterations_mean.toFixed(2)} |`,
  );
  return [head, ...body].join('\n');
}

export function writeScalingResults(rows: ScalingRow[], dir = 'bench-results'): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const json = path.join(dir, 'bench_webgpu.json');
  const md = path.join(dir, 'bench_webgpu.md');
  writeFileSync(
    json,
    JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2),
  );
  writeFileSync(md, scalingMarkdown(rows) + '\n');
  return { json, md };
}
