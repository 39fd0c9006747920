import { describe, expect, it } from 'vitest';
import {
  OptionsError,
  PRESETS,
  SOLVER_OPTION_KEYS,
  allowedValues,
  changedKeys,
  normalizeSolverOptions,
  resolveSolverOptions,
  type SapSolverOptions,
  type SolverOptionKey,
  INERT_SOLVER_OPTIONS,
  MAX_RIGID_CONTACT,
  inertOptionWarnings,
} from './options';
import { LIMITS } from '../io/limits';

/** SPEC §3.5 table, written out independently of options.ts */
const SPEC_TABLE = {
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
} as const;

/** SPEC §3.6 defaults (monotone_decay, approx32) */
const SPEC_DEFAULTS = {
  contact_preset_variant: 'approx32',
  line_search_variant: 'monotone_decay',
  line_search_max_iterations: 40,
  armijo_c: 1e-4,
  rho: 0.8,
  line_search_relative_slop: 1000 * 2 ** -52,
  cost_abs_tol: 0,
  cost_rel_tol: 5e-3,
  max_iterations: 100,
  optimality_abs_tol: 1e-14,
  optimality_rel_tol: 1e-6,
  contact_beta: 1,
  contact_sigma: 1e-3,
  joint_friction_sigma: 1e-3,
};

/** a non-default value for every key */
const OVERRIDES: Record<SolverOptionKey, unknown> = {
  contact_preset_variant: 'drake',
  contact_weight_mode: 'diag_delassus',
  contact_point_mode: 'contact_midpoint',
  position_integration: 'sap_euler',
  use_f64_boundary_pose: true,
  free_motion_solve_precision: 'fp64',
  contact_solve_precision: 'fp32',
  contact_linear_solve_precision: 'fp64',
  sap_contact_weight_precision: 'fp64',
  line_search_variant: 'armijo_decay',
  line_search_max_iterations: 7,
  armijo_c: 0.3,
  rho: 0.5,
  line_search_relative_slop: 1e-9,
  cost_abs_tol: 1e-20,
  cost_rel_tol: 1e-9,
  max_iterations: 12,
  optimality_abs_tol: 1e-10,
  optimality_rel_tol: 1e-4,
  contact_beta: 0.5,
  contact_sigma: 1e-2,
  contact_tau_d: 0.02,
  fallback_mu: 0.9,
  fallback_stiffness: 1e8,
  joint_friction_sigma: 0.05,
  max_rigid_contact: 17,
  broad_phase: 'nxn',
  solve_islands: true,
};

/** keys whose defaults derive from another key (SPEC §3.6), pinned to isolate one change */
const DERIVED: Partial<Record<SolverOptionKey, Record<string, unknown>>> = {
  line_search_variant: { line_search_max_iterations: 40, cost_abs_tol: 0, cost_rel_tol: 5e-3 },
  contact_solve_precision: { line_search_relative_slop: 1000 * 2 ** -52 },
};

