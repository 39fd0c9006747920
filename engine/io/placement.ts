/**
 * Placement of a robot on a ground it was not authored with: a URDF says nothing of where the robot
 * stands, and a USD or MJCF file without a floor of its own gets the studio's. The lowest point of
 * its colliders at the authored pose, and a lift of every body that puts that point on the ground.
 */
import { quatToMat3, transformMul } from '../math';
import { JointType, ShapeType, type ModelBuilder } from '../model';

/**
 * The lowest z [m] of the builder's colliding shapes on bodies, at the bodies' authored poses
 * (exact per primitive, the lowest vertex for meshes); +Infinity when there is none.
 */
export function lowestColliderZ(b: ModelBuilder): number {
  const pose = new Float64Array(7);
  const X = new Float64Array(7);
  const Xs = new Float64Array(7);
  const R = new Float64Array(9);
  let lowest = Infinity;
  for (const s of b.shapes) {
    if (s.body < 0 || !s.cfg.has_shape_collision) continue;
    X.set(b.bodies[s.body].X_wb);
    Xs.set(s.X_bs);
    transformMul(X, 0, Xs, 0, pose, 0);
    quatToMat3(pose, 3, R, 0);
    // the third row of R: how each local axis points up
    const [ux, uy, uz] = [R[6], R[7], R[8]];
    const [a, c, d] = s.size;
    let down: number; // how far the shape reaches below its origin
    switch (s.type) {
      case ShapeType.SPHERE:
        down = a;
        break;
      case ShapeType.ELLIPSOID:
        down = Math.hypot(ux * a, uy * c, uz * d);
        break;
      case ShapeType.BOX:
        down = Math.abs(ux) * a + Math.abs(uy) * c + Math.abs(uz) * d;
        break;
      case ShapeType.CAPSULE:
        down = Math.abs(uz) * c + a;
        break;
      case ShapeType.CYLINDER:
      case ShapeType.CONE:
        down = Math.abs(uz) * c + a * Math.sqrt(Math.max(0, 1 - uz * uz));
        break;
      case ShapeType.MESH:
      case ShapeType.CONVEX_MESH: {
        const v = b.meshes[s.mesh].vertices;
        const k = [a || 1, c || 1, d || 1];
        down = -Infinity;
        for (let i = 0; i < v.length; i += 3) {
          down = Math.max(down, -(ux * k[0] * v[i] + uy * k[1] * v[i + 1] + uz * k[2] * v[i + 2]));
        }
        break;
      }
      default:
        continue; // planes, heightfields: ground-like, not placed
    }
    lowest = Math.min(lowest, pose[2] - down);
  }
  return lowest;
}

/** whether the builder has a plane shape (a file's own ground) */
export function hasGroundPlane(b: ModelBuilder): boolean {
  const shapes = [...b.sharedShapes, ...b.shapes] as unknown as { type: unknown }[];
  return shapes.some((s) => s.type === ShapeType.PLANE || s.type === 'plane');
}

/** deepest authored penetration of the ground left as it is [m] */
const PLACEMENT_TOLERANCE = 1e-4;

/**
 * Lifts the builder's bodies when their colliders reach below the ground (z = 0) at the authored
 * pose, until the lowest touches it; returns the loader's note of it, or null when nothing moved.
 */
export function standOnGround(b: ModelBuilder): string | null {
  const z = lowestColliderZ(b);
  if (!(Number.isFinite(z) && z < -PLACEMENT_TOLERANCE)) return null;
  liftBodies(b, -z);
  const d = (-z).toFixed(3);
  return `its colliders reach ${d} m below the ground at the authored pose: lifted ${d} m to stand on it (an xform in a scene file places it instead)`;
}

/**
 * Moves every body up by dz [m], and with them every joint that hangs from the world (its frame on
 * the world side; a free joint's position), so the other joints' coordinates stay as authored.
 */
export function liftBodies(b: ModelBuilder, dz: number): void {
  for (const body of b.bodies) body.X_wb[2] += dz;
  for (const j of b.joints) {
    if (j.parent >= 0) continue;
    if (j.type === JointType.FREE)
      j.q[2] += dz; // a free joint's coordinates are its pose
    else j.X_p[2] += dz;
  }
}
