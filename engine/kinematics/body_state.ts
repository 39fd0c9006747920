/** writes the public body arrays of a state (pose; COM velocity and ω in world) from kinematics data */
import type { SapModel } from '../model';
import type { KinematicsData } from './data';

export function writeBodyState(
  m: SapModel,
  d: KinematicsData,
  body_q: Float64Array,
  body_qd: Float64Array,
  b0 = 0,
  b1 = m.body_count,
): void {
  for (let b = b0; b < b1; b++) {
    const X = d.body_X,
      q = b * 7;
    body_q[q] = X[q];
    body_q[q + 1] = X[q + 1];
    body_q[q + 2] = X[q + 2];
    body_q[q + 3] = X[q + 3];
    body_q[q + 4] = X[q + 4];
    body_q[q + 5] = X[q + 5];
    body_q[q + 6] = X[q + 6];
    const V = d.body_V,
      o = b * 6,
      c = d.body_com_w;
    const wx = V[o],
      wy = V[o + 1],
      wz = V[o + 2];
    // v_C = v₀ + ω × c
    body_qd[o] = V[o + 3] + wy * c[b * 3 + 2] - wz * c[b * 3 + 1];
    body_qd[o + 1] = V[o + 4] + wz * c[b * 3] - wx * c[b * 3 + 2];
    body_qd[o + 2] = V[o + 5] + wx * c[b * 3 + 1] - wy * c[b * 3];
    body_qd[o + 3] = wx;
    body_qd[o + 4] = wy;
    body_qd[o + 5] = wz;
  }
}
