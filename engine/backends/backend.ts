/**
 * The backend interface (SPEC §6): one SAP time step on some device. Collision runs before the
 * step, on the CPU (SapCollisionPipeline), and a backend consumes the contact buffer it produces —
 * unless the backend `collides_on_device` (WebGPU with primitive shapes), then step() collides and
 * fills the buffer itself.
 *
 *   const { backend, fallback } = await createBackend('webgpu', model, { solver, max_rigid_contact });
 *   if (fallback) console.warn(fallback);          // no adapter: CPU backend, with the reason
 *   const report = await backend.step(state, next, control, contacts, dt);
 *   backend.dispose();
 */
import type { SapContacts } from '../collision/contacts';
import type { SapModel } from '../model';
import type { StepReport } from '../pipeline/report';
import type { SapSolverOptions } from '../sap/options';
import type { SapControl, SapState } from '../state';
import type { WarmStart } from '../pipeline/warm_start';

export type BackendKind = 'cpu' | 'webgpu';

export interface BackendInitOptions {
  /** solver options (SPEC §3.6), validated and expanded */
  solver?: Record<string, unknown>;
  /** contact slots per world the step accepts (default: the solver's max_rigid_contact) */
  max_rigid_contact?: number;
  /**
   * where Newton starts (default 'accelerated', see engine/pipeline/warm_start.ts); the WebGPU
   * backend realizes 'accelerated' and 'previous'
   */
  warm_start?: WarmStart;
}

export interface Backend {
  readonly kind: BackendKind;
  /** device and realization, e.g. "webgpu: SwiftShader Device (Subzero); fp64 knobs as fp64 (df64)" */
  readonly description: string;
  /** the expanded options in force */
  readonly options: SapSolverOptions;
  /** where Newton starts */
  readonly warm_start: WarmStart;
  /** prepares the backend for a model (buffers, pipelines) */
  init(model: SapModel, opts?: BackendInitOptions): Promise<void>;
  /** replaces the solver options; applies from the next step */
  setOptions(solver: Record<string, unknown>): void;
  /** advances state_in by dt into state_out, using contacts from collide(state_in) */
  step(
    state_in: SapState,
    state_out: SapState,
    control: SapControl,
    contacts: SapContacts,
    dt: number,
  ): Promise<StepReport>;
  /** fills body_q and body_qd of a state from joint_q and joint_qd (forward kinematics) */
  updateBodyState(state: SapState): void;
  /** last solved internal velocities (all DOFs) */
  readonly last_velocity: Float64Array;
  /**
   * true when step() runs collision itself (on the device) and fills the contact buffer it is given:
   * the caller then skips the CPU pipeline (absent/false: collide on the CPU before every step)
   */
  readonly collides_on_device?: boolean;
  /** where collision runs and, when not on the device, why (e.g. "collision on the CPU: …") */
  readonly collision_info?: string;
  /**
   * read the joint constraints' impulses back after every step into {@link joint_effort}
   * (default false: a step does not spend the read-back)
   */
  track_joint_efforts: boolean;
  /**
   * (dof count × 3) the last step's constraint efforts per DOF of a revolute or prismatic joint:
   * limit, PD drive, dry friction [N·m or N] (0 elsewhere; not updated while not tracked)
   */
  readonly joint_effort: Float64Array;
  /** releases device resources */
  dispose(): void;
}

/** how each precision knob is realized by a backend, for reports and the UI */
export function precisionLabels(
  kind: BackendKind,
  o: Pick<
    SapSolverOptions,
    | 'free_motion_solve_precision'
    | 'contact_solve_precision'
    | 'contact_linear_solve_precision'
    | 'sap_contact_weight_precision'
  >,
): Record<string, string> {
  const label = (p: 'fp32' | 'fp64') => (p === 'fp32' ? 'fp32' : kind === 'webgpu' ? 'fp64 (df64)' : 'fp64');
  return {
    free_motion_solve_precision: label(o.free_motion_solve_precision),
    contact_solve_precision: label(o.contact_solve_precision),
    contact_linear_solve_precision: label(o.contact_linear_solve_precision),
    sap_contact_weight_precision: label(o.sap_contact_weight_precision),
  };
}
