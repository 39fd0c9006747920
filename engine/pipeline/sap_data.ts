/**
 * SapData: the per-step working arrays of the SAP time step (like MuJoCo's mjData beside mjModel),
 * made from a model once and reused by every step, so a step allocates nothing of its own.
 *
 * Velocities are internal generalized velocities (engine/kinematics: free joints (ω; v) of the
 * joint frame origin in world) [rad/s, m/s], indexed by DOF; coordinates are joint_q's layout
 * [rad, m, quaternion]. Per-world views are subarrays over the world's DOF range
 * (model.world_dof_start), so they alias the whole-model arrays.
 */
import { makeCompositeScratch, makeRneaScratch } from '../dynamics';
import { makeKinematicsData, type KinematicsData } from '../kinematics';
import type { SapModel } from '../model';
import { SapIslands } from '../sap/islands';
import { PackedSapProblem } from '../sap/packed_problem';
import {
  makeContactStageData,
  makePackedContactRecords,
  type ContactStageData,
  type PackedContactRecords,
} from './contact_jacobian';
import { makeFreeMotionScratch, type FreeMotionScratch } from './free_motion';
import { JOINT_ROWS_STRIDE } from './joint_constraints';
import { WarmStartHistory } from './warm_start';

/** the working arrays of one {@link SapStepper} (see the file comment for units and layout) */
export class SapData {
  /** forward kinematics at q_n during a step, at q_{n+1} after it (see {@link kin_q}) */
  readonly kin: KinematicsData;
  /**
   * joint_q whose forward kinematics `kin` holds; the next step's FK at q_n is skipped when its
   * joint_q is bitwise the same (forwardKinematics is a pure function of q)
   */
  readonly kin_q: Float64Array;
  /** whether {@link kin_q} is set */
  kin_q_valid = false;
  /**
   * forward kinematics of the boundary pose that contact preparation reads: joint_q rounded to
   * fp32 unless use_f64_boundary_pose (then contact preparation reads `kin`), only of the joints
   * flagged in {@link kin_contact_joints}
   */
  readonly kin_contact: KinematicsData;
  /** (joint_coord_count) the rounded joint_q that `kin_contact` holds */
  readonly kin_contact_q: Float64Array;
  /** whether {@link kin_contact_q} is set */
  kin_contact_q_valid = false;
  /** (joint_count) flags: the joints whose kinematics contact preparation needs this step */
  readonly contact_joints: Uint8Array;
  /** (joint_count) flags: the joints `kin_contact` holds at kin_contact_q */
  readonly kin_contact_joints: Uint8Array;
  /** (joint_coord_count) scratch: joint_q rounded to fp32 */
  readonly q_round: Float64Array;

  /** free-motion scratch (bias forces, Cholesky factors, RNEA and CRBA scratch) */
  readonly free_motion: FreeMotionScratch;
  /** per tree: A = M + dt·D, (nv_t × nv_t) row-major [kg·m², kg·m, kg] */
  readonly tree_A: Float64Array[];
  /** (num_worlds) flags: a tree of the world had a free-motion matrix that is not positive definite */
  readonly free_motion_failed: Uint8Array;
  /** (joint_dof_count) internal generalized forces τ_applied of the free motion [N·m or N] */
  readonly tau: Float64Array;
  /** (joint_dof_count) scratch: a spatial tendon's or length actuator's Jacobian ∂l/∂v [m or 1] */
  readonly transmission_J: Float64Array;

  /** (joint_dof_count) v_n, the step's start velocities */
  readonly v_n: Float64Array;
  /** (joint_dof_count) v*, the free-motion velocities */
  readonly v_star: Float64Array;
  /** (joint_dof_count) v_{n+1}, the solved velocities */
  readonly v_next: Float64Array;
  /** (joint_dof_count) v̄, the velocity the positions integrate with (midpoint or v_{n+1}) */
  readonly v_bar: Float64Array;
  /** (joint_dof_count) the extrapolated Newton start v_n + (v_n − v_{n−1}) (warm_start.ts) */
  readonly v_alt: Float64Array;
  /** (num_worlds) flags: this step continues the last one and v_alt holds its extrapolation */
  readonly extrapolated: Uint8Array;
  /** the last step's start velocities and end state, for the extrapolated start */
  readonly history: WarmStartHistory;
  /** per world: views of v_n, v*, v_{n+1} and v_alt over its DOFs */
  readonly v_n_world: Float64Array[] = [];
  readonly v_star_world: Float64Array[] = [];
  readonly v_next_world: Float64Array[] = [];
  readonly v_alt_world: Float64Array[] = [];

