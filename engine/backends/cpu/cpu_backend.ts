/**
 * CPU reference backend: the SolverSAP pipeline (engine/pipeline/step.ts) behind the Backend
 * interface. Every GPU kernel has its twin here (SPEC §6).
 */
import type { SapContacts } from '../../collision/contacts';
import type { SapModel } from '../../model';
import type { StepReport } from '../../pipeline/report';
import { SolverSAP } from '../../pipeline/step';
import type { SapSolverOptions } from '../../sap/options';
import type { WarmStart } from '../../pipeline/warm_start';
import type { SapControl, SapState } from '../../state';
import type { LinalgKernels } from '../../sap/linalg/wasm/kernels';
import type { Backend, BackendInitOptions } from '../backend';

/** the CPU backend's realization in words (the linear algebra runs on `kernels`) */
export function cpuDescription(kernels: LinalgKernels): string {
  return kernels === 'wasm'
    ? 'cpu (fp64 reference; fp32 knobs exact binary32: WebAssembly linear algebra, Math.fround elsewhere)'
    : 'cpu (fp64 reference; fp32 knobs rounded with Math.fround)';
}

export class CpuBackend implements Backend {
  readonly kind = 'cpu' as const;
  private solver: SolverSAP | null = null;

  get description(): string {
    return cpuDescription(this.solver?.kernels ?? 'js');
  }

  private get s(): SolverSAP {
    if (!this.solver) throw new Error('CpuBackend: init(model) first');
    return this.solver;
  }

  async init(model: SapModel, opts: BackendInitOptions = {}): Promise<void> {
    this.initSync(model, opts);
  }

  /** synchronous init, for callers that cannot await */
  initSync(model: SapModel, opts: BackendInitOptions = {}): void {
    this.solver = new SolverSAP(model, opts.solver ?? {});
    if (opts.warm_start !== undefined) this.solver.warm_start = opts.warm_start;
  }

  get warm_start(): WarmStart {
    return this.s.warm_start;
  }

  get options(): SapSolverOptions {
    return this.s.options;
  }

  get last_velocity(): Float64Array {
    return this.s.last_velocity;
  }

  get track_joint_efforts(): boolean {
    return this.s.track_joint_efforts;
  }
  set track_joint_efforts(on: boolean) {
    this.s.track_joint_efforts = on;
  }

  get joint_effort(): Float64Array {
    return this.s.joint_effort;
  }

  /** the underlying reference solver */
  get reference(): SolverSAP {
    return this.s;
  }

  setOptions(solver: Record<string, unknown>): void {
    this.s.setOptions(solver);
  }

  step(
    state_in: SapState,
    state_out: SapState,
    control: SapControl,
    contacts: SapContacts,
    dt: number,
  ): Promise<StepReport> {
    return Promise.resolve(this.s.step(state_in, state_out, control, contacts, dt));
  }

  /** the step without a promise */
  stepSync(
    state_in: SapState,
    state_out: SapState,
    control: SapControl,
    contacts: SapContacts,
    dt: number,
  ): StepReport {
    return this.s.step(state_in, state_out, control, contacts, dt);
  }

  updateBodyState(state: SapState): void {
    this.s.updateBodyState(state);
  }

  dispose(): void {
    this.solver = null;
  }
}
