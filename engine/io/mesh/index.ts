/** mesh files (STL, OBJ), convex hulls and bounding boxes (SPEC §5.2 "Meshes") */
import { MeshError } from '../assets/errors';
import { decodeText } from '../assets/resolver';
import { parseObj } from './obj';
import { parseStl } from './stl';
import type { TriMesh } from './types';

export * from './types';
export { parseStl, isBinaryStl } from './stl';
export { parseObj } from './obj';
export { convexHull, orientedBoundingBox, type OrientedBox } from './hull';

/** mesh file extensions this reader understands */
export const MESH_EXTENSIONS = ['.stl', '.obj'] as const;

/** the lower-case extension of a path ('' when none) */
export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot).toLowerCase();
}

/** parses mesh bytes by the file's extension (STL binary/ASCII, OBJ) */
export function parseMeshBytes(bytes: Uint8Array, path: string): TriMesh {
  const ext = extensionOf(path);
  if (ext === '.stl') return parseStl(bytes, path);
  if (ext === '.obj') return parseObj(decodeText(bytes), path);
  throw new MeshError(
    `unsupported mesh format '${ext || '(none)'}' (readable: ${MESH_EXTENSIONS.join(', ')})`,
    path,
  );
}
