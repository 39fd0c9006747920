/**
 * Per-collide world-frame shape data: pose, rotation matrix and inflated AABB of every shape,
 * computed once from `SapState.body_q` and read by the broad and narrow phases.
 */
import { quatToMat3, transformMul, type Vec } from '../math';
import { ShapeType, type SapModel } from '../model';

/**
 * World-frame geometry of all shapes (structure of arrays, indexed by shape).
 * `rot` is row-major; its column k is the shape's local axis k in the world frame.
 */
export interface ShapeGeom {
  /** (shape_count) ShapeType (the model's array) */
  readonly type: Int32Array;
  /** (shape_count × 3) size parameters (the model's array) [m] */
  readonly size: Float64Array;
  /** (shape_count × 7) world pose of the shape frame [m, -] */
  readonly pose: Float64Array;
  /** (shape_count × 3) world position of the shape origin [m] (copy of pose[0..3]) */
  readonly pos: Float64Array;
  /** (shape_count × 9) world rotation, row-major */
  readonly rot: Float64Array;
  /**
   * (shape_count × 6) world AABB [minx, miny, minz, maxx, maxy, maxz] inflated by margin + gap
   * (plus a 1e-9 m round-off guard) [m]; ±Infinity for unbounded shapes
   */
  readonly aabb: Float64Array;
}

/** allocates the scratch geometry for a model */
export function makeShapeGeom(model: SapModel): ShapeGeom {
  const n = model.shape_count;
  return {
    type: model.shape_type,
    size: model.shape_size,
    pose: new Float64Array(n * 7),
    pos: new Float64Array(n * 3),
    rot: new Float64Array(n * 9),
    aabb: new Float64Array(n * 6),
  };
}

/** absolute slack added to every AABB half-extent so boundary cases reach the exact narrow phase [m] */
const AABB_GUARD = 1e-9;

/**
 * Fills poses, rotations and inflated AABBs of every shape from the body poses.
 * World pose of shape s = body_q[shape_body[s]] ∘ shape_X_bs[s] (shape_X_bs alone when static).
 * Allocation-free.
 */
export function updateShapeGeom(model: SapModel, body_q: Vec, g: ShapeGeom): void {
  const { pose, pos, rot, aabb, size, type } = g;
  for (let s = 0; s < model.shape_count; s++) {
    const b = model.shape_body[s];
    const po = s * 7;
    if (b >= 0) transformMul(body_q, b * 7, model.shape_X_bs, po, pose, po);
    else for (let k = 0; k < 7; k++) pose[po + k] = model.shape_X_bs[po + k];
    pos[s * 3] = pose[po];
    pos[s * 3 + 1] = pose[po + 1];
    pos[s * 3 + 2] = pose[po + 2];
    quatToMat3(pose, po + 3, rot, s * 9);

    // half extents of the un-inflated AABB about the shape origin
    const r = s * 9;
    const sz = s * 3;
    let ex: number, ey: number, ez: number;
    switch (type[s]) {
      case ShapeType.SPHERE: {
        ex = ey = ez = size[sz];
        break;
      }
      case ShapeType.CAPSULE: {
        const rad = size[sz],
          h = size[sz + 1];
        ex = h * Math.abs(rot[r + 2]) + rad;
        ey = h * Math.abs(rot[r + 5]) + rad;
        ez = h * Math.abs(rot[r + 8]) + rad;
        break;
      }
      case ShapeType.CYLINDER:
      case ShapeType.CONE: {
        // disc of radius rad at ±h along the axis a: extent_i = rad·sqrt(1 − a_i²) + h|a_i|
        const rad = size[sz],
          h = size[sz + 1];
        const ax = rot[r + 2],
          ay = rot[r + 5],
          az = rot[r + 8];
        ex = rad * Math.sqrt(Math.max(0, 1 - ax * ax)) + h * Math.abs(ax);
        ey = rad * Math.sqrt(Math.max(0, 1 - ay * ay)) + h * Math.abs(ay);
        ez = rad * Math.sqrt(Math.max(0, 1 - az * az)) + h * Math.abs(az);
        break;
      }
      case ShapeType.BOX:
      case ShapeType.ELLIPSOID: {
        const hx = size[sz],
          hy = size[sz + 1],
          hz = size[sz + 2];
        ex = Math.abs(rot[r]) * hx + Math.abs(rot[r + 1]) * hy + Math.abs(rot[r + 2]) * hz;
        ey = Math.abs(rot[r + 3]) * hx + Math.abs(rot[r + 4]) * hy + Math.abs(rot[r + 5]) * hz;
        ez = Math.abs(rot[r + 6]) * hx + Math.abs(rot[r + 7]) * hy + Math.abs(rot[r + 8]) * hz;
        break;
      }
      case ShapeType.PLANE: {
        const hx = size[sz],
          hy = size[sz + 1];
        if (hx > 0 && hy > 0) {
          ex = Math.abs(rot[r]) * hx + Math.abs(rot[r + 1]) * hy;
          ey = Math.abs(rot[r + 3]) * hx + Math.abs(rot[r + 4]) * hy;
          ez = Math.abs(rot[r + 6]) * hx + Math.abs(rot[r + 7]) * hy;
        } else ex = ey = ez = Infinity;
        break;
      }
      default:
        // meshes and heightfields carry no vertex data in the model yet: unbounded (conservative)
        ex = ey = ez = Infinity;
    }
    const infl = model.shape_margin[s] + model.shape_gap[s] + AABB_GUARD;
    const a = s * 6;
    aabb[a] = pos[s * 3] - ex - infl;
    aabb[a + 1] = pos[s * 3 + 1] - ey - infl;
    aabb[a + 2] = pos[s * 3 + 2] - ez - infl;
    aabb[a + 3] = pos[s * 3] + ex + infl;
    aabb[a + 4] = pos[s * 3 + 1] + ey + infl;
    aabb[a + 5] = pos[s * 3 + 2] + ez + infl;
  }
}

/** whether the inflated AABBs of shapes a and b overlap (touching counts) */
export function aabbOverlap(aabb: Float64Array, a: number, b: number): boolean {
  const i = a * 6,
    j = b * 6;
  return (
    aabb[i] <= aabb[j + 3] &&
    aabb[j] <= aabb[i + 3] &&
    aabb[i + 1] <= aabb[j + 4] &&
    aabb[j + 1] <= aabb[i + 4] &&
    aabb[i + 2] <= aabb[j + 5] &&
    aabb[j + 2] <= aabb[i + 5]
  );
}
