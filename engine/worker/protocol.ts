/**
 * Worker protocol (SPEC §7), versioned. Commands go main → worker, events worker → main.
 *
 * Every command is validated against one zod schema on arrival ({@link parseCommand}); a malformed
 * message is answered by an `error` event with code `protocol`, never by a crash. Types are inferred
 * from the schemas, so the schema is the single source of truth.
 *
 * Poses stream as flat Float32Array frames, 7 floats per body (p, q xyzw), in one of two transports:
 * - a SharedArrayBuffer ring ({@link ./frame_ring}) when the page is cross-origin isolated: the worker
 *   posts one `ring` event with the buffer after `ready`, then each `frame` event carries no poses;
 * - otherwise each `frame` event carries a copy of them (a Float32Array in the message).
 * Contact data ({@link CONTACT_FIELDS}) rides along with a frame only while the overlay asks for it.
 */
import type { ControlStatus } from './control_host';
import { z } from 'zod';
import { LIMITS, limitMessage } from '../io/limits';
import type { StageMs } from '../pipeline/report';
import type { HistoryDump, HistoryRange } from './history';
import type { SapIterationTrace } from '../sap/trace';

/**
 * v4: load progress (`load_progress` event), `cancel_load`, `reload.strict`; v3: backend switch
 * (`set_backend` command, `backend` event). Events carry this version.
 */
export const PROTOCOL_VERSION = 4;
/**
 * the oldest command version still accepted: v3 and v4 only added commands, events and optional
 * fields, so a v2 message means the same as before (and a v2 client, which ignores unknown events,
 * keeps working)
 */
export const MIN_PROTOCOL_VERSION = 2;
type V = typeof PROTOCOL_VERSION;

/** the step backends the studio can choose (SPEC §6, §8) */
export const BACKEND_CHOICES = ['cpu', 'webgpu'] as const;
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

/** longest scene text accepted over the protocol (characters) */
export const MAX_TEXT = LIMITS.max_protocol_text;
/** most files in one file map, and most bytes over all of them */
export const MAX_FILES = LIMITS.max_upload_files;
export const MAX_FILE_BYTES = LIMITS.max_upload_bytes;
/** largest `step` request */
export const MAX_STEP_N = LIMITS.max_step_n;

const finite = z.number().finite();
/** a state vector: a Float64Array (or a number array) of finite values */
const finiteArray = z
  .union([z.instanceof(Float64Array), z.array(finite).max(LIMITS.max_state_values)])
  .refine((a) => a.length <= LIMITS.max_state_values, limitMessage('the state vector', 'max_state_values'))
  .refine((a) => Array.prototype.every.call(a, (x: number) => Number.isFinite(x)), 'values must be finite')
  .transform((a) => Float64Array.from(a));
const vec3 = z.tuple([finite, finite, finite]);
const optionValue = z.union([z.string().max(64), finite, z.boolean(), z.null()]);

const fileMap = z
  .map(
    z.string().min(1).max(1024),
    z.custom<Uint8Array>((x) => x instanceof Uint8Array, 'file contents must be a Uint8Array'),
  )
  .refine((m) => m.size <= MAX_FILES, limitMessage('the file count', 'max_upload_files'))
  .refine(
    (m) => [...m.values()].reduce((s, b) => s + b.byteLength, 0) <= MAX_FILE_BYTES,
    limitMessage('the files’ total size', 'max_upload_bytes'),
  );

export const sceneSourceSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('text'),
    text: z.string().max(MAX_TEXT, limitMessage('the scene text', 'max_protocol_text')),
    file_name: z.string().min(1).max(1024),
  }),
  z.object({ kind: z.literal('files'), files: fileMap, entry: z.string().min(1).max(1024) }),
]);
export type SceneSource = z.infer<typeof sceneSourceSchema>;

const v = z.number().int().min(MIN_PROTOCOL_VERSION).max(PROTOCOL_VERSION);
/** the versions of a command added in version `first` */
const vFrom = (first: number) => z.number().int().min(first).max(PROTOCOL_VERSION);
/** an MJCF `<key>` by name or index (SceneInfo.keyframes lists the names) */
const keyframeRef = z.union([z.string().min(1).max(256), z.number().int().min(0).max(1_000_000)]);

