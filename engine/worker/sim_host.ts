/**
 * SimHost: the engine side of the worker, independent of the messaging transport, so it runs in a Web
 * Worker, on a test's main thread or in Node (vitest drives it directly).
 *
 * It owns one `Simulation` and answers commands (protocol.ts). While playing, `tick(now)` is called
 * once per frame: the {@link Pacer} says how many steps the wall clock owes, the host steps within
 * 0.7 of a frame, then publishes one pose frame (ring or transfer), stats a few times a second and a
 * one-step ablation sample every `ablation_every` steps. A failed load, a rejected option or a bad
 * command leaves the running scene untouched; a non-finite step pauses and reports `divergence`.
 *
 * Backends (SPEC §6, `set_backend`): the CPU path is the `Simulation` stepped synchronously in
 * `tick`. With 'webgpu' a {@link Backend} from `createBackend` steps the same state (collision stays
 * on the CPU, into the same contact buffer): its step is asynchronous, so a playing tick queues one
 * batch on the command queue (never two; commands wait for it, so nothing touches the state while a
 * step is in flight). The backend is made anew for each load, in the background (the kernels may
 * take a while to compile) while the CPU keeps stepping, and attached between steps; when WebGPU
 * cannot run (no adapter, a model feature the GPU path lacks) or fails mid-run, the CPU takes over
 * with the reason (`backend` event) and the scene and state stay as they are. Option changes go to
 * the live backend (`setOptions`, which rebuilds what the new options need).
 */
import { clearContacts, type SapContacts } from '../collision/contacts';
import {
  WebGpuBackend,
  cpuDescription,
  createBackend,
  precisionLabels,
  probeWebGpu,
  type Backend,
  type BackendKind,
  type CreateBackendResult,
} from '../backends';
import { OneStepAblator, Simulation, TrajectoryAblator } from '../pipeline';
import { STEP_STAGES, type StageMs, type StepReport, type StepStage } from '../pipeline';
import { COLLISION_BUILD_OPTION_KEYS, resolveSolverOptions } from '../sap/options';
import { HistoryRing } from './history';
import { RingWriter } from './frame_ring';
import { ShapeFlags, type SapModel } from '../model';
import { LIMITS, limitMessage } from '../io/limits';
import {
  LoadError,
  loadAnyFile,
  loadCancelled,
  toErrorInfo,
  type LoadAnyOptions,
  type LoadedAny,
} from './load_any';
import { Pacer, runBudgeted, runBudgetedAsync } from './pacing';
import {
  CF,
  CONTACT_STRIDE,
  MAX_FRAME_CONTACTS,
  PROTOCOL_VERSION,
  parseCommand,
  withReloadKeyframe,
  type AblationSample,
  type TrajectoryAblationSample,
  type BackendInfo,
  type Command,
  type ContactFrame,
  type ErrorInfo,
  type LoadProgress,
  type OptionsInfo,
  type SceneInfo,
  type SceneSource,
  type TrajectoryDump,
  type WorkerEvent,
} from './protocol';
import { buildSceneInfo } from './scene_info';
import { ControlHost } from './control_host';
import { EnergyGuard, RecoveryLog, nonfiniteWorlds, type WorldFault } from './divergence';
import { allocState, type SapState } from '../state';
import { InspectError, StepInspector } from './inspect_host';
import { OptionsError } from '../sap/options';

type Emit = (e: WorkerEvent, transfer?: Transferable[]) => void;
type OptionValue = string | number | boolean;

export interface SimHostOptions {
  /** stream poses through a SharedArrayBuffer ring (needs cross-origin isolation) */
  useRing?: boolean;
  /** clock [ms] */
  now?: () => number;
  /** history snapshots kept */
  historyCapacity?: number;
  /** fault injection (`debug` command) that only the worker can perform: end or block the worker */
  onDebug?: (fault: 'close' | 'hang') => void;
  /** backend factory (default: engine/backends' createBackend; tests inject failures) */
  createBackend?: (
    kind: BackendKind,
    model: SapModel,
    opts: { solver: Record<string, unknown>; max_rigid_contact: number },
  ) => Promise<CreateBackendResult>;
  /** describes the WebGPU adapter when the backend fell back (default: probeWebGpu) */
  probeAdapter?: () => Promise<string | undefined>;
}

/** the CPU path's description (the reference Simulation; see CpuBackend) */

/** the first line of an error's message */
function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0].slice(0, 300);
}

async function probeAdapter(): Promise<string | undefined> {
  const p = await probeWebGpu();
  return p.available ? `${p.description}${p.software ? ' (software)' : ''}` : undefined;
}

/** default drag stiffness per kilogram [N/m/kg] */
export const DEFAULT_DRAG_STIFFNESS = 150;
const RING_SLOTS = 4;
const STATS_PERIOD_MS = 250;

/** quaternion (xyzw at o) rotating v into out */
function rotate(q: ArrayLike<number>, o: number, v: ArrayLike<number>, out: number[]): void {
  const x = q[o],
    y = q[o + 1],
    z = q[o + 2],
    w = q[o + 3];
  const tx = 2 * (y * v[2] - z * v[1]),
    ty = 2 * (z * v[0] - x * v[2]),
    tz = 2 * (x * v[1] - y * v[0]);
  out[0] = v[0] + w * tx + (y * tz - z * ty);
  out[1] = v[1] + w * ty + (z * tx - x * tz);
  out[2] = v[2] + w * tz + (x * ty - y * tx);
}

export class SimHost {
  sim: Simulation | null = null;
  info: SceneInfo | null = null;
  /** the live steps since the last ablation sample: their count and wall time [ms] */
  private readonly sampleWindow = { steps: 0, ms: 0 };
  playing = false;
  speed = 1;
  sendContacts = false;
  /** frames carry each body's constraint island (set_sim islands) */
  sendIslands = false;
  /** frames carry the joint state and constraint efforts (set_sim joints) */
  sendJoints = false;
  ablation_every = 10;
  /** steps taken since the last load or reset */
  stepCount = 0;

  private source: SceneSource | null = null;
  private loadOpts: SceneLoadOptions = {};
  private explicit: Record<string, OptionValue> = {};
  private ablator: OneStepAblator | null = null;
  private ablContacts: SapContacts | null = null;
  private lastAblationStep = -1;
  /** trajectory-mode ablation: shadow simulations beside the live one (null: off) */
  private traj: TrajectoryAblator | null = null;
  private trajEvery = 10;
  private trajStart = 0;
  private trajLastStep = 0;
  private trajMs = 0;
  private history: HistoryRing | null = null;
  private ring: RingWriter | null = null;
  private seq = 0;
  private drag: { body: number; point: number[]; target: number[]; stiffness: number } | null = null;
  private readonly pacer = new Pacer({ dt: 0.005, speed: 1 });
  private readonly now: () => number;
  private lastReport: StepReport | null = null;
  private statWindow = newStatWindow(0, 0);
  private lastStatsAt = -Infinity;
  private loading: Promise<void> = Promise.resolve();
  /** the control sequence and hold pose of the loaded scene */
  private controls: ControlHost | null = null;
  /** load commands received so far, and the count of those a `cancel_load` abandoned */
  private loadsReceived = 0;
  private cancelBefore = 0;
  private energy: EnergyGuard | null = null;
  private recovery: RecoveryLog | null = null;
  private readonly frozenAt = new Map<number, Float64Array>();
  /** a corruption applied to the state after the next step (fault injection) */
  private faultInjection: ((s: SapState) => void) | null = null;
  /** the next tick throws (fault injection) */
  private throwNextTick = false;
  /** the backend the user chose */
  private requested: BackendKind = 'cpu';
  /** the WebGPU backend stepping `sim`'s state, or null on the CPU path */
  private gpu: Backend | null = null;
  /** the GPU step's output state (swapped with `sim.state` after each step) */
  private gpuNext: SapState | null = null;
  /** a GPU batch is queued or running */
  private gpuBusy = false;
  private backendPending = false;
  /** bumps whenever a backend being made becomes stale (new scene, another choice) */
  private backendToken = 0;
  /** the backend being made, if any */
  private making: Promise<void> | null = null;
  private fallback: string | undefined;
  private adapter: string | undefined;
  /** GPU devices whose loss is watched */
  private readonly watched = new WeakSet<object>();
  /** the step inspector's solver and scratch (inspect_step) */
  private readonly inspector: StepInspector;
  /** the next GPU step throws (fault injection, tests) */
  gpuFaultNextStep = false;

