/**
 * Collision data derived once from a model's meshes and heightfields: local bounding boxes,
 * triangle BVHs and convex hulls (with polygonal faces). Cached per model (a `WeakMap`), built
 * lazily — a BVH when a triangle mesh is first queried, a hull when a mesh is first used as a
 * convex shape — so building is never repeated and never happens inside a hot loop twice.
 *
 * Mesh scale: a MESH / CONVEX_MESH shape's `shape_size` is a per-axis scale of the mesh's vertices;
 * a component of 0 means 1 (as in the model's mass computation).
 */
import type { SapModel } from '../model';
import { buildTriangleBVH, type TriangleBVH } from './bvh';
import { convexHull, hullFaces, type HullFaces } from './hull';

/** per-mesh derived data */
export interface MeshEntry {
  /** (6) local (unscaled) bounding box [min xyz, max xyz] [m] */
  readonly box: Float64Array;
  /** first vertex and triangle of this mesh in the model arrays, and their counts */
  readonly vStart: number;
  readonly vCount: number;
  readonly tStart: number;
  readonly tCount: number;
  bvh: TriangleBVH | null;
  /** (T × 3) the triangle across each edge (v_e, v_e+1), -1 at a boundary or non-manifold edge; built with the BVH */
  neighbors: Int32Array | null;
  /** the convex hull's faces; null until built, `false` when the mesh spans no volume */
  hull: HullFaces | null | false;
}

export interface CollisionMeshData {
  readonly meshes: MeshEntry[];
  /** (hfield_count × 2) min and max sample of each heightfield, in [0, 1] */
  readonly hfieldRange: Float64Array;
  /** scratch for BVH queries (the largest mesh's triangle count) */
  readonly query: Int32Array;
}

const cache = new WeakMap<SapModel, CollisionMeshData>();

/** the (cached) collision data of a model's meshes and heightfields */
export function getCollisionMeshData(model: SapModel): CollisionMeshData {
  let d = cache.get(model);
  if (d) return d;
  const meshes: MeshEntry[] = [];
  let maxT = 0;
  for (let i = 0; i < model.mesh_count; i++) {
    const vStart = model.mesh_vertex_start[i],
      vEnd = model.mesh_vertex_start[i + 1];
    const tStart = model.mesh_triangle_start[i],
      tEnd = model.mesh_triangle_start[i + 1];
    const box = new Float64Array([Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity]);
    for (let v = vStart; v < vEnd; v++) {
      for (let k = 0; k < 3; k++) {
        const x = model.mesh_vertices[v * 3 + k];
        if (x < box[k]) box[k] = x;
        if (x > box[3 + k]) box[3 + k] = x;
      }
    }
    if (vEnd === vStart) box.fill(0);
    meshes.push({
      box,
      vStart,
      vCount: vEnd - vStart,
      tStart,
      tCount: tEnd - tStart,
      bvh: null,
      neighbors: null,
      hull: null,
    });
    maxT = Math.max(maxT, tEnd - tStart);
  }
  const hfieldRange = new Float64Array(model.hfield_count * 2);
  for (let h = 0; h < model.hfield_count; h++) {
    let lo = Infinity,
      hi = -Infinity;
    for (let k = model.hfield_data_start[h]; k < model.hfield_data_start[h + 1]; k++) {
      lo = Math.min(lo, model.hfield_data[k]);
      hi = Math.max(hi, model.hfield_data[k]);
    }
    hfieldRange[h * 2] = Number.isFinite(lo) ? lo : 0;
    hfieldRange[h * 2 + 1] = Number.isFinite(hi) ? hi : 0;
  }
  d = { meshes, hfieldRange, query: new Int32Array(Math.max(1, maxT)) };
  cache.set(model, d);
  return d;
}

/** the triangle BVH of mesh i (built on first use) */
export function meshBVH(model: SapModel, data: CollisionMeshData, i: number): TriangleBVH {
  const e = data.meshes[i];
  if (e.bvh === null) {
    e.bvh = buildTriangleBVH(model.mesh_vertices, e.vStart, model.mesh_triangles, e.tStart, e.tCount);
  }
  return e.bvh;
}

/** the edge neighbours of mesh i's triangles (built on first use), see {@link MeshEntry.neighbors} */
export function meshNeighbors(model: SapModel, data: CollisionMeshData, i: number): Int32Array {
  const e = data.meshes[i];
  if (e.neighbors === null) {
    const T = model.mesh_triangles;
    const nb = new Int32Array(e.tCount * 3).fill(-1);
    const edges = new Map<string, number[]>();
    for (let t = 0; t < e.tCount; t++) {
      for (let k = 0; k < 3; k++) {
        const a = T[(e.tStart + t) * 3 + k],
          b = T[(e.tStart + t) * 3 + ((k + 1) % 3)];
        const key = a < b ? `${a},${b}` : `${b},${a}`;
        const list = edges.get(key);
        if (list) list.push(t * 3 + k);
        else edges.set(key, [t * 3 + k]);
      }
    }
    for (const list of edges.values()) {
      if (list.length !== 2) continue;
      nb[list[0]] = Math.floor(list[1] / 3);
      nb[list[1]] = Math.floor(list[0] / 3);
    }
    e.neighbors = nb;
  }
  return e.neighbors;
}

/** the convex hull faces of mesh i (built on first use); null when the mesh spans no volume */
export function meshHull(model: SapModel, data: CollisionMeshData, i: number): HullFaces | null {
  const e = data.meshes[i];
  if (e.hull === null) {
    const h = convexHull(model.mesh_vertices.subarray(e.vStart * 3, (e.vStart + e.vCount) * 3));
    e.hull = h ? hullFaces(h) : false;
  }
  return e.hull === false ? null : e.hull;
}

/** scale component k of a mesh shape (0 ⇒ 1) */
export function meshScale(size: Float64Array, s: number, k: number): number {
  const v = size[s * 3 + k];
  return v === 0 ? 1 : v;
}
