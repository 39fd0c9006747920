/**
 * COLLADA (`.dae`) reader for triangle geometry, as robot descriptions use it for visual meshes
 * (ROS URDFs; the Franka FR3 of MANIFEST.md). What is read:
 *
 * - the visual scene the file instantiates (`<scene><instance_visual_scene>`, else the first one):
 *   its node tree with `<matrix>`, `<translate>`, `<rotate>` and `<scale>` composed in document
 *   order, `<instance_node>` references into `<library_nodes>`, and `<instance_geometry>`;
 * - `<mesh>` primitives `<triangles>`, `<polylist>`, `<polygons>` (outer rings), `<trifans>` and
 *   `<tristrips>`, their positions through `<vertices>` → `<source>` (accessor stride and offset);
 *   lines and points are skipped;
 * - each primitive's material through `<bind_material>` → `<material>` → `<effect>`: the diffuse
 *   colour of its common profile (`constant` shading: the emission), or its diffuse texture: the
 *   image file (`<texture>` → `sampler2D` → `surface` → `<image><init_from>`, COLLADA 1.4 and 1.5)
 *   with the primitive's `TEXCOORD` input (the set `<bind_vertex_input>` names, else the first);
 * - `<asset><unit meter>` (the result is in metres) and `<up_axis>` (the result is z-up: Y_UP, the
 *   COLLADA default, turns +y into +z; X_UP turns +x into +z).
 *
 * Triangles are grouped into one part per material, in the order the parts first appear. Mirroring
 * node transforms (negative determinant) reverse the winding so faces keep pointing out.
 * Controllers (skins, morphs), cameras and lights are ignored.
 */
import { MeshError } from '../assets/errors';
import { parseXml, childNamed, childrenNamed, numberTokens, type XmlElement } from '../xml';
import { MAX_MESH_TRIANGLES, MAX_MESH_VERTICES, cleanTriangles, type TriMesh } from './types';

/** one part of a mesh file: the triangles of one material */
export interface MeshPart {
  mesh: TriMesh;
  /** the material's diffuse colour, RGB in 0…1, when the file gives one */
  color?: [number, number, number];
  /** the material's name or id, when it has one */
  name?: string;
  /**
   * a textured material's drawing data: `mesh` is the part's triangles again, with a vertex for
   * every distinct position and texture coordinate (a texture seam splits a vertex that the part's
   * own mesh shares), and `uv` their texture coordinates
   */
  textured?: TexturedMesh;
}

/** a mesh with texture coordinates and the image it is drawn with */
export interface TexturedMesh {
  /** the image file as the document names it: URI-decoded, relative to the document */
  image: string;
  mesh: TriMesh;
  /** (V × 2) texture coordinates of `mesh`'s vertices (u, v; v up, as COLLADA and OpenGL have them) */
  uv: Float32Array;
}

/** a material bound to a symbol, with its texture-coordinate sets by name (bind_vertex_input) */
interface Binding {
  material: XmlElement;
  sets: Map<string, number>;
}

/**
 * An image reference as a path: percent-decoded, without a `file://` scheme; an absolute path (from
 * the author's machine) becomes its file name, looked up beside the document as exporters intend.
 */
