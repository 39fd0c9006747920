/**
 * Solver options: the vocabulary of SPEC §3.6, preset expansion (SPEC §3.5), aliases and validation.
 *
 * The same names are used by TS option objects, scene files (`simulation.solver`), share links and the
 * CLI (`--set key=value`). `resolveSolverOptions` expands `contact_preset_variant`, applies explicit
 * overrides on top (one-factor experiments), fills line-search defaults that depend on the variant and
 * rejects unknown keys or out-of-range values with an {@link OptionsError} naming the key.
 */

import { JOINT_FRICTION_SIGMA } from './constraints/joint_friction';

/** floating-point realization of a solver stage */
export type Precision = 'fp32' | 'fp64';
export type ContactPresetVariant = 'approx32' | 'approx64' | 'drake';
export type ContactWeightMode = 'body_inertia' | 'diag_delassus';
export type ContactPointMode = 'witness_point' | 'contact_midpoint';
export type PositionIntegration = 'midpoint' | 'sap_euler';
export type LineSearchVariant = 'monotone_decay' | 'armijo_decay' | 'exact_root';

/** fully expanded solver options (every key has a value) */
export interface SapSolverOptions {
  contact_preset_variant: ContactPresetVariant;
  contact_weight_mode: ContactWeightMode;
  contact_point_mode: ContactPointMode;
  position_integration: PositionIntegration;
  use_f64_boundary_pose: boolean;
  free_motion_solve_precision: Precision;
  contact_solve_precision: Precision;
  contact_linear_solve_precision: Precision;
  sap_contact_weight_precision: Precision;
  line_search_variant: LineSearchVariant;
  /** maximum line-search candidates per Newton iteration (40; exact_root promotes the default to 100) */
  line_search_max_iterations: number;
  /** Armijo sufficient-decrease coefficient, in (0, 1) */
  armijo_c: number;
  /** geometric decay factor of armijo_decay, in (0, 1) */
  rho: number;
  /** near-flat tolerance of the Armijo path, relative (default 1000·ε of contact_solve_precision) */
  line_search_relative_slop: number;
  /** absolute cost-change stopping tolerance [J] */
  cost_abs_tol: number;
  /** relative cost-change stopping tolerance [-] */
  cost_rel_tol: number;
  /** Newton iteration cap */
  max_iterations: number;
  /** absolute optimality tolerance on ‖D∇ℓ‖ [√J] */
  optimality_abs_tol: number;
  /** relative optimality tolerance [-] */
  optimality_rel_tol: number;
  /** near-rigid threshold β of contacts [-] */
  contact_beta: number;
  /** friction regularization σ of contacts [-] */
  contact_sigma: number;
  /** default dissipation time scale τ_d per shape [s], used where a shape sets none */
  contact_tau_d: number;
  /**
   * friction regularization σ of joint dry friction (R = σ·w; Drake's SapJointFrictionConstraint
   * default 1e-3) [-]: in stiction a DOF creeps at up to σ·w·δt·τ_c; larger is softer
   */
  joint_friction_sigma: number;
  /** per-world contact capacity */
  max_rigid_contact: number;
  /**
   * solve each constraint island (cliques coupled by constraints; static bodies couple nothing) as
   * its own problem, with its own line search and stopping test (default false: one solve per
   * world, as SAP Warp and Drake do; the minimizer is the same, the iterates differ)
   */
  solve_islands: boolean;
}

export type SolverOptionKey = keyof SapSolverOptions;

/** thrown for unknown keys and out-of-range values; `key` names the offending option */
export class OptionsError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
    this.name = 'OptionsError';
  }
}

/** SPEC §3.5 preset table */
export const PRESETS: Readonly<
  Record<
    ContactPresetVariant,
    Pick<
      SapSolverOptions,
      | 'contact_weight_mode'
      | 'contact_point_mode'
      | 'position_integration'
      | 'use_f64_boundary_pose'
      | 'free_motion_solve_precision'
      | 'contact_solve_precision'
      | 'contact_linear_solve_precision'
      | 'sap_contact_weight_precision'
    >
  >
