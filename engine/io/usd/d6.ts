/**
 * UsdPhysics generic joints (a prim typed exactly `PhysicsJoint`: PhysX's D6) read axis by axis.
 *
 * The schema's rules (UsdPhysicsJoint, UsdPhysicsLimitAPI, UsdPhysicsDriveAPI):
 * - the joint relates the frame (localPos1, localRot1) of body1 to the frame (localPos0, localRot0)
 *   of body0 by three translations along and three rotations about the axes of frame 0;
 * - every axis is free by default; `PhysicsLimitAPI:<axis>` (transX … rotZ) limits it to
 *   [`limit:<axis>:physics:low`, `…:high`] (−inf / inf when unauthored: no bound on that side), and
 *   low > high locks it; rotation limits are in degrees, translation limits in stage lengths;
 * - `PhysicsDriveAPI:<axis>` drives an axis (read by the importer's drive reader: stiffness, damping,
 *   targets, maxForce, force / acceleration type);
 * - `PhysicsLimitAPI:distance` (a bound on the distance of the two frames' origins) is not mapped.
 *
 * The mapping is exact for every combination: one joint where one fits (fixed; revolute or prismatic
 * for one free axis; ball for three free rotations without limits or drives; free for all six to
 * the world), otherwise a chain of single-DOF joints through massless intermediate bodies (as the
 * MJCF importer builds a body with several joints), translations first and then rotations, each group
 * in the order its axes' LimitAPI / DriveAPI instances are applied (the order Newton's D6 and the
 * MJCF → USD converters use; unlisted free axes follow in x, y, z order). Locked axes then hold by
 * construction (no DOF), where holonomic constraint rows on them would only hold to the solver's
 * compliance. A chain of three rotations is singular where the middle angle reaches ±90° (as MJCF's
 * three hinges are); three rotations without limits or drives use the singularity-free ball joint.
 * PhysX instead composes a D6's rotations as swing·twist (the x twist on body1's side, y and z swing
 * limits as a cone): the two readings agree on which axes are free and where a single axis's limit
 * lies, and differ in the coordinates of two or three free rotations; this reader takes the
 * sequence, which is exact for the files converted from MJCF (the Newton humanoid's hips).
 */
import type { JointDofConfig, ModelBuilder } from '../../model';
import type { UsdPrim } from './compose';
import { mat4Identity, mat4Mul, poseOf, quatFromMat3, rigidInverse, type Mat4 } from './xform';

/** the six axes of a generic joint, in the schema's order */
export const D6_AXES = ['transX', 'transY', 'transZ', 'rotX', 'rotY', 'rotZ'] as const;

/** one of {@link D6_AXES} */
export type D6AxisName = (typeof D6_AXES)[number];

/** how a generic joint treats one axis */
export interface D6Axis {
  /** the schema's axis name */
  name: D6AxisName;
  /** a rotation (rotX, rotY, rotZ) */
  angular: boolean;
  /** the coordinate axis of frame 0: 0 (x), 1 (y), 2 (z) */
  index: 0 | 1 | 2;
  /** the lower bound [rad or m]; −Infinity when none */
  lower: number;
  /** the upper bound [rad or m]; Infinity when none */
  upper: number;
  /** a PhysicsDriveAPI instance is applied to the axis */
  driven: boolean;
}

/** one joint of the chain a generic joint becomes */
export interface D6Step {
  type: 'prismatic' | 'revolute' | 'ball';
  /** the single axis of a prismatic or revolute step (undefined for a ball step) */
  axis?: D6Axis;
}

/** what a generic joint maps to */
export type D6Plan =
  | { kind: 'fixed' }
  | { kind: 'revolute' | 'prismatic'; axis: D6Axis }
  | { kind: 'ball' }
  | { kind: 'free' | 'chain'; steps: D6Step[] };

const HUGE = 1e30;

/**
 * Reads a generic joint's axes and plans its joints. `lengthScale` [m per stage unit] scales the
 * translation limits; `warn` receives what is not mapped (the distance limit).
 */