export function imagePath(raw: string): string {
  let s = raw.replace(/^file:\/\/(localhost)?/i, '');
  try {
    s = decodeURIComponent(s);
  } catch {
    // a stray '%': keep the text as written
  }
  s = s.replace(/\\/g, '/');
  if (s.startsWith('/') || /^[a-z]:\//i.test(s)) s = s.slice(s.lastIndexOf('/') + 1);
  return s;
}

/** deepest node nesting followed (instance_node references count as levels) */
const MAX_NODE_DEPTH = 64;

type Mat4 = Float64Array; // column-major 4×4

/** parses COLLADA text into parts, one per material (in metres, z up) */
export function parseDae(text: string, file?: string): MeshPart[] {
  const root = parseXml(text, { file });
  function fail(reason: string, el?: XmlElement): never {
    throw new MeshError(reason, file, el?.line);
  }
  if (root.name !== 'COLLADA') fail(`not a COLLADA document (root element <${root.name}>)`, root);

  // every element with an id, for the '#id' references
  const byId = new Map<string, XmlElement>();
  const stack: XmlElement[] = [root];
  while (stack.length) {
    const el = stack.pop()!;
    const id = el.attrs.id;
    if (id !== undefined && !byId.has(id)) byId.set(id, el);
    for (const c of el.children) stack.push(c);
  }
  const ref = (url: string | undefined, want: string, from: XmlElement): XmlElement => {
    if (!url || url[0] !== '#') return fail(`<${from.name}> needs a '#id' reference to a <${want}>`, from);
    const el = byId.get(url.slice(1));
    if (!el || el.name !== want) return fail(`<${from.name}>: no <${want}> with id '${url.slice(1)}'`, from);
    return el;
  };

  // units and up axis → one root transform into metres, z up
  const asset = childNamed(root, 'asset');
  const unitEl = asset && childNamed(asset, 'unit');
  const meter = unitEl?.attrs.meter !== undefined ? Number(unitEl.attrs.meter) : 1;
  if (!(meter > 0) || !Number.isFinite(meter))
    fail(`<unit meter="${unitEl?.attrs.meter}"> must be a positive number`, unitEl);
  const upEl = asset && childNamed(asset, 'up_axis');
  const up = upEl?.text.trim() || 'Y_UP';
  const rootM = identity();
  if (up === 'Y_UP') {
    // +90° about x: y → z, z → −y
    rootM.set([1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1]);
  } else if (up === 'X_UP') {
    // −90° about y: x → z, z → −x
    rootM.set([0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 0, 1]);
  } else if (up !== 'Z_UP') fail(`<up_axis> '${up}' is not X_UP, Y_UP or Z_UP`, upEl);
  for (let i = 0; i < 12; i++) rootM[i] *= meter;

  // the scene
  let sceneEl: XmlElement | undefined;
  const inst = childNamed(childNamed(root, 'scene') ?? root, 'instance_visual_scene');
  if (inst) sceneEl = ref(inst.attrs.url, 'visual_scene', inst);
  else {
    const lib = childNamed(root, 'library_visual_scenes');
    sceneEl = lib && childNamed(lib, 'visual_scene');
  }
  if (!sceneEl) fail('no <visual_scene> to read geometry from', root);

  // parts by material key, in order of appearance
  const parts = new Map<
    string,
    {
      verts: number[];
      tris: number[];
      /** a textured part's texture coordinates, and each vertex's index among the welded ones */
      uvs: number[];
      weld: number[];
      welded: number;
      color?: [number, number, number];
      name?: string;
      texture?: { image: string; texcoord?: string };
    }
  >();
  let totalVerts = 0;
  let totalTris = 0;
  const positionsCache = new Map<XmlElement, Float64Array>();
  const uvCache = new Map<XmlElement, { uv: Float64Array; canon: Int32Array }>();
  // index lists, read once however often their geometry is instanced
  const indexCache = new Map<XmlElement, number[]>();
  const indicesOf = (el: XmlElement): number[] => {
    let idx = indexCache.get(el);
    if (!idx) indexCache.set(el, (idx = numbers(el, fail)));
    return idx;
  };

  const positionsOf = (vertices: XmlElement): Float64Array => {
    const hit = positionsCache.get(vertices);
    if (hit) return hit;
    const input = childrenNamed(vertices, 'input').find((i) => i.attrs.semantic === 'POSITION');
    if (!input) return fail('<vertices> has no POSITION input', vertices);
    const src = ref(input.attrs.source, 'source', input);
    const out = readSource(src, 3, fail);
    positionsCache.set(vertices, out);
    return out;
  };

  /** the diffuse (constant shading: emission) colour or texture of a material */
  const shadingOf = (
    materialEl: XmlElement,
  ): { color?: [number, number, number]; texture?: { image: string; texcoord?: string } } => {
    const ie = childNamed(materialEl, 'instance_effect');
    if (!ie) return {};
    const effect = ref(ie.attrs.url, 'effect', ie);
    const common = childNamed(effect, 'profile_COMMON');
    const technique = common && childNamed(common, 'technique');
    if (!common || !technique) return {};
    const shading = technique.children.find((c) =>
      ['phong', 'lambert', 'blinn', 'constant'].includes(c.name),
    );
    if (!shading) return {};
    const slot = childNamed(shading, shading.name === 'constant' ? 'emission' : 'diffuse');
    const color = slot && childNamed(slot, 'color');
    if (color) {
      const c = numbers(color, fail);
      if (c.length < 3) fail('<color> needs three components', color);
      return { color: [clamp01(c[0]), clamp01(c[1]), clamp01(c[2])] };
    }
    const tex = slot && childNamed(slot, 'texture');
    if (!tex) return {};
    const image = imageOf(tex, [common, effect]);
    return image === undefined ? {} : { texture: { image, texcoord: tex.attrs.texcoord } };
  };

  /** the sid-named <newparam> of the profile or the effect */
  const newparam = (sid: string, scopes: XmlElement[]): XmlElement | undefined => {
    for (const sc of scopes) {
      const p = childrenNamed(sc, 'newparam').find((n) => n.attrs.sid === sid);
      if (p) return p;
    }
    return undefined;
  };

  /** a <texture>'s image path: sampler2D → surface (1.4) or instance_image (1.5) → image */
  const imageOf = (tex: XmlElement, scopes: XmlElement[]): string | undefined => {
    const name = tex.attrs.texture;
    if (!name) return undefined;
    let imageId: string | undefined = name; // exporters that name the image itself
    const sampler = newparam(name, scopes);
    const s2d = sampler && childNamed(sampler, 'sampler2D');
    if (s2d) {
      const inst = childNamed(s2d, 'instance_image');
      const source = childNamed(s2d, 'source')?.text.trim();
      if (inst?.attrs.url?.startsWith('#')) imageId = inst.attrs.url.slice(1);
      else if (source) {
        const surfaceParam = newparam(source, scopes);
        const surface = surfaceParam && childNamed(surfaceParam, 'surface');
        imageId = (surface && childNamed(surface, 'init_from')?.text.trim()) || undefined;
      }
    }
    const image = imageId !== undefined ? byId.get(imageId) : undefined;
    if (!image || image.name !== 'image') return undefined;
    const init = childNamed(image, 'init_from');
    if (!init) return undefined;
    const refEl = childNamed(init, 'ref'); // COLLADA 1.5
    const raw = (refEl ?? init).text.trim();
    return raw === '' ? undefined : imagePath(raw);
  };

  /** a TEXCOORD source's coordinates, and for each the first index with the same (u, v) */
  const uvsOf = (src: XmlElement): { uv: Float64Array; canon: Int32Array } => {
    let hit = uvCache.get(src);
    if (!hit) {
      const uv = readSource(src, 2, fail);
      const canon = new Int32Array(uv.length / 2);
      const first = new Map<string, number>();
      for (let i = 0; i < canon.length; i++) {
        const k = `${uv[i * 2]},${uv[i * 2 + 1]}`;
        const f = first.get(k);
        if (f === undefined) first.set(k, (canon[i] = i));
        else canon[i] = f;
      }
      uvCache.set(src, (hit = { uv, canon }));
    }
    return hit;
  };

  const addGeometry = (geometry: XmlElement, M: Mat4, bindings: Map<string, Binding>): void => {
    const mesh = childNamed(geometry, 'mesh');
    if (!mesh) return; // convex_mesh, spline, brep: not triangle geometry we read
    const vertices = childNamed(mesh, 'vertices');
    const flip = det3(M) < 0;
    for (const prim of mesh.children) {
      if (!['triangles', 'polylist', 'polygons', 'trifans', 'tristrips'].includes(prim.name)) continue;
      const inputs = childrenNamed(prim, 'input');
      const vin = inputs.find((i) => i.attrs.semantic === 'VERTEX');
      if (!vin) fail(`<${prim.name}> has no VERTEX input`, prim);
      const vEl = vin.attrs.source ? ref(vin.attrs.source, 'vertices', vin) : vertices;
      if (!vEl) return fail(`<${prim.name}>: no <vertices>`, prim);
      const P = positionsOf(vEl);
      const nP = P.length / 3;
      let stride = 1;
      for (const i of inputs) stride = Math.max(stride, intAttr(i, 'offset', 0, fail) + 1);
      const vOff = intAttr(vin, 'offset', 0, fail);

      // the part this primitive's triangles go to
      const symbol = prim.attrs.material;
      const binding = symbol !== undefined ? bindings.get(symbol) : undefined;
      const matEl = binding?.material;
      const key = matEl?.attrs.id ?? (symbol !== undefined ? `symbol:${symbol}` : '');
      let part = parts.get(key);
      if (!part) {
        const sh = matEl ? shadingOf(matEl) : {};
        part = {
          verts: [],
          tris: [],
          uvs: [],
          weld: [],
          welded: 0,
          color: sh.color,
          texture: sh.texture,
          name: matEl?.attrs.name ?? matEl?.attrs.id ?? symbol,
        };
        parts.set(key, part);
      }
      const p = part;
      // a textured part's coordinates: the TEXCOORD input of the bound set, else the first
      let uv: Float64Array | undefined;
      let canon: Int32Array | undefined;
      let tOff = 0;
      if (p.texture) {
        const coords = inputs.filter((i) => i.attrs.semantic === 'TEXCOORD');
        const set = p.texture.texcoord !== undefined ? binding?.sets.get(p.texture.texcoord) : undefined;
        const tin =
          (set !== undefined ? coords.find((i) => intAttr(i, 'set', 0, fail) === set) : undefined) ??
          coords[0];
        if (tin) {
          ({ uv, canon } = uvsOf(ref(tin.attrs.source, 'source', tin)));
          tOff = intAttr(tin, 'offset', 0, fail);
        }
      }
      const nT = uv ? uv.length / 2 : 0;
      // transformed positions of this instance (a textured part's: with their texture coordinates,
      // and which welded vertex, by position alone, each is), added on first use
      const local = new Map<number, number>();
      const localWeld = new Map<number, number>();
      const vertex = (pEl: XmlElement, idx: number[], k: number): number => {
        const pi = idx[k * stride + vOff];
        if (!(pi >= 0 && pi < nP)) fail(`index ${pi} outside the ${nP} positions`, pEl);
        let ti = 0;
        if (uv) {
          ti = idx[k * stride + tOff];
          if (!(ti >= 0 && ti < nT)) fail(`index ${ti} outside the ${nT} texture coordinates`, pEl);
        }
        const vk = canon ? pi * nT + canon[ti] : pi;
        let j = local.get(vk);
        if (j === undefined) {
          j = p.verts.length / 3;
          local.set(vk, j);
          if (p.texture) {
            if (uv) p.uvs.push(uv[ti * 2], uv[ti * 2 + 1]);
            else p.uvs.push(0, 0);
            let w = localWeld.get(pi);
            if (w === undefined) localWeld.set(pi, (w = p.welded++));
            p.weld.push(w);
          }
          const x = P[pi * 3],
            y = P[pi * 3 + 1],
            z = P[pi * 3 + 2];
          p.verts.push(
            M[0] * x + M[4] * y + M[8] * z + M[12],
            M[1] * x + M[5] * y + M[9] * z + M[13],
            M[2] * x + M[6] * y + M[10] * z + M[14],
          );
          totalVerts++;
          if (totalVerts > MAX_MESH_VERTICES) {
            fail(
              `more than ${MAX_MESH_VERTICES} vertices: exceeds max_mesh_vertices = ${MAX_MESH_VERTICES}`,
              pEl,
            );
          }
        }
        return j;
      };
      const tri = (pEl: XmlElement, a: number, b: number, c: number) => {
        if (flip) p.tris.push(a, c, b);
        else p.tris.push(a, b, c);
        totalTris++;
        if (totalTris > MAX_MESH_TRIANGLES) {
          fail(
            `more than ${MAX_MESH_TRIANGLES} triangles: exceeds max_mesh_triangles = ${MAX_MESH_TRIANGLES}`,
            pEl,
          );
        }
      };
      const corners = (pEl: XmlElement, idx: number[]): number => {
        if (idx.length % stride !== 0)
          fail(`<p> holds ${idx.length} indices, not a multiple of ${stride} inputs`, pEl);
        return idx.length / stride;
      };

      const fan = (pEl: XmlElement, idx: number[], start: number, count: number) => {
        if (count < 3) return;
        const a = vertex(pEl, idx, start);
        let b = vertex(pEl, idx, start + 1);
        for (let k = 2; k < count; k++) {
          const c = vertex(pEl, idx, start + k);
          tri(pEl, a, b, c);
          b = c;
        }
      };

      if (prim.name === 'triangles') {
        const pEl = childNamed(prim, 'p');
        if (!pEl) continue;
        const idx = indicesOf(pEl);
        const n = corners(pEl, idx);
        if (n % 3 !== 0) fail(`<triangles> <p> holds ${n} corners, not a multiple of 3`, pEl);
        for (let k = 0; k < n; k += 3)
          tri(pEl, vertex(pEl, idx, k), vertex(pEl, idx, k + 1), vertex(pEl, idx, k + 2));
      } else if (prim.name === 'polylist') {
        const pEl = childNamed(prim, 'p');
        const vcEl = childNamed(prim, 'vcount');
        if (!pEl || !vcEl) continue;
        const idx = indicesOf(pEl);
        const vcount = indicesOf(vcEl);
        const n = corners(pEl, idx);
        let k = 0;
        for (const c of vcount) {
          if (!(Number.isInteger(c) && c >= 0) || k + c > n)
            fail(`<vcount> ${c} runs past the ${n} corners in <p>`, vcEl);
          fan(pEl, idx, k, c);
          k += c;
        }
      } else if (prim.name === 'polygons' || prim.name === 'trifans') {
        for (const pEl of childrenNamed(prim, 'p')) {
          const idx = indicesOf(pEl);
          fan(pEl, idx, 0, corners(pEl, idx));
        }
        // <ph> (polygons with holes): the outer ring, holes left closed
        for (const ph of childrenNamed(prim, 'ph')) {
          const pEl = childNamed(ph, 'p');
          if (!pEl) continue;
          const idx = indicesOf(pEl);
          fan(pEl, idx, 0, corners(pEl, idx));
        }
      } else {
        for (const pEl of childrenNamed(prim, 'p')) {
          const idx = indicesOf(pEl);
          const n = corners(pEl, idx);
          for (let k = 2; k < n; k++) {
            const a = vertex(pEl, idx, k - 2),
              b = vertex(pEl, idx, k - 1),
              c = vertex(pEl, idx, k);
            if (k % 2 === 0) tri(pEl, a, b, c);
            else tri(pEl, b, a, c);
          }
        }
      }
    }
  };

  const visit = (node: XmlElement, parentM: Mat4, depth: number): void => {
    if (depth > MAX_NODE_DEPTH)
      fail(`nodes nested deeper than ${MAX_NODE_DEPTH} (an instance_node cycle?)`, node);
    const M = Float64Array.from(parentM);
    for (const c of node.children) {
      switch (c.name) {
        case 'matrix': {
          const m = numbers(c, fail);
          if (m.length !== 16) fail(`<matrix> needs 16 numbers, has ${m.length}`, c);
          // row-major in the file
          const T = new Float64Array(16);
          for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) T[k * 4 + r] = m[r * 4 + k];
          mulInPlace(M, T);
          break;
        }
        case 'translate': {
          const t = numbers(c, fail);
          if (t.length !== 3) fail(`<translate> needs 3 numbers, has ${t.length}`, c);
          const T = identity();
          T[12] = t[0];
          T[13] = t[1];
          T[14] = t[2];
          mulInPlace(M, T);
          break;
        }
        case 'rotate': {
          const r = numbers(c, fail);
          if (r.length !== 4)
            fail(`<rotate> needs an axis and an angle in degrees, has ${r.length} numbers`, c);
          mulInPlace(M, rotation(r[0], r[1], r[2], (r[3] * Math.PI) / 180));
          break;
        }
        case 'scale': {
          const s = numbers(c, fail);
          if (s.length !== 3) fail(`<scale> needs 3 numbers, has ${s.length}`, c);
          const T = identity();
          T[0] = s[0];
          T[5] = s[1];
          T[10] = s[2];
          mulInPlace(M, T);
          break;
        }
        case 'lookat':
        case 'skew':
          fail(`<${c.name}> node transforms are not read`, c);
      }
    }
    for (const c of node.children) {
      if (c.name === 'node') visit(c, M, depth + 1);
      else if (c.name === 'instance_node') visit(ref(c.attrs.url, 'node', c), M, depth + 1);
      else if (c.name === 'instance_geometry') {
        const bindings = new Map<string, Binding>();
        const bm = childNamed(c, 'bind_material');
        const tc = bm && childNamed(bm, 'technique_common');
        for (const im of tc ? childrenNamed(tc, 'instance_material') : []) {
          if (im.attrs.symbol === undefined) continue;
          const sets = new Map<string, number>();
          for (const bvi of childrenNamed(im, 'bind_vertex_input')) {
            if (bvi.attrs.semantic !== undefined && bvi.attrs.input_semantic === 'TEXCOORD')
              sets.set(bvi.attrs.semantic, intAttr(bvi, 'input_set', 0, fail));
          }
          bindings.set(im.attrs.symbol, { material: ref(im.attrs.target, 'material', im), sets });
        }
        addGeometry(ref(c.attrs.url, 'geometry', c), M, bindings);
      }
    }
  };
  for (const n of childrenNamed(sceneEl, 'node')) visit(n, rootM, 1);

  const out: MeshPart[] = [];
  for (const p of parts.values()) {
    if (p.tris.length === 0) continue;
    let mesh: TriMesh;
    const source: number[] = [];
    try {
      mesh = cleanTriangles(
        { vertices: Float64Array.from(p.verts), triangles: Int32Array.from(p.tris) },
        file,
        source,
      );
    } catch {
      continue; // only zero-area triangles in this part
    }
    if (!p.texture) {
      out.push({ mesh, color: p.color, name: p.name });
      continue;
    }
    // textured: `mesh` above is split at texture seams (drawn); the part's mesh welds by position
    const uv = new Float32Array(source.length * 2);
    for (let i = 0; i < source.length; i++) {
      uv[i * 2] = p.uvs[source[i] * 2];
      uv[i * 2 + 1] = p.uvs[source[i] * 2 + 1];
    }
    const wverts = new Float64Array(p.welded * 3);
    for (let j = 0; j < p.weld.length; j++) {
      const w = p.weld[j] * 3;
      wverts[w] = p.verts[j * 3];
      wverts[w + 1] = p.verts[j * 3 + 1];
      wverts[w + 2] = p.verts[j * 3 + 2];
    }
    const wtris = Int32Array.from(p.tris, (j) => p.weld[j]);
    out.push({
      mesh: cleanTriangles({ vertices: wverts, triangles: wtris }, file),
      color: p.color,
      name: p.name,
      textured: { image: p.texture.image, mesh, uv },
    });
  }
  if (out.length === 0) fail('the visual scene holds no triangle of non-zero area', sceneEl);
  return out;
}

