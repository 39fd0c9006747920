/// <reference types="@webgpu/types" />
/**
 * WebGPU backend: the SAP step batched over num_worlds (SPEC §6).
 *
 *   host                                            GPU (one invocation per tree/slot/DOF/world)
 *   upload state_in, control, contacts (CPU collision; with GPU collision no contacts, and the
 *   first group is fk_boundary ► collide_pairs (pair) ► collide_compact (world) ► copy to inputs,
 *   see collision.ts)
 *   submit ─► fk_boundary (tree) ► free_motion (tree) ► contact_constraints (slot)
 *             ► joint_constraints (DOF) ► equality_constraints (equality) ► sap_setup (world)
 *   loop  ─► [sap_eval ► sap_hessian ► sap_factor ► sap_solve ► sap_linesearch] (world) × batch,
 *            then read the number of still-active worlds (per-world convergence masks)
 *   submit ─► sap_finish (world) ► integrate (world) ► fk_final (tree)
 *   read q, qd, body poses/twists, contact results, per-world status/iterations/costs
 *
 * Precision (SPEC §3.7): fp32 knobs in native f32, fp64 knobs and every stage that is fp64 on the
 * CPU in df64 ("fp64 (df64)"). Collision: on the GPU in df64 when every candidate pair of the model
 * is a primitive pair with a GPU routine (collision.ts; `collides_on_device`), otherwise on the CPU
 * (engine/collision) before the step, with the reason in `collision_info` and the description.
 */
import { ContactSlip, type SapContacts } from '../../collision/contacts';
import {
  forwardKinematics,
  forwardVelocity,
  makeKinematicsData,
  velocityPublicToInternal,
  writeBodyState,
  type KinematicsData,
} from '../../kinematics';
import type { SapModel } from '../../model';
import type { GpuViews } from '../../model/layout_views';
import { worseStatus, type StepReport, type StepStatus, type WorldReport } from '../../pipeline/report';
import { resolveSolverOptions, type SapSolverOptions } from '../../sap/options';
import type { ShapeMaterial } from '../../collision/material';
import type { SapControl, SapState } from '../../state';
import { WarmStartHistory, type WarmStart } from '../../pipeline/warm_start';
import type { Backend, BackendInitOptions } from '../backend';
import { GpuSapContext } from './context';
import type { GpuHandle } from './device';
import type { KernelName } from './kernels/defs';
import { CONTACT_READBACK, encodeContactCopies, gpuCollisionPlan, unpackContacts } from './collision';

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

const STATUS: readonly StepStatus[] = ['converged', 'max_iterations', 'line_search_failed', 'invalid_input'];
const NONFINITE: Record<number, string> = {
  1: 'free-motion dynamics matrix (not positive definite)',
  2: 'v_star (not finite)',
  3: 'v (not finite)',
  4: 'q (not finite)',
  8: 'equality constraint parameters (regularization not positive and finite)',
};
/** nonfinite codes after which the reference writes no contact results */
const NO_CONTACT_RESULTS = new Set([1, 2, 3, 7, 8]);

const STAGE_FREE_MOTION: readonly KernelName[] = ['fk_boundary', 'free_motion'];
const STAGE_COLLIDE: readonly KernelName[] = ['fk_boundary', 'collide_pairs', 'collide_compact'];
const STAGE_CONSTRAINTS: readonly KernelName[] = [
  'contact_constraints',
  'joint_constraints',
  'equality_constraints',
  'sap_setup',
];
const STAGE_FINISH: readonly KernelName[] = ['sap_finish', 'integrate', 'fk_final'];
const OUTPUTS: readonly (keyof GpuViews)[] = [
  'q_out',
  'qd_out',
  'body_q_out',
  'body_qd_out',
  'v_next',
  'world_i',
  'sap_cost',
  'sap_start',
  'con_force',
  'con_point',
  'con_slip',
  'con_active',
];

/** sap_start of a world whose Newton began at the extrapolated start (sap_newton.wgsl) */
const START_ALT_TAKEN = 3;

