import { describe, expect, it } from 'vitest';
import { imageMime } from './image';

const bytes = (...b: (number | string)[]) =>
  Uint8Array.from(b.flatMap((x) => (typeof x === 'string' ? [...x].map((c) => c.charCodeAt(0)) : [x])));

describe('imageMime', () => {
  it('tells the image kinds browsers decode by their leading bytes', () => {
    expect(imageMime(bytes(0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 'JFIF'))).toBe('image/jpeg');
    expect(imageMime(bytes(0x89, 'PNG', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13))).toBe('image/png');
    expect(imageMime(bytes('GIF89a', 1, 0))).toBe('image/gif');
    expect(imageMime(bytes('BM', 0x36, 0, 0, 0))).toBe('image/bmp');
    expect(imageMime(bytes('RIFF', 0x24, 0, 0, 0, 'WEBPVP8 '))).toBe('image/webp');
  });

  it('leaves out what browsers do not decode, and what is too short to tell', () => {
    expect(imageMime(bytes(0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0))).toBeUndefined(); // TGA
    expect(imageMime(bytes('DDS ', 124, 0, 0, 0))).toBeUndefined();
    expect(imageMime(bytes('II*', 0))).toBeUndefined(); // TIFF
    expect(imageMime(bytes('RIFF', 0, 0, 0, 0, 'WAVE'))).toBeUndefined();
    expect(imageMime(bytes(0x89, 'PN'))).toBeUndefined();
    expect(imageMime(new Uint8Array(0))).toBeUndefined();
  });
});
