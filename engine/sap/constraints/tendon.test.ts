import { describe, expect, it } from 'vitest';
import { nearRigidR } from './common';
import { fdCheckConstraint } from './fd_check';
import { limitCalc, makeLimitParams } from './limit';
import { makeTendonParams, type TendonParamsInput } from './tendon';

const dt = 0.005;
const w = 0.8;
const spec: TendonParamsInput = { l0: -0.29, lower: -0.3, upper: 2, stiffness: 1e4, tau_d: 0.01 };

describe('tendon-limit constraint (Drake §2.9)', () => {
  it('compliant rows: R = 1/(δt·k·(δt+τ)) and v̂ = −g/(δt+τ), lower row first', () => {
    const P = makeTendonParams(spec, dt, w);
    const R = 1 / (dt * 1e4 * (dt + 0.01));
    expect(R).toBeGreaterThan(nearRigidR(0.1, w));
    expect(P[0]).toBe(R);
    expect(P[1]).toBeCloseTo(-(spec.l0 - spec.lower) / (dt + 0.01), 14);
    expect(P[2]).toBe(R);
    expect(P[3]).toBeCloseTo(-(spec.upper - spec.l0) / (dt + 0.01), 14);
    // the same record as a joint limit with q₀ = l₀ when not near-rigid
    expect(Array.from(P)).toEqual(
      Array.from(
        makeLimitParams(
          { q0: spec.l0, lower: spec.lower, upper: spec.upper, stiffness: 1e4, tau_d: 0.01 },
          dt,
          w,
        ),
      ),
    );
  });

  it('near-rigid rows take R_nr and clamp τ to δt (v̂ = −g/(2δt)); a joint limit does not clamp', () => {
    const rigid = { ...spec, stiffness: Infinity, tau_d: 0.3 };
    const P = makeTendonParams(rigid, dt, w);
    expect(P[0]).toBe(nearRigidR(0.1, w));
    expect(P[1]).toBeCloseTo(-(spec.l0 - spec.lower) / (2 * dt), 12);
    const L = makeLimitParams(
      { q0: spec.l0, lower: spec.lower, upper: spec.upper, stiffness: Infinity, tau_d: 0.3 },
      dt,
      w,
    );
    expect(L[1]).toBeCloseTo(-(spec.l0 - spec.lower) / (dt + 0.3), 12);
    // stiff but finite: R_c below the floor is near-rigid too
    const stiff = makeTendonParams({ ...spec, stiffness: 1e12 }, dt, w);
    expect(stiff[0]).toBe(nearRigidR(0.1, w));
    expect(stiff[1]).toBeCloseTo(-(spec.l0 - spec.lower) / (2 * dt), 12);
  });

  it('keeps one row per finite limit', () => {
    const up = makeTendonParams({ ...spec, lower: -Infinity, l0: 1.99 }, dt, w);
    expect(up[1]).toBeCloseTo(-(2 - 1.99) / (dt + 0.01), 12);
    expect(up[2]).toBe(0);
  });

  for (const [name, v, active] of [
    ['shortening into the lower limit', -3, [true, false]],
    ['inside both limits', 0, [false, false]],
    ['lengthening into the upper limit', 500, [false, true]],
  ] as const) {
    it(`γ and G match central differences: ${name}`, () => {
      const P = makeTendonParams(spec, dt, w);
      const r = fdCheckConstraint(limitCalc, P, 2, Float64Array.from([v, -v]));
      expect(r.gammaErr).toBeLessThan(1e-6);
      expect(r.hessianErr).toBeLessThan(1e-6);
      expect(r.gamma[0] > 0).toBe(active[0]);
      expect(r.gamma[1] > 0).toBe(active[1]);
    });
  }
});
