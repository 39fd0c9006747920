/**
 * Every SAP Warp option a scene file or `--set` may name either changes the run or warns why it
 * cannot (issue 51 item 5, issue 54 contact capacity): material fallbacks, broad phase, contact
 * capacity, hyphenated spellings, the exact_root promotion and the GPU-only knobs.
 */
import { describe, expect, it } from 'vitest';
import { loadSceneText, SceneError } from '../io/scene';
import type { LoadedSceneFile } from '../io/load_file';
import { Simulation } from '../pipeline';
import { MAX_RIGID_CONTACT, OptionsError, resolveSolverOptions } from '../sap/options';
import { runCommand } from './commands';

/** n boxes (0.1 m half-size) resting on the ground, spaced 0.3 m apart; `extra` YAML under simulation.solver */
function boxes(n: number, opts: { solver?: string; shape?: string; sim?: string; vx?: number } = {}): string {
  const bodies = Array.from(
    { length: n },
    (_, i) => `  - id: b${i}
    transform: { p: [${0.3 * i}, 0, 0.099], q: identity }
    shapes:
      - type: box
        hx: 0.1
        hy: 0.1
        hz: 0.1
${opts.shape ? `        cfg: { ${opts.shape} }\n` : ''}`,
  ).join('');
  const joints = Array.from(
    { length: n },
    (_, i) => `  - { id: j${i}, type: free, parent: world, child: b${i} }\n`,
  ).join('');
  const qd = opts.vx
    ? `post_build:\n${Array.from({ length: n }, (_, i) => `  - { op: set_array, array: joint_qd, index: ${6 * i}, value: ${opts.vx} }\n`).join('')}`
    : '';
  return `schema_version: 1
name: boxes
simulation:
  dt: 0.002
${opts.sim ?? ''}
  solver:
    contact_preset_variant: approx64
${opts.solver ?? ''}
bodies:
${bodies}joints:
${joints}${qd}`;
}

function file(text: string): LoadedSceneFile {
  const s = loadSceneText(text, 'boxes.yaml');
  return { ...s, notes: [] };
}

function simulate(text: string, steps: number, set: Record<string, unknown> = {}): Simulation {
  const s = file(text);
  const sim = new Simulation(s.model, { dt: s.dt, solver: { ...s.solver, ...set } });
  for (let i = 0; i < steps; i++) sim.step();
  return sim;
}

describe('material fallbacks for shapes without one', () => {
  it('contact_tau_d is the τ of each unauthored shape (a contact carries τ₀ + τ₁); authored τ stays', () => {
    const a = simulate(boxes(1), 1, { contact_tau_d: 0.02 });
    expect(a.contacts.count[0]).toBeGreaterThan(0);
    expect(a.contacts.tau[0]).toBeCloseTo(0.04, 15);
    const b = simulate(boxes(1, { shape: 'tau: 0.3' }), 1, { contact_tau_d: 0.02 });
    expect(b.contacts.tau[0]).toBeCloseTo(0.3 + 0.02, 15); // the ground has none, the box 0.3
    // and the motion changes: a box dropped 5 cm bounces higher with less dissipation
    const drop = boxes(1).replace('0.099]', '0.15]');
    const peak = (tau: number) => {
      const s = file(drop);
      const sim = new Simulation(s.model, { dt: s.dt, solver: { ...s.solver, contact_tau_d: tau } });
      let hit = false,
        top = 0;
      for (let i = 0; i < 300; i++) {
        sim.step();
        const z = sim.state.body_q[2];
        if (sim.contacts.count[0] > 0) hit = true;
        else if (hit) top = Math.max(top, z);
      }
      return top;
    };
    expect(peak(0.0)).toBeGreaterThan(peak(0.1) + 1e-3);
  });

  it('fallback_mu is the friction of unauthored shapes: a sliding box stops sooner with more', () => {
    const text = boxes(1, { vx: 1 });
    const lo = simulate(text, 150, { fallback_mu: 0.1 });
    const hi = simulate(text, 150, { fallback_mu: 0.9 });
    expect(lo.contacts.mu[0]).toBeCloseTo(0.1, 15);
    expect(hi.contacts.mu[0]).toBeCloseTo(0.9, 15);
    expect(lo.state.body_q[0]).toBeGreaterThan(hi.state.body_q[0] + 0.05);
    // an authored μ ignores the fallback
    const own = simulate(boxes(1, { shape: 'mu: 0.9', vx: 1 }), 1, { fallback_mu: 0.1 });
    expect(own.contacts.mu[0]).toBeCloseTo((2 * 0.9 * 0.1) / 1.0, 12);
  });

  it('fallback_stiffness is the ke of unauthored shapes: a softer contact sinks deeper', () => {
    const soft = simulate(boxes(1), 400, { fallback_stiffness: 2e4 });
    const stiff = simulate(boxes(1), 400, { fallback_stiffness: 2e7 });
    expect(soft.contacts.ke[0]).toBeCloseTo(1e4, 6); // series of two 2e4 shapes
    expect(stiff.state.body_q[2] - soft.state.body_q[2]).toBeGreaterThan(1e-3);
  });
});

