/**
 * Stage composition for the features real physics assets use:
 *
 * - layer stacks: sublayers (strongest first, recursively);
 * - references and payloads (external with a target prim or the defaultPrim, and internal), with
 *   namespace mapping of relationship targets and connections back into the stage;
 * - inherits and specializes (classes in the same layer stack);
 * - variant sets with the strongest authored selection;
 * - `over` specs; instanceable prims are composed like plain references;
 * - list-op semantics (explicit / prepend / append / delete / add) for apiSchemas, references,
 *   payloads, inherits, relationship targets and connections.
 *
 * Strength order per prim: local opinions of the layer stack, then inherits, variants, references,
 * payloads and specializes of that site, each expanded depth-first (LIVRPS, simplified: ancestral and
 * direct arcs of the same kind are not interleaved). Cycles and arc chains deeper than the limit are
 * rejected with a {@link UsdError} of kind 'composition'.
 *
 * Layers are loaded up front ({@link openStage}): every sublayer/reference/payload asset authored in a
 * loaded layer is fetched through the {@link AssetResolver}; composition itself is synchronous.
 */
import { AssetError, dirname, nonUtf8BomReason, normalizePath, type AssetResolver } from '../assets/resolver';
import { rethrowOutside } from '../assets/confined';
import { parseCrate } from './crate';
import { DEFAULT_USD_LIMITS, UsdError, type UsdLimits } from './errors';
import type { Layer, PrimSpec, PropSpec, Specifier } from './layer';
import { parseUsda } from './usda';
import { isZip, readUsdz } from './usdz';
import { composeListOps, ListOp, SdfPathValue, UsdDict, UsdReference, type UsdValue } from './values';

/** one source of opinions for a composed prim: a site (layer stack + path) and its namespace map */
interface Node {
  stack: LayerStack;
  /** the spec path in the stack's namespace (may contain variant selections) */
  path: string;
  /** maps a path of the stack's namespace to the stage namespace (null when outside the arc) */
  map: (p: string) => string | null;
  /** arc depth from the stage root */
  depth: number;
  /** keys of the nodes on the arc chain that led here (cycle detection) */
  chain: ReadonlySet<string>;
}

interface NodeSpecs {
  node: Node;
  /** the specs at node.path, strongest layer first */
  specs: PrimSpec[];
  /** the layer of each spec */
  layers: Layer[];
}

/** layers in strength order (a root layer and its sublayers, recursively) */
export interface LayerStack {
  id: string;
  layers: Layer[];
  root: Layer;
}

/** a composed property: its specs in strength order */
export class UsdProperty {
  /** the property's specs, strongest first, with the layer each is authored in */
  readonly specs: { spec: PropSpec; map: (p: string) => string | null; layer: Layer }[] = [];
  constructor(readonly name: string) {}

  get kind(): 'attribute' | 'relationship' {
    return this.specs[0].spec.kind;
  }

  /** the type name of the strongest spec that declares one */
  get typeName(): string {
    for (const s of this.specs) if (s.spec.typeName) return s.spec.typeName;
    return '';
  }

  /** the strongest default value (null = blocked), else the strongest first time sample */
  get value(): UsdValue | undefined {
    for (const s of this.specs) {
      const v = s.spec.value;
      if (v !== undefined) return v;
    }
    for (const s of this.specs) {
      const v = s.spec.firstSample;
      if (v !== undefined) return v;
    }
    return undefined;
  }

  /**
   * the identifier of the layer that authors {@link value} (an asset path resolves relative to
   * it); undefined when no spec has a value
   */
  get valueLayer(): string | undefined {
    for (const s of this.specs) if (s.spec.value !== undefined) return s.layer.identifier;
    for (const s of this.specs) if (s.spec.firstSample !== undefined) return s.layer.identifier;
    return undefined;
  }

  /** whether any spec has a value opinion */
  get hasValue(): boolean {
    return this.value !== undefined;
  }

  /** composed relationship targets (stage paths) */
  get targets(): string[] {
    return this.composePaths('targets');
  }

  /** composed attribute connections (stage paths) */
  get connections(): string[] {
    return this.composePaths('connections');
  }

