/**
 * CLI commands as functions returning plain JSON-able objects (SPEC §9): run, inspect, ablate.
 * `main.ts` parses arguments and prints; tests call these directly and through the binary.
 */
import { ContactSlip, type SapContacts } from '../collision/contacts';
import { BackendSimulation, createBackend, precisionLabels, type BackendKind } from '../backends';
import { crbaTree, makeCompositeScratch, makeRneaScratch, rneaTree } from '../dynamics';
import {
  forwardKinematics,
  forwardVelocity,
  makeKinematicsData,
  velocityPublicToInternal,
} from '../kinematics';
import { JOINT_TYPE_NAMES, type SapModel } from '../model';
import {
  applyControlSequence,
  locateNonfinite,
  OneStepAblator,
  Simulation,
  TrajectoryAblator,
  type StepReport,
} from '../pipeline';
import { DivergenceMonitor } from '../pipeline/divergence';
import { EnergyMeter } from '../pipeline/energy';
import { inertOptionWarnings, normalizeSolverOptions, type SapSolverOptions } from '../sap/options';
import { makeState } from '../kinematics';
import type { SapState } from '../state';
import type { AblateOutput, InspectOutput, RunOutput } from './schema';
import type { LoadedSceneFile } from '../io/load_file';
import { timeStepOverrideWarning } from '../io/import';

export interface RunArgs {
  steps: number;
  dt?: number;
  /** solver option overrides (preset, line search and --set), applied over the scene's */
  set?: Record<string, unknown>;
  /** record joint_q / joint_qd (and the step's solver stats) every K steps */
  trace?: number;
}

const round = (x: number): number => (Number.isFinite(x) ? x : (x as number));

/**
 * The solver options of a run (the scene's, then `--set`) with the contact capacity the run uses:
 * `--set max_rigid_contact` wins over the scene's; the options report that capacity. Also the
 * warnings of the flags (SAP Warp options without effect here).
 */
export function runOptions(
  scene: LoadedSceneFile,
  set: Record<string, unknown> = {},
): { solver: Record<string, unknown>; max_rigid_contact: number; warnings: string[] } {
  const given = normalizeSolverOptions(set);
  const max_rigid_contact = given.max_rigid_contact ?? scene.max_rigid_contact;
  return {
    solver: { ...scene.solver, ...given, max_rigid_contact },
    max_rigid_contact,
    warnings: inertOptionWarnings(set).map((w) => `--set ${w.key}: ${w.message}`),
  };
}

/** simulates a loaded scene on the CPU reference and reports the final state */
export function runCommand(scene: LoadedSceneFile, args: RunArgs): RunOutput {
  const dt = args.dt ?? scene.dt;
  const { solver, max_rigid_contact, warnings } = runOptions(scene, args.set);
  const sim = new Simulation(scene.model, { dt, solver, max_rigid_contact });
  const run = new RunRecorder(scene.model, args);
  run.start(sim.state);
  const seq = scene.control_sequence;
  const t0 = sim.state.time;
  for (let s = 0; s < args.steps; s++) {
    if (seq) applyControlSequence(seq, sim.control, sim.state.time - t0);
    run.record(s, sim.step(), sim.state, sim.contacts);
  }
  return run.output(scene, dt, sim.state, sim.contacts, sim.solver.options, warnings);
}

/**
 * `run --backend cpu|webgpu`: the same run on a chosen backend (collision on the GPU when every
 * candidate pair is a primitive pair it supports, else on the CPU; `backend.description` says
 * which). WebGPU falls back to the CPU when no adapter is available; the output's `backend` says
 * which ran and why.
 */
