/**
 * Looks of USD geometry (UsdShade): bound materials, their diffuse colours and textures, texture
 * coordinates from primvars, images read beside the authoring layer or inside a USDZ package; and
 * ANYmal D's textured visuals.
 */
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ModelBuilder, type SapModel } from '../../model';
import { importUsd, type UsdImportResult } from './physics';
import { openStage } from './compose';
import { linearToSrgb, lookOf } from './shading';
import { ASSETS, PNG, PREVIEW_MATERIAL, STRIP, USD_MODELS, fsResolver, memResolver } from './testing';

async function load(files: Record<string, string | Uint8Array>, entry = 'root.usda') {
  const b = new ModelBuilder();
  const r = await importUsd(b, entry, memResolver(files));
  return { b, r, m: b.finalize() };
}

/** every drawn corner of a model mesh: its position and texture coordinate */
function corners(m: SapModel, mesh: number): { p: number[]; uv: number[] }[] {
  const v0 = m.mesh_vertex_start[mesh],
    t0 = m.mesh_triangle_start[mesh],
    nt = m.mesh_triangle_start[mesh + 1] - t0;
  const uv = m.mesh_uv[mesh]!;
  const out: { p: number[]; uv: number[] }[] = [];
  for (let t = 0; t < nt * 3; t++) {
    const local = m.mesh_triangles[t0 * 3 + t];
    const v = v0 + local;
    out.push({
      p: Array.from(m.mesh_vertices.subarray(v * 3, v * 3 + 3)).map((x) => +x.toFixed(6)),
      uv: [uv[local * 2], uv[local * 2 + 1]],
    });
  }
  return out;
}

/** the number of vertices and triangles of a model mesh */
const vertexCount = (m: SapModel, k: number) => m.mesh_vertex_start[k + 1] - m.mesh_vertex_start[k];
const triangleCount = (m: SapModel, k: number) => m.mesh_triangle_start[k + 1] - m.mesh_triangle_start[k];

/** the visual shape of a prim label, with its mesh */
function shapeOf(m: SapModel, r: UsdImportResult, label: string) {
  const s = r.shapes.find((i) => m.shape_label[i] === label);
  expect(s, label).toBeDefined();
  return { shape: s!, mesh: m.shape_mesh[s!], color: Array.from(m.shape_color.subarray(s! * 3, s! * 3 + 3)) };
}

/** the model's (sRGB-encoded) colour of a linear USD colour, to float32 precision */
function expectColor(got: number[], linear: number[], what?: string) {
  const want = linearToSrgb(linear);
  for (let i = 0; i < 3; i++) expect(got[i], what).toBeCloseTo(want[i], 6);
}

function rootWith(body: string, sublayer = 'materials/looks.usda'): string {
  return `#usda 1.0
(
    metersPerUnit = 1
    upAxis = "Z"
    subLayers = [@./${sublayer}@]
)
${body}
`;
}