> = {
  approx32: {
    contact_weight_mode: 'body_inertia',
    contact_point_mode: 'witness_point',
    position_integration: 'midpoint',
    use_f64_boundary_pose: false,
    free_motion_solve_precision: 'fp32',
    contact_solve_precision: 'fp64',
    contact_linear_solve_precision: 'fp32',
    sap_contact_weight_precision: 'fp32',
  },
  approx64: {
    contact_weight_mode: 'body_inertia',
    contact_point_mode: 'witness_point',
    position_integration: 'midpoint',
    use_f64_boundary_pose: true,
    free_motion_solve_precision: 'fp64',
    contact_solve_precision: 'fp64',
    contact_linear_solve_precision: 'fp64',
    sap_contact_weight_precision: 'fp64',
  },
  drake: {
    contact_weight_mode: 'diag_delassus',
    contact_point_mode: 'contact_midpoint',
    position_integration: 'sap_euler',
    use_f64_boundary_pose: true,
    free_motion_solve_precision: 'fp64',
    contact_solve_precision: 'fp64',
    contact_linear_solve_precision: 'fp64',
    sap_contact_weight_precision: 'fp64',
  },
};

const ENUMS: Partial<Record<SolverOptionKey, readonly string[]>> = {
  contact_preset_variant: ['approx32', 'approx64', 'drake'],
  contact_weight_mode: ['body_inertia', 'diag_delassus'],
  contact_point_mode: ['witness_point', 'contact_midpoint'],
  position_integration: ['midpoint', 'sap_euler'],
  free_motion_solve_precision: ['fp32', 'fp64'],
  contact_solve_precision: ['fp32', 'fp64'],
  contact_linear_solve_precision: ['fp32', 'fp64'],
  sap_contact_weight_precision: ['fp32', 'fp64'],
  line_search_variant: ['monotone_decay', 'armijo_decay', 'exact_root'],
};

const BOOLEANS: readonly SolverOptionKey[] = ['use_f64_boundary_pose', 'solve_islands'];

/** numeric keys with their admissible range and whether they must be integers */
const NUMBERS: Partial<Record<SolverOptionKey, { min: number; max: number; open?: boolean; int?: boolean }>> =
  {
    line_search_max_iterations: { min: 1, max: 10000, int: true },
    armijo_c: { min: 0, max: 1, open: true },
    rho: { min: 0, max: 1, open: true },
    line_search_relative_slop: { min: 0, max: 1 },
    cost_abs_tol: { min: 0, max: Infinity },
    cost_rel_tol: { min: 0, max: 1 },
    max_iterations: { min: 1, max: 100000, int: true },
    optimality_abs_tol: { min: 0, max: Infinity },
    optimality_rel_tol: { min: 0, max: 1 },
    contact_beta: { min: 0, max: Infinity },
    contact_sigma: { min: 0, max: Infinity },
    contact_tau_d: { min: 0, max: Infinity },
    joint_friction_sigma: { min: 0, max: Infinity, open: true },
    max_rigid_contact: { min: 0, max: 1 << 20, int: true },
  };

/** every accepted option key, in documentation order */
export const SOLVER_OPTION_KEYS: readonly SolverOptionKey[] = [
  'contact_preset_variant',
  'contact_weight_mode',
  'contact_point_mode',
  'position_integration',
  'use_f64_boundary_pose',
  'free_motion_solve_precision',
  'contact_solve_precision',
  'contact_linear_solve_precision',
  'sap_contact_weight_precision',
  'line_search_variant',
  'line_search_max_iterations',
  'armijo_c',
  'rho',
  'line_search_relative_slop',
  'cost_abs_tol',
  'cost_rel_tol',
  'max_iterations',
  'optimality_abs_tol',
  'optimality_rel_tol',
  'contact_beta',
  'contact_sigma',
  'contact_tau_d',
  'joint_friction_sigma',
  'max_rigid_contact',
  'solve_islands',
];

/** the allowed values of an enum-valued key (undefined for numeric/boolean keys) */
export function allowedValues(key: SolverOptionKey): readonly string[] | undefined {
  return ENUMS[key];
}

const ALIASES: Record<string, string> = {
  approx_32: 'approx32',
  'approx-32': 'approx32',
  approx_64: 'approx64',
  'approx-64': 'approx64',
  f32: 'fp32',
  f64: 'fp64',
  float32: 'fp32',
  float64: 'fp64',
};

/** machine epsilon of a precision */
export function epsilonOf(p: Precision): number {
  return p === 'fp32' ? 2 ** -23 : 2 ** -52;
}

