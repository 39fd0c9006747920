import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JointType } from '../model';
import { loadModelFile } from './load_file';
import { SAP_WARP, SHARED_ASSETS } from './testing_assets';

describe('loadModelFile (CLI loader) by extension', () => {
  it('.urdf (upper case too) with a ground plane; .xml read as MJCF with the file’s time step', async () => {
    const u = await loadModelFile(path.join(SHARED_ASSETS, 'newton/cartpole/cartpole.urdf'));
    expect(u.model.joint_type[0]).toBe(JointType.FIXED);
    expect(u.model.shape_label).toContain('ground');
    expect(u.dt).toBe(0.005);
    const t = await loadModelFile(path.join(SHARED_ASSETS, 'urdf-loaders/T12/urdf/T12.URDF'));
    expect(t.model.body_count).toBe(37);
    const h = await loadModelFile(path.join(SHARED_ASSETS, 'mujoco/humanoid/humanoid.xml'));
    expect(h.dt).toBe(0.005);
    expect(h.model.joint_type[0]).toBe(JointType.FREE);
    expect(h.warnings.some((w) => /^unsupported/.test(w))).toBe(false); // its fixed tendons are built
    expect(h.model.tendon_count).toBe(2);
  });

  it('scene files with git-sourced assets resolve against --asset-root', async () => {
    const s = await loadModelFile(path.join(SAP_WARP, 'scenes/anymal_c_urdf.yaml'), {
      asset_root: path.join(SAP_WARP, 'assets'),
    });
    expect(s.model.joint_label[0]).toBe('anymal_c/floating_base');
    await expect(
      loadModelFile(path.join(SAP_WARP, 'scenes/anymal_c_urdf.yaml'), { asset_root: '/nonexistent' }),
    ).rejects.toThrow(/assets\[0\]\.source: .*file not found/);
    await expect(loadModelFile('model.obj')).rejects.toThrow(/'\.obj' files are not supported/);
  });
});
