/**
 * Wavefront OBJ reader: `v` positions, `vt` texture coordinates and `f` faces (`i`, `i/t`, `i//n`,
 * `i/t/n`; negative indices count back from the last vertex or coordinate read; polygons are
 * fan-triangulated). Every object and group is merged into one mesh; materials and normals are
 * ignored.
 */
import { MeshError } from '../assets/errors';
import { MAX_MESH_TRIANGLES, MAX_MESH_VERTICES, cleanTriangles, splitAtSeams, type TriMesh } from './types';

/** an OBJ's triangles for drawing with a texture: a vertex per distinct position and coordinate */
export interface ObjTexcoords {
  mesh: TriMesh;
  /** (V × 2) texture coordinates of `mesh`'s vertices (u, v; v up, as OBJ has them) */
  uv: Float32Array;
}

/** parses OBJ text into one mesh, welded by position */
export function parseObj(text: string, file?: string, maxTriangles = MAX_MESH_TRIANGLES): TriMesh {
  const r = readObj(text, file, maxTriangles);
  return cleanTriangles({ vertices: Float64Array.from(r.verts), triangles: Int32Array.from(r.tris) }, file);
}

/**
 * Parses OBJ text into its mesh (welded by position, as {@link parseObj}) and, when every face
 * corner names a texture coordinate, the same triangles split where the coordinates differ.
 */
export function parseObjWithTexcoords(
  text: string,
  file?: string,
  maxTriangles = MAX_MESH_TRIANGLES,
): { mesh: TriMesh; texcoords?: ObjTexcoords } {
  const r = readObj(text, file, maxTriangles);
  const mesh = cleanTriangles(
    { vertices: Float64Array.from(r.verts), triangles: Int32Array.from(r.tris) },
    file,
  );
  if (r.vt.length === 0 || r.corner.some((t) => t < 0)) return { mesh };
  const cornerUv = new Float64Array(r.corner.length * 2);
  for (let i = 0; i < r.corner.length; i++) {
    cornerUv[2 * i] = r.vt[2 * r.corner[i]];
    cornerUv[2 * i + 1] = r.vt[2 * r.corner[i] + 1];
  }
  const seams = splitAtSeams(r.verts, r.tris, cornerUv);
  // zero-area triangles dropped as in the welded mesh, the coordinates carried along
  const source: number[] = [];
  const split = cleanTriangles({ vertices: seams.vertices, triangles: seams.triangles }, file, source);
  const uv = new Float32Array(source.length * 2);
  for (let i = 0; i < source.length; i++) {
    uv[2 * i] = seams.uv[2 * source[i]];
    uv[2 * i + 1] = seams.uv[2 * source[i] + 1];
  }
  return { mesh, texcoords: { mesh: split, uv } };
}

/**
 * the file's positions, triangles (position indices) and texture coordinates, with each triangle
 * corner's coordinate index (−1 where the face names none)
 */
function readObj(
  text: string,
  file: string | undefined,
  maxTriangles: number,
): { verts: number[]; tris: number[]; vt: number[]; corner: number[] } {
  const verts: number[] = [];
  const tris: number[] = [];
  const vt: number[] = [];
  const corner: number[] = [];
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
    } else if (s[0] === 'v' && s[1] === 't' && (s[2] === ' ' || s[2] === '\t')) {
      const p = s.split(/\s+/);
      const u = Number(p[1]),
        v = p.length > 2 ? Number(p[2]) : 0;
      if (p.length < 2 || !Number.isFinite(u) || !Number.isFinite(v)) {
        throw new MeshError(`bad texture coordinate '${s.slice(0, 80)}'`, file, line);
      }
      vt.push(u, v);
      if (vt.length > MAX_MESH_VERTICES * 2) {
        throw new MeshError(
          `more than ${MAX_MESH_VERTICES} texture coordinates: exceeds max_mesh_vertices = ${MAX_MESH_VERTICES}`,
          file,
          line,
        );
      }
    } else if (s[0] === 'f' && (s[1] === ' ' || s[1] === '\t')) {
      const p = s.split(/\s+/);
      const count = verts.length / 3;
      const nvt = vt.length / 2;
      const idx: number[] = [];
      const tex: number[] = [];
      for (let k = 1; k < p.length; k++) {
        const tok = p[k];
        const slash = tok.indexOf('/');
        const i = Number(slash < 0 ? tok : tok.slice(0, slash));
        // the coordinate index: between the first and second slash, when given
        const tTok = slash < 0 ? '' : tok.slice(slash + 1).split('/')[0];
        let t = -1;
        if (tTok !== '') {
          const ti = Number(tTok);
          if (!Number.isInteger(ti) || ti === 0) throw new MeshError(`bad face index '${tok}'`, file, line);
          t = ti > 0 ? ti - 1 : nvt + ti;
          if (t < 0 || t >= nvt) {
            throw new MeshError(
              `face texture index ${ti} refers to a coordinate that does not exist (${nvt} so far)`,
              file,
              line,
            );
          }
        }
        tex.push(t);
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
      for (let k = 1; k + 1 < idx.length; k++) {
        tris.push(idx[0], idx[k], idx[k + 1]);
        corner.push(tex[0], tex[k], tex[k + 1]);
      }
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
  return { verts, tris, vt, corner };
}
