/** the studio's loader and the CLI's give a model file the same time step */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModelFile } from '../io/load_file';
import { loadAnyFile } from './load_any';

const root = path.resolve(__dirname, '../..');
const files = {
  urdf: 'examples/double_pendulum.urdf',
  mjcf: '../shared/assets/mujoco_menagerie/google_barkour_vb/barkour_vb.xml',
};

describe('one default time step per format', () => {
  for (const [kind, file] of Object.entries(files)) {
    it(`${kind}: the studio's dt is the CLI's`, async () => {
      const abs = path.resolve(root, file);
      const cli = await loadModelFile(abs);
      const studio = await loadAnyFile(
        new Map([[path.basename(abs), readFileSync(abs)]]),
        path.basename(abs),
      );
      expect(studio.dt).toBe(cli.dt);
      expect(cli.dt).toBe(kind === 'mjcf' ? 0.002 : 0.005);
    });
  }
});
