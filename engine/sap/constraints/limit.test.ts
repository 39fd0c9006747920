import { describe, expect, it } from 'vitest';
import { seededRandom, uniform } from '../testing';
import { nearRigidR } from './common';
import { fdCheckConstraint, minSecondDifference } from './fd_check';
import { limitCalc, limitRowSigns, limitRows, makeLimitParams, type LimitParamsInput } from './limit';

const dt = 0.01;
const w = 0.5;
const spec: LimitParamsInput = { q0: -0.99, lower: -1, upper: 0.995, stiffness: 1e5, tau_d: 0.01 };
const P = makeLimitParams(spec, dt, w);

/** constraint velocities of a two-sided limit for joint velocity v */
const vcOf = (v: number) => Float64Array.from([v, -v]);

describe('joint limit constraint', () => {
  it('keeps one row per finite limit, lower first, with R and v̂ from Drake §2.2', () => {
    expect(limitRows(spec)).toBe(2);
    expect(limitRowSigns(spec)).toEqual([1, -1]);
    expect(limitRows({ lower: -Infinity, upper: 1 })).toBe(1);
    expect(limitRowSigns({ lower: -Infinity, upper: 1 })).toEqual([-1]);
    expect(limitRows({ lower: -Infinity, upper: Infinity })).toBe(0);
    const R = Math.max(nearRigidR(0.1, w), 1 / (dt * 1e5 * (dt + 0.01)));
    expect(P[0]).toBe(R);
    expect(P[1]).toBeCloseTo(-(spec.q0 - spec.lower) / (dt + 0.01), 14);
    expect(P[2]).toBe(R);
    expect(P[3]).toBeCloseTo(-(spec.upper - spec.q0) / (dt + 0.01), 14);
    // rigid limit: the near-rigid floor
    const rigid = makeLimitParams({ ...spec, stiffness: Infinity }, dt, w);
    expect(rigid[0]).toBe(nearRigidR(0.1, w));
  });

  const cases = [
    { name: 'lower active', v: -0.8, active: [true, false] },
    { name: 'both inactive', v: 0, active: [false, false] },
    { name: 'upper active', v: 120, active: [false, true] },
  ];
  for (const c of cases) {
    it(`γ and G match central differences: ${c.name}`, () => {
      const r = fdCheckConstraint(limitCalc, P, 2, vcOf(c.v));
      expect(r.gammaErr).toBeLessThan(1e-6);
      expect(r.hessianErr).toBeLessThan(1e-6);
      expect(r.gamma[0] > 0).toBe(c.active[0]);
      expect(r.gamma[1] > 0).toBe(c.active[1]);
      expect(r.G[1]).toBe(0);
      expect(r.G[2]).toBe(0);
    });
  }

  it('single upper row', () => {
    const p1 = makeLimitParams({ ...spec, lower: -Infinity }, dt, w);
    const r = fdCheckConstraint(limitCalc, p1, 1, Float64Array.from([-120]));
    expect(r.gamma[0]).toBeGreaterThan(0);
    expect(r.gammaErr).toBeLessThan(1e-6);
    expect(r.hessianErr).toBeLessThan(1e-6);
  });

  it('the cost is convex along random lines', () => {
    const rng = seededRandom(3);
    for (let s = 0; s < 30; s++) {
      const vc = Float64Array.from([uniform(rng, -1, 1), uniform(rng, -1, 1)]);
      const dir = Float64Array.from([uniform(rng, -1, 1), uniform(rng, -1, 1)]);
      expect(minSecondDifference(limitCalc, P, 2, vc, dir, 1)).toBeGreaterThan(-1e-9);
    }
  });
});
