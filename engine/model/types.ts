/** joint types (SPEC §3.1); values are stored in `SapModel.joint_type` */
export const JointType = { FIXED: 0, FREE: 1, REVOLUTE: 2, PRISMATIC: 3, BALL: 4 } as const;
export type JointTypeName = 'fixed' | 'free' | 'revolute' | 'prismatic' | 'ball';
export const JOINT_TYPE_NAMES: readonly JointTypeName[] = ['fixed', 'free', 'revolute', 'prismatic', 'ball'];
/**
 * How a ball joint's rotation is limited (`joint_cone_mode`):
 * - NONE: not limited;
 * - ROTATION: the rotation angle θ ∈ [0, π] of the joint's quaternion is at most
 *   `joint_cone_limit[0]` (MuJoCo's ball-joint `range`); the twist counts;
 * - SWING: the angle φ between the joint axis in the child frame and in the parent frame (the swing,
 *   twist about the axis free) is at most the elliptical cone's radius in the swing's direction:
 *   `joint_cone_limit[0]` swinging the axis toward the next basis axis (x→y, y→z, z→x),
 *   `joint_cone_limit[1]` toward the one after (UsdPhysics coneAngle0Limit / coneAngle1Limit).
 */
export const ConeMode = { NONE: 0, ROTATION: 1, SWING: 2 } as const;
export type ConeModeName = 'rotation' | 'swing';

/** position coordinates per joint type: fixed 0, free 7, revolute 1, prismatic 1, ball 4 */
export const JOINT_Q_SIZE: readonly number[] = [0, 7, 1, 1, 4];
/** velocity coordinates per joint type: fixed 0, free 6, revolute 1, prismatic 1, ball 3 */
export const JOINT_QD_SIZE: readonly number[] = [0, 6, 1, 1, 3];

/**
 * shape types (SPEC §3.1). Size conventions (`shape_size`, 3 numbers, metres):
 * plane [half-x, half-y, 0] (0 = infinite; normal is local +z); sphere [r]; capsule, cylinder and cone
 * [r, half_height] along local z (the cone's apex at +half_height); box [hx, hy, hz]; ellipsoid [a, b, c].
 */
export const ShapeType = {
  PLANE: 0,
  SPHERE: 1,
  CAPSULE: 2,
  BOX: 3,
  CYLINDER: 4,
  CONE: 5,
  ELLIPSOID: 6,
  MESH: 7,
  CONVEX_MESH: 8,
  HEIGHTFIELD: 9,
} as const;
export type ShapeTypeName =
  | 'plane'
  | 'sphere'
  | 'capsule'
  | 'box'
  | 'cylinder'
  | 'cone'
  | 'ellipsoid'
  | 'mesh'
  | 'convex_mesh'
  | 'heightfield';
export const SHAPE_TYPE_NAMES: readonly ShapeTypeName[] = [
  'plane',
  'sphere',
  'capsule',
  'box',
  'cylinder',
  'cone',
  'ellipsoid',
  'mesh',
  'convex_mesh',
  'heightfield',
];

/** bit flags of `shape_flags` */
export const ShapeFlags = {
  VISIBLE: 1,
  COLLIDE_SHAPES: 2,
  COLLIDE_PARTICLES: 4,
  SITE: 8,
} as const;

/** equality constraint types (`SapModel.eq_type`), realized as SAP holonomic constraints */
export const EqualityType = { COUPLER: 0, BALL: 1, WELD: 2 } as const;
export type EqualityTypeName = 'coupler' | 'ball' | 'weld';
export const EQUALITY_TYPE_NAMES: readonly EqualityTypeName[] = ['coupler', 'ball', 'weld'];
