import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { SHARED_ASSETS } from '../engine/io/testing_assets';
import { MAX_DROP_FILES, chooseEntry, collectFiles, unzipInto } from './files';

describe('dropped files', () => {
  it('chooses the entry: scene files, then URDF, MJCF, USD; shallowest first', () => {
    expect(chooseEntry(['robot/meshes/a.stl', 'robot/robot.urdf', 'robot/scene.yaml'])).toBe(
      'robot/scene.yaml',
    );
    expect(chooseEntry(['r/urdf/r.urdf', 'r/r.xml'])).toBe('r/urdf/r.urdf');
    expect(chooseEntry(['a/b/deep.xml', 'top.xml'])).toBe('top.xml');
    expect(chooseEntry(['x.usdz', 'y.usda'])).toBe('y.usda');
    expect(chooseEntry(['notes.txt', 'mesh.stl'])).toBeNull();
    // tool bookkeeping is never the entry: Omniverse's collect manifest, macOS zip forks, hidden folders
    expect(chooseEntry(['anymal/usd/.collect.mapping.json', 'anymal/usd/anymal_d.usda'])).toBe(
      'anymal/usd/anymal_d.usda',
    );
    expect(chooseEntry(['__MACOSX/r/._r.urdf', 'r/r.urdf'])).toBe('r/r.urdf');
    expect(chooseEntry(['r/._r.urdf', 'r/.git/x.json', 'r/deep/r.urdf'])).toBe('r/deep/r.urdf');
  });

  it('an MJCF file that another includes is not the entry, nor an .xml that is not MJCF', () => {
    // MuJoCo Menagerie folders as dropped: scene.xml includes the robot and adds floor and lights
    for (const [folder, entry] of [
      ['agility_cassie', 'scene.xml'],
      ['booster_t1', 'scene.xml'],
    ]) {
      const root = path.join(SHARED_ASSETS, 'mujoco_menagerie', folder);
      const files = new Map<string, Uint8Array>();
      for (const f of readdirSync(root, { recursive: true, encoding: 'utf8' }))
        if (!f.startsWith('assets'))
          files.set(`${folder}/${f}`, new Uint8Array(readFileSync(path.join(root, f))));
      // by name alone Cassie's robot file comes first
      if (folder === 'agility_cassie') expect(chooseEntry(files.keys())).toBe('agility_cassie/cassie.xml');
      expect(chooseEntry(files.keys(), (p) => files.get(p))).toBe(`${folder}/${entry}`);
    }
    const files = new Map<string, Uint8Array>([
      ['pkg/package.xml', strToU8('<?xml version="1.0"?><package format="3"><name>r</name></package>')],
      ['pkg/mjcf/a_robot.xml', strToU8('<mujoco model="r"><worldbody/></mujoco>')],
      ['pkg/mjcf/world.xml', strToU8("<mujoco><include file='./../mjcf/a_robot.xml'/></mujoco>")],
    ]);
    expect(chooseEntry(files.keys(), (p) => files.get(p))).toBe('pkg/mjcf/world.xml');
  });

  it('expands zip archives with limits', async () => {
    const zip = zipSync({
      'robot/robot.urdf': strToU8('<robot/>'),
      'robot/meshes/a.stl': new Uint8Array(10),
    });
    const files = await collectFiles([{ path: 'robot.zip', file: new Blob([zip]) }]);
    expect([...files.keys()].sort()).toEqual(['robot/meshes/a.stl', 'robot/robot.urdf']);

    const many: Record<string, Uint8Array> = {};
    for (let i = 0; i <= MAX_DROP_FILES; i++) many[`f${i}.txt`] = new Uint8Array(0);
    expect(() => unzipInto('many.zip', zipSync(many), new Map(), { bytes: 1e9 })).toThrow(
      /exceeds max_archive_entries = 4096/,
    );
    expect(() => unzipInto('big.zip', zip, new Map(), { bytes: 5 })).toThrow(/exceeds max_upload_bytes = /);
    expect(() => unzipInto('junk.zip', strToU8('not a zip'), new Map(), { bytes: 1e9 })).toThrow(
      /not a readable zip/,
    );
  });

  it('refuses zip bombs by their inflate ratio and keeps entry paths inside the drop', () => {
    // 64 MiB of zeros deflate to about 64 KiB: a ratio far above max_compression_ratio
    const bomb = zipSync({ 'bomb.usda': [new Uint8Array(64 * 1024 * 1024), { level: 9 }] });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(() => unzipInto('bomb.zip', bomb, new Map(), { bytes: 1e9 })).toThrow(
      /exceeds max_compression_ratio = 200/,
    );
    const out = new Map<string, Uint8Array>();
    unzipInto(
      'slip.zip',
      zipSync({ '../../etc/x.urdf': strToU8('<robot/>'), '/abs/y.xml': strToU8('<mujoco/>') }),
      out,
      {
        bytes: 1e9,
      },
    );
    expect([...out.keys()].sort()).toEqual(['_/_/etc/x.urdf', 'abs/y.xml']);
  });
});
