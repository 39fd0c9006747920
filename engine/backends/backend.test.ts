/**
 * Backend selection (SPEC §6): the factory, the CPU fallback with a stated reason, precision labels,
 * and the CPU backend behind the interface reproducing the reference Simulation bit for bit.
 * (The WebGPU backend itself is tested on the device in webgpu/webgpu.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { boxStack, pendulum } from '../pipeline/test_scenes';
import { Simulation } from '../pipeline/simulation';
import { resolveSolverOptions } from '../sap/options';
import { BackendSimulation, createBackend, precisionLabels, webgpuUnsupported } from './index';

describe('createBackend', () => {
  it('returns the CPU backend for cpu', async () => {
    const { backend, fallback } = await createBackend('cpu', pendulum());
    expect(backend.kind).toBe('cpu');
    expect(fallback).toBeUndefined();
    backend.dispose();
  });

  it('falls back to the CPU with the reason when no adapter is available', async () => {
    const { backend, fallback } = await createBackend(
      'webgpu',
      boxStack(2),
      { solver: { contact_preset_variant: 'approx64' } },
      { acquire: async () => ({ ok: false, reason: 'no adapter (test)' }) },
    );
    expect(backend.kind).toBe('cpu');
    expect(fallback).toMatch(/WebGPU unavailable \(no adapter \(test\)\); running on the CPU backend/);
    expect(backend.options.contact_preset_variant).toBe('approx64');
    backend.dispose();
  });

  it('runs models the GPU path supports', () => {
    expect(webgpuUnsupported(boxStack(2))).toBeNull();
  });
});

describe('precision labels', () => {
  it('labels fp64 knobs "fp64 (df64)" on WebGPU', () => {
    const o = resolveSolverOptions({ contact_preset_variant: 'approx32' });
    expect(precisionLabels('webgpu', o)).toEqual({
      free_motion_solve_precision: 'fp32',
      contact_solve_precision: 'fp64 (df64)',
      contact_linear_solve_precision: 'fp32',
      sap_contact_weight_precision: 'fp32',
    });
    expect(precisionLabels('cpu', o).contact_solve_precision).toBe('fp64');
  });
});

describe('BackendSimulation on the CPU backend', () => {
  it('reproduces the reference Simulation bit for bit', async () => {
    const m = boxStack(3);
    const solver = { contact_preset_variant: 'drake' };
    const ref = new Simulation(m, { dt: 0.005, solver });
    const { backend } = await createBackend('cpu', m, { solver });
    const sim = new BackendSimulation(m, backend, { dt: 0.005 });
    for (let i = 0; i < 20; i++) {
      const a = ref.step();
      const b = await sim.step();
      expect(b.status).toBe(a.status);
    }
    expect(Array.from(sim.state.joint_q)).toEqual(Array.from(ref.state.joint_q));
    expect(Array.from(sim.state.joint_qd)).toEqual(Array.from(ref.state.joint_qd));
  });
});
