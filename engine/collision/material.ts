/**
 * The contact material of each shape as collision writes it, with the fallbacks of SAP Warp's
 * solver options (`contact_tau_d`, `fallback_mu`, `fallback_stiffness`) for shapes that have none.
 *
 * A shape "has none" when its model value is not a number (NaN: nothing authored it, e.g. a scene
 * file that sets no `tau` on the shape, its body or `builder.defaults.shape`), or negative — SAP
 * Warp's test for an explicit value is "finite and ≥ 0"; ke = +∞ (rigid) also counts as given.
 * A contact then combines the resolved values: series stiffness, τ₀ + τ₁, 2μ₀μ₁/(μ₀+μ₁).
 */
import type { SapModel } from '../model';

/** fallback material of shapes without one (solver options of the same meaning) */
/** model fields where NaN means "not authored": the material fallbacks resolve them at collision time */
export const UNAUTHORED_MATERIAL_FIELDS = ['shape_ke', 'shape_tau', 'shape_mu'] as const;

export interface MaterialFallbacks {
  /** dissipation time scale τ per shape [s] (`contact_tau_d`) */
  tau_d: number;
  /** Coulomb friction [-] (`fallback_mu`) */
  mu: number;
  /** contact stiffness [N/m] (`fallback_stiffness`) */
  stiffness: number;
}

/** the builder's default shape material: the fallbacks when none are given */
export const DEFAULT_MATERIAL_FALLBACKS: Readonly<MaterialFallbacks> = {
  tau_d: 0.1,
  mu: 0.5,
  stiffness: 1e6,
};

/** per-shape resolved material (shape_count each) */
export interface ShapeMaterial {
  readonly ke: Float64Array;
  readonly tau: Float64Array;
  readonly mu: Float64Array;
  /** shapes that took at least one fallback value */
  readonly fallback_shapes: number;
}

const given = (x: number): boolean => x >= 0; // false for NaN and negatives; true for +∞

/**
 * The model's shape material with the fallbacks applied where a shape has none (see the module
 * note). Allocates three arrays once; collision reads them on every contact.
 */
export function shapeMaterialFallback(
  model: SapModel,
  fallbacks: Partial<MaterialFallbacks> = {},
): ShapeMaterial {
  const fb = { ...DEFAULT_MATERIAL_FALLBACKS, ...fallbacks };
  const n = model.shape_count;
  const ke = new Float64Array(n),
    tau = new Float64Array(n),
    mu = new Float64Array(n);
  let fallback_shapes = 0;
  for (let s = 0; s < n; s++) {
    const k = model.shape_ke[s],
      t = model.shape_tau[s],
      f = model.shape_mu[s];
    ke[s] = given(k) ? k : fb.stiffness;
    tau[s] = given(t) ? t : fb.tau_d;
    mu[s] = given(f) ? f : fb.mu;
    if (!given(k) || !given(t) || !given(f)) fallback_shapes++;
  }
  return { ke, tau, mu, fallback_shapes };
}