  constructor(
    private readonly emit: Emit,
    private readonly opts: SimHostOptions = {},
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.inspector = new StepInspector(this.now);
  }

  /** the traced re-solve of one step (inspect_host.ts); the live simulation waits meanwhile */
  private inspectStep(cmd: Extract<Command, { type: 'inspect_step' }>): void {
    const sim = this.sim;
    if (!sim) throw new InspectError('inspect_step: no scene loaded', 'no scene loaded');
    try {
      const inspection = this.inspector.inspect({
        sim,
        history: this.history,
        stepCount: this.stepCount,
        which: cmd.step ?? 'last',
        options: mergeOptions(this.explicit, cmd.options ?? {}),
        id: cmd.id,
      });
      this.pacer.restart(); // the live view resumes from now, it does not catch up the solve's time
      this.emit({ v: PROTOCOL_VERSION, type: 'inspection', inspection });
    } catch (err) {
      if (err instanceof OptionsError) this.error(toErrorInfo(err, 'options'));
      else if (err instanceof InspectError)
        this.error({ code: 'inspect', message: err.message, reason: err.reason });
      else throw err;
    }
  }

  private error(e: ErrorInfo): void {
    this.emit({ v: PROTOCOL_VERSION, type: 'error', error: e });
  }

  /** handles one untrusted message; load commands complete asynchronously (see `idle()`) */
  handle(raw: unknown): void {
    const parsed = parseCommand(raw);
    if (!parsed.ok) {
      this.error({ code: 'protocol', message: `bad command: ${parsed.error}`, reason: parsed.error });
      return;
    }
    const cmd = parsed.command;
    // liveness is answered at once, also while a load is pending
    if (cmd.type === 'ping') {
      this.emit({ v: PROTOCOL_VERSION, type: 'pong', id: cmd.id });
      return;
    }
    // a cancel acts at once on the loads received before it (the running one stops at its next file)
    if (cmd.type === 'cancel_load') {
      this.cancelBefore = this.loadsReceived;
      return;
    }
    // loads are serialized; other commands wait for a pending load so they apply to the new scene
    const n = cmd.type === 'load_scene' || cmd.type === 'reload' ? ++this.loadsReceived : 0;
    const run =
      cmd.type === 'load_scene' || cmd.type === 'reload'
        ? () => this.loadCommand(cmd, () => n <= this.cancelBefore)
        : () => this.apply(cmd);
    // a failure never breaks the queue: it is reported and the next command runs
    this.loading = this.loading.then(run).catch((err) => this.error(toErrorInfo(err, cmd.type)));
  }

  /** resolves when every queued command has been applied and no backend is being made */
  async idle(): Promise<void> {
    for (;;) {
      const queue = this.loading;
      const making = this.making;
      await queue;
      if (making) await making;
      if (queue === this.loading && making === this.making && !this.backendPending) return;
    }
  }

  private apply(cmd: Command): void | Promise<void> {
    try {
      switch (cmd.type) {
        case 'set_options':
          this.setOptions(cmd.options);
          break;
        case 'set_sim':
          if (cmd.dt !== undefined && this.sim) {
            this.sim.dt = cmd.dt;
            this.pacer.dt = cmd.dt;
            if (this.info) this.info.dt = cmd.dt;
          }
          if (cmd.speed !== undefined) this.speed = this.pacer.speed = cmd.speed;
          if (cmd.contacts !== undefined) {
            this.sendContacts = cmd.contacts;
            this.sendFrame();
          }
          if (cmd.joints !== undefined) {
            this.sendJoints = cmd.joints;
            if (this.sim) this.sim.solver.track_joint_efforts = cmd.joints;
            if (this.gpu) this.gpu.track_joint_efforts = cmd.joints;
            this.sendFrame(); // paused too, the joint state shows at once
          }
          if (cmd.islands !== undefined) {
            this.sendIslands = cmd.islands;
            if (this.sim) this.sim.solver.track_islands = cmd.islands;
            this.sendFrame();
          }
          break;
        case 'play':
          this.setPlaying(true);
          break;
        case 'pause':
          this.setPlaying(false);
          break;
        case 'step':
          if (this.gpu) return this.advanceAsync(cmd.n).then(() => undefined);
          this.advance(cmd.n);
          break;
        case 'reset':
          this.reset();
          break;
        case 'seek':
          this.seek(cmd.step);
          break;
        case 'perturb':
          this.perturb(cmd);
          break;
        case 'set_control':
          this.setControl(cmd);
          break;
        case 'request_ablation':
          if (cmd.every !== undefined) this.ablation_every = cmd.every;
          if (cmd.now) this.ablate();
          break;
        case 'request_trajectory':
          if (cmd.every !== undefined) this.trajEvery = cmd.every;
          if (cmd.on) this.startTrajectory();
          else this.stopTrajectory();
          break;
        case 'ping':
          this.emit({ v: PROTOCOL_VERSION, type: 'pong', id: cmd.id });
          break;
        case 'snapshot':
          this.sendSnapshot();
          break;
        case 'restore':
          this.restore(cmd);
          break;
        case 'debug':
          this.debug(cmd);
          break;
        case 'set_backend':
          this.setBackend(cmd.backend);
          break;
        case 'control_sequence':
          if (this.controls)
            this.controls.sequencePlaying = cmd.playing && this.controls.sequence !== undefined;
          this.sendStats(true);
          break;
        case 'hold_pose':
          this.holdPose(cmd.on);
          break;
        case 'inspect_step':
          this.inspectStep(cmd);
          break;
        case 'export_trajectory':
          this.exportTrajectory(cmd.request_id, cmd.last);
          break;
      }
    } catch (err) {
      this.error(toErrorInfo(err, cmd.type));
    }
  }

  /** answers `export_trajectory`: the history ring's newest `last` steps (all when absent) */
  private exportTrajectory(request_id: number, last?: number): void {
    const sim = this.sim;
    const h = this.history;
    if (!sim || !h) throw new Error('no scene is loaded: there is no trajectory to export');
    const dump = h.dump(last);
    const trajectory: TrajectoryDump = {
      ...dump,
      num_worlds: sim.model.num_worlds,
      nq: h.nq,
      nv: h.nv,
      capacity: h.capacity,
    };
    // copied, not transferred: a detached ArrayBuffer would slow every typed-array access of the worker
    this.emit({ v: PROTOCOL_VERSION, type: 'trajectory_export', request_id, trajectory });
  }

  setPlaying(p: boolean): void {
    if (p && !this.sim) return;
    if (p !== this.playing) {
      this.playing = p;
      this.pacer.restart();
      this.statWindow = newStatWindow(this.now(), this.sim?.state.time ?? 0);
      this.emit({ v: PROTOCOL_VERSION, type: 'play_state', playing: p });
    }
  }