/** the production protocol's commands */
export const productionCommandSchema = z.discriminatedUnion('type', [
  /** loads a scene; on failure the current scene keeps running */
  z.object({
    v,
    type: z.literal('load_scene'),
    source: sceneSourceSchema,
    /** overrides the scene's num_worlds (replication) */
    num_worlds: z.number().int().min(1).max(4096).optional(),
    /** explicit solver options applied on top of the scene's (null clears a key) */
    options: z.record(optionValue).optional(),
    /** overrides the scene's dt [s] */
    dt: finite.positive().max(1).optional(),
    /** MJCF: the keyframe that starts the simulation (absent: the model's reference pose) */
    keyframe: keyframeRef.optional(),
    /**
     * strict loading: a recognized feature the engine does not build or only approximates fails the
     * load (absent / false: it is a warning prefixed `unsupported: ` in SceneInfo.warnings); kept on reload
     */
    strict: z.boolean().optional(),
    /** start playing after loading */
    play: z.boolean().optional(),
    /** echoed in the `ready` event */
    request_id: z.number().int().optional(),
  }),
  /**
   * reloads the last scene, e.g. with another num_worlds or from another keyframe (null: the
   * reference pose; absent: the same as before); keeps explicit options
   */
  z.object({
    v,
    type: z.literal('reload'),
    num_worlds: z.number().int().min(1).max(4096).optional(),
    keyframe: keyframeRef.nullable().optional(),
    /** switches the loading policy (see load_scene.strict) and reloads under it; kept for later reloads */
    strict: z.boolean().optional(),
  }),
  /**
   * abandons every load received before it (running or queued): the current scene keeps running and
   * each abandoned load ends in an `error` event with reason `cancelled`
   */
  z.object({ v: vFrom(4), type: z.literal('cancel_load') }),
  /** merges explicit solver options (null removes a key); answered by `options` or `error` */
  z.object({ v, type: z.literal('set_options'), options: z.record(optionValue) }),
  /** simulation settings that need no reload */
  z.object({
    v,
    type: z.literal('set_sim'),
    dt: finite.positive().max(1).optional(),
    /** real-time factor target (0.01 … 10) */
    speed: finite.min(0.01).max(10).optional(),
    /** send contact data with frames (the overlay is on) */
    contacts: z.boolean().optional(),
    /** send each body's constraint island with frames (island colouring is on; CPU backend) */
    islands: z.boolean().optional(),
    /** send the joint coordinates, velocities and constraint efforts with frames (the body inspector is open) */
    joints: z.boolean().optional(),
  }),
  z.object({ v, type: z.literal('play') }),
  z.object({ v, type: z.literal('pause') }),
  /** advances n steps at once (paused or not), then sends a frame */
  z.object({
    v,
    type: z.literal('step'),
    n: z.number().int().min(1).max(MAX_STEP_N, limitMessage('the step count', 'max_step_n')),
  }),
  /** back to the initial state; clears history, drags and control edits */
  z.object({ v, type: z.literal('reset') }),
  /** restores a history snapshot by its step number (pauses) */
  z.object({ v, type: z.literal('seek'), step: z.number().int().min(0) }),
  /**
   * drags body `body` by a spring from `point` (body frame) to `target` (world); body −1 releases.
   * stiffness is per kilogram of the body [N/m/kg].
   */
  z.object({
    v,
    type: z.literal('perturb'),
    body: z.number().int().min(-1),
    point: vec3.optional(),
    target: vec3.optional(),
    stiffness: finite.positive().max(1e5).optional(),
  }),
  /**
   * writes control entries: `values[i]` goes to DOF `dofs[i]` (all worlds when `all_worlds`);
   * for `actuator_ctrl` (tendon and slider-crank actuators) `dofs` holds actuator indices
   */
  z.object({
    v,
    type: z.literal('set_control'),
    field: z.enum(['joint_f', 'joint_target_pos', 'joint_target_vel', 'actuator_ctrl']),
    dofs: z.array(z.number().int().min(0)).max(100_000),
    values: z.array(finite).max(100_000),
    all_worlds: z.boolean().optional(),
  }),
  /** one-step ablation every `every` steps (0 = off); `now` computes one sample immediately */
  z.object({
    v,
    type: z.literal('request_ablation'),
    every: z.number().int().min(0).max(100_000).optional(),
    now: z.boolean().optional(),
  }),
  /**
   * trajectory-mode ablation (SPEC §3.8): `on` starts approx32, approx64 and drake shadow
   * simulations from the current state, stepped beside the live one with its control inputs (a
   * `trajectory` event every `every` steps); `on: false` stops them. A reset, seek, restore or
   * option change restarts them from the new state; loading a scene stops them.
   */
  z.object({
    v,
    type: z.literal('request_trajectory'),
    on: z.boolean(),
    every: z.number().int().min(1).max(100_000).optional(),
  }),
  /**
   * chooses the step backend (kept for later loads); answered by `backend` events. 'webgpu' falls
   * back to the CPU with the reason when no adapter is available or the model needs a feature the
   * GPU path lacks; collision stays on the CPU either way.
   */
  z.object({ v: vFrom(3), type: z.literal('set_backend'), backend: z.enum(BACKEND_CHOICES) }),
  /** liveness check: answered by `pong` with the same id (the app restarts a worker that stops answering) */
  z.object({ v, type: z.literal('ping'), id: z.number().int() }),
  /** asks for the current state (`snapshot` event), kept by the app to restart a dead worker */
  z.object({ v, type: z.literal('snapshot') }),
  /** puts a state back (after a restart); lengths must match the loaded model */
  z.object({
    v,
    type: z.literal('restore'),
    step: z.number().int().min(0),
    time: finite.min(0),
    joint_q: finiteArray,
    joint_qd: finiteArray,
  }),
  /** the scene's control sequence drives the targets (`playing`), or the user takes over (the targets stay) */
  z.object({ v, type: z.literal('control_sequence'), playing: z.boolean() }),
  /**
   * hold pose: PD on every revolute and prismatic joint at its current coordinate, gains from the
   * joint's effective inertia (engine/worker/control_host.ts); off restores the model's own drives
   */
  z.object({ v, type: z.literal('hold_pose'), on: z.boolean() }),
  /**
   * the step inspector: re-solves one step with the solve traced, from the state before the last
   * step (`step: 'last'`, the default) or from the current state (`'next'`), under the live options
   * with `options` merged on top (null removes a key; the vocabulary of `set_options`). The live
   * simulation is not changed (it waits while the solve runs); answered by an `inspection` event
   * with the same `id`, or an `error` event (code `inspect`, or `options` naming the bad key).
   */
  z.object({
    v,
    type: z.literal('inspect_step'),
    step: z.enum(['last', 'next']).optional(),
    options: z.record(optionValue).optional(),
    id: z.number().int().optional(),
  }),
  /**
   * the history ring's recent steps (time, q, v per step, all worlds) for a trajectory export: the
   * newest `last` (all the ring holds when absent); answered by `trajectory_export` with the same
   * `request_id`, or an `error` when no scene is loaded
   */
  z.object({
    v,
    type: z.literal('export_trajectory'),
    request_id: z.number().int(),
    last: z.number().int().min(1).optional(),
  }),
]);