/** all parts as one mesh (for colliders and anything that takes a single mesh) */
export function mergeParts(parts: readonly MeshPart[]): TriMesh {
  let nv = 0,
    nt = 0;
  for (const p of parts) {
    nv += p.mesh.vertices.length;
    nt += p.mesh.triangles.length;
  }
  const vertices = new Float64Array(nv);
  const triangles = new Int32Array(nt);
  let ov = 0,
    ot = 0;
  for (const p of parts) {
    vertices.set(p.mesh.vertices, ov);
    const base = ov / 3;
    for (let i = 0; i < p.mesh.triangles.length; i++) triangles[ot + i] = p.mesh.triangles[i] + base;
    ov += p.mesh.vertices.length;
    ot += p.mesh.triangles.length;
  }
  return { vertices, triangles };
}

/** the whitespace-separated numbers of an element's text; a non-number is an error at the element */
function numbers(el: XmlElement, fail: (reason: string, el?: XmlElement) => never): number[] {
  const out = numberTokens(el.text);
  for (let i = 0; i < out.length; i++) {
    if (!Number.isFinite(out[i])) {
      // the offending token, found again only on failure
      const tok = el.text.trim().split(/\s+/)[i] ?? '';
      fail(`<${el.name}>: '${tok.slice(0, 40)}' is not a finite number`, el);
    }
  }
  return out;
}