  // ------------------------------------------------------------------------------------------ loading

  private async loadCommand(
    cmd: Extract<Command, { type: 'load_scene' | 'reload' }>,
    cancelled: () => boolean = () => false,
  ): Promise<void> {
    let source: SceneSource;
    let loadOpts: SceneLoadOptions;
    let extra: Record<string, OptionValue | null> = {};
    if (cmd.type === 'reload') {
      if (!this.source) {
        this.error({ code: 'load', message: 'reload: no scene loaded yet' });
        return;
      }
      source = this.source;
      loadOpts = withReloadKeyframe(
        { ...this.loadOpts, num_worlds: cmd.num_worlds ?? this.loadOpts.num_worlds },
        cmd.keyframe,
      );
      if (cmd.strict !== undefined) loadOpts.strict = cmd.strict;
    } else {
      source = cmd.source;
      loadOpts = { num_worlds: cmd.num_worlds, dt: cmd.dt };
      if (cmd.keyframe !== undefined) loadOpts.keyframe = cmd.keyframe;
      if (cmd.strict !== undefined) loadOpts.strict = cmd.strict;
      extra = cmd.options ?? {};
    }
    const entry = source.kind === 'text' ? source.file_name : source.entry;
    let prepared: PreparedScene;
    const request_id = cmd.type === 'load_scene' ? cmd.request_id : undefined;
    const watch = {
      cancelled,
      progress: (p: LoadProgress) =>
        this.emit({ v: PROTOCOL_VERSION, type: 'load_progress', request_id, ...p }),
    };
    try {
      if (cancelled()) throw loadCancelled(entry);
      prepared = await prepareScene(
        source,
        loadOpts,
        cmd.type === 'reload' ? null : extra,
        this.explicit,
        watch,
      );
      // an importer may have turned the refused read into a warning: the load still ends here
      if (cancelled()) throw loadCancelled(entry);
    } catch (err) {
      this.error(toErrorInfo(err, 'load', entry));
      return;
    }
    const { loaded, sim, explicit } = prepared;
    try {
      // commit: the new scene replaces the old one only now; it starts on the CPU, and the selected
      // backend is made for its model in the background
      this.dropGpu();
      this.fallback = undefined;
      this.backendToken++;
      this.backendPending = false;
      this.sim = sim;
      this.controls = new ControlHost(loaded.model, loaded.control_sequence);
      this.controls.afterReset(sim);
      this.source = source;
      this.loadOpts = loadOpts;
      this.explicit = explicit;
      this.stepCount = 0;
      this.drag = null;
      this.lastReport = null;
      this.pacer.dt = sim.dt;
      this.pacer.restart();
      this.ablator = null;
      sim.solver.track_islands = this.sendIslands;
      sim.solver.track_joint_efforts = this.sendJoints;
      this.stopTrajectory();
      this.ablContacts = sim.collision.contacts();
      this.restartSampling();
      this.history = new HistoryRing(
        loaded.model.joint_coord_count,
        loaded.model.joint_dof_count,
        this.opts.historyCapacity,
      );
      this.history.push(0, sim.state.time, sim.state.joint_q, sim.state.joint_qd);
      this.energy = new EnergyGuard(loaded.model, sim.state);
      this.recovery = new RecoveryLog(loaded.model.num_worlds);
      this.frozenAt.clear();
      this.info = buildSceneInfo(loaded.model, sim.state.body_q, {
        name: loaded.name,
        file_name: entry,
        description: loaded.description,
        dt: sim.dt,
        contact_capacity: sim.contacts.capacity,
        warnings: loaded.warnings,
        notes: loaded.notes,
        keyframes: loaded.keyframes,
        keyframe: loaded.keyframe,
        control_sequence: loaded.control_sequence,
      });
      this.emit({
        v: PROTOCOL_VERSION,
        type: 'ready',
        scene: this.info,
        options: this.optionsInfo(),
        request_id: cmd.type === 'load_scene' ? cmd.request_id : undefined,
      });
      if (this.requested === 'webgpu') this.startGpu(sim);
      else this.sendBackend();
      this.setupRing();
      this.sendFrame();
      this.sendStats(true);
      if (cmd.type === 'load_scene' && cmd.play !== undefined) this.setPlaying(cmd.play);
    } catch (err) {
      this.error(toErrorInfo(err, 'load', entry));
    }
  }

  private setupRing(): void {
    const sim = this.sim;
    if (!sim || !this.opts.useRing) {
      this.ring = null;
      return;
    }
    const floats = sim.model.body_count * 7;
    this.ring = new RingWriter(RING_SLOTS, floats);
    this.emit({ v: PROTOCOL_VERSION, type: 'ring', buffer: this.ring.buffer, slots: RING_SLOTS, floats });
  }

  optionsInfo(): OptionsInfo {
    const effective = this.sim ? { ...this.sim.solver.options } : {};
    return { explicit: { ...this.explicit }, effective: effective as Record<string, OptionValue> };
  }

  private setOptions(patch: Record<string, OptionValue | null>): void {
    const sim = this.sim;
    if (!sim) return;
    const next = mergeOptions(this.explicit, patch);
    try {
      resolveSolverOptions(next);
    } catch (err) {
      this.error(toErrorInfo(err, 'options'));
      this.emit({ v: PROTOCOL_VERSION, type: 'options', options: this.optionsInfo() });
      return;
    }
    const before = this.explicit;
    this.explicit = next;
    sim.solver.setOptions(next);
    if (this.gpu) {
      try {
        this.gpu.setOptions(next);
      } catch (err) {
        this.gpuFailed(err, 'could not take the options');
      }
    }
    this.ablator = null;
    this.restartTrajectory();
    this.emit({ v: PROTOCOL_VERSION, type: 'options', options: this.optionsInfo() });
    this.sendBackend();
    // the contact capacity, broad phase and material fallbacks are fixed per collision pipeline:
    // a new one needs a reload
    if (COLLISION_BUILD_OPTION_KEYS.some((k) => next[k] !== before[k])) {
      this.loading = this.loading.then(() => this.loadCommand({ v: PROTOCOL_VERSION, type: 'reload' }));
    }
  }

  // ------------------------------------------------------------------------------------------ backends

  /** the backend status for the app */
  backendInfo(): BackendInfo {
    const active: BackendKind = this.gpu ? 'webgpu' : 'cpu';
    let precision: Record<string, string> = {};
    try {
      precision = precisionLabels(
        active,
        this.gpu?.options ?? this.sim?.solver.options ?? resolveSolverOptions({}),
      );
    } catch {
      /* no labels */
    }
    const info: BackendInfo = {
      requested: this.requested,
      active,
      pending: this.backendPending,
      description: this.gpu?.description ?? cpuDescription(this.sim?.solver.kernels ?? 'js'),
      precision,
    };
    if (this.fallback && active !== this.requested) info.fallback = this.fallback;
    if (this.adapter && this.requested === 'webgpu') info.adapter = this.adapter;
    return info;
  }

  private sendBackend(): void {
    this.emit({ v: PROTOCOL_VERSION, type: 'backend', backend: this.backendInfo() });
  }

  /** `set_backend`: applies to the running scene now and to later loads */
  private setBackend(kind: BackendKind): void {
    this.requested = kind;
    if (kind === 'cpu') {
      this.backendToken++; // a backend still being made is discarded
      this.backendPending = false;
      this.dropGpu();
      this.fallback = undefined;
    } else if (this.sim && !this.gpu && !this.backendPending) {
      this.startGpu(this.sim);
      return;
    }
    this.sendBackend();
  }

