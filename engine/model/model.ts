/** an image a textured mesh draws with, as its file holds it */
export interface ModelTexture {
  /** where it came from (a path) */
  label: string;
  /** 'image/jpeg', 'image/png', … */
  mime: string;
  /** the encoded file */
  bytes: Uint8Array;
}

/**
 * SapModel: the static description of a simulation, frozen after `ModelBuilder.finalize()`.
 *
 * Structure-of-arrays typed arrays over all replicated worlds (Newton's layout). Invariants the
 * engine relies on:
 * - joint j's child is body j (`body_count === joint_count`); every body has exactly one joint
 *   (bodies authored without one get a free joint at finalize);
 * - joints (hence bodies and DOFs) are sorted by world, then by tree, then parents before children;
 * - a tree is one kinematic tree rooted at a joint whose parent is the world; each tree is one clique
 *   of the dynamics matrix; its joints, bodies, q and qd entries are contiguous;
 * - shapes with `shape_world === -1` (the ground) are shared by every world.
 * Units are SI; poses are [px, py, pz, qx, qy, qz, qw].
 */

export interface SapModel {
  /** number of replicated worlds */
  readonly num_worlds: number;
  /** gravity vector (3) [m/s²] */
  readonly gravity: Float64Array;

  // bodies (body_count)
  readonly body_count: number;
  /** (body_count) [kg]; 0 for a massless body */
  readonly body_mass: Float64Array;
  /** (body_count × 3) centre of mass in the body frame [m] */
  readonly body_com: Float64Array;
  /** (body_count × 9) rotational inertia about the COM in the body frame, row-major [kg·m²] */
  readonly body_inertia: Float64Array;
  /**
   * (body_count) gravity compensation [1]: a force −gravcomp·m·g at the COM (MuJoCo's body
   * `gravcomp`, PhysX's `disableGravity` as 1); 0 none, 1 the body floats, above 1 it rises
   */
  readonly body_gravcomp: Float64Array;
  /** (body_count) world index */
  readonly body_world: Int32Array;
  /** (body_count) labels (the scene's ids / labels) */
  readonly body_label: readonly string[];

  // joints (joint_count === body_count)
  readonly joint_count: number;
  /** (joint_count) JointType */
  readonly joint_type: Int32Array;
  /** (joint_count) parent body, -1 for the world */
  readonly joint_parent: Int32Array;
  /** (joint_count) child body (=== joint index) */
  readonly joint_child: Int32Array;
  /** (joint_count × 7) joint frame in the parent body frame (world frame if parent is -1) */
  readonly joint_X_p: Float64Array;
  /** (joint_count × 7) joint frame in the child body frame */
  readonly joint_X_c: Float64Array;
  /** (joint_count × 3) unit axis in the joint frame (revolute, prismatic) */
  readonly joint_axis: Float64Array;
  /** (joint_count) ConeMode of a ball joint's limit; 0 (none) on every other joint */
  readonly joint_cone_mode: Int32Array;
  /**
   * (joint_count × 2) a ball joint's cone limits [rad], in (0, π] or Infinity (none on that axis):
   * ROTATION uses [0]; SWING [0] toward the next axis, [1] toward the one after (ConeMode). Their
   * stiffness and damping are the joint's first DOF's joint_limit_ke / joint_limit_kd.
   */
  readonly joint_cone_limit: Float64Array;
  /** (joint_count + 1) offsets into joint_q */
  readonly joint_q_start: Int32Array;
  /** (joint_count + 1) offsets into joint_qd and every per-DOF array */
  readonly joint_qd_start: Int32Array;
  /** (joint_count) world index */
  readonly joint_world: Int32Array;
  /** (joint_count) tree index */
  readonly joint_tree: Int32Array;
  readonly joint_label: readonly string[];