/** a non-negative integer attribute */
function intAttr(
  el: XmlElement,
  name: string,
  dflt: number,
  fail: (reason: string, el?: XmlElement) => never,
): number {
  const s = el.attrs[name];
  if (s === undefined) return dflt;
  const v = Number(s);
  if (!Number.isInteger(v) || v < 0) fail(`<${el.name} ${name}="${s}"> must be a non-negative integer`, el);
  return v;
}

/**
 * The first `width` components of every element of a `<source>` (its `<float_array>` read through
 * the common accessor's count, stride and offset).
 */
function readSource(
  src: XmlElement,
  width: number,
  fail: (reason: string, el?: XmlElement) => never,
): Float64Array {
  const arr = childNamed(src, 'float_array');
  if (!arr) return fail('<source> has no <float_array>', src);
  const data = numbers(arr, fail);
  if (arr.attrs.count !== undefined && Number(arr.attrs.count) !== data.length) {
    fail(`<float_array count="${arr.attrs.count}"> holds ${data.length} numbers`, arr);
  }
  const tc = childNamed(src, 'technique_common');
  const acc = tc && childNamed(tc, 'accessor');
  const stride = acc ? intAttr(acc, 'stride', 1, fail) : width;
  const offset = acc ? intAttr(acc, 'offset', 0, fail) : 0;
  const count = acc ? intAttr(acc, 'count', 0, fail) : Math.floor(data.length / width);
  if (stride < width)
    fail(`<accessor stride="${stride}"> is narrower than the ${width} position components`, acc);
  if (count > 0 && offset + (count - 1) * stride + width > data.length) {
    fail(`<accessor> reads ${count} × ${stride} numbers past the ${data.length} in the array`, acc);
  }
  const out = new Float64Array(count * width);
  for (let i = 0; i < count; i++)
    for (let k = 0; k < width; k++) out[i * width + k] = data[offset + i * stride + k];
  return out;
}

