import { describe, expect, it } from 'vitest';
import type { StepInspection } from '../engine/worker/protocol';
import {
  inspectorChart,
  iterationRows,
  OverrideParseError,
  parseOverrides,
  residualChart,
  useInspector,
  type InspectorRun,
} from './inspector_state';

type It = StepInspection['iterates'][number];

function iterate(k: number, alpha: number | null, amax: number, phi0: number): It {
  const curve_alpha = alpha === null ? [] : [0, amax / 2, amax];
  return {
    world: 0,
    island: 0,
    iteration: k,
    cost: phi0,
    residual: 1e-3 / (k + 1),
    relative_residual: 1e-2 / (k + 1),
    tolerance: 1e-6,
    stick: 1,
    slip: 1,
    open: 0,
    region_changes: k,
    dphi0: alpha === null ? null : -1,
    alpha,
    trials: alpha === null ? [] : [{ alpha, phi: phi0 - 0.4, dphi: 0 }],
    alpha_max: amax,
    curve_alpha,
    curve_phi: curve_alpha.map((a) => phi0 + (a - alpha!) ** 2 - alpha! ** 2),
    curve_dphi: curve_alpha.map((a) => 2 * (a - alpha!)),
  };
}

function inspection(iterates: It[], preset = 'drake', id?: number): StepInspection {
  return {
    id,
    which: 'last',
    step: 9,
    time: 0.05,
    dt: 0.005,
    options: {},
    preset,
    line_search: 'exact_root',
    warm_start: 'previous',
    status: 'converged',
    iterations: iterates.length - 1,
    line_search_iterations: iterates.length - 1,
    contacts: 2,
    ms: 1,
    iterates,
  };
}

describe('step inspector state', () => {
  const a: InspectorRun = {
    label: 'A: drake · exact_root',
    inspection: inspection([iterate(0, 0.7, 1.5, 5), iterate(1, null, 0, 4.6)]),
  };
  const b: InspectorRun = {
    label: 'B: approx32 · monotone_decay',
    inspection: inspection([iterate(0, 1, 1, 5), iterate(1, null, 0, 4)], 'approx32'),
  };

  it('lays both runs’ φ(α) curves on one sorted α axis, each with its accepted α marked', () => {
    const c = inspectorChart([a, b], 0);
    expect(c.labels).toEqual([
      'A: drake · exact_root Δφ(α)',
      'A: drake · exact_root accepted α',
      'B: approx32 · monotone_decay Δφ(α)',
      'B: approx32 · monotone_decay accepted α',
    ]);
    // α: A's grid 0, 0.75, 1.5 and its accepted 0.7; B's 0, 0.5, 1 (1 = accepted)
    expect(c.data[0]).toEqual([0, 0.5, 0.7, 0.75, 1, 1.5]);
    // Δφ = φ − φ(0): A has no sample at B's α (null) and vice versa
    expect(c.data[1]).toEqual(
      [0, null, -0.4, 0.75 ** 2 - 1.4 * 0.75, null, 1.5 ** 2 - 1.4 * 1.5].map((x) =>
        x === null ? null : expect.closeTo(x, 12),
      ),
    );
    expect(c.data[2].filter((x) => x !== null)).toEqual([expect.closeTo(-0.4, 12)]);
    expect(c.data[2][2]).not.toBeNull();
    expect(c.data[4][4]).toBeCloseTo(-0.4, 12);
    // an iterate without a step: empty series
    const last = inspectorChart([a], 1);
    expect(last.data).toEqual([[], [], []]);
  });

  it('writes the table rows and the residual columns', () => {
    expect(iterationRows(a.inspection)[0]).toEqual([
      '0',
      '5.000000e+0',
      '1.00e-2',
      '0.7000',
      '1',
      '0',
      '1/1/0',
    ]);
    expect(iterationRows(a.inspection)[1][3]).toBe('—');
    expect(residualChart([a, b])).toEqual([
      [0, 1],
      [0.01, 0.005],
      [0.01, 0.005],
    ]);
  });

  it('reads key=value overrides and refuses a token that is not one, with its column', () => {
    expect(
      parseOverrides('rho=0.5, max_iterations=20 solve_islands=true contact_weight_mode=diag_delassus'),
    ).toEqual({
      rho: 0.5,
      max_iterations: 20,
      solve_islands: true,
      contact_weight_mode: 'diag_delassus',
    });
    expect(parseOverrides('  ')).toEqual({});
    expect(() => parseOverrides('rho=0.5 oops')).toThrow(OverrideParseError);
    try {
      parseOverrides('rho=0.5 =3');
    } catch (e) {
      expect((e as OverrideParseError).column).toBe(9);
    }
  });

  it('fills the pending slot and drops answers to older requests', () => {
    const st = useInspector.getState();
    st.set({ pending: { id: 2, slot: 'a' }, a: null, b: null });
    st.receive(inspection([iterate(0, null, 0, 1)], 'drake', 1));
    expect(useInspector.getState().a).toBeNull();
    st.receive(inspection([iterate(0, null, 0, 1)], 'drake', 2));
    expect(useInspector.getState().a?.label).toBe('A: drake · exact_root');
    expect(useInspector.getState().pending).toBeNull();
    st.set({ pending: { id: 3, slot: 'b' } });
    st.failed({ code: 'protocol', message: 'x' });
    expect(useInspector.getState().pending).not.toBeNull();
    st.failed({ code: 'options', message: "unknown option 'rhoo'" });
    expect(useInspector.getState().error).toMatch(/rhoo/);
    expect(useInspector.getState().a).not.toBeNull();
  });
});
