import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { meshMassProperties } from '../../model';
import { MeshError } from '../assets/errors';
import { SAP_WARP, SHARED_ASSETS } from '../testing_assets';
import { mergeParts, parseDae, parseMeshBytes, parseMeshParts, parseStl, type TriMesh } from '.';
import { accumulate, type Moments } from './testing';

// a unit cube [0,1]³ as six outward quads over eight corners
const CUBE_POSITIONS = '0 0 0 1 0 0 1 1 0 0 1 0 0 0 1 1 0 1 1 1 1 0 1 1';
const CUBE_QUADS = [
  [0, 3, 2, 1], // z = 0, normal −z
  [4, 5, 6, 7], // z = 1
  [0, 1, 5, 4], // y = 0
  [2, 3, 7, 6], // y = 1
  [1, 2, 6, 5], // x = 1
  [0, 4, 7, 3], // x = 0
];

/** a COLLADA document around the given library and scene contents */
function dae(opts: {
  asset?: string;
  geometries: string;
  materials?: string;
  scene: string;
  nodes?: string;
}): string {
  return `<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset>${opts.asset ?? '<up_axis>Z_UP</up_axis>'}</asset>
  ${opts.materials ?? ''}
  <library_geometries>${opts.geometries}</library_geometries>
  ${opts.nodes ? `<library_nodes>${opts.nodes}</library_nodes>` : ''}
  <library_visual_scenes><visual_scene id="scene">${opts.scene}</visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>`;
}

/** the cube as a <polylist> (position + normal inputs, so the index stride is 2) */
function cubeGeometry(id: string, material = 'skin'): string {
  const p = CUBE_QUADS.flatMap((q, f) => q.flatMap((v) => [v, f])).join(' ');
  return `<geometry id="${id}"><mesh>
    <source id="${id}-pos"><float_array id="${id}-pos-array" count="24">${CUBE_POSITIONS}</float_array>
      <technique_common><accessor source="#${id}-pos-array" count="8" stride="3"/></technique_common></source>
    <source id="${id}-nrm"><float_array id="${id}-nrm-array" count="18">0 0 -1 0 0 1 0 -1 0 0 1 0 1 0 0 -1 0 0</float_array>
      <technique_common><accessor source="#${id}-nrm-array" count="6" stride="3"/></technique_common></source>
    <vertices id="${id}-vtx"><input semantic="POSITION" source="#${id}-pos"/></vertices>
    <polylist material="${material}" count="6">
      <input semantic="VERTEX" source="#${id}-vtx" offset="0"/>
      <input semantic="NORMAL" source="#${id}-nrm" offset="1"/>
      <vcount>4 4 4 4 4 4</vcount>
      <p>${p}</p>
    </polylist>
  </mesh></geometry>`;
}

const MATERIALS = `
  <library_effects>
    <effect id="red-fx"><profile_COMMON><technique sid="common"><phong>
      <diffuse><color sid="diffuse">0.8 0.1 0.1 1</color></diffuse></phong></technique></profile_COMMON></effect>
    <effect id="tex-fx"><profile_COMMON><technique sid="common"><lambert>
      <diffuse><texture texture="img" texcoord="uv"/></diffuse></lambert></technique></profile_COMMON></effect>
  </library_effects>
  <library_materials>
    <material id="red" name="Red"><instance_effect url="#red-fx"/></material>
    <material id="textured" name="Textured"><instance_effect url="#tex-fx"/></material>
  </library_materials>`;

const bind = (symbol: string, target: string) =>
  `<bind_material><technique_common><instance_material symbol="${symbol}" target="#${target}"/></technique_common></bind_material>`;

/** volume and centroid from the divergence theorem: positive only when every face points out */
function volumeAndCentroid(m: TriMesh): { volume: number; com: number[] } {
  const mp = meshMassProperties(m.vertices, m.triangles, [1, 1, 1], 1);
  return { volume: mp.mass, com: Array.from(mp.com) };
}

