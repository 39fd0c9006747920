/** `sim run --backend cpu|webgpu` (the WebGPU run itself is covered by engine/backends/webgpu tests) */
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { main } from './main';
import { RunOutputSchema } from './schema';

const scene = path.resolve(__dirname, '../../scenes/pendulum.yaml');

describe('run --backend', () => {
  it('runs on the CPU backend and reports it in --json', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const code = await main(['run', scene, '--steps', '3', '--backend', 'cpu', '--json']);
      expect(code).toBe(0);
      const doc = RunOutputSchema.parse(JSON.parse(String(log.mock.calls[0][0])));
      expect(doc.backend?.kind).toBe('cpu');
      expect(doc.backend?.precision.contact_solve_precision).toBe('fp64');
      expect(doc.steps).toBe(3);
    } finally {
      log.mockRestore();
    }
  });

  it('rejects an unknown backend as a usage error (exit 2)', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await main(['run', scene, '--steps', '1', '--backend', 'vulkan'])).toBe(2);
      expect(String(err.mock.calls[0][0])).toMatch(/^error: --backend: expected cpu or webgpu/);
    } finally {
      err.mockRestore();
    }
  });
});
