/**
 * The main-thread side of the worker: typed commands out, typed events in, and the latest pose frame
 * (from the SharedArrayBuffer ring or the last frame message's copy) for the renderer to read each
 * animation frame without going through React state.
 *
 * It also keeps the engine alive (SPEC §11, "faults lose nothing"): it watches the worker (any message
 * counts; a `ping` goes out after a quiet second), keeps the last loaded scene, the explicit options,
 * the simulation settings and a recent state snapshot, and when the worker dies (an uncaught error
 * that ends it, `self.close()`, a hang) it starts a new one, reloads the scene and restores the
 * snapshot, then tells the app through an `error` event with code `worker_restarted`.
 */
import { SOLVER_OPTION_KEYS } from '../sap/options';
import { RingReader } from './frame_ring';
import {
  PROTOCOL_VERSION,
  withReloadKeyframe,
  type BackendChoice,
  type Command,
  type CommandBody,
  type ContactFrame,
  type JointFrame,
  type WorkerEvent,
} from './protocol';

export interface LatestFrame {
  seq: number;
  time: number;
  step: number;
  poses: Float32Array | null;
  contacts: ContactFrame | null;
  /** constraint island per body (when set_sim islands is on) */
  islands: Int32Array | null;
  /** joint state and constraint efforts (when set_sim joints is on) */
  joints: JointFrame | null;
}

/** what the client needs from a Worker (a fake one in tests) */
export interface WorkerLike {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  terminate(): void;
  onmessage: ((ev: MessageEvent) => void) | null;
  onerror: ((ev: ErrorEvent) => void) | null;
}

export interface SimClientOptions {
  /** creates the engine worker (default: the module worker of worker.ts) */
  createWorker?: () => WorkerLike;
  /** a ping goes out when the worker was quiet this long [ms] */
  pingMs?: number;
  /** the worker counts as dead after this long without any message [ms] */
  deadAfterMs?: number;
  /** the same while a scene is loading (big files parse for a while) [ms] */
  loadingDeadAfterMs?: number;
  /** a state snapshot is kept this often while playing [ms] */
  snapshotMs?: number;
  /** most restarts within `restartWindowMs`; past that the client gives up and reports it */
  maxRestarts?: number;
  restartWindowMs?: number;
  /** clock [ms] */
  now?: () => number;
  /** timer (tests drive it by hand) */
  setInterval?: (fn: () => void, ms: number) => unknown;
  clearInterval?: (h: unknown) => void;
}

type LoadCommand = Extract<CommandBody, { type: 'load_scene' }>;
type Snapshot = Extract<WorkerEvent, { type: 'snapshot' }>;

function defaultWorker(): WorkerLike {
  return new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'sap-engine' });
}

export class SimClient {
  private worker: WorkerLike;
  private ring: RingReader | null = null;
  /** the newest frame metadata and poses; mutated in place */
  readonly latest: LatestFrame = {
    seq: 0,
    time: 0,
    step: 0,
    poses: null,
    contacts: null,
    islands: null,
    joints: null,
  };
  /** 'ring' or 'message', once the first frame arrived */
  transport: 'ring' | 'message' | 'none' = 'none';
  /** restarts so far (for tests and the stats panel) */
  restarts = 0;

  private readonly opts: Required<Omit<SimClientOptions, 'createWorker'>> & {
    createWorker: () => WorkerLike;
  };
  private lastHeard: number;
  private lastPing = 0;
  private pingId = 0;
  private loading = false;
  /** a long `step` batch is running (cleared by its frame) */
  private busyStepping = false;
  private timer: unknown = null;
  private restartTimes: number[] = [];
  private gaveUp = false;
  // what a restart needs
  private sentLoad: LoadCommand | null = null;
  private keptLoad: LoadCommand | null = null;
  private explicit: Record<string, string | number | boolean> | null = null;
  private sim: { dt?: number; speed?: number; contacts?: boolean; islands?: boolean; joints?: boolean } = {};
  /** the backend the app chose (a restarted worker gets it before the scene) */
  private backend: BackendChoice = 'cpu';
  private playing = false;
  private snapshot: Snapshot | null = null;
  /** callers of {@link fetchSnapshot} waiting for the next snapshot */
  private snapshotWaiters: ((s: Snapshot | null) => void)[] = [];
  private lastSnapshotAt = 0;
  private restoring: { id: number; snapshot: Snapshot | null; playing: boolean } | null = null;
  private nextRequest = 1_000_000;

  constructor(
    private readonly onEvent: (e: WorkerEvent) => void,
    options: SimClientOptions = {},
  ) {
    this.opts = {
      createWorker: options.createWorker ?? defaultWorker,
      pingMs: options.pingMs ?? 1000,
      deadAfterMs: options.deadAfterMs ?? 8000,
      loadingDeadAfterMs: options.loadingDeadAfterMs ?? 60_000,
      snapshotMs: options.snapshotMs ?? 2000,
      maxRestarts: options.maxRestarts ?? 3,
      restartWindowMs: options.restartWindowMs ?? 60_000,
      now: options.now ?? (() => performance.now()),
      setInterval: options.setInterval ?? ((fn, ms) => setInterval(fn, ms)),
      clearInterval: options.clearInterval ?? ((h) => clearInterval(h as ReturnType<typeof setInterval>)),
    };
    this.lastHeard = this.opts.now();
    this.worker = this.spawn();
    this.timer = this.opts.setInterval(() => this.watch(), Math.min(250, this.opts.pingMs));
  }