  /**
   * Makes the WebGPU backend for `sim` in the background (compiling the kernels can take seconds):
   * the CPU keeps stepping and commands keep applying meanwhile. The result is attached on the
   * command queue, between steps, unless the scene or the choice changed since.
   */
  private startGpu(sim: Simulation): void {
    const token = ++this.backendToken;
    this.backendPending = true;
    this.sendBackend();
    const making = this.makeGpu(sim, this.explicit).then((made) => {
      this.loading = this.loading
        .then(() => {
          if (token !== this.backendToken || this.sim !== sim || this.requested !== 'webgpu') {
            made.backend?.dispose();
            return;
          }
          this.backendPending = false;
          this.attachGpu(sim, made);
          if (this.gpu) {
            try {
              this.gpu.setOptions(this.explicit); // options changed while it was being made
            } catch (err) {
              this.gpuFailed(err, 'could not take the options');
              return;
            }
          }
          this.sendBackend();
        })
        .catch((err) => this.error(toErrorInfo(err, 'backend')));
    });
    this.making = making;
    void making.finally(() => {
      if (this.making === making) this.making = null;
    });
  }

  /** creates the WebGPU backend for a simulation's model, or says why it cannot run */
  private async makeGpu(
    sim: Simulation,
    explicit: Record<string, OptionValue>,
  ): Promise<{ backend: Backend | null; fallback?: string; adapter?: string }> {
    const factory = this.opts.createBackend ?? createBackend;
    let res: CreateBackendResult;
    try {
      res = await factory('webgpu', sim.model, {
        solver: explicit,
        max_rigid_contact: sim.contacts.capacity,
      });
    } catch (err) {
      return {
        backend: null,
        fallback: `WebGPU backend could not be created (${firstLine(err)}); running on the CPU backend`,
      };
    }
    if (res.backend.kind === 'webgpu') {
      const b = res.backend;
      const adapter =
        b instanceof WebGpuBackend ? `${b.gpu.description}${b.gpu.software ? ' (software)' : ''}` : undefined;
      return { backend: b, adapter };
    }
    res.backend.dispose();
    let adapter: string | undefined;
    try {
      adapter = await (this.opts.probeAdapter ?? probeAdapter)();
    } catch {
      adapter = undefined;
    }
    return {
      backend: null,
      fallback: res.fallback ?? 'WebGPU backend not used; running on the CPU backend',
      adapter,
    };
  }

  /** makes a created backend step `sim` (or records why none could be made) */
  private attachGpu(
    sim: Simulation,
    made: { backend: Backend | null; fallback?: string; adapter?: string },
  ): void {
    this.adapter = made.adapter ?? this.adapter;
    this.fallback = made.fallback;
    const b = made.backend;
    if (!b) return;
    this.gpu = b;
    b.track_joint_efforts = this.sendJoints;
    this.gpuNext = allocState(sim.model);
    if (b instanceof WebGpuBackend && !this.watched.has(b.gpu.device)) {
      const device = b.gpu.device;
      this.watched.add(device);
      void device.lost.then((info) => {
        if (this.gpu instanceof WebGpuBackend && this.gpu.gpu.device === device) {
          const why = `the GPU device was lost (${info.message || info.reason})`;
          this.loading = this.loading
            .then(() => {
              if (this.gpu instanceof WebGpuBackend && this.gpu.gpu.device === device) this.gpuFailed(why);
            })
            .catch((err) => this.error(toErrorInfo(err, 'backend')));
        }
      });
    }
  }

  private dropGpu(): void {
    if (!this.gpu) return;
    try {
      this.gpu.dispose();
    } catch {
      /* a lost device: nothing to release */
    }
    this.gpu = null;
    this.gpuNext = null;
  }

  /** a GPU failure mid-run: the CPU takes over with the same scene and state */
  private gpuFailed(err: unknown, what = 'failed'): void {
    this.dropGpu();
    const why = firstLine(err);
    this.fallback = `WebGPU backend ${what} (${why}); running on the CPU backend`;
    this.sendBackend();
    this.error({ code: 'backend', message: this.fallback, reason: why });
  }

  // ------------------------------------------------------------------------------------------ stepping

  /** applies the drag spring as an external wrench on the dragged body */
  private applyDrag(): void {
    const sim = this.sim;
    const d = this.drag;
    if (!sim || !d) return;
    const m = sim.model;
    const b = d.body;
    const q = sim.state.body_q,
      qd = sim.state.body_qd;
    const r: number[] = [0, 0, 0],
      rc: number[] = [0, 0, 0];
    rotate(q, b * 7 + 3, d.point, r);
    rotate(q, b * 7 + 3, m.body_com.subarray(b * 3, b * 3 + 3), rc);
    const x = [q[b * 7] + r[0], q[b * 7 + 1] + r[1], q[b * 7 + 2] + r[2]];
    // lever from the COM to the grabbed point
    const l = [r[0] - rc[0], r[1] - rc[1], r[2] - rc[2]];
    const w = [qd[b * 6 + 3], qd[b * 6 + 4], qd[b * 6 + 5]];
    const vp = [
      qd[b * 6] + w[1] * l[2] - w[2] * l[1],
      qd[b * 6 + 1] + w[2] * l[0] - w[0] * l[2],
      qd[b * 6 + 2] + w[0] * l[1] - w[1] * l[0],
    ];
    const mass = Math.max(m.body_mass[b], 1e-3);
    const k = d.stiffness * mass;
    const c = 2 * 0.7 * mass * Math.sqrt(d.stiffness);
    const f = [0, 1, 2].map((i) => k * (d.target[i] - x[i]) - c * vp[i]);
    const fmax = 30 * mass * 9.81;
    const fn = Math.hypot(f[0], f[1], f[2]);
    if (fn > fmax) for (let i = 0; i < 3; i++) f[i] *= fmax / fn;
    const bf = sim.state.body_f;
    bf[b * 6] = f[0];
    bf[b * 6 + 1] = f[1];
    bf[b * 6 + 2] = f[2];
    bf[b * 6 + 3] = l[1] * f[2] - l[2] * f[1];
    bf[b * 6 + 4] = l[2] * f[0] - l[0] * f[2];
    bf[b * 6 + 5] = l[0] * f[1] - l[1] * f[0];
  }

  /**
   * One step with drag, divergence checks and history. A world whose step produced non-finite values
   * or whose energy blew up is contained: with one world the simulation pauses at its last good
   * state; with several, that world alone is restored to its last good state (velocities zeroed),
   * reset to its initial state if it diverges again soon, and frozen after a third time, while the
   * other worlds keep going. Each event is reported (`divergence`, with world, quantity and action).
   * Returns false when the simulation paused. Always the CPU path (see {@link stepActive}).
   */
  stepOnce(): boolean {
    const sim = this.sim;
    if (!sim) return false;
    this.controls?.beforeStep(sim);
    this.applyDrag();
    const t0 = this.now();
    const r = sim.step();
    return this.afterStep(sim, r, t0, false);
  }

