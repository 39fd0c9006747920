/**
 * SolverSAP: one time step of the SAP engine on the CPU reference path (SPEC §3.2).
 *
 *   step(state_in, state_out, control, contacts, dt):
 *     1. boundary      public state → internal velocities (forward kinematics at q_n)
 *     2. free motion   A = M + dt·D, v* = v + dt·A⁻¹k per tree
 *     3. constraints   contacts (Jacobians, weights), joint limits, PD drives, equalities, tendon limits
 *     4. solve         SAP Newton iterations per world (engine/sap)
 *     5. integrate     q_{n+1} = Φ(q_n, v̄, dt); forward kinematics; write state_out
 * Collision is separate: the caller runs collide(state, contacts) first.
 */
import { ContactSlip, type SapContacts } from '../collision/contacts';
import { makeCompositeScratch, makeRneaScratch } from '../dynamics';
import {
  forwardKinematics,
  forwardVelocity,
  makeKinematicsData,
  velocityInternalToPublic,
  velocityPublicToInternal,
  writeBodyState,
  type KinematicsData,
} from '../kinematics';
import { copyRun, sameBits, zeroRun } from '../math';
import type { SapModel } from '../model';
import { SapIslands } from '../sap/islands';
import { PackedSapProblem } from '../sap/packed_problem';
import { SapSolver, type LinearSolverMode } from '../sap/solver';
import type { SapSolveTracer } from '../sap/trace';
import type { LinalgKernels } from '../sap/linalg/wasm/kernels';
import { ContactRegion } from '../sap/constraints/contact';
import { resolveSolverOptions, type SapSolverOptions } from '../sap/options';
import type { SapControl, SapState } from '../state';
import {
  makeContactStageData,
  makePackedContactRecords,
  packContactConstraints,
  type ContactStageData,
  type PackedContactRecords,
} from './contact_jacobian';
import { appliedForces, freeMotionTree, makeFreeMotionScratch, type FreeMotionScratch } from './free_motion';
import { integratePositions } from './integrate';
import { WarmStartHistory, type WarmStart } from './warm_start';
import { packEqualityConstraints } from './equality_constraints';
import { JOINT_ROWS_STRIDE, jointEffortsFromImpulses, packJointConstraints } from './joint_constraints';
import { packTendonConstraints } from './tendon_constraints';
import { packConeLimits } from './cone_limits';
import { applyTransmissionForces, packSpatialTendonLimits } from './transmissions';
import { worseStatus, type StepReport, type WorldReport } from './report';

const clock: () => number = typeof performance !== 'undefined' ? () => performance.now() : () => Date.now();
const noClock = (): number => 0;

/** the CPU reference SAP time stepper */
export class SolverSAP {
  readonly model: SapModel;
  private opts: SapSolverOptions;
  private readonly kin: KinematicsData;
  private readonly kinContact: KinematicsData;
  private readonly fm: FreeMotionScratch;
  private readonly stage: ContactStageData;
  private readonly v_n: Float64Array;
  private readonly v_star: Float64Array;
  private readonly v_next: Float64Array;
  private readonly v_bar: Float64Array;
  /** (joint_dof_count) the extrapolated start v_n + (v_n − v_{n−1}) ({@link warm_start}) */
  private readonly v_alt: Float64Array;
  private readonly history: WarmStartHistory;
  private readonly tau: Float64Array;
  /** (joint_dof_count) scratch: a spatial tendon's or length actuator's Jacobian ∂l/∂v */
  private readonly transmissionJ: Float64Array;
  private readonly A_diag: Float64Array;
  private readonly q_round: Float64Array;
  /**
   * joint_q that `kin` (resp. `kinContact`) holds the forward kinematics of; `kin` is refreshed at
   * the end of every step at q_{n+1}, so the next step's FK at q_n is skipped when its joint_q is
   * bitwise the same (forwardKinematics is a pure function of q)
   */
  private readonly kinQ: Float64Array;
  private kinQValid = false;
  /** whether any ball joint has a cone limit ({@link packConeLimits}) */
  private readonly hasConeLimits: boolean;
  private readonly kinContactQ: Float64Array;
  private kinContactQValid = false;
  /** (joint_count) flags: the joints whose kinematics contact preparation needs this step */
  private readonly contactJoints: Uint8Array;
  /** (joint_count) flags: the joints `kinContact` holds at kinContactQ */
  private readonly kinContactJoints: Uint8Array;
  private readonly treeA: Float64Array[];
  private readonly cliqueIndex: Int32Array;
  private readonly sap: SapSolver;
  private readonly problem = new PackedSapProblem();
  private readonly records: PackedContactRecords = makePackedContactRecords();
  private readonly fmBad: Uint8Array;
  /** per world: views of v_n, v*, v_{n+1} over its dofs */
  private readonly vnW: Float64Array[] = [];
  private readonly vStarW: Float64Array[] = [];
  private readonly vNextW: Float64Array[] = [];
  private readonly vAltW: Float64Array[] = [];
  /** per world: 1 where this step continues the last one and v_alt holds its extrapolation */
  private readonly extrapolatedW: Uint8Array;

