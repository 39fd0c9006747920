import { describe, expect, it } from 'vitest';
import { ConfinedResolver, OutsideAssetError, isWithin } from './confined';
import { MemoryResolver } from './resolvers';

const files = new MemoryResolver({
  'pkg/urdf/r.urdf': '<robot/>',
  'pkg/meshes/a.stl': 'solid',
  'roots/extra/b.stl': 'solid',
  'other/secret.stl': 'solid',
  'etc/passwd': 'x',
});

/** the error `fn` throws */
function outside(fn: () => unknown): OutsideAssetError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(OutsideAssetError);
    return e as OutsideAssetError;
  }
  throw new Error('expected an OutsideAssetError');
}

describe('ConfinedResolver', () => {
  it('resolves inside its roots and refuses the rest, naming the file and the reference', async () => {
    const r = new ConfinedResolver(files, ['pkg', 'roots/extra']);
    expect(r.resolve('pkg/urdf/r.urdf', '../meshes/a.stl')).toBe('pkg/meshes/a.stl');
    expect(r.resolve('pkg/urdf/r.urdf', '../../roots/extra/b.stl')).toBe('roots/extra/b.stl');
    const e = outside(() => r.resolve('pkg/urdf/r.urdf', '../../other/secret.stl'));
    expect(e.file).toBe('pkg/urdf/r.urdf');
    expect(e.ref).toBe('../../other/secret.stl');
    expect(e.path).toBe('other/secret.stl');
    expect(e.message).toBe(
      "pkg/urdf/r.urdf: reference '../../other/secret.stl' resolves to other/secret.stl, which lies outside the model's folder and the asset roots (pkg, roots/extra); pass --allow-outside-assets to read it",
    );
    // reads and existence checks of paths outside are refused too
    await expect(r.read('other/secret.stl')).rejects.toBeInstanceOf(OutsideAssetError);
    await expect(r.exists('other/secret.stl')).rejects.toBeInstanceOf(OutsideAssetError);
    expect(await r.exists('pkg/meshes/a.stl')).toBe(true);
    expect(new TextDecoder().decode(await r.read('pkg/meshes/a.stl'))).toBe('solid');
  });

  it("admits the package folder a package:// reference names just above the model's folder, not one further up", async () => {
    const r = new ConfinedResolver(files, ['pkg/urdf']);
    expect(r.resolve('pkg/urdf/r.urdf', 'package://pkg/meshes/a.stl')).toBe('pkg/meshes/a.stl');
    expect(r.allowedRoots()).toEqual(['pkg/urdf', 'pkg']);
    expect(await r.exists('pkg/meshes/a.stl')).toBe(true);
    // the name matches a folder, but the path climbs out of it
    outside(() => r.resolve('pkg/urdf/r.urdf', 'package://pkg/../other/secret.stl'));
    // no folder of that name within one level above: a name that reaches elsewhere
    outside(() =>
      new ConfinedResolver(files, ['pkg/urdf']).resolve('pkg/urdf/r.urdf', 'package://etc/passwd'),
    );
  });

  it('refuses a path whose real path (links followed) leaves the roots', async () => {
    const real = (p: string) => (p.endsWith('link.stl') ? 'other/secret.stl' : p);
    const linked = new MemoryResolver({ 'pkg/link.stl': 'solid' });
    const r = new ConfinedResolver(linked, ['pkg'], { realPath: real });
    const e = outside(() => r.resolve('pkg/m.xml', 'link.stl'));
    expect(e.path).toBe('pkg/link.stl (a link to other/secret.stl)');
    await expect(r.read('pkg/link.stl')).rejects.toThrow(/a link to other\/secret\.stl/);
  });

  it('isWithin compares whole path segments', () => {
    expect(isWithin('/a/b/c', '/a/b')).toBe(true);
    expect(isWithin('/a/b', '/a/b/')).toBe(true);
    expect(isWithin('/a/bc', '/a/b')).toBe(false);
    expect(isWithin('x/y', '')).toBe(true);
    expect(isWithin('../y', '')).toBe(false);
    expect(isWithin('/y', '')).toBe(false);
  });
});
