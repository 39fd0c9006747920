/**
 * Test-only helpers for the collision tests: body poses from free-joint coordinates (forward
 * kinematics lives elsewhere) and world-frame views of written contacts.
 */
import { transformInverse, transformMul, transformPoint } from '../math';
import { JointType, type SapModel } from '../model';
import { makeState } from '../kinematics';
import type { SapState } from '../state';
import type { SapContacts } from './contacts';

/** body_q = X_p ∘ q ∘ X_c⁻¹ for every free joint (other joints' bodies are left untouched) */
export function poseFreeBodies(model: SapModel, state: SapState): void {
  const t = new Float64Array(7);
  const xc = new Float64Array(7);
  for (let j = 0; j < model.joint_count; j++) {
    if (model.joint_type[j] !== JointType.FREE) continue;
    const q0 = model.joint_q_start[j];
    transformMul(model.joint_X_p, j * 7, state.joint_q, q0, t, 0);
    transformInverse(model.joint_X_c, j * 7, xc, 0);
    transformMul(t, 0, xc, 0, state.body_q, j * 7);
  }
}

/** a state at the model's initial coordinates with free bodies posed */
export function posedState(model: SapModel): SapState {
  const s = makeState(model);
  poseFreeBodies(model, s);
  return s;
}

/** world-frame witnesses of contact slot k */
export function worldWitnesses(
  c: SapContacts,
  state: SapState,
  k: number,
): { x0: number[]; x1: number[]; n: number[] } {
  const x0 = new Float64Array(3),
    x1 = new Float64Array(3);
  if (c.body0[k] >= 0) transformPoint(state.body_q, c.body0[k] * 7, c.point0, k * 3, x0, 0);
  else for (let d = 0; d < 3; d++) x0[d] = c.point0[k * 3 + d];
  if (c.body1[k] >= 0) transformPoint(state.body_q, c.body1[k] * 7, c.point1, k * 3, x1, 0);
  else for (let d = 0; d < 3; d++) x1[d] = c.point1[k * 3 + d];
  return {
    x0: Array.from(x0),
    x1: Array.from(x1),
    n: [c.normal[k * 3], c.normal[k * 3 + 1], c.normal[k * 3 + 2]],
  };
}

/** every written contact of every world as plain records (for equality checks) */
export function contactRecords(c: SapContacts): Record<string, number>[] {
  const out: Record<string, number>[] = [];
  for (let w = 0; w < c.num_worlds; w++) {
    for (let i = 0; i < c.count[w]; i++) {
      const k = w * c.capacity + i;
      out.push({
        w,
        shape0: c.shape0[k],
        shape1: c.shape1[k],
        body0: c.body0[k],
        body1: c.body1[k],
        p0x: c.point0[k * 3],
        p0y: c.point0[k * 3 + 1],
        p0z: c.point0[k * 3 + 2],
        p1x: c.point1[k * 3],
        p1y: c.point1[k * 3 + 1],
        p1z: c.point1[k * 3 + 2],
        nx: c.normal[k * 3],
        ny: c.normal[k * 3 + 1],
        nz: c.normal[k * 3 + 2],
        margin0: c.margin0[k],
        margin1: c.margin1[k],
        phi0: c.phi0[k],
        ke0: c.ke0[k],
        ke1: c.ke1[k],
        ke: c.ke[k],
        tau: c.tau[k],
        mu: c.mu[k],
        feature: c.feature[k],
      });
    }
  }
  return out;
}
