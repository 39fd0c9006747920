/**
 * Wavefront OBJ reader: `v` positions, `vt` texture coordinates and `f` faces (`i`, `i/t`, `i//n`,
 * `i/t/n`; negative indices count back from the last vertex or coordinate read; polygons are
 * fan-triangulated). Every object and group is merged into one mesh; `usemtl` materials, with the
 * colours and diffuse maps of a companion MTL file ({@link parseMtl}), split it into coloured parts
 * for drawing ({@link parseObjParts}). Normals are ignored.
 */
import { MeshError } from '../assets/errors';
import type { MeshPart } from './dae';
import {
  MAX_LINE_CHARS,
  MAX_MESH_TRIANGLES,
  MAX_MESH_VERTICES,
  MAX_POLYGON_VERTICES,
  cleanTriangles,
  compact,
  linesOf,
  longLineError,
  splitAtSeams,
  type TriMesh,
} from './types';

/** an OBJ's triangles for drawing with a texture: a vertex per distinct position and coordinate */
export interface ObjTexcoords {
  mesh: TriMesh;
  /** (V × 2) texture coordinates of `mesh`'s vertices (u, v; v up, as OBJ has them) */
  uv: Float32Array;
}

/** parses OBJ text into one mesh, welded by position */
export function parseObj(text: string, file?: string, maxTriangles = MAX_MESH_TRIANGLES): TriMesh {
  return welded(readObj(text, file, maxTriangles), file);
}

/** the file's triangles over its positions, zero-area triangles dropped */
function welded(r: ObjData, file?: string): TriMesh {
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
  const mesh = welded(r, file);
  const texcoords = texcoordsOf(r, r.tris, r.corner, file);
  return texcoords ? { mesh, texcoords } : { mesh };
}

/**
 * triangles `tris` (position indices into r.verts, corners' coordinates `corner`) split where the
 * coordinates differ; undefined when a corner names no coordinate
 */
function texcoordsOf(r: ObjData, tris: number[], corner: number[], file?: string): ObjTexcoords | undefined {
  if (r.vt.length === 0 || corner.some((t) => t < 0)) return undefined;
  const cornerUv = new Float64Array(corner.length * 2);
  for (let i = 0; i < corner.length; i++) {
    cornerUv[2 * i] = r.vt[2 * corner[i]];
    cornerUv[2 * i + 1] = r.vt[2 * corner[i] + 1];
  }
  const seams = splitAtSeams(r.verts, tris, cornerUv);
  // zero-area triangles dropped as in the welded mesh, the coordinates carried along
  const source: number[] = [];
  const split = cleanTriangles({ vertices: seams.vertices, triangles: seams.triangles }, file, source);
  const uv = new Float32Array(source.length * 2);
  for (let i = 0; i < source.length; i++) {
    uv[2 * i] = seams.uv[2 * source[i]];
    uv[2 * i + 1] = seams.uv[2 * source[i] + 1];
  }
  return { mesh: split, uv };
}

/** a material of an MTL file, as far as drawing reads it */
export interface MtlMaterial {
  /** `Kd`: the diffuse colour, RGB in 0…1 (display values, as three.js's MTLLoader reads them) */
  color?: [number, number, number];
  /** `map_Kd`: the diffuse image as the MTL names it (relative to the MTL file) */
  map?: string;
}

/**
 * Parses MTL text into its materials by name (`newmtl`, `Kd`, `map_Kd`; options before a map's
 * file name are skipped). A bad colour is a located MeshError.
 */
export function parseMtl(text: string, file?: string): Map<string, MtlMaterial> {
  const out = new Map<string, MtlMaterial>();
  let cur: MtlMaterial | undefined;
  const lines = linesOf(text, file);
  for (let i = 0; i < lines.length; i++) {
    const s = lines[i].trim();
    const p = s.split(/\s+/);
    const key = p[0];
    if (key === 'newmtl') {
      cur = {};
      out.set(s.slice(6).trim(), cur);
    } else if (key === 'Kd' && cur) {
      const c = p.slice(1, 4).map(Number);
      if (c.length < 3 || !c.every(Number.isFinite))
        throw new MeshError(`bad colour '${s.slice(0, 80)}'`, file, i + 1);
      cur.color = [c[0], c[1], c[2]].map((x) => Math.min(1, Math.max(0, x))) as [number, number, number];
    } else if (key === 'map_Kd' && cur && p.length > 1) {
      cur.map = p[p.length - 1].replace(/\\/g, '/');
    }
  }
  return out;
}

