/**
 * SapStepper: one time step of the SAP engine on the CPU reference path (SPEC §3.2), as a list of
 * stage calls over the step's working arrays {@link SapData} (each stage in its own file):
 *
 *   step(state_in, state_out, control, contacts, dt):
 *     1. boundary         public state → internal velocities, forward kinematics at q_n (boundary.ts)
 *     2. free motion      A = M + dt·D, v* = v + dt·A⁻¹k per tree (free_motion.ts)
 *     per world:
 *     3. constraints      contacts, joint limits, PD drives, equalities, tendons (constraints.ts)
 *     4. solve            SAP Newton iterations (solve.ts, engine/sap)
 *     5. contact results  impulses → contact forces and slip states (contact_results.ts)
 *     6. integrate        q_{n+1} = Φ(q_n, v̄, dt) (integrate.ts)
 *        quarantine       a non-finite world keeps its input state (quarantine.ts)
 *     7. public state     forward kinematics at q_{n+1}, state_out (boundary.ts)
 *     8. report           the step report (report.ts)
 * Collision is separate: the caller runs collide(state, contacts) first. SapSolver (engine/sap) is
 * the Newton solver of stage 4; SapStepper is the whole step.
 */
import type { SapContacts } from '../collision/contacts';
import { forwardVelocity, velocityPublicToInternal, writeBodyState } from '../kinematics';
import type { SapModel } from '../model';
import { SapSolver, type LinearSolverMode } from '../sap/solver';
import type { SapSolveTracer } from '../sap/trace';
import type { LinalgKernels } from '../sap/linalg/wasm/kernels';
import { resolveSolverOptions, type SapSolverOptions } from '../sap/options';
import type { SapControl, SapState } from '../state';
import { boundaryStage, kinematicsAt, publicStateStage } from './boundary';
import { constraintStage } from './constraints';
import { contactResultsStage } from './contact_results';
import { freeMotionStage } from './free_motion';
import { integrateWorldStage } from './integrate';
import { jointEffortStage } from './joint_constraints';
import { firstNonFinite, freeMotionFault, quarantineWorld } from './quarantine';
import { newWorldReport, stepReportOf, type StepReport, type WorldReport } from './report';
import { SapData } from './sap_data';
import { solveStage } from './solve';
import type { WarmStart } from './warm_start';

const clock: () => number = typeof performance !== 'undefined' ? () => performance.now() : () => Date.now();
const noClock = (): number => 0;

/** the CPU reference SAP time stepper (the pipeline of SPEC §3.2) */
export class SapStepper {
  readonly model: SapModel;
  /** the step's working arrays, made from the model once */
  readonly data: SapData;
  private opts: SapSolverOptions;
  private readonly sap: SapSolver;

  /** total line-search iterations of the last step (all worlds) */
  last_line_search_iterations = 0;
  /** contacts dropped for capacity in the last step's contact buffer (all worlds) */
  last_truncated_contact_count = 0;
  /** where Newton starts (see {@link WarmStart}; default 'accelerated') */
  warm_start: WarmStart = 'accelerated';
  /** the last step's report */
  last_report: StepReport | null = null;
  /** (joint_dof_count) last solved internal velocities (for ablation and inspection) */
  get last_velocity(): Float64Array {
    return this.data.v_next;
  }

  constructor(model: SapModel, options: Record<string, unknown> = {}) {
    this.model = model;
    this.opts = resolveSolverOptions(options);
    this.sap = new SapSolver(this.opts);
    this.data = new SapData(model);
  }

  /**
   * whether step() reads the clock at every stage boundary for the report's `timing` (default
   * true); false leaves every stage time 0 and saves those clock reads, e.g. while a benchmark
   * measures throughput
   */
  stage_timing = true;

  /**
   * label the constraint islands every step into {@link body_island} (default false; the studio's
   * island colouring turns it on)
   */
  track_islands = false;
  /**
   * (body_count) the constraint island of each body in the last step (track_islands): its index
   * within its world (islands are numbered by their first tree), −1 where no constraint touches the
   * body's tree (static, free-flying or without velocities)
   */
  get body_island(): Int32Array {
    return this.data.body_island;
  }

  /**
   * read the joint constraints' efforts back every step into {@link joint_effort} (default false;
   * the studio's body inspector turns it on)
   */
  track_joint_efforts = false;
  /**
   * (joint_dof_count × 3) per DOF of a revolute or prismatic joint, the last step's constraint
   * efforts (track_joint_efforts): limit (lower minus upper side), PD drive (with its
   * feed-forward, after the effort limit) and dry friction [N·m or N]; 0 where the DOF has no such
   * constraint, and for every DOF of a world whose solve was rejected or quarantined
   */
  get joint_effort(): Float64Array {
    return this.data.joint_effort;
  }
  private readonly rowOffsetOf = (i: number): number => this.sap.rowOffset(i);

  /**
   * factorization of the SAP Newton step (SapSolver.linear_solver): 'auto' (default) picks block
   * sparse for many loosely coupled cliques and dense otherwise; results are identical either way
   */
  get linear_solver(): LinearSolverMode {
    return this.sap.linear_solver;
  }
  set linear_solver(mode: LinearSolverMode) {
    this.sap.linear_solver = mode;
  }

  /**
   * where the solver's Newton evaluation and linear algebra run: 'wasm' (WebAssembly kernels, the
   * default where available) or 'js' (their twins); results are bit-identical
   */
  get kernels(): LinalgKernels {
    return this.sap.kernels;
  }
  set kernels(k: LinalgKernels) {
    this.sap.kernels = k;
  }

  /** factorization used by the last solve of the last step */
  get last_linear_solver(): 'dense' | 'block_sparse' {
    return this.sap.last_linear_solver;
  }

