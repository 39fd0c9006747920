/**
 * Mechanical energy of each world of a state (allocation-free after construction):
 * - kinetic ½·vᵀM·v = Σ_bodies ½·(m·|v_COM|² + ωᵀ·R·I·Rᵀ·ω) + Σ ½·armature·q̇² over the DOFs of
 *   revolute, prismatic and ball joints (M includes armature; free-joint armature is left out);
 * - potential: gravity −Σ (1 − gravcomp)·m·g·x_COM, plus the passive joint springs
 *   ½·k·(q − q_ref)² of revolute and prismatic DOFs and the spatial tendons' springs ½·k·e² (e: the
 *   length's distance from the rest band).
 * PD drives, contacts and limits are inputs and constraints: their stored energy is not counted.
 * Under a preset with the midpoint position update (approx32, approx64) an undamped oscillator's
 * energy grows by (1 + h²ω²/2) per step (its amplitude by √(1 + h²ω²/2)); drake's q₁ = q₀ + h·v₁
 * keeps it in a band of relative width O(h·ω) without drift.
 */
import { quatRotate, quatRotateInv } from '../math';
import { JointType, type SapModel } from '../model';
import type { SapState } from '../state';
import type { WorldReport } from './report';
import { spatialTendonSpringEnergy } from './transmissions';

/** per-world energies of a state [J] */
export interface WorldEnergy {
  kinetic: number;
  potential: number;
}

export class EnergyMeter {
  readonly model: SapModel;
  private readonly w = new Float64Array(3);
  private readonly x = new Float64Array(3);
  /** per world: kinetic and potential energy of the last {@link measure} [J] */
  readonly kinetic: Float64Array;
  readonly potential: Float64Array;

  constructor(model: SapModel) {
    this.model = model;
    this.kinetic = new Float64Array(model.num_worlds);
    this.potential = new Float64Array(model.num_worlds);
  }

  /** fills {@link kinetic} and {@link potential} from the state's body and joint arrays */
  measure(state: SapState): void {
    const m = this.model;
    const g = m.gravity;
    const { w, x } = this;
    for (let wd = 0; wd < m.num_worlds; wd++) {
      let ke = 0,
        pe = 0;
      for (let b = m.world_joint_start[wd]; b < m.world_joint_start[wd + 1]; b++) {
        const mass = m.body_mass[b];
        const vo = b * 6,
          qo = b * 7;
        const qd = state.body_qd;
        ke += mass * (qd[vo] * qd[vo] + qd[vo + 1] * qd[vo + 1] + qd[vo + 2] * qd[vo + 2]);
        // ωᵀ·R·I·Rᵀ·ω with ω in the body frame
        quatRotateInv(state.body_q, qo + 3, qd, vo + 3, w, 0);
        const I = m.body_inertia,
          io = b * 9;
        for (let r = 0; r < 3; r++)
          ke += w[r] * (I[io + r * 3] * w[0] + I[io + r * 3 + 1] * w[1] + I[io + r * 3 + 2] * w[2]);
        // the COM in the world: p + R·com
        const bq = state.body_q;
        quatRotate(bq, qo + 3, m.body_com, b * 3, x, 0);
        const weight = (1 - m.body_gravcomp[b]) * mass;
        pe -= weight * (g[0] * (bq[qo] + x[0]) + g[1] * (bq[qo + 1] + x[1]) + g[2] * (bq[qo + 2] + x[2]));
        const type = m.joint_type[b];
        if (type === JointType.FREE) continue;
        for (let d = m.joint_qd_start[b]; d < m.joint_qd_start[b + 1]; d++) {
          const v = state.joint_qd[d];
          ke += m.joint_armature[d] * v * v;
          const k = m.joint_stiffness[d];
          if (k !== 0 && (type === JointType.REVOLUTE || type === JointType.PRISMATIC)) {
            const e = state.joint_q[m.joint_q_start[b]] - m.joint_spring_ref[d];
            pe += 0.5 * k * e * e;
          }
        }
      }
      for (let t = 0; t < m.spatial_count; t++)
        if (m.spatial_world[t] === wd) pe += spatialTendonSpringEnergy(m, state.body_q, t);
      this.kinetic[wd] = 0.5 * ke;
      this.potential[wd] = pe;
    }
  }

  /** measures the state and writes each world's energies into its step report */
  report(state: SapState, worlds: WorldReport[]): void {
    this.measure(state);
    for (let w = 0; w < worlds.length && w < this.kinetic.length; w++) {
      worlds[w].kinetic_energy = this.kinetic[w];
      worlds[w].potential_energy = this.potential[w];
    }
  }
}
