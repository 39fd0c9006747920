/**
 * Parity helpers for the GPU ↔ CPU tests. Error measure (stated in every report): normwise relative,
 * max_i |gpu_i − cpu_i| / max(max_i |cpu_i|, floor) over a field; a NaN or Inf on either side
 * (an unwritten, NaN-prefilled output) makes it Infinity.
 */
import type { SapModel } from '../../../model';

/** tolerances of the parity tests (SPEC §3.7): fp32 knobs natively, fp64 knobs in df64 */
export const TOL_FP32 = 1e-4;
export const TOL_DF64 = 1e-10;
/**
 * Near-rigid holonomic rows (equality constraints, R = β²w/(4π²), β = 0.1) raise the condition of
 * the Newton matrix H = A + JᵀR⁻¹J by up to w/R = 4π²/β² ≈ 3.9e3, and the rounding of its solve
 * with it (df64 keeps ~2⁻⁴⁸ per operation, fp32 2⁻²⁴). Models with equalities are compared at
 * this multiple of the tolerance from the linear solve on, and over whole steps.
 */
export const HOLONOMIC_TOL_FACTOR = 10;

/** normwise relative error of a df64 field (hi, lo pairs) against fp64 reference values */
export function relErrDf(gpu: Float32Array, cpu: ArrayLike<number>, floor = 1e-300): number {
  let num = 0;
  let den = floor;
  for (let i = 0; i < cpu.length; i++) {
    const g = gpu[2 * i] + gpu[2 * i + 1];
    const c = cpu[i];
    if (!Number.isFinite(g) || !Number.isFinite(c)) return Infinity;
    num = Math.max(num, Math.abs(g - c));
    den = Math.max(den, Math.abs(c));
  }
  return num / den;
}

/** normwise relative error of two plain arrays */
export function relErr(got: ArrayLike<number>, ref: ArrayLike<number>, floor = 1e-300): number {
  let num = 0;
  let den = floor;
  for (let i = 0; i < ref.length; i++) {
    if (!Number.isFinite(got[i]) || !Number.isFinite(ref[i])) return Infinity;
    num = Math.max(num, Math.abs(got[i] - ref[i]));
    den = Math.max(den, Math.abs(ref[i]));
  }
  return num / den;
}

/** df64 field → doubles */
export function dfToArray(a: Float32Array, n = a.length / 2): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = a[2 * i] + a[2 * i + 1];
  return out;
}

/** the parts of a loaded scene file the GPU tests use (engine/io's LoadedScene has them) */
export interface TestScene {
  name: string;
  dt: number;
  model: SapModel;
  solver: Record<string, unknown>;
  max_rigid_contact: number;
  joint_ids: Record<string, number>;
}

/** loads scenes/<name>.yaml, optionally replicated; provided by the test file (engine/io is above
 * engine/backends in the import order) */
export type SceneLoader = (name: string, num_worlds?: number) => TestScene;

let sceneLoader: SceneLoader | null = null;

export function setSceneLoader(load: SceneLoader): void {
  sceneLoader = load;
}

/** one of the repository's scenes, through the loader the test file set */
export function loadRepoScene(name: string, num_worlds?: number): TestScene {
  if (!sceneLoader) throw new Error('setSceneLoader() first (in the test file)');
  return sceneLoader(name, num_worlds);
}