  /**
   * records the Newton solves of the following steps (the step inspector), world by world; null
   * (the default) records nothing
   */
  get tracer(): SapSolveTracer | null {
    return this.sap.tracer;
  }
  set tracer(t: SapSolveTracer | null) {
    this.sap.tracer = t;
  }

  /** the fully expanded options in force */
  get options(): SapSolverOptions {
    return this.opts;
  }

  /** replaces the options (validated and expanded); applies from the next step */
  setOptions(options: Record<string, unknown>): void {
    this.opts = resolveSolverOptions(options);
    this.sap.setOptions(this.opts);
  }

  /**
   * makes the next step from `current` continue the step `previous` → `current` of `dt` [s], as if
   * this solver had taken it: with warm start 'accelerated' it then also tries the extrapolation
   * v_n + (v_n − v_{n−1}) (the step inspector re-solves a live step this way)
   */
  primeWarmStart(previous: SapState, current: SapState, dt: number): void {
    const d = this.data;
    kinematicsAt(this.model, d, previous.joint_q);
    velocityPublicToInternal(this.model, d.kin, previous.joint_qd, d.v_n);
    d.history.record(d.v_n, current, dt);
  }

  /** forward kinematics of a state: fills body_q and body_qd from joint_q and joint_qd */
  updateBodyState(state: SapState): void {
    const m = this.model;
    const d = this.data;
    kinematicsAt(m, d, state.joint_q);
    velocityPublicToInternal(m, d.kin, state.joint_qd, d.v_n);
    forwardVelocity(m, d.v_n, d.kin);
    writeBodyState(m, d.kin, state.body_q, state.body_qd);
  }

  /** advances state_in by dt [s] into state_out using contacts from collide(state_in) */
  step(
    state_in: SapState,
    state_out: SapState,
    control: SapControl,
    contacts: SapContacts,
    dt: number,
  ): StepReport {
    const m = this.model;
    const o = this.opts;
    const d = this.data;
    const sap = this.sap;
    const now = this.stage_timing ? clock : noClock;
    const timing = { free_motion: 0, constraints: 0, solve: 0, integrate: 0, total: 0 };
    const worlds: WorldReport[] = [];
    // (stage clock: each stage ends at one now() that also starts the next)
    const t_start = now();
    let t0 = t_start;
    let t1 = t0;

    // 1. boundary and 2. free motion (timed together as free_motion)
    const kinC = boundaryStage(m, d, o, state_in, control, contacts, this.warm_start, dt);
    const precision = o.free_motion_solve_precision;
    freeMotionStage(
      m,
      d.kin,
      dt,
      d.v_n,
      d.tau,
      state_in.body_f,
      precision,
      d.free_motion,
      d.tree_A,
      d.v_star,
      d.free_motion_failed,
    );
    t1 = now();
    timing.free_motion += t1 - t0;
    t0 = t1;

    const midpoint = o.position_integration === 'midpoint';
    for (let w = 0; w < m.num_worlds; w++) {
      const report = newWorldReport(contacts.count[w] ?? 0, contacts.truncated[w] ?? 0);

      // 3. constraints
      constraintStage(
        m,
        d,
        o,
        w,
        state_in,
        control,
        contacts,
        kinC,
        dt,
        this.track_joint_efforts,
        this.track_islands,
      );
      t1 = now();
      timing.constraints += t1 - t0;
      t0 = t1;

      // 4. solve (unless the free motion is already non-finite) and 5. contact results
      let fault = freeMotionFault(d, w);
      const solved = fault === undefined && solveStage(d, sap, w, this.warm_start, report);
      if (solved) fault = firstNonFinite(d.v_next_world[w], 'v');
      if (solved && fault === undefined)
        contactResultsStage(sap, d.contact_records, contacts, dt, report.cost.length > 0);
      t1 = now();
      timing.solve += t1 - t0;
      t0 = t1;

      // 6. integrate, then quarantine of a non-finite world (it keeps its input state)
      const c0 = m.world_coord_start[w],
        c1 = m.world_coord_start[w + 1];
      if (fault === undefined) {
        integrateWorldStage(
          m,
          w,
          midpoint,
          d.v_n,
          d.v_next,
          d.v_bar,
          state_in.joint_q,
          dt,
          state_out.joint_q,
        );
        fault = firstNonFinite(state_out.joint_q, 'q', c0, c1);
      }
      if (fault !== undefined) quarantineWorld(m, d, w, state_in, state_out, report, fault);
      if (this.track_joint_efforts) {
        const gamma = solved && fault === undefined && report.cost.length > 0 ? sap.impulses : null;
        const d0 = m.world_dof_start[w],
          d1 = m.world_dof_start[w + 1];
        jointEffortStage(d.joint_rows, d0, d1, gamma, this.rowOffsetOf, dt, d.joint_effort);
      }
      t1 = now();
      timing.integrate += t1 - t0;
      t0 = t1;
      worlds.push(report);
    }

    // 7. public state at q_{n+1}
    publicStateStage(m, d, state_in, state_out, dt);
    t1 = now();
    timing.integrate += t1 - t0;
    timing.total = t1 - t_start;

    // 8. report
    const report = stepReportOf(worlds, timing);
    this.last_line_search_iterations = report.line_search_iterations;
    this.last_truncated_contact_count = report.truncated_contact_count;
    this.last_report = report;
    return report;
  }
}

/** @deprecated the old name of {@link SapStepper} (the step pipeline; SapSolver is its Newton solver) */
export const SolverSAP = SapStepper;
/** @deprecated the old name of {@link SapStepper} */
export type SolverSAP = SapStepper;