  private spawn(): WorkerLike {
    const w = this.opts.createWorker();
    w.onmessage = (ev: MessageEvent<WorkerEvent>) => {
      if (this.worker === w) this.receive(ev.data);
    };
    w.onerror = (ev) => {
      if (this.worker !== w) return;
      this.onEvent({
        v: PROTOCOL_VERSION,
        type: 'error',
        error: { code: 'worker', message: ev.message || 'worker error' },
      });
    };
    this.lastHeard = this.opts.now();
    return w;
  }

  private receive(e: WorkerEvent): void {
    this.lastHeard = this.opts.now();
    switch (e.type) {
      case 'pong':
        return; // liveness only
      case 'snapshot': {
        this.snapshot = e;
        const waiters = this.snapshotWaiters;
        this.snapshotWaiters = [];
        for (const w of waiters) w(e);
        return;
      }
      case 'ring':
        this.ring = new RingReader(e.buffer);
        this.transport = 'ring';
        break;
      case 'ready':
        this.ring = null;
        this.latest.poses = null;
        this.latest.contacts = null;
        this.latest.islands = null;
        this.latest.joints = null;
        this.loading = false;
        this.explicit = { ...e.options.explicit };
        if (this.sentLoad) this.keptLoad = this.sentLoad;
        this.snapshot = null;
        if (this.restoring && e.request_id === this.restoring.id) {
          this.finishRestore();
        }
        break;
      case 'options':
        this.explicit = { ...e.options.explicit };
        break;
      case 'play_state':
        this.playing = e.playing;
        if (!e.playing) this.requestSnapshot();
        break;
      case 'error':
        if (
          this.loading &&
          (e.error.code === 'load' || e.error.code === 'unsupported_format' || e.error.code === 'asset')
        ) {
          // the failed load is not the scene to restore
          this.loading = false;
          this.sentLoad = this.keptLoad;
        }
        break;
      case 'frame':
        this.busyStepping = false;
        this.latest.seq = e.seq;
        this.latest.time = e.time;
        this.latest.step = e.step;
        this.latest.contacts = e.contacts ?? null;
        this.latest.islands = e.islands ?? null;
        this.latest.joints = e.joints ?? null;
        if (e.poses) {
          this.latest.poses = e.poses;
          this.transport = 'message';
        } else if (this.ring) {
          const f = this.ring.read();
          if (f) this.latest.poses = f.poses;
        }
        break;
    }
    this.onEvent(e);
  }

  /** the newest poses: reads the ring when one is in use (called once per animation frame) */
  poses(): Float32Array | null {
    if (this.ring && this.ring.hasNew()) {
      const f = this.ring.read();
      if (f) {
        this.latest.poses = f.poses;
        this.latest.time = f.time;
        this.latest.step = f.step;
      }
    }
    return this.latest.poses;
  }

  send(cmd: CommandBody, transfer: Transferable[] = []): void {
    this.track(cmd);
    this.worker.postMessage({ ...cmd, v: PROTOCOL_VERSION }, transfer);
  }

  /** the load of the scene running now (its source and load options), or null before the first */
  get lastLoad(): LoadCommand | null {
    return this.keptLoad;
  }

  /** remembers what a restart must replay */
  private track(cmd: CommandBody): void {
    switch (cmd.type) {
      case 'load_scene':
        this.sentLoad = cmd;
        this.loading = true;
        break;
      case 'reload':
        if (
          this.keptLoad &&
          (cmd.num_worlds !== undefined || cmd.keyframe !== undefined || cmd.strict !== undefined)
        ) {
          const next = withReloadKeyframe(this.keptLoad, cmd.keyframe);
          if (cmd.num_worlds !== undefined) next.num_worlds = cmd.num_worlds;
          if (cmd.strict !== undefined) next.strict = cmd.strict;
          this.sentLoad = next;
        }
        this.loading = true;
        break;
      case 'set_sim':
        this.sim = {
          dt: cmd.dt ?? this.sim.dt,
          speed: cmd.speed ?? this.sim.speed,
          contacts: cmd.contacts ?? this.sim.contacts,
          islands: cmd.islands ?? this.sim.islands,
          joints: cmd.joints ?? this.sim.joints,
        };
        break;
      case 'set_backend':
        this.backend = cmd.backend;
        break;
      case 'play':
        this.playing = true;
        break;
      case 'pause':
        this.playing = false;
        break;
      case 'step':
        // a long batch keeps the worker busy: give it the loading grace until its frame arrives
        if (cmd.n > 1000) this.busyStepping = true;
        break;
    }
  }