  private composePaths(key: 'targets' | 'connections'): string[] {
    const ops: ListOp<string>[] = [];
    for (const s of this.specs) {
      const op = s.spec[key];
      if (op) ops.push(op.map((p) => s.map(p)));
    }
    return composeListOps(ops);
  }

  /** strongest property metadata value */
  meta(key: string): UsdValue | undefined {
    for (const s of this.specs) {
      const v = s.spec.meta?.get(key);
      if (v !== undefined) return v;
    }
    return undefined;
  }
}

/** a composed prim */
export class UsdPrim {
  readonly children: UsdPrim[] = [];
  readonly childByName = new Map<string, UsdPrim>();
  readonly props = new Map<string, UsdProperty>();
  typeName = '';
  specifier: Specifier = 'over';
  apiSchemas: string[] = [];
  /** the opinions that built the prim, strongest first */
  readonly sources: { layer: Layer; spec: PrimSpec }[] = [];

  constructor(
    readonly name: string,
    readonly path: string,
    readonly parent: UsdPrim | null,
  ) {}

  /** defined prims (a def somewhere) that are not abstract classes */
  get isDefined(): boolean {
    return this.specifier === 'def';
  }

  get isAbstract(): boolean {
    return this.specifier === 'class';
  }

  /** strongest prim metadata value (`kind`, `instanceable`, `active`, …) */
  meta(key: string): UsdValue | undefined {
    for (const s of this.sources) {
      const v = s.spec.meta.get(key);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  /** whether an API schema is applied (exact name, or `Name:instance` for multiple-apply schemas) */
  hasApi(name: string): boolean {
    return this.apiSchemas.includes(name);
  }

  /** the instance names of a multiple-apply schema (`PhysicsDriveAPI:angular` → 'angular') */
  apiInstances(name: string): string[] {
    const pre = name + ':';
    return this.apiSchemas.filter((a) => a.startsWith(pre)).map((a) => a.slice(pre.length));
  }

  /** a property's composed value (undefined when absent) */
  attr(name: string): UsdValue | undefined {
    return this.props.get(name)?.value;
  }

  /** a relationship's composed targets (undefined when the relationship is absent) */
  rel(name: string): string[] | undefined {
    const p = this.props.get(name);
    return p ? p.targets : undefined;
  }

  /** the layer that holds the strongest opinion (for error locations) */
  get layer(): string {
    return this.sources[0]?.layer.identifier ?? '';
  }
}

/** the composed stage */
export class UsdStage {
  /** the pseudo-root; its children are the root prims */
  readonly root = new UsdPrim('', '/', null);
  readonly byPath = new Map<string, UsdPrim>();
  /** non-fatal problems: missing layers, unresolved arcs */
  readonly warnings: string[] = [];
  /**
   * reads a file that an asset path written in layer `fromLayer` names (a texture, …), inside a
   * USDZ package where the layer is in one; set by {@link openStage}, undefined for a stage
   * composed from layers already in memory
   */
  readAsset?: (fromLayer: string, assetPath: string) => Promise<{ path: string; bytes: Uint8Array }>;

  constructor(readonly rootStack: LayerStack) {
    this.byPath.set('/', this.root);
  }

  get rootLayer(): Layer {
    return this.rootStack.root;
  }
  /** the root layer's metersPerUnit (default 0.01, OpenUSD's fallback) */
  get metersPerUnit(): number {
    return this.rootLayer.info.metersPerUnit ?? 0.01;
  }
  /** the root layer's kilogramsPerUnit (default 1) */
  get kilogramsPerUnit(): number {
    return this.rootLayer.info.kilogramsPerUnit ?? 1;
  }
  /** the root layer's upAxis (default 'Y', OpenUSD's fallback) */
  get upAxis(): 'Y' | 'Z' {
    return this.rootLayer.info.upAxis === 'Z' ? 'Z' : 'Y';
  }
  get defaultPrim(): string | undefined {
    return this.rootLayer.info.defaultPrim;
  }

  prim(path: string): UsdPrim | undefined {
    return this.byPath.get(path);
  }

  /** pre-order traversal of defined, active, non-abstract prims; `skip` prunes subtrees */
  *traverse(skip?: (p: UsdPrim) => boolean): Generator<UsdPrim> {
    const stack: UsdPrim[] = [...this.root.children].reverse();
    while (stack.length) {
      const p = stack.pop()!;
      if (!p.isDefined || p.meta('active') === false || (skip && skip(p))) continue;
      yield p;
      for (let i = p.children.length - 1; i >= 0; i--) stack.push(p.children[i]);
    }
  }
}

/** options of {@link openStage} */
export interface OpenStageOptions {
  limits?: Partial<UsdLimits>;
}

/** detects the format and parses a layer's bytes (not USDZ) */
export function parseLayerBytes(bytes: Uint8Array, id: string, limits: Partial<UsdLimits> = {}): Layer {
  if (bytes.length >= 8 && String.fromCharCode(...bytes.subarray(0, 8)) === 'PXR-USDC')
    return parseCrate(bytes, id, limits);
  const head = String.fromCharCode(...bytes.subarray(0, Math.min(5, bytes.length)));
  if (head === '#usda') return parseUsda(new TextDecoder('utf-8').decode(bytes), id, limits);
  if (bytes.length >= 8 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return parseUsda(new TextDecoder('utf-8').decode(bytes.subarray(3)), id, limits);
  }
  const bom = nonUtf8BomReason(bytes);
  if (bom !== undefined) throw new UsdError('syntax', { layer: id, offset: 0 }, bom);
  throw new UsdError(
    'syntax',
    { layer: id, offset: 0 },
    "unknown layer format (expected '#usda', 'PXR-USDC' or a USDZ zip)",
  );
}

const PKG_RE = /^(.*)\[([^\]]+)\]$/;

/** loads layers through a resolver; USDZ packages become `pkg[inner]` identifiers */
class LayerLoader {
  readonly layers = new Map<string, Layer>();
  readonly failed = new Map<string, string>();
  private readonly packages = new Map<string, Map<string, Uint8Array>>();

