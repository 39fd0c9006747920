import { describe, expect, it } from 'vitest';
import { seededRandom, uniform } from '../testing';
import { fdCheckConstraint, minSecondDifference } from './fd_check';
import { JOINT_FRICTION_SIGMA, makeJointFrictionParams } from './joint_friction';
import { pdCalc } from './pd';

describe('joint friction constraint (PD record with Kp = 0)', () => {
  const dt = 0.002;
  const tauC = 0.13; // Barkour's frictionloss [N·m]
  const w = 40; // 1/A_dd [1/(kg·m²)]
  const P = makeJointFrictionParams(tauC, JOINT_FRICTION_SIGMA, dt, w);
  const R = JOINT_FRICTION_SIGMA * w;
  const gMax = dt * tauC;

  // Drake's SapJointFrictionConstraint, written out
  const drake = (vc: number) => {
    const y = -vc / R;
    const stick = Math.abs(y) <= gMax;
    return {
      cost: stick ? (vc * vc) / (2 * R) : gMax * Math.abs(vc) - (R * gMax * gMax) / 2,
      gamma: Math.max(-gMax, Math.min(gMax, y)),
      G: stick ? 1 / R : 0,
    };
  };

  // stiction band |vc| ≤ R·γ_max = 1.04e-5
  for (const vc of [0, 3e-6, -9e-6, 2e-5, -0.4, 7]) {
    it(`matches Drake's cost, impulse and Hessian, and central differences, at vc = ${vc}`, () => {
      const r = fdCheckConstraint(pdCalc, P, 1, Float64Array.from([vc]));
      const d = drake(vc);
      expect(r.cost).toBeCloseTo(d.cost, 15);
      expect(Math.abs(r.cost - d.cost)).toBeLessThanOrEqual(1e-12 * Math.max(1e-12, Math.abs(d.cost)));
      expect(r.gamma[0]).toBeCloseTo(d.gamma, 15);
      expect(r.G[0]).toBeCloseTo(d.G, 9);
      // the friction force is bounded by τ_c and opposes the motion
      expect(Math.abs(r.gamma[0] / dt)).toBeLessThanOrEqual(tauC * (1 + 1e-15));
      if (vc !== 0) expect(Math.sign(r.gamma[0])).toBe(-Math.sign(vc));
      // (central differences straddle the kink within 1e-6 of the band's edges: check away from them)
      expect(r.gammaErr).toBeLessThan(1e-6);
      expect(r.hessianErr).toBeLessThan(1e-6);
    });
  }

  it('the cost is convex along random lines', () => {
    const rng = seededRandom(3);
    for (let s = 0; s < 30; s++) {
      const vc = Float64Array.from([uniform(rng, -2e-5, 2e-5)]);
      expect(minSecondDifference(pdCalc, P, 1, vc, Float64Array.from([1]), 1e-5)).toBeGreaterThan(-1e-9);
    }
  });
});
