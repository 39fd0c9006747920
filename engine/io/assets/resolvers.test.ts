import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_ASSETS } from '../testing_assets';
import { NodeFsResolver } from './node_fs';
import { AssetError } from './resolver';
import { MemoryResolver, UrlResolver, packageCandidates } from './resolvers';

describe('MemoryResolver', () => {
  const r = new MemoryResolver(
    {
      'robot/urdf/r.urdf': '<robot/>',
      'robot/meshes/Body.STL': new Uint8Array(10),
      'pkgs/arm/meshes/a.stl': 'x',
    },
    { packages: { arm: 'pkgs/arm' }, maxBytes: 9 },
  );
  it('resolves relative, absolute, package:// (map and upward search) references', async () => {
    expect(r.resolve('robot/urdf/r.urdf', '../meshes/Body.STL')).toBe('robot/meshes/Body.STL');
    expect(r.resolve('robot/urdf/r.urdf', '/robot/x.stl')).toBe('/robot/x.stl');
    expect(r.resolve('robot/urdf/r.urdf', 'package://arm/meshes/a.stl')).toBe('pkgs/arm/meshes/a.stl');
    // no map entry: a folder named NAME upwards from the file (here the URDF's own tree)
    expect(r.resolve('robot/urdf/r.urdf', 'package://robot/meshes/Body.STL')).toBe('robot/meshes/Body.STL');
    expect(await r.exists('ROBOT/meshes/body.stl')).toBe(true); // case-insensitive fallback
  });
  it('size limits and missing files are AssetErrors naming the path', async () => {
    await expect(r.read('robot/meshes/Body.STL')).rejects.toThrow(
      /file of 10 bytes exceeds max_asset_bytes = 9/,
    );
    await expect(r.read('nope')).rejects.toBeInstanceOf(AssetError);
    expect(new TextDecoder().decode(await r.read('robot/urdf/r.urdf'))).toBe('<robot/>');
  });
  it('package search order: the named folder itself, then NAME/ below each ancestor', () => {
    expect(packageCandidates('a/pkg/urdf/r.urdf', 'pkg', 'm/x.stl').slice(0, 3)).toEqual([
      'a/pkg/urdf/pkg/m/x.stl',
      'a/pkg/m/x.stl',
      'a/pkg/pkg/m/x.stl',
    ]);
  });
});

describe('NodeFsResolver', () => {
  const r = new NodeFsResolver({ root: SHARED_ASSETS });
  it('finds package://assets/… next to the Barkour URDF and upper-case .STL through the case fallback', async () => {
    const urdf = r.abs('mujoco_menagerie/google_barkour_vb/barkour_vb_rev_1_0_head_straight.urdf');
    const p = r.resolve(urdf, 'package://assets/neck.stl');
    expect(p).toBe(path.posix.join(SHARED_ASSETS, 'mujoco_menagerie/google_barkour_vb/assets/neck.stl'));
    expect(await r.exists(p)).toBe(true);
    const t12 = r.abs('urdf-loaders/T12/urdf/T12.URDF');
    expect(await r.exists(r.resolve(t12, '../meshes/body.stl'))).toBe(true);
    const franka = r.abs('newton-assets/franka_emika_panda/urdf/fr3_franka_hand.urdf');
    expect(
      await r.exists(
        r.resolve(franka, 'package://franka_emika_panda/meshes/robot_arms/fr3/collision/link0.stl'),
      ),
    ).toBe(true);
    await expect(r.read('no/such/file.stl')).rejects.toThrow(/file not found/);
  });
});

describe('UrlResolver', () => {
  it('resolves against the referencing URL and fetches with a size check', async () => {
    const fetchFn = async (u: string) => ({
      ok: u.endsWith('.urdf'),
      status: u.endsWith('.urdf') ? 200 : 404,
      headers: { get: () => null },
      arrayBuffer: async () => new TextEncoder().encode(u).buffer as ArrayBuffer,
    });
    const r = new UrlResolver(fetchFn, { maxBytes: 1000 });
    expect(r.resolve('https://h/x/pkg/urdf/r.urdf', '../meshes/a.stl')).toBe('https://h/x/pkg/meshes/a.stl');
    expect(r.resolve('https://h/x/pkg/urdf/r.urdf', 'package://pkg/meshes/a.stl')).toBe(
      'https://h/x/pkg/meshes/a.stl',
    );
    expect((await r.read('https://h/r.urdf')).length).toBe('https://h/r.urdf'.length);
    await expect(r.read('https://h/a.stl')).rejects.toThrow(/HTTP 404/);
  });
});
