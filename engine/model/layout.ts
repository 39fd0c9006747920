/**
 * GPU layout table: every GPU-visible field is declared once here (name, arena, scalar type, width,
 * count symbol). `scripts/gen_gpu.ts` generates from it
 *   - `shaders/generated/layout.wgsl`: the bindings, the `Layout` uniform struct (step parameters
 *     and one element offset per field) and `get_<field>` / `set_<field>` accessors;
 *   - `engine/model/layout_views.ts`: offsets, arena sizes and typed-array views for the host.
 * A unit test fails when the generated files are stale.
 *
 * Arenas (WebGPU allows 8 storage buffers per stage by default, so fields are packed, not bound one
 * buffer each):
 *
 *   @group(0) model_d  array<vec2<f32>>  read        model constants, df64 (hi, lo)
 *   @group(0) model_i  array<i32>        read        model indices and flags
 *   @group(1) input_d  array<vec2<f32>>  read        per-step inputs (state, control, contacts)
 *   @group(1) input_i  array<i32>        read
 *   @group(2) data_d   array<vec2<f32>>  read_write  derived per-step data and outputs
 *   @group(2) data_i   array<i32>        read_write
 *   @group(2) counters array<atomic<u32>> read_write  host-visible counters (active worlds)
 *   @group(3) L        uniform Layout                step parameters + field offsets
 *
 *   arena:  | field a (count_a × width_a) | field b (count_b × width_b) | …
 *            ^ L.o_a                        ^ L.o_b        (offsets in elements of the arena)
 *
 * df64 fields hold values as an unevaluated sum of two f32 (SPEC §3.7); a field realized in fp32
 * (an fp32 precision knob) stores (x, 0). Element i, component k of a field of width W lives at
 * offset + i·W + k. Counts: see {@link LayoutCountSymbol}.
 */

/**
 * constraint rows the GPU keeps per DOF (kernels/sap_constraints.wgsl): lower limit, upper limit,
 * PD drive, joint friction
 */
export const DOF_ROWS = 4;

/** arena of a field */
export type LayoutArena = 'model' | 'input' | 'data';
/** scalar type: df64 (two f32 per element) or i32 */
export type LayoutScalar = 'df64' | 'i32';

/**
 * count symbols (number of elements of a field):
 * body/joint/dof/coord/tree/world/slot: model counts and contact slots (num_worlds × capacity);
 * `*1`: count + 1 (start offsets); one: 1; tree_A: Σ_t nv_t²; world_H: Σ_w nv_w²;
 * row: constraint rows (3·slots + DOF_ROWS·dof); gslot: constraint Hessian entries (9·slots + DOF_ROWS·dof);
 * slot_J: contact Jacobian entries (slots × 2 blocks × 3 rows × max tree nv);
 * cost: num_worlds × (max_iterations + 1);
 * eq/eq1: equality slots (+1): the model's equality constraints and its fixed tendons, per world
 * in the reference's order (a world's equalities, then its tendons; `packModel`); eq_J: their
 * Jacobian entries (eq × 2 blocks × 6 rows × max tree nv). The row and gslot counts end with 6
 * entries per slot (after every world's contact and DOF rows). tendon_e: fixed-tendon entries.
 * shape: shapes; cpair: GPU-collision candidate pairs (all worlds); cpslot: cpair × CP_MAX points.
 */
export type LayoutCountSymbol =
  | 'one'
  | 'body'
  | 'joint'
  | 'joint1'
  | 'dof'
  | 'coord'
  | 'tree'
  | 'tree1'
  | 'world'
  | 'world1'
  | 'slot'
  | 'slot_J'
  | 'tree_A'
  | 'world_H'
  | 'row'
  | 'gslot'
  | 'cost'
  | 'eq'
  | 'eq1'
  | 'eq_J'
  | 'tendon_e'
  | 'shape'
  | 'cpair'
  | 'cpslot';

