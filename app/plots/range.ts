/** y ranges and ticks for the plots' scales, safe for every value uPlot may hand them */

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

/** the decades a log scale may span: beyond them a Δ is shown at the edge */
const LOG_MIN_EXP = -30;
const LOG_MAX_EXP = 30;
/** the range of a log scale with no positive data (nothing to show yet, or every Δ exactly 0) */
const LOG_EMPTY: [number, number] = [1e-12, 1];

const clampExp = (e: number) => Math.min(LOG_MAX_EXP, Math.max(LOG_MIN_EXP, e));

/**
 * a log y range of whole decades: uPlot hands a log scale without positive data ±Infinity (its empty
 * min/max), and its own decade walk then never ends ('Invalid array length'); here such data gives a
 * fixed range, and any other is widened to the decades around it, within 1e-30 … 1e30
 */
export function logRange(_u: unknown, min: number | null, max: number | null): [number, number] {
  if (
    min === null ||
    max === null ||
    !(min > 0) ||
    !(max > 0) ||
    !Number.isFinite(min) ||
    !Number.isFinite(max)
  )
    return [...LOG_EMPTY];
  let lo = clampExp(Math.floor(Math.log10(Math.min(min, max))));
  let hi = clampExp(Math.ceil(Math.log10(Math.max(min, max))));
  if (hi <= lo) {
    if (hi < LOG_MAX_EXP) hi = lo + 1;
    else lo = hi - 1;
  }
  return [Number(`1e${lo}`), Number(`1e${hi}`)];
}

/** at most this many ticks on a log axis */
const MAX_LOG_TICKS = 12;

/**
 * ticks of a log axis: one per decade (every k-th decade when they are many), computed from the
 * exponents so that the count is bounded whatever the scale holds
 */
export function logSplits(_u: unknown, _axis: number, min: number, max: number): number[] {
  if (!(min > 0) || !(max > 0) || !Number.isFinite(min) || !Number.isFinite(max)) return [];
  const lo = clampExp(Math.ceil(Math.log10(Math.min(min, max)) - 1e-9));
  const hi = clampExp(Math.floor(Math.log10(Math.max(min, max)) + 1e-9));
  const every = Math.max(1, Math.ceil((hi - lo + 1) / MAX_LOG_TICKS));
  const out: number[] = [];
  for (let e = lo; e <= hi; e += every) out.push(Number(`1e${e}`));
  return out;
}