  /** total line-search iterations of the last step (all worlds) */
  last_line_search_iterations = 0;
  /** contacts dropped for capacity in the last step's contact buffer (all worlds) */
  last_truncated_contact_count = 0;
  /** where Newton starts (see {@link WarmStart}; default 'accelerated') */
  warm_start: WarmStart = 'accelerated';
  /** the last step's report */
  last_report: StepReport | null = null;
  /** last solved internal velocities (for ablation and inspection) */
  get last_velocity(): Float64Array {
    return this.v_next;
  }

  constructor(model: SapModel, options: Record<string, unknown> = {}) {
    this.model = model;
    this.opts = resolveSolverOptions(options);
    this.sap = new SapSolver(this.opts);
    this.kin = makeKinematicsData(model);
    this.kinContact = makeKinematicsData(model);
    this.fm = makeFreeMotionScratch(model, makeRneaScratch(model), makeCompositeScratch(model));
    this.stage = makeContactStageData(model);
    const nv = model.joint_dof_count;
    this.v_n = new Float64Array(nv);
    this.v_star = new Float64Array(nv);
    this.v_next = new Float64Array(nv);
    this.v_bar = new Float64Array(nv);
    this.v_alt = new Float64Array(nv);
    this.extrapolatedW = new Uint8Array(model.num_worlds);
    this.history = new WarmStartHistory(model);
    this.tau = new Float64Array(nv);
    this.transmissionJ = new Float64Array(nv);
    this.A_diag = new Float64Array(nv);
    this.q_round = new Float64Array(model.joint_coord_count);
    this.kinQ = new Float64Array(model.joint_coord_count);
    this.hasConeLimits = model.joint_cone_mode.some((c) => c !== 0);
    this.kinContactQ = new Float64Array(model.joint_coord_count);
    this.contactJoints = new Uint8Array(model.joint_count);
    this.kinContactJoints = new Uint8Array(model.joint_count);
    this.treeA = [];
    for (let t = 0; t < model.tree_count; t++) {
      const n = model.tree_dof_start[t + 1] - model.tree_dof_start[t];
      this.treeA.push(new Float64Array(n * n));
    }
    this.cliqueIndex = new Int32Array(model.tree_count).fill(-1);
    this.body_island = new Int32Array(model.body_count).fill(-1);
    this.joint_effort = new Float64Array(model.joint_dof_count * 3);
    this.jointRows = new Int32Array(model.joint_dof_count * JOINT_ROWS_STRIDE).fill(-1); // (sides: unread)
    this.fmBad = new Uint8Array(model.num_worlds);
    for (let w = 0; w < model.num_worlds; w++) {
      const d0 = model.world_dof_start[w],
        d1 = model.world_dof_start[w + 1];
      this.vnW.push(this.v_n.subarray(d0, d1));
      this.vStarW.push(this.v_star.subarray(d0, d1));
      this.vNextW.push(this.v_next.subarray(d0, d1));
      this.vAltW.push(this.v_alt.subarray(d0, d1));
    }
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
  readonly body_island: Int32Array;
  private readonly islandLabels = new SapIslands();

  /**
   * read the joint constraints' efforts back every step into {@link joint_effort} (default false;
   * the studio's body inspector turns it on)
   */
  track_joint_efforts = false;
  /**
   * (joint_dof_count × 3) per DOF of a revolute or prismatic joint, the last step's constraint
   * efforts (track_joint_efforts): limit (lower minus upper side), PD drive (with its
   * feed-forward, after the effort limit) and dry friction [N·m or N]; 0 where the DOF has no such
   * constraint, and for every DOF of a world whose solve was rejected
   */
  readonly joint_effort: Float64Array;
  private readonly jointRows: Int32Array;
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
    this.kinematicsAt(previous.joint_q);
    velocityPublicToInternal(this.model, this.kin, previous.joint_qd, this.v_n);
    this.history.record(this.v_n, current, dt);
  }