export class WebGpuBackend implements Backend {
  readonly kind = 'webgpu' as const;
  /** where Newton starts: 'accelerated' (default) or 'previous' (set by init) */
  warm_start: WarmStart = 'accelerated';
  private history: WarmStartHistory | null = null;
  /** the step being run starts from the lower-cost of v_n and its extrapolation */
  private extrapolating = false;
  readonly gpu: GpuHandle;
  private ctx: GpuSapContext | null = null;
  private model: SapModel | null = null;
  private capacity = 0;
  private opts: SapSolverOptions = resolveSolverOptions({});
  /** per-shape material with the fallbacks of `opts` (what GPU contacts carry) */
  private shapeMaterial: ShapeMaterial | null = null;
  private kin: KinematicsData | null = null;
  private vScratch = new Float64Array(0);
  private velocity = new Float64Array(0);
  /** Newton iterations per convergence check (the first check comes after 2) */
  checkBatch = 4;
  /** await and time every stage group (slower; fills StepReport.timing per stage) */
  profile = false;
  /** the last step's report */
  last_report: StepReport | null = null;
  /** collide on the GPU when the model allows it (set before init; false: always the CPU pipeline) */
  gpu_collision = true;
  private collideOnGpu = false;
  private collisionNote = 'collision on the CPU';
  /** read dof_effort back after every step (sap_finish writes it whether read or not) */
  track_joint_efforts = false;
  private effort = new Float64Array(0);

  constructor(gpu: GpuHandle) {
    this.gpu = gpu;
  }

  get description(): string {
    const islands = this.opts.solve_islands ? '; solve_islands is CPU-only: each world is solved whole' : '';
    return `webgpu: ${this.gpu.description}${this.gpu.software ? ' (software)' : ''}; fp32 knobs in f32, fp64 knobs as fp64 (df64); ${this.collisionNote}${islands}`;
  }

  /**
   * true when step() collides on the GPU itself (it then ignores the contents of the contact buffer
   * it is given and fills it with the GPU contacts): the caller must not run the CPU pipeline
   */
  get collides_on_device(): boolean {
    return this.collideOnGpu;
  }

  /** where collision runs and, on the CPU, why (e.g. a pair type not on the GPU yet) */
  get collision_info(): string {
    return this.collisionNote;
  }

  get options(): SapSolverOptions {
    return this.opts;
  }

  get last_velocity(): Float64Array {
    return this.velocity;
  }

  get joint_effort(): Float64Array {
    return this.effort;
  }

  /** the GPU context (buffers, pipelines), for stage tests */
  get context(): GpuSapContext {
    if (!this.ctx) throw new Error('WebGpuBackend: init(model) first');
    return this.ctx;
  }

  async init(model: SapModel, opts: BackendInitOptions = {}): Promise<void> {
    this.model = model;
    this.opts = resolveSolverOptions(opts.solver ?? {});
    const ws = opts.warm_start ?? 'accelerated';
    if (ws === 'free_motion')
      throw new Error("WebGpuBackend: warm_start 'free_motion' is not realized on the GPU");
    this.warm_start = ws;
    this.history = new WarmStartHistory(model);
    this.capacity = opts.max_rigid_contact ?? this.opts.max_rigid_contact;
    this.kin = makeKinematicsData(model);
    this.vScratch = new Float64Array(model.joint_dof_count);
    this.velocity = new Float64Array(model.joint_dof_count);
    this.effort = new Float64Array(3 * model.joint_dof_count);
    const plan = gpuCollisionPlan(model, materialOf(this.opts));
    this.collideOnGpu = this.gpu_collision && plan.supported;
    this.collisionNote = this.collideOnGpu
      ? 'collision on the GPU (df64)'
      : this.gpu_collision
        ? (plan.reason ?? 'collision on the CPU')
        : 'collision on the CPU (GPU collision off)';
    this.rebuild();
    this.context.setParams(this.opts, 0.001, false);
    await this.context.prepare();
  }

  private rebuild(): void {
    if (!this.model) throw new Error('WebGpuBackend: init(model) first');
    this.ctx?.destroy();
    this.history?.clear(); // (a new context has no v_prev)
    this.shapeMaterial = gpuCollisionPlan(this.model, materialOf(this.opts)).material;
    this.ctx = new GpuSapContext(this.gpu, this.model, {
      capacity: this.capacity,
      max_iterations: this.opts.max_iterations,
      collision: this.collideOnGpu,
      material: materialOf(this.opts),
    });
  }

