/**
 * A small built model with every equality type for the GPU parity tests (after the scenes of
 * engine/pipeline/equality.test.ts), in one world or replicated:
 *   - coupler q_a = 2·q_c + 0.1 between two pendulums (two trees; the velocities violate it at the
 *     start);
 *   - ball: a free box hangs from pendulum a's tip (two trees);
 *   - weld: a free box welded to the tip of pendulum d, which swings about x (two trees);
 *   - ball to the world: a three-link chain whose tip is pinned 1 mm from where it starts (one
 *     tree, world anchor: a four-bar linkage);
 *   - coupler q₄ = −q₅ between the two joints of a two-link chain (both DOFs in one tree; the
 *     velocities violate it at the start).
 * The positions satisfy the constraints at the start (but the pin), as an importer's would: a 10 cm
 * violation asks for a 25 m/s correction in one step, and df64's rounding of that solve (H's
 * condition grows by w/R = 4π²/β² on near-rigid rows) reaches 1e-10 of the positions in 100 steps.
 */
import { ModelBuilder } from '../../../model';
import { hinge, rod } from '../../../pipeline/test_scenes';
import type { TestScene } from './parity';

function box(b: ModelBuilder, label: string, x: number, z: number) {
  const body = b.addBody({ label, X_wb: [x, 0, z, 0, 0, 0, 1] });
  // the free joint's coordinates start at the authored pose
  b.addShape({
    body,
    type: 'box',
    size: [0.05, 0.05, 0.1],
    X_bs: [0, 0, -0.2, 0, 0, 0, 1],
    cfg: { density: 500 },
  });
  b.addJoint({ type: 'free', parent: -1, child: body });
  return body;
}

/** the equality test model (no contacts: the bodies stay apart) */
export function equalityScene(num_worlds = 1): TestScene {
  const b = new ModelBuilder();
  b.num_worlds = num_worlds;
  const a = rod(b, 'a', 0);
  const ja = hinge(b, a, -1, [0, 1, 0], [0, 0, 2]);
  const c = rod(b, 'c', 1);
  const jc = hinge(b, c, -1, [0, 1, 0], [1, 0, 2]);
  b.jointQ(ja)[0] = 0.2;
  b.jointQ(jc)[0] = 0.05;
  b.jointQd(jc)[0] = 0.5;
  b.addEquality({ type: 'coupler', joint0: ja, joint1: jc, ratio: 2, offset: 0.1 });
  // hung at pendulum a's tip (a at 0.2 rad)
  const f = box(b, 'f', -0.5 * Math.sin(0.2), 2 - 0.5 * Math.cos(0.2));
  b.addEquality({ type: 'ball', body0: a, body1: f, anchor0: [0, 0, -0.5], anchor1: [0, 0, 0] });
  const d = rod(b, 'd', 2);
  const jd = hinge(b, d, -1, [1, 0, 0], [2, 0, 2]);
  b.jointQd(jd)[0] = 2;
  const g = box(b, 'g', 2, 1.5);
  b.addEquality({ type: 'weld', body0: d, body1: g, anchor0: [0, 0, -0.5], anchor1: [0, 0, 0] });
  // a three-link chain whose tip is pinned to the world (a four-bar linkage with the ground)
  const l1 = rod(b, 'l1', 3);
  const j1 = hinge(b, l1, -1, [0, 1, 0], [3, 0, 2]);
  const l2 = rod(b, 'l2', 3, 1.5);
  const j2 = hinge(b, l2, l1, [0, 1, 0], [0, 0, -0.5]);
  const l3 = rod(b, 'l3', 3, 1);
  const j3 = hinge(b, l3, l2, [0, 1, 0], [0, 0, -0.5]);
  b.jointQ(j1)[0] = 0.5;
  b.jointQ(j2)[0] = -1;
  b.jointQ(j3)[0] = 0.5;
  b.jointQd(j1)[0] = 1;
  b.addEquality({
    type: 'ball',
    body0: -1,
    body1: l3,
    anchor0: [3.001, 0, 1.5 - Math.cos(0.5)],
    anchor1: [0, 0, -0.5],
  });
  // a two-link chain with its joints coupled (both DOFs in one tree)
  const l4 = rod(b, 'l4', 4);
  const j4 = hinge(b, l4, -1, [0, 1, 0], [4, 0, 2]);
  const l5 = rod(b, 'l5', 4, 1.5);
  const j5 = hinge(b, l5, l4, [0, 1, 0], [0, 0, -0.5]);
  b.jointQ(j4)[0] = 0.05;
  b.jointQ(j5)[0] = -0.05;
  b.jointQd(j4)[0] = 1;
  b.addEquality({ type: 'coupler', joint0: j4, joint1: j5, ratio: -1, offset: 0 });
  const model = b.finalize();
  // replicated worlds start at different speeds, so their rows and iterations differ
  for (let w = 1; w < num_worlds; w++)
    for (let d = model.world_dof_start[w]; d < model.world_dof_start[w + 1]; d++)
      model.joint_qd0[d] *= 1 + 0.5 * w;
  return {
    name: num_worlds > 1 ? `equalities×${num_worlds}` : 'equalities',
    dt: 0.002,
    model,
    solver: {},
    max_rigid_contact: 16,
    joint_ids: { a: ja, c: jc, d: jd, l1: j1, l2: j2, l3: j3, l4: j4, l5: j5 },
  };
}