  /** the packed SAP problem of the world being solved (reset per world) */
  readonly problem = new PackedSapProblem();
  /** per tree: its clique in `problem`, −1 for a tree without DOFs */
  readonly clique_index: Int32Array;
  /** contact preparation's constants (inverse body inertias) */
  readonly contact_stage: ContactStageData;
  /** the packed contact constraints of the world being solved (frames, points, buffer slots) */
  readonly contact_records: PackedContactRecords = makePackedContactRecords();
  /** whether any ball joint has a cone limit (cone_limits.ts) */
  readonly has_cone_limits: boolean;

  /**
   * (body_count) the constraint island of each body in the last step (when tracked): its index
   * within its world, −1 where no constraint touches the body's tree
   */
  readonly body_island: Int32Array;
  /** island labelling scratch */
  readonly island_labels = new SapIslands();
  /**
   * (joint_dof_count × 3) the last step's constraint efforts per DOF (when tracked): limit, PD
   * drive, dry friction [N·m or N]
   */
  readonly joint_effort: Float64Array;
  /** (joint_dof_count × JOINT_ROWS_STRIDE) the constraint rows of each DOF's joint constraints */
  readonly joint_rows: Int32Array;

  constructor(model: SapModel) {
    const nv = model.joint_dof_count,
      nq = model.joint_coord_count;
    this.kin = makeKinematicsData(model);
    this.kin_q = new Float64Array(nq);
    this.kin_contact = makeKinematicsData(model);
    this.kin_contact_q = new Float64Array(nq);
    this.contact_joints = new Uint8Array(model.joint_count);
    this.kin_contact_joints = new Uint8Array(model.joint_count);
    this.q_round = new Float64Array(nq);
    this.free_motion = makeFreeMotionScratch(model, makeRneaScratch(model), makeCompositeScratch(model));
    this.tree_A = [];
    for (let t = 0; t < model.tree_count; t++) {
      const n = model.tree_dof_start[t + 1] - model.tree_dof_start[t];
      this.tree_A.push(new Float64Array(n * n));
    }
    this.free_motion_failed = new Uint8Array(model.num_worlds);
    this.tau = new Float64Array(nv);
    this.transmission_J = new Float64Array(nv);
    this.v_n = new Float64Array(nv);
    this.v_star = new Float64Array(nv);
    this.v_next = new Float64Array(nv);
    this.v_bar = new Float64Array(nv);
    this.v_alt = new Float64Array(nv);
    this.extrapolated = new Uint8Array(model.num_worlds);
    this.history = new WarmStartHistory(model);
    for (let w = 0; w < model.num_worlds; w++) {
      const d0 = model.world_dof_start[w],
        d1 = model.world_dof_start[w + 1];
      this.v_n_world.push(this.v_n.subarray(d0, d1));
      this.v_star_world.push(this.v_star.subarray(d0, d1));
      this.v_next_world.push(this.v_next.subarray(d0, d1));
      this.v_alt_world.push(this.v_alt.subarray(d0, d1));
    }
    this.clique_index = new Int32Array(model.tree_count).fill(-1);
    this.contact_stage = makeContactStageData(model);
    this.has_cone_limits = model.joint_cone_mode.some((c) => c !== 0);
    this.body_island = new Int32Array(model.body_count).fill(-1);
    this.joint_effort = new Float64Array(nv * 3);
    this.joint_rows = new Int32Array(nv * JOINT_ROWS_STRIDE).fill(-1); // (sides: unread)
  }
}