  setOptions(solver: Record<string, unknown>): void {
    const o = resolveSolverOptions(solver);
    const grow = o.max_iterations > this.opts.max_iterations;
    const material = JSON.stringify(materialOf(o)) !== JSON.stringify(materialOf(this.opts));
    this.opts = o;
    if (grow || material) this.rebuild();
  }

  updateBodyState(state: SapState): void {
    const m = this.model;
    const kin = this.kin;
    if (!m || !kin) throw new Error('WebGpuBackend: init(model) first');
    forwardKinematics(m, state.joint_q, kin);
    velocityPublicToInternal(m, kin, state.joint_qd, this.vScratch);
    forwardVelocity(m, this.vScratch, kin);
    writeBodyState(m, kin, state.body_q, state.body_qd);
  }

  /**
   * runs the step's GPU stages (outputs stay on the GPU; the caller reads fields). With `profile`
   * every stage group is awaited (queue.onSubmittedWorkDone) and timed; otherwise the groups are
   * queued back to back and only the solve (which then includes the queued stages) is timed.
   */
  async runStages(
    state_in: SapState,
    control: SapControl,
    contacts: SapContacts,
    dt: number,
  ): Promise<Pick<StepReport['timing'], 'free_motion' | 'constraints' | 'solve' | 'integrate'>> {
    const ctx = this.context;
    const o = this.opts;
    this.extrapolating =
      this.warm_start === 'accelerated' && this.history !== null && this.history.continues(state_in, dt);
    ctx.setParams(
      o,
      dt,
      state_in.body_f.some((x) => x !== 0),
      this.extrapolating,
    );
    ctx.uploadInputs(state_in, control, this.collideOnGpu ? null : contacts);
    await ctx.prepare();
    const t = { free_motion: 0, constraints: 0, solve: 0, integrate: 0 };
    const queue = ctx.device.queue;
    let t0 = now();
    if (this.collideOnGpu) {
      // one submission: collision pass, contact copies into the step inputs, free-motion pass
      const names = [...STAGE_COLLIDE, 'free_motion'] as const;
      const pipes = await Promise.all(names.map((n) => ctx.pipeline(n)));
      const enc = ctx.device.createCommandEncoder({ label: 'SapWebGpu.collide' });
      ctx.encode(
        enc,
        STAGE_COLLIDE.map((n, i) => [pipes[i], n]),
      );
      encodeContactCopies(ctx, enc);
      ctx.encode(enc, [[pipes[names.length - 1], 'free_motion']]);
      queue.submit([enc.finish()]);
    } else {
      await ctx.run(STAGE_FREE_MOTION);
    }
    if (this.profile) {
      await queue.onSubmittedWorkDone();
      t.free_motion = now() - t0;
      t0 = now();
    }
    await ctx.run(STAGE_CONSTRAINTS);
    if (this.profile) {
      await queue.onSubmittedWorkDone();
      t.constraints = now() - t0;
      t0 = now();
    }
    await this.newtonLoop();
    t.solve = now() - t0;
    t0 = now();
    await ctx.run(STAGE_FINISH);
    if (this.profile) {
      await queue.onSubmittedWorkDone();
      t.integrate = now() - t0;
    }
    return t;
  }

  private async newtonLoop(): Promise<void> {
    await this.context.newtonLoop(this.opts.max_iterations, this.checkBatch, this.extrapolating ? 2 : 0);
  }

