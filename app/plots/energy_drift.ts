/**
 * Whether a run's energy grows without input (the studio's energy plot marks it): over the
 * samples since the last one with drives, efforts or wrenches acting (or the last change of solver
 * options, which changes contact compliance and with it the energy at rest), the total energy's
 * rise above its lowest value, against the largest kinetic energy seen (the energy in motion),
 * while the motion grows too (the kinetic peak of the span's last third above its first third's):
 * energy that appears without motion is a contact settling, not the integrator.
 */

export interface EnergyDrift {
  /** true when the energy rose by more than 2 % of the largest kinetic energy, with no input */
  growing: boolean;
  /** the rise of kinetic + potential above its lowest value since the input stopped [J] */
  rise: number;
  /** that rise over the largest kinetic energy in the same span [1] */
  relative: number;
  /** index of the first sample of the span (after the last driven sample or options change) */
  from: number;
}

/** the drift of the samples (index-aligned: kinetic and total energy [J], and whether inputs acted) */
export function energyDrift(
  kinetic: readonly (number | null)[],
  total: readonly (number | null)[],
  driven: readonly boolean[],
  epoch?: readonly number[],
): EnergyDrift {
  let from = 0;
  const n = driven.length;
  for (let i = n - 1; i >= 0; i--) {
    if (driven[i] || (epoch && i + 1 < n && epoch[i] !== epoch[n - 1])) {
      from = i + 1;
      break;
    }
  }
  let lowest = Infinity,
    keMax = 0,
    last = NaN;
  for (let i = from; i < total.length; i++) {
    const e = total[i],
      k = kinetic[i];
    if (e === null || !Number.isFinite(e)) continue;
    lowest = Math.min(lowest, e);
    if (k !== null && Number.isFinite(k)) keMax = Math.max(keMax, k);
    last = e;
  }
  if (!Number.isFinite(lowest) || !Number.isFinite(last))
    return { growing: false, rise: 0, relative: 0, from };
  const rise = last - lowest;
  const floor = Math.max(1e-9, 1e-6 * (Math.abs(lowest) + keMax));
  const relative = keMax > 0 ? rise / keMax : 0;
  // the kinetic peaks of the span's first and last thirds
  const third = Math.floor((total.length - from) / 3);
  const peak = (a: number, b: number) => {
    let p = 0;
    for (let i = a; i < b; i++) {
      const k = kinetic[i];
      if (k !== null && Number.isFinite(k)) p = Math.max(p, k);
    }
    return p;
  };
  const moving = third > 0 && peak(total.length - third, total.length) > 1.02 * peak(from, from + third);
  return { growing: moving && rise > floor && rise > 0.02 * keMax, rise, relative, from };
}