  constructor(
    private readonly resolver: AssetResolver,
    private readonly limits: UsdLimits,
    private readonly warnings: string[],
  ) {}

  /** resolves an asset path written in layer `from` */
  resolve(from: string, asset: string): string {
    const m = PKG_RE.exec(from);
    if (m) {
      const pkg = m[1];
      const files = this.packages.get(pkg);
      const inner = normalizePath((dirname(m[2]) ? dirname(m[2]) + '/' : '') + asset.replace(/^\.\//, ''));
      if (files && files.has(inner)) return `${pkg}[${inner}]`;
      return this.resolver.resolve(pkg, asset);
    }
    return this.resolver.resolve(from, asset);
  }

  /** reads the file an asset path written in layer `from` names (a package entry or a file) */
  async readAsset(from: string, asset: string): Promise<{ path: string; bytes: Uint8Array }> {
    const path = this.resolve(from, asset);
    const m = PKG_RE.exec(path);
    if (!m) return { path, bytes: await this.resolver.read(path) };
    if (!this.packages.has(m[1])) await this.loadPackage(m[1]);
    const bytes = this.packages.get(m[1])?.get(m[2]);
    if (!bytes) throw new UsdError('asset', { layer: from }, `no entry '${m[2]}' in package ${m[1]}`);
    return { path, bytes };
  }

  /** loads a layer (cached); returns undefined (with a warning) when missing, throws on bad content */
  async load(id: string, required: boolean): Promise<Layer | undefined> {
    const have = this.layers.get(id);
    if (have) return have;
    if (this.failed.has(id)) return undefined;
    if (this.layers.size >= this.limits.maxLayers) {
      throw new UsdError(
        'limit',
        { layer: id },
        `more than ${this.limits.maxLayers} layers: the stage exceeds max_layers = ${this.limits.maxLayers}`,
      );
    }
    const m = PKG_RE.exec(id);
    let bytes: Uint8Array;
    try {
      if (m) {
        if (!this.packages.has(m[1])) await this.loadPackage(m[1]);
        const b = this.packages.get(m[1])?.get(m[2]);
        if (!b) throw new UsdError('asset', { layer: id }, `no entry '${m[2]}' in package ${m[1]}`);
        bytes = b;
      } else {
        bytes = await this.resolver.read(id);
      }
    } catch (e) {
      rethrowOutside(e);
      if (e instanceof UsdError && e.kind !== 'asset') throw e;
      const msg = e instanceof Error ? e.message : String(e);
      if (required) throw new UsdError('asset', { layer: id }, `cannot read layer: ${msg}`);
      this.failed.set(id, msg);
      this.warnings.push(`missing layer ${id}: ${msg}`);
      return undefined;
    }
    if (bytes.length > this.limits.maxLayerBytes) {
      throw new UsdError(
        'limit',
        { layer: id },
        `layer of ${bytes.length} bytes exceeds max_layer_bytes = ${this.limits.maxLayerBytes}`,
      );
    }
    if (!m && isZip(bytes)) {
      const pkg = await readUsdz(bytes, id, this.limits);
      this.packages.set(id, pkg.files);
      const inner = `${id}[${pkg.root}]`;
      const layer = await this.load(inner, true);
      if (layer) this.layers.set(id, layer);
      return layer;
    }
    const layer = parseLayerBytes(bytes, id, this.limits);
    this.layers.set(id, layer);
    return layer;
  }

  private async loadPackage(pkg: string): Promise<void> {
    const bytes = await this.resolver.read(pkg);
    const p = await readUsdz(bytes, pkg, this.limits);
    this.packages.set(pkg, p.files);
  }

  /** loads a layer and, transitively, every layer its arcs name */
  async loadClosure(rootId: string): Promise<Layer> {
    const root = await this.load(rootId, true);
    if (!root) throw new UsdError('asset', { layer: rootId }, 'cannot read the root layer');
    const queue: string[] = [root.identifier];
    const seen = new Set<string>(queue);
    while (queue.length) {
      const id = queue.shift()!;
      const layer = this.layers.get(id);
      if (!layer) continue;
      for (const asset of layer.collectArcAssets()) {
        if (!asset) continue;
        let target: string;
        try {
          target = this.resolve(id, asset);
        } catch (e) {
          rethrowOutside(e);
          this.warnings.push(
            `cannot resolve @${asset}@ in ${id}: ${e instanceof Error ? e.message : String(e)}`,
          );
          continue;
        }
        if (seen.has(target)) continue;
        seen.add(target);
        const l = await this.load(target, false);
        if (l) queue.push(l.identifier);
      }
    }
    return root;
  }
}

/**
 * Opens and composes a stage: loads the entry layer (USDA, USDC or USDZ) and every layer reachable
 * through sublayers, references and payloads, then composes the prim tree.
 */
export async function openStage(
  entryPath: string,
  resolver: AssetResolver,
  opts: OpenStageOptions = {},
): Promise<UsdStage> {
  const limits = { ...DEFAULT_USD_LIMITS, ...opts.limits };
  const warnings: string[] = [];
  const loader = new LayerLoader(resolver, limits, warnings);
  const root = await loader.loadClosure(entryPath);
  const stage = composeStage(
    root,
    (from, asset) => {
      try {
        const id = loader.resolve(from, asset);
        return loader.layers.get(id);
      } catch {
        return undefined;
      }
    },
    limits,
  );
  stage.warnings.unshift(...warnings);
  stage.readAsset = (from, asset) => loader.readAsset(from, asset);
  return stage;
}

/** a resolver that resolves relative paths but reads nothing (inline text without a resolver) */
const NO_FILES: AssetResolver = {
  resolve: (base, ref) =>
    ref.startsWith('/') ? normalizePath(ref) : normalizePath(`${dirname(base)}/${ref}`),
  read: (path) => Promise.reject(new AssetError(path, 'no resolver to read files')),
  exists: () => Promise.resolve(false),
};

/** like {@link openStage}, with the root layer given as USDA text named `path` */
export async function openStageFromText(
  text: string,
  path: string,
  resolver: AssetResolver | undefined,
  opts: OpenStageOptions = {},
): Promise<UsdStage> {
  const limits = { ...DEFAULT_USD_LIMITS, ...opts.limits };
  const r = resolver ?? NO_FILES;
  const inline: AssetResolver = {
    resolve: (base, ref) => r.resolve(base, ref),
    read: (p) => (p === path ? Promise.resolve(new TextEncoder().encode(text)) : r.read(p)),
    exists: (p) => (p === path ? Promise.resolve(true) : r.exists(p)),
  };
  return openStage(path, inline, { limits });
}

/**
 * Composes a stage from an already-loaded root layer; `findLayer(fromLayer, assetPath)` returns the
 * loaded layer an asset path designates (or undefined when it is missing).
 */
export function composeStage(
  rootLayer: Layer,
  findLayer: (from: string, asset: string) => Layer | undefined,
  limits: Partial<UsdLimits> = {},
): UsdStage {
  return new Composer(rootLayer, findLayer, { ...DEFAULT_USD_LIMITS, ...limits }).compose();
}

function childPath(parent: string, name: string): string {
  return parent === '/' ? `/${name}` : `${parent}/${name}`;
}

/** maps `p` from under `from` to under `to`; null when p is not under `from` */
function replacePrefix(p: string, from: string, to: string): string | null {
  if (p === from) return to;
  if (from === '/') return to === '/' ? p : to + p;
  if (p.startsWith(from)) {
    const c = p.charCodeAt(from.length);
    if (c === 47 /* / */ || c === 46 /* . */ || c === 123 /* { */ || c === 91 /* [ */)
      return to + p.slice(from.length);
  }
  return null;
}

/** removes variant selections from a path: `/P{v=a}C.x` → `/P/C.x` */
export function stripVariants(p: string): string {
  if (!p.includes('{')) return p;
  let out = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c !== '{') {
      out += c;
      continue;
    }
    const k = p.indexOf('}', i);
    if (k < 0) return out;
    i = k;
    const next = p[k + 1];
    if (next !== undefined && next !== '/' && next !== '.' && next !== '{') out += '/';
  }
  return out;
}

class Composer {
  private readonly stacks = new Map<string, LayerStack>();
  private readonly pendingWarnings: string[] = [];
  /** unresolved arcs (missing layers): arc → how many prims, the first one */
  private readonly unresolved = new Map<string, { count: number; first: string }>();
  private readonly stage: UsdStage;
  private primCount = 0;

