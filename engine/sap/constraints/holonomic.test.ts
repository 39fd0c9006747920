import { describe, expect, it } from 'vitest';
import { fdCheckConstraint } from './fd_check';
import { holonomicCalc, makeHolonomicParams } from './holonomic';

describe('holonomic constraint', () => {
  for (const [name, stiffness, tau] of [
    ['rigid (k = ∞, τ clamped to δt)', Infinity, 0],
    ['compliant', 1e3, 0.02],
  ] as const) {
    it(`${name}: γ and G match finite differences; cost convex`, () => {
      const P = makeHolonomicParams({ g0: [0.01, -0.02, 0.003], stiffness, tau_d: tau }, 0.01, 0.5);
      for (const vc of [
        [0.1, -0.3, 0.2],
        [-1, 0, 2],
      ]) {
        const r = fdCheckConstraint(holonomicCalc, P, 3, Float64Array.from(vc));
        expect(r.gammaErr).toBeLessThan(1e-6);
        expect(r.hessianErr).toBeLessThan(1e-6);
      }
    });
  }
  it('rigid: v̂ = −g₀/(2δt) and R = β²/(4π²)·w', () => {
    const P = makeHolonomicParams({ g0: [0.02], stiffness: Infinity, tau_d: 0 }, 0.01, 2);
    expect(P[0]).toBeCloseTo((0.01 / (4 * Math.PI * Math.PI)) * 2, 15);
    expect(P[1]).toBeCloseTo(-0.02 / 0.02, 15);
  });
});