  // per-DOF data (joint_dof_count)
  readonly joint_coord_count: number;
  readonly joint_dof_count: number;
  /** (dof) reflected rotor inertia added to the diagonal of M [kg·m² or kg] */
  readonly joint_armature: Float64Array;
  /** (dof) viscous joint damping, treated implicitly (A = M + dt·D) [N·m·s/rad or N·s/m] */
  readonly joint_damping: Float64Array;
  /**
   * (dof) passive spring of a revolute or prismatic DOF, τ = −k·(q − q_ref), an explicit applied
   * force of the free motion like MuJoCo's joint stiffness (unlike a PD drive it has no effort
   * limit and is no SAP constraint) [N·m/rad or N/m]; 0 on other DOFs
   */
  readonly joint_stiffness: Float64Array;
  /** (dof) the spring's rest position q_ref [rad or m] */
  readonly joint_spring_ref: Float64Array;
  /** (dof) lower / upper limits [rad or m]; ±Infinity when unlimited */
  readonly joint_limit_lower: Float64Array;
  readonly joint_limit_upper: Float64Array;
  /** (dof) limit stiffness [N·m/rad or N/m] and damping [N·m·s/rad or N·s/m] */
  readonly joint_limit_ke: Float64Array;
  readonly joint_limit_kd: Float64Array;
  /** (dof) PD drive gains; a DOF with ke = kd = 0 has no drive */
  readonly joint_target_ke: Float64Array;
  readonly joint_target_kd: Float64Array;
  /** (dof) effort limit of PD + feed-forward together; Infinity when unlimited [N·m or N] */
  readonly joint_effort_limit: Float64Array;
  /** (dof) velocity limit (informational) */
  readonly joint_velocity_limit: Float64Array;
  /** (dof) world index */
  readonly dof_world: Int32Array;

  // trees (cliques)
  readonly tree_count: number;
  readonly tree_world: Int32Array;
  /** (tree_count + 1) joint (= body) ranges */
  readonly tree_joint_start: Int32Array;
  /** (tree_count + 1) DOF ranges */
  readonly tree_dof_start: Int32Array;

  // worlds
  /** (num_worlds + 1) joint (= body) ranges */
  readonly world_joint_start: Int32Array;
  /** (num_worlds + 1) DOF ranges */
  readonly world_dof_start: Int32Array;
  /** (num_worlds + 1) joint_q ranges */
  readonly world_coord_start: Int32Array;
  /** (num_worlds + 1) tree ranges */
  readonly world_tree_start: Int32Array;

  // shapes
  readonly shape_count: number;
  /** (shape_count) ShapeType */
  readonly shape_type: Int32Array;
  /** (shape_count) owning body, -1 for static world geometry */
  readonly shape_body: Int32Array;
  /** (shape_count) world index, -1 for geometry shared by every world (the ground) */
  readonly shape_world: Int32Array;
  /** (shape_count × 7) shape pose in its body frame (world frame when shape_body is -1) */
  readonly shape_X_bs: Float64Array;
  /** (shape_count × 3) size parameters, see ShapeType */
  readonly shape_size: Float64Array;
  /** (shape_count) surface offset entering the signed gap [m] */
  readonly shape_margin: Float64Array;
  /** (shape_count) candidate anticipation band [m] */
  readonly shape_gap: Float64Array;
  /** (shape_count) contact stiffness [N/m] */
  readonly shape_ke: Float64Array;
  /** (shape_count) dissipation time scale [s] */
  readonly shape_tau: Float64Array;
  /** (shape_count) Coulomb friction [-] */
  readonly shape_mu: Float64Array;
  /** (shape_count) collision group: 0 none, +n same group only, -n all but itself */
  readonly shape_collision_group: Int32Array;
  /** (shape_count) ShapeFlags bits */
  readonly shape_flags: Int32Array;
  /**
   * (shape_count × 3) display colour, sRGB-encoded RGB in [0, 1]: the values URDF, MJCF, COLLADA
   * and scene files write and RViz and MuJoCo show (USD's linear colours are encoded on import)
   */
  readonly shape_color: Float32Array;
  readonly shape_label: readonly string[];
  /** (shape_count) mesh index for MESH / CONVEX_MESH shapes (shape_size is then the scale), else -1 */
  readonly shape_mesh: Int32Array;
  /** (shape_count) heightfield index for HEIGHTFIELD shapes, else -1 */
  readonly shape_hfield: Int32Array;
  /** (2 × n) shape index pairs that never collide (MJCF exclude, USD filtered pairs), all worlds */
  readonly shape_filter_pairs: Int32Array;