  constructor(
    rootLayer: Layer,
    private readonly findLayer: (from: string, asset: string) => Layer | undefined,
    private readonly limits: UsdLimits,
  ) {
    this.stage = new UsdStage(this.stackFor(rootLayer, new Set(), 0));
    this.stage.warnings.push(...this.pendingWarnings.splice(0));
  }

  private stackFor(root: Layer, chain: Set<string>, depth: number): LayerStack {
    const have = this.stacks.get(root.identifier);
    if (have) return have;
    const layers: Layer[] = [];
    const visit = (l: Layer, seen: Set<string>, d: number) => {
      if (d > this.limits.maxArcDepth) {
        throw new UsdError(
          'composition',
          { layer: l.identifier },
          `sublayers nested deeper than max_arc_depth = ${this.limits.maxArcDepth}`,
        );
      }
      if (seen.has(l.identifier)) {
        // layer metadata (subLayers) lives on the pseudo-root '/'
        throw new UsdError(
          'composition',
          { layer: l.identifier, primPath: '/' },
          `sublayer cycle: ${[...seen, l.identifier].join(' → ')}`,
        );
      }
      layers.push(l);
      const next = new Set(seen).add(l.identifier);
      for (const sub of l.info.subLayers) {
        const sl = this.findLayer(l.identifier, sub);
        if (!sl) {
          this.pendingWarnings.push(`missing sublayer @${sub}@ of ${l.identifier}`);
          continue;
        }
        visit(sl, next, d + 1);
      }
    };
    visit(root, chain, depth);
    const stack: LayerStack = { id: root.identifier, layers, root };
    this.stacks.set(root.identifier, stack);
    return stack;
  }

