/** small models built in code for the pipeline's physics tests */
import { ModelBuilder, type SapModel } from '../model';

export interface BoxOpts {
  half?: [number, number, number];
  density?: number;
  mu?: number;
  ke?: number;
  tau?: number;
  z?: number;
}

/** one free box on the ground */
export function boxOnGround(o: BoxOpts = {}): SapModel {
  const [hx, hy, hz] = o.half ?? [0.1, 0.1, 0.1];
  const b = new ModelBuilder();
  b.default_shape = { ...b.default_shape, ke: o.ke ?? 1e6, tau: o.tau ?? 0.01, mu: o.mu ?? 0.5 };
  const box = b.addBody({ label: 'box', X_wb: [0, 0, o.z ?? hz, 0, 0, 0, 1] });
  b.addShape({ body: box, type: 'box', size: [hx, hy, hz], cfg: { density: o.density ?? 125 } });
  b.addJoint({ type: 'free', parent: -1, child: box, label: 'box_free' });
  b.addGround();
  return b.finalize();
}

/** one free sphere on the ground */
export function sphereOnGround(radius: number, mu: number): SapModel {
  const b = new ModelBuilder();
  b.default_shape = { ...b.default_shape, ke: 1e6, tau: 0.01, mu };
  const s = b.addBody({ label: 'ball', X_wb: [0, 0, radius, 0, 0, 0, 1] });
  b.addShape({ body: s, type: 'sphere', size: [radius, 0, 0], cfg: { density: 500 } });
  b.addJoint({ type: 'free', parent: -1, child: s });
  b.addGround();
  return b.finalize();
}

/** a stack of n cubes of half size h */
export function boxStack(n: number, h = 0.1, mu = 0.6, worlds = 1): SapModel {
  const b = new ModelBuilder();
  b.default_shape = { ...b.default_shape, ke: 1e6, tau: 0.01, mu };
  for (let i = 0; i < n; i++) {
    const body = b.addBody({ label: `box${i}`, X_wb: [0, 0, h + 2 * h * i, 0, 0, 0, 1] });
    b.addShape({ body, type: 'box', size: [h, h, h], cfg: { density: 125 } });
    b.addJoint({ type: 'free', parent: -1, child: body });
  }
  b.num_worlds = worlds;
  b.spacing = [1, 0, 0];
  b.addGround();
  return b.finalize();
}

/** `stacks` separate stacks of n cubes of half size h, 0.5 m apart along x (one island each) */
export function boxStacks(stacks: number, n: number, h = 0.1, mu = 0.6): SapModel {
  const b = new ModelBuilder();
  b.default_shape = { ...b.default_shape, ke: 1e6, tau: 0.01, mu };
  for (let s = 0; s < stacks; s++) {
    for (let i = 0; i < n; i++) {
      const body = b.addBody({ label: `box${s}_${i}`, X_wb: [0.5 * s, 0, h + 2 * h * i, 0, 0, 0, 1] });
      b.addShape({ body, type: 'box', size: [h, h, h], cfg: { density: 125 } });
      b.addJoint({ type: 'free', parent: -1, child: body });
    }
  }
  b.addGround();
  return b.finalize();
}

/** a compound pendulum about y: rod (capsule) plus bob, pivot at height 2 */
export function pendulum(friction = 0): SapModel {
  const b = new ModelBuilder();
  const link = b.addBody({ label: 'link', X_wb: [0, 0, 2, 0, 0, 0, 1] });
  b.addShape({
    body: link,
    type: 'capsule',
    size: [0.02, 0.4, 0],
    X_bs: [0, 0, -0.4, 0, 0, 0, 1],
    cfg: { density: 1000 },
  });
  b.addShape({
    body: link,
    type: 'sphere',
    size: [0.08, 0, 0],
    X_bs: [0, 0, -0.85, 0, 0, 0, 1],
    cfg: { density: 2000 },
  });
  b.addJoint({
    type: 'revolute',
    parent: -1,
    child: link,
    axis: [0, 1, 0],
    X_p: [0, 0, 2, 0, 0, 0, 1],
    label: 'hinge',
    friction,
  });
  return b.finalize();
}

/** an asymmetric free box in zero gravity */
export function spinningBox(): SapModel {
  const b = new ModelBuilder();
  b.gravity = [0, 0, 0];
  const body = b.addBody({ label: 'box', X_wb: [0, 0, 1, 0, 0, 0, 1] });
  b.addShape({ body, type: 'box', size: [0.2, 0.15, 0.1], cfg: { density: 500 } });
  b.addJoint({ type: 'free', parent: -1, child: body });
  return b.finalize();
}

/**
 * A rod for pendulums and chains: a body at (x, 0, z) with a capsule (radius 0.02 m, 0.5 m long,
 * 1000 kg/m³) hanging below its origin. Returns the body index; add its joint separately.
 */
export function rod(b: ModelBuilder, label: string, x: number, z = 2): number {
  const body = b.addBody({ label, X_wb: [x, 0, z, 0, 0, 0, 1] });
  b.addShape({
    body,
    type: 'capsule',
    size: [0.02, 0.25, 0],
    X_bs: [0, 0, -0.25, 0, 0, 0, 1],
    cfg: { density: 1000 },
  });
  return body;
}

/** a revolute joint of `child` about `axis`, placed at `at` [m] in `parent`'s frame (−1: the world) */
export function hinge(
  b: ModelBuilder,
  child: number,
  parent: number,
  axis: [number, number, number],
  at: [number, number, number],
): number {
  return b.addJoint({ type: 'revolute', parent, child, axis, X_p: [...at, 0, 0, 0, 1] });
}
