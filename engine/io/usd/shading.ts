/**
 * How a geometry prim looks (UsdShade), reduced to what the studio draws: a diffuse colour and a
 * diffuse texture with the primvar that holds its coordinates.
 *
 * - the bound material: `material:binding:preview`, else `material:binding`, on the prim or its
 *   nearest ancestor that has one (an ancestor's binding marked `strongerThanDescendants` wins);
 * - its surface: `outputs:surface`, else a render context's (`outputs:mdl:surface`, …), followed
 *   through node graphs to a shader;
 * - UsdPreviewSurface: `inputs:diffuseColor`, a value or a `UsdUVTexture` (`inputs:file`,
 *   `inputs:scale` as tint, `inputs:st` from a `UsdPrimvarReader_float2`'s `inputs:varname`);
 * - Omniverse's MDL materials (OmniPBR, OmniSurface, as Isaac assets author them):
 *   `inputs:diffuse_texture`, `inputs:diffuse_tint`, `inputs:diffuse_color_constant`, coordinates
 *   from `primvars:st`.
 *
 * Shader inputs connected to material or node-graph interface inputs are followed to their values.
 */
import type { UsdPrim, UsdStage } from './compose';
import { AssetPath, asString, asTuple } from './values';

/** what a geometry prim's bound material draws */
export interface UsdLook {
  /** the material prim */
  material: string;
  /** the diffuse colour, RGB in 0…1; with a texture, the tint the image is multiplied by */
  color?: [number, number, number];
  texture?: UsdTextureRef;
}

/** a diffuse texture as the material names it */
export interface UsdTextureRef {
  /** the asset path as authored */
  file: string;
  /** the layer that authors it: the path resolves relative to this layer */
  layer: string;
  /** the primvar that holds the texture coordinates, without `primvars:` ('st' by default) */
  primvar: string;
  /** the shader input that names the file (for messages) */
  input: string;
}

/**
 * a linear colour (USD's: displayColor and shader colours are in the linear rendering space) as
 * the sRGB-encoded display value the model stores
 */
export function linearToSrgb(rgb: readonly number[]): [number, number, number] {
  const e = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055);
  return [e(rgb[0]), e(rgb[1]), e(rgb[2])];
}

/** most connections followed from one input (node graphs, interface inputs) */
const MAX_HOPS = 16;

/** the material bound to a prim for drawing, or undefined */
export function boundMaterial(stage: UsdStage, prim: UsdPrim): UsdPrim | undefined {
  let found: string | undefined;
  for (let q: UsdPrim | null = prim; q && q.path !== '/'; q = q.parent) {
    for (const name of ['material:binding:preview', 'material:binding']) {
      const rel = q.props.get(name);
      const target = rel?.kind === 'relationship' ? rel.targets[0] : undefined;
      if (!target) continue;
      // the nearest binding decides, unless an ancestor's is stronger than its descendants'
      if (found === undefined || rel!.meta('bindMaterialAs') === 'strongerThanDescendants') found = target;
      break;
    }
  }
  const m = found !== undefined ? stage.prim(found) : undefined;
  return m && m.typeName === 'Material' ? m : undefined;
}

/** where a connection lands: a prim and one of its properties */
interface Source {
  prim: UsdPrim;
  name: string;
}

function connectionOf(stage: UsdStage, prim: UsdPrim, name: string): Source | undefined {
  const c = prim.props.get(name)?.connections[0];
  if (!c) return undefined;
  const dot = c.lastIndexOf('.');
  const target = dot > 0 ? stage.prim(c.slice(0, dot)) : undefined;
  return target ? { prim: target, name: c.slice(dot + 1) } : undefined;
}

/**
 * Follows an input (or a material / node-graph output) through connections: to the shader output
 * that drives it, or to the property whose value it takes.
 */
function follow(stage: UsdStage, prim: UsdPrim, name: string): Source | undefined {
  let at: Source = { prim, name };
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const next = connectionOf(stage, at.prim, at.name);
    if (!next) return at.prim.props.has(at.name) ? at : undefined;
    // a shader output is where the signal comes from
    if (next.prim.typeName === 'Shader' && next.name.startsWith('outputs:')) return next;
    at = next;
  }
  return undefined;
}

