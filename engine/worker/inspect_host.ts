/**
 * The step inspector's worker side (`inspect_step`, issue 55): re-solves one step of the live
 * simulation with the SAP solve traced ({@link SapSolveTracer}), on a solver and collision pipeline
 * of its own, so the live simulation, its solver's warm-start history and its contact buffer stay
 * as they are.
 *
 * The step starts from the state before the last step ('last', read from the history ring) or from
 * the current state ('next'), with the live control inputs and applied body wrenches (a drag), and
 * is solved under the given explicit options (validated: a bad key is an `OptionsError` naming it).
 * Newton starts where the live solve does: with the live warm start ('accelerated') and the state
 * before the start in the history, the inspector's solver is primed with that step
 * (`SolverSAP.primeWarmStart`), so it also tries the extrapolation v_n + (v_n − v_{n−1}); without
 * it (the first step, a scrubbed history) from v_n. Under the live options the traced solve then
 * repeats the live one iteration for iteration.
 */
import { collisionOptionsOf, SolverSAP, type Simulation } from '../pipeline';
import { SapCollisionPipeline } from '../collision/pipeline';
import type { SapContacts } from '../collision/contacts';
import type { SapModel } from '../model';
import { resolveSolverOptions, type SapSolverOptions } from '../sap/options';
import { SapSolveTracer } from '../sap/trace';
import { allocState, copyControl, makeControl, type SapControl, type SapState } from '../state';
import type { HistoryRing } from './history';
import type { StepInspection } from './protocol';

type OptionValue = string | number | boolean;

/** what one inspection needs from the host */
export interface InspectInput {
  sim: Simulation;
  history: HistoryRing | null;
  /** the live step count (the current state is after step `stepCount`) */
  stepCount: number;
  which: 'last' | 'next';
  /** explicit options to solve under (the live ones with the request's merged on top) */
  options: Record<string, OptionValue>;
  id?: number;
  /** φ samples per accepted direction (default 41) */
  gridPoints?: number;
}

/** an inspection that cannot be made (no state before the last step); code `inspect` */
export class InspectError extends Error {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
    this.name = 'InspectError';
  }
}

/** re-solves single steps with the solve traced; scratch kept per model (see the module comment) */
export class StepInspector {
  private model: SapModel | null = null;
  private start: SapState | null = null;
  private before: SapState | null = null;
  private out: SapState | null = null;
  private control: SapControl | null = null;
  private collision: SapCollisionPipeline | null = null;
  private collisionKey = '';
  private contacts: SapContacts | null = null;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** the traced re-solve of one step; throws OptionsError for bad options, InspectError without a state */
  inspect(input: InspectInput): StepInspection {
    const { sim, which } = input;
    const m = sim.model;
    const resolved = resolveSolverOptions(input.options); // throws, naming the key
    this.bind(m);
    const start = this.start!;
    let step = input.stepCount;
    let time = sim.state.time;
    if (which === 'last') {
      const snap = input.history?.find(input.stepCount - 1) ?? null;
      if (input.stepCount === 0 || snap === null || snap.step !== input.stepCount - 1) {
        const why =
          input.stepCount === 0
            ? 'no step has been taken yet'
            : `the state before step ${input.stepCount} is no longer in the history`;
        throw new InspectError(`inspect_step: ${why}; inspect the next step instead`, why);
      }
      start.joint_q.set(snap.q);
      start.joint_qd.set(snap.qd);
      step = snap.step;
      time = snap.time;
    } else {
      start.joint_q.set(sim.state.joint_q);
      start.joint_qd.set(sim.state.joint_qd);
    }
    start.time = time;
    start.body_f.set(sim.state.body_f);
    copyControl(sim.control, this.control!);

    const solver = new SolverSAP(m, input.options);
    solver.kernels = sim.solver.kernels;
    solver.warm_start = sim.solver.warm_start;
    // the step before the start, for the extrapolated warm start (when the history holds it)
    const prev = input.history?.find(step - 1) ?? null;
    const primed = step > 0 && prev !== null && prev.step === step - 1;
    if (primed) {
      const before = this.before!;
      before.joint_q.set(prev.q);
      before.joint_qd.set(prev.qd);
      solver.primeWarmStart(before, start, sim.dt);
    }
    solver.updateBodyState(start);
    const explicitCap = input.options.max_rigid_contact !== undefined;
    const collision = this.collisionFor(m, resolved, explicitCap ? undefined : sim.contacts.capacity);
    const tracer = new SapSolveTracer(input.gridPoints);
    solver.tracer = tracer;
    const t0 = this.now();
    collision.collide(start, this.contacts!);
    const r = solver.step(start, this.out!, this.control!, this.contacts!, sim.dt);
    const ms = this.now() - t0;
    solver.tracer = null;
    const inspection: StepInspection = {
      which,
      step,
      time,
      dt: sim.dt,
      options: { ...input.options },
      preset: resolved.contact_preset_variant,
      line_search: resolved.line_search_variant,
      warm_start: primed || solver.warm_start !== 'accelerated' ? solver.warm_start : 'previous',
      status: r.status,
      iterations: r.worlds.reduce((s, w) => s + w.iterations, 0),
      line_search_iterations: r.line_search_iterations,
      contacts: r.contact_count,
      ms,
      iterates: tracer.iterations,
    };
    if (input.id !== undefined) inspection.id = input.id;
    return inspection;
  }

  /** scratch states for model `m` (made once per model) */
  private bind(m: SapModel): void {
    if (this.model === m) return;
    this.model = m;
    this.start = allocState(m);
    this.before = allocState(m);
    this.out = allocState(m);
    this.control = makeControl(m);
    this.collision = null;
    this.contacts = null;
  }

  /**
   * a collision pipeline for the options' collision settings (remade when they change); `capacity`:
   * the live contact slots per world, unless the options set max_rigid_contact
   */
  private collisionFor(m: SapModel, o: SapSolverOptions, capacity: number | undefined): SapCollisionPipeline {
    const co = collisionOptionsOf(o, capacity);
    const key = JSON.stringify(co);
    if (this.collision === null || key !== this.collisionKey) {
      this.collision = new SapCollisionPipeline(m, co);
      this.contacts = this.collision.contacts();
      this.collisionKey = key;
    }
    return this.collision;
  }
}
