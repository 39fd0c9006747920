/**
 * A small built model with fixed-tendon limits for the GPU parity tests, in one world or
 * replicated (no contacts: the bodies stay apart):
 *   - a two-link chain swinging from 0.3 rad at 3 rad/s with a rigid two-sided "hamstring"
 *     l = ½q₁ − ½q₂ ∈ [−0.2, 0.25] (one tree, both sides reached over the run);
 *   - a pendulum with a compliant one-sided tendon l = 2q ≤ 0.3 (k = 1000, kd = 10) that it swings
 *     into at 4 rad/s;
 *   - two pendulums tied by l = q_a − q_c ∈ [−0.1, 0.1] (two trees: two Jacobian blocks);
 *   - a tendon whose limits stay outside the step's window (a slot without rows) and one without
 *     limits (no slot).
 */
import { ModelBuilder } from '../../../model';
import { hinge, rod } from '../../../pipeline/test_scenes';
import type { TestScene } from './parity';

/** the tendon test model */
export function tendonScene(num_worlds = 1): TestScene {
  const b = new ModelBuilder();
  b.num_worlds = num_worlds;
  const l1 = rod(b, 'l1', 0);
  const j1 = hinge(b, l1, -1, [0, 1, 0], [0, 0, 2]);
  const l2 = rod(b, 'l2', 0, 1.5);
  const j2 = hinge(b, l2, l1, [0, 1, 0], [0, 0, -0.5]);
  b.jointQ(j1)[0] = 0.3;
  b.jointQd(j1)[0] = 3;
  b.addTendon({
    label: 'hamstring',
    joints: [
      { joint: j1, coef: 0.5 },
      { joint: j2, coef: -0.5 },
    ],
    lower: -0.2,
    upper: 0.25,
    limit_ke: Infinity,
  });
  const p = rod(b, 'p', 1);
  const jp = hinge(b, p, -1, [0, 1, 0], [1, 0, 2]);
  b.jointQd(jp)[0] = 4;
  b.addTendon({ label: 'stop', joints: [{ joint: jp, coef: 2 }], upper: 0.3, limit_ke: 1000, limit_kd: 10 });
  const a = rod(b, 'a', 2);
  const ja = hinge(b, a, -1, [0, 1, 0], [2, 0, 2]);
  const c = rod(b, 'c', 3);
  const jc = hinge(b, c, -1, [0, 1, 0], [3, 0, 2]);
  b.jointQd(ja)[0] = 2;
  b.addTendon({
    label: 'tie',
    joints: [
      { joint: ja, coef: 1 },
      { joint: jc, coef: -1 },
    ],
    lower: -0.1,
    upper: 0.1,
    limit_ke: 1e4,
    limit_kd: 50,
  });
  b.addTendon({ label: 'slack', joints: [{ joint: jc, coef: 1 }], lower: -3, upper: 3 });
  b.addTendon({ label: 'free', joints: [{ joint: jp, coef: 1 }] });
  const model = b.finalize();
  // replicated worlds start at different speeds, so their rows and iterations differ
  for (let w = 1; w < num_worlds; w++)
    for (let d = model.world_dof_start[w]; d < model.world_dof_start[w + 1]; d++)
      model.joint_qd0[d] *= 1 + 0.5 * w;
  return {
    name: num_worlds > 1 ? `tendons×${num_worlds}` : 'tendons',
    dt: 0.002,
    model,
    solver: {},
    max_rigid_contact: 16,
    joint_ids: { l1: j1, l2: j2, p: jp, a: ja, c: jc },
  };
}