  compose(): UsdStage {
    const rootNode: Node = {
      stack: this.stage.rootStack,
      path: '/',
      map: (p) => p,
      depth: 0,
      chain: new Set(),
    };
    const entries: NodeSpecs[] = [{ node: rootNode, ...this.specsOf(rootNode) }];
    this.composeChildren(this.stage.root, entries);
    for (const [arc, u] of this.unresolved) {
      this.stage.warnings.push(
        `unresolved ${arc} on ${u.count} prim${u.count > 1 ? 's' : ''} (layer missing), first <${u.first}>`,
      );
    }
    return this.stage;
  }

  private specsOf(node: Node): { specs: PrimSpec[]; layers: Layer[] } {
    const specs: PrimSpec[] = [];
    const layers: Layer[] = [];
    for (const l of node.stack.layers) {
      const s = l.primAt(node.path);
      if (s) {
        specs.push(s);
        layers.push(l);
      }
    }
    return { specs, layers };
  }

  private composeChildren(prim: UsdPrim, entries: NodeSpecs[], depth = 0): void {
    if (depth > this.limits.maxNesting) {
      throw new UsdError(
        'limit',
        { layer: this.stage.rootLayer.identifier, primPath: prim.path },
        `prims nested deeper than max_usda_nesting = ${this.limits.maxNesting}`,
      );
    }
    const names: string[] = [];
    const seen = new Set<string>();
    for (const e of entries) {
      for (const s of e.specs) {
        for (const c of s.children) {
          if (!seen.has(c.name)) {
            seen.add(c.name);
            names.push(c.name);
          }
        }
      }
    }
    for (const name of names) {
      if (++this.primCount > this.limits.maxPrims) {
        throw new UsdError(
          'limit',
          { layer: this.stage.rootLayer.identifier, primPath: prim.path },
          `the stage exceeds max_prims = ${this.limits.maxPrims}`,
        );
      }
      const path = childPath(prim.path, name);
      const childEntries: NodeSpecs[] = [];
      const selections = new Map<string, string>();
      for (const e of entries) {
        const base: Node = { ...e.node, path: childPath(e.node.path, name) };
        this.expand(base, childEntries, selections, path);
      }
      if (childEntries.length === 0) continue;
      const child = new UsdPrim(name, path, prim);
      this.fill(child, childEntries);
      prim.children.push(child);
      prim.childByName.set(name, child);
      this.stage.byPath.set(path, child);
      this.composeChildren(child, childEntries, depth + 1);
    }
  }