describe('solver options', () => {
  it('expands every preset to the SPEC §3.5 table', () => {
    for (const preset of ['approx32', 'approx64', 'drake'] as const) {
      const o = resolveSolverOptions({ contact_preset_variant: preset });
      expect(o.contact_preset_variant).toBe(preset);
      for (const [k, v] of Object.entries(SPEC_TABLE[preset]))
        expect(o[k as SolverOptionKey], `${preset}.${k}`).toBe(v);
      expect(PRESETS[preset]).toEqual(SPEC_TABLE[preset]);
    }
  });

  it('defaults to approx32 with the SPEC §3.6 defaults', () => {
    const o = resolveSolverOptions();
    for (const [k, v] of Object.entries(SPEC_DEFAULTS)) expect(o[k as SolverOptionKey], k).toBe(v);
    for (const [k, v] of Object.entries(SPEC_TABLE.approx32)) expect(o[k as SolverOptionKey], k).toBe(v);
    expect(Object.keys(o).sort()).toEqual([...SOLVER_OPTION_KEYS].sort());
  });

  it('derives line-search defaults from the variant and the contact precision', () => {
    const exact = resolveSolverOptions({ line_search_variant: 'exact_root' });
    expect(exact.line_search_max_iterations).toBe(100);
    expect(exact.cost_abs_tol).toBe(1e-30);
    expect(exact.cost_rel_tol).toBe(1e-15);
    const armijo = resolveSolverOptions({ line_search_variant: 'armijo_decay' });
    expect(armijo.line_search_max_iterations).toBe(40);
    expect(armijo.cost_abs_tol).toBe(1e-30);
    expect(armijo.cost_rel_tol).toBe(1e-15);
    // as SAP Warp's SolverSAP: exact_root raises 40 to 100 whether 40 was given or defaulted
    expect(
      resolveSolverOptions({ line_search_variant: 'exact_root', line_search_max_iterations: 40 })
        .line_search_max_iterations,
    ).toBe(100);
    expect(
      resolveSolverOptions({ line_search_variant: 'exact_root', line_search_max_iterations: 41 })
        .line_search_max_iterations,
    ).toBe(41);
    expect(
      resolveSolverOptions({ line_search_variant: 'armijo_decay', line_search_max_iterations: 40 })
        .line_search_max_iterations,
    ).toBe(40);
    expect(resolveSolverOptions({ contact_solve_precision: 'fp32' }).line_search_relative_slop).toBe(
      1000 * 2 ** -23,
    );
  });

  it('each override changes only its own key', () => {
    const base = resolveSolverOptions();
    for (const key of SOLVER_OPTION_KEYS) {
      if (key === 'contact_preset_variant') continue; // a preset changes its bundle (next test)
      const o = resolveSolverOptions({ [key]: OVERRIDES[key], ...DERIVED[key] });
      expect(changedKeys(base, o), key).toEqual([key]);
    }
  });

  it('explicit keys override the expanded preset (one-factor experiments)', () => {
    const a = resolveSolverOptions({ contact_preset_variant: 'approx64' });
    const b = resolveSolverOptions({
      contact_preset_variant: 'approx64',
      contact_weight_mode: 'diag_delassus',
    });
    expect(changedKeys(a, b)).toEqual(['contact_weight_mode']);
    const drake = resolveSolverOptions({ contact_preset_variant: 'drake' });
    const base = resolveSolverOptions();
    expect(changedKeys(base, drake).sort()).toEqual(
      [
        'contact_preset_variant',
        ...Object.keys(SPEC_TABLE.drake).filter(
          (k) =>
            SPEC_TABLE.drake[k as keyof typeof SPEC_TABLE.drake] !==
            SPEC_TABLE.approx32[k as keyof typeof SPEC_TABLE.approx32],
        ),
      ].sort(),
    );
  });

  it('normalizes aliases', () => {
    expect(resolveSolverOptions({ contact_preset_variant: 'approx_32' }).contact_preset_variant).toBe(
      'approx32',
    );
    expect(resolveSolverOptions({ contact_preset_variant: 'approx-32' }).contact_preset_variant).toBe(
      'approx32',
    );
    expect(resolveSolverOptions({ contact_preset_variant: 'approx_64' }).contact_preset_variant).toBe(
      'approx64',
    );
    expect(resolveSolverOptions({ contact_preset_variant: 'approx-64' }).contact_preset_variant).toBe(
      'approx64',
    );
    const o = resolveSolverOptions({
      contact_linear_solve_precision: 'f32',
      free_motion_solve_precision: 'f64',
    });
    expect(o.contact_linear_solve_precision).toBe('fp32');
    expect(o.free_motion_solve_precision).toBe('fp64');
    expect(normalizeSolverOptions({ sap_contact_weight_precision: 'f64' })).toEqual({
      sap_contact_weight_precision: 'fp64',
    });
  });

  it("reads SAP Warp's hyphenated spellings of keys and mode names", () => {
    expect(
      normalizeSolverOptions({
        line_search_variant: 'armijo-decay',
        position_integration: 'sap-euler',
        contact_weight_mode: 'diag-delassus',
        'contact-point-mode': 'witness-point',
        broad_phase: 'NxN',
      }),
    ).toEqual({
      line_search_variant: 'armijo_decay',
      position_integration: 'sap_euler',
      contact_weight_mode: 'diag_delassus',
      contact_point_mode: 'witness_point',
      broad_phase: 'nxn',
    });
    expect(resolveSolverOptions({ line_search_variant: 'exact-root' }).line_search_max_iterations).toBe(100);
  });

  it('accepts the GPU-only SAP Warp options with a warning that names the reason, and drops them', () => {
    const input = { block_size: 64, diag_shift: '1e-9', graph_conditional: false, 'static-substep': true };
    expect(normalizeSolverOptions(input)).toEqual({});
    expect(resolveSolverOptions(input)).toEqual(resolveSolverOptions());
    const w = inertOptionWarnings(input);
    expect(w.map((x) => x.key)).toEqual(['block_size', 'diag_shift', 'graph_conditional', 'static_substep']);
    expect(w[0].message).toMatch(/^option 'block_size' has no effect here: .*Cholesky/);
    for (const k of Object.keys(INERT_SOLVER_OPTIONS)) expect(SOLVER_OPTION_KEYS).not.toContain(k);
    // their values are still validated
    expect(() => normalizeSolverOptions({ block_size: 'big' })).toThrow(/block_size.*integer/);
    expect(() => inertOptionWarnings({ graph_conditional: 'maybe' })).toThrow(/graph_conditional/);
    expect(inertOptionWarnings({ contact_sigma: 1 })).toEqual([]);
  });

  it('bounds max_rigid_contact by the one shared limit: 0 and 1e12 are typed errors naming the key', () => {
    expect(resolveSolverOptions({ max_rigid_contact: MAX_RIGID_CONTACT }).max_rigid_contact).toBe(
      MAX_RIGID_CONTACT,
    );
    expect(LIMITS.max_rigid_contact).toBe(MAX_RIGID_CONTACT);
    for (const bad of [0, 1e12, MAX_RIGID_CONTACT + 1, '1e12']) {
      const e = thrown({ max_rigid_contact: bad });
      expect(e.key).toBe('max_rigid_contact');
      expect(e.message).toContain(`[1, ${MAX_RIGID_CONTACT}]`);
    }
  });

  function thrown(input: Record<string, unknown>): OptionsError {
    try {
      resolveSolverOptions(input);
    } catch (e) {
      expect(e).toBeInstanceOf(OptionsError);
      return e as OptionsError;
    }
    throw new Error(`no error for ${JSON.stringify(input)}`);
  }

  it('rejects unknown keys, naming the key and listing the allowed keys', () => {
    const e = thrown({ line_serch_variant: 'exact_root' });
    expect(e.key).toBe('line_serch_variant');
    expect(e.message).toContain('line_serch_variant');
    for (const k of SOLVER_OPTION_KEYS) expect(e.message).toContain(k);
  });

  it('rejects bad enum values, naming the key and listing the allowed values', () => {
    for (const key of SOLVER_OPTION_KEYS) {
      const allowed = allowedValues(key);
      if (!allowed) continue;
      const e = thrown({ [key]: 'bogus' });
      expect(e.key).toBe(key);
      expect(e.message).toContain(key);
      for (const v of allowed) expect(e.message).toContain(v);
    }
  });

  it('rejects out-of-range numbers and bad booleans, naming the key and the admissible range', () => {
    const bad: [SolverOptionKey, unknown, string][] = [
      ['rho', 1, '(0, 1)'],
      ['rho', 0, '(0, 1)'],
      ['armijo_c', 0, '(0, 1)'],
      ['max_iterations', 2.5, 'integer'],
      ['line_search_max_iterations', 0, 'integer'],
      ['cost_rel_tol', -1, '[0, 1]'],
      ['contact_sigma', 'abc', 'number'],
      ['joint_friction_sigma', 0, '(0, Infinity)'],
      ['joint_friction_sigma', Infinity, '(0, Infinity)'],
      ['use_f64_boundary_pose', 'maybe', 'true, false'],
    ];
    for (const [key, value, hint] of bad) {
      const e = thrown({ [key]: value });
      expect(e.key).toBe(key);
      expect(e.message).toContain(key);
      expect(e.message).toContain(hint);
    }
  });

  it('resolving a resolved set is the identity', () => {
    const o: SapSolverOptions = resolveSolverOptions({
      contact_preset_variant: 'drake',
      line_search_variant: 'exact_root',
    });
    expect(resolveSolverOptions({ ...o })).toEqual(o);
  });
});