export function planD6(
  j: UsdPrim,
  lengthScale: number,
  num: (name: string) => number | undefined,
  warn: (msg: string) => void,
): D6Plan {
  const api = j.apiSchemas;
  if (api.includes('PhysicsLimitAPI:distance')) {
    warn(`<${j.path}> PhysicsLimitAPI:distance (a bound on the frames' distance) is not simulated`);
  }
  const free: { axis: D6Axis; order: number }[] = [];
  D6_AXES.forEach((name, k) => {
    const limitAt = api.indexOf(`PhysicsLimitAPI:${name}`);
    const driveAt = api.indexOf(`PhysicsDriveAPI:${name}`);
    const angular = k >= 3;
    const scale = angular ? Math.PI / 180 : lengthScale;
    let lower = -Infinity,
      upper = Infinity;
    if (limitAt >= 0) {
      const lo = num(`limit:${name}:physics:low`),
        hi = num(`limit:${name}:physics:high`);
      if (lo !== undefined && hi !== undefined && lo > hi) return; // locked
      if (lo !== undefined && !Number.isNaN(lo) && lo > -HUGE) lower = lo * scale;
      if (hi !== undefined && !Number.isNaN(hi) && hi < HUGE) upper = hi * scale;
    }
    const listed = [limitAt, driveAt].filter((x) => x >= 0);
    const order = listed.length ? Math.min(...listed) : api.length + k;
    free.push({
      axis: { name, angular, index: (k % 3) as 0 | 1 | 2, lower, upper, driven: driveAt >= 0 },
      order,
    });
  });
  free.sort((a, b) => Number(a.axis.angular) - Number(b.axis.angular) || a.order - b.order);
  const axes = free.map((f) => f.axis);
  const trans = axes.filter((a) => !a.angular);
  const rots = axes.filter((a) => a.angular);
  if (axes.length === 0) return { kind: 'fixed' };
  if (axes.length === 1) return { kind: axes[0].angular ? 'revolute' : 'prismatic', axis: axes[0] };
  const plain = (a: D6Axis) => !a.driven && a.lower === -Infinity && a.upper === Infinity;
  const ballRots = rots.length === 3 && rots.every(plain);
  if (ballRots && trans.length === 0) return { kind: 'ball' };
  const steps: D6Step[] = trans.map((axis) => ({ type: 'prismatic', axis }));
  if (ballRots) steps.push({ type: 'ball' });
  else for (const axis of rots) steps.push({ type: 'revolute', axis });
  // six plain axes: a free joint where one body is the world, else this chain
  return { kind: ballRots && trans.length === 3 && trans.every(plain) ? 'free' : 'chain', steps };
}

/** a step of a chain in tree order: its type, signed coordinate axis and DOF parameters */
export interface D6ChainJoint {
  type: 'prismatic' | 'revolute' | 'ball';
  /** the unit coordinate axis, negated where the tree runs from body1 to body0 */
  axis: [number, number, number];
  /** the DOF's parameters (limits, drive, aliases) */
  dof: Partial<JointDofConfig>;
  /** the axis name, for labels */
  name: string;
}

/** where a chain is built: bodies, frames and labels */
export interface D6ChainSite {
  /** the tree parent's builder body (−1 the world) and its world pose */
  parent: number;
  parentPose: Mat4;
  /** the tree child's builder body and its world pose */
  child: number;
  childPose: Mat4;
  /** the joint frames in the parent and child body frames (rigid matrices) */
  Xp: Mat4;
  Xc: Mat4;
  /** body1 is the tree parent (the steps are then reversed, their axes negated) */
  reversed: boolean;
  label: string;
  collision_filter_parent: boolean;
}

/**
 * The joint coordinates of the chain's single-DOF steps (forward order, body0 → body1) that place
 * frame 1 at its authored pose relative to frame 0 (`rel` = F0⁻¹·F1): translations are the
 * offset's components along their axes; rotations are the angles of the rotation sequence about
 * their axes (a Tait–Bryan decomposition; two rotations take the remaining axis as a third, ~0 at a
 * consistent pose). A ball step's coordinates are set by the builder from the body poses.
 */
export function chainCoordinates(steps: D6Step[], rel: Mat4): number[] {
  const q = steps.map((s) => (s.type === 'prismatic' ? rel[3 + 4 * s.axis!.index] : 0));
  const rot = steps.map((s, k) => (s.type === 'revolute' ? k : -1)).filter((k) => k >= 0);
  if (rot.length === 1) {
    const i = steps[rot[0]].axis!.index;
    const R = [rel[0], rel[1], rel[2], rel[4], rel[5], rel[6], rel[8], rel[9], rel[10]];
    const qq = quatFromMat3(R);
    let a = 2 * Math.atan2(qq[i], qq[3]);
    if (a > Math.PI) a -= 2 * Math.PI;
    if (a < -Math.PI) a += 2 * Math.PI;
    q[rot[0]] = a;
  } else if (rot.length >= 2) {
    const i = steps[rot[0]].axis!.index,
      j = steps[rot[1]].axis!.index;
    const k = rot.length === 3 ? steps[rot[2]].axis!.index : 3 - i - j;
    const s = (j - i + 3) % 3 === 1 ? 1 : -1; // +1 for the cyclic sequences xyz, yzx, zxy
    const R = (r: number, c: number) => rel[r * 4 + c];
    q[rot[0]] = Math.atan2(-s * R(j, k), R(k, k));
    q[rot[1]] = Math.asin(Math.max(-1, Math.min(1, s * R(i, k))));
    if (rot.length === 3) q[rot[2]] = Math.atan2(-s * R(i, j), R(i, i));
  }
  return q.map((x) => (Math.abs(x) < 1e-12 ? 0 : x));
}

