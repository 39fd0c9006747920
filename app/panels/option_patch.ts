/** what a solver-panel edit sends to the worker: option patches, pure and testable */
import { PRESETS, allowedValues } from '../../engine/index';

/** keys a preset expands into: an explicit value of one of these overrides the preset's */
export const PRESET_KEYS = [...Object.keys(PRESETS.approx32), 'line_search_relative_slop'];
/**
 * the option patch for a panel edit of `key`. A preset change keeps the explicit overrides (SPEC
 * §3.5: explicit keys override the expanded preset, for one-factor experiments); the studio says
 * which ones still apply ({@link overridesKeptNotice}).
 */
export function optionPatch(key: string, raw: unknown): Record<string, string | number | boolean | null> {
  if (typeof raw === 'string' && !allowedValues(key as never)) {
    const v = Number(raw.trim());
    return { [key]: raw.trim() === '' || !Number.isFinite(v) ? raw : v };
  }
  return { [key]: raw as string | number | boolean };
}

/** after a preset change: the overrides of preset knobs that still apply, or '' when none do */
export function overridesKeptNotice(preset: string, explicit: Record<string, unknown>): string {
  const kept = PRESET_KEYS.filter((k) => k in explicit).map((k) => `${k}=${String(explicit[k])}`);
  if (!kept.length) return '';
  return `preset ${preset}: your overrides still apply (${kept.join(', ')}); "back to scene options" clears them`;
}

/**
 * the patch that returns to the options the scene was loaded with (its file's or its link's): every
 * other explicit key is removed, the loaded ones get their values back; the preset stays
 */
export function backToLoadedPatch(
  explicit: Record<string, unknown>,
  loaded: Record<string, string | number | boolean>,
): Record<string, string | number | boolean | null> {
  const patch: Record<string, string | number | boolean | null> = {};
  for (const k of Object.keys(explicit))
    if (!(k in loaded) && k !== 'contact_preset_variant') patch[k] = null;
  for (const [k, v] of Object.entries(loaded))
    if (k !== 'contact_preset_variant' && explicit[k] !== v) patch[k] = v;
  return patch;
}