  // meshes: triangle soups shared by every world (a convex mesh stores its hull)
  readonly mesh_count: number;
  /** (mesh_count + 1) offsets into mesh_vertices, in vertices */
  readonly mesh_vertex_start: Int32Array;
  /** (V × 3) vertices in the mesh frame, unscaled [m] */
  readonly mesh_vertices: Float64Array;
  /** (mesh_count + 1) offsets into mesh_triangles, in triangles */
  readonly mesh_triangle_start: Int32Array;
  /** (T × 3) vertex indices, local to the mesh, counter-clockwise seen from outside */
  readonly mesh_triangles: Int32Array;
  readonly mesh_label: readonly string[];
  /**
   * (mesh_count) per-vertex texture coordinates (V × 2: u, v with v up) of a textured visual mesh,
   * else null; drawing only, collision never reads them
   */
  readonly mesh_uv: readonly (Float32Array | null)[];
  /** (mesh_count) index into `textures` of a textured visual mesh, else -1 */
  readonly mesh_texture: Int32Array;
  /** images that textured meshes draw with (encoded file bytes, decoded by the renderer) */
  readonly textures: readonly ModelTexture[];

  // heightfields: elevation grids shared by every world
  readonly hfield_count: number;
  /** (hfield_count) samples along y (rows) and x (columns) */
  readonly hfield_nrow: Int32Array;
  readonly hfield_ncol: Int32Array;
  /** (hfield_count × 4) half-size x, half-size y, elevation scale z, base depth [m] (MuJoCo's hfield size) */
  readonly hfield_size: Float64Array;
  /** (hfield_count + 1) offsets into hfield_data */
  readonly hfield_data_start: Int32Array;
  /** row-major elevations in [0, 1], scaled by hfield_size[2] */
  readonly hfield_data: Float64Array;

  // equality constraints (SAP holonomic constraints), all worlds
  readonly eq_count: number;
  /** (eq_count) EqualityType */
  readonly eq_type: Int32Array;
  readonly eq_world: Int32Array;
  /** (eq_count) bodies (-1 world) for ball and weld */
  readonly eq_body0: Int32Array;
  readonly eq_body1: Int32Array;
  /** (eq_count) 1-DOF joints for the coupler: q(joint0) = ratio·q(joint1) + offset */
  readonly eq_joint0: Int32Array;
  readonly eq_joint1: Int32Array;
  /** (eq_count × 3) anchor points in body0 / body1 frames [m] */
  readonly eq_anchor0: Float64Array;
  readonly eq_anchor1: Float64Array;
  /** (eq_count × 7) weld: the pose of body1's anchor frame in body0's anchor frame when satisfied */
  readonly eq_relpose: Float64Array;
  readonly eq_ratio: Float64Array;
  readonly eq_offset: Float64Array;
  /** (eq_count) stiffness (Infinity = near-rigid) [N/m or N·m/rad] and relaxation time [s] */
  readonly eq_stiffness: Float64Array;
  readonly eq_tau: Float64Array;
  readonly eq_label: readonly string[];

  // fixed tendons (SAP tendon-limit constraints), all worlds: length l = Σₖ coefₖ·q(jointₖ) + offset
  readonly tendon_count: number;
  /** (tendon_count) world of each tendon (all its joints lie in it) */
  readonly tendon_world: Int32Array;
  /** (tendon_count + 1) ranges of each tendon's entries in tendon_joint / tendon_coef */
  readonly tendon_adr: Int32Array;
  /** (entries) 1-DOF joint (revolute or prismatic) of each entry */
  readonly tendon_joint: Int32Array;
  /** (entries) ∂l/∂q of each entry [m/rad, 1, …] */
  readonly tendon_coef: Float64Array;
  /** (tendon_count) length at q = 0 [tendon units] */
  readonly tendon_offset: Float64Array;
  /** (tendon_count) length limits (−∞ / +∞: no limit on that side) [tendon units] */
  readonly tendon_lower: Float64Array;
  readonly tendon_upper: Float64Array;
  /** (tendon_count) limit stiffness (Infinity = near-rigid; 0 = no limit constraint) and damping */
  readonly tendon_limit_ke: Float64Array;
  readonly tendon_limit_kd: Float64Array;
  readonly tendon_label: readonly string[];

  /**
   * (joint_dof_count) dry (Coulomb) joint friction bound [N·m or N]: a SAP joint-friction constraint
   * on revolute and prismatic DOFs (MuJoCo's frictionloss); not applied to ball and free joints
   */
  readonly joint_friction: Float64Array;
  /**
   * (joint_dof_count) 1 for an acceleration drive: target_ke / target_kd are [1/s²] / [1/s] and
   * the step scales them by the DOF's effective inertia, the diagonal of M(q) (PhysX's drive type)
   */
  readonly joint_drive_acceleration: Uint8Array;
  /** (joint_count) 1 when the parent's and child's shapes are filtered from colliding */
  readonly joint_collision_filter_parent: Uint8Array;