function identity(): Mat4 {
  const m = new Float64Array(16);
  m[0] = m[5] = m[10] = m[15] = 1;
  return m;
}

/** M ← M·T (both column-major) */
function mulInPlace(M: Mat4, T: Mat4): void {
  const R = new Float64Array(16);
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      let s = 0;
      for (let k = 0; k < 4; k++) s += M[k * 4 + r] * T[c * 4 + k];
      R[c * 4 + r] = s;
    }
  }
  M.set(R);
}

/** rotation by `angle` [rad] about the axis (x, y, z), column-major */
function rotation(x: number, y: number, z: number, angle: number): Mat4 {
  const n = Math.hypot(x, y, z);
  const m = identity();
  if (n === 0) return m;
  x /= n;
  y /= n;
  z /= n;
  const c = Math.cos(angle),
    s = Math.sin(angle),
    t = 1 - c;
  m[0] = t * x * x + c;
  m[1] = t * x * y + s * z;
  m[2] = t * x * z - s * y;
  m[4] = t * x * y - s * z;
  m[5] = t * y * y + c;
  m[6] = t * y * z + s * x;
  m[8] = t * x * z + s * y;
  m[9] = t * y * z - s * x;
  m[10] = t * z * z + c;
  return m;
}

/** determinant of the upper-left 3×3 */
function det3(M: Mat4): number {
  return (
    M[0] * (M[5] * M[10] - M[9] * M[6]) -
    M[4] * (M[1] * M[10] - M[9] * M[2]) +
    M[8] * (M[1] * M[6] - M[5] * M[2])
  );
}

function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}
