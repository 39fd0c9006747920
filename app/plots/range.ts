/** y ranges for the plots' linear scales */

/**
 * a linear y range that uPlot can split into ticks: nearly constant values (a resting robot's energy,
 * equal to 1e-14 J) would give a tick step below the values' rounding, and uPlot's tick loop would
 * never end; the range is widened to at least 1e-6 of the values' magnitude
 */
export function linearRange(_u: unknown, min: number | null, max: number | null): [number, number] {
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  const mag = Math.max(Math.abs(min), Math.abs(max));
  const half = Math.max((max - min) / 2, 1e-6 * mag, 1e-9);
  const mid = (min + max) / 2;
  const pad = (max - min) / 2 >= half ? 0.05 * half : 0;
  return [mid - half - pad, mid + half + pad];
}
