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
/**
 * collision broad phase (SAP Warp's collision doc): 'explicit' precomputed pairs, 'sap' sweep and
 * prune, 'nxn' all pairs; 'auto' (our default) is explicit, or sap beyond 128 colliding shapes per world
 */
export type BroadPhaseOption = 'auto' | 'explicit' | 'sap' | 'nxn';

/**
 * Most contact slots per world: the one limit of `max_rigid_contact` for the solver options, scene
 * files, the CLI and the studio (`LIMITS.max_rigid_contact` in engine/io/limits.ts is this value).
 */
export const MAX_RIGID_CONTACT = 65536;

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
  /**
   * fallback dissipation time scale τ per shape [s]: the τ of every shape that has none (a contact
   * combines τ₀ + τ₁); default 0.1, the builder's default shape τ (SAP Warp infers it from the model)
   */
  contact_tau_d: number;
  /** fallback Coulomb friction of shapes that have none [-] (default 0.5, the builder's default μ) */
  fallback_mu: number;
  /**
   * fallback contact stiffness of shapes that have none [N/m] (default 1e6, the builder's default
   * ke; SAP Warp's is 1e10)
   */
  fallback_stiffness: number;
  /**
   * friction regularization σ of joint dry friction (R = σ·w; Drake's SapJointFrictionConstraint
   * default 1e-3) [-]: in stiction a DOF creeps at up to σ·w·δt·τ_c; larger is softer
   */
  joint_friction_sigma: number;
  /** per-world contact capacity, in [1, {@link MAX_RIGID_CONTACT}] (SAP Warp refuses 0) */
  max_rigid_contact: number;
  /** collision broad phase (same contacts in every mode) */
  broad_phase: BroadPhaseOption;
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
  broad_phase: ['auto', 'explicit', 'sap', 'nxn'],
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
    fallback_mu: { min: 0, max: Infinity },
    fallback_stiffness: { min: 0, max: Infinity },
    joint_friction_sigma: { min: 0, max: Infinity, open: true },
    max_rigid_contact: { min: 1, max: MAX_RIGID_CONTACT, int: true },
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
  'fallback_mu',
  'fallback_stiffness',
  'joint_friction_sigma',
  'max_rigid_contact',
  'broad_phase',
  'solve_islands',
];

/**
 * The options the collision pipeline reads when it is built (contact capacity, broad phase,
 * material fallbacks): changing one needs a new pipeline (the studio reloads the scene).
 */
export const COLLISION_BUILD_OPTION_KEYS: readonly SolverOptionKey[] = [
  'max_rigid_contact',
  'broad_phase',
  'contact_tau_d',
  'fallback_mu',
  'fallback_stiffness',
];

/**
 * SAP Warp solver options that are accepted (and validated) but change nothing here, with the
 * reason: they tune its CUDA kernels, graphs or debugging paths. {@link inertOptionWarnings} words
 * the warning; {@link normalizeSolverOptions} drops them from its result.
 */
export const INERT_SOLVER_OPTIONS: Readonly<
  Record<string, { type: 'number' | 'boolean' | 'int'; reason: string }>
> = {
  block_size: {
    type: 'int',
    reason: "the tile size of SAP Warp's CUDA blocked Cholesky; our factorizations have no tile size",
  },
  diag_shift: {
    type: 'number',
    reason:
      "a diagonal shift of SAP Warp's GPU Newton factorization; ours factor H = A + JᵀGJ as is (SPD without a shift)",
  },
  graph_conditional: {
    type: 'boolean',
    reason: 'selects CUDA-graph conditional nodes in SAP Warp; there are no CUDA graphs here',
  },
  static_substep: {
    type: 'boolean',
    reason:
      "a fixed-count solve for SAP Warp's outer CUDA-graph capture; our solve always stops on its tolerances",
  },
  static_substep_iterations: { type: 'int', reason: 'used only with static_substep (no effect here)' },
  static_substep_line_search_iterations: {
    type: 'int',
    reason: 'used only with static_substep (no effect here)',
  },
  capture_contact_jacobian_snapshots: {
    type: 'boolean',
    reason:
      "a debugging copy of SAP Warp's contact Jacobian buffers; inspect uses the engine's own read-outs",
  },
  collect_iteration_stats: {
    type: 'boolean',
    reason: 'iteration statistics are always collected here (every step report has them)',
  },
  check_line_search_errors: {
    type: 'boolean',
    reason: 'a line-search failure is always reported here (status line_search_failed)',
  },
};

/** the key's canonical spelling: hyphens read as underscores (SAP Warp accepts both) */
function canonicalKey(raw: string): string {
  return raw.trim().replace(/-/g, '_');
}