/**
 * fault injection for tests: `nan` / `energy` make world `world` diverge in the next step, `throw`
 * makes the next tick throw, `close` / `hang` end or block the worker (worker.ts). Only test builds
 * ({@link TEST_BUILD}) accept it.
 */
const debugCommand = () =>
  z.object({
    v,
    type: z.literal('debug'),
    fault: z.enum(['nan', 'energy', 'throw', 'close', 'hang']),
    world: z.number().int().min(0).optional(),
  });

declare const __SAP_TEST_BUILD__: boolean | undefined;
/**
 * Whether this is a test build: vitest and the e2e build (`vite build --mode test`) define
 * `__SAP_TEST_BUILD__` true; the studio's production build defines it false and the CLI bundle not
 * at all. Only a test build accepts the `debug` fault-injection command.
 */
export const TEST_BUILD = typeof __SAP_TEST_BUILD__ !== 'undefined' && __SAP_TEST_BUILD__ === true;

/** the commands a build accepts: the production protocol, plus `debug` in test builds */
export const commandSchema = TEST_BUILD
  ? z.discriminatedUnion('type', [...productionCommandSchema.options, debugCommand()])
  : productionCommandSchema;
export type Command = z.infer<typeof productionCommandSchema> | z.infer<ReturnType<typeof debugCommand>>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** a command without the version field (the client adds it) */
export type CommandBody = DistributiveOmit<Command, 'v'>;

