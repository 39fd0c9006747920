/**
 * Images of textured meshes: decoded once per scene from the bytes the worker sent (SceneInfo.textures)
 * into three.js textures. Decoding is asynchronous; a shape draws in its plain colour until its image
 * is ready, and keeps it when the image cannot be decoded.
 */
import * as THREE from 'three';
import type { TextureInfo } from '../../engine/worker/protocol';

/**
 * longest side an image is drawn at [px]: robot textures come at 2048² and more, 16 MiB of GPU
 * memory each (ANYmal C has seventeen); a quarter of that is plenty at the studio's view distances
 */
export const MAX_TEXTURE_SIZE = 1024;

/** what the renderer has made of the scene's images (read by the end-to-end tests) */
export const textureStatus = { requested: 0, ready: 0, failed: 0 };

export interface SceneTextures {
  /** the texture of image k, once decoded (null: it could not be) */
  get(k: number): Promise<THREE.Texture | null>;
  dispose(): void;
}

/** decodes a scene's images lazily (on first use), each once */
export function sceneTextures(infos: readonly TextureInfo[]): SceneTextures {
  const cache = new Map<number, Promise<THREE.Texture | null>>();
  const made: THREE.Texture[] = [];
  let disposed = false;
  textureStatus.requested = textureStatus.ready = textureStatus.failed = 0;
  return {
    get(k) {
      let hit = cache.get(k);
      if (hit) return hit;
      const info = infos[k];
      textureStatus.requested++;
      // COLLADA and OpenGL texture coordinates have v up: rows flipped at decoding, as three's
      // TextureLoader does with flipY for an <img>
      hit = createImageBitmap(new Blob([info.bytes as BlobPart], { type: info.mime }), {
        imageOrientation: 'flipY',
      })
        .then(async (full) => {
          const scale = MAX_TEXTURE_SIZE / Math.max(full.width, full.height);
          if (scale >= 1) return full;
          const small = await createImageBitmap(full, {
            resizeWidth: Math.max(1, Math.round(full.width * scale)),
            resizeHeight: Math.max(1, Math.round(full.height * scale)),
            resizeQuality: 'high',
          });
          full.close();
          return small;
        })
        .then((bitmap) => {
          if (disposed) {
            bitmap.close();
            return null;
          }
          const tex = new THREE.Texture(bitmap);
          tex.flipY = false;
          tex.colorSpace = THREE.SRGBColorSpace;
          tex.wrapS = tex.wrapT = THREE.RepeatWrapping;
          tex.anisotropy = 4;
          tex.needsUpdate = true;
          made.push(tex);
          textureStatus.ready++;
          return tex;
        })
        .catch((e: unknown) => {
          textureStatus.failed++;
          console.warn(`texture ${info.label} not drawn: ${e instanceof Error ? e.message : String(e)}`);
          return null;
        });
      cache.set(k, hit);
      return hit;
    },
    dispose() {
      disposed = true;
      for (const t of made) {
        (t.image as ImageBitmap | undefined)?.close?.();
        t.dispose();
      }
      made.length = 0;
    },
  };
}
