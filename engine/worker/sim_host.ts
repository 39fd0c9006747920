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
 * The host is a coordinator: it holds the shared state ({@link HostCore}) and hands each command to
 * the module that does that job (host/): loading (load.ts, scene_prepare.ts), options (options.ts),
 * stepping and pacing (stepping.ts), the backend swap (backend_swap.ts), frames and stats
 * (publish.ts), ablation (ablation_host.ts), containment of diverging worlds (containment.ts), state
 * jumps (state_jumps.ts), controls and drag (control_commands.ts, drag.ts), inspection and
 * trajectory export (inspect_export.ts) and fault injection (fault_injection.ts).
 */
import type { Simulation, StepReport } from '../pipeline';
import type { ControlHost } from './control_host';
import type { HistoryRing } from './history';
import { StepInspector } from './inspect_host';
import { toErrorInfo } from './load_any';
import { Pacer } from './pacing';
import {
  PROTOCOL_VERSION,
  parseCommand,
  type AblationSample,
  type BackendInfo,
  type Command,
  type ErrorInfo,
  type OptionsInfo,
  type SceneInfo,
} from './protocol';
import { AblationHost } from './host/ablation_host';
import { BackendSwap } from './host/backend_swap';
import { Containment } from './host/containment';
import type { DragSpring, Emit, HostCore, OptionValue, SimHostOptions } from './host/context';
import { holdPose, playControlSequence, setControl } from './host/control_commands';
import { perturbDrag } from './host/drag';
import { FaultInjector } from './host/fault_injection';
import { exportTrajectory, inspectStep } from './host/inspect_export';
import { SceneLoader } from './host/load';
import { optionsInfo, setOptions } from './host/options';
import { Publisher } from './host/publish';
import { resetState, restoreState, seekState, sendSnapshot } from './host/state_jumps';
import { Stepper } from './host/stepping';

export type { SimHostOptions } from './host/context';
export { DEFAULT_DRAG_STIFFNESS } from './host/drag';
export { mergeOptions, prepareScene, type PreparedScene, type SceneLoadOptions } from './host/scene_prepare';

/** the engine side of the worker: the shared state and the command table (see the module comment) */
export class SimHost implements HostCore {
  sim: Simulation | null = null;
  info: SceneInfo | null = null;
  playing = false;
  speed = 1;
  sendContacts = false;
  /** frames carry each body's constraint island (set_sim islands) */
  sendIslands = false;
  /** frames carry the joint state and constraint efforts (set_sim joints) */
  sendJoints = false;
  /** steps taken since the last load or reset */
  stepCount = 0;
  explicit: Record<string, OptionValue> = {};
  history: HistoryRing | null = null;
  controls: ControlHost | null = null;
  drag: DragSpring | null = null;
  lastReport: StepReport | null = null;
  loading: Promise<void> = Promise.resolve();
  readonly pacer = new Pacer({ dt: 0.005, speed: 1 });
  readonly now: () => number;

  readonly publish: Publisher = new Publisher(this);
  readonly ablation: AblationHost = new AblationHost(this);
  readonly containment: Containment = new Containment(this);
  readonly backend: BackendSwap = new BackendSwap(this);
  readonly faults: FaultInjector = new FaultInjector(this);
  readonly loader: SceneLoader = new SceneLoader(this);
  private readonly stepper: Stepper = new Stepper(this);
  /** the step inspector's solver and scratch (inspect_step) */
  private readonly inspector: StepInspector;

  constructor(
    readonly emit: Emit,
    readonly opts: SimHostOptions = {},
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.inspector = new StepInspector(this.now);
  }

  /** a one-step ablation sample every this many steps (0: only on request) */
  get ablation_every(): number {
    return this.ablation.every;
  }
  set ablation_every(n: number) {
    this.ablation.every = n;
  }

  /** the next GPU step throws (fault injection, tests) */
  get gpuFaultNextStep(): boolean {
    return this.faults.gpuFaultNextStep;
  }
  set gpuFaultNextStep(on: boolean) {
    this.faults.gpuFaultNextStep = on;
  }

  /** the trajectory-mode shadows (null: off; tests read them) */
  get traj(): AblationHost['traj'] {
    return this.ablation.traj;
  }

  /** the load options of the loaded scene (a reload reads them again; tests read them) */
  get loadOpts(): SceneLoader['loadOpts'] {
    return this.loader.loadOpts;
  }