export async function runCommandBackend(
  scene: LoadedSceneFile,
  args: RunArgs,
  kind: BackendKind,
): Promise<RunOutput> {
  const dt = args.dt ?? scene.dt;
  const { solver, max_rigid_contact, warnings } = runOptions(scene, args.set);
  const { backend, fallback } = await createBackend(kind, scene.model, { solver, max_rigid_contact });
  try {
    const sim = new BackendSimulation(scene.model, backend, { dt, max_rigid_contact });
    const run = new RunRecorder(scene.model, args);
    run.start(sim.state);
    const seq = scene.control_sequence;
    const t0 = sim.state.time;
    for (let s = 0; s < args.steps; s++) {
      if (seq) applyControlSequence(seq, sim.control, sim.state.time - t0);
      run.record(s, await sim.step(), sim.state, sim.contacts);
    }
    const out = run.output(scene, dt, sim.state, sim.contacts, backend.options, warnings);
    out.backend = {
      kind: backend.kind,
      description: backend.description,
      ...(fallback ? { fallback } : {}),
      precision: precisionLabels(backend.kind, backend.options),
    };
    return out;
  } finally {
    backend.dispose();
  }
}

type RunStatus = RunOutput['stats']['status'];
const RANK: Record<RunStatus, number> = {
  converged: 0,
  max_iterations: 1,
  line_search_failed: 2,
  diverged: 3,
  invalid_input: 4,
};

/** accumulates the statistics and trace of a run and builds its output */
class RunRecorder {
  private status: RunStatus = 'converged';
  private reason: string | null = null;
  private failedStep: number | null = null;
  private readonly divergence: DivergenceMonitor;
  private itSum = 0;
  private islandSum = 0;
  private itMax = 0;
  private lsSum = 0;
  private contactsMax = 0;
  private truncated = 0;
  private t0 = 0;
  private readonly trace: NonNullable<RunOutput['trace']> = [];
  private readonly energy: EnergyMeter;
  /** per world: kinetic + potential energy at the start [J] */
  private readonly energy0: Float64Array;

  constructor(
    private readonly m: SapModel,
    private readonly args: RunArgs,
  ) {
    this.divergence = new DivergenceMonitor(m);
    this.energy = new EnergyMeter(m);
    this.energy0 = new Float64Array(m.num_worlds);
  }

  private snapshot(state: SapState, r?: StepReport): void {
    this.energy.measure(state);
    this.trace.push({
      time: state.time,
      joint_q: perWorld(state.joint_q, this.m.world_coord_start),
      joint_qd: perWorld(state.joint_qd, this.m.world_dof_start),
      kinetic_energy: Array.from(this.energy.kinetic),
      potential_energy: Array.from(this.energy.potential),
      ...(r
        ? {
            step: {
              status: r.status,
              iterations: r.worlds.map((w) => w.iterations),
              line_search_iterations: r.worlds.map((w) => w.line_search_iterations),
              contacts: r.worlds.map((w) => w.contacts),
            },
          }
        : {}),
    });
  }

  /** raises the run's status; the first step of the worst status gives the reason */
  private raise(status: RunStatus, step: number, time: number, why: string): void {
    if (RANK[status] <= RANK[this.status]) return;
    this.status = status;
    this.failedStep = step + 1;
    this.reason = `step ${step + 1} (t = ${time.toPrecision(6)} s): ${why}`;
  }

  /** the worlds of a step report that did not converge, and why */
  private solverReason(r: StepReport): string {
    const parts: string[] = [];
    r.worlds.forEach((w, i) => {
      if (w.status === 'converged') return;
      const where = this.m.num_worlds > 1 ? `world ${i}: ` : '';
      if (w.status === 'invalid_input')
        parts.push(
          `${where}non-finite ${w.nonfinite ? locateNonfinite(this.m, i, w.nonfinite) : 'input'}; the world keeps its last finite state`,
        );
      else if (w.status === 'max_iterations')
        parts.push(
          `${where}Newton stopped at its limit of ${w.iterations} iterations before the solver's tolerances were met (max_iterations)`,
        );
      else parts.push(`${where}the line search found no step that decreases the cost (line_search_failed)`);
    });
    return parts.slice(0, 3).join('; ') + (parts.length > 3 ? `; and ${parts.length - 3} more worlds` : '');
  }

