/** mesh files (STL, OBJ, COLLADA), convex hulls and bounding boxes (SPEC §5.2 "Meshes") */
import { MeshError } from '../assets/errors';
import { decodeText } from '../assets/resolver';
import { parseDae, mergeParts, type MeshPart } from './dae';
import { parseObj } from './obj';
import { parseStl } from './stl';
import type { TriMesh } from './types';

export * from './types';
export { parseStl, isBinaryStl } from './stl';
export {
  objMaterialLibraries,
  parseMtl,
  parseObj,
  parseObjParts,
  parseObjWithTexcoords,
  type MtlMaterial,
  type ObjTexcoords,
} from './obj';
export { parseDae, mergeParts, type MeshPart, type TexturedMesh } from './dae';
export { imageFile, imageMime, type ImageFile } from './image';
export { convexHull, orientedBoundingBox, type OrientedBox } from './hull';

/** mesh file extensions this reader understands */
export const MESH_EXTENSIONS = ['.stl', '.obj', '.dae'] as const;

/** the lower-case extension of a path ('' when none) */
export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot).toLowerCase();
}

/** parses mesh bytes by the file's extension (STL binary/ASCII, OBJ, COLLADA) as one mesh */
export function parseMeshBytes(bytes: Uint8Array, path: string): TriMesh {
  const ext = extensionOf(path);
  if (ext === '.stl') return parseStl(bytes, path);
  if (ext === '.obj') return parseObj(decodeText(bytes, path), path);
  if (ext === '.dae') return mergeParts(parseDae(decodeText(bytes, path), path));
  throw unreadable(ext, path);
}

/**
 * Parses mesh bytes into coloured parts: a COLLADA file gives one part per material (with its
 * diffuse colour), STL and OBJ one part without a colour.
 */
export function parseMeshParts(bytes: Uint8Array, path: string): MeshPart[] {
  if (extensionOf(path) === '.dae') return parseDae(decodeText(bytes, path), path);
  return [{ mesh: parseMeshBytes(bytes, path) }];
}

function unreadable(ext: string, path: string): MeshError {
  return new MeshError(
    `unsupported mesh format '${ext || '(none)'}' (readable: ${MESH_EXTENSIONS.join(', ')})`,
    path,
  );
}