  /** appends node (if it has specs) and the nodes of its arcs, in strength order */
  private expand(node: Node, out: NodeSpecs[], selections: Map<string, string>, stagePath: string): void {
    const { specs, layers } = this.specsOf(node);
    if (specs.length === 0) return;
    const key = `${node.stack.id}|${node.path}`;
    if (node.chain.has(key)) {
      throw new UsdError(
        'composition',
        { layer: node.stack.id, primPath: stagePath },
        `composition cycle through <${node.path}>`,
      );
    }
    if (node.depth > this.limits.maxArcDepth) {
      throw new UsdError(
        'composition',
        { layer: node.stack.id, primPath: stagePath },
        `composition arcs nested deeper than max_arc_depth = ${this.limits.maxArcDepth}`,
      );
    }
    out.push({ node, specs, layers });
    const chain = new Set(node.chain).add(key);
    const depth = node.depth + 1;
    // variant selections authored here (stronger nodes registered theirs first)
    for (const s of specs) {
      const v = s.meta.get('variants');
      if (v instanceof UsdDict) {
        for (const [set, sel] of v.entries)
          if (typeof sel === 'string' && !selections.has(set)) selections.set(set, sel);
      }
    }
    const pathArcs = (key: string): string[] =>
      composeListOps(
        specs.map((s) => s.listOp(key)).filter((x): x is ListOp => !!x) as ListOp<string>[],
      ).filter((x): x is string => typeof x === 'string');
    // inherits (classes in this layer stack)
    for (const cls of pathArcs('inherits')) {
      this.expand(
        {
          stack: node.stack,
          path: cls,
          map: (p) => {
            const r = replacePrefix(p, cls, node.path);
            return r === null ? node.map(p) : node.map(r);
          },
          depth,
          chain,
        },
        out,
        selections,
        stagePath,
      );
    }
    // variants
    const setNames = composeListOps(
      specs.map((s) => s.listOp('variantSetNames')).filter((x): x is ListOp => !!x) as ListOp<string>[],
    );
    for (const set of setNames) {
      const sel = selections.get(set);
      if (!sel) continue;
      const vpath = `${node.path}{${set}=${sel}}`;
      this.expand(
        { stack: node.stack, path: vpath, map: (p) => node.map(stripVariants(p)), depth, chain },
        out,
        selections,
        stagePath,
      );
    }
    // references, then payloads
    for (const key of ['references', 'payload']) {
      const ops: ListOp<UsdReference>[] = [];
      for (let i = 0; i < specs.length; i++) {
        const op = specs[i].listOp(key);
        if (!op) continue;
        const from = layers[i].identifier;
        ops.push(
          op.map((r) => {
            if (typeof r === 'string') return null;
            return r.assetPath
              ? new UsdReference(`${from}\u0000${r.assetPath}`, r.primPath, r.layerOffset)
              : r;
          }),
        );
      }
      for (const ref of composeListOps(ops)) {
        let stack = node.stack;
        if (ref.assetPath) {
          const [from, asset] = ref.assetPath.split('\u0000');
          const layer = this.findLayer(from, asset);
          if (!layer) {
            const k = `${key === 'payload' ? 'payload' : 'reference'} @${asset}@`;
            const u = this.unresolved.get(k);
            if (u) u.count++;
            else this.unresolved.set(k, { count: 1, first: stagePath });
            continue;
          }
          stack = this.stackFor(layer, new Set(), 0);
          this.stage.warnings.push(...this.pendingWarnings.splice(0));
        }
        let target = ref.primPath;
        if (!target) {
          const dp = stack.root.info.defaultPrim;
          if (!dp) {
            this.stage.warnings.push(
              `${key} on <${stagePath}> names no prim and ${stack.id} has no defaultPrim`,
            );
            continue;
          }
          target = dp.startsWith('/') ? dp : `/${dp}`;
        }
        const tgt = target;
        const here = node.path;
        const parentMap = node.map;
        this.expand(
          {
            stack,
            path: tgt,
            map: (p) => {
              const r = replacePrefix(stripVariants(p), tgt, stripVariants(here));
              return r === null ? null : parentMap(r);
            },
            depth,
            chain,
          },
          out,
          selections,
          stagePath,
        );
      }
    }
    // specializes (weakest)
    for (const cls of pathArcs('specializes')) {
      this.expand(
        {
          stack: node.stack,
          path: cls,
          map: (p) => {
            const r = replacePrefix(p, cls, node.path);
            return r === null ? node.map(p) : node.map(r);
          },
          depth,
          chain,
        },
        out,
        selections,
        stagePath,
      );
    }
  }

  /** fills a composed prim from its node specs */
  private fill(prim: UsdPrim, entries: NodeSpecs[]): void {
    let spec: Specifier | undefined;
    const apiOps: ListOp<string>[] = [];
    for (const e of entries) {
      for (let i = 0; i < e.specs.length; i++) {
        const s = e.specs[i];
        prim.sources.push({ layer: e.layers[i], spec: s });
        if (!prim.typeName && s.typeName) prim.typeName = s.typeName;
        if (s.specifier !== 'over' && spec === undefined) spec = s.specifier;
        const api = s.listOp('apiSchemas');
        if (api) apiOps.push(api as ListOp<string>);
        for (const [name, p] of s.props) {
          let cp = prim.props.get(name);
          if (!cp) {
            cp = new UsdProperty(name);
            prim.props.set(name, cp);
          }
          cp.specs.push({ spec: p, map: e.node.map, layer: e.layers[i] });
        }
      }
    }
    prim.specifier = spec ?? 'over';
    prim.apiSchemas = composeListOps(apiOps);
  }
}

/** a path value's string, for relationship-like metadata */
export function pathOf(v: UsdValue | undefined): string | undefined {
  return v instanceof SdfPathValue ? v.path : undefined;
}
