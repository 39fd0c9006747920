import { describe, expect, it } from 'vitest';
import { seededRandom, uniform } from '../testing';
import { nearRigidR } from './common';
import { fdCheckConstraint, minSecondDifference } from './fd_check';
import { makePdParams, pdCalc, pdEffectiveGains, type PdParamsInput } from './pd';

const dt = 0.01;
const spec: PdParamsInput = { q0: 0.1, qd: 0.3, vd: 0, kp: 100, kd: 10, effort_limit: 5, u0: 1 };
const P = makePdParams(spec, dt, 1);

describe('PD drive constraint', () => {
  // y = −100(0.1 + 0.01v − 0.3) − 10v + 1 = 21 − 11v; |y| ≤ 5 for v ∈ [16/11, 26/11]
  const cases = [
    { name: 'unclamped', v: 2, u: 21 - 22 },
    { name: 'clamped at +e', v: 0, u: 5 },
    { name: 'clamped at −e', v: 4, u: -5 },
  ];
  for (const c of cases) {
    it(`γ and G match central differences: ${c.name}`, () => {
      const r = fdCheckConstraint(pdCalc, P, 1, Float64Array.from([c.v]));
      expect(r.gamma[0]).toBeCloseTo(dt * c.u, 14);
      expect(r.gammaErr).toBeLessThan(1e-6);
      expect(r.hessianErr).toBeLessThan(1e-6);
      expect(r.G[0]).toBe(c.name === 'unclamped' ? dt * (dt * 100 + 10) : 0);
    });
  }

  it('keeps the gains when not near-rigid', () => {
    expect(pdEffectiveGains(100, 10, dt, 1)).toEqual({ kp: 100, kd: 10 });
  });

  it('clamps near-rigid gains keeping Kd/Kp (both branches)', () => {
    const Rnr = nearRigidR(0.1, 1);
    for (const [kp, kd] of [
      [1e8, 1e4], // δt·Kp > Kd
      [1e3, 1e6], // δt·Kp ≤ Kd
      [1e9, 0], // pure stiffness
      [0, 1e7], // pure damping
    ]) {
      expect(1 / (dt * (dt * kp + kd))).toBeLessThan(Rnr);
      const g = pdEffectiveGains(kp, kd, dt, 1);
      expect(1 / (dt * (dt * g.kp + g.kd))).toBeCloseTo(Rnr, 15);
      if (kp > 0 && kd > 0) expect(g.kd / g.kp).toBeCloseTo(kd / kp, 9);
      if (kd === 0) expect(g.kd).toBe(0);
      if (kp === 0) expect(g.kp).toBe(0);
      const p = makePdParams({ ...spec, kp, kd, effort_limit: Infinity }, dt, 1);
      const r = fdCheckConstraint(pdCalc, p, 1, Float64Array.from([0.3]));
      expect(r.gammaErr).toBeLessThan(1e-6);
      expect(r.hessianErr).toBeLessThan(1e-6);
      expect(r.G[0]).toBeCloseTo(dt * (dt * g.kp + g.kd), 6);
    }
  });

  it('the cost is convex along random lines', () => {
    const rng = seededRandom(9);
    for (let s = 0; s < 30; s++) {
      const vc = Float64Array.from([uniform(rng, -5, 5)]);
      expect(minSecondDifference(pdCalc, P, 1, vc, Float64Array.from([1]), 5)).toBeGreaterThan(-1e-9);
    }
  });
});
