import { describe, expect, it } from 'vitest';
import type { SceneInfo } from '../../engine/worker/protocol';
import { SHAPE } from './geometry';
import { bodyReach, liveExtent } from './framing';

function scene(): SceneInfo {
  const shape = (body: number, type: number, size: number[], p = [0, 0, 0]) => ({
    type,
    body,
    world: body < 0 ? -1 : 0,
    size,
    X_bs: [...p, 0, 0, 0, 1],
    color: [1, 1, 1],
    flags: 0,
    mesh: -1,
    hfield: -1,
    label: '',
  });
  return {
    body_count: 2,
    body_world: [0, 0],
    world_offset: [[0, 0, 0]],
    meshes: [],
    shapes: [
      shape(-1, SHAPE.PLANE, [0, 0, 0]),
      shape(0, SHAPE.SPHERE, [0.1, 0, 0]),
      shape(1, SHAPE.BOX, [0.1, 0.2, 0.2], [0, 0, 0.5]),
    ],
  } as unknown as SceneInfo;
}

describe('framing from the live poses', () => {
  it("a body's reach holds its shapes (offset included)", () => {
    const r = bodyReach(scene());
    expect(r[0]).toBeCloseTo(0.1, 12);
    expect(r[1]).toBeCloseTo(0.5 + 0.3, 12);
  });
  it('frames bodies where they are now, ignoring the ground plane', () => {
    const s = scene();
    const reach = bodyReach(s);
    // both bodies fell 40 m away along x
    const poses = [40, 0, 0.1, 0, 0, 0, 1, 40, 1, 0.1, 0, 0, 0, 1];
    const e = liveExtent(s, poses, reach)!;
    expect(e.center[0]).toBeCloseTo(40, 6);
    expect(e.radius).toBeLessThan(2);
    expect(e.radius).toBeGreaterThan(0.5);
  });
  it('skips non-finite poses and returns null when nothing is left', () => {
    const s = scene();
    expect(liveExtent(s, [NaN, 0, 0, 0, 0, 0, 1, Infinity, 0, 0, 0, 0, 0, 1], bodyReach(s))).toBeNull();
  });
});