  /**
   * One step on the active backend: the WebGPU backend when one is attached (collision on the CPU
   * into `sim.contacts`, the GPU step from `sim.state` into the spare state, then a swap), else the
   * CPU. A GPU failure drops the backend and redoes the step on the CPU from the untouched state.
   */
  async stepActive(): Promise<boolean> {
    const sim = this.sim;
    const gpu = this.gpu;
    const next = this.gpuNext;
    if (!sim || !gpu || !next) return this.stepOnce();
    this.controls?.beforeStep(sim);
    this.applyDrag();
    const t0 = this.now();
    // a backend that collides on the device fills sim.contacts in step()
    if (!gpu.collides_on_device) sim.collision.collide(sim.state, sim.contacts);
    const tc = this.now() - t0;
    let r: StepReport;
    try {
      if (this.gpuFaultNextStep) {
        this.gpuFaultNextStep = false;
        throw new Error('injected GPU fault');
      }
      r = await gpu.step(sim.state, next, sim.control, sim.contacts, sim.dt);
    } catch (err) {
      // the input state is intact (the step writes only its output): continue on the CPU
      if (this.gpu === gpu) this.gpuFailed(err);
      return this.sim === sim ? this.stepOnce() : false;
    }
    if (this.sim !== sim || this.gpu !== gpu) return false; // replaced meanwhile (cannot happen on the queue)
    if (!gpu.collides_on_device) r.timing.collision = tc;
    this.gpuNext = sim.state;
    sim.state = next;
    sim.last_report = r;
    return this.afterStep(sim, r, t0, true);
  }

  /** the bookkeeping after a step: stats, fault injection, divergence containment, history */
  private afterStep(sim: Simulation, r: StepReport, t0: number, onGpu: boolean): boolean {
    const ms = this.now() - t0;
    addToStatWindow(this.statWindow, ms, r, onGpu);
    this.sampleWindow.steps++;
    this.sampleWindow.ms += ms;
    this.lastReport = r;
    this.stepCount++;
    if (this.faultInjection) {
      this.faultInjection(sim.state);
      this.faultInjection = null;
    }
    const faults = nonfiniteWorlds(sim.model, r, sim.state);
    for (const f of this.energy?.check(sim.state) ?? []) {
      if (!faults.some((x) => x.world === f.world)) faults.push(f);
    }
    let paused = false;
    if (faults.length > 0) paused = this.contain(faults);
    if (this.recovery && this.recovery.frozen.some((x) => x === 1)) this.holdFrozen();
    if (paused) return false;
    this.history?.push(this.stepCount, sim.state.time, sim.state.joint_q, sim.state.joint_qd);
    return true;
  }

  /** applies the recovery policy to diverged worlds; true when the simulation paused */
  private contain(faults: WorldFault[]): boolean {
    const sim = this.sim!;
    const m = sim.model;
    const last = this.history?.find(Number.MAX_SAFE_INTEGER) ?? null;
    const t = sim.state.time.toFixed(4);
    const describe = (f: WorldFault) =>
      f.quantity === 'energy'
        ? `energy ${Number.isFinite(f.energy) ? f.energy!.toExponential(3) : f.energy} J exceeds its blow-up limit ${f.limit!.toExponential(3)} J`
        : `non-finite ${f.quantity}`;
    if (m.num_worlds === 1) {
      const f = faults[0];
      if (last) this.restoreWorld(0, last.q, last.qd, false);
      sim.state.time = last?.time ?? sim.state.time;
      this.stepCount = last?.step ?? this.stepCount;
      sim.solver.updateBodyState(sim.state);
      this.setPlaying(false);
      this.error({
        code: 'divergence',
        message: `simulation diverged at t = ${t} s (step ${this.stepCount + 1}): world 0: ${describe(f)}; paused at the last good state — reset, seek back or change the options`,
        path: 'worlds[0]',
        reason: f.quantity,
        world: 0,
        action: 'paused',
      });
      return true;
    }
    for (const f of faults) {
      const action = this.recovery!.next(f.world, this.stepCount);
      if (action === 'reset') this.restoreWorld(f.world, m.joint_q0, m.joint_qd0, false);
      else if (last) this.restoreWorld(f.world, last.q, last.qd, true);
      if (action === 'frozen') this.frozenAt.set(f.world, this.worldSlice(f.world));
      const what =
        action === 'restored'
          ? 'restored to its last good state (velocities zeroed)'
          : action === 'reset'
            ? 'diverged again: reset to its initial state'
            : 'diverged a third time: frozen until reset';
      this.error({
        code: 'divergence',
        message: `world ${f.world} diverged at t = ${t} s (step ${this.stepCount}): ${describe(f)}; ${what}; the other worlds keep running`,
        path: `worlds[${f.world}]`,
        reason: f.quantity,
        world: f.world,
        action,
      });
    }
    sim.solver.updateBodyState(sim.state);
    return false;
  }

  /** copies a world's coordinates and velocities from full-model arrays (zeroing velocities if asked) */
  private restoreWorld(w: number, q: ArrayLike<number>, qd: ArrayLike<number>, zeroVelocity: boolean): void {
    const sim = this.sim!;
    const m = sim.model;
    for (let i = m.world_coord_start[w]; i < m.world_coord_start[w + 1]; i++) sim.state.joint_q[i] = q[i];
    for (let i = m.world_dof_start[w]; i < m.world_dof_start[w + 1]; i++) {
      sim.state.joint_qd[i] = zeroVelocity ? 0 : qd[i];
    }
    for (let b = 0; b < m.body_count; b++) {
      if (m.body_world[b] === w) sim.state.body_f.fill(0, b * 6, b * 6 + 6);
    }
    if (this.drag && m.body_world[this.drag.body] === w) this.drag = null;
  }

  private worldSlice(w: number): Float64Array {
    const m = this.sim!.model;
    return this.sim!.state.joint_q.slice(m.world_coord_start[w], m.world_coord_start[w + 1]);
  }

  /** frozen worlds stay where they were frozen, at rest */
  private holdFrozen(): void {
    const sim = this.sim!;
    const m = sim.model;
    for (const [w, q] of this.frozenAt) {
      sim.state.joint_q.set(q, m.world_coord_start[w]);
      sim.state.joint_qd.fill(0, m.world_dof_start[w], m.world_dof_start[w + 1]);
    }
    sim.solver.updateBodyState(sim.state);
  }

  /** `step n` on the active backend (the WebGPU path is asynchronous) */
  async advanceAsync(n: number): Promise<number> {
    let done = 0;
    while (done < n && this.sim) {
      done++;
      if (!(await this.stepActive())) break;
    }
    this.afterSteps(done);
    return done;
  }

  /** steps n times now on the CPU (no budget), then publishes a frame, stats and an ablation sample if due */
  advance(n: number): number {
    let done = 0;
    while (done < n && this.sim) {
      done++;
      if (!this.stepOnce()) break;
    }
    this.afterSteps(done);
    return done;
  }

  private afterSteps(taken: number): void {
    if (taken <= 0) return;
    if (this.traj) this.stepTrajectory(taken);
    if (this.ablation_every > 0 && this.stepCount - this.lastAblationStep >= this.ablation_every)
      this.ablate();
    this.sendFrame();
    this.sendStats(false);
  }

  /** the worker loop's per-frame entry */
  tick(): void {
    if (this.throwNextTick) {
      this.throwNextTick = false;
      throw new Error('injected fault (debug throw)');
    }
    if (!this.playing || !this.sim) return;
    if (this.gpu) {
      this.tickGpu();
      return;
    }
    const plan = this.pacer.plan(this.now());
    const taken = runBudgeted(plan, this.now, () => this.stepOnce());
    this.pacer.commit(taken);
    this.afterSteps(taken);
  }

