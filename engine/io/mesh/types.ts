/** triangle meshes as read from files, and shared clean-up */
import { MeshError } from '../assets/errors';
import { LIMITS } from '../limits';

/** an indexed triangle mesh in the file's units */
export interface TriMesh {
  /** (V × 3) vertex coordinates */
  vertices: Float64Array;
  /** (T × 3) vertex indices, counter-clockwise seen from outside */
  triangles: Int32Array;
}

/** most triangles accepted in one mesh file */
export const MAX_MESH_TRIANGLES = LIMITS.max_mesh_triangles;
/** most vertices accepted in one mesh file */
export const MAX_MESH_VERTICES = LIMITS.max_mesh_vertices;
/** longest line of a text mesh format (OBJ, MTL, ASCII STL) [characters] */
export const MAX_LINE_CHARS = LIMITS.max_line_chars;
/** most vertices of one OBJ polygon */
export const MAX_POLYGON_VERTICES = LIMITS.max_polygon_vertices;

/** the MeshError for line `line` (1-based) of `length` characters, over {@link MAX_LINE_CHARS} */
export function longLineError(length: number, file: string | undefined, line: number): MeshError {
  return new MeshError(`line of ${length} characters exceeds max_line_chars = ${MAX_LINE_CHARS}`, file, line);
}

/** the lines of `text`, each at most {@link MAX_LINE_CHARS} long (else a located MeshError) */
export function linesOf(text: string, file?: string): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end - start > MAX_LINE_CHARS) throw longLineError(end - start, file, lines.length + 1);
    lines.push(text.slice(start, end));
    start = end + 1;
  }
  return lines;
}

/**
 * Drops zero-area (degenerate) triangles and vertices no triangle uses; throws when nothing is left.
 */
export function cleanTriangles(m: TriMesh, file?: string, source?: number[]): TriMesh {
  const V = m.vertices;
  const keep: number[] = [];
  for (let t = 0; t < m.triangles.length; t += 3) {
    const a = m.triangles[t] * 3,
      b = m.triangles[t + 1] * 3,
      c = m.triangles[t + 2] * 3;
    if (a === b || b === c || a === c) continue;
    const ux = V[b] - V[a],
      uy = V[b + 1] - V[a + 1],
      uz = V[b + 2] - V[a + 2];
    const vx = V[c] - V[a],
      vy = V[c + 1] - V[a + 1],
      vz = V[c + 2] - V[a + 2];
    const nx = uy * vz - uz * vy,
      ny = uz * vx - ux * vz,
      nz = ux * vy - uy * vx;
    if (nx === 0 && ny === 0 && nz === 0) continue;
    keep.push(m.triangles[t], m.triangles[t + 1], m.triangles[t + 2]);
  }
  if (keep.length === 0) throw new MeshError('the mesh has no triangle of non-zero area', file);
  return compact(V, keep, source);
}

/**
 * Keeps only the referenced vertices, renumbering the triangles. `source`, when given, receives
 * the input index of every output vertex (to carry per-vertex attributes such as texture
 * coordinates along).
 */
export function compact(V: ArrayLike<number>, tris: ArrayLike<number>, source?: number[]): TriMesh {
  const map = new Map<number, number>();
  const out: number[] = [];
  const t = new Int32Array(tris.length);
  for (let i = 0; i < tris.length; i++) {
    let j = map.get(tris[i]);
    if (j === undefined) {
      j = map.size;
      map.set(tris[i], j);
      out.push(V[tris[i] * 3], V[tris[i] * 3 + 1], V[tris[i] * 3 + 2]);
      source?.push(tris[i]);
    }
    t[i] = j;
  }
  return { vertices: Float64Array.from(out), triangles: t };
}

/**
 * Scales a mesh per axis. A negative determinant (a mirror) reverses every triangle's winding so the
 * faces keep pointing outwards.
 */
export function scaleMesh(m: TriMesh, s: readonly number[]): TriMesh {
  const v = new Float64Array(m.vertices.length);
  for (let i = 0; i < v.length; i += 3) {
    v[i] = m.vertices[i] * s[0];
    v[i + 1] = m.vertices[i + 1] * s[1];
    v[i + 2] = m.vertices[i + 2] * s[2];
  }
  const t = Int32Array.from(m.triangles);
  if (s[0] * s[1] * s[2] < 0) {
    for (let i = 0; i < t.length; i += 3) {
      const x = t[i + 1];
      t[i + 1] = t[i + 2];
      t[i + 2] = x;
    }
  }
  return { vertices: v, triangles: t };
}

/**
 * Triangles for drawing with a texture: one vertex per distinct position and coordinate, from
 * triangles over `positions` (V × 3) with a texture coordinate per triangle corner (`cornerUv`, two
 * per entry of `tris`), so a vertex is split only where a texture seam meets it.
 */
export function splitAtSeams(
  positions: ArrayLike<number>,
  tris: ArrayLike<number>,
  cornerUv: ArrayLike<number>,
): { vertices: Float64Array; triangles: Int32Array; uv: Float32Array } {
  const slot = new Map<string, number>();
  const V: number[] = [];
  const UV: number[] = [];
  const T = new Int32Array(tris.length);
  for (let i = 0; i < tris.length; i++) {
    const p = tris[i],
      u = cornerUv[2 * i],
      v = cornerUv[2 * i + 1];
    const key = `${p} ${u} ${v}`;
    let j = slot.get(key);
    if (j === undefined) {
      j = UV.length / 2;
      slot.set(key, j);
      V.push(positions[3 * p], positions[3 * p + 1], positions[3 * p + 2]);
      UV.push(u, v);
    }
    T[i] = j;
  }
  return { vertices: Float64Array.from(V), triangles: T, uv: Float32Array.from(UV) };
}
