import { describe, expect, it } from 'vitest';
import { seededRandom, uniform } from '../testing';
import { SOFT_NORM_EPS, nearRigidR } from './common';
import {
  CONTACT_REGION_NAMES,
  ContactRegion,
  contactCalc,
  contactRecord,
  contactRegion,
  makeContactParams,
  type ContactParamsInput,
} from './contact';
import { fdCheckConstraint, minSecondDifference } from './fd_check';

const dt = 0.01;
const w = 0.3;
const base: ContactParamsInput = { mu: 0.5, stiffness: 1e4, tau_d: 0.05, phi0: -1e-3 };
const P = makeContactParams(base, dt, w);

function region(params: Float64Array, vc: number[]): string {
  return CONTACT_REGION_NAMES[contactRegion(params, 0, Float64Array.from(vc), 0)];
}

describe('contact friction cone constraint', () => {
  it('computes R and v̂ as Drake MakeData', () => {
    const r = contactRecord(P);
    expect(r.Rt).toBeCloseTo(1e-3 * w, 15);
    expect(r.Rn).toBeCloseTo(Math.max(nearRigidR(1, w), 1 / (dt * 1e4 * (dt + 0.05))), 15);
    expect(r.vn_hat).toBeCloseTo(1e-3 / 0.06, 15);
    // near-rigid floor wins for a very stiff contact
    const stiff = contactRecord(makeContactParams({ ...base, stiffness: 1e12 }, dt, w));
    expect(stiff.Rn).toBe(nearRigidR(1, w));
  });

  const cases: { name: string; params: Float64Array; vc: number[]; region: string }[] = [
    { name: 'stiction', params: P, vc: [3e-5, -4e-5, -0.1], region: 'stick' },
    { name: 'sliding', params: P, vc: [0.05, -0.02, -0.1], region: 'slip' },
    { name: 'sliding with yn < 0', params: P, vc: [0.05, -0.02, 0.0168], region: 'slip' },
    { name: 'no contact', params: P, vc: [1e-5, 0, 0.5], region: 'open' },
    // −μ·yr < yn < −μ̂·yr: open because the boundary uses μ̂ (Drake notes §7.1)
    { name: 'no contact at the μ̂ boundary', params: P, vc: [0.03, 0, 0.1833], region: 'open' },
    {
      name: 'μ = 0 sliding',
      params: makeContactParams({ ...base, mu: 0 }, dt, w),
      vc: [0.02, 0.01, -0.1],
      region: 'slip',
    },
    {
      name: 'μ = 0 open',
      params: makeContactParams({ ...base, mu: 0 }, dt, w),
      vc: [0.02, 0.01, 0.1],
      region: 'open',
    },
    {
      name: 'near-rigid stiction',
      params: makeContactParams({ ...base, stiffness: 1e12, beta: 1 }, dt, w),
      vc: [1e-6, 1e-6, -0.01],
      region: 'stick',
    },
    {
      name: 'large friction sliding',
      params: makeContactParams({ ...base, mu: 2, sigma: 1e-2 }, dt, w),
      vc: [0.3, -0.2, -0.05],
      region: 'slip',
    },
  ];

  for (const c of cases) {
    it(`γ = −∂ℓ/∂vc and G = −∂γ/∂vc by central differences: ${c.name}`, () => {
      expect(region(c.params, c.vc)).toBe(c.region);
      const r = fdCheckConstraint(contactCalc, c.params, 3, Float64Array.from(c.vc));
      expect(r.gammaErr).toBeLessThan(1e-6);
      expect(r.hessianErr).toBeLessThan(1e-6);
      expect(r.asymmetry).toBeLessThan(1e-12);
      if (c.region === 'open') {
        expect(r.cost).toBe(0);
        expect(Array.from(r.gamma)).toEqual([0, 0, 0]);
      } else {
        expect(r.cost).toBeGreaterThan(0);
        expect(r.gamma[2]).toBeGreaterThan(0);
      }
    });
  }

  it('γ lies in the friction cone and is the projection of y in each region', () => {
    const rng = seededRandom(11);
    const rec = contactRecord(P);
    const gamma = new Float64Array(3);
    const counts = [0, 0, 0];
    for (let s = 0; s < 500; s++) {
      // tangential speeds spread over decades so that stiction is visited too
      const speed = 10 ** uniform(rng, -6, -1.5);
      const th = uniform(rng, 0, 2 * Math.PI);
      const vc = Float64Array.from([speed * Math.cos(th), speed * Math.sin(th), uniform(rng, -0.2, 0.1)]);
      contactCalc(P, 0, 3, vc, 0, gamma, 0, null, 0);
      const reg = contactRegion(P, 0, vc, 0);
      counts[reg]++;
      const gt = Math.hypot(gamma[0], gamma[1]);
      expect(gamma[2]).toBeGreaterThanOrEqual(0);
      expect(gt).toBeLessThanOrEqual(rec.mu * gamma[2] * (1 + 1e-12) + 1e-15);
      if (reg === ContactRegion.Stick) {
        expect(gamma[0]).toBeCloseTo(-vc[0] / rec.Rt, 12);
        expect(gamma[2]).toBeCloseTo((rec.vn_hat - vc[2]) / rec.Rn, 12);
      }
    }
    // the sample visits every region
    expect(Math.min(...counts)).toBeGreaterThan(0);
  });

  it('the cost is convex along random lines', () => {
    const rng = seededRandom(5);
    for (let s = 0; s < 40; s++) {
      const vc = Float64Array.from([
        uniform(rng, -0.01, 0.01),
        uniform(rng, -0.01, 0.01),
        uniform(rng, -0.1, 0.05),
      ]);
      const dir = Float64Array.from([uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)]);
      expect(minSecondDifference(contactCalc, P, 3, vc, dir, 0.05)).toBeGreaterThan(-1e-9);
    }
  });

  it('uses the soft norm ε = 1e-7 for the tangential magnitude', () => {
    expect(SOFT_NORM_EPS).toBe(1e-7);
    // with zero tangential velocity and μ = 0 the contact slides with γt = 0 exactly
    const p0 = makeContactParams({ ...base, mu: 0 }, dt, w);
    const g = new Float64Array(3);
    contactCalc(p0, 0, 3, Float64Array.from([0, 0, -0.1]), 0, g, 0, null, 0);
    expect(Math.abs(g[0])).toBe(0);
    expect(Math.abs(g[1])).toBe(0);
    expect(g[2]).toBeGreaterThan(0);
  });
});
