/**
 * A small built model with ball-joint cone limits (pipeline/cone_limits.ts) for the GPU parity
 * tests, in one world or replicated (no contacts: the bodies stay apart):
 *   - a hanging rod on a ball joint with an elliptical swing cone (0.3 rad toward b₁, 0.5 rad
 *     toward b₂ of its axis −z; compliant, k = 1e4, kd = 20), tilted 0.2 rad and kicked sideways;
 *   - a rod on a ball joint whose rotation angle is limited to 0.4 rad (rigid), spun about a
 *     tilted axis so twist and swing both count;
 *   - a rod on a hinge carrying a second rod on a ball joint with a swing cone about a skewed axis
 *     (a cone row on DOFs 1 ..3 of its tree; k = 5e3, kd = 10);
 *   - a ball joint with a cone too wide to reach within a step (a slot without rows).
 */
import { quatFromAxisAngle } from '../../../math';
import { ModelBuilder } from '../../../model';
import { hinge, rod } from '../../../pipeline/test_scenes';
import type { TestScene } from './parity';

/** a unit quaternion (x, y, z, w) of `angle` [rad] about `axis` (normalized here) */
function quat(axis: [number, number, number], angle: number): number[] {
  const n = Math.hypot(...axis);
  const q = new Float64Array(4);
  quatFromAxisAngle(axis[0] / n, axis[1] / n, axis[2] / n, angle, q, 0);
  return [...q];
}

/** the cone-limit test model */
export function coneScene(num_worlds = 1): TestScene {
  const b = new ModelBuilder();
  b.num_worlds = num_worlds;
  const s = rod(b, 'swing', 0);
  const js = b.addJoint({
    type: 'ball',
    parent: -1,
    child: s,
    X_p: [0, 0, 2, 0, 0, 0, 1],
    axis: [0, 0, -1],
    cone_mode: 'swing',
    cone_limit: [0.3, 0.5],
    limit_ke: 1e4,
    limit_kd: 20,
  });
  b.jointQ(js).splice(0, 4, ...quat([1, 0, 0], 0.2));
  b.jointQd(js).splice(0, 3, 1.5, 3, 0.5);
  const r = rod(b, 'rotation', 1);
  const jr = b.addJoint({
    type: 'ball',
    parent: -1,
    child: r,
    X_p: [1, 0, 2, 0, 0, 0, 1],
    cone_mode: 'rotation',
    cone_limit: 0.4,
    limit_ke: Infinity,
  });
  b.jointQ(jr).splice(0, 4, ...quat([0, 1, 1], 0.1));
  b.jointQd(jr).splice(0, 3, 0.5, 2, 3);
  const u = rod(b, 'upper', 2);
  const ju = hinge(b, u, -1, [0, 1, 0], [2, 0, 2]);
  b.jointQd(ju)[0] = 1;
  const l = rod(b, 'lower', 2, 1.5);
  const jl = b.addJoint({
    type: 'ball',
    parent: u,
    child: l,
    X_p: [0, 0, -0.5, 0, 0, 0, 1],
    axis: [0.6, 0, -0.8],
    cone_mode: 'swing',
    cone_limit: [0.6, 0.25],
    limit_ke: 5e3,
    limit_kd: 10,
  });
  b.jointQd(jl).splice(0, 3, -2, 1, 0);
  const w = rod(b, 'wide', 3);
  const jw = b.addJoint({
    type: 'ball',
    parent: -1,
    child: w,
    X_p: [3, 0, 2, 0, 0, 0, 1],
    cone_mode: 'rotation',
    cone_limit: 3,
    limit_ke: 1e4,
  });
  b.jointQ(jw).splice(0, 4, ...quat([1, 0, 0], 0.3));
  const model = b.finalize();
  // replicated worlds start at different speeds, so their rows and iterations differ
  for (let w = 1; w < num_worlds; w++)
    for (let d = model.world_dof_start[w]; d < model.world_dof_start[w + 1]; d++)
      model.joint_qd0[d] *= 1 + 0.5 * w;
  return {
    name: num_worlds > 1 ? `cones×${num_worlds}` : 'cones',
    dt: 0.002,
    model,
    solver: {},
    max_rigid_contact: 16,
    joint_ids: { swing: js, rotation: jr, upper: ju, lower: jl, wide: jw },
  };
}
