import { describe, expect, it } from 'vitest';
import { fileStem, readableModelName } from './model_name';
import { loadModelFile } from './load_file';
import { SHARED_ASSETS } from './testing_assets';

describe('readable model names', () => {
  it('keeps a real name, replaces a placeholder by the file name', () => {
    expect(readableModelName('Humanoid', 'x/humanoid.xml')).toBe('Humanoid');
    expect(readableModelName('root', 'a/b/crazyflie.usd')).toBe('crazyflie');
    expect(readableModelName('World', 'scene.usda')).toBe('scene');
    expect(readableModelName(undefined, 'T12.URDF')).toBe('T12');
    expect(readableModelName('mujoco', undefined)).toBe('mujoco');
    expect(readableModelName(undefined, undefined)).toBe('model');
    expect(fileStem('dir/cube.usdz[cube.usdc]')).toBe('cube');
    expect(fileStem('C:\\m\\arm.urdf')).toBe('arm');
  });

  it('the importers name models from the files', async () => {
    const name = async (f: string) => (await loadModelFile(`${SHARED_ASSETS}/${f}`)).name;
    expect(await name('newton/crazyflie/crazyflie.usd')).toBe('crazyflie'); // defaultPrim "root"
    expect(await name('tinyusdz/cube.usdz')).toBe('cube');
    expect(await name('newton/ant/ant.usda')).toBe('ant');
    expect(await name('mujoco/humanoid/humanoid.xml')).toBe('Humanoid');
    expect(await name('newton/cartpole/cartpole.urdf')).toBe('cartpole');
  });

  it('unnamed shapes are named after their body or link, not a running index', async () => {
    const urdf = await loadModelFile(`${SHARED_ASSETS}/newton/cartpole/cartpole.urdf`);
    expect(urdf.model.shape_label.slice(0, 4)).toEqual([
      'slider/visual',
      'slider/collision',
      'cart/visual',
      'cart/collision',
    ]);
    const scene = await loadModelFile(new URL('../../scenes/box_stack.yaml', import.meta.url).pathname);
    expect(scene.model.shape_label.slice(0, 2)).toEqual(['box0/box', 'box1/box']);
  });
});