  /**
   * The WebGPU tick: queues one budgeted batch of asynchronous steps on the command queue unless one
   * is still queued or running, so steps never overlap and ticks never pile up.
   */
  private tickGpu(): void {
    if (this.gpuBusy) return;
    this.gpuBusy = true;
    this.loading = this.loading
      .then(async () => {
        if (!this.playing || !this.sim) return;
        const plan = this.pacer.plan(this.now());
        const taken = await runBudgetedAsync(plan, this.now, () => this.stepActive());
        this.pacer.commit(taken);
        this.afterSteps(taken);
      })
      .catch((err) => {
        this.setPlaying(false);
        this.error({ code: 'worker', message: `worker step failed: ${firstLine(err)}` });
      })
      .finally(() => {
        this.gpuBusy = false;
      });
  }

  private reset(): void {
    const sim = this.sim;
    if (!sim) return;
    sim.reset();
    sim.control.joint_f.fill(0);
    sim.control.joint_target_pos.set(sim.model.joint_target_pos);
    sim.control.joint_target_vel.set(sim.model.joint_target_vel);
    sim.control.actuator_ctrl.set(sim.model.actuator_ctrl0);
    this.controls?.afterReset(sim);
    this.drag = null;
    this.stepCount = 0;
    this.lastReport = null;
    this.restartSampling();
    this.history?.clear();
    this.history?.push(0, sim.state.time, sim.state.joint_q, sim.state.joint_qd);
    this.recovery?.clear();
    this.frozenAt.clear();
    this.pacer.restart();
    clearContacts(sim.contacts);
    this.restartTrajectory();
    this.sendFrame();
    this.sendStats(true);
  }

  private seek(step: number): void {
    const sim = this.sim;
    const snap = this.history?.find(step);
    if (!sim || !snap) return;
    this.setPlaying(false);
    sim.state.joint_q.set(snap.q);
    sim.state.joint_qd.set(snap.qd);
    sim.state.time = snap.time;
    sim.state.body_f.fill(0);
    sim.solver.updateBodyState(sim.state);
    this.drag = null;
    this.stepCount = snap.step;
    this.restartSampling();
    this.recovery?.clear();
    this.frozenAt.clear();
    // the contact buffer belongs to the step that produced it: empty until the next step
    clearContacts(sim.contacts);
    this.restartTrajectory();
    this.sendFrame();
    this.sendStats(true);
  }

  private perturb(cmd: Extract<Command, { type: 'perturb' }>): void {
    const sim = this.sim;
    if (!sim) return;
    if (this.drag) {
      sim.state.body_f.fill(0, this.drag.body * 6, this.drag.body * 6 + 6);
    }
    if (cmd.body < 0) {
      this.drag = null;
      return;
    }
    if (cmd.body >= sim.model.body_count) throw new Error(`perturb: body ${cmd.body} does not exist`);
    if (!cmd.point || !cmd.target) throw new Error('perturb: point and target are required');
    this.drag = {
      body: cmd.body,
      point: cmd.point,
      target: cmd.target,
      stiffness: cmd.stiffness ?? DEFAULT_DRAG_STIFFNESS,
    };
  }

  /** hold pose on or off (control_host.ts); a WebGPU backend is rebuilt with the new drives */
  private holdPose(on: boolean): void {
    const sim = this.sim;
    if (!sim || !this.controls) return;
    this.controls.setHold(sim, on);
    if (this.gpu) {
      this.dropGpu();
      this.startGpu(sim);
    }
    this.sendStats(true);
  }

  private setControl(cmd: Extract<Command, { type: 'set_control' }>): void {
    const sim = this.sim;
    if (!sim) return;
    if (cmd.dofs.length !== cmd.values.length)
      throw new Error('set_control: dofs and values differ in length');
    const arr = sim.control[cmd.field];
    const m = sim.model;
    const actuators = cmd.field === 'actuator_ctrl';
    const perWorld = actuators
      ? m.actuator_count / m.num_worlds
      : m.world_dof_start[1] - m.world_dof_start[0];
    const what = actuators ? 'actuator' : 'dof';
    for (let i = 0; i < cmd.dofs.length; i++) {
      const d = cmd.dofs[i];
      if (d >= arr.length)
        throw new Error(`set_control: ${what} ${d} out of range (${arr.length} ${what.toUpperCase()}s)`);
      if (cmd.all_worlds && d < perWorld) {
        for (let w = 0; w < m.num_worlds; w++)
          arr[(actuators ? w * perWorld : m.world_dof_start[w]) + d] = cmd.values[i];
      } else arr[d] = cmd.values[i];
    }
  }

  // ------------------------------------------------------------------------------------------ restart support

  /** the current state, for the app to keep (restarting a dead worker restores it) */
  private sendSnapshot(): void {
    const sim = this.sim;
    if (!sim) return;
    const joint_q = sim.state.joint_q.slice();
    const joint_qd = sim.state.joint_qd.slice();
    this.emit(
      {
        v: PROTOCOL_VERSION,
        type: 'snapshot',
        step: this.stepCount,
        time: sim.state.time,
        num_worlds: sim.model.num_worlds,
        joint_q,
        joint_qd,
      },
      [joint_q.buffer, joint_qd.buffer],
    );
  }

  /** puts a kept state back (lengths checked against the model) and publishes it */
  private restore(cmd: Extract<Command, { type: 'restore' }>): void {
    const sim = this.sim;
    if (!sim) throw new Error('restore: no scene loaded');
    const m = sim.model;
    if (cmd.joint_q.length !== m.joint_coord_count || cmd.joint_qd.length !== m.joint_dof_count) {
      throw new Error(
        `restore: the state has ${cmd.joint_q.length} coordinates and ${cmd.joint_qd.length} velocities; the model has ${m.joint_coord_count} and ${m.joint_dof_count}`,
      );
    }
    sim.state.joint_q.set(cmd.joint_q);
    sim.state.joint_qd.set(cmd.joint_qd);
    sim.state.time = cmd.time;
    sim.state.body_f.fill(0);
    sim.solver.updateBodyState(sim.state);
    this.stepCount = cmd.step;
    this.drag = null;
    this.restartSampling();
    this.history?.clear();
    this.history?.push(cmd.step, cmd.time, sim.state.joint_q, sim.state.joint_qd);
    this.recovery?.clear();
    this.frozenAt.clear();
    this.pacer.restart();
    clearContacts(sim.contacts);
    this.restartTrajectory();
    this.sendFrame();
    this.sendStats(true);
  }

  /** fault injection for tests (see the `debug` command) */
  private debug(cmd: Extract<Command, { type: 'debug' }>): void {
    const sim = this.sim;
    if (cmd.fault === 'close' || cmd.fault === 'hang') {
      this.opts.onDebug?.(cmd.fault);
      return;
    }
    if (cmd.fault === 'throw') {
      this.throwNextTick = true;
      return;
    }
    if (!sim) return;
    const w = Math.min(cmd.world ?? 0, sim.model.num_worlds - 1);
    const m = sim.model;
    this.faultInjection =
      cmd.fault === 'nan'
        ? (s) => {
            if (m.world_dof_start[w + 1] > m.world_dof_start[w]) s.joint_qd[m.world_dof_start[w]] = NaN;
            else s.joint_q[m.world_coord_start[w]] = NaN;
          }
        : (s) => {
            for (let b = 0; b < m.body_count; b++) {
              if (m.body_world[b] !== w) continue;
              for (let k = 0; k < 6; k++) s.body_qd[b * 6 + k] = (s.body_qd[b * 6 + k] + 1) * 1e6;
            }
          };
  }

  // ------------------------------------------------------------------------------------------ read-outs