function checkInert(key: string, raw: unknown): void {
  const spec = INERT_SOLVER_OPTIONS[key];
  if (spec.type === 'boolean') {
    if (typeof raw === 'boolean' || ['true', 'false', '0', '1', 0, 1].includes(raw as never)) return;
    throw new OptionsError(key, `option '${key}' must be one of true, false; got ${JSON.stringify(raw)}`);
  }
  const v = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof v !== 'number' || !Number.isFinite(v) || (spec.type === 'int' && !Number.isInteger(v))) {
    throw new OptionsError(
      key,
      `option '${key}' must be ${spec.type === 'int' ? 'an integer' : 'a finite number'}; got ${JSON.stringify(raw)}`,
    );
  }
}

/**
 * One warning per SAP Warp option in `input` that has no effect here ("option 'block_size' has no
 * effect here: …"), as `{key, message}`; the values are validated (throws {@link OptionsError}).
 */
export function inertOptionWarnings(input: Record<string, unknown>): { key: string; message: string }[] {
  const out: { key: string; message: string }[] = [];
  for (const [rawKey, raw] of Object.entries(input)) {
    const key = canonicalKey(rawKey);
    if (raw === undefined || !(key in INERT_SOLVER_OPTIONS)) continue;
    checkInert(key, raw);
    out.push({ key, message: `option '${key}' has no effect here: ${INERT_SOLVER_OPTIONS[key].reason}` });
  }
  return out;
}

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
    const lower = raw.trim().toLowerCase();
    // SAP Warp reads '-' as '_' in every mode name (armijo-decay, sap-euler, diag-delassus, …)
    const v = ALIASES[lower] ?? lower.replace(/-/g, '_');
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
 * Validates and normalizes a partial options object (aliases resolved, hyphenated keys and values read
 * with underscores, strings coerced) without expanding the preset; SAP Warp's inert options
 * ({@link INERT_SOLVER_OPTIONS}) are validated and left out. Throws {@link OptionsError} for unknown
 * keys or bad values.
 */
export function normalizeSolverOptions(input: Record<string, unknown>): Partial<SapSolverOptions> {
  const out: Record<string, unknown> = {};
  for (const [rawKey, raw] of Object.entries(input)) {
    if (raw === undefined) continue;
    const canon = canonicalKey(rawKey);
    if (canon in INERT_SOLVER_OPTIONS) {
      checkInert(canon, raw);
      continue;
    }
    if (!(SOLVER_OPTION_KEYS as readonly string[]).includes(canon)) {
      throw new OptionsError(
        rawKey,
        `unknown option '${rawKey}'; allowed keys: ${SOLVER_OPTION_KEYS.join(', ')} ` +
          `(accepted without effect: ${Object.keys(INERT_SOLVER_OPTIONS).join(', ')})`,
      );
    }
    const key = canon as SolverOptionKey;
    out[key] = normalizeValue(key, raw);
  }
  return out as Partial<SapSolverOptions>;
}

/**
 * Expands the preset, applies explicit overrides and fills variant-dependent defaults
 * (SPEC §3.6): line_search_max_iterations 40 (exact_root raises 40 to 100, given or not, as SAP
 * Warp's SolverSAP does), cost tolerances (monotone_decay 0 and 5e-3, the others 1e-30 and 1e-15),
 * slop 1000·ε of the contact solve.
 */
export function resolveSolverOptions(input: Record<string, unknown> = {}): SapSolverOptions {
  const given = normalizeSolverOptions(input);
  const preset = (given.contact_preset_variant ?? 'approx32') as ContactPresetVariant;
  const lineSearch = given.line_search_variant ?? 'monotone_decay';
  const contactPrecision = given.contact_solve_precision ?? PRESETS[preset].contact_solve_precision;
  const monotone = lineSearch === 'monotone_decay';
  const out = {
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
    contact_tau_d: 0.1,
    fallback_mu: 0.5,
    fallback_stiffness: 1e6,
    joint_friction_sigma: JOINT_FRICTION_SIGMA,
    max_rigid_contact: 256,
    broad_phase: 'auto',
    solve_islands: false,
    ...given,
  } as SapSolverOptions;
  if (out.line_search_variant === 'exact_root' && out.line_search_max_iterations === 40) {
    out.line_search_max_iterations = 100;
  }
  return out;
}

/** the keys whose value differs between two option sets */
export function changedKeys(a: SapSolverOptions, b: SapSolverOptions): SolverOptionKey[] {
  return SOLVER_OPTION_KEYS.filter((k) => a[k] !== b[k]);
}