  /** forward kinematics of a state: fills body_q and body_qd from joint_q and joint_qd */
  updateBodyState(state: SapState): void {
    const m = this.model;
    this.kinematicsAt(state.joint_q);
    velocityPublicToInternal(m, this.kin, state.joint_qd, this.v_n);
    forwardVelocity(m, this.v_n, this.kin);
    writeBodyState(m, this.kin, state.body_q, state.body_qd);
  }

  /** forward kinematics of `q` into `kin`, skipped when `kin` already holds it */
  private kinematicsAt(q: Float64Array): void {
    if (this.kinQValid && sameBits(q, this.kinQ)) return;
    forwardKinematics(this.model, q, this.kin);
    copyRun(this.kinQ, 0, q, q.length);
    this.kinQValid = true;
  }

  /** {@link body_island} of world w from its packed problem */
  private labelIslands(w: number, pp: PackedSapProblem): void {
    const m = this.model;
    const isl = this.islandLabels;
    const n = isl.find(pp);
    for (let t = m.world_tree_start[w]; t < m.world_tree_start[w + 1]; t++) {
      const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
      const c = nv === 0 ? -1 : this.cliqueIndex[t];
      const k = n > 0 && c >= 0 ? isl.cliqueIsland[c] : -1;
      for (let b = m.tree_joint_start[t]; b < m.tree_joint_start[t + 1]; b++) this.body_island[b] = k;
    }
  }

