/**
 * Position integration (SPEC §3.5): midpoint q₁ = Φ(q₀, (v₀+v₁)/2, h), sap_euler q₁ = Φ(q₀, v₁, h).
 * Φ: scalar joints q += h·v; ball q_FM ← exp(h·ω_F) ⊗ q_FM; free p += h·R_WFᵀv_M and
 * q_FM ← exp(h·R_WFᵀω) ⊗ q_FM. Quaternions advance by the exact rotation increment and are normalized.
 */
import { quatIntegrate, quatRotateInv } from '../math';
import { JointType, type SapModel } from '../model';

const tmp = new Float64Array(6);

/** integrates joints [j0, j1) with internal velocity `vbar` over h, from q_in into q_out */
export function integratePositions(
  m: SapModel,
  j0: number,
  j1: number,
  q_in: Float64Array,
  vbar: Float64Array,
  h: number,
  q_out: Float64Array,
): void {
  for (let j = j0; j < j1; j++) {
    const s = m.joint_q_start[j],
      d = m.joint_qd_start[j];
    switch (m.joint_type[j]) {
      case JointType.REVOLUTE:
      case JointType.PRISMATIC:
        q_out[s] = q_in[s] + h * vbar[d];
        break;
      case JointType.BALL:
        quatIntegrate(q_in, s, vbar[d], vbar[d + 1], vbar[d + 2], h, q_out, s);
        break;
      case JointType.FREE: {
        // velocities are in world; q is relative to the (world-fixed) parent joint frame F
        quatRotateInv(m.joint_X_p, j * 7 + 3, vbar, d, tmp, 0);
        quatRotateInv(m.joint_X_p, j * 7 + 3, vbar, d + 3, tmp, 3);
        q_out[s] = q_in[s] + h * tmp[3];
        q_out[s + 1] = q_in[s + 1] + h * tmp[4];
        q_out[s + 2] = q_in[s + 2] + h * tmp[5];
        quatIntegrate(q_in, s + 3, tmp[0], tmp[1], tmp[2], h, q_out, s + 3);
        break;
      }
      default:
        break;
    }
  }
}
