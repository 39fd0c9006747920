/** image files that textured meshes reference: which kind an image file is */

/** image kinds every browser decodes, by their leading bytes */
const SIGNATURES: { mime: string; bytes: number[] }[] = [
  { mime: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { mime: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { mime: 'image/gif', bytes: [0x47, 0x49, 0x46, 0x38] },
  { mime: 'image/bmp', bytes: [0x42, 0x4d] },
];

/**
 * The MIME type of an image file from its content (JPEG, PNG, GIF, BMP, WebP), or undefined when
 * it is none of these (TGA, DDS, TIFF and the like, which browsers do not decode).
 */
export function imageMime(bytes: Uint8Array): string | undefined {
  for (const s of SIGNATURES) {
    if (bytes.length >= s.bytes.length && s.bytes.every((b, i) => bytes[i] === b)) return s.mime;
  }
  // RIFF....WEBP
  const ascii = (o: number, n: number) => String.fromCharCode(...bytes.subarray(o, o + n));
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') return 'image/webp';
  return undefined;
}

/** an image file that textured meshes draw with */
export interface ImageFile {
  /** the resolved path (one model texture per path) */
  path: string;
  mime: string;
  bytes: Uint8Array;
}

/** an image file from its bytes, or why it cannot be drawn (a kind browsers do not decode) */
export function imageFile(path: string, bytes: Uint8Array): ImageFile | string {
  const mime = imageMime(bytes);
  return mime ? { path, mime, bytes } : 'not a JPEG, PNG, GIF, BMP or WebP image';
}
