/**
 * SolverSAP: one time step of the SAP engine on the CPU reference path (SPEC §3.2).
 *
 *   step(state_in, state_out, control, contacts, dt):
 *     1. boundary      public state → internal velocities (forward kinematics at q_n)
 *     2. free motion   A = M + dt·D, v* = v + dt·A⁻¹k per tree
 *     3. constraints   contacts (Jacobians, weights), joint limits, PD drives
 *     4. solve         SAP Newton iterations per world (engine/sap)
 *     5. integrate     q_{n+1} = Φ(q_n, v̄, dt); forward kinematics; write state_out
 * Collision is separate: the caller runs collide(state, contacts) first.
 */
import { ContactSlip, type SapContacts } from '../collision/contacts';
import { makeCompositeScratch, makeRneaScratch } from '../dynamics';
import {
  forcePublicToInternal,
  forwardKinematics,
  forwardVelocity,
  makeKinematicsData,
  velocityInternalToPublic,
  velocityPublicToInternal,
  writeBodyState,
  type KinematicsData,
} from '../kinematics';
import type { SapModel } from '../model';
import type { SapConstraintSpec, SapProblem } from '../sap/problem';
import { SapSolver } from '../sap/solver';
import { resolveSolverOptions, type SapSolverOptions } from '../sap/options';
import type { SapControl, SapState } from '../state';
import {
  buildContactConstraints,
  makeContactStageData,
  type ContactRecord,
  type ContactStageData,
} from './contact_jacobian';
import { freeMotionTree, makeFreeMotionScratch, type FreeMotionScratch } from './free_motion';
import { integratePositions } from './integrate';
import { buildEqualityConstraints } from './equality_constraints';
import { buildJointConstraints, hasDrive } from './joint_constraints';
import { worseStatus, type StepReport, type WorldReport } from './report';

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

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
  private readonly tau: Float64Array;
  private readonly A_diag: Float64Array;
  private readonly q_round: Float64Array;
  private readonly treeA: Float64Array[];
  private readonly cliqueIndex: Int32Array;
  private readonly sap: SapSolver;

  /** total line-search iterations of the last step (all worlds) */
  last_line_search_iterations = 0;
  /** contacts dropped for capacity in the last step's contact buffer (all worlds) */
  last_truncated_contact_count = 0;
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
    this.tau = new Float64Array(nv);
    this.A_diag = new Float64Array(nv);
    this.q_round = new Float64Array(model.joint_coord_count);
    this.treeA = [];
    for (let t = 0; t < model.tree_count; t++) {
      const n = model.tree_dof_start[t + 1] - model.tree_dof_start[t];
      this.treeA.push(new Float64Array(n * n));
    }
    this.cliqueIndex = new Int32Array(model.tree_count).fill(-1);
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

  /** forward kinematics of a state: fills body_q and body_qd from joint_q and joint_qd */
  updateBodyState(state: SapState): void {
    const m = this.model;
    forwardKinematics(m, state.joint_q, this.kin);
    velocityPublicToInternal(m, this.kin, state.joint_qd, this.v_n);
    forwardVelocity(m, this.v_n, this.kin);
    writeBodyState(m, this.kin, state.body_q, state.body_qd);
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
    let t0 = now();
    forwardKinematics(m, state_in.joint_q, this.kin);
    velocityPublicToInternal(m, this.kin, state_in.joint_qd, this.v_n);
    forwardVelocity(m, this.v_n, this.kin);
    forcePublicToInternal(m, this.kin, control.joint_f, this.tau);
    // feed-forward of PD-driven DOFs joins the PD constraint instead of the free motion
    for (let d = 0; d < m.joint_dof_count; d++) if (hasDrive(m, d)) this.tau[d] = 0;
    // boundary pose for contact preparation (fp32 path rounds joint_q)
    let kinC = this.kin;
    if (!o.use_f64_boundary_pose) {
      for (let k = 0; k < this.q_round.length; k++) this.q_round[k] = Math.fround(state_in.joint_q[k]);
      forwardKinematics(m, this.q_round, this.kinContact);
      kinC = this.kinContact;
    }

    // 2. free motion
    const hasExternal = state_in.body_f.some((x) => x !== 0);
    const fmBad = new Uint8Array(m.num_worlds);
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
    timing.free_motion += now() - t0;

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
      t0 = now();
      const cliques: SapProblem['cliques'] = [];
      for (let t = m.world_tree_start[w]; t < m.world_tree_start[w + 1]; t++) {
        const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
        if (nv === 0) continue;
        this.cliqueIndex[t] = cliques.length;
        const A = this.treeA[t];
        cliques.push({ nv, A });
        for (let i = 0; i < nv; i++) this.A_diag[m.tree_dof_start[t] + i] = A[i * nv + i];
      }
      const specs: SapConstraintSpec[] = [];
      const records: ContactRecord[] = [];
      buildContactConstraints(
        m,
        kinC,
        contacts,
        w,
        o,
        this.stage,
        this.A_diag,
        this.cliqueIndex,
        specs,
        records,
      );
      const nContacts = specs.length;
      buildJointConstraints(
        m,
        j0,
        j1,
        state_in.joint_q,
        this.v_n,
        this.v_star,
        control,
        dt,
        this.cliqueIndex,
        specs,
      );
      if (m.eq_count > 0) buildEqualityConstraints(m, this.kin, state_in.joint_q, w, this.cliqueIndex, specs);
      timing.constraints += now() - t0;

      // 4. solve
      t0 = now();
      const vStarW = this.v_star.subarray(d0, d1);
      const nonfinite = fmBad[w]
        ? 'free-motion dynamics matrix (not positive definite)'
        : firstNonFinite(vStarW, 'v_star');
      if (nonfinite) {
        report.status = 'invalid_input';
        report.nonfinite = nonfinite;
        this.v_next.set(this.v_n.subarray(d0, d1), d0);
      } else if (cliques.length === 0) {
        this.v_next.set(vStarW, d0);
      } else {
        const res = this.sap.solve(
          { dt, cliques, v_star: vStarW, constraints: specs },
          this.v_n.subarray(d0, d1),
        );
        report.status = res.status;
        report.iterations = res.iterations;
        report.line_search_iterations = res.line_search_iterations;
        report.cost = res.cost;
        const bad = firstNonFinite(res.v, 'v');
        if (bad) {
          report.status = 'invalid_input';
          report.nonfinite = bad;
          this.v_next.set(this.v_n.subarray(d0, d1), d0);
        } else {
          this.v_next.set(res.v, d0);
          // contact results back into the buffer: force on body 1 = R_WC γ / dt
          for (let c = 0; c < nContacts; c++) {
            const g = res.gamma[c];
            const rec = records[c];
            const f = rec.frame,
              s = rec.slot * 3;
            for (let k = 0; k < 3; k++) {
              contacts.force[s + k] = (f[k] * g[0] + f[3 + k] * g[1] + f[6 + k] * g[2]) / dt;
              contacts.position[s + k] = rec.point[k];
            }
            const state = res.contact_state?.[c];
            contacts.slip_state[rec.slot] =
              state === 'stick' ? ContactSlip.STICK : state === 'slip' ? ContactSlip.SLIP : ContactSlip.OPEN;
          }
        }
      }
      timing.solve += now() - t0;

      // 5. integrate
      t0 = now();
      const failed = report.status === 'invalid_input';
      for (let d = d0; d < d1; d++) {
        this.v_bar[d] =
          o.position_integration === 'midpoint' ? 0.5 * (this.v_n[d] + this.v_next[d]) : this.v_next[d];
      }
      if (failed) {
        // contain the blow-up: this world keeps its input state
        state_out.joint_q.set(
          state_in.joint_q.subarray(m.world_coord_start[w], m.world_coord_start[w + 1]),
          m.world_coord_start[w],
        );
      } else {
        integratePositions(m, j0, j1, state_in.joint_q, this.v_bar, dt, state_out.joint_q);
        const badQ = firstNonFinite(
          state_out.joint_q.subarray(m.world_coord_start[w], m.world_coord_start[w + 1]),
          'q',
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
      timing.integrate += now() - t0;

      status = worseStatus(status, report.status);
      lsTotal += report.line_search_iterations;
      itSum += report.iterations;
      itMax = Math.max(itMax, report.iterations);
      worlds.push(report);
    }

    // write the public state at q_{n+1}
    t0 = now();
    forwardKinematics(m, state_out.joint_q, this.kin);
    velocityInternalToPublic(m, this.kin, this.v_next, state_out.joint_qd);
    forwardVelocity(m, this.v_next, this.kin);
    writeBodyState(m, this.kin, state_out.body_q, state_out.body_qd);
    if (state_out !== state_in) state_out.body_f.set(state_in.body_f);
    state_out.time = state_in.time + dt;
    timing.integrate += now() - t0;
    timing.total = now() - t_start;

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

function firstNonFinite(a: Float64Array, name: string): string | undefined {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return `${name}[${i}] = ${a[i]}`;
  return undefined;
}