export interface LayoutField {
  name: string;
  arena: LayoutArena;
  type: LayoutScalar;
  width: number;
  count: LayoutCountSymbol;
  /** shape and units, as in SapModel's comments */
  doc: string;
}

const f = (
  name: string,
  arena: LayoutArena,
  type: LayoutScalar,
  width: number,
  count: LayoutCountSymbol,
  doc: string,
): LayoutField => ({ name, arena, type, width, count, doc });

/** the GPU layout table (order = order in the arenas) */
export const GPU_LAYOUT: readonly LayoutField[] = [
  // model indices (model_i)
  f('joint_type', 'model', 'i32', 1, 'joint', 'JointType'),
  f('joint_parent', 'model', 'i32', 1, 'joint', 'parent body, -1 for the world'),
  f('joint_tree', 'model', 'i32', 1, 'joint', 'tree index'),
  f('joint_q_start', 'model', 'i32', 1, 'joint1', 'offsets into joint_q'),
  f('joint_qd_start', 'model', 'i32', 1, 'joint1', 'offsets into joint_qd and per-DOF arrays'),
  f('tree_joint_start', 'model', 'i32', 1, 'tree1', 'joint (= body) ranges'),
  f('tree_dof_start', 'model', 'i32', 1, 'tree1', 'DOF ranges'),
  f('tree_world', 'model', 'i32', 1, 'tree', 'world of each tree'),
  f('tree_A_start', 'model', 'i32', 1, 'tree1', 'offsets of the nv_t × nv_t blocks in tree_A'),
  f('world_joint_start', 'model', 'i32', 1, 'world1', 'joint (= body) ranges'),
  f('world_dof_start', 'model', 'i32', 1, 'world1', 'DOF ranges'),
  f('world_coord_start', 'model', 'i32', 1, 'world1', 'joint_q ranges'),
  f('world_tree_start', 'model', 'i32', 1, 'world1', 'tree ranges'),
  f('world_H_start', 'model', 'i32', 1, 'world1', 'offsets of the nv_w × nv_w Newton matrices'),
  f('dof_public', 'model', 'i32', 1, 'dof', 'public index of an internal DOF (free joints swap blocks)'),
  f('dof_drive', 'model', 'i32', 1, 'dof', '1 when the DOF carries a PD drive'),
  f('dof_limit', 'model', 'i32', 1, 'dof', '1 when the DOF is a 1-DOF joint with limit_ke > 0'),
  f('dof_joint', 'model', 'i32', 1, 'dof', 'joint of each DOF'),
  f('dof_tree', 'model', 'i32', 1, 'dof', 'tree of each DOF'),
  f('eq_type', 'model', 'i32', 1, 'eq', 'EqualityType (coupler, ball, weld), 3 fixed tendon, 4 cone limit'),
  f('eq_body', 'model', 'i32', 2, 'eq', 'body0, body1 (ball, weld; -1 the world)'),
  f('eq_joint', 'model', 'i32', 2, 'eq', 'joint0, joint1 (coupler); joint0 the ball joint (cone limit)'),
  f('world_eq_start', 'model', 'i32', 1, 'world1', 'equality slot ranges (slots are sorted by world)'),
  f(
    'eq_entries',
    'model',
    'i32',
    2,
    'eq',
    'tendon slots: range [start, end) of their tendon entries; cone slots: ConeMode, 0',
  ),
  f('tendon_joint', 'model', 'i32', 1, 'tendon_e', '1-DOF joint of each tendon entry'),
  // model constants (model_d)
  f('gravity', 'model', 'df64', 3, 'one', '[m/s²]'),
  f('body_mass', 'model', 'df64', 1, 'body', '[kg]'),
  f('body_com', 'model', 'df64', 3, 'body', 'COM in the body frame [m]'),
  f('body_inertia', 'model', 'df64', 9, 'body', 'inertia about the COM, body frame [kg·m²]'),
  f('body_gravcomp', 'model', 'df64', 1, 'body', 'gravity compensation: force −gravcomp·m·g at the COM [1]'),
  f('body_inv_inertia', 'model', 'df64', 9, 'body', 'its inverse (0 when singular) [1/(kg·m²)]'),
  f('joint_X_p', 'model', 'df64', 7, 'joint', 'joint frame in the parent frame'),
  f('joint_X_c', 'model', 'df64', 7, 'joint', 'joint frame in the child frame'),
  f('joint_X_c_inv', 'model', 'df64', 7, 'joint', 'its inverse'),
  f('joint_axis', 'model', 'df64', 3, 'joint', 'unit axis in the joint frame'),
  f('joint_armature', 'model', 'df64', 1, 'dof', 'public order [kg·m² or kg]'),
  f('joint_damping', 'model', 'df64', 1, 'dof', 'public order [N·m·s/rad or N·s/m]'),
  f('joint_stiffness', 'model', 'df64', 1, 'dof', 'passive spring k [N·m/rad or N/m]'),
  f('joint_spring_ref', 'model', 'df64', 1, 'dof', 'its rest position [rad or m]'),
  f('joint_limit_lower', 'model', 'df64', 1, 'dof', '[rad or m]; ±1e30 stands for ±∞'),
  f('joint_limit_upper', 'model', 'df64', 1, 'dof', '[rad or m]; ±1e30 stands for ±∞'),
  f('joint_limit_inv_ke', 'model', 'df64', 1, 'dof', '1/limit_ke (0 for an infinite stiffness)'),
  f('joint_limit_tau_d', 'model', 'df64', 1, 'dof', 'limit_kd/limit_ke [s]'),
  f('joint_target_ke', 'model', 'df64', 1, 'dof', 'PD stiffness'),
  f('joint_target_kd', 'model', 'df64', 1, 'dof', 'PD damping'),
  f('joint_effort_limit', 'model', 'df64', 1, 'dof', 'effort limit; 1e30 stands for ∞'),
  f('dof_friction', 'model', 'df64', 1, 'dof', 'dry-friction bound τ_c of a 1-DOF joint [N·m or N], 0 none'),
  f('eq_anchor', 'model', 'df64', 6, 'eq', 'anchor0, anchor1 in the body frames (world for -1) [m]'),
  f('eq_relpose', 'model', 'df64', 7, 'eq', 'weld: target pose of body1 in the anchor0 frame'),
  f('eq_coupler', 'model', 'df64', 2, 'eq', 'coupler ratio ρ, offset Δq'),
  f('eq_inv_k', 'model', 'df64', 1, 'eq', '1/stiffness (0 for a rigid constraint)'),
  f('eq_tau', 'model', 'df64', 1, 'eq', 'relaxation time τ [s]'),
  f(
    'eq_limit',
    'model',
    'df64',
    3,
    'eq',
    'tendon slots: lower, upper (±1e30 for ±∞), length offset; cone slots: the cone angles [rad], 0',
  ),
  f('tendon_coef', 'model', 'df64', 1, 'tendon_e', '∂l/∂q of each tendon entry'),
  // per-step inputs (input_d, input_i)
  f('joint_q', 'input', 'df64', 1, 'coord', 'state_in.joint_q'),
  f('joint_qd', 'input', 'df64', 1, 'dof', 'state_in.joint_qd (public convention)'),
  f('body_f', 'input', 'df64', 6, 'body', 'external wrench (f; τ_C), world'),
  f('joint_f', 'input', 'df64', 1, 'dof', 'control: feed-forward effort'),
  f('joint_target_pos', 'input', 'df64', 1, 'dof', 'control: PD position targets'),
  f('joint_target_vel', 'input', 'df64', 1, 'dof', 'control: PD velocity targets'),
  f('contact_point0', 'input', 'df64', 3, 'slot', 'witness on shape 0, body frame [m]'),
  f('contact_point1', 'input', 'df64', 3, 'slot', 'witness on shape 1, body frame [m]'),
  f('contact_normal', 'input', 'df64', 3, 'slot', 'unit normal from shape 0 into shape 1, world'),
  f('contact_phi0', 'input', 'df64', 1, 'slot', 'signed gap φ₀ [m]'),
  f('contact_inv_ke', 'input', 'df64', 1, 'slot', '1/k of the combined stiffness (0 for ∞) [m/N]'),
  f('contact_tau', 'input', 'df64', 1, 'slot', 'τ_d [s]'),
  f('contact_mu', 'input', 'df64', 1, 'slot', 'combined friction'),
  f('contact_alpha0', 'input', 'df64', 1, 'slot', 'midpoint weight k₀/(k₀+k₁) (½ if undefined)'),
  f('contact_count', 'input', 'i32', 1, 'world', 'contacts per world'),
  f('contact_body0', 'input', 'i32', 1, 'slot', 'body of shape 0, -1 static'),
  f('contact_body1', 'input', 'i32', 1, 'slot', 'body of shape 1, -1 static'),
  // kinematics at q_n (data_d)
  f('body_X', 'data', 'df64', 7, 'body', 'world pose of each body frame'),
  f('body_R', 'data', 'df64', 9, 'body', 'rotation matrix, row-major'),
  f('body_com_w', 'data', 'df64', 3, 'body', 'COM, world [m]'),
  f('body_I_w', 'data', 'df64', 9, 'body', 'inertia about the COM, world [kg·m²]'),
  f('joint_X_wF', 'data', 'df64', 7, 'joint', 'world pose of the parent-side joint frame'),
  f('joint_anchor', 'data', 'df64', 3, 'joint', 'world position of the child-side joint frame'),
  f('dof_S', 'data', 'df64', 6, 'dof', 'motion subspace column, world Plücker (ω; v₀)'),
  f('body_V', 'data', 'df64', 6, 'body', 'spatial velocity (ω; v₀)'),
  f('body_c', 'data', 'df64', 6, 'body', 'velocity-product acceleration'),
  // kinematics for contacts (q rounded to fp32 unless use_f64_boundary_pose)
  f('cbody_X', 'data', 'df64', 7, 'body', 'contact-stage body poses'),
  f('cbody_R', 'data', 'df64', 9, 'body', 'contact-stage rotation matrices'),
  f('cbody_com_w', 'data', 'df64', 3, 'body', 'contact-stage COM [m]'),
  f('cdof_S', 'data', 'df64', 6, 'dof', 'contact-stage motion subspaces'),
  f('cjoint_X_wF', 'data', 'df64', 7, 'joint', 'contact-stage joint frames (scratch)'),
  // boundary
  f('v_n', 'data', 'df64', 1, 'dof', 'internal velocities at t_n'),
  f('v_prev', 'data', 'df64', 1, 'dof', 'v_n of the last step (the accelerated warm start)'),
  f('tau', 'data', 'df64', 1, 'dof', 'internal applied forces (0 on driven DOFs)'),
  // free motion
  f('composite', 'data', 'df64', 13, 'body', 'composite spatial inertia (m, h, I₀)'),
  f('rnea_A', 'data', 'df64', 6, 'body', 'RNEA accelerations'),
  f('rnea_f', 'data', 'df64', 6, 'body', 'RNEA body forces'),
  f('bias', 'data', 'df64', 1, 'dof', 'C·v + g − Jᵀf_ext, internal order'),
  f('tree_A', 'data', 'df64', 1, 'tree_A', 'A = M + dt·D per tree, row-major'),
  f('tree_L', 'data', 'df64', 1, 'tree_A', 'Cholesky factor of A (free_motion_solve_precision)'),
  f('fm_rhs', 'data', 'df64', 1, 'dof', 'k, then A⁻¹k'),
  f('v_star', 'data', 'df64', 1, 'dof', 'free-motion velocities v*'),
  f('A_diag', 'data', 'df64', 1, 'dof', 'diagonal of A'),
  // contact constraints
  f('con_frame', 'data', 'df64', 9, 'slot', 'rows (t1, t2, n) of R_WCᵀ'),
  f('con_point', 'data', 'df64', 3, 'slot', 'world point of body 1 used by the Jacobian'),
  f('con_J', 'data', 'df64', 1, 'slot_J', 'per slot 2 blocks of 3 × nv_tree, row-major'),
  f('con_param', 'data', 'df64', 6, 'slot', 'μ, Rt, Rn, v̂n, μ̂, 1/(1+μ̃²)'),
  f('con_w', 'data', 'df64', 1, 'slot', 'Delassus weight estimate w'),
  // joint constraints
  f('lim_param', 'data', 'df64', 4, 'dof', 'R and v̂ of the lower, then the upper row'),
  f('pd_param', 'data', 'df64', 8, 'dof', 'dt, Kp, Kd, e, q₀, q_d, v_d, u₀'),
  f('fr_param', 'data', 'df64', 2, 'dof', 'joint friction: R = σ·w, γ_max = δt·τ_c'),
  // equality (holonomic) constraints
  f('eq_J', 'data', 'df64', 1, 'eq_J', 'per equality 2 blocks of 6 × nv_tree, row-major'),
  f('eq_param', 'data', 'df64', 12, 'eq', 'per row R, v̂'),
  f('eq_w', 'data', 'df64', 1, 'eq', 'diagonal-Delassus weight estimate w'),
  // SAP Newton (reduced vectors of world w start at world_dof_start[w])
  f('sap_v', 'data', 'df64', 1, 'dof', 'iterate v'),
  f('sap_vstar', 'data', 'df64', 1, 'dof', 'v*'),
  f('sap_dinv', 'data', 'df64', 1, 'dof', 'diag(A)^-1/2'),
  f('sap_Ar', 'data', 'df64', 1, 'dof', 'A(v − v*)'),
  f('sap_p', 'data', 'df64', 1, 'dof', 'A·v'),
  f('sap_jv', 'data', 'df64', 1, 'dof', 'Jᵀγ'),
  f('sap_grad', 'data', 'df64', 1, 'dof', '∇ℓ'),
  f('sap_dv', 'data', 'df64', 1, 'dof', 'Newton direction Δv'),
  f('sap_dp', 'data', 'df64', 1, 'dof', 'A·Δv'),
  f('sap_H', 'data', 'df64', 1, 'world_H', 'Newton matrix (lower), then its factor'),
  f('sap_vc', 'data', 'df64', 1, 'row', 'constraint velocities'),
  f('sap_dvc', 'data', 'df64', 1, 'row', 'J·Δv'),
  f('sap_gamma', 'data', 'df64', 1, 'row', 'impulses γ'),
  f('sap_G', 'data', 'df64', 1, 'gslot', 'constraint Hessians'),
  f('sap_scalar', 'data', 'df64', 8, 'world', 'ℓ, ℓ_prev, α, ℓ_A, Δpᵀ(v−v*), ΔvᵀAΔv, φ′(0), ℓ(v_n)'),
  f('sap_start', 'data', 'i32', 1, 'world', 'warm start: 0 v_n, 1/2 v_n/alt evaluated, 3 alt, 4 v_n'),
  f('sap_cost', 'data', 'df64', 1, 'cost', 'cost per Newton iteration'),
  // outputs
  f('v_next', 'data', 'df64', 1, 'dof', 'internal velocities at t_{n+1}'),
  f('q_out', 'data', 'df64', 1, 'coord', 'state_out.joint_q'),
  f('qd_out', 'data', 'df64', 1, 'dof', 'state_out.joint_qd'),
  f('body_q_out', 'data', 'df64', 7, 'body', 'state_out.body_q'),
  f('body_qd_out', 'data', 'df64', 6, 'body', 'state_out.body_qd'),
  f('con_force', 'data', 'df64', 3, 'slot', 'force on body 1, world [N]'),
  f(
    'dof_effort',
    'data',
    'df64',
    3,
    'dof',
    'joint-constraint efforts of a 1-DOF joint: limit, PD drive, dry friction [N·m or N]; 0 elsewhere',
  ),
  // data indices and flags (data_i)
  f('tree_fm_bad', 'data', 'i32', 1, 'tree', '1 when A of the tree is not positive definite'),
  f('tree_red', 'data', 'i32', 1, 'tree', 'offset of the tree in its world Newton system, -1'),
  f('red_dof', 'data', 'i32', 1, 'dof', 'global DOF of reduced index r (at world_dof_start + r)'),
  f('con_tree', 'data', 'i32', 2, 'slot', 'trees of the Jacobian blocks, -1'),
  f(
    'con_active',
    'data',
    'i32',
    1,
    'slot',
    '0 empty, 1 constraint, 2 invalid parameters, 3 both bodies static',
  ),
  f('con_slip', 'data', 'i32', 1, 'slot', 'ContactSlip'),
  f('lim_rows', 'data', 'i32', 1, 'dof', 'limit rows: bit 0 lower, bit 1 upper'),
  f('pd_active', 'data', 'i32', 1, 'dof', '1 when the DOF has a PD constraint'),
  f('fr_active', 'data', 'i32', 1, 'dof', '1 when the DOF has a joint-friction constraint'),
  f('eq_tree', 'data', 'i32', 2, 'eq', 'trees of the Jacobian blocks, -1'),
  f('eq_active', 'data', 'i32', 1, 'eq', '0 no participating tree, 1 constraint, 2 invalid parameters'),
  f('world_i', 'data', 'i32', 8, 'world', 'nvp, status, active, iterations, ls iterations, -, -, -'),
  // GPU collision (engine/backends/webgpu/collision.ts, shaders/kernels/collision.wgsl)
  f('shape_type', 'model', 'i32', 1, 'shape', 'ShapeType'),
  f('shape_body', 'model', 'i32', 1, 'shape', 'body, -1 static'),
  f('cpair', 'model', 'i32', 4, 'cpair', 'shape 0, shape 1, world, routine (sorted by world, then shapes)'),
  f('world_cpair_start', 'model', 'i32', 1, 'world1', 'candidate pair ranges'),
  f('shape_X_bs', 'model', 'df64', 7, 'shape', 'shape frame in the body frame (world when static)'),
  f('shape_size', 'model', 'df64', 3, 'shape', 'size parameters [m]'),
  f('shape_infl', 'model', 'df64', 1, 'shape', 'margin + gap + AABB guard [m]'),
  f('cpair_d', 'model', 'df64', 8, 'cpair', 'm0, m1, m0+m1, g0+g1, 1/ke, tau, mu, alpha0'),
  f('pc_normal', 'data', 'df64', 3, 'cpslot', 'per pair point: normal, world'),
  f('pc_pa', 'data', 'df64', 3, 'cpslot', 'witness on shape 0, world [m]'),
  f('pc_pb', 'data', 'df64', 3, 'cpslot', 'witness on shape 1, world [m]'),
  f('pc_dist', 'data', 'df64', 1, 'cpslot', 'signed distance, margins excluded [m]'),
  f('gc_point0', 'data', 'df64', 3, 'slot', 'GPU contacts: copied to contact_point0'),
  f('gc_point1', 'data', 'df64', 3, 'slot', 'copied to contact_point1'),
  f('gc_normal', 'data', 'df64', 3, 'slot', 'copied to contact_normal'),
  f('gc_phi0', 'data', 'df64', 1, 'slot', 'copied to contact_phi0'),
  f('gc_inv_ke', 'data', 'df64', 1, 'slot', 'copied to contact_inv_ke'),
  f('gc_tau', 'data', 'df64', 1, 'slot', 'copied to contact_tau'),
  f('gc_mu', 'data', 'df64', 1, 'slot', 'copied to contact_mu'),
  f('gc_alpha0', 'data', 'df64', 1, 'slot', 'copied to contact_alpha0'),
  f('pc_count', 'data', 'i32', 1, 'cpair', 'points of each candidate pair (0: AABBs apart or none)'),
  f('pc_feature', 'data', 'i32', 1, 'cpslot', 'feature id of each pair point'),
  f('gc_count', 'data', 'i32', 1, 'world', 'copied to contact_count'),
  f('gc_body0', 'data', 'i32', 1, 'slot', 'copied to contact_body0'),
  f('gc_body1', 'data', 'i32', 1, 'slot', 'copied to contact_body1'),
  f('gc_shape', 'data', 'i32', 2, 'slot', 'shape 0, shape 1 of each contact'),
  f('gc_feature', 'data', 'i32', 1, 'slot', 'feature id of each contact'),
  f('gc_truncated', 'data', 'i32', 1, 'world', 'candidates dropped for lack of capacity'),
];