describe('COLLADA reader', () => {
  it('composes node transforms, unit and up axis, fan-triangulates polylists and keeps faces outward', () => {
    // Y_UP in centimetres; a 2× scale about a translated node; the cube (edge 1 cm) becomes 2 cm
    const text = dae({
      asset: '<unit name="centimeter" meter="0.01"/><up_axis>Y_UP</up_axis>',
      geometries: cubeGeometry('cube'),
      scene: `<node id="a"><translate>10 20 30</translate><scale>2 2 2</scale>
        <instance_geometry url="#cube"/></node>`,
    });
    const parts = parseDae(text, 'cube.dae');
    expect(parts).toHaveLength(1);
    const m = parts[0].mesh;
    expect(m.triangles.length / 3).toBe(12);
    const { volume, com } = volumeAndCentroid(m);
    expect(volume).toBeCloseTo(0.02 ** 3, 12);
    // file centroid (10+1, 20+1, 30+1) cm; y up → (x, −z, y) in metres
    expect(com[0]).toBeCloseTo(0.11, 12);
    expect(com[1]).toBeCloseTo(-0.31, 12);
    expect(com[2]).toBeCloseTo(0.21, 12);
    expect(parts[0].color).toBeUndefined();
  });

  it('reads row-major matrices, rotations in degrees, instance_node, and mirrors without turning faces in', () => {
    const text = dae({
      geometries: cubeGeometry('cube'),
      nodes: `<node id="lib"><rotate>0 0 1 90</rotate><instance_geometry url="#cube"/></node>`,
      scene: `
        <node id="m"><matrix>1 0 0 5 0 1 0 0 0 0 1 0 0 0 0 1</matrix><instance_node url="#lib"/></node>
        <node id="mirror"><scale>-1 1 1</scale><instance_geometry url="#cube"/></node>`,
    });
    const parts = parseDae(text, 'two.dae');
    expect(parts).toHaveLength(1); // one material (none) → one part holding both instances
    const m = parts[0].mesh;
    expect(m.triangles.length / 3).toBe(24);
    const { volume, com } = volumeAndCentroid(m);
    expect(volume).toBeCloseTo(2, 12); // both cubes count positively
    // rotated cube: [0,1]³ → x ∈ [−1,0], y ∈ [0,1], then x + 5 → centroid (4.5, 0.5, 0.5);
    // mirrored cube: centroid (−0.5, 0.5, 0.5); together (2, 0.5, 0.5)
    expect(com[0]).toBeCloseTo(2, 12);
    expect(com[1]).toBeCloseTo(0.5, 12);
    expect(com[2]).toBeCloseTo(0.5, 12);
  });

  it('splits parts by material with their diffuse colours (a textured material has none)', () => {
    const text = dae({
      materials: MATERIALS,
      geometries: cubeGeometry('c1', 'mA') + cubeGeometry('c2', 'mB'),
      scene: `<node id="n1"><instance_geometry url="#c1">${bind('mA', 'red')}</instance_geometry></node>
        <node id="n2"><translate>3 0 0</translate><instance_geometry url="#c2">${bind('mB', 'textured')}</instance_geometry></node>`,
    });
    const parts = parseMeshParts(new TextEncoder().encode(text), 'x/two.DAE');
    expect(parts.map((p) => [p.name, p.color])).toEqual([
      ['Red', [0.8, 0.1, 0.1]],
      ['Textured', undefined],
    ]);
    const merged = parseMeshBytes(new TextEncoder().encode(text), 'two.dae');
    expect(merged.triangles.length / 3).toBe(24);
    expect(mergeParts(parts).vertices).toEqual(merged.vertices);
  });

  it("reads a textured material's image and texture coordinates (the set bind_vertex_input names)", () => {
    // the cube with two coordinate sets: set 0 a decoy, set 1 each face's (0,0) (1,0) (1,1) (0,1)
    const corners = [0, 0, 1, 0, 1, 1, 0, 1];
    const p = CUBE_QUADS.flatMap((q) => q.flatMap((v, k) => [v, 7 - k, k])).join(' ');
    const geometry = `<geometry id="tc"><mesh>
      <source id="tc-pos"><float_array id="tc-pa" count="24">${CUBE_POSITIONS}</float_array>
        <technique_common><accessor source="#tc-pa" count="8" stride="3"/></technique_common></source>
      <source id="tc-uv0"><float_array id="tc-u0" count="16">${'0.5 0.25 '.repeat(8)}</float_array>
        <technique_common><accessor source="#tc-u0" count="8" stride="2"/></technique_common></source>
      <source id="tc-uv1"><float_array id="tc-u1" count="12">${corners.map((c, i) => (i % 2 ? `${c} 9` : c)).join(' ')}</float_array>
        <technique_common><accessor source="#tc-u1" count="4" stride="3"/></technique_common></source>
      <vertices id="tc-vtx"><input semantic="POSITION" source="#tc-pos"/></vertices>
      <polylist material="skin" count="6">
        <input semantic="VERTEX" source="#tc-vtx" offset="0"/>
        <input semantic="TEXCOORD" source="#tc-uv0" offset="1" set="0"/>
        <input semantic="TEXCOORD" source="#tc-uv1" offset="2" set="1"/>
        <vcount>4 4 4 4 4 4</vcount><p>${p}</p>
      </polylist></mesh></geometry>`;
    const materials = `
      <library_images><image id="skin-img"><init_from>tex/skin%20tone.png</init_from></image></library_images>
      <library_effects><effect id="fx"><profile_COMMON>
        <newparam sid="skin-surface"><surface type="2D"><init_from>skin-img</init_from></surface></newparam>
        <newparam sid="skin-sampler"><sampler2D><source>skin-surface</source></sampler2D></newparam>
        <technique sid="common"><phong><diffuse><texture texture="skin-sampler" texcoord="UVMap"/></diffuse></phong></technique>
      </profile_COMMON></effect></library_effects>
      <library_materials><material id="skin-mat" name="Skin"><instance_effect url="#fx"/></material></library_materials>`;
    const text = dae({
      materials,
      geometries: geometry,
      scene: `<node id="n"><instance_geometry url="#tc"><bind_material><technique_common>
        <instance_material symbol="skin" target="#skin-mat">
          <bind_vertex_input semantic="UVMap" input_semantic="TEXCOORD" input_set="1"/>
        </instance_material></technique_common></bind_material></instance_geometry></node>`,
    });
    const [part, ...rest] = parseDae(text, 'cube.dae');
    expect(rest).toHaveLength(0);
    expect(part.color).toBeUndefined();
    const t = part.textured!;
    expect(t.image).toBe('tex/skin tone.png');
    // the part's own mesh welds by position (the eight corners); the textured copy splits them
    expect(part.mesh.vertices.length / 3).toBe(8);
    expect(t.mesh.triangles.length / 3).toBe(12);
    expect(t.uv.length).toBe((t.mesh.vertices.length / 3) * 2);
    expect(t.mesh.vertices.length / 3).toBeGreaterThan(8);
    // every triangle corner carries its face's coordinate for that corner
    const corner = (v: number) => [0, 1, 2].map((k) => t.mesh.vertices[v * 3 + k]);
    const pos = CUBE_POSITIONS.split(' ').map(Number);
    const faceOf = (tri: number[]) => CUBE_QUADS.findIndex((q) => tri.every((v) => q.includes(v)));
    for (let i = 0; i < t.mesh.triangles.length; i += 3) {
      const vs = [0, 1, 2].map((k) => t.mesh.triangles[i + k]);
      const ids = vs.map((v) => {
        const c = corner(v);
        return [0, 1, 2, 3, 4, 5, 6, 7].find((j) => c.every((x, k) => x === pos[j * 3 + k]))!;
      });
      const q = CUBE_QUADS[faceOf(ids)];
      vs.forEach((v, k) => {
        const at = q.indexOf(ids[k]);
        expect([t.uv[v * 2], t.uv[v * 2 + 1]]).toEqual([corners[at * 2], corners[at * 2 + 1]]);
      });
    }
    // the same triangles as without the texture, and the same merged mesh
    const plain = parseDae(
      dae({ geometries: cubeGeometry('c'), scene: '<node><instance_geometry url="#c"/></node>' }),
    );
    expect(volumeAndCentroid(part.mesh)).toEqual(volumeAndCentroid(plain[0].mesh));
    expect(volumeAndCentroid(t.mesh).volume).toBeCloseTo(1, 12);
    expect(mergeParts([part]).vertices).toEqual(part.mesh.vertices);
  });

  it('finds images through COLLADA 1.5 instance_image, a direct image id and file URIs', () => {
    const effect = (id: string, body: string, tex: string) =>
      `<effect id="${id}"><profile_COMMON>${body}<technique sid="t"><lambert><diffuse><texture texture="${tex}" texcoord="uv"/></diffuse></lambert></technique></profile_COMMON></effect>`;
    const materials = `
      <library_images>
        <image id="wood"><init_from><ref>file:///C:/Users/me/textures/wood.jpg</ref></init_from></image>
        <image id="steel"><init_from>file:///home/me/steel.png</init_from></image>
      </library_images>
      <library_effects>
        ${effect('fx15', '<newparam sid="s"><sampler2D><instance_image url="#wood"/></sampler2D></newparam>', 's')}
        ${effect('fxid', '', 'steel')}
      </library_effects>
      <library_materials>
        <material id="m15"><instance_effect url="#fx15"/></material>
        <material id="mid"><instance_effect url="#fxid"/></material>
      </library_materials>`;
    const parts = parseDae(
      dae({
        materials,
        geometries: cubeGeometry('a', 'x') + cubeGeometry('b', 'y'),
        scene: `<node><instance_geometry url="#a">${bind('x', 'm15')}</instance_geometry></node>
          <node><translate>2 0 0</translate><instance_geometry url="#b">${bind('y', 'mid')}</instance_geometry></node>`,
      }),
    );
    expect(parts.map((p) => p.textured?.image)).toEqual(['wood.jpg', 'steel.png']);
    // no TEXCOORD input: the texture is kept, every vertex at (0, 0)
    expect(parts.every((p) => p.textured!.uv.every((x) => x === 0))).toBe(true);
  });

  it('reads triangles, trifans, tristrips and polygons with the same result', () => {
    // the square z = 0, [0,1]², as two triangles in four primitive forms
    const src = `<source id="s"><float_array id="sa" count="12">0 0 0 1 0 0 1 1 0 0 1 0</float_array>
      <technique_common><accessor source="#sa" count="4" stride="3"/></technique_common></source>
      <vertices id="v"><input semantic="POSITION" source="#s"/></vertices>`;
    const forms = [
      `<triangles count="2"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2 0 2 3</p></triangles>`,
      `<trifans count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2 3</p></trifans>`,
      `<tristrips count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>1 2 0 3</p></tristrips>`,
      `<polygons count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2 3</p></polygons>`,
    ];
    for (const f of forms) {
      const parts = parseDae(
        dae({
          geometries: `<geometry id="g"><mesh>${src}${f}</mesh></geometry>`,
          scene: `<node><instance_geometry url="#g"/></node>`,
        }),
      );
      const m = parts[0].mesh;
      expect(m.triangles.length / 3).toBe(2);
      // both triangles face +z (counter-clockwise seen from above)
      for (let t = 0; t < 2; t++) {
        const [a, b, c] = [0, 1, 2].map((k) => m.triangles[t * 3 + k] * 3);
        const V = m.vertices;
        const nz = (V[b] - V[a]) * (V[c + 1] - V[a + 1]) - (V[b + 1] - V[a + 1]) * (V[c] - V[a]);
        expect(nz).toBeCloseTo(1, 12);
      }
    }
  });

  it('bad input is a MeshError naming the file and line', () => {
    const bad =
      (geometries: string, scene = `<node><instance_geometry url="#cube"/></node>`) =>
      () =>
        parseDae(dae({ geometries, scene }), 'bad.dae');
    const expectError = (f: () => unknown, re: RegExp) => {
      try {
        f();
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(MeshError);
        expect((e as MeshError).file).toBe('bad.dae');
        expect((e as MeshError).line).toBeGreaterThan(1);
        expect((e as Error).message).toMatch(re);
      }
    };
    expectError(bad(cubeGeometry('cube').replace('<p>0 0', '<p>9 0')), /index 9 outside the 8 positions/);
    expectError(
      bad(cubeGeometry('cube').replace('count="24"', 'count="25"')),
      /count="25"> holds 24 numbers/,
    );
    expectError(
      bad(cubeGeometry('cube').replace('1 1 1 0 1 1<', '1 1 1 0 1 nan<')),
      /'nan' is not a finite number/,
    );
    expectError(bad(cubeGeometry('cube').replace('4 4 4 4 4 4', '4 4 4 4 4 5')), /<vcount> 5 runs past/);
    expectError(
      bad(cubeGeometry('cube'), `<node><instance_geometry url="#nope"/></node>`),
      /no <geometry> with id 'nope'/,
    );
    expectError(
      bad(cubeGeometry('cube'), `<node><matrix>1 0 0</matrix></node>`),
      /<matrix> needs 16 numbers/,
    );
    expectError(
      () =>
        parseDae(
          dae({
            geometries: '',
            nodes: `<node id="loop"><instance_node url="#loop"/></node>`,
            scene: `<node><instance_node url="#loop"/></node>`,
          }),
          'bad.dae',
        ),
      /nested deeper than 64/,
    );
    expect(() => parseDae('<robot/>', 'bad.dae')).toThrow(/not a COLLADA document/);
    expect(() => parseDae(dae({ geometries: '', scene: '' }), 'bad.dae')).toThrow(
      /no triangle of non-zero area/,
    );
  });

  it("reads the Franka hand's visual DAE: five coloured parts that fill the collision mesh's bounds", () => {
    const dir = path.join(
      SHARED_ASSETS,
      'newton-assets/franka_emika_panda/meshes/robot_ee/franka_hand_white',
    );
    const parts = parseDae(readFileSync(path.join(dir, 'visual/hand.dae'), 'utf8'), 'hand.dae');
    expect(parts).toHaveLength(5);
    expect(parts.map((p) => p.mesh.triangles.length / 3)).toEqual([690, 3548, 2310, 488, 42]);
    // white housing, dark grey band (diffuse colours of the file)
    expect(parts[1].color).toEqual([1, 1, 1]);
    expect(parts[2].color![0]).toBeCloseTo(0.251, 3);
    // the visual and the collision mesh of the same link agree in extent within 0.5 mm: same units, same axes
    const box = (v: Float64Array) => {
      const lo = [Infinity, Infinity, Infinity],
        hi = [-Infinity, -Infinity, -Infinity];
      for (let i = 0; i < v.length; i += 3)
        for (let k = 0; k < 3; k++) {
          lo[k] = Math.min(lo[k], v[i + k]);
          hi[k] = Math.max(hi[k], v[i + k]);
        }
      return [...lo, ...hi];
    };
    const visual = box(mergeParts(parts).vertices);
    const collision = box(parseStl(readFileSync(path.join(dir, 'collision/hand.stl'))).vertices);
    for (let k = 0; k < 6; k++) expect(Math.abs(visual[k] - collision[k])).toBeLessThan(5e-4);
  });
});

