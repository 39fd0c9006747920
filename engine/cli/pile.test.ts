import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModelFile } from '../io/load_file';
import { Simulation } from '../pipeline';
import { pileCubes, pileSceneYaml } from './pile';

const ROOT = path.resolve(__dirname, '../..');

/** the cube centres of an authored pile scene, in file order */
function authoredCentres(file: string): number[][] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/p: \[([^\]]*)\]/g)].map((m) => m[1].split(',').map(Number));
}

describe('pile scenes', () => {
  it('lays the cubes out as the authored 64- and 1000-box piles do', () => {
    for (const [file, n] of [
      ['scenes/pile_64.yaml', 4],
      ['scenes/pile_1000.yaml', 10],
    ] as const) {
      const want = authoredCentres(file);
      const got = pileCubes({ nx: n, ny: n, nz: n }).map((c) => c.p);
      expect(got.length).toBe(want.length);
      for (let k = 0; k < want.length; k++)
        for (let i = 0; i < 3; i++) expect(got[k][i]).toBeCloseTo(want[k][i], 12);
    }
  });

  it('turns every cube by a bounded yaw and tilt, the same for the same seed', () => {
    const a = pileCubes({ nx: 8, ny: 8, nz: 4 }, 7);
    const b = pileCubes({ nx: 8, ny: 8, nz: 4 }, 7);
    const c = pileCubes({ nx: 8, ny: 8, nz: 4 }, 8);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    let maxTilt = 0;
    for (const { q } of a) {
      expect(Math.hypot(...q)).toBeCloseTo(1, 12);
      // the tilt: angle between the cube's z axis and the world's
      const [x, y] = q;
      const zz = 1 - 2 * (x * x + y * y);
      maxTilt = Math.max(maxTilt, Math.acos(Math.min(1, zz)));
    }
    expect(maxTilt).toBeGreaterThan(0.05);
    expect(maxTilt).toBeLessThanOrEqual(0.12 * Math.SQRT2 + 1e-9);
  });

  it('writes a scene file that loads and drops the pile onto the ground', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pile-'));
    const file = path.join(dir, 'pile.yaml');
    writeFileSync(file, pileSceneYaml('pile_3x2x2', { nx: 3, ny: 2, nz: 2 }));
    const scene = await loadModelFile(file);
    expect(scene.model.body_count).toBe(12);
    expect(scene.dt).toBe(0.002);
    const sim = new Simulation(scene.model, {
      dt: scene.dt,
      solver: scene.solver,
      max_rigid_contact: scene.max_rigid_contact,
    });
    for (let i = 0; i < 150; i++) sim.step();
    // 0.3 s: the lower layer has landed (10 cm cubes rest at z ≈ 5 cm), nothing has gone through
    let lowest = Infinity;
    for (let b = 0; b < 12; b++) lowest = Math.min(lowest, sim.state.body_q[b * 7 + 2]);
    expect(lowest).toBeGreaterThan(0.04);
    expect(lowest).toBeLessThan(0.06);
    expect(sim.contacts.count[0]).toBeGreaterThan(4);
  });
});