  start(state: SapState): void {
    this.t0 = performance.now();
    this.energy.measure(state);
    for (let w = 0; w < this.m.num_worlds; w++)
      this.energy0[w] = this.energy.kinetic[w] + this.energy.potential[w];
    if (this.args.trace) this.snapshot(state);
  }

  record(step: number, r: StepReport, state: SapState, contacts: SapContacts): void {
    if (RANK[r.status] > RANK[this.status]) this.raise(r.status, step, state.time, this.solverReason(r));
    if (RANK.diverged > RANK[this.status]) {
      const d = this.divergence.check(contacts);
      if (d) {
        const label = (b: number) => (b < 0 ? 'the world' : this.m.body_label[b]);
        const where = this.m.num_worlds > 1 ? `world ${d.world}: ` : '';
        this.raise(
          'diverged',
          step,
          state.time,
          `${where}${label(d.body_a)} and ${label(d.body_b)} overlap by ${d.depth.toPrecision(3)} m, more than the smaller shape's size (${d.limit.toPrecision(3)} m): the bodies passed through each other; a smaller dt resolves the contact`,
        );
      }
    }
    this.itSum += r.iterations_mean;
    for (const w of r.worlds) this.islandSum += (w.islands ?? 1) / this.m.num_worlds;
    this.itMax = Math.max(this.itMax, r.iterations_max);
    this.lsSum += r.line_search_iterations / this.m.num_worlds;
    for (const w of r.worlds) this.contactsMax = Math.max(this.contactsMax, w.contacts);
    this.truncated = Math.max(this.truncated, r.truncated_contact_count);
    if (this.args.trace && (step + 1) % this.args.trace === 0) this.snapshot(state, r);
  }

  output(
    scene: LoadedSceneFile,
    dt: number,
    st: SapState,
    c: SapContacts,
    options: SapSolverOptions,
    warnings: readonly string[] = [],
  ): RunOutput {
    const m = this.m;
    const args = this.args;
    const wall = performance.now() - this.t0;
    const label = (b: number) => (b < 0 ? 'world' : m.body_label[b]);
    const worlds: RunOutput['worlds'] = [];
    this.energy.measure(st);
    for (let w = 0; w < m.num_worlds; w++) {
      const bodies = [];
      for (let b = m.world_joint_start[w]; b < m.world_joint_start[w + 1]; b++) {
        bodies.push({
          name: m.body_label[b],
          position: vec(st.body_q, b * 7),
          quaternion: [
            st.body_q[b * 7 + 3],
            st.body_q[b * 7 + 4],
            st.body_q[b * 7 + 5],
            st.body_q[b * 7 + 6],
          ] as [number, number, number, number],
          linear_velocity: vec(st.body_qd, b * 6),
          angular_velocity: vec(st.body_qd, b * 6 + 3),
        });
      }
      const contacts = [];
      for (let i = 0; i < c.count[w]; i++) {
        const slot = w * c.capacity + i;
        const state = c.slip_state[slot];
        contacts.push({
          body_a: label(c.body0[slot]),
          body_b: label(c.body1[slot]),
          position: vec(c.position, slot * 3),
          normal: vec(c.normal, slot * 3),
          force: vec(c.force, slot * 3),
          phi0: c.phi0[slot],
          state: (state === ContactSlip.STICK ? 'stick' : state === ContactSlip.SLIP ? 'slip' : 'open') as
            'stick' | 'slip' | 'open',
        });
      }
      worlds.push({
        bodies,
        joint_q: Array.from(st.joint_q.subarray(m.world_coord_start[w], m.world_coord_start[w + 1])),
        joint_qd: Array.from(st.joint_qd.subarray(m.world_dof_start[w], m.world_dof_start[w + 1])),
        kinetic_energy: this.energy.kinetic[w],
        potential_energy: this.energy.potential[w],
        energy_change: this.energy.kinetic[w] + this.energy.potential[w] - this.energy0[w],
        contacts,
      });
    }
    const n = Math.max(1, args.steps);
    const dtWarning =
      args.dt === undefined ? undefined : timeStepOverrideWarning(scene.authored_dt, dt, '--dt');
    return {
      scene: scene.name,
      warnings: [
        ...scene.warnings,
        ...warnings,
        ...(dtWarning ? [dtWarning] : []),
        ...(this.truncated > 0
          ? [
              `contact capacity: up to ${this.truncated} contact candidates per step were dropped ` +
                `(max_rigid_contact = ${c.capacity} per world); raise max_rigid_contact to keep them`,
            ]
          : []),
      ],
      notes: [...scene.notes],
      steps: args.steps,
      dt,
      time: st.time,
      options: { ...options } as Record<string, string | number | boolean>,
      worlds,
      stats: {
        status: this.status,
        reason: this.reason,
        failed_step: this.failedStep,
        iterations_mean: this.itSum / n,
        iterations_max: this.itMax,
        line_search_iterations_mean: this.lsSum / n,
        islands_mean: this.islandSum / n,
        contacts_max: this.contactsMax,
        truncated_contacts: this.truncated,
        wall_ms: wall,
      },
      ...(args.trace ? { trace: this.trace } : {}),
    };
  }
}

