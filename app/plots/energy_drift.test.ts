import { describe, expect, it } from 'vitest';
import { energyDrift } from './energy_drift';

/** a pendulum's samples: energy oscillating between kinetic and potential, scaled by `growth` per sample */
function swing(n: number, growth: number, driven = false) {
  const kinetic: number[] = [],
    total: number[] = [];
  for (let i = 0; i < n; i++) {
    const e = 0.5 * growth ** i;
    kinetic.push(e * Math.sin(i / 3) ** 2);
    total.push(e - 5); // a potential offset: the zero of energy is arbitrary
  }
  return { kinetic, total, driven: kinetic.map(() => driven) };
}

describe('energyDrift', () => {
  it('marks a passive run whose energy grows (a midpoint-integrated pendulum)', () => {
    const s = swing(200, 1.001);
    const d = energyDrift(s.kinetic, s.total, s.driven);
    expect(d.growing).toBe(true);
    expect(d.rise).toBeCloseTo(0.5 * (1.001 ** 199 - 1), 12);
  });

  it('not a conserving or dissipating one, nor one with drives acting', () => {
    for (const g of [1, 0.999]) {
      const s = swing(200, g);
      expect(energyDrift(s.kinetic, s.total, s.driven).growing).toBe(false);
    }
    const driven = swing(200, 1.001, true);
    expect(energyDrift(driven.kinetic, driven.total, driven.driven).growing).toBe(false);
  });

  it('judges only the samples after the last driven one; a resting body with round-off is not growing', () => {
    const s = swing(200, 1.001);
    s.driven[150] = true;
    const d = energyDrift(s.kinetic, s.total, s.driven);
    expect(d.from).toBe(151);
    // an options change restarts the span
    const epoch = s.driven.map((_, i) => (i < 120 ? 0 : 1));
    expect(energyDrift(s.kinetic, s.total, s.driven.fill(false), epoch).from).toBe(120);
    // energy that rises while nothing moves (contacts settling after a change) is not marked
    const settle = energyDrift(
      s.kinetic.map(() => 1e-4),
      s.total.map((_, i) => -5 + 0.08 * (i / 200)),
      s.driven,
    );
    expect(settle.growing).toBe(false);
    const rest = energyDrift([0, 1e-15, 0], [-3, -3 + 1e-13, -3 + 2e-13], [false, false, false]);
    expect(rest.growing).toBe(false);
    expect(energyDrift([], [], []).growing).toBe(false);
  });
});
