/**
 * Preset ablation (SPEC §3.8).
 *
 * One-step: from the same (q_n, v_n, contacts) solve one step with approx32, approx64 and drake (each
 * Newton solve starts from its own free-motion v*, so a converged warm start cannot hide the
 * difference) and report Δprecision = ‖v(approx64) − v(approx32)‖ and Δmodel = ‖v(drake) − v(approx64)‖ over the
 * public joint velocities (2-norm over all DOFs, per world, and max-abs).
 * Trajectory: three shadow simulations from a shared start; ‖q‖ and ‖v‖ divergence over time.
 */
import type { SapContacts } from '../collision/contacts';
import type { SapModel } from '../model';
import { allocState, cloneState, copyControl, type SapControl, type SapState } from '../state';
import { SolverSAP } from './step';
import { Simulation } from './simulation';

export const ABLATION_PRESETS = ['approx32', 'approx64', 'drake'] as const;

export interface DeltaNorms {
  /** 2-norm over all DOFs of all worlds */
  norm: number;
  /** per-world 2-norms */
  per_world: number[];
  /** max-abs entry */
  max_abs: number;
}

export interface OneStepAblation {
  delta_precision: DeltaNorms;
  delta_model: DeltaNorms;
}

/** norms of a − b over per-world ranges given by `starts` (num_worlds + 1 offsets) */
export function deltaNorms(a: Float64Array, b: Float64Array, starts: Int32Array): DeltaNorms {
  const per: number[] = [];
  let total = 0,
    maxAbs = 0;
  for (let w = 0; w + 1 < starts.length; w++) {
    let s = 0;
    for (let i = starts[w]; i < starts[w + 1]; i++) {
      const d = a[i] - b[i];
      s += d * d;
      maxAbs = Math.max(maxAbs, Math.abs(d));
    }
    per.push(Math.sqrt(s));
    total += s;
  }
  return { norm: Math.sqrt(total), per_world: per, max_abs: maxAbs };
}

/** reusable one-step ablation: three solvers sharing the model */
export class OneStepAblator {
  private readonly solvers: SolverSAP[];
  private readonly outs: SapState[];

  constructor(
    readonly model: SapModel,
    base: Record<string, unknown> = {},
  ) {
    this.solvers = ABLATION_PRESETS.map((p) => {
      const solver = new SolverSAP(model, { ...stripModeKeys(base), contact_preset_variant: p });
      // cold start from v*: a warm start that already meets the tolerance returns v_n for every preset
      solver.warm_start = 'free_motion';
      return solver;
    });
    this.outs = ABLATION_PRESETS.map(() => allocState(model));
  }

  /** solves one step of dt from `state` with each preset; `contacts` must come from collide(state) */
  run(state: SapState, control: SapControl, contacts: SapContacts, dt: number): OneStepAblation {
    for (let k = 0; k < 3; k++) this.solvers[k].step(state, this.outs[k], control, contacts, dt);
    const [v32, v64, vd] = this.outs.map((s) => s.joint_qd);
    return {
      delta_precision: deltaNorms(v64, v32, this.model.world_dof_start),
      delta_model: deltaNorms(vd, v64, this.model.world_dof_start),
    };
  }
}

/** keeps solver tolerances and line-search settings but drops keys a preset sets */
function stripModeKeys(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const presetKeys = new Set([
    'contact_preset_variant',
    'contact_weight_mode',
    'contact_point_mode',
    'position_integration',
    'use_f64_boundary_pose',
    'free_motion_solve_precision',
    'contact_solve_precision',
    'contact_linear_solve_precision',
    'sap_contact_weight_precision',
    'line_search_relative_slop',
  ]);
  for (const [k, v] of Object.entries(o)) if (!presetKeys.has(k)) out[k] = v;
  return out;
}

export interface TrajectorySample {
  time: number;
  q_divergence: { precision: number; model: number };
  v_divergence: { precision: number; model: number };
}

/** three shadow simulations (approx32, approx64, drake) from a shared start */
export class TrajectoryAblator {
  readonly sims: Simulation[];

  /**
   * @param base  solver options (preset-derived keys are dropped: each shadow takes its preset's)
   * @param start  shared start state (default: the model's initial state)
   * @param max_rigid_contact  contact slots per world (default: the solver option), e.g. those of
   *   a live simulation the shadows run beside
   */
  constructor(
    readonly model: SapModel,
    dt: number,
    base: Record<string, unknown> = {},
    start?: SapState,
    max_rigid_contact?: number,
  ) {
    this.sims = ABLATION_PRESETS.map((p) => {
      const sim = new Simulation(model, {
        dt,
        solver: { ...stripModeKeys(base), contact_preset_variant: p },
        max_rigid_contact,
      });
      if (start) sim.state = cloneState(start);
      return sim;
    });
  }

  /**
   * steps all three once and returns the divergence at the new time; `control`, when given, is
   * copied into every shadow first (the live simulation's control inputs)
   */
  step(control?: SapControl): TrajectorySample {
    if (control) for (const s of this.sims) copyControl(control, s.control);
    for (const s of this.sims) s.step();
    const [a, b, c] = this.sims.map((s) => s.state);
    const m = this.model;
    return {
      time: b.time,
      q_divergence: {
        precision: deltaNorms(b.joint_q, a.joint_q, m.world_coord_start).norm,
        model: deltaNorms(c.joint_q, b.joint_q, m.world_coord_start).norm,
      },
      v_divergence: {
        precision: deltaNorms(b.joint_qd, a.joint_qd, m.world_dof_start).norm,
        model: deltaNorms(c.joint_qd, b.joint_qd, m.world_dof_start).norm,
      },
    };
  }
}
