/**
 * STL reader (binary and ASCII). The format is decided by the size formula of binary STL,
 * `84 + 50·n` bytes with n the triangle count at byte 80, never by the header: binary files may
 * begin with the bytes `solid` too. Identical vertices are welded; zero-area faces are dropped.
 */
import { MeshError } from '../assets/errors';
import { MAX_MESH_TRIANGLES, cleanTriangles, linesOf, type TriMesh } from './types';

/** whether `bytes` is a binary STL by the size formula */
export function isBinaryStl(bytes: Uint8Array): boolean {
  if (bytes.length < 84) return false;
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(80, true);
  return 84 + 50 * n === bytes.length;
}

/** welds identical vertices: maps float triples to indices */
class Welder {
  readonly coords: number[] = [];
  private readonly index = new Map<string, number>();
  add(x: number, y: number, z: number): number {
    const key = `${x},${y},${z}`;
    let i = this.index.get(key);
    if (i === undefined) {
      i = this.coords.length / 3;
      this.coords.push(x, y, z);
      this.index.set(key, i);
    }
    return i;
  }
}

/** parses an STL file (binary or ASCII) */
export function parseStl(bytes: Uint8Array, file?: string, maxTriangles = MAX_MESH_TRIANGLES): TriMesh {
  if (isBinaryStl(bytes)) return parseBinary(bytes, file, maxTriangles);
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, Math.min(bytes.length, 512)));
  if (/^\s*solid/i.test(head)) return parseAscii(new TextDecoder('utf-8').decode(bytes), file, maxTriangles);
  throw new MeshError(
    bytes.length >= 84
      ? `not an STL file: ${bytes.length} bytes does not match the binary size 84 + 50·n and there is no 'solid' header`
      : `not an STL file (${bytes.length} bytes)`,
    file,
    undefined,
    bytes.length >= 84 ? 80 : 0,
  );
}

function parseBinary(bytes: Uint8Array, file: string | undefined, maxTriangles: number): TriMesh {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = dv.getUint32(80, true);
  if (n > maxTriangles) {
    throw new MeshError(`${n} triangles exceed max_mesh_triangles = ${maxTriangles}`, file, undefined, 80);
  }
  const w = new Welder();
  const tris = new Int32Array(n * 3);
  for (let t = 0; t < n; t++) {
    const o = 84 + t * 50 + 12; // skip the normal
    for (let k = 0; k < 3; k++) {
      const p = o + k * 12;
      const x = dv.getFloat32(p, true),
        y = dv.getFloat32(p + 4, true),
        z = dv.getFloat32(p + 8, true);
      if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) {
        throw new MeshError(`triangle ${t} has a non-finite vertex (${x}, ${y}, ${z})`, file, undefined, p);
      }
      tris[t * 3 + k] = w.add(x, y, z);
    }
  }
  return cleanTriangles({ vertices: Float64Array.from(w.coords), triangles: tris }, file);
}

function parseAscii(text: string, file: string | undefined, maxTriangles: number): TriMesh {
  const w = new Welder();
  const tris: number[] = [];
  const lines = linesOf(text, file);
  let pending = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line.startsWith('vertex')) {
      if (line.startsWith('endloop') && pending % 3 !== 0) {
        throw new MeshError(`facet with ${pending % 3} vertices (expected 3)`, file, i + 1);
      }
      continue;
    }
    const parts = line.split(/\s+/);
    const x = Number(parts[1]),
      y = Number(parts[2]),
      z = Number(parts[3]);
    if (parts.length < 4 || !Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) {
      throw new MeshError(`bad vertex line '${line.slice(0, 80)}'`, file, i + 1);
    }
    tris.push(w.add(x, y, z));
    pending++;
    if (tris.length > maxTriangles * 3) {
      throw new MeshError(
        `more than ${maxTriangles} triangles: exceeds max_mesh_triangles = ${maxTriangles}`,
        file,
        i + 1,
      );
    }
  }
  if (tris.length % 3 !== 0) throw new MeshError('vertex count is not a multiple of 3', file, lines.length);
  if (tris.length === 0) throw new MeshError('ASCII STL without facets', file, lines.length);
  return cleanTriangles({ vertices: Float64Array.from(w.coords), triangles: Int32Array.from(tris) }, file);
}
