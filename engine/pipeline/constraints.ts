/**
 * Stage 3 of the step, constraints (SPEC §3.2): one world's packed SAP problem — a clique per tree
 * with its free-motion matrix A, then the contacts, joint limits, PD drives and dry friction,
 * equalities, fixed and spatial tendon limits and ball-joint cone limits.
 */
import type { SapContacts } from '../collision/contacts';
import type { KinematicsData } from '../kinematics';
import type { SapModel } from '../model';
import type { SapSolverOptions } from '../sap/options';
import type { SapControl, SapState } from '../state';
import { packConeLimits } from './cone_limits';
import { packContactConstraints } from './contact_jacobian';
import { packEqualityConstraints } from './equality_constraints';
import { packJointConstraints } from './joint_constraints';
import type { SapData } from './sap_data';
import { packTendonConstraints } from './tendon_constraints';
import { packSpatialTendonLimits } from './transmissions';

/**
 * Packs world w's SAP problem into d.problem (reset to dt [s]) from the free motion in d (tree_A,
 * v*) and the contacts of w read at the kinematics `kinC` (the boundary stage's); the contact
 * records go to d.contact_records. `trackJointEfforts` records each joint constraint's rows in
 * d.joint_rows (for the joint efforts); `trackIslands` labels the world's islands into d.body_island.
 */
export function constraintStage(
  m: SapModel,
  d: SapData,
  o: SapSolverOptions,
  w: number,
  state_in: SapState,
  control: SapControl,
  contacts: SapContacts,
  kinC: KinematicsData,
  dt: number,
  trackJointEfforts: boolean,
  trackIslands: boolean,
): void {
  const pp = d.problem;
  const q = state_in.joint_q;
  pp.reset(dt);
  for (let t = m.world_tree_start[w]; t < m.world_tree_start[w + 1]; t++) {
    const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
    if (nv === 0) continue;
    d.clique_index[t] = pp.addClique(nv, d.tree_A[t]);
  }
  pp.v_star = d.v_star_world[w];
  const cl = d.clique_index;
  packContactConstraints(m, kinC, contacts, w, o, d.contact_stage, cl, pp, d.contact_records);
  const j0 = m.world_joint_start[w],
    j1 = m.world_joint_start[w + 1];
  const rows = trackJointEfforts ? d.joint_rows : null;
  packJointConstraints(m, j0, j1, q, d.v_n, d.v_star, control, dt, cl, pp, rows);
  if (m.eq_count > 0) packEqualityConstraints(m, d.kin, q, w, cl, pp);
  if (m.tendon_count > 0) packTendonConstraints(m, w, q, d.v_n, d.v_star, dt, cl, pp);
  if (m.spatial_count > 0) {
    const J = d.transmission_J;
    packSpatialTendonLimits(m, d.kin, w, d.v_n, d.v_star, dt, cl, pp, J);
  }
  if (d.has_cone_limits) packConeLimits(m, w, q, d.v_n, d.v_star, dt, cl, pp);
  if (trackIslands) labelIslands(m, d, w);
}

/** d.body_island of world w from its packed problem */
function labelIslands(m: SapModel, d: SapData, w: number): void {
  const isl = d.island_labels;
  const n = isl.find(d.problem);
  for (let t = m.world_tree_start[w]; t < m.world_tree_start[w + 1]; t++) {
    const nv = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
    const c = nv === 0 ? -1 : d.clique_index[t];
    const k = n > 0 && c >= 0 ? isl.cliqueIsland[c] : -1;
    for (let b = m.tree_joint_start[t]; b < m.tree_joint_start[t + 1]; b++) d.body_island[b] = k;
  }
}
