import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MeshError } from '../assets/errors';
import { SHARED_ASSETS } from '../testing_assets';
import { objMaterialLibraries, parseMtl, parseObj, parseObjParts, parseObjWithTexcoords } from '.';
import { accumulate, type Moments } from './testing';

describe('OBJ texture coordinates', () => {
  // two quads sharing the edge 2–5; the right quad's coordinates jump at point 5 (a seam), and the
  // faces use i/t, i/t/n and negative indices
  const STRIP = `v 0 0 0
v 1 0 0
v 2 0 0
v 0 1 0
v 1 1 0
v 2 1 0
vt 0 0
vt 0.5 0
vt 0.5 1
vt 0 1
vt 1 0
vt 1 1
vt 0.75 1
vn 0 0 1
f 1/1 2/2 5/3 4/4
f 2/2/1 3/5/1 6/6/1 -2/-1/1
`;

  it('splits the welded mesh where coordinates differ and keeps each corner with its coordinate', () => {
    const { mesh, texcoords } = parseObjWithTexcoords(STRIP, 'strip.obj');
    expect(mesh.vertices.length / 3).toBe(6);
    expect(texcoords).toBeDefined();
    const { mesh: split, uv } = texcoords!;
    expect(split.vertices.length / 3).toBe(7);
    expect(uv).toHaveLength(14);
    const byPoint = new Map<string, Set<string>>();
    for (let i = 0; i < split.triangles.length; i++) {
      const v = split.triangles[i];
      const key = Array.from(split.vertices.subarray(v * 3, v * 3 + 3)).join(',');
      if (!byPoint.has(key)) byPoint.set(key, new Set());
      byPoint.get(key)!.add(`${uv[v * 2]},${uv[v * 2 + 1]}`);
    }
    expect(Object.fromEntries([...byPoint].map(([k, s]) => [k, [...s].sort()]))).toEqual({
      '0,0,0': ['0,0'],
      '1,0,0': ['0.5,0'],
      '1,1,0': ['0.5,1', '0.75,1'],
      '0,1,0': ['0,1'],
      '2,0,0': ['1,0'],
      '2,1,0': ['1,1'],
    });
    // the welded mesh is what parseObj reads
    expect(Array.from(parseObj(STRIP).triangles)).toEqual(Array.from(mesh.triangles));
  });

  it('has none when a corner names no coordinate, and locates bad coordinates', () => {
    expect(parseObjWithTexcoords('v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2 3\n').texcoords).toBeUndefined();
    expect(parseObjWithTexcoords('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2//1 3//1\n').texcoords).toBeUndefined();
    const bad = (text: string, re: RegExp) => {
      try {
        parseObjWithTexcoords(text, 'a.obj');
        throw new Error('no error');
      } catch (e) {
        expect(e).toBeInstanceOf(MeshError);
        expect((e as Error).message).toMatch(re);
      }
    };
    bad('v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 nan\nf 1 2 3\n', /^a\.obj:4:1: bad texture coordinate 'vt 0 nan'/);
    bad(
      'v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n',
      /^a\.obj:5:1: face texture index 2 refers to a coordinate that does not exist \(1 so far\)/,
    );
    bad('v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/x 2/1 3/1\n', /^a\.obj:5:1: bad face index '1\/x'/);
  });
});

