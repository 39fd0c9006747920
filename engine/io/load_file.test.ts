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

  it('scene files with git-sourced assets resolve against --asset-root, else beside the scene', async () => {
    const s = await loadModelFile(path.join(SAP_WARP, 'scenes/anymal_c_urdf.yaml'), {
      asset_root: path.join(SAP_WARP, 'assets'),
    });
    expect(s.model.joint_label[0]).toBe('anymal_c/floating_base');
    // an --asset-root without the repository: SAP Warp's ../assets beside the scene holds it
    const beside = await loadModelFile(path.join(SAP_WARP, 'scenes/anymal_c_urdf.yaml'), {
      asset_root: '/nonexistent',
      env: {},
    });
    expect(beside.model.joint_label[0]).toBe('anymal_c/floating_base');
    await expect(loadModelFile('model.obj')).rejects.toThrow(/'\.obj' files are not supported/);
  });
});

describe('loadModelFile keyframes (--keyframe)', () => {
  const BARKOUR = path.join(SHARED_ASSETS, 'mujoco_menagerie/google_barkour_vb/scene.xml');

  it("an MJCF <key> by name or index starts the model there: Barkour vB's 'home' stands it 28 cm up", async () => {
    const atQpos0 = await loadModelFile(BARKOUR);
    const q0 = atQpos0.model.joint_q0;
    expect(Array.from(q0.subarray(0, 3))).toEqual([0, 0, 0]); // qpos0: the torso at the floor
    // a note names the keys there are
    expect(atQpos0.notes).toEqual([
      "starts from the reference pose (qpos0); the file's keyframes: home (--keyframe NAME starts from one)",
    ]);
    for (const keyframe of ['home', 0]) {
      const loaded = await loadModelFile(BARKOUR, { keyframe });
      expect(loaded.notes).toEqual([]);
      const home = loaded.model;
      // free joint p + quat (xyzw), then the legs' 0, 0.5, 1.0 rad (scene.xml's qpos)
      expect(Array.from(home.joint_q0.subarray(0, 7))).toEqual([0, 0, 0.28, 0, 0, 0, 1]);
      const q = (label: string) => home.joint_q0[home.joint_q_start[home.joint_label.indexOf(label)]];
      for (const leg of ['front_left', 'hind_left', 'front_right', 'hind_right'])
        expect([q(`abduction_${leg}`), q(`hip_${leg}`), q(`knee_${leg}`)]).toEqual([0, 0.5, 1]);
    }
    await expect(loadModelFile(BARKOUR, { keyframe: 'crouch' })).rejects.toThrow(
      /keyframe 'crouch' not found \(have: home\)/,
    );
  });

  it('is refused for files without MJCF keyframes', async () => {
    await expect(
      loadModelFile(path.join(SHARED_ASSETS, 'newton/cartpole/cartpole.urdf'), { keyframe: 'home' }),
    ).rejects.toThrow(/a keyframe selects a <key> of an MJCF file, not of a URDF file/);
    await expect(
      loadModelFile(path.join(__dirname, '../../scenes/box_stack.yaml'), { keyframe: 0 }),
    ).rejects.toThrow(/not of a scene file/);
  });
});