  async step(
    state_in: SapState,
    state_out: SapState,
    control: SapControl,
    contacts: SapContacts,
    dt: number,
  ): Promise<StepReport> {
    const m = this.model;
    if (!m) throw new Error('WebGpuBackend: init(model) first');
    if (contacts.capacity !== this.capacity) {
      // size the GPU contact slots to the buffer the caller collides into
      this.capacity = contacts.capacity;
      this.rebuild();
    }
    const t_start = now();
    const timing = await this.runStages(state_in, control, contacts, dt);
    const t1 = now();
    const g = await this.context.readFields([
      ...OUTPUTS,
      ...(this.collideOnGpu ? CONTACT_READBACK : []),
      ...(this.track_joint_efforts ? (['dof_effort'] as const) : []),
    ]);
    if (this.collideOnGpu && this.shapeMaterial)
      unpackContacts(m, g, this.capacity, contacts, this.shapeMaterial);
    const fromDf = (src: Float32Array, dst: Float64Array) => {
      for (let i = 0; i < dst.length; i++) dst[i] = src[2 * i] + src[2 * i + 1];
    };
    const qIn = state_out === state_in ? state_in.joint_q.slice() : state_in.joint_q;
    fromDf(g.q_out, state_out.joint_q);
    fromDf(g.qd_out, state_out.joint_qd);
    fromDf(g.body_q_out, state_out.body_q);
    fromDf(g.body_qd_out, state_out.body_qd);
    fromDf(g.v_next, this.velocity);
    if (this.track_joint_efforts) fromDf(g.dof_effort, this.effort);
    if (state_out !== state_in) state_out.body_f.set(state_in.body_f);
    state_out.time = state_in.time + dt;
    this.history?.record(null, state_out, dt);

    // per-world reports and contact results
    const worlds: WorldReport[] = [];
    let status: StepStatus = 'converged';
    let ls = 0,
      itSum = 0,
      itMax = 0,
      contactTotal = 0,
      truncTotal = 0;
    const costStride = this.context.config.max_iterations + 1;
    for (let w = 0; w < m.num_worlds; w++) {
      const wi = g.world_i.subarray(8 * w, 8 * w + 8);
      const costs: number[] = [];
      for (let k = 0; k < wi[6]; k++) {
        const o = 2 * (w * costStride + k);
        costs.push(g.sap_cost[o] + g.sap_cost[o + 1]);
      }
      const r: WorldReport = {
        status: STATUS[wi[1]] ?? 'invalid_input',
        iterations: wi[3],
        line_search_iterations: wi[4],
        cost: costs,
        contacts: contacts.count[w] ?? 0,
        truncated_contacts: contacts.truncated[w] ?? 0,
      };
      if (NONFINITE[wi[5]]) r.nonfinite = NONFINITE[wi[5]];
      if (g.sap_start[w] === START_ALT_TAKEN) r.extrapolated_start = true;
      if (r.status === 'invalid_input') {
        // contained: the world keeps its input positions, bit for bit (not via df64)
        const c0 = m.world_coord_start[w],
          c1 = m.world_coord_start[w + 1];
        state_out.joint_q.set(qIn.subarray(c0, c1), c0);
      }
      worlds.push(r);
      status = worseStatus(status, r.status);
      ls += r.line_search_iterations;
      itSum += r.iterations;
      itMax = Math.max(itMax, r.iterations);
      contactTotal += r.contacts;
      truncTotal += r.truncated_contacts;
      const writeResults = !NO_CONTACT_RESULTS.has(wi[5]);
      const n = contacts.count[w];
      for (let i = 0; i < n; i++) {
        const gs = w * this.capacity + i;
        const s = w * contacts.capacity + i;
        const active = g.con_active[gs];
        if (active === 3) {
          contacts.slip_state[s] = ContactSlip.OPEN;
          contacts.force.fill(0, 3 * s, 3 * s + 3);
        } else if (active === 1 && writeResults) {
          for (let k = 0; k < 3; k++) {
            contacts.force[3 * s + k] = g.con_force[2 * (3 * gs + k)] + g.con_force[2 * (3 * gs + k) + 1];
            contacts.position[3 * s + k] = g.con_point[2 * (3 * gs + k)] + g.con_point[2 * (3 * gs + k) + 1];
          }
          contacts.slip_state[s] = g.con_slip[gs];
        }
      }
    }
    const total = now() - t_start;
    const report: StepReport = {
      status,
      worlds,
      iterations_mean: itSum / Math.max(1, m.num_worlds),
      iterations_max: itMax,
      line_search_iterations: ls,
      contact_count: contactTotal,
      truncated_contact_count: truncTotal,
      // without `profile` the stages are queued back to back: the solve includes the queued free
      // motion and constraints, integrate is the read-back (the integration ran in the solve's wake)
      timing: { ...timing, integrate: timing.integrate + now() - t1, total },
    };
    this.last_report = report;
    return report;
  }

  dispose(): void {
    this.ctx?.destroy();
    this.ctx = null;
  }
}

/** the material fallbacks carried by solver options (as the CPU pipeline takes them) */
function materialOf(o: SapSolverOptions): { tau_d: number; mu: number; stiffness: number } {
  return { tau_d: o.contact_tau_d, mu: o.fallback_mu, stiffness: o.fallback_stiffness };
}