describe("OBJ texture coordinates against three.js's OBJLoader (a peer reading the same files)", () => {
  // Agility Cassie (MuJoCo Menagerie): OBJ meshes drawn with one texture atlas
  const dir = path.join(SHARED_ASSETS, 'mujoco_menagerie/agility_cassie/assets');
  const files = readdirSync(dir).filter((f) => f.endsWith('.obj'));

  it('finds the Menagerie files', () => expect(files.length).toBeGreaterThanOrEqual(10));

  for (const f of files) {
    it(f, async () => {
      const text = readFileSync(path.join(dir, f), 'utf8');
      const { texcoords } = parseObjWithTexcoords(text, f);
      expect(texcoords).toBeDefined();
      const ours: Moments = new Map();
      accumulate(ours, 'all', texcoords!.mesh.vertices, texcoords!.mesh.triangles, {
        image: 'atlas',
        uv: texcoords!.uv,
      });
      const THREE = await import('three');
      const { OBJLoader } = await import('three/examples/jsm/loaders/OBJLoader.js');
      const peer: Moments = new Map();
      new OBJLoader().parse(text).traverse((o) => {
        if (!(o instanceof THREE.Mesh)) return;
        const geo = o.geometry as InstanceType<typeof THREE.BufferGeometry>;
        const pos = (geo.getAttribute('position') as InstanceType<typeof THREE.BufferAttribute>).array;
        const idx = Array.from({ length: pos.length / 3 }, (_, i) => i);
        accumulate(peer, 'all', pos, idx, {
          image: 'atlas',
          uv: (geo.getAttribute('uv') as InstanceType<typeof THREE.BufferAttribute>).array,
        });
      });
      // same surface (area, centroid, signed volume) and the same coordinates where they are
      const m = ours.get('all')!,
        q = peer.get('all')!;
      expect(Math.abs(m.area - q.area)).toBeLessThan(1e-5 * q.area);
      for (let k = 0; k < 3; k++) expect(Math.abs(m.c[k] / m.area - q.c[k] / q.area)).toBeLessThan(1e-6);
      expect(Math.abs(m.vol - q.vol)).toBeLessThan(1e-5 * Math.abs(q.vol) + 1e-12);
      m.uv!.forEach((x, k) => expect(Math.abs(x - q.uv![k]) / m.area).toBeLessThan(1e-6));
    });
  }
});

describe('OBJ materials (usemtl with an MTL file)', () => {
  const obj = `mtllib kit.mtl
v 0 0 0
v 1 0 0
v 0 1 0
v 0 0 1
vt 0 0
vt 1 0
vt 0 1
f 1 3 2
usemtl red
f 1 2 4
usemtl skin
f 1/1 4/2 3/3
f 2/1 3/2 4/3
usemtl nowhere
f 1 2 3
`;
  const mtl = `# two materials
newmtl red
Kd 1 0 0
newmtl skin
Kd 0.5 0.5 0.5
map_Kd -s 1 1 1 tex\\skin.png
`;

  it('reads the library names, the colours and maps', () => {
    expect(objMaterialLibraries(obj)).toEqual(['kit.mtl']);
    const m = parseMtl(mtl, 'kit.mtl');
    expect(m.get('red')).toEqual({ color: [1, 0, 0] });
    expect(m.get('skin')).toEqual({ color: [0.5, 0.5, 0.5], map: 'tex/skin.png' });
    expect(() => parseMtl('newmtl a\nKd 1 x 0\n', 'bad.mtl')).toThrow(/bad\.mtl:2.*bad colour/);
  });

  it('splits the faces by material: plain faces, a coloured part, a textured part', () => {
    const { parts } = parseObjParts(
      obj,
      'kit.obj',
      new Map([...parseMtl(mtl)].map(([k, v]) => [k, { ...v, mapDir: 'm/' }])),
    );
    // faces before any usemtl and of an undefined material: one part without a colour
    expect(parts.map((p) => [p.name, p.color, p.mesh.triangles.length / 3])).toEqual([
      [undefined, undefined, 2],
      ['red', [1, 0, 0], 1],
      ['skin', [0.5, 0.5, 0.5], 2],
    ]);
    const skin = parts[2].textured!;
    expect(skin.image).toBe('m/tex/skin.png');
    expect(skin.uv.length).toBe(2 * (skin.mesh.vertices.length / 3));
    // without materials it is one part, the whole welded mesh
    const whole = parseObjParts(obj, 'kit.obj', new Map()).parts;
    expect(whole).toHaveLength(1);
    expect(whole[0].mesh.triangles.length / 3).toBe(5);
  });
});
