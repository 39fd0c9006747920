/**
 * What the SimHost's jobs share (host/*.ts): the live scene and run state, the clock, the event
 * sink and the command queue. {@link SimHost} implements it and hands itself to each job; a job
 * reads and writes these fields and calls the other jobs through them, never through sim_host.ts.
 */
import type { Backend, BackendKind, CreateBackendResult } from '../../backends';
import type { SapModel } from '../../model';
import type { Simulation, StepReport } from '../../pipeline';
import type { SapState } from '../../state';
import type { ControlHost } from '../control_host';
import type { HistoryRing } from '../history';
import type { Pacer } from '../pacing';
import type { Command, ErrorInfo, SceneInfo, WorkerEvent } from '../protocol';

/** posts one event to the app (with the buffers to transfer, if any) */
export type Emit = (e: WorkerEvent, transfer?: Transferable[]) => void;
/** one solver option's value */
export type OptionValue = string | number | boolean;

/** how a SimHost is set up (transport, clock, history length, and test hooks) */
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

/** a held body: the grabbed point in the body frame [m], the world target [m], stiffness [N/m/kg] */
export interface DragSpring {
  body: number;
  point: number[];
  target: number[];
  stiffness: number;
}

// What each job offers the others (the jobs implement these; their own modules say more).

/** frames and stats (publish.ts) */
export interface PublishJob {
  frame(): void;
  stats(force: boolean): void;
  setupRing(): void;
  restartStatWindow(): void;
  recordStep(ms: number, r: StepReport, onGpu: boolean): void;
}

/** one-step and trajectory ablation (ablation_host.ts) */
export interface AblationJob {
  onLoad(sim: Simulation): void;
  dropAblator(): void;
  recordStep(ms: number): void;
  afterSteps(taken: number): void;
  restartSampling(): void;
  restartTrajectory(): void;
}

/** containment of diverging worlds (containment.ts) */
export interface ContainmentJob {
  onLoad(model: SapModel, state: SapState): void;
  clear(): void;
  check(r: StepReport): boolean;
}

/** the backend swap (backend_swap.ts) */
export interface BackendJob {
  readonly gpu: Backend | null;
  gpuNext: SapState | null;
  onLoad(): void;
  afterLoad(sim: Simulation): void;
  setOptions(next: Record<string, OptionValue>): void;
  rebuild(sim: Simulation): void;
  send(): void;
  failed(err: unknown, what?: string): void;
}

/** fault injection (fault_injection.ts) */
export interface FaultJob {
  afterStep(state: SapState): void;
  throwIfArmed(): void;
  throwIfGpuArmed(): void;
}

/** loading (load.ts) */
export interface LoadJob {
  load(cmd: Extract<Command, { type: 'load_scene' | 'reload' }>): Promise<void>;
}

/** the state and services the host's jobs share (see the module comment) */
export interface HostCore {
  readonly emit: Emit;
  /** clock [ms] */
  readonly now: () => number;
  readonly opts: SimHostOptions;
  /** how many steps the wall clock owes */
  readonly pacer: Pacer;
  /** the command queue: loads, queued commands and GPU batches run on it one after another */
  loading: Promise<void>;

  sim: Simulation | null;
  info: SceneInfo | null;
  playing: boolean;
  speed: number;
  /** steps taken since the last load or reset */
  stepCount: number;
  /** frames carry contacts / constraint islands / joint state and efforts (set_sim) */
  sendContacts: boolean;
  sendIslands: boolean;
  sendJoints: boolean;
  /** the explicit solver options of the loaded scene */
  explicit: Record<string, OptionValue>;
  history: HistoryRing | null;
  /** the control sequence and hold pose of the loaded scene */
  controls: ControlHost | null;
  /** the mouse-drag spring, if a body is held */
  drag: DragSpring | null;
  lastReport: StepReport | null;

  readonly publish: PublishJob;
  readonly ablation: AblationJob;
  readonly containment: ContainmentJob;
  readonly backend: BackendJob;
  readonly faults: FaultJob;
  readonly loader: LoadJob;

  /** posts an `error` event */
  error(e: ErrorInfo): void;
  /** starts or pauses the clock-paced stepping (a `play_state` event on a change) */
  setPlaying(p: boolean): void;
}

/** the first line of an error's message (at most 300 characters) */
export function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0].slice(0, 300);
}