  /** the next step is sampled afresh (after a load, reset, seek or restore): no ablation yet, an empty step-time window */
  private restartSampling(): void {
    this.lastAblationStep = -1;
    this.sampleWindow.steps = 0;
    this.sampleWindow.ms = 0;
  }

  /** one-step ablation from the current state (SPEC §3.8) */
  ablate(): AblationSample | null {
    const sim = this.sim;
    if (!sim || !this.ablContacts) return null;
    const t0 = this.now();
    if (!this.ablator) this.ablator = new OneStepAblator(sim.model, this.explicit);
    sim.collision.collide(sim.state, this.ablContacts);
    const r = this.ablator.run(sim.state, sim.control, this.ablContacts, sim.dt);
    this.lastAblationStep = this.stepCount;
    const sample: AblationSample = {
      time: sim.state.time,
      step: this.stepCount,
      delta_precision: r.delta_precision.norm,
      delta_model: r.delta_model.norm,
      delta_precision_max: r.delta_precision.max_abs,
      delta_model_max: r.delta_model.max_abs,
      iterations: this.lastReport?.iterations_mean ?? 0,
      contacts: this.lastReport?.contact_count ?? 0,
      line_search_iterations: this.lastReport
        ? this.lastReport.line_search_iterations / Math.max(1, this.lastReport.worlds.length)
        : 0,
      step_ms: this.sampleWindow.steps > 0 ? this.sampleWindow.ms / this.sampleWindow.steps : 0,
      ms: this.now() - t0,
      ...energyOf(sim),
    };
    this.sampleWindow.steps = 0;
    this.sampleWindow.ms = 0;
    this.emit({ v: PROTOCOL_VERSION, type: 'ablation', sample });
    return sample;
  }

  /** trajectory-mode ablation (SPEC §3.8): three shadow simulations from the current state */
  private startTrajectory(): void {
    const sim = this.sim;
    if (!sim) return;
    this.traj = new TrajectoryAblator(sim.model, sim.dt, this.explicit, sim.state, sim.contacts.capacity);
    this.trajStart = sim.state.time;
    this.trajLastStep = this.stepCount;
    this.trajMs = 0;
    this.emit({ v: PROTOCOL_VERSION, type: 'trajectory_state', on: true });
  }

  private stopTrajectory(): void {
    if (!this.traj) return;
    this.traj = null;
    this.emit({ v: PROTOCOL_VERSION, type: 'trajectory_state', on: false });
  }

  /** after a jump of the live state (reset, seek, restore, new options): start again from it */
  private restartTrajectory(): void {
    if (this.traj) this.startTrajectory();
  }

  /**
   * steps the shadows `n` times (the live simulation's last n steps) with the live control; a
   * sample every `trajEvery` live steps
   */
  private stepTrajectory(n: number): void {
    const traj = this.traj!;
    const control = this.sim!.control;
    for (let i = 0; i < n; i++) {
      const t0 = this.now();
      const s = traj.step(control);
      this.trajMs += this.now() - t0;
      const step = this.stepCount - n + i + 1;
      if (step - this.trajLastStep < this.trajEvery) continue;
      this.trajLastStep = step;
      const sample: TrajectoryAblationSample = {
        time: s.time,
        step,
        start_time: this.trajStart,
        q_precision: s.q_divergence.precision,
        q_model: s.q_divergence.model,
        v_precision: s.v_divergence.precision,
        v_model: s.v_divergence.model,
        ms: this.trajMs,
      };
      this.trajMs = 0;
      this.emit({ v: PROTOCOL_VERSION, type: 'trajectory', sample });
    }
  }

  private packContacts(): ContactFrame | undefined {
    const sim = this.sim;
    if (!sim || !this.sendContacts) return undefined;
    const c = sim.contacts;
    let total = 0;
    for (let w = 0; w < c.num_worlds; w++) total += c.count[w];
    const n = Math.min(total, MAX_FRAME_CONTACTS);
    const data = new Float64Array(n * CONTACT_STRIDE);
    let k = 0;
    let truncated = 0;
    for (let w = 0; w < c.num_worlds; w++) {
      truncated += c.truncated[w];
      for (let i = 0; i < c.count[w] && k < n; i++, k++) {
        const s = w * c.capacity + i;
        const o = k * CONTACT_STRIDE;
        data[o + CF.world] = w;
        data[o + CF.body0] = c.body0[s];
        data[o + CF.body1] = c.body1[s];
        data[o + CF.shape0] = c.shape0[s];
        data[o + CF.shape1] = c.shape1[s];
        for (let a = 0; a < 3; a++) {
          data[o + CF.p0x + a] = c.point0[s * 3 + a];
          data[o + CF.p1x + a] = c.point1[s * 3 + a];
          data[o + CF.nx + a] = c.normal[s * 3 + a];
          data[o + CF.fx + a] = c.force[s * 3 + a];
          data[o + CF.px + a] = c.position[s * 3 + a];
        }
        data[o + CF.phi0] = c.phi0[s];
        data[o + CF.slip] = c.slip_state[s];
        data[o + CF.mu] = c.mu[s];
        data[o + CF.ke] = c.ke[s];
        data[o + CF.tau] = c.tau[s];
        data[o + CF.margin0] = c.margin0[s];
        data[o + CF.margin1] = c.margin1[s];
      }
    }
    return { count: n, truncated, omitted: total - n, dt: sim.dt, data };
  }

  /**
   * publishes the current poses (ring, or a copy in the message) with contacts when asked
   *
   * (the frame's arrays are copied by the message, never transferred: a transfer detaches the
   * sender's buffer, and the first detached ArrayBuffer in an isolate makes V8 add a detach check
   * to every typed-array access of optimized code from then on, ~6–9% of a CPU step; the copies
   * are a few KB per frame)
   */
  sendFrame(): void {
    const sim = this.sim;
    if (!sim) return;
    const seq = ++this.seq;
    const contacts = this.packContacts();
    // island labels come from the CPU step (none while the WebGPU backend steps)
    const islands = this.sendIslands && !this.gpu ? Int32Array.from(sim.solver.body_island) : undefined;
    // joint efforts from the backend that stepped (read back from the GPU while tracked)
    const joints = this.sendJoints
      ? {
          q: Float64Array.from(sim.state.joint_q),
          qd: Float64Array.from(sim.state.joint_qd),
          effort: Float64Array.from(this.gpu ? this.gpu.joint_effort : sim.solver.joint_effort),
        }
      : undefined;
    let poses: Float32Array | undefined;
    if (this.ring) this.ring.publish(seq, sim.state.time, this.stepCount, sim.state.body_q);
    else poses = Float32Array.from(sim.state.body_q);
    this.emit({
      v: PROTOCOL_VERSION,
      type: 'frame',
      seq,
      time: sim.state.time,
      step: this.stepCount,
      poses,
      contacts,
      islands,
      joints,
    });
  }