  /** advances state_in by dt into state_out using contacts from collide(state_in) */
  step(
    state_in: SapState,
    state_out: SapState,
    control: SapControl,
    contacts: SapContacts,
    dt: number,
  ): StepReport {
    const m = this.model;
    const o = this.opts;
    const now = this.stage_timing ? clock : noClock;
    const t_start = now();
    const timing = { free_motion: 0, constraints: 0, solve: 0, integrate: 0, total: 0 };
    const worlds: WorldReport[] = [];
    let status: StepReport['status'] = 'converged';
    let lsTotal = 0,
      itSum = 0,
      itMax = 0,
      contactTotal = 0,
      truncTotal = 0;

    // 1. boundary: kinematics at q_n and internal velocities
    // (stage clock: each stage ends at one now() that also starts the next)
    let t0 = t_start;
    let t1 = t0;
    this.kinematicsAt(state_in.joint_q);
    velocityPublicToInternal(m, this.kin, state_in.joint_qd, this.v_n);
    forwardVelocity(m, this.v_n, this.kin);
    appliedForces(m, this.kin, state_in.joint_q, control.joint_f, this.tau);
    if (m.spatial_count + m.actuator_count > 0) {
      const J = this.transmissionJ;
      applyTransmissionForces(m, this.kin, state_in.joint_q, this.v_n, control.actuator_ctrl, this.tau, J);
    }
    // boundary pose for contact preparation (fp32 path rounds joint_q)
    // (only read per contact: skipped when no world has contacts)
    let kinC = this.kin;
    let anyContacts = false;
    for (let w = 0; w < m.num_worlds && !anyContacts; w++) anyContacts = (contacts.count[w] ?? 0) > 0;
    if (!o.use_f64_boundary_pose && anyContacts) {
      for (let k = 0; k < this.q_round.length; k++) this.q_round[k] = Math.fround(state_in.joint_q[k]);
      // contact preparation reads the poses, COMs and motion subspaces (not the world inertias) of
      // the bodies in contact and of their ancestors: the FK of those joints, unless `kinContact`
      // already holds them at these joint_q
      const need = this.contactJoints;
      const covered = markContactJoints(m, contacts, need, this.kinContactJoints);
      if (!(covered && this.kinContactQValid && sameBits(this.q_round, this.kinContactQ))) {
        forwardKinematics(m, this.q_round, this.kinContact, 0, m.joint_count, false, need);
        this.kinContactQ.set(this.q_round);
        this.kinContactJoints.set(need);
        this.kinContactQValid = true;
      }
      kinC = this.kinContact;
    }

    // the extrapolated start, when this step continues the last one
    const extrapolated = this.extrapolatedW;
    if (this.warm_start === 'accelerated')
      this.history.extrapolate(state_in, this.v_n, dt, this.v_alt, extrapolated);
    else zeroRun(extrapolated, 0, extrapolated.length);

    // 2. free motion
    let hasExternal = false;
    const bf = state_in.body_f;
    for (let k = 0; k < bf.length; k++) {
      if (bf[k] !== 0) {
        hasExternal = true;
        break;
      }
    }
    const fmBad = this.fmBad;
    zeroRun(fmBad, 0, fmBad.length);
    for (let t = 0; t < m.tree_count; t++) {
      const ok = freeMotionTree(
        m,
        this.kin,
        t,
        dt,
        this.v_n,
        this.tau,
        hasExternal ? state_in.body_f : null,
        o.free_motion_solve_precision,
        this.fm,
        this.treeA[t],
        this.v_star,
      );
      if (!ok) fmBad[m.tree_world[t]] = 1;
    }
    t1 = now();
    timing.free_motion += t1 - t0;
    t0 = t1;

    for (let w = 0; w < m.num_worlds; w++) {
      const j0 = m.world_joint_start[w],
        j1 = m.world_joint_start[w + 1];
      const d0 = m.world_dof_start[w],
        d1 = m.world_dof_start[w + 1];
      const report: WorldReport = {
        status: 'converged',
        iterations: 0,
        line_search_iterations: 0,
        cost: [],
        contacts: contacts.count[w] ?? 0,
        truncated_contacts: contacts.truncated[w] ?? 0,
      };
      contactTotal += report.contacts;
      truncTotal += report.truncated_contacts;

      // 3. constraints
      const pp = this.problem;
      pp.reset(dt);
      for (let t = m.world_tree_start[w]; t < m.world_tree_start[w + 1]; t++) {
        const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
        if (nv === 0) continue;
        this.cliqueIndex[t] = pp.addClique(nv, this.treeA[t]);
      }
      pp.v_star = this.vStarW[w];
      const rec = this.records;
      packContactConstraints(m, kinC, contacts, w, o, this.stage, this.cliqueIndex, pp, rec);
      const nContacts = rec.count;
      packJointConstraints(
        m,
        j0,
        j1,
        state_in.joint_q,
        this.v_n,
        this.v_star,
        control,
        dt,
        this.cliqueIndex,
        pp,
        this.track_joint_efforts ? this.jointRows : null,
      );
      if (m.eq_count > 0) {
        packEqualityConstraints(m, this.kin, state_in.joint_q, w, this.cliqueIndex, pp);
      }
      if (m.tendon_count > 0) {
        packTendonConstraints(m, w, state_in.joint_q, this.v_n, this.v_star, dt, this.cliqueIndex, pp);
      }
      if (m.spatial_count > 0) {
        const J = this.transmissionJ;
        packSpatialTendonLimits(m, this.kin, w, this.v_n, this.v_star, dt, this.cliqueIndex, pp, J);
      }
      if (this.hasConeLimits) {
        packConeLimits(m, w, state_in.joint_q, this.v_n, this.v_star, dt, this.cliqueIndex, pp);
      }
      if (this.track_islands) this.labelIslands(w, pp);
      t1 = now();
      timing.constraints += t1 - t0;
      t0 = t1;

      // 4. solve
      const vStarW = this.vStarW[w];
      const nonfinite = fmBad[w]
        ? 'free-motion dynamics matrix (not positive definite)'
        : firstNonFinite(vStarW, 'v_star');
      if (nonfinite) {
        report.status = 'invalid_input';
        report.nonfinite = nonfinite;
        this.v_next.set(this.vnW[w], d0);
      } else if (pp.nCliques === 0) {
        this.v_next.set(vStarW, d0);
      } else {
        const vOut = this.vNextW[w];
        if (this.sap.tracer !== null) this.sap.tracer.world = w;
        const res =
          this.warm_start === 'free_motion'
            ? this.sap.solvePacked(pp, undefined, vOut)
            : this.sap.solvePacked(pp, this.vnW[w], vOut, extrapolated[w] ? this.vAltW[w] : undefined);
        report.status = res.status;
        report.iterations = res.iterations;
        report.line_search_iterations = res.line_search_iterations;
        report.cost = res.cost;
        if (res.islands > 1) report.islands = res.islands;
        if (res.alt_start) report.extrapolated_start = true;
        const bad = firstNonFinite(vOut, 'v');
        if (bad) {
          report.status = 'invalid_input';
          report.nonfinite = bad;
          this.v_next.set(this.vnW[w], d0);
        } else if (res.cost.length === 0) {
          // rejected before the first iteration: no impulses
          for (let c = 0; c < nContacts; c++) {
            const sl = rec.slot[c];
            contacts.force.fill(0, sl * 3, sl * 3 + 3);
            contacts.slip_state[sl] = ContactSlip.OPEN;
          }
        } else {
          // contact results back into the buffer: force on body 1 = R_WC γ / dt
          const gam = this.sap.impulses;
          for (let c = 0; c < nContacts; c++) {
            const go = this.sap.rowOffset(c);
            const g0 = gam[go],
              g1 = gam[go + 1],
              g2 = gam[go + 2];
            const fo = 9 * c,
              s = rec.slot[c] * 3;
            const f = rec.frame;
            for (let k = 0; k < 3; k++) {
              contacts.force[s + k] = (f[fo + k] * g0 + f[fo + 3 + k] * g1 + f[fo + 6 + k] * g2) / dt;
              contacts.position[s + k] = rec.point[3 * c + k];
            }
            const region = this.sap.contactRegionOf(c);
            contacts.slip_state[rec.slot[c]] =
              region === ContactRegion.Stick
                ? ContactSlip.STICK
                : region === ContactRegion.Slip
                  ? ContactSlip.SLIP
                  : ContactSlip.OPEN;
          }
        }
      }
      if (this.track_joint_efforts) {
        // (no cost history: nothing was solved)
        if (report.status === 'invalid_input' || report.cost.length === 0) {
          this.joint_effort.fill(0, 3 * d0, 3 * d1);
        } else {
          jointEffortsFromImpulses(
            this.jointRows,
            d0,
            d1,
            this.sap.impulses,
            this.rowOffsetOf,
            dt,
            this.joint_effort,
          );
        }
      }
      t1 = now();
      timing.solve += t1 - t0;
      t0 = t1;

      // 5. integrate
      const failed = report.status === 'invalid_input';
      const vBar = this.v_bar;
      const vN = this.v_n;
      const vNext = this.v_next;
      if (o.position_integration === 'midpoint')
        for (let d = d0; d < d1; d++) vBar[d] = 0.5 * (vN[d] + vNext[d]);
      else for (let d = d0; d < d1; d++) vBar[d] = vNext[d];
      if (failed) {
        // contain the blow-up: this world keeps its input state
        state_out.joint_q.set(
          state_in.joint_q.subarray(m.world_coord_start[w], m.world_coord_start[w + 1]),
          m.world_coord_start[w],
        );
      } else {
        integratePositions(m, j0, j1, state_in.joint_q, this.v_bar, dt, state_out.joint_q);
        const badQ = firstNonFinite(
          state_out.joint_q,
          'q',
          m.world_coord_start[w],
          m.world_coord_start[w + 1],
        );
        if (badQ) {
          report.status = 'invalid_input';
          report.nonfinite = badQ;
          state_out.joint_q.set(
            state_in.joint_q.subarray(m.world_coord_start[w], m.world_coord_start[w + 1]),
            m.world_coord_start[w],
          );
          this.v_next.set(this.v_n.subarray(d0, d1), d0);
        }
      }
      t1 = now();
      timing.integrate += t1 - t0;
      t0 = t1;

      status = worseStatus(status, report.status);
      lsTotal += report.line_search_iterations;
      itSum += report.iterations;
      itMax = Math.max(itMax, report.iterations);
      worlds.push(report);
    }

    // write the public state at q_{n+1}
    this.kinematicsAt(state_out.joint_q);
    velocityInternalToPublic(m, this.kin, this.v_next, state_out.joint_qd);
    forwardVelocity(m, this.v_next, this.kin);
    writeBodyState(m, this.kin, state_out.body_q, state_out.body_qd);
    if (state_out !== state_in) copyRun(state_out.body_f, 0, state_in.body_f, state_in.body_f.length);
    state_out.time = state_in.time + dt;
    this.history.record(this.v_n, state_out, dt);
    t1 = now();
    timing.integrate += t1 - t0;
    timing.total = t1 - t_start;

    this.last_line_search_iterations = lsTotal;
    this.last_truncated_contact_count = truncTotal;
    const report: StepReport = {
      status,
      worlds,
      iterations_mean: itSum / Math.max(1, m.num_worlds),
      iterations_max: itMax,
      line_search_iterations: lsTotal,
      contact_count: contactTotal,
      truncated_contact_count: truncTotal,
      timing,
    };
    this.last_report = report;
    return report;
  }
}

