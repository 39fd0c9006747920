/**
 * Wavefront OBJ reader: `v` positions and `f` faces (`i`, `i/t`, `i//n`, `i/t/n`; negative indices
 * count back from the last vertex read; polygons are fan-triangulated). Every object and group
 * is merged into one mesh; materials, normals and texture coordinates are ignored.
 */
import { MeshError } from '../assets/errors';
import { MAX_MESH_TRIANGLES, MAX_MESH_VERTICES, cleanTriangles, type TriMesh } from './types';

/** parses OBJ text */
export function parseObj(text: string, file?: string, maxTriangles = MAX_MESH_TRIANGLES): TriMesh {
  const verts: number[] = [];
  const tris: number[] = [];
  let line = 0;
  let start = 0;
  const n = text.length;
  while (start <= n) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = n;
    line++;
    const raw = text.slice(start, end);
    start = end + 1;
    const s = raw.trim();
    if (s.length < 2) continue;
    if (s[0] === 'v' && (s[1] === ' ' || s[1] === '\t')) {
      const p = s.split(/\s+/);
      const x = Number(p[1]),
        y = Number(p[2]),
        z = Number(p[3]);
      if (p.length < 4 || !Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) {
        throw new MeshError(`bad vertex '${s.slice(0, 80)}'`, file, line);
      }
      verts.push(x, y, z);
      if (verts.length > MAX_MESH_VERTICES * 3) {
        throw new MeshError(
          `more than ${MAX_MESH_VERTICES} vertices: exceeds max_mesh_vertices = ${MAX_MESH_VERTICES}`,
          file,
          line,
        );
      }
    } else if (s[0] === 'f' && (s[1] === ' ' || s[1] === '\t')) {
      const p = s.split(/\s+/);
      const count = verts.length / 3;
      const idx: number[] = [];
      for (let k = 1; k < p.length; k++) {
        const tok = p[k];
        const slash = tok.indexOf('/');
        const i = Number(slash < 0 ? tok : tok.slice(0, slash));
        if (!Number.isInteger(i) || i === 0) throw new MeshError(`bad face index '${tok}'`, file, line);
        const v = i > 0 ? i - 1 : count + i;
        if (v < 0 || v >= count) {
          throw new MeshError(
            `face index ${i} refers to a vertex that does not exist (${count} so far)`,
            file,
            line,
          );
        }
        idx.push(v);
      }
      if (idx.length < 3) throw new MeshError(`face with ${idx.length} vertices`, file, line);
      for (let k = 1; k + 1 < idx.length; k++) tris.push(idx[0], idx[k], idx[k + 1]);
      if (tris.length > maxTriangles * 3) {
        throw new MeshError(
          `more than ${maxTriangles} triangles: exceeds max_mesh_triangles = ${maxTriangles}`,
          file,
          line,
        );
      }
    }
  }
  if (tris.length === 0) throw new MeshError('OBJ without faces', file, line);
  return cleanTriangles({ vertices: Float64Array.from(verts), triangles: Int32Array.from(tris) }, file);
}
