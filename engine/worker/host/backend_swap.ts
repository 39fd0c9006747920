/**
 * The backend swap (SPEC §6, `set_backend`): the CPU path is the `Simulation` stepped synchronously.
 * With 'webgpu' a {@link Backend} from `createBackend` steps the same state (collision stays on the
 * CPU, into the same contact buffer). The backend is made anew for each load, in the background (the
 * kernels may take a while to compile) while the CPU keeps stepping, and attached on the command
 * queue between steps; when WebGPU cannot run (no adapter, a model feature the GPU path lacks) or
 * fails mid-run, the CPU takes over with the reason (`backend` event) and the scene and state stay as
 * they are. Option changes go to the live backend (`setOptions`, which rebuilds what they need).
 */
import {
  WebGpuBackend,
  cpuDescription,
  createBackend,
  precisionLabels,
  probeWebGpu,
  type Backend,
  type BackendKind,
  type CreateBackendResult,
} from '../../backends';
import type { Simulation } from '../../pipeline';
import { resolveSolverOptions } from '../../sap/options';
import { allocState, type SapState } from '../../state';
import { toErrorInfo } from '../load_any';
import { PROTOCOL_VERSION, type BackendInfo } from '../protocol';
import { firstLine, type HostCore, type BackendJob, type OptionValue } from './context';

async function probeAdapter(): Promise<string | undefined> {
  const p = await probeWebGpu();
  return p.available ? `${p.description}${p.software ? ' (software)' : ''}` : undefined;
}

/** the backend choice of one host and the WebGPU backend stepping its simulation, if any */
export class BackendSwap implements BackendJob {
  /** the backend the user chose */
  requested: BackendKind = 'cpu';
  /** the WebGPU backend stepping `sim`'s state, or null on the CPU path */
  gpu: Backend | null = null;
  /** the GPU step's output state (swapped with `sim.state` after each step) */
  gpuNext: SapState | null = null;
  /** a backend is being made for the loaded scene */
  pending = false;
  /** the backend being made, if any */
  making: Promise<void> | null = null;
  /** bumps whenever a backend being made becomes stale (new scene, another choice) */
  private token = 0;
  private fallback: string | undefined;
  private adapter: string | undefined;
  /** GPU devices whose loss is watched */
  private readonly watched = new WeakSet<object>();

  constructor(private readonly host: HostCore) {}

  /** a new scene is committed: it starts on the CPU; a backend being made for the old one is discarded */
  onLoad(): void {
    this.drop();
    this.fallback = undefined;
    this.token++;
    this.pending = false;
  }

  /** after a new scene's `ready`: the chosen backend is made for it, or the CPU path is reported */
  afterLoad(sim: Simulation): void {
    if (this.requested === 'webgpu') this.start(sim);
    else this.send();
  }

  /** new explicit options for the live backend (a failure hands over to the CPU) */
  setOptions(next: Record<string, OptionValue>): void {
    if (!this.gpu) return;
    try {
      this.gpu.setOptions(next);
    } catch (err) {
      this.failed(err, 'could not take the options');
    }
  }

  /** new drives (hold pose): a live WebGPU backend is rebuilt for them */
  rebuild(sim: Simulation): void {
    if (!this.gpu) return;
    this.drop();
    this.start(sim);
  }

  /** the backend status for the app */
  info(): BackendInfo {
    const active: BackendKind = this.gpu ? 'webgpu' : 'cpu';
    let precision: Record<string, string> = {};
    try {
      precision = precisionLabels(
        active,
        this.gpu?.options ?? this.host.sim?.solver.options ?? resolveSolverOptions({}),
      );
    } catch {
      /* no labels */
    }
    const info: BackendInfo = {
      requested: this.requested,
      active,
      pending: this.pending,
      description: this.gpu?.description ?? cpuDescription(this.host.sim?.solver.kernels ?? 'js'),
      precision,
    };
    if (this.fallback && active !== this.requested) info.fallback = this.fallback;
    if (this.adapter && this.requested === 'webgpu') info.adapter = this.adapter;
    return info;
  }

  send(): void {
    this.host.emit({ v: PROTOCOL_VERSION, type: 'backend', backend: this.info() });
  }

  /** `set_backend`: applies to the running scene now and to later loads */
  choose(kind: BackendKind): void {
    this.requested = kind;
    if (kind === 'cpu') {
      this.token++; // a backend still being made is discarded
      this.pending = false;
      this.drop();
      this.fallback = undefined;
    } else if (this.host.sim && !this.gpu && !this.pending) {
      this.start(this.host.sim);
      return;
    }
    this.send();
  }

  /**
   * Makes the WebGPU backend for `sim` in the background (compiling the kernels can take seconds):
   * the CPU keeps stepping and commands keep applying meanwhile. The result is attached on the
   * command queue, between steps, unless the scene or the choice changed since.
   */
  start(sim: Simulation): void {
    const token = ++this.token;
    this.pending = true;
    this.send();
    const making = this.make(sim, this.host.explicit).then((made) => {
      this.host.loading = this.host.loading
        .then(() => {
          if (token !== this.token || this.host.sim !== sim || this.requested !== 'webgpu') {
            made.backend?.dispose();
            return;
          }
          this.pending = false;
          this.attach(sim, made);
          if (this.gpu) {
            try {
              this.gpu.setOptions(this.host.explicit); // options changed while it was being made
            } catch (err) {
              this.failed(err, 'could not take the options');
              return;
            }
          }
          this.send();
        })
        .catch((err) => this.host.error(toErrorInfo(err, 'backend')));
    });
    this.making = making;
    void making.finally(() => {
      if (this.making === making) this.making = null;
    });
  }

  /** creates the WebGPU backend for a simulation's model, or says why it cannot run */
  private async make(
    sim: Simulation,
    explicit: Record<string, OptionValue>,
  ): Promise<{ backend: Backend | null; fallback?: string; adapter?: string }> {
    const factory = this.host.opts.createBackend ?? createBackend;
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
      adapter = await (this.host.opts.probeAdapter ?? probeAdapter)();
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
  private attach(
    sim: Simulation,
    made: { backend: Backend | null; fallback?: string; adapter?: string },
  ): void {
    this.adapter = made.adapter ?? this.adapter;
    this.fallback = made.fallback;
    const b = made.backend;
    if (!b) return;
    this.gpu = b;
    b.track_joint_efforts = this.host.sendJoints;
    this.gpuNext = allocState(sim.model);
    if (b instanceof WebGpuBackend && !this.watched.has(b.gpu.device)) {
      const device = b.gpu.device;
      this.watched.add(device);
      void device.lost.then((info) => {
        if (this.gpu instanceof WebGpuBackend && this.gpu.gpu.device === device) {
          const why = `the GPU device was lost (${info.message || info.reason})`;
          this.host.loading = this.host.loading
            .then(() => {
              if (this.gpu instanceof WebGpuBackend && this.gpu.gpu.device === device) this.failed(why);
            })
            .catch((err) => this.host.error(toErrorInfo(err, 'backend')));
        }
      });
    }
  }

  drop(): void {
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
  failed(err: unknown, what = 'failed'): void {
    this.drop();
    const why = firstLine(err);
    this.fallback = `WebGPU backend ${what} (${why}); running on the CPU backend`;
    this.send();
    this.host.error({ code: 'backend', message: this.fallback, reason: why });
  }
}