  // initial state and control defaults (all worlds)
  /** (joint_coord_count) initial positions, public convention */
  readonly joint_q0: Float64Array;
  /** (joint_dof_count) initial velocities, public convention */
  readonly joint_qd0: Float64Array;
  /** initial simulated time [s]: an MJCF keyframe's `time` when one is loaded, else 0 */
  readonly time0: number;
  /** (joint_dof_count) default drive targets */
  readonly joint_target_pos: Float64Array;
  readonly joint_target_vel: Float64Array;

  // spatial tendons (MJCF <spatial>, wrapping-free), all worlds: l = Σₑ scaleₑ·‖p(e+1) − p(e)‖
  // over each tendon's path points (engine/pipeline/transmissions.ts); limits → SAP tendon-limit
  // constraints, spring and damping → explicit forces Jᵀf of the free motion
  readonly spatial_count: number;
  /** (spatial_count) world of each tendon */
  readonly spatial_world: Int32Array;
  /** (spatial_count + 1) ranges of each tendon's path points */
  readonly spatial_adr: Int32Array;
  /** (points) body each path point moves with, -1 for the world */
  readonly spatial_body: Int32Array;
  /** (points × 3) path points in their body's frame (world frame for body -1) [m] */
  readonly spatial_point: Float64Array;
  /** (points) weight of the segment from this point to the next (1/divisor; 0 before a pulley and at the end) */
  readonly spatial_scale: Float64Array;
  /** (spatial_count) length limits (±∞: no limit on that side) [m] */
  readonly spatial_lower: Float64Array;
  readonly spatial_upper: Float64Array;
  /** (spatial_count) limit stiffness (Infinity = near-rigid; 0 = no limit constraint) [N/m] and damping [N·s/m] */
  readonly spatial_limit_ke: Float64Array;
  readonly spatial_limit_kd: Float64Array;
  /** (spatial_count) spring stiffness [N/m]: force −k·(l − l_s) outside the rest band [spring_lower, spring_upper] [m] */
  readonly spatial_stiffness: Float64Array;
  readonly spatial_spring_lower: Float64Array;
  readonly spatial_spring_upper: Float64Array;
  /** (spatial_count) damping: force −d·l̇ [N·s/m] */
  readonly spatial_damping: Float64Array;
  readonly spatial_label: readonly string[];

  // actuators acting through a length l(q) (ActuatorTransmission: spatial tendon, fixed tendon,
  // slider-crank), all worlds: L = gear·l, force f = gain·u + b₀ + b₁·L + b₂·L̇ (u the control
  // clamped to its range, f to the force range), generalized force gear·Jᵀf, explicit
  readonly actuator_count: number;
  readonly actuator_world: Int32Array;
  /** (actuator_count) ActuatorTransmission */
  readonly actuator_type: Int32Array;
  /** (actuator_count) the spatial or fixed tendon (model index), -1 for a slider-crank */
  readonly actuator_tendon: Int32Array;
  /** (actuator_count) slider-crank: the crank pin's body (-1 world) and point in its frame [m] */
  readonly actuator_crank_body: Int32Array;
  readonly actuator_crank_point: Float64Array;
  /** (actuator_count) slider-crank: the slider's body, point and unit axis in its frame */
  readonly actuator_slider_body: Int32Array;
  readonly actuator_slider_point: Float64Array;
  readonly actuator_slider_axis: Float64Array;
  /** (actuator_count) slider-crank: the connecting rod's length [m] */
  readonly actuator_crank_length: Float64Array;
  readonly actuator_gear: Float64Array;
  /** (actuator_count) force per unit control [N] and the affine bias (× 3) [N, N/m, N·s/m] */
  readonly actuator_gain: Float64Array;
  readonly actuator_bias: Float64Array;
  /** (actuator_count) control range (±∞ unlimited) */
  readonly actuator_ctrl_lower: Float64Array;
  readonly actuator_ctrl_upper: Float64Array;
  /** (actuator_count) force range (±∞ unlimited) [N] */
  readonly actuator_force_lower: Float64Array;
  readonly actuator_force_upper: Float64Array;
  /** (actuator_count) default control */
  readonly actuator_ctrl0: Float64Array;
  readonly actuator_label: readonly string[];

  /** scene name, for reports */
  readonly name: string;
}

/** number of DOFs of world w */
export function worldDofCount(m: SapModel, w: number): number {
  return m.world_dof_start[w + 1] - m.world_dof_start[w];
}