  /** stats at most every STATS_PERIOD_MS of wall time, unless forced */
  sendStats(force: boolean): void {
    const sim = this.sim;
    if (!sim) return;
    const now = this.now();
    if (!force && now - this.lastStatsAt < STATS_PERIOD_MS) return;
    this.lastStatsAt = now;
    const r = this.lastReport;
    const win = this.statWindow;
    const wall = (now - win.t0) / 1000;
    const rtf = wall > 0 && this.playing ? (sim.state.time - win.sim0) / wall : 0;
    const step_ms = win.steps > 0 ? win.ms / win.steps : 0;
    this.statWindow = newStatWindow(now, sim.state.time);
    this.emit({
      v: PROTOCOL_VERSION,
      type: 'stats',
      stats: {
        time: sim.state.time,
        step: this.stepCount,
        status: r?.status ?? '—',
        iterations: r?.iterations_mean ?? 0,
        iterations_max: r?.iterations_max ?? 0,
        line_search_iterations: r?.line_search_iterations ?? 0,
        islands: r ? r.worlds.reduce((n, w) => n + (w.islands ?? 0), 0) : 0,
        contacts: r?.contact_count ?? 0,
        truncated: r?.truncated_contact_count ?? 0,
        step_ms,
        stage_ms: statWindowStages(win),
        stages_queued: win.queued,
        realtime_factor: rtf,
        playing: this.playing,
        speed: this.speed,
        resyncs: this.pacer.resyncs,
        history: this.history?.range() ?? { first_step: 0, last_step: 0, first_time: 0, last_time: 0 },
        ...(this.controls ? { control: this.controls.status(sim.state.time) } : {}),
      },
    });
  }
}

/** the steps since the last stats message: counts and wall-time sums [ms] */
interface StatWindow {
  steps: number;
  /** wall time of the steps, bookkeeping included */
  ms: number;
  /** wall time and simulated time at the window's start [ms, s] */
  t0: number;
  sim0: number;
  /** per-stage sums of the step reports' timing */
  stages: StageMs;
  /** a step of the window ran on the WebGPU backend (its stages are queued, see StatsInfo) */
  queued: boolean;
}

function newStatWindow(t0: number, sim0: number): StatWindow {
  return {
    steps: 0,
    ms: 0,
    t0,
    sim0,
    stages: stageMs(() => 0),
    queued: false,
  };
}

function addToStatWindow(win: StatWindow, ms: number, r: StepReport, gpu: boolean): void {
  win.steps++;
  win.ms += ms;
  for (const k of STEP_STAGES) win.stages[k] += r.timing[k] ?? 0;
  if (gpu) win.queued = true;
}

/** the window's mean stage times per step [ms], null when it holds no step */
function statWindowStages(win: StatWindow): StageMs | null {
  return win.steps === 0 ? null : stageMs((k) => win.stages[k] / win.steps);
}

function stageMs(of: (k: StepStage) => number): StageMs {
  const s = {} as StageMs;
  for (const k of STEP_STAGES) s[k] = of(k);
  return s;
}

/** what a load may override of the file: replication, step size, (MJCF) the starting keyframe, strictness */
export interface SceneLoadOptions {
  num_worlds?: number;
  /** [s] */
  dt?: number;
  keyframe?: string | number;
  /** refuse recognized features the engine only approximates (default: warn) */
  strict?: boolean;
}

/** a loaded scene and its simulation, not yet shown */
export interface PreparedScene {
  loaded: LoadedAny;
  sim: Simulation;
  explicit: Record<string, OptionValue>;
}

/**
 * Loads a scene source and builds its simulation without touching any running one: the file
 * (`loadAnyFile`), the explicit options (the file's merged with `extra`, or `keep` on a reload),
 * validated, and the Simulation. Throws a {@link LoadError} (or the options' / model's typed error).
 */
export async function prepareScene(
  source: SceneSource,
  loadOpts: SceneLoadOptions,
  extra: Record<string, OptionValue | null> | null,
  keep: Record<string, OptionValue> = {},
  watch: Pick<LoadAnyOptions, 'progress' | 'cancelled'> = {},
): Promise<PreparedScene> {
  const files =
    source.kind === 'text'
      ? new Map([[source.file_name, new TextEncoder().encode(source.text)]])
      : source.files;
  const entry = source.kind === 'text' ? source.file_name : source.entry;
  const loaded = await loadAnyFile(files, entry, { ...loadOpts, ...watch });
  watch.progress?.({ phase: 'simulation', done: 0, total: 1 });
  const explicit =
    extra === null ? { ...keep } : mergeOptions(loaded.solver as Record<string, OptionValue>, extra);
  resolveSolverOptions(explicit); // validate before building anything
  const cap = (explicit.max_rigid_contact as number | undefined) ?? loaded.max_rigid_contact;
  checkCapacity(loaded.model, cap, entry);
  const sim = new Simulation(loaded.model, { dt: loaded.dt, solver: explicit, max_rigid_contact: cap });
  // per-stage wall times for the stats panel (a clock read per stage; results are unchanged)
  sim.stage_timing = true;
  return { loaded, sim, explicit };
}

/** the contact buffers of a model must fit the limit before they are allocated */
function checkCapacity(model: SapModel, cap: number, file: string): void {
  const fail = (reason: string): never => {
    throw new LoadError({
      code: 'load',
      file,
      path: 'max_rigid_contact',
      message: `${file}: ${reason}`,
      reason,
    });
  };
  if (!(Number.isInteger(cap) && cap >= 1)) fail(`max_rigid_contact must be an integer ≥ 1; got ${cap}`);
  if (cap > LIMITS.max_rigid_contact) fail(limitMessage(`max_rigid_contact = ${cap}`, 'max_rigid_contact'));
  const slots = cap * model.num_worlds;
  if (slots > LIMITS.max_contact_slots) {
    fail(
      limitMessage(
        `${cap} contacts × ${model.num_worlds} worlds = ${slots} contact slots`,
        'max_contact_slots',
      ),
    );
  }
  // the default broad phase lists every candidate shape pair up front: bound that list
  const perWorld = new Float64Array(model.num_worlds);
  let shared = 0;
  for (let s = 0; s < model.shape_count; s++) {
    if (!(model.shape_flags[s] & ShapeFlags.COLLIDE_SHAPES)) continue;
    const w = model.shape_world[s];
    if (w < 0) shared++;
    else perWorld[w]++;
  }
  let pairs = 0;
  for (let w = 0; w < model.num_worlds; w++)
    pairs += ((perWorld[w] + shared) * (perWorld[w] + shared - 1)) / 2;
  if (pairs > LIMITS.max_broadphase_pairs) {
    throw new LoadError({
      code: 'load',
      file,
      path: 'shapes',
      message: `${file}: ${limitMessage(`${Math.round(pairs)} candidate shape pairs`, 'max_broadphase_pairs')}`,
      reason: limitMessage(`${Math.round(pairs)} candidate shape pairs`, 'max_broadphase_pairs'),
    });
  }
}

/** explicit options with a patch applied (null removes a key) */
export function mergeOptions(
  base: Record<string, OptionValue>,
  patch: Record<string, OptionValue | null>,
): Record<string, OptionValue> {
  const out: Record<string, OptionValue> = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    // an own property even for '__proto__', so the options validator sees (and rejects) it
    else Object.defineProperty(out, k, { value: v, enumerable: true, configurable: true, writable: true });
  }
  return out;
}

/** the live state's energy summed over worlds, and whether inputs (drives, efforts, wrenches) act */
function energyOf(sim: Simulation): Pick<AblationSample, 'kinetic_energy' | 'potential_energy' | 'driven'> {
  sim.energy.measure(sim.state);
  let kinetic = 0,
    potential = 0;
  for (let w = 0; w < sim.model.num_worlds; w++) {
    kinetic += sim.energy.kinetic[w];
    potential += sim.energy.potential[w];
  }
  const m = sim.model;
  const nonzero = (a: Float64Array) => a.some((x) => x !== 0);
  const driven =
    nonzero(m.joint_target_ke) ||
    nonzero(m.joint_target_kd) ||
    nonzero(sim.control.joint_f) ||
    nonzero(sim.state.body_f);
  return { kinetic_energy: kinetic, potential_energy: potential, driven };
}