function vec(a: Float64Array, o: number): [number, number, number] {
  return [round(a[o]), round(a[o + 1]), round(a[o + 2])];
}

function perWorld(a: Float64Array, starts: Int32Array): number[][] {
  const out: number[][] = [];
  for (let w = 0; w + 1 < starts.length; w++) out.push(Array.from(a.subarray(starts[w], starts[w + 1])));
  return out;
}

/** the largest model whose dense M(q) `inspect` writes without `--dense` [DOFs] (a 300×300 matrix) */
export const DENSE_MASS_MATRIX_MAX_DOFS = 300;

/**
 * Model summary and, at (q, qd) (public convention; defaults: the initial state), the mass matrix
 * M(q) including armature and without dt·D — per kinematic tree (its diagonal blocks: M is zero
 * between trees), and dense as well up to {@link DENSE_MASS_MATRIX_MAX_DOFS} or with `dense` — and
 * bias forces (gravity less its compensation, and
 * Coriolis/centrifugal) with
 * M·q̈ + bias = τ, both in the solver's internal velocity order ("sap": free joints angular first,
 * linear velocity of the body origin). World 0 only.
 */
export function inspectCommand(
  name: string,
  m: SapModel,
  q?: readonly number[],
  qd?: readonly number[],
  warnings: readonly string[] = [],
  notes: readonly string[] = [],
  opts: { dense?: boolean } = {},
): InspectOutput {
  const nq = m.world_coord_start[1],
    nv = m.world_dof_start[1];
  const qa = Float64Array.from(m.joint_q0);
  const qda = Float64Array.from(m.joint_qd0);
  if (q) {
    if (q.length !== nq) throw new Error(`--q: expected ${nq} values, got ${q.length}`);
    qa.set(q);
  }
  if (qd) {
    if (qd.length !== nv) throw new Error(`--qd: expected ${nv} values, got ${qd.length}`);
    qda.set(qd);
  }
  const kin = makeKinematicsData(m);
  forwardKinematics(m, qa, kin);
  const v = new Float64Array(m.joint_dof_count);
  velocityPublicToInternal(m, kin, qda, v);
  forwardVelocity(m, v, kin);
  // M(q) is block-diagonal over kinematic trees: one block per tree, dense only when asked or small
  const dense = opts.dense ?? nv <= DENSE_MASS_MATRIX_MAX_DOFS;
  const M = dense ? Array.from({ length: nv }, () => new Array<number>(nv).fill(0)) : null;
  const blocks: InspectOutput['mass_matrix_blocks'] = [];
  const bias = new Array<number>(nv).fill(0);
  const comp = makeCompositeScratch(m);
  const rs = makeRneaScratch(m);
  const tau = new Float64Array(m.joint_dof_count);
  for (let t = m.world_tree_start[0]; t < m.world_tree_start[1]; t++) {
    const v0 = m.tree_dof_start[t],
      n = m.tree_dof_start[t + 1] - v0;
    if (n === 0) continue;
    const block = new Float64Array(n * n);
    crbaTree(m, kin, t, comp, block);
    const rows = Array.from({ length: n }, (_, i) => Array.from(block.subarray(i * n, i * n + n)));
    blocks.push({ dof_start: v0, size: n, matrix: rows });
    if (M) for (let i = 0; i < n; i++) for (let k = 0; k < n; k++) M[v0 + i][v0 + k] = block[i * n + k];
    rneaTree(m, kin, t, { qdd: null, velocity: true, gravity: true, body_f: null }, rs, tau);
    for (let i = 0; i < n; i++) bias[v0 + i] = tau[v0 + i];
  }
  const nb = m.world_joint_start[1];
  const lim = (x: number) => (Number.isFinite(x) ? x : null);
  return {
    model: name,
    warnings: [...warnings],
    notes: [...notes],
    nq,
    nv,
    velocity_convention: 'sap',
    q: Array.from(qa.subarray(0, nq)),
    qd: Array.from(qda.subarray(0, nv)),
    bodies: Array.from({ length: nb }, (_, b) => ({
      name: m.body_label[b],
      mass: m.body_mass[b],
      com: vec(m.body_com, b * 3),
      inertia: [0, 1, 2].map((r) => [0, 1, 2].map((k) => m.body_inertia[b * 9 + r * 3 + k])),
      gravcomp: m.body_gravcomp[b],
    })),
    joints: Array.from({ length: nb }, (_, j) => ({
      name: m.joint_label[j],
      type: JOINT_TYPE_NAMES[m.joint_type[j]],
      parent: m.joint_parent[j] < 0 ? 'world' : m.body_label[m.joint_parent[j]],
      child: m.body_label[j],
      q_start: m.joint_q_start[j],
      qd_start: m.joint_qd_start[j],
      axis: vec(m.joint_axis, j * 3),
      lower: lim(m.joint_limit_lower[m.joint_qd_start[j]] ?? -Infinity),
      upper: lim(m.joint_limit_upper[m.joint_qd_start[j]] ?? Infinity),
    })),
    mass_matrix: M,
    mass_matrix_blocks: blocks,
    bias_forces: bias,
  };
}