describe('USD looks', () => {
  it("stores USD's linear colours sRGB-encoded, as the model keeps every format's colours", () => {
    // IEC 61966-2-1: the linear segment below 0.0031308, the 2.4 power above it
    const e = (c: number) => linearToSrgb([c, c, c])[0];
    expect(e(0)).toBe(0);
    expect(e(1)).toBeCloseTo(1, 12);
    expect(e(0.0031308)).toBeCloseTo(0.04045, 5);
    expect(e(0.001)).toBeCloseTo(0.01292, 12);
    expect(e(0.5)).toBeCloseTo(0.735357, 6);
    expect(e(0.18)).toBeCloseTo(0.461356, 6);
  });

  it('follows a preview surface to its texture, the primvar its reader names and the image beside the material layer', async () => {
    const { r, m } = await load({
      'root.usda': rootWith(`
def Xform "robot" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    float physics:mass = 1
    def Mesh "panel" (prepend apiSchemas = ["MaterialBindingAPI"])
    {${STRIP}
        color3f[] primvars:displayColor = [(0, 1, 0)]
        rel material:binding = </Looks/Wood>
    }
}`),
      'materials/looks.usda': PREVIEW_MATERIAL,
      'materials/textures/wood.png': PNG,
    });
    expect(r.warnings).toEqual([]);
    // the asset path resolves relative to the layer that authors it, not the root layer
    expect(m.textures).toHaveLength(1);
    expect(m.textures[0].label).toBe('materials/textures/wood.png');
    expect(m.textures[0].mime).toBe('image/png');
    const { mesh, color } = shapeOf(m, r, 'panel');
    expect(m.mesh_texture[mesh]).toBe(0);
    // the image is tinted by the texture's scale
    expectColor(color, [0.5, 0.8, 1]);
    // seven drawn vertices: six points, point 4 split at the seam; coordinates of 'uvmap', not 'st'
    expect(vertexCount(m, mesh)).toBe(7);
    const got = corners(m, mesh);
    const expected: Record<string, number[][]> = {
      '0,0,0': [[0, 0]],
      '1,0,0': [[0.5, 0]],
      '1,1,0': [
        [0.5, 1],
        [0.75, 1],
      ],
      '0,1,0': [[0, 1]],
      '2,0,0': [[1, 0]],
      '2,1,0': [[1, 1]],
    };
    for (const c of got) expect(expected[c.p.join(',')]).toContainEqual(c.uv);
    // every authored (point, coordinate) pair is drawn
    const drawn = new Set(got.map((c) => `${c.p.join(',')}|${c.uv.join(',')}`));
    expect(drawn.size).toBe(7);
    // the left quad's triangles take the left-side coordinates of point 4, the right quad's the seam's
    const tris = [0, 1, 2, 3].map((t) => got.slice(t * 3, t * 3 + 3));
    const left = tris.filter((t) => t.every((c) => c.p[0] <= 1));
    expect(
      left
        .flat()
        .filter((c) => c.p.join(',') === '1,1,0')
        .every((c) => c.uv[0] === 0.5),
    ).toBe(true);
  });

  it('keeps each corner with its coordinate under a left-handed orientation and a mirroring scale', async () => {
    const { r, m } = await load({
      'root.usda': rootWith(`
def Mesh "panel" (prepend apiSchemas = ["MaterialBindingAPI"])
{${STRIP}
    uniform token orientation = "leftHanded"
    double3 xformOp:scale = (-1, 1, 1)
    uniform token[] xformOpOrder = ["xformOp:scale"]
    rel material:binding = </Looks/Wood>
}`),
      'materials/looks.usda': PREVIEW_MATERIAL,
      'materials/textures/wood.png': PNG,
    });
    expect(r.warnings).toEqual([]);
    const { mesh } = shapeOf(m, r, 'panel');
    const got = corners(m, mesh);
    // mirrored in x: point (x, y) is drawn at (−x, y) with the coordinates authored for it
    const at = (x: number, y: number) =>
      got.filter((c) => c.p[0] === -x && c.p[1] === y).map((c) => c.uv.join(','));
    expect(new Set(at(0, 0))).toEqual(new Set(['0,0']));
    expect(new Set(at(2, 1))).toEqual(new Set(['1,1']));
    expect(new Set(at(1, 1))).toEqual(new Set(['0.5,1', '0.75,1']));
    // a left-handed face is clockwise seen from its front: these face −z, and a mirror in x keeps
    // them facing −z
    const V = (i: number) => got[i].p;
    for (let t = 0; t < got.length; t += 3) {
      const [a, b, c] = [V(t), V(t + 1), V(t + 2)];
      const nz = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
      expect(nz).toBeLessThan(0);
    }
  });

  it('reads per-point coordinates, a colour material over displayColor, and bindings on ancestors', async () => {
    const { r, m } = await load({
      'root.usda': rootWith(`
def Xform "parts" (prepend apiSchemas = ["MaterialBindingAPI"])
{
    rel material:binding = </Looks/Red>
    def Mesh "tile"
    {
        point3f[] points = [(0,0,0), (1,0,0), (1,1,0), (0,1,0)]
        int[] faceVertexCounts = [4]
        int[] faceVertexIndices = [0, 1, 2, 3]
        color3f[] primvars:displayColor = [(0, 1, 0)]
        texCoord2f[] primvars:uvmap = [(0, 0), (1, 0), (1, 1), (0, 1)] (interpolation = "vertex")
        rel material:binding = </Looks/Wood>
    }
    def Cube "block"
    {
        color3f[] primvars:displayColor = [(0, 1, 0)]
    }
}
def Sphere "ball" (prepend apiSchemas = ["MaterialBindingAPI"])
{
    color3f[] primvars:displayColor = [(0, 0, 1)]
    rel material:binding:physics = </Looks/Rubber>
}
def Material "Strong"
{
    token outputs:surface.connect = </Strong/Surface.outputs:surface>
    def Shader "Surface"
    {
        uniform token info:id = "UsdPreviewSurface"
        color3f inputs:diffuseColor = (0.2, 0.3, 0.4)
        token outputs:surface
    }
}
def Xform "fleet" (prepend apiSchemas = ["MaterialBindingAPI"])
{
    rel material:binding = </Strong> (bindMaterialAs = "strongerThanDescendants")
    def Cube "ship" (prepend apiSchemas = ["MaterialBindingAPI"])
    {
        rel material:binding = </Looks/Red>
    }
}`),
      'materials/looks.usda': PREVIEW_MATERIAL.replace(
        '}\n}\n',
        `}\n    def Material "Rubber" (prepend apiSchemas = ["PhysicsMaterialAPI"])\n    {\n        float physics:dynamicFriction = 0.9\n    }\n}\n`,
      ),
      'materials/textures/wood.png': PNG,
    });
    expect(r.warnings).toEqual([]);
    const tile = shapeOf(m, r, 'tile');
    expect(vertexCount(m, tile.mesh)).toBe(4);
    const got = corners(m, tile.mesh);
    for (const c of got) expect(c.uv).toEqual([c.p[0], c.p[1]]);
    // the material's colour wins over displayColor, bound on the prim or an ancestor
    expectColor(shapeOf(m, r, 'block').color, [0.8, 0.1, 0.05]);
    // a physics material is not a look: the sphere keeps its displayColor
    expectColor(shapeOf(m, r, 'ball').color, [0, 0, 1]);
    // an ancestor's binding marked stronger than its descendants' wins
    expectColor(shapeOf(m, r, 'ship').color, [0.2, 0.3, 0.4]);
  });

  it('reads Omniverse MDL materials: a diffuse texture with its tint, else a constant colour', async () => {
    const mdl = (name: string, inputs: string) => `
    def Material "${name}"
    {
        token outputs:mdl:surface.connect = </Looks/${name}/Shader.outputs:out>
        def Shader "Shader"
        {
            uniform token info:implementationSource = "sourceAsset"
            uniform asset info:mdl:sourceAsset = @OmniPBR.mdl@
            uniform token info:mdl:sourceAsset:subIdentifier = "OmniPBR"
            ${inputs}
            token outputs:out
        }
    }`;
    const { r, m } = await load({
      'root.usda': rootWith(
        `
def Scope "Looks"
{${mdl('Painted', 'asset inputs:diffuse_texture = @./paint.png@\n            color3f inputs:diffuse_tint = (1, 0.5, 0.5)\n            color3f inputs:diffuse_color_constant = (0, 0, 1)')}
${mdl('Plain', 'color3f inputs:diffuse_color_constant = (0.25, 0.5, 0.75)')}
}
def Mesh "hull" (prepend apiSchemas = ["MaterialBindingAPI"])
{
    point3f[] points = [(0,0,0), (1,0,0), (0,1,0)]
    int[] faceVertexCounts = [3]
    int[] faceVertexIndices = [0, 1, 2]
    texCoord2f[] primvars:st = [(0, 0), (1, 0), (0, 1)] (interpolation = "faceVarying")
    rel material:binding = </Looks/Painted>
}
def Capsule "mast" (prepend apiSchemas = ["MaterialBindingAPI"])
{
    rel material:binding = </Looks/Plain>
}`,
        'empty.usda',
      ),
      'empty.usda': '#usda 1.0\n',
      'paint.png': PNG,
    });
    expect(r.warnings).toEqual([]);
    const hull = shapeOf(m, r, 'hull');
    expect(m.textures.map((t) => t.label)).toEqual(['paint.png']);
    expect(m.mesh_texture[hull.mesh]).toBe(0);
    expectColor(hull.color, [1, 0.5, 0.5]);
    expectColor(shapeOf(m, r, 'mast').color, [0.25, 0.5, 0.75]);
  });

  it('draws a plain colour, with a warning, when the image or the coordinates cannot be used', async () => {
    const mesh = (name: string, material: string, uv = true) => `
def Mesh "${name}" (prepend apiSchemas = ["MaterialBindingAPI"])
{
    point3f[] points = [(0,0,0), (1,0,0), (0,1,0)]
    int[] faceVertexCounts = [3]
    int[] faceVertexIndices = [0, 1, 2]
    ${uv ? 'texCoord2f[] primvars:st = [(0, 0), (1, 0)] (interpolation = "faceVarying")' : ''}
    color3f[] primvars:displayColor = [(0, 1, 0)]
    rel material:binding = </${material}>
}`;
    const material = (name: string, file: string) => `
def Material "${name}"
{
    token outputs:surface.connect = </${name}/S.outputs:surface>
    def Shader "S"
    {
        uniform token info:id = "UsdPreviewSurface"
        color3f inputs:diffuseColor.connect = </${name}/T.outputs:rgb>
        token outputs:surface
    }
    def Shader "T"
    {
        uniform token info:id = "UsdUVTexture"
        asset inputs:file = @${file}@
        float3 outputs:rgb
    }
}`;
    const { r, m } = await load({
      'root.usda': rootWith(
        [
          material('Gone', './missing.png'),
          material('Targa', './old.tga'),
          material('Tiles', './tile.<UDIM>.png'),
          material('Good', './ok.png'),
          mesh('a', 'Gone'),
          mesh('b', 'Targa'),
          mesh('c', 'Tiles'),
          mesh('d', 'Good'),
          mesh('e', 'Good', false),
        ].join('\n'),
        'empty.usda',
      ),
      'empty.usda': '#usda 1.0\n',
      'old.tga': Uint8Array.from([0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
      'ok.png': PNG,
    });
    const w = r.warnings.join('\n');
    expect(w).toMatch(/<\/Gone\/T\.inputs:file>: texture '\.\/missing\.png' not drawn/);
    expect(w).toMatch(/old\.tga is not a JPEG, PNG, GIF, BMP or WebP image/);
    expect(w).toMatch(/tile\.<UDIM>\.png' not drawn \(tiled \(UDIM\) textures are not read\)/);
    // 'd' has a short coordinate list (2 elements for 3 face vertices), 'e' none
    expect(w).toMatch(/<\/d>: texture ok\.png not drawn \(primvars:st has 2 elements for 3 face vertices\)/);
    expect(w).toMatch(/<\/e>: texture ok\.png not drawn \(no texture coordinates primvars:st/);
    expect(m.textures).toHaveLength(0);
    for (const s of ['a', 'b', 'c', 'd', 'e']) {
      const { mesh: k, color } = shapeOf(m, r, s);
      expect(m.mesh_texture[k], s).toBe(-1);
      expectColor(color, [0, 1, 0], s);
    }
  });

  it('reads the image inside a USDZ package', async () => {
    const layer = rootWith(
      `
def Mesh "panel" (prepend apiSchemas = ["MaterialBindingAPI"])
{${STRIP}
    rel material:binding = </Looks/Wood>
}`,
      'materials/looks.usda',
    );
    const pkg = zipSync({
      'root.usda': [strToU8(layer), { level: 0 }],
      'materials/looks.usda': [strToU8(PREVIEW_MATERIAL), { level: 0 }],
      'materials/textures/wood.png': [PNG, { level: 0 }],
    });
    const { r, m } = await load({ 'robot.usdz': pkg }, 'robot.usdz');
    expect(r.warnings).toEqual([]);
    expect(m.textures.map((t) => t.label)).toEqual(['robot.usdz[materials/textures/wood.png]']);
    expect(Array.from(m.textures[0].bytes)).toEqual(Array.from(PNG));
    expect(m.mesh_texture[shapeOf(m, r, 'panel').mesh]).toBe(0);
  });
});

describe('ANYmal D (S5): textured visuals through OmniPBR materials', () => {
  const file = path.join(ASSETS, USD_MODELS.S5);

  it('draws its hips, drives, thighs, shanks and feet with their JPEGs, each read once', async () => {
    const b = new ModelBuilder();
    const r = await importUsd(b, file, fsResolver());
    const m = b.finalize();
    expect(r.warnings.join('\n')).not.toMatch(/texture/);
    // the base's and RH thigh's visuals are authored invisible; the other visuals use five images
    expect(m.textures.map((t) => path.basename(t.label)).sort()).toEqual([
      'drive.jpg',
      'foot.jpg',
      'hip.jpg',
      'shank.jpg',
      'thigh.jpg',
    ]);
    expect(m.textures.every((t) => t.mime === 'image/jpeg' && t.bytes.length > 100_000)).toBe(true);
    const bodyName = (s: number) => m.body_label[m.shape_body[s]];
    const textured = r.shapes.filter((s) => m.shape_mesh[s] >= 0 && m.mesh_texture[m.shape_mesh[s]] >= 0);
    expect(textured).toHaveLength(20);
    const imageOf = (s: number) => path.basename(m.textures[m.mesh_texture[m.shape_mesh[s]]].label);
    for (const s of textured) {
      const body = bodyName(s);
      const image = imageOf(s);
      if (body.endsWith('_HIP')) expect(['hip.jpg', 'drive.jpg'], body).toContain(image);
      else if (body.endsWith('_THIGH')) expect(['thigh.jpg', 'drive.jpg'], body).toContain(image);
      else if (body.endsWith('_SHANK')) expect(image, body).toBe('shank.jpg');
      else if (body.endsWith('_FOOT')) expect(image, body).toBe('foot.jpg');
      else throw new Error(`unexpected textured body ${body}`);
      expect(Array.from(m.shape_color.subarray(s * 3, s * 3 + 3))).toEqual([1, 1, 1]);
    }
    // per mesh: coordinates inside the image, no more drawn vertices than face corners, and the
    // drawn corners at the authored points (same bounds as the untextured visuals would have)
    const stage = await openStage(file, fsResolver());
    for (const s of textured) {
      const k = m.shape_mesh[s];
      const uv = m.mesh_uv[k]!;
      expect(uv).toHaveLength(vertexCount(m, k) * 2);
      expect(uv.every((x) => x >= -1e-6 && x <= 1 + 1e-6)).toBe(true);
      expect(vertexCount(m, k)).toBeLessThanOrEqual(triangleCount(m, k) * 3);
    }
    // the looks the importer drew from: OmniPBR shaders with diffuse textures, coordinates 'st'
    const looks = [...stage.traverse()].filter((p) => p.typeName === 'Mesh').map((p) => lookOf(stage, p));
    expect(looks.every((l) => l?.texture?.primvar === 'st')).toBe(true);
  });
});