/**
 * Step parameters at the head of the `Layout` uniform, all 4-byte scalars; a df64 parameter is a
 * pair `<name>_hi`, `<name>_lo` with an accessor `P_<name>()`.
 */
export interface UniformParam {
  name: string;
  type: 'f32' | 'u32' | 'df64';
  doc: string;
}

const u = (name: string, type: UniformParam['type'], doc: string): UniformParam => ({ name, type, doc });

export const GPU_UNIFORMS: readonly UniformParam[] = [
  u('one', 'f32', '1.0, opaque to the compiler (df64 guard)'),
  u('num_worlds', 'u32', ''),
  u('tree_count', 'u32', ''),
  u('body_count', 'u32', ''),
  u('dof_count', 'u32', ''),
  u('slot_count', 'u32', 'num_worlds × capacity'),
  u('capacity', 'u32', 'contact slots per world'),
  u('max_tree_nv', 'u32', 'largest tree DOF count (Jacobian block stride)'),
  u('cost_stride', 'u32', 'max_iterations + 1'),
  u('weight_mode', 'u32', '0 body_inertia, 1 diag_delassus'),
  u('point_mode', 'u32', '0 witness_point, 1 contact_midpoint'),
  u('integration', 'u32', '0 midpoint, 1 sap_euler'),
  u('f64_pose', 'u32', 'use_f64_boundary_pose'),
  u('solve_fp32', 'u32', 'contact_solve_precision is fp32'),
  u('has_body_f', 'u32', '1 when any external wrench is set'),
  u('ls_variant', 'u32', '0 monotone_decay, 1 armijo_decay, 2 exact_root'),
  u('ls_max_iterations', 'u32', ''),
  u('max_iterations', 'u32', 'Newton iteration cap'),
  u('eq_count', 'u32', 'equality slots (equality constraints, fixed tendons and cone limits)'),
  u('extrapolate', 'u32', '1: the step continues the last one (accelerated warm start)'),
  u('dt', 'df64', 'time step [s]'),
  u('armijo_c', 'df64', ''),
  u('rho', 'df64', ''),
  u('ls_slop', 'df64', 'line_search_relative_slop'),
  u('cost_abs_tol', 'df64', ''),
  u('cost_rel_tol', 'df64', ''),
  u('opt_abs_tol', 'df64', 'optimality_abs_tol'),
  u('opt_rel_tol', 'df64', 'optimality_rel_tol'),
  u('contact_beta', 'df64', ''),
  u('contact_sigma', 'df64', ''),
  u('joint_friction_sigma', 'df64', 'joint friction regularization σ (R = σ·w)'),
];

/** stand-in for ±∞ in df64 model fields (WGSL may assume finite floats) */
export const GPU_INFINITY = 1e30;

/** element sizes in bytes */
export const LAYOUT_ELEMENT_BYTES: Record<LayoutScalar, number> = { df64: 8, i32: 4 };

/** the storage buffer (arena) a field lives in */
export function arenaOf(
  field: LayoutField,
): 'model_d' | 'model_i' | 'input_d' | 'input_i' | 'data_d' | 'data_i' {
  return `${field.arena}_${field.type === 'df64' ? 'd' : 'i'}`;
}
