/**
 * Simulation: the one stepping loop of the engine, over a backend (the CLI, tests, benchmarks and
 * the worker use it): collide(state) on the CPU → backend step(state, next, control, contacts, dt)
 * → swap, then each world's energy. A backend that `collides_on_device` skips the CPU collide and
 * fills `contacts` in its step. Without a backend it steps the CPU reference {@link SapStepper}.
 *
 *   const sim = new Simulation(model, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
 *   sim.step();                               // the CPU reference, synchronously
 *   const { backend } = await createBackend('webgpu', model, { solver });   // engine/backends
 *   const gpu = new Simulation(model, { dt: 0.002, backend });
 *   await gpu.stepAsync();
 */
import { SapCollisionPipeline, type CollisionPipelineOptions } from '../collision/pipeline';
import type { SapContacts } from '../collision/contacts';
import { makeState } from '../kinematics';
import type { SapModel } from '../model';
import { OptionsError, type SapSolverOptions } from '../sap/options';
import { allocState, makeControl, type SapControl, type SapState } from '../state';
import { EnergyMeter } from './energy';
import type { StepReport } from './report';
import { SapStepper } from './step';

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * What Simulation needs of a backend; engine/backends' `Backend` (CPU, WebGPU) is one. A 'cpu'
 * backend with a `reference` stepper is stepped synchronously through it.
 */
export interface SimulationBackend {
  readonly kind: string;
  /** the expanded options in force (the collision options come from them) */
  readonly options: SapSolverOptions;
  /** advances state_in by dt [s] into state_out, using contacts from collide(state_in) */
  step(
    state_in: SapState,
    state_out: SapState,
    control: SapControl,
    contacts: SapContacts,
    dt: number,
  ): Promise<StepReport>;
  /** fills body_q and body_qd of a state from joint_q and joint_qd */
  updateBodyState(state: SapState): void;
  /** true when step() collides on the device and fills the contact buffer itself */
  readonly collides_on_device?: boolean;
  /** the CPU reference stepper behind a 'cpu' backend */
  readonly reference?: SapStepper;
}

/** the CPU reference stepper as a {@link SimulationBackend} (a Simulation's default) */
function referenceBackend(stepper: SapStepper): SimulationBackend {
  return {
    kind: 'cpu',
    get options(): SapSolverOptions {
      return stepper.options;
    },
    step: (a, b, c, k, dt) => Promise.resolve(stepper.step(a, b, c, k, dt)),
    updateBodyState: (state) => stepper.updateBodyState(state),
    reference: stepper,
  };
}

export interface SimulationOptions {
  /** time step [s] */
  dt: number;
  /**
   * the backend that steps, initialized for the model (default: a CPU backend made from `solver`);
   * its own options are in force, so `solver` is refused beside it
   */
  backend?: SimulationBackend;
  /** solver options (SPEC §3.6), validated, for the default CPU backend */
  solver?: Record<string, unknown>;
  /** contact slots per world (default: the solver's max_rigid_contact) */
  max_rigid_contact?: number;
}

/**
 * The collision options that solver options carry (SAP Warp passes them to its solver too): contact
 * capacity per world, broad phase, and the material fallbacks of shapes without one.
 */
export function collisionOptionsOf(
  o: SapSolverOptions,
  max_rigid_contact?: number,
): CollisionPipelineOptions {
  return {
    rigid_contact_max: max_rigid_contact ?? o.max_rigid_contact,
    broad_phase: o.broad_phase,
    material: { tau_d: o.contact_tau_d, mu: o.fallback_mu, stiffness: o.fallback_stiffness },
  };
}

export class Simulation {
  readonly model: SapModel;
  /** the backend that steps */
  readonly backend: SimulationBackend;
  readonly collision: SapCollisionPipeline;
  readonly contacts: SapContacts;
  readonly control: SapControl;
  state: SapState;
  private next: SapState;
  /** time step [s] */
  dt: number;
  last_report: StepReport | null = null;
  /** each world's energy after the last step (also in the step report's worlds) */
  readonly energy: EnergyMeter;
  /** the CPU reference stepper, when the backend is the CPU's (it steps synchronously) */
  private readonly cpu: SapStepper | null;
  private timed = true;

  constructor(model: SapModel, opts: SimulationOptions) {
    this.model = model;
    this.dt = opts.dt;
    if (opts.backend && opts.solver)
      throw new OptionsError(
        'solver',
        'Simulation: solver options go to the backend (backend.init or setOptions), not beside it',
      );
    const backend = opts.backend ?? referenceBackend(new SapStepper(model, opts.solver ?? {}));
    this.backend = backend;
    this.cpu = backend.kind === 'cpu' ? (backend.reference ?? null) : null;
    this.collision = new SapCollisionPipeline(
      model,
      collisionOptionsOf(backend.options, opts.max_rigid_contact),
    );
    this.contacts = this.collision.contacts();
    this.control = makeControl(model);
    this.state = makeState(model);
    this.next = allocState(model);
    this.energy = new EnergyMeter(model);
    if (!this.cpu) backend.updateBodyState(this.state);
  }

  /** the CPU reference stepper (throws when another backend steps) */
  get stepper(): SapStepper {
    if (!this.cpu) throw new Error(`Simulation: the ${this.backend.kind} backend has no CPU stepper`);
    return this.cpu;
  }

  /** the CPU reference stepper, as {@link stepper} (the name the worker and the tests use) */
  get solver(): SapStepper {
    return this.stepper;
  }

  /**
   * whether steps read the clock per stage (report `timing`, collision included; see
   * SapStepper.stage_timing; another backend times only the CPU collision)
   */
  get stage_timing(): boolean {
    return this.cpu ? this.cpu.stage_timing : this.timed;
  }
  set stage_timing(on: boolean) {
    if (this.cpu) this.cpu.stage_timing = on;
    this.timed = on;
  }

  /** advances one step of dt on the CPU backend (another backend: {@link stepAsync}) */
  step(): StepReport {
    const cpu = this.cpu;
    if (!cpu)
      throw new Error(`Simulation.step: the ${this.backend.kind} backend steps asynchronously (stepAsync)`);
    const tc = this.collide();
    return this.finish(cpu.step(this.state, this.next, this.control, this.contacts, this.dt), tc);
  }

  /** advances one step of dt on any backend */
  async stepAsync(): Promise<StepReport> {
    const tc = this.collide();
    const r = await this.backend.step(this.state, this.next, this.control, this.contacts, this.dt);
    return this.finish(r, tc);
  }

  /** resets to the model's initial state */
  reset(): void {
    this.state = makeState(this.model);
    this.next = allocState(this.model);
    if (!this.cpu) this.backend.updateBodyState(this.state);
  }

  /** collide(state) on the CPU unless the backend collides on the device; its time [ms] or −1 */
  private collide(): number {
    // a backend that collides on the device fills this.contacts in its step
    if (this.backend.collides_on_device) return -1;
    const timed = this.stage_timing;
    const t0 = timed ? now() : 0;
    this.collision.collide(this.state, this.contacts);
    return timed ? now() - t0 : 0;
  }

  private finish(r: StepReport, collisionMs: number): StepReport {
    if (collisionMs >= 0 && (this.cpu || this.timed)) r.timing.collision = collisionMs;
    const t = this.state;
    this.state = this.next;
    this.next = t;
    this.energy.report(this.state, r.worlds);
    this.last_report = r;
    return r;
  }
}
