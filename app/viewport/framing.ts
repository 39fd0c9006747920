/**
 * Camera framing from where the bodies are now, not where they were at load: a robot that fell or
 * slid away is framed where it lies. Pure functions over the scene description and a pose buffer.
 */
import type { SceneInfo } from '../../engine/worker/protocol';
import { SHAPE } from './geometry';

/** an axis-aligned box [m] */
export interface Extent {
  center: [number, number, number];
  /** half the box diagonal [m] */
  radius: number;
}

/** largest distance from the shape's centre to its surface (a bound) [m] */
function shapeReach(scene: SceneInfo, s: SceneInfo['shapes'][number]): number {
  const [a, b, c] = s.size;
  switch (s.type) {
    case SHAPE.SPHERE:
      return a;
    case SHAPE.ELLIPSOID:
      return Math.max(a, b, c);
    case SHAPE.BOX:
      return Math.hypot(a, b, c);
    case SHAPE.CYLINDER:
    case SHAPE.CONE:
      return Math.hypot(a, b);
    case SHAPE.CAPSULE:
      return a + b;
    case SHAPE.MESH:
    case SHAPE.CONVEX_MESH: {
      const m = s.mesh >= 0 ? scene.meshes[s.mesh] : undefined;
      if (!m) return 0;
      const scale = Math.max(Math.abs(a || 1), Math.abs(b || 1), Math.abs(c || 1));
      let r2 = 0;
      const v = m.vertices;
      for (let i = 0; i + 2 < v.length; i += 3)
        r2 = Math.max(r2, v[i] * v[i] + v[i + 1] * v[i + 1] + v[i + 2] * v[i + 2]);
      return Math.sqrt(r2) * scale;
    }
    default:
      return 0; // planes and heightfields are ground: never framed
  }
}

/** per body: the radius of a ball around its origin that holds all its shapes [m] */
export function bodyReach(scene: SceneInfo): Float64Array {
  const reach = new Float64Array(scene.body_count);
  for (const s of scene.shapes) {
    if (s.body < 0 || s.body >= scene.body_count) continue;
    const p = s.X_bs;
    const r = Math.hypot(p[0], p[1], p[2]) + shapeReach(scene, s);
    if (r > reach[s.body]) reach[s.body] = r;
  }
  return reach;
}

/**
 * the box around every body as posed in `poses` (7 per body: p, q) with its reach, plus static
 * shapes other than ground, each world shifted by its display offset; null when there is nothing
 * to frame (no bodies, or poses that are not finite)
 */
export function liveExtent(scene: SceneInfo, poses: ArrayLike<number>, reach: Float64Array): Extent | null {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  const add = (x: number, y: number, z: number, r: number) => {
    if (!Number.isFinite(x + y + z + r)) return;
    lo[0] = Math.min(lo[0], x - r);
    lo[1] = Math.min(lo[1], y - r);
    lo[2] = Math.min(lo[2], z - r);
    hi[0] = Math.max(hi[0], x + r);
    hi[1] = Math.max(hi[1], y + r);
    hi[2] = Math.max(hi[2], z + r);
  };
  const n = Math.min(scene.body_count, Math.floor(poses.length / 7));
  for (let b = 0; b < n; b++) {
    const off = scene.world_offset[scene.body_world[b]] ?? [0, 0, 0];
    add(poses[7 * b] + off[0], poses[7 * b + 1] + off[1], poses[7 * b + 2] + off[2], reach[b]);
  }
  for (const s of scene.shapes) {
    if (s.body >= 0) continue;
    const r = shapeReach(scene, s);
    if (r > 0) add(s.X_bs[0], s.X_bs[1], s.X_bs[2], r);
  }
  if (!(lo[0] <= hi[0])) return null;
  const half = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) / 2;
  return {
    center: [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2],
    radius: Math.max(0.25, half),
  };
}

/** named camera directions (from the target towards the camera; z up) */
export const CAMERA_PRESETS = {
  front: [0, -1, 0.12],
  side: [1, 0, 0.12],
  top: [0.0001, -0.0001, 1],
  iso: [1, -1.6, 0.9],
} as const;
export type CameraPreset = keyof typeof CAMERA_PRESETS;