/** validates an untrusted message; returns the command or a readable reason with the key path */
export function parseCommand(msg: unknown): { ok: true; command: Command } | { ok: false; error: string } {
  try {
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
      return { ok: false, error: 'command must be an object' };
    }
    const m = msg as Record<string, unknown>;
    if (
      typeof m.v !== 'number' ||
      !Number.isInteger(m.v) ||
      m.v < MIN_PROTOCOL_VERSION ||
      m.v > PROTOCOL_VERSION
    ) {
      const got = typeof m.v === 'number' ? String(m.v) : typeof m.v;
      return {
        ok: false,
        error: `v: protocol version ${got} is not ${MIN_PROTOCOL_VERSION}…${PROTOCOL_VERSION}`,
      };
    }
    if (m.type === 'cancel_load' && m.v < 4) {
      return { ok: false, error: `v: cancel_load needs protocol version 4 (got ${m.v})` };
    }
    if (m.type === 'set_backend' && m.v < 3) {
      return { ok: false, error: `v: set_backend needs protocol version 3 (got ${m.v})` };
    }
    if (m.type === 'debug' && !TEST_BUILD) {
      return { ok: false, error: 'debug: fault injection exists only in test builds' };
    }
    const r = commandSchema.safeParse(msg);
    if (r.success) return { ok: true, command: r.data };
    const issue = r.error.issues[0];
    const path = issue.path
      .slice(0, 8)
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p).slice(0, 64)}`))
      .join('');
    const type = typeof m.type === 'string' ? m.type.slice(0, 40) : '?';
    return { ok: false, error: `${type}${path}: ${issue.message.slice(0, 300)}` };
  } catch (e) {
    // getters, proxies or exotic values: still an answer, never an exception
    return { ok: false, error: `unreadable command (${e instanceof Error ? e.name : typeof e})` };
  }
}

// ---------------------------------------------------------------------------------------------- events

/** one shape, as the viewport needs it */
export interface ShapeInfo {
  /** ShapeType */
  type: number;
  /** owning body, −1 for static world geometry */
  body: number;
  /** world index, −1 for shared geometry (the ground) */
  world: number;
  /** size parameters (3), see ShapeType; the scale for meshes */
  size: number[];
  /** pose in the body frame (world frame when static): p, q xyzw */
  X_bs: number[];
  /** linear RGB in [0, 1] */
  color: number[];
  /** ShapeFlags bits */
  flags: number;
  /** mesh index for mesh shapes, else −1 */
  mesh: number;
  /** heightfield index, else −1 */
  hfield: number;
  label: string;
}

/** a triangle mesh for rendering (mesh frame, unscaled) */
export interface MeshInfo {
  label: string;
  vertices: Float32Array;
  triangles: Uint32Array;
  /** (V × 2) texture coordinates (u, v; v up) of a textured mesh */
  uv?: Float32Array;
  /** index into SceneInfo.textures of a textured mesh, else -1 */
  texture: number;
}

/** an image textured meshes draw with: the encoded file, decoded by the renderer */
export interface TextureInfo {
  label: string;
  /** 'image/jpeg', 'image/png', … */
  mime: string;
  bytes: Uint8Array;
}

export interface HfieldInfo {
  nrow: number;
  ncol: number;
  /** half-size x, half-size y, elevation scale, base depth */
  size: number[];
  data: Float32Array;
}

/** a DOF that the control panel can drive (world 0) */
export interface DofInfo {
  dof: number;
  label: string;
  lower: number;
  upper: number;
  /** has a PD drive */
  driven: boolean;
  target: number;
}

/** a scene's control sequence, as the timeline shows it */
export interface ControlSequenceInfo {
  name: string;
  /** the file the scene names */
  source: string;
  /** [s] */
  duration: number;
  loop: boolean;
  keyframes: { time: number; label: string }[];
}

/** everything the studio needs to draw a scene; sent once per load */
export interface SceneInfo {
  name: string;
  /** the file the scene came from */
  file_name: string;
  description: string;
  dt: number;
  num_worlds: number;
  body_count: number;
  bodies_per_world: number;
  body_label: string[];
  body_world: number[];
  body_mass: number[];
  shapes: ShapeInfo[];
  meshes: MeshInfo[];
  /** images of textured meshes (MeshInfo.texture) */
  textures: TextureInfo[];
  hfields: HfieldInfo[];
  /** per world, a display offset added to everything drawn in that world (replicas side by side) */
  world_offset: number[][];
  /** axis-aligned bounds of world 0's initial geometry (min, max), for camera framing */
  bounds: { min: number[]; max: number[] };
  dofs: DofInfo[];
  /** per joint (joint j moves body j): its type name (fixed, free, revolute, prismatic, ball) */
  joint_type: string[];
  joint_label: string[];
  /** (body_count + 1) each joint's range in a frame's `joints.q` and in `joints.qd` */
  joint_q_start: number[];
  joint_qd_start: number[];
  /** per DOF: the dry-friction bound τ_c (0: none) and the drive's effort limit (Infinity: none) [N·m or N] */
  dof_friction: number[];
  dof_effort_limit: number[];
  /** contact slots per world */
  contact_capacity: number;
  /** warnings of the loader */
  warnings: string[];
  /** what the loader did that the user should know of, though nothing is wrong (a robot placed on the ground) */
  notes: string[];
  /** the file's keyframes by name (MJCF `<key>`s), in file order; empty for other formats */
  keyframes: string[];
  /** the keyframe the initial state came from, or null (the model's reference pose) */
  keyframe: string | null;
  /** the scene's control sequence (`control:`), played from the start; null when it has none */
  control_sequence: ControlSequenceInfo | null;
  /** per joint (joint j moves body j): its parent body, −1 for the world (the scene tree) */
  joint_parent: number[];
}

/** the solver options in force: the explicit keys and their full expansion */
export interface OptionsInfo {
  explicit: Record<string, string | number | boolean>;
  effective: Record<string, string | number | boolean>;
}

/**
 * Contact record layout: `CONTACT_STRIDE` float64 per contact in a frame's `contacts.data`.
 * Points p0/p1 are in body frames (world for static shapes), n/force/position in world.
 */
export const CONTACT_FIELDS = [
  'world',
  'body0',
  'body1',
  'shape0',
  'shape1',
  'p0x',
  'p0y',
  'p0z',
  'p1x',
  'p1y',
  'p1z',
  'nx',
  'ny',
  'nz',
  'phi0',
  'fx',
  'fy',
  'fz',
  'px',
  'py',
  'pz',
  'slip',
  'mu',
  'ke',
  'tau',
  'margin0',
  'margin1',
] as const;
export const CONTACT_STRIDE = CONTACT_FIELDS.length;
/** field offsets inside a contact record */
export const CF = Object.fromEntries(CONTACT_FIELDS.map((f, i) => [f, i])) as Record<
  (typeof CONTACT_FIELDS)[number],
  number
>;
/** most contacts sent with one frame */
export const MAX_FRAME_CONTACTS = 8192;

export interface ContactFrame {
  count: number;
  /** candidates dropped for capacity in the step, all worlds */
  truncated: number;
  /** contacts that exist but were not sent (over MAX_FRAME_CONTACTS) */
  omitted: number;
  /** the step dt the forces belong to [s] */
  dt: number;
  data: Float64Array;
}

/** the joint state of a frame (set_sim joints), all worlds, public convention */
export interface JointFrame {
  /** (joint_coord_count) joint coordinates */
  q: Float64Array;
  /** (joint_dof_count) joint velocities */
  qd: Float64Array;
  /**
   * (joint_dof_count × 3) the last step's constraint efforts per DOF of a revolute or prismatic
   * joint: limit, PD drive, dry friction [N·m or N] (Backend.joint_effort, read back from the GPU
   * on WebGPU)
   */
  effort: Float64Array;
}

export interface StatsInfo {
  time: number;
  step: number;
  status: string;
  iterations: number;
  iterations_max: number;
  line_search_iterations: number;
  /** constraint islands solved one by one in the last step, all worlds (0: worlds solved whole) */
  islands: number;
  contacts: number;
  truncated: number;
  /** mean wall time per step over the last interval [ms] */
  step_ms: number;
  /**
   * mean wall time per step of each stage over the last interval [ms] (the step reports'
   * `timing`; null when no step was taken in it)
   */
  stage_ms: StageMs | null;
  /**
   * true when the interval's steps ran on the WebGPU backend, whose stages are queued back to back
   * without waits: `solve` then includes the free motion and constraint passes (reported as 0) and
   * `integrate` is the read-back
   */
  stages_queued: boolean;
  /** simulated seconds per wall second over the last interval */
  realtime_factor: number;
  playing: boolean;
  speed: number;
  resyncs: number;
  history: HistoryRange;
  /** the control sequence's playback and hold pose (absent from older workers) */
  control?: ControlStatus;
}

/** trajectory-mode ablation: divergence of the three shadow simulations since `start_time` */
export interface TrajectoryAblationSample {
  time: number;
  step: number;
  /** when the shadows started from the live state [s] */
  start_time: number;
  /** ‖q(approx64) − q(approx32)‖ and ‖q(drake) − q(approx64)‖ [m, rad] */
  q_precision: number;
  q_model: number;
  /** the same for the velocities [m/s, rad/s] */
  v_precision: number;
  v_model: number;
  /** wall time of the shadow steps since the last sample [ms] */
  ms: number;
}

export interface AblationSample {
  time: number;
  step: number;
  delta_precision: number;
  delta_model: number;
  delta_precision_max: number;
  delta_model_max: number;
  /** Newton iterations (mean over worlds) and contacts of the live step at that time */
  iterations: number;
  contacts: number;
  /** line-search iterations of the live step at that time (mean over worlds) */
  line_search_iterations: number;
  /** mean wall time of the live steps since the previous sample (collision included) [ms] */
  step_ms: number;
  /** wall time of the ablation [ms] */
  ms: number;
  /** kinetic ½·vᵀM·v and potential energy (gravity, passive springs) of the live state, all worlds [J] */
  kinetic_energy: number;
  potential_energy: number;
  /**
   * true when something feeds energy in or takes it out besides gravity and springs: PD drives,
   * joint efforts or body wrenches (then a change of energy is not the integrator's)
   */
  driven: boolean;
}

/** which backend steps the simulation, and why it is not the requested one */
export interface BackendInfo {
  /** what the user chose */
  requested: BackendChoice;
  /** what steps the simulation now */
  active: BackendChoice;
  /** the requested backend is being created (the active one keeps stepping meanwhile) */
  pending: boolean;
  /** set when `active` is not `requested`: why (no adapter, a model feature the GPU path lacks, a GPU error) */
  fallback?: string;
  /** the WebGPU adapter, e.g. "google swiftshader (software)", when one was found */
  adapter?: string;
  /** the active backend's device and realization */
  description: string;
  /** how each precision knob is realized by the active backend: fp32, fp64 or "fp64 (df64)" on WebGPU */
  precision: Record<string, string>;
}

/** a typed error: which file, where, why */
export interface ErrorInfo {
  /** 'protocol' | 'load' | 'options' | 'divergence' | 'worker' | 'backend' | … */
  code: string;
  message: string;
  file?: string;
  line?: number;
  column?: number;
  /** key path inside the file, e.g. bodies[0].shapes[1].cfg.density (or a USD prim path) */
  path?: string;
  /** byte offset inside a binary file (USDC crate, USDZ/zip archive, STL) */
  offset?: number;
  reason?: string;
  /** divergence: the world and what the worker did about it */
  world?: number;
  action?: 'restored' | 'reset' | 'frozen' | 'paused';
}

/**
 * what a load is doing: `files` (the scene, model and layer files read), `meshes` (mesh files read
 * and turned into colliders, convex hulls included), `textures` (images read), `model` (building and
 * checking the model), `simulation` (making the solver's buffers). `done` of `total`; for the file
 * phases `total` counts the files of that kind in the source (an upper bound: a model need not use
 * every dropped file).
 */
export const LOAD_PHASES = ['files', 'meshes', 'textures', 'model', 'simulation'] as const;
export type LoadPhase = (typeof LOAD_PHASES)[number];

/** a load's progress (`load_progress` event) */
export interface LoadProgress {
  phase: LoadPhase;
  done: number;
  total: number;
  /** the file just read */
  file?: string;
}

/**
 * recent steps from the worker's history ring (`export_trajectory`), oldest first: per step its
 * number, time [s], every world's joint coordinates (`q`, n × nq) and velocities (`qd`, n × nv) in
 * the public convention (free joints: position, quaternion xyzw; [v_COM; ω] in world)
 */
export interface TrajectoryDump extends HistoryDump {
  num_worlds: number;
  /** joint coordinates and DOFs per step, all worlds together */
  nq: number;
  nv: number;
  /** most steps the ring holds for this model (≤ HISTORY_MAX_STEPS, fewer when its memory bound binds) */
  capacity: number;
}

export type WorkerEvent =
  | { v: V; type: 'ready'; scene: SceneInfo; options: OptionsInfo; request_id?: number }
  /** a load is under way (`request_id` of its load_scene; absent for a reload) */
  | ({ v: V; type: 'load_progress'; request_id?: number } & LoadProgress)
  | { v: V; type: 'options'; options: OptionsInfo }
  | { v: V; type: 'ring'; buffer: SharedArrayBuffer; slots: number; floats: number }
  | {
      v: V;
      type: 'frame';
      seq: number;
      time: number;
      step: number;
      /** present in message mode; in ring mode read slot `seq % slots` */
      poses?: Float32Array;
      contacts?: ContactFrame;
      /** (body_count) constraint island per body in the last step, −1 for none (set_sim islands) */
      islands?: Int32Array;
      /** joint state and efforts (set_sim joints) */
      joints?: JointFrame;
    }
  | { v: V; type: 'stats'; stats: StatsInfo }
  | { v: V; type: 'ablation'; sample: AblationSample }
  | { v: V; type: 'trajectory'; sample: TrajectoryAblationSample }
  /** trajectory-mode ablation started (`on`) or stopped */
  | { v: V; type: 'trajectory_state'; on: boolean }
  | { v: V; type: 'play_state'; playing: boolean }
  | { v: V; type: 'backend'; backend: BackendInfo }
  | { v: V; type: 'pong'; id: number }
  | {
      v: V;
      type: 'snapshot';
      step: number;
      time: number;
      num_worlds: number;
      joint_q: Float64Array;
      joint_qd: Float64Array;
    }
  | { v: V; type: 'error'; error: ErrorInfo }
  | { v: V; type: 'inspection'; inspection: StepInspection }
  /** the answer to `export_trajectory` */
  | { v: V; type: 'trajectory_export'; request_id: number; trajectory: TrajectoryDump };

/** the traced re-solve of one step (`inspect_step`) */
export interface StepInspection {
  /** the request's id */
  id?: number;
  /** 'last': the step that led to the current state; 'next': the one after it */
  which: 'last' | 'next';
  /** the step number the solve starts from (the step goes from `step` to `step + 1`) */
  step: number;
  /** simulation time at the start [s] */
  time: number;
  /** time step [s] */
  dt: number;
  /** the explicit options it was solved under (live options with the request's merged on top) */
  options: Record<string, string | number | boolean>;
  /** the preset and line search in force (after expansion) */
  preset: string;
  line_search: string;
  /**
   * where Newton started: 'accelerated' (the lower-cost of v_n and its extrapolation from the step
   * before, as the live solve), or 'previous' (v_n: the history does not hold the step before)
   */
  warm_start: string;
  /** the step's status (worst over worlds), Newton and line-search iterations (all worlds) */
  status: string;
  iterations: number;
  line_search_iterations: number;
  /** contacts of the step (all worlds) */
  contacts: number;
  /** wall time of the traced step [ms] (collision included) */
  ms: number;
  /** every Newton iterate of every world (and island), in solve order */
  iterates: SapIterationTrace[];
}

/**
 * load options after a `reload`'s keyframe: null returns to the reference pose (the keyframe is
 * dropped), absent keeps the one before; the worker and the client (which replays loads after a
 * worker restart) apply the same rule
 */
export function withReloadKeyframe<T extends { keyframe?: string | number }>(
  opts: T,
  keyframe: string | number | null | undefined,
): T {
  const next = { ...opts };
  if (keyframe === null) delete next.keyframe;
  else if (keyframe !== undefined) next.keyframe = keyframe;
  return next;
}