  error(e: ErrorInfo): void {
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
      this.loader.cancel();
      return;
    }
    // loads are serialized; other commands wait for a pending load so they apply to the new scene
    const run =
      cmd.type === 'load_scene' || cmd.type === 'reload' ? this.loader.receive(cmd) : () => this.apply(cmd);
    // a failure never breaks the queue: it is reported and the next command runs
    this.loading = this.loading.then(run).catch((err) => this.error(toErrorInfo(err, cmd.type)));
  }

  /** resolves when every queued command has been applied and no backend is being made */
  async idle(): Promise<void> {
    for (;;) {
      const queue = this.loading;
      const making = this.backend.making;
      await queue;
      if (making) await making;
      if (queue === this.loading && making === this.backend.making && !this.backend.pending) return;
    }
  }

  /** one queued command, handed to the module that does its job */
  private apply(cmd: Command): void | Promise<void> {
    try {
      switch (cmd.type) {
        case 'set_options':
          return setOptions(this, cmd.options);
        case 'set_sim':
          return this.setSim(cmd);
        case 'play':
          return this.setPlaying(true);
        case 'pause':
          return this.setPlaying(false);
        case 'step':
          if (this.backend.gpu) return this.advanceAsync(cmd.n).then(() => undefined);
          this.advance(cmd.n);
          return;
        case 'reset':
          return resetState(this);
        case 'seek':
          return seekState(this, cmd.step);
        case 'perturb':
          if (this.sim) this.drag = perturbDrag(this.sim, this.drag, cmd);
          return;
        case 'set_control':
          return setControl(this, cmd);
        case 'request_ablation':
          return this.ablation.request(cmd.every, cmd.now);
        case 'request_trajectory':
          return this.ablation.requestTrajectory(cmd.every, cmd.on);
        case 'ping':
          return this.emit({ v: PROTOCOL_VERSION, type: 'pong', id: cmd.id });
        case 'snapshot':
          return sendSnapshot(this);
        case 'restore':
          return restoreState(this, cmd);
        case 'debug':
          return this.faults.arm(cmd);
        case 'set_backend':
          return this.backend.choose(cmd.backend);
        case 'control_sequence':
          return playControlSequence(this, cmd.playing);
        case 'hold_pose':
          return holdPose(this, cmd.on);
        case 'inspect_step':
          return inspectStep(this, this.inspector, cmd);
        case 'export_trajectory':
          return exportTrajectory(this, cmd.request_id, cmd.last);
      }
    } catch (err) {
      this.error(toErrorInfo(err, cmd.type));
    }
  }

  /** `set_sim`: step size, speed and what the frames carry (a frame at once when that changed) */
  private setSim(cmd: Extract<Command, { type: 'set_sim' }>): void {
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
      if (this.backend.gpu) this.backend.gpu.track_joint_efforts = cmd.joints;
      this.sendFrame(); // paused too, the joint state shows at once
    }
    if (cmd.islands !== undefined) {
      this.sendIslands = cmd.islands;
      if (this.sim) this.sim.solver.track_islands = cmd.islands;
      this.sendFrame();
    }
  }

  setPlaying(p: boolean): void {
    if (p && !this.sim) return;
    if (p !== this.playing) {
      this.playing = p;
      this.pacer.restart();
      this.publish.restartStatWindow();
      this.emit({ v: PROTOCOL_VERSION, type: 'play_state', playing: p });
    }
  }

  /** the explicit and effective solver options */
  optionsInfo(): OptionsInfo {
    return optionsInfo(this);
  }

  /** the backend status for the app */
  backendInfo(): BackendInfo {
    return this.backend.info();
  }

  /** one CPU step with its bookkeeping (stepping.ts); false when the simulation paused */
  stepOnce(): boolean {
    return this.stepper.stepOnce();
  }

  /** one step on the active backend (stepping.ts) */
  stepActive(): Promise<boolean> {
    return this.stepper.stepActive();
  }

  /** `step n` on the active backend (the WebGPU path is asynchronous) */
  advanceAsync(n: number): Promise<number> {
    return this.stepper.advanceAsync(n);
  }

  /** steps n times now on the CPU (no budget), then publishes a frame, stats and an ablation sample if due */
  advance(n: number): number {
    return this.stepper.advance(n);
  }

  /** the worker loop's per-frame entry */
  tick(): void {
    this.stepper.tick();
  }

  /** one-step ablation from the current state (SPEC §3.8) */
  ablate(): AblationSample | null {
    return this.ablation.ablate();
  }

  /** publishes the current poses (publish.ts) */
  sendFrame(): void {
    this.publish.frame();
  }

  /** stats at most every 250 ms of wall time, unless forced */
  sendStats(force: boolean): void {
    this.publish.stats(force);
  }
}