/** the rigid motion of one step at coordinate q (a ball step: the rotation `ball`) */
function stepMotion(type: D6ChainJoint['type'], axis: number[], q: number, ball: Mat4): Mat4 {
  if (type === 'ball') return ball;
  const m = mat4Identity();
  if (type === 'prismatic') {
    m[3] = axis[0] * q;
    m[7] = axis[1] * q;
    m[11] = axis[2] * q;
    return m;
  }
  const c = Math.cos(q),
    s = Math.sin(q),
    t = 1 - c;
  const [x, y, z] = axis;
  m[0] = c + x * x * t;
  m[1] = x * y * t - z * s;
  m[2] = x * z * t + y * s;
  m[4] = y * x * t + z * s;
  m[5] = c + y * y * t;
  m[6] = y * z * t - x * s;
  m[8] = z * x * t - y * s;
  m[9] = z * y * t + x * s;
  m[10] = c + z * z * t;
  return m;
}

/**
 * Adds a generic joint's chain to the builder: one joint per step, joined by massless bodies placed
 * at the authored pose (their frames are the chain's intermediate joint frames). `joints` are in
 * forward order (body0 → body1) with forward coordinates `q`; returns the joint indices and the
 * intermediate bodies.
 */
export function addD6Chain(
  b: ModelBuilder,
  site: D6ChainSite,
  joints: D6ChainJoint[],
  q: number[],
): { joints: number[]; bodies: number[] } {
  const n = joints.length;
  const order = joints.map((_, k) => (site.reversed ? n - 1 - k : k));
  // the rotation a ball step carries: what is left of the authored relative pose after the others
  const F0 = mat4Mul(site.parentPose, site.Xp);
  const F1 = mat4Mul(site.childPose, site.Xc);
  let M = F0;
  const motions: Mat4[] = [];
  const ballAt = order.findIndex((k) => joints[k].type === 'ball');
  for (let s = 0; s < n; s++) {
    const jt = joints[order[s]];
    const sign = site.reversed ? -1 : 1;
    const axis = jt.axis.map((x) => x * sign);
    let ball = mat4Identity();
    if (s === ballAt) {
      // the remaining steps are translations (forward: the ball is last; reversed: first)
      let rest = mat4Identity();
      for (let r = s + 1; r < n; r++) {
        const jr = joints[order[r]];
        rest = mat4Mul(
          rest,
          stepMotion(
            jr.type,
            jr.axis.map((x) => x * sign),
            q[order[r]],
            ball,
          ),
        );
      }
      ball = mat4Mul(mat4Mul(rigidInverse(M), F1), rigidInverse(rest));
      ball[3] = ball[7] = ball[11] = 0;
    }
    const m = stepMotion(jt.type, axis, q[order[s]], ball);
    motions.push(m);
    M = mat4Mul(M, m);
  }
  const out = { joints: [] as number[], bodies: [] as number[] };
  let parent = site.parent;
  let W = F0;
  for (let s = 0; s < n; s++) {
    const k = order[s];
    const jt = joints[k];
    const last = s === n - 1;
    W = mat4Mul(W, motions[s]);
    const child = last
      ? site.child
      : b.addBody({
          label: `${site.label}/${jt.name}`,
          X_wb: poseOf(W),
          mass: 0,
          inertia: [0, 0, 0, 0, 0, 0, 0, 0, 0],
        });
    if (!last) out.bodies.push(child);
    const ji = b.addJoint({
      type: jt.type,
      parent,
      child,
      X_p: s === 0 ? poseOf(site.Xp) : undefined,
      X_c: last ? poseOf(site.Xc) : undefined,
      axis: site.reversed ? jt.axis.map((x) => -x) : jt.axis,
      label: `${site.label}/${jt.name}`,
      collision_filter_parent: site.collision_filter_parent,
      ...jt.dof,
    });
    if (jt.type !== 'ball' && q[k] !== 0) b.jointQ(ji)[0] = q[k];
    out.joints.push(ji);
    parent = child;
  }
  return out;
}