/** an input's value (through interface connections), or undefined when a shader drives it */
function inputValue(
  stage: UsdStage,
  shader: UsdPrim,
  name: string,
): { value: unknown; layer?: string } | undefined {
  const s = follow(stage, shader, name);
  if (!s || (s.prim.typeName === 'Shader' && s.name.startsWith('outputs:'))) return undefined;
  const p = s.prim.props.get(s.name);
  return p && p.hasValue ? { value: p.value, layer: p.valueLayer } : undefined;
}

function rgbOf(v: unknown): [number, number, number] | undefined {
  const t = asTuple(v as never, 3) ?? asTuple(v as never, 4)?.slice(0, 3);
  return t && t.every((x) => Number.isFinite(x)) ? [t[0], t[1], t[2]] : undefined;
}

/** the shader a material's surface output comes from */
export function surfaceShader(stage: UsdStage, material: UsdPrim): UsdPrim | undefined {
  const outputs = ['outputs:surface'];
  for (const name of material.props.keys())
    if (name.startsWith('outputs:') && name.endsWith(':surface') && name !== 'outputs:surface')
      outputs.push(name);
  for (const o of outputs) {
    const s = follow(stage, material, o);
    if (s && s.prim.typeName === 'Shader' && s.name.startsWith('outputs:')) return s.prim;
  }
  return undefined;
}

/** a texture from a shader input that holds an asset path */
function textureInput(
  stage: UsdStage,
  shader: UsdPrim,
  name: string,
  primvar: string,
): UsdTextureRef | undefined {
  const v = inputValue(stage, shader, name);
  if (!v || !(v.value instanceof AssetPath) || v.value.path === '' || v.layer === undefined) return undefined;
  return { file: v.value.path, layer: v.layer, primvar, input: `${shader.path}.${name}` };
}

/** the primvar a UsdUVTexture's `inputs:st` reads ('st' when it is not read from a primvar) */
function stPrimvar(stage: UsdStage, texture: UsdPrim): string {
  const s = follow(stage, texture, 'inputs:st');
  if (!s || s.prim.typeName !== 'Shader') return 'st';
  const v = inputValue(stage, s.prim, 'inputs:varname');
  const name = v ? asString(v.value as never) : undefined;
  return name ? name.replace(/^primvars:/, '') : 'st';
}

/** the look of a geometry prim's bound material, or undefined when none is bound or readable */
export function lookOf(stage: UsdStage, prim: UsdPrim): UsdLook | undefined {
  const material = boundMaterial(stage, prim);
  if (!material) return undefined;
  const shader = surfaceShader(stage, material);
  if (!shader) return undefined;
  const look: UsdLook = { material: material.path };
  // UsdPreviewSurface: a colour value, or a texture node
  const diffuse = follow(stage, shader, 'inputs:diffuseColor');
  if (diffuse && diffuse.prim.typeName === 'Shader' && diffuse.name.startsWith('outputs:')) {
    const tex = diffuse.prim;
    if (asString(tex.attr('info:id')) === 'UsdUVTexture') {
      look.texture = textureInput(stage, tex, 'inputs:file', stPrimvar(stage, tex));
      const scale = inputValue(stage, tex, 'inputs:scale');
      if (look.texture && scale) look.color = rgbOf(scale.value);
    }
  } else if (diffuse) {
    look.color = rgbOf(inputValue(stage, shader, 'inputs:diffuseColor')?.value);
  }
  // Omniverse MDL (OmniPBR / OmniSurface): a texture with a tint, else a constant colour
  if (!look.texture && !look.color) {
    look.texture = textureInput(stage, shader, 'inputs:diffuse_texture', 'st');
    const tint = inputValue(stage, shader, 'inputs:diffuse_tint');
    const constant = inputValue(stage, shader, 'inputs:diffuse_color_constant');
    look.color = look.texture ? (tint ? rgbOf(tint.value) : undefined) : rgbOf(constant?.value);
  }
  return look.texture || look.color ? look : undefined;
}