describe("COLLADA reader against three.js's ColladaLoader (a peer reading the same files)", () => {
  const FRANKA = 'newton-assets/franka_emika_panda/meshes';
  const ANYMAL = path.join(SAP_WARP, 'assets/newton-assets/anybotics_anymal_c/meshes');
  const files = [
    path.join(SHARED_ASSETS, FRANKA, 'robot_ee/franka_hand_white/visual/hand.dae'),
    path.join(SHARED_ASSETS, FRANKA, 'robot_ee/franka_hand_white/visual/finger.dae'),
    ...[1, 2, 3, 4, 5].map((k) =>
      path.join(SAP_WARP, 'assets', FRANKA, `robot_arms/fr3/visual/link${k}.dae`),
    ),
    // textured (one JPEG each; the base also has five coloured materials)
    ...['base', 'foot', 'thigh', 'lidar_cage'].map((f) => path.join(ANYMAL, `${f}.dae`)),
  ];

  const hex = (rgb: number[]) =>
    rgb
      .map((x) =>
        Math.round(x * 255)
          .toString(16)
          .padStart(2, '0'),
      )
      .join('');

  for (const file of files) {
    it(path.relative(path.resolve(SHARED_ASSETS, '..'), file), async () => {
      const text = readFileSync(file, 'utf8');
      const ours: Moments = new Map();
      for (const p of parseDae(text, file)) {
        const t = p.textured;
        if (t) accumulate(ours, p.name!, t.mesh.vertices, t.mesh.triangles, { image: t.image, uv: t.uv });
        else accumulate(ours, p.name!, p.mesh.vertices, p.mesh.triangles, { color: hex(p.color!) });
      }

      // three's loader parses with the DOM's DOMParser: jsdom's here; it turns a Z_UP file into
      // y-up by rotating its root (undone below: ours stays z-up) and scales it by the unit
      const { JSDOM } = await import('jsdom');
      const THREE = await import('three');
      const { ColladaLoader } = await import('three/examples/jsm/loaders/ColladaLoader.js');
      const g = globalThis as { DOMParser?: unknown };
      const saved = g.DOMParser;
      g.DOMParser = new JSDOM('').window.DOMParser;
      const log = console.log;
      console.log = () => {}; // its version and up-axis notes
      // its textures load images through the DOM: a texture named by the image's path instead
      const load = THREE.TextureLoader.prototype.load;
      THREE.TextureLoader.prototype.load = function (url: string) {
        const tex = new THREE.Texture<HTMLImageElement>();
        tex.name = url;
        return tex;
      };
      let scene: InstanceType<typeof THREE.Object3D>;
      try {
        scene = new ColladaLoader().parse(text, '')!.scene;
      } finally {
        g.DOMParser = saved;
        console.log = log;
        THREE.TextureLoader.prototype.load = load;
      }
      expect(text).toMatch(/<up_axis>Z_UP<\/up_axis>/);
      scene.rotation.set(0, 0, 0);
      scene.updateMatrixWorld(true);
      const peer: Moments = new Map();
      scene.traverse((o) => {
        if (!(o instanceof THREE.Mesh)) return;
        const geo = (o.geometry as InstanceType<typeof THREE.BufferGeometry>)
          .clone()
          .applyMatrix4(o.matrixWorld);
        const pos = (geo.getAttribute('position') as InstanceType<typeof THREE.BufferAttribute>).array;
        const materials = Array.isArray(o.material) ? o.material : [o.material];
        const groups = geo.groups.length
          ? geo.groups
          : [{ start: 0, count: pos.length / 3, materialIndex: 0 }];
        for (const grp of groups) {
          const mat = materials[grp.materialIndex ?? 0] as InstanceType<typeof THREE.MeshPhongMaterial>;
          const idx = geo.index
            ? Array.from(geo.index.array.slice(grp.start, grp.start + grp.count))
            : Array.from({ length: grp.count }, (_, i) => grp.start + i);
          const uv = geo.getAttribute('uv') as InstanceType<typeof THREE.BufferAttribute> | undefined;
          if (mat.map) accumulate(peer, mat.name, pos, idx, { image: mat.map.name, uv: uv!.array });
          else accumulate(peer, mat.name, pos, idx, { color: mat.color.getHexString(THREE.SRGBColorSpace) });
        }
      });

      // the same materials with the same colours, and the same triangles where they are: area,
      // centroid and signed volume (which moves with any misplaced or mirrored part) agree to
      // three's float32 positions
      expect([...ours.keys()].sort()).toEqual([...peer.keys()].sort());
      for (const [name, m] of ours) {
        const q = peer.get(name)!;
        expect(m.color).toBe(q.color);
        expect(Math.abs(m.area - q.area)).toBeLessThan(1e-5 * q.area);
        for (let k = 0; k < 3; k++) expect(Math.abs(m.c[k] / m.area - q.c[k] / q.area)).toBeLessThan(1e-6);
        expect(Math.abs(m.vol - q.vol)).toBeLessThan(1e-5 * Math.abs(q.vol) + 1e-12);
        // a textured material: the same image, the same coordinates where they are
        expect(m.image).toBe(q.image);
        expect(m.uv === undefined).toBe(q.uv === undefined);
        m.uv?.forEach((x, k) => expect(Math.abs(x - q.uv![k]) / m.area).toBeLessThan(1e-6));
      }
      if (file.includes('anymal')) expect([...ours.values()].some((m) => m.image)).toBe(true);
    });
  }
});