describe('broad phase', () => {
  const pile = boxes(6).replace(
    /p: \[([\d.]+), 0, 0.099\]/g,
    (_, x) => `p: [${Number(x) / 1.6}, 0.05, 0.099]`,
  );

  it('explicit, sap and nxn give the same contacts, and the choice reaches the collision pipeline', () => {
    const runs = (['explicit', 'sap', 'nxn'] as const).map((mode) =>
      simulate(pile.replace('approx64', `approx64\n    broad_phase: ${mode}`), 20),
    );
    expect(runs.map((r) => r.collision.broad_phase)).toEqual(['explicit', 'sap', 'nxn']);
    const n = runs[0].contacts.count[0];
    expect(n).toBeGreaterThan(6);
    for (const r of runs.slice(1)) {
      expect(r.contacts.count[0]).toBe(n);
      expect(Array.from(r.contacts.phi0.subarray(0, n))).toEqual(
        Array.from(runs[0].contacts.phi0.subarray(0, n)),
      );
      expect(Array.from(r.state.body_q)).toEqual(Array.from(runs[0].state.body_q));
    }
    // from --set (the CLI), with SAP Warp's hyphenated spelling of the key
    const viaSet = runCommand(file(pile), { steps: 1, set: { 'broad-phase': 'nxn' } });
    expect(viaSet.options.broad_phase).toBe('nxn');
  });
});

describe('contact capacity (max_rigid_contact)', () => {
  it('--set max_rigid_contact=8 caps the contacts, is reported, and the overflow is counted and warned', () => {
    const out = runCommand(file(boxes(4)), { steps: 3, set: { max_rigid_contact: '8' } });
    expect(out.options.max_rigid_contact).toBe(8);
    expect(out.worlds[0].contacts.length).toBe(8);
    expect(out.stats.truncated_contacts).toBe(8); // 4 boxes × 4 corners = 16 candidates
    expect(out.warnings.join('\n')).toMatch(/up to 8 contact candidates per step were dropped.*= 8/);
    const full = runCommand(file(boxes(4)), { steps: 3 });
    expect(full.options.max_rigid_contact).toBe(256);
    expect(full.stats.truncated_contacts).toBe(0);
    expect(full.warnings).toEqual([]);
  });

  it('0 and 1e12 are typed errors naming the option, in scene files and in --set', () => {
    for (const bad of ['0', '1e12']) {
      expect(() => loadSceneText(boxes(1, { sim: `  max_rigid_contact: ${bad}` }))).toThrow(SceneError);
      try {
        loadSceneText(boxes(1, { sim: `  max_rigid_contact: ${bad}` }));
      } catch (e) {
        expect((e as SceneError).message).toContain('simulation.max_rigid_contact');
      }
      try {
        loadSceneText(boxes(1, { solver: `    max_rigid_contact: ${bad}` }));
        throw new Error('accepted');
      } catch (e) {
        expect((e as Error).message).toContain('simulation.solver.max_rigid_contact');
        expect((e as Error).message).toContain(`[1, ${MAX_RIGID_CONTACT}]`);
      }
      expect(() => runCommand(file(boxes(1)), { steps: 1, set: { max_rigid_contact: bad } })).toThrow(
        OptionsError,
      );
    }
  });

  it('refuses a scene whose contact buffers over all worlds exceed max_contact_slots', () => {
    const text = boxes(1, { sim: '  num_worlds: 64\n  max_rigid_contact: 65536' });
    expect(() => loadSceneText(text)).toThrow(/simulation\.max_rigid_contact.*max_contact_slots/s);
  });
});

describe("SAP Warp's spellings and GPU-only options in scene files", () => {
  it('reads hyphenated mode names and keys, and exact_root promotes 40 line-search iterations to 100', () => {
    const s = loadSceneText(
      boxes(1, {
        solver:
          '    line-search-variant: exact-root\n    line_search_max_iterations: 40\n    position_integration: sap-euler',
      }),
    );
    const o = resolveSolverOptions(s.solver);
    expect(o.line_search_variant).toBe('exact_root');
    expect(o.position_integration).toBe('sap_euler');
    expect(o.line_search_max_iterations).toBe(100);
  });

  it('accepts block_size, diag_shift and graph_conditional with a warning naming why; unknown keys stay errors', () => {
    const s = loadSceneText(
      boxes(1, { solver: '    block_size: 32\n    diag_shift: 1.0e-8\n    graph_conditional: true' }),
    );
    const w = s.warnings.join('\n');
    expect(w).toMatch(/simulation\.solver\.block_size.*no effect here.*Cholesky/);
    expect(w).toMatch(/simulation\.solver\.diag_shift.*no effect here/);
    expect(w).toMatch(/simulation\.solver\.graph_conditional.*CUDA/);
    expect(s.solver).toEqual({ contact_preset_variant: 'approx64' });
    expect(() => loadSceneText(boxes(1, { solver: '    block_sise: 32' }))).toThrow(
      /simulation\.solver\.block_sise/,
    );
    const run = runCommand(file(boxes(1)), { steps: 1, set: { block_size: '64' } });
    expect(run.warnings.join('\n')).toMatch(/--set block_size: option 'block_size' has no effect here/);
  });
});
