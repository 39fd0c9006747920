/** the step report (SPEC §3.2): the step never throws for numerical trouble, it reports */
import type { SapSolveStatus } from '../sap/problem';
import { worseSolveStatus } from '../sap/solver';

/** a world's (or the step's) status: its SAP solve's, or invalid_input for non-finite data */
export type StepStatus = SapSolveStatus;

/** per-world solver outcome of one step */
export interface WorldReport {
  status: StepStatus;
  iterations: number;
  line_search_iterations: number;
  /** cost ℓ per Newton iteration [J] */
  cost: number[];
  contacts: number;
  truncated_contacts: number;
  /** constraint islands solved one by one (solve_islands); absent when the world was solved whole */
  islands?: number;
  /**
   * true when Newton started from the extrapolated v_n + (v_n − v_{n−1}) (warm start 'accelerated',
   * in at least one island) rather than from v_n; absent otherwise
   */
  extrapolated_start?: boolean;
  /** set when a non-finite value was found: the quantity's name (the world then keeps its input state) */
  nonfinite?: string;
  /**
   * the world's kinetic energy ½·vᵀM·v and potential energy (gravity, passive joint springs) after
   * the step [J] (`energy.ts`); set by Simulation and BackendSimulation
   */
  kinetic_energy?: number;
  potential_energy?: number;
}

/** wall time per stage [ms] */
export interface StageTiming {
  free_motion: number;
  constraints: number;
  solve: number;
  integrate: number;
  /** SolverSAP.step total (excludes collision) */
  total: number;
  /** collide() of the same step, set by Simulation (absent when the caller runs collision itself) */
  collision?: number;
}

/** the step's stages in pipeline order, as {@link StageTiming} names them */
export const STEP_STAGES = ['collision', 'free_motion', 'constraints', 'solve', 'integrate'] as const;
export type StepStage = (typeof STEP_STAGES)[number];

/** a wall time per stage, e.g. a mean over steps [ms] */
export type StageMs = Record<StepStage, number>;

export interface StepReport {
  /** the worst world status (invalid_input > line_search_failed > max_iterations > converged) */
  status: StepStatus;
  worlds: WorldReport[];
  iterations_mean: number;
  iterations_max: number;
  line_search_iterations: number;
  contact_count: number;
  truncated_contact_count: number;
  timing: StageTiming;
}

/** the more severe of two statuses */
export const worseStatus: (a: StepStatus, b: StepStatus) => StepStatus = worseSolveStatus;

/** names of {@link WorldReport}.nonfinite indexed by a world's DOFs, and their meanings */
const DOF_FIELDS: Record<string, string> = {
  v_star: 'free-motion velocity v*',
  v: 'solved velocity v',
};

/**
 * A world's `nonfinite` quantity with its joint named (e.g. "v_star[3] = NaN" → "joint 'hinge'
 * (world DOF 3): free-motion velocity v* = NaN"): the step reports world-relative indices into its
 * DOFs (v_star, v) or coordinates (q); other quantities come back unchanged.
 */
export function locateNonfinite(
  m: {
    joint_label: readonly string[];
    joint_qd_start: Int32Array;
    joint_q_start: Int32Array;
    world_joint_start: Int32Array;
    world_dof_start: Int32Array;
    world_coord_start: Int32Array;
  },
  world: number,
  quantity: string,
): string {
  const hit = /^(v_star|v|q)\[(\d+)\] = (.*)$/.exec(quantity);
  if (!hit) return quantity;
  const coords = hit[1] === 'q';
  const start = coords ? m.joint_q_start : m.joint_qd_start;
  const i = Number(hit[2]) + (coords ? m.world_coord_start : m.world_dof_start)[world];
  let j = m.world_joint_start[world];
  while (j + 1 < m.world_joint_start[world + 1] && start[j + 1] <= i) j++;
  const what = coords ? 'position coordinate q' : DOF_FIELDS[hit[1]];
  return `joint '${m.joint_label[j]}' (${coords ? 'coordinate' : 'DOF'} ${i - start[j]} of it): ${what} = ${hit[3]}`;
}