function normalizeValue(key: SolverOptionKey, raw: unknown): string | number | boolean {
  const allowed = ENUMS[key];
  if (allowed) {
    if (typeof raw !== 'string') {
      throw new OptionsError(
        key,
        `option '${key}' must be one of ${allowed.join(', ')}; got ${JSON.stringify(raw)}`,
      );
    }
    const v = ALIASES[raw.trim().toLowerCase()] ?? raw.trim().toLowerCase();
    if (!allowed.includes(v)) {
      throw new OptionsError(key, `option '${key}' must be one of ${allowed.join(', ')}; got '${raw}'`);
    }
    return v;
  }
  if (BOOLEANS.includes(key)) {
    if (typeof raw === 'boolean') return raw;
    if (raw === 'true' || raw === '1' || raw === 1) return true;
    if (raw === 'false' || raw === '0' || raw === 0) return false;
    throw new OptionsError(key, `option '${key}' must be one of true, false; got ${JSON.stringify(raw)}`);
  }
  const range = NUMBERS[key];
  if (range) {
    const v = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    if (typeof v !== 'number' || Number.isNaN(v)) {
      throw new OptionsError(key, `option '${key}' must be a number; got ${JSON.stringify(raw)}`);
    }
    const below = range.open ? v <= range.min : v < range.min;
    const above = range.open ? v >= range.max : v > range.max;
    if (below || above || (range.int && !Number.isInteger(v))) {
      const lo = range.open ? '(' : '[';
      const hi = range.open ? ')' : ']';
      throw new OptionsError(
        key,
        `option '${key}' must be ${range.int ? 'an integer' : 'a number'} in ${lo}${range.min}, ${range.max}${hi}; got ${v}`,
      );
    }
    return v;
  }
  throw new OptionsError(key, `unknown option '${key}'`);
}

/**
 * Validates and normalizes a partial options object (aliases resolved, strings coerced) without
 * expanding the preset. Throws {@link OptionsError} for unknown keys or bad values.
 */
export function normalizeSolverOptions(input: Record<string, unknown>): Partial<SapSolverOptions> {
  const out: Record<string, unknown> = {};
  for (const [rawKey, raw] of Object.entries(input)) {
    if (raw === undefined) continue;
    if (!(SOLVER_OPTION_KEYS as readonly string[]).includes(rawKey)) {
      throw new OptionsError(
        rawKey,
        `unknown option '${rawKey}'; allowed keys: ${SOLVER_OPTION_KEYS.join(', ')}`,
      );
    }
    const key = rawKey as SolverOptionKey;
    out[key] = normalizeValue(key, raw);
  }
  return out as Partial<SapSolverOptions>;
}

/**
 * Expands the preset, applies explicit overrides and fills variant-dependent defaults
 * (SPEC §3.6): line_search_max_iterations 40 (100 for exact_root), cost tolerances
 * (monotone_decay 0 and 5e-3, the others 1e-30 and 1e-15), slop 1000·ε of the contact solve.
 */
export function resolveSolverOptions(input: Record<string, unknown> = {}): SapSolverOptions {
  const given = normalizeSolverOptions(input);
  const preset = (given.contact_preset_variant ?? 'approx32') as ContactPresetVariant;
  const lineSearch = given.line_search_variant ?? 'monotone_decay';
  const contactPrecision = given.contact_solve_precision ?? PRESETS[preset].contact_solve_precision;
  const monotone = lineSearch === 'monotone_decay';
  return {
    contact_preset_variant: preset,
    ...PRESETS[preset],
    line_search_variant: lineSearch,
    line_search_max_iterations: lineSearch === 'exact_root' ? 100 : 40,
    armijo_c: 1e-4,
    rho: 0.8,
    line_search_relative_slop: 1000 * epsilonOf(contactPrecision),
    cost_abs_tol: monotone ? 0 : 1e-30,
    cost_rel_tol: monotone ? 5e-3 : 1e-15,
    max_iterations: 100,
    optimality_abs_tol: 1e-14,
    optimality_rel_tol: 1e-6,
    contact_beta: 1,
    contact_sigma: 1e-3,
    contact_tau_d: 0,
    joint_friction_sigma: JOINT_FRICTION_SIGMA,
    max_rigid_contact: 256,
    solve_islands: false,
    ...given,
  } as SapSolverOptions;
}

/** the keys whose value differs between two option sets */
export function changedKeys(a: SapSolverOptions, b: SapSolverOptions): SolverOptionKey[] {
  return SOLVER_OPTION_KEYS.filter((k) => a[k] !== b[k]);
}
