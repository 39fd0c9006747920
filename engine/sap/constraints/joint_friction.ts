/**
 * Joint dry (Coulomb) friction on one DOF: Drake's SapJointFrictionConstraint, MuJoCo's
 * `frictionloss`, URDF `<dynamics friction>`. A load-independent friction torque (or force) of at
 * most τ_c opposes the DOF's velocity; in stiction it takes whatever value in [−τ_c, τ_c] holds the
 * DOF, regularized like contact friction so that the cost stays smooth and convex.
 *
 * vc = v_dof, γ_max = δt·τ_c, R = σ·w (w ≈ 1/A_dof,dof, the DOF's inverse effective inertia):
 *   ℓ(vc) = vc²/(2R)                 where |vc| ≤ R·γ_max (stiction)
 *           γ_max·|vc| − R·γ_max²/2  otherwise (sliding)
 *   γ = clamp(−vc/R, −γ_max, γ_max),  G = 1/R in stiction, 0 sliding.
 * In stiction the DOF creeps at |vc| ≤ R·γ_max = σ·w·δt·τ_c.
 *
 * That is exactly the PD drive's cost (pd.ts) with Kp = 0, Kd = 1/(δt·R), no target or
 * feed-forward and the effort limit τ_c: y = −Kd·vc, u = clamp(y, ±τ_c), γ = δt·u = clamp(−vc/R,
 * ±γ_max), ℓ = δt·Ψ(y)/Kd and G = δt·Kd = 1/R. So joint friction is a kind of its own in the
 * packed problem (its record: {@link JointFrictionPhys}) whose parameters are a PD parameter record
 * ({@link makeJointFrictionParams}): every PD kernel (JS, WebAssembly, WGSL) evaluates it unchanged.
 * Unlike a drive it takes no near-rigid gain clamp (Drake's constraint has none).
 */

import { PARAM_STRIDE } from './common';

/**
 * offsets of a joint friction's physical inputs in its PHYS_STRIDE (packed_problem.ts) record:
 * the DOF of its clique, the bound τ_c, σ (NaN: the solver's joint_friction_sigma) and w (NaN:
 * 1/A_dof,dof)
 */
export const JointFrictionPhys = { dof: 0, friction: 1, sigma: 2, w: 3 } as const;

/** Drake's default regularization σ of joint friction (SapJointFrictionConstraint::Parameters) [-] */
export const JOINT_FRICTION_SIGMA = 1e-3;

/**
 * Writes the PD record (δt, 0, Kd = 1/(δt·σ·w), τ_c, 0, 0, 0, 0) of a joint-friction constraint at
 * `out[off ..)`.
 *
 * @param friction  friction bound τ_c > 0 [N·m or N]
 * @param sigma     regularization σ > 0 [-]
 * @param dt        time step δt > 0 [s]
 * @param w         Delassus weight of the DOF, usually 1/A_dof,dof [1/(kg·m²) or 1/kg]
 */
export function makeJointFrictionParams(
  friction: number,
  sigma: number,
  dt: number,
  w: number,
  out: Float64Array = new Float64Array(PARAM_STRIDE),
  off = 0,
): Float64Array {
  out[off] = dt;
  out[off + 1] = 0;
  out[off + 2] = 1 / (dt * sigma * w);
  out[off + 3] = friction;
  for (let k = 4; k < 8; k++) out[off + k] = 0;
  return out;
}