/**
 * Flags in `need` the joints of every body in contact (all worlds) and of its ancestors (bodies are
 * joints: body j hangs from joint j); true when each of them is also flagged in `have`
 */
function markContactJoints(m: SapModel, contacts: SapContacts, need: Uint8Array, have: Uint8Array): boolean {
  zeroRun(need, 0, need.length);
  const parent = m.joint_parent;
  let covered = true;
  for (let w = 0; w < m.num_worlds; w++) {
    const n = contacts.count[w] ?? 0;
    for (let i = 0; i < n; i++) {
      const slot = w * contacts.capacity + i;
      if (!markAncestors(parent, contacts.body0[slot], need, have)) covered = false;
      if (!markAncestors(parent, contacts.body1[slot], need, have)) covered = false;
    }
  }
  return covered;
}

/** flags joint j and its unflagged ancestors in `need`; false when one of them is not in `have` */
function markAncestors(parent: Int32Array, j: number, need: Uint8Array, have: Uint8Array): boolean {
  let covered = true;
  for (; j >= 0 && need[j] === 0; j = parent[j]) {
    need[j] = 1;
    if (have[j] === 0) covered = false;
  }
  return covered;
}

/** the first NaN or ±∞ among a[from..to) as `name[i - from] = value`, undefined when all are finite */
function firstNonFinite(a: Float64Array, name: string, from = 0, to = a.length): string | undefined {
  for (let i = from; i < to; i++) if (!Number.isFinite(a[i])) return `${name}[${i - from}] = ${a[i]}`;
  return undefined;
}