/** the SPEC §3.8 series: one-step deltas along the approx64 trajectory, and shadow-trajectory divergence */
export function ablateCommand(scene: LoadedSceneFile, steps: number, dt?: number): AblateOutput {
  const h = dt ?? scene.dt;
  const base = scene.solver;
  const sim = new Simulation(scene.model, {
    dt: h,
    solver: { ...base, contact_preset_variant: 'approx64' },
    max_rigid_contact: scene.max_rigid_contact,
  });
  const ablator = new OneStepAblator(scene.model, base);
  const traj = new TrajectoryAblator(scene.model, h, base, makeStateAt(sim));
  const one_step: AblateOutput['one_step'] = [];
  const trajectory: AblateOutput['trajectory'] = [];
  for (let s = 0; s < steps; s++) {
    sim.collision.collide(sim.state, sim.contacts);
    const d = ablator.run(sim.state, sim.control, sim.contacts, h);
    one_step.push({
      time: sim.state.time,
      delta_precision: d.delta_precision.norm,
      delta_model: d.delta_model.norm,
      per_world: { precision: d.delta_precision.per_world, model: d.delta_model.per_world },
      max_abs: { precision: d.delta_precision.max_abs, model: d.delta_model.max_abs },
    });
    sim.step();
    trajectory.push(traj.step());
  }
  return {
    scene: scene.name,
    warnings: [...scene.warnings],
    notes: [...scene.notes],
    steps,
    dt: h,
    one_step,
    trajectory,
  };
}

function makeStateAt(sim: Simulation) {
  const s = makeState(sim.model);
  s.joint_q.set(sim.state.joint_q);
  s.joint_qd.set(sim.state.joint_qd);
  s.body_q.set(sim.state.body_q);
  s.body_qd.set(sim.state.body_qd);
  return s;
}