/** the MTL files an OBJ text names (`mtllib`), as written (relative to the OBJ file) */
export function objMaterialLibraries(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^[ \t]*mtllib[ \t]+(.+?)[ \t]*$/gm)) out.push(m[1].replace(/\\/g, '/'));
  return out;
}

/**
 * Parses OBJ text into parts for drawing: one part per `usemtl` material that `materials` (the
 * file's MTL) defines, with its `Kd` colour and, when it has a `map_Kd` and every corner of the
 * part names a texture coordinate, its image (`mapDir` + the map's name, relative to the OBJ); the
 * faces of undefined or no materials form one part without colour. Without materials it is one
 * part. `mesh` is the whole file welded by position, as {@link parseObj} reads it (for colliders).
 */
export function parseObjParts(
  text: string,
  file: string | undefined,
  materials: Map<string, MtlMaterial & { mapDir?: string }>,
): { mesh: TriMesh; parts: MeshPart[] } {
  const r = readObj(text, file, MAX_MESH_TRIANGLES);
  const mesh = welded(r, file);
  const used = r.materials.map((name) => materials.get(name));
  if (!used.some((m) => m !== undefined)) return { mesh, parts: [{ mesh }] };
  // triangles grouped by defined material, the rest under −1
  const groups = new Map<number, { tris: number[]; corner: number[] }>();
  for (let t = 0; t < r.triMaterial.length; t++) {
    const m = used[r.triMaterial[t]] === undefined ? -1 : r.triMaterial[t];
    let g = groups.get(m);
    if (!g) groups.set(m, (g = { tris: [], corner: [] }));
    for (let e = 0; e < 3; e++) {
      g.tris.push(r.tris[t * 3 + e]);
      g.corner.push(r.corner[t * 3 + e]);
    }
  }
  const parts: MeshPart[] = [];
  for (const [m, g] of [...groups].sort((a, b) => a[0] - b[0])) {
    let partMesh: TriMesh;
    try {
      partMesh = cleanTriangles(compact(r.verts, g.tris), file);
    } catch {
      continue; // a material whose faces all have zero area draws nothing
    }
    const mat = m < 0 ? undefined : used[m];
    const part: MeshPart = { mesh: partMesh };
    if (m >= 0) part.name = r.materials[m];
    if (mat?.color) part.color = mat.color;
    if (mat?.map) {
      const tex = texcoordsOf(r, g.tris, g.corner, file);
      if (tex) part.textured = { image: (mat.mapDir ?? '') + mat.map, mesh: tex.mesh, uv: tex.uv };
    }
    parts.push(part);
  }
  return { mesh, parts };
}

/** what {@link readObj} reads of an OBJ file */
interface ObjData {
  /** (V × 3) positions */
  verts: number[];
  /** (T × 3) position indices */
  tris: number[];
  /** (C × 2) texture coordinates */
  vt: number[];
  /** (T × 3) each triangle corner's coordinate index, −1 where the face names none */
  corner: number[];
  /** (T) each triangle's material (index into `materials`), −1 before any `usemtl` */
  triMaterial: number[];
  /** the `usemtl` names in order of first use */
  materials: string[];
}

/**
 * the file's positions, triangles (position indices) and texture coordinates, with each triangle
 * corner's coordinate index (−1 where the face names none) and material
 */
function readObj(text: string, file: string | undefined, maxTriangles: number): ObjData {
  const verts: number[] = [];
  const tris: number[] = [];
  const vt: number[] = [];
  const corner: number[] = [];
  const triMaterial: number[] = [];
  const materials: string[] = [];
  let material = -1;
  let line = 0;
  let start = 0;
  const n = text.length;
  while (start <= n) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = n;
    line++;
    if (end - start > MAX_LINE_CHARS) throw longLineError(end - start, file, line);
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
    } else if (s.startsWith('usemtl') && (s[6] === ' ' || s[6] === '\t')) {
      const name = s.slice(7).trim();
      material = materials.indexOf(name);
      if (material < 0) material = materials.push(name) - 1;
    } else if (s[0] === 'f' && (s[1] === ' ' || s[1] === '\t')) {
      const p = s.split(/\s+/);
      if (p.length - 1 > MAX_POLYGON_VERTICES) {
        throw new MeshError(
          `polygon of ${p.length - 1} vertices exceeds max_polygon_vertices = ${MAX_POLYGON_VERTICES}`,
          file,
          line,
        );
      }
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
        triMaterial.push(material);
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
  return { verts, tris, vt, corner, triMaterial, materials };
}