  /**
   * the worker's state now (a fresh `snapshot`: step, time, joint_q, joint_qd), or null when it does
   * not answer within `timeoutMs`
   */
  fetchSnapshot(timeoutMs = 2000): Promise<Snapshot | null> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (s: Snapshot | null) => {
        if (done) return;
        done = true;
        resolve(s);
      };
      this.snapshotWaiters.push(finish);
      setTimeout(() => finish(null), timeoutMs);
      this.requestSnapshot();
    });
  }

  private requestSnapshot(): void {
    this.lastSnapshotAt = this.opts.now();
    this.worker.postMessage({ v: PROTOCOL_VERSION, type: 'snapshot' } satisfies Command);
  }

  /** the liveness and snapshot clock */
  private watch(): void {
    if (this.gaveUp) return;
    const now = this.opts.now();
    const quiet = now - this.lastHeard;
    const limit = this.loading || this.busyStepping ? this.opts.loadingDeadAfterMs : this.opts.deadAfterMs;
    if (quiet > limit) {
      this.restart(`no answer for ${(quiet / 1000).toFixed(1)} s`);
      return;
    }
    if (quiet >= this.opts.pingMs && now - this.lastPing >= this.opts.pingMs) {
      this.lastPing = now;
      this.worker.postMessage({ v: PROTOCOL_VERSION, type: 'ping', id: ++this.pingId } satisfies Command);
    }
    if (
      this.playing &&
      this.keptLoad &&
      !this.restoring &&
      now - this.lastSnapshotAt >= this.opts.snapshotMs
    ) {
      this.requestSnapshot();
    }
  }

  /** replaces a dead worker by a new one with the last scene and state */
  restart(reason: string): void {
    const now = this.opts.now();
    this.restartTimes = this.restartTimes.filter((t) => now - t < this.opts.restartWindowMs);
    try {
      this.worker.terminate();
    } catch {
      /* already gone */
    }
    if (this.restartTimes.length >= this.opts.maxRestarts) {
      this.gaveUp = true;
      this.onEvent({
        v: PROTOCOL_VERSION,
        type: 'error',
        error: {
          code: 'worker',
          message: `the engine worker failed ${this.restartTimes.length + 1} times within ${this.opts.restartWindowMs / 1000} s (${reason}); reload the page`,
          reason,
        },
      });
      return;
    }
    this.restartTimes.push(now);
    this.restarts++;
    this.ring = null;
    this.transport = 'none';
    this.worker = this.spawn();
    if (this.backend !== 'cpu') {
      this.worker.postMessage({
        v: PROTOCOL_VERSION,
        type: 'set_backend',
        backend: this.backend,
      } satisfies Command);
    }
    const load = this.keptLoad;
    const filesGone =
      load?.source.kind === 'files' && [...load.source.files.values()].every((b) => b.byteLength === 0);
    if (!load || filesGone) {
      this.loading = false;
      this.onEvent({
        v: PROTOCOL_VERSION,
        type: 'error',
        error: {
          code: 'worker_restarted',
          message: `the engine worker stopped (${reason}) and was restarted; ${load ? 'the dropped files were handed to the old worker and cannot be reloaded: drop them again' : 'no scene to restore'}`,
          reason,
        },
      });
      return;
    }
    const id = this.nextRequest++;
    this.restoring = { id, snapshot: this.snapshot, playing: this.playing };
    // the explicit options as they were: keys the scene sets but the user cleared are cleared again
    const options: Record<string, string | number | boolean | null> = Object.fromEntries(
      SOLVER_OPTION_KEYS.map((k) => [k, null]),
    );
    Object.assign(options, this.explicit ?? load.options ?? {});
    const cmd: LoadCommand = { ...load, options, dt: this.sim.dt ?? load.dt, play: false, request_id: id };
    this.sentLoad = load;
    this.loading = true;
    this.worker.postMessage({ ...cmd, v: PROTOCOL_VERSION });
    this.onEvent({
      v: PROTOCOL_VERSION,
      type: 'error',
      error: {
        code: 'worker_restarted',
        message: `the engine worker stopped (${reason}); restarted it and ${this.snapshot ? `restored step ${this.snapshot.step}` : 'reloaded the scene'}`,
        reason,
      },
    });
  }

  private finishRestore(): void {
    const r = this.restoring!;
    this.restoring = null;
    const post = (c: CommandBody) => this.worker.postMessage({ ...c, v: PROTOCOL_VERSION });
    post({
      type: 'set_sim',
      speed: this.sim.speed,
      contacts: this.sim.contacts,
      islands: this.sim.islands,
      joints: this.sim.joints,
    });
    if (r.snapshot) {
      post({
        type: 'restore',
        step: r.snapshot.step,
        time: r.snapshot.time,
        joint_q: Float64Array.from(r.snapshot.joint_q),
        joint_qd: Float64Array.from(r.snapshot.joint_qd),
      });
    }
    if (r.playing) post({ type: 'play' });
    this.snapshot = r.snapshot;
  }

  dispose(): void {
    if (this.timer !== null) this.opts.clearInterval(this.timer);
    this.timer = null;
    this.worker.terminate();
  }
}
