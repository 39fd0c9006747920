/**
 * BackendSimulation: the loop of engine/pipeline/simulation.ts over any {@link Backend}:
 * collide(state) on the CPU → backend.step(state, next, control, contacts, dt) → swap. A backend
 * that `collides_on_device` skips the CPU collide and fills `contacts` in step().
 */
import { SapCollisionPipeline } from '../collision/pipeline';
import { collisionOptionsOf } from '../pipeline/simulation';
import type { SapContacts } from '../collision/contacts';
import type { SapModel } from '../model';
import type { StepReport } from '../pipeline/report';
import { EnergyMeter } from '../pipeline/energy';
import { makeState } from '../kinematics';
import { allocState, makeControl, type SapControl, type SapState } from '../state';
import type { Backend } from './backend';

export interface BackendSimulationOptions {
  /** time step [s] */
  dt: number;
  /** contact slots per world (default: the backend's max_rigid_contact option) */
  max_rigid_contact?: number;
}

export class BackendSimulation {
  readonly model: SapModel;
  readonly backend: Backend;
  readonly collision: SapCollisionPipeline;
  readonly contacts: SapContacts;
  readonly control: SapControl;
  state: SapState;
  private next: SapState;
  dt: number;
  last_report: StepReport | null = null;
  /** each world's energy after the last step (also in the step report's worlds) */
  readonly energy: EnergyMeter;

  /** the backend must have been initialized for `model` */
  constructor(model: SapModel, backend: Backend, opts: BackendSimulationOptions) {
    this.model = model;
    this.backend = backend;
    this.dt = opts.dt;
    this.collision = new SapCollisionPipeline(
      model,
      collisionOptionsOf(backend.options, opts.max_rigid_contact),
    );
    this.contacts = this.collision.contacts();
    this.control = makeControl(model);
    this.state = makeState(model);
    this.next = allocState(model);
    this.energy = new EnergyMeter(model);
    backend.updateBodyState(this.state);
  }

  /** advances one step of dt */
  async step(): Promise<StepReport> {
    // a backend that collides on the device fills this.contacts in step()
    if (!this.backend.collides_on_device) this.collision.collide(this.state, this.contacts);
    const r = await this.backend.step(this.state, this.next, this.control, this.contacts, this.dt);
    const t = this.state;
    this.state = this.next;
    this.next = t;
    this.energy.report(this.state, r.worlds);
    this.last_report = r;
    return r;
  }

  /** resets to the model's initial state */
  reset(): void {
    this.state = makeState(this.model);
    this.next = allocState(this.model);
    this.backend.updateBodyState(this.state);
  }
}
