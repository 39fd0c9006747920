/**
 * Per-collide world-frame shape data: pose, rotation matrix and inflated AABB of every shape,
 * computed once from `SapState.body_q` and read by the broad and narrow phases.
 */
import { len3, quatToMat3, transformMul, type Vec } from '../math';
import { ShapeType, type SapModel } from '../model';
import { getCollisionMeshData, meshScale, type CollisionMeshData } from './mesh_data';

/**
 * World-frame geometry of all shapes (structure of arrays, indexed by shape).
 * `rot` is row-major; its column k is the shape's local axis k in the world frame.
 */
export interface ShapeGeom {
  /** the model (mesh, heightfield and material arrays) */
  readonly model: SapModel;
  /** derived mesh / heightfield data (BVHs, hulls), shared by every pipeline of the model */
  readonly meshes: CollisionMeshData;
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
   * (plus a 1e-9 m round-off guard) [m]; ±Infinity for unbounded shapes (infinite planes). Meshes
   * use the rotated box of their scaled vertices' local bounds, heightfields the rotated box of the
   * grid (x, y half sizes; z from −base to the highest sample)
   */
  readonly aabb: Float64Array;
}

/** allocates the scratch geometry for a model */
export function makeShapeGeom(model: SapModel): ShapeGeom {
  const n = model.shape_count;
  return {
    model,
    meshes: getCollisionMeshData(model),
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
  updateShapeGeomOf(model, body_q, g, null, model.shape_count);
}

/**
 * {@link updateShapeGeom} for the shapes `shapes[0 .. count)` only (null: shapes 0 .. count), e.g.
 * the shapes that take part in collision; the others keep their last values
 */
export function updateShapeGeomOf(
  model: SapModel,
  body_q: Vec,
  g: ShapeGeom,
  shapes: Int32Array | null,
  count: number,
): void {
  const { pose, pos, rot, aabb, size, type } = g;
  for (let i = 0; i < count; i++) {
    const s = shapes === null ? i : shapes[i];
    const b = model.shape_body[s];
    const po = s * 7;
    if (b >= 0) transformMul(body_q, b * 7, model.shape_X_bs, po, pose, po);
    else for (let k = 0; k < 7; k++) pose[po + k] = model.shape_X_bs[po + k];
    pos[s * 3] = pose[po];
    pos[s * 3 + 1] = pose[po + 1];
    pos[s * 3 + 2] = pose[po + 2];
    quatToMat3(pose, po + 3, rot, s * 9);

    // half extents of the un-inflated AABB about its centre, offset (ox, oy, oz) of that centre
    const r = s * 9;
    const sz = s * 3;
    let ex: number, ey: number, ez: number;
    let ox = 0,
      oy = 0,
      oz = 0;
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
      case ShapeType.BOX: {
        const hx = size[sz],
          hy = size[sz + 1],
          hz = size[sz + 2];
        ex = Math.abs(rot[r]) * hx + Math.abs(rot[r + 1]) * hy + Math.abs(rot[r + 2]) * hz;
        ey = Math.abs(rot[r + 3]) * hx + Math.abs(rot[r + 4]) * hy + Math.abs(rot[r + 5]) * hz;
        ez = Math.abs(rot[r + 6]) * hx + Math.abs(rot[r + 7]) * hy + Math.abs(rot[r + 8]) * hz;
        break;
      }
      case ShapeType.ELLIPSOID: {
        // exact: extent_i = |row_i(R)·diag(a, b, c)|
        const a = size[sz],
          b = size[sz + 1],
          c = size[sz + 2];
        ex = len3(rot[r] * a, rot[r + 1] * b, rot[r + 2] * c);
        ey = len3(rot[r + 3] * a, rot[r + 4] * b, rot[r + 5] * c);
        ez = len3(rot[r + 6] * a, rot[r + 7] * b, rot[r + 8] * c);
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
      case ShapeType.MESH:
      case ShapeType.CONVEX_MESH:
      case ShapeType.HEIGHTFIELD: {
        // a local box (centre c, half extents e) rotated into the world
        let cx: number, cy: number, cz: number, hx: number, hy: number, hz: number;
        if (type[s] === ShapeType.HEIGHTFIELD) {
          const hf = model.shape_hfield[s];
          const zs = model.hfield_size[hf * 4 + 2];
          const zTop = zs * g.meshes.hfieldRange[hf * 2 + 1];
          const zBot = Math.min(-model.hfield_size[hf * 4 + 3], zs * g.meshes.hfieldRange[hf * 2]);
          cx = 0;
          cy = 0;
          cz = 0.5 * (zTop + zBot);
          hx = model.hfield_size[hf * 4];
          hy = model.hfield_size[hf * 4 + 1];
          hz = 0.5 * (zTop - zBot);
        } else {
          const box = g.meshes.meshes[model.shape_mesh[s]].box;
          const kx = meshScale(size, s, 0),
            ky = meshScale(size, s, 1),
            kz = meshScale(size, s, 2);
          cx = 0.5 * kx * (box[0] + box[3]);
          cy = 0.5 * ky * (box[1] + box[4]);
          cz = 0.5 * kz * (box[2] + box[5]);
          hx = 0.5 * Math.abs(kx) * (box[3] - box[0]);
          hy = 0.5 * Math.abs(ky) * (box[4] - box[1]);
          hz = 0.5 * Math.abs(kz) * (box[5] - box[2]);
        }
        ox = rot[r] * cx + rot[r + 1] * cy + rot[r + 2] * cz;
        oy = rot[r + 3] * cx + rot[r + 4] * cy + rot[r + 5] * cz;
        oz = rot[r + 6] * cx + rot[r + 7] * cy + rot[r + 8] * cz;
        ex = Math.abs(rot[r]) * hx + Math.abs(rot[r + 1]) * hy + Math.abs(rot[r + 2]) * hz;
        ey = Math.abs(rot[r + 3]) * hx + Math.abs(rot[r + 4]) * hy + Math.abs(rot[r + 5]) * hz;
        ez = Math.abs(rot[r + 6]) * hx + Math.abs(rot[r + 7]) * hy + Math.abs(rot[r + 8]) * hz;
        break;
      }
      default:
        ex = ey = ez = Infinity;
    }
    const infl = model.shape_margin[s] + model.shape_gap[s] + AABB_GUARD;
    const a = s * 6;
    aabb[a] = pos[s * 3] + ox - ex - infl;
    aabb[a + 1] = pos[s * 3 + 1] + oy - ey - infl;
    aabb[a + 2] = pos[s * 3 + 2] + oz - ez - infl;
    aabb[a + 3] = pos[s * 3] + ox + ex + infl;
    aabb[a + 4] = pos[s * 3 + 1] + oy + ey + infl;
    aabb[a + 5] = pos[s * 3 + 2] + oz + ez + infl;
  }
}

/**
 * Whether the inflated AABB of shape s lies more than `band` [m] above the surface of plane p,
 * taken as infinite: then no point of s comes within its own margin and gap plus `band` of the
 * plane, so a plane–shape narrow phase with band = the plane's margin and gap finds nothing. False
 * for an unbounded AABB.
 */
export function aabbAbovePlane(g: ShapeGeom, p: number, s: number, band: number): boolean {
  const R = g.rot,
    r = p * 9;
  const nx = R[r + 2],
    ny = R[r + 5],
    nz = R[r + 8];
  const a = g.aabb,
    o = s * 6;
  const cx = 0.5 * (a[o] + a[o + 3]),
    cy = 0.5 * (a[o + 1] + a[o + 4]),
    cz = 0.5 * (a[o + 2] + a[o + 5]);
  const hx = 0.5 * (a[o + 3] - a[o]),
    hy = 0.5 * (a[o + 4] - a[o + 1]),
    hz = 0.5 * (a[o + 5] - a[o + 2]);
  const d =
    nx * (cx - g.pos[p * 3]) +
    ny * (cy - g.pos[p * 3 + 1]) +
    nz * (cz - g.pos[p * 3 + 2]) -
    (Math.abs(nx) * hx + Math.abs(ny) * hy + Math.abs(nz) * hz);
  return d > band;
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
