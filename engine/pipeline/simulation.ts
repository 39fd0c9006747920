/**
 * Simulation: the convenience loop used by the CLI, tests, benchmarks and the worker:
 * collide(state) → SolverSAP.step(state, next, control, contacts, dt) → swap.
 */
import { SapCollisionPipeline, type CollisionPipelineOptions } from '../collision/pipeline';
import type { SapSolverOptions } from '../sap/options';
import type { SapContacts } from '../collision/contacts';
import type { SapModel } from '../model';
import { makeState } from '../kinematics';
import { allocState, makeControl, type SapControl, type SapState } from '../state';
import type { StepReport } from './report';
import { SolverSAP } from './step';
import { EnergyMeter } from './energy';

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

export interface SimulationOptions {
  /** time step [s] */
  dt: number;
  /** solver options (SPEC §3.6), validated */
  solver?: Record<string, unknown>;
  /** contact slots per world (default: solver max_rigid_contact) */
  max_rigid_contact?: number;
}

/**
 * The collision options that solver options carry (SAP Warp passes them to SolverSAP too): contact
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
  readonly solver: SolverSAP;
  readonly collision: SapCollisionPipeline;
  readonly contacts: SapContacts;
  readonly control: SapControl;
  state: SapState;
  private next: SapState;
  dt: number;
  last_report: StepReport | null = null;
  /** each world's energy after the last step (also in the step report's worlds) */
  readonly energy: EnergyMeter;

  constructor(model: SapModel, opts: SimulationOptions) {
    this.model = model;
    this.dt = opts.dt;
    this.solver = new SolverSAP(model, opts.solver ?? {});
    this.collision = new SapCollisionPipeline(
      model,
      collisionOptionsOf(this.solver.options, opts.max_rigid_contact),
    );
    this.contacts = this.collision.contacts();
    this.control = makeControl(model);
    this.state = makeState(model);
    this.next = allocState(model);
    this.energy = new EnergyMeter(model);
  }

  /** whether steps read the clock per stage (report `timing`; see SolverSAP.stage_timing) */
  get stage_timing(): boolean {
    return this.solver.stage_timing;
  }
  set stage_timing(on: boolean) {
    this.solver.stage_timing = on;
  }

  /** advances one step of dt */
  step(): StepReport {
    const timed = this.solver.stage_timing;
    const t0 = timed ? now() : 0;
    this.collision.collide(this.state, this.contacts);
    const tc = timed ? now() - t0 : 0;
    const r = this.solver.step(this.state, this.next, this.control, this.contacts, this.dt);
    r.timing.collision = tc;
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
  }
}
