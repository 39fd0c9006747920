/**
 * The layer data model (Sdf level): a tree of prim specs with their properties and metadata, as
 * read from one USDA or USDC file. Composition ({@link ./compose}) turns layers into a stage.
 */
import type { ListOp, UsdReference, UsdValue } from './values';

export type Specifier = 'def' | 'over' | 'class';

/** a property (attribute or relationship) spec */
export interface PropSpec {
  readonly name: string;
  readonly kind: 'attribute' | 'relationship';
  /** value type name (`float3`, `token[]`, …); '' for relationships */
  typeName: string;
  custom: boolean;
  variability: 'varying' | 'uniform';
  /**
   * the default value: undefined when not authored, null when blocked (`None`). For crate layers this
   * is decoded lazily on first access.
   */
  readonly value: UsdValue | undefined;
  /** the first time sample (by time), when time samples are authored */
  readonly firstSample: UsdValue | undefined;
  /** relationship targets (`rel x = </a>`, `prepend rel x = ...`) */
  targets?: ListOp<string>;
  /** attribute connections (`x.connect = </a.b>`) */
  connections?: ListOp<string>;
  /** property metadata (`allowedTokens`, `interpolation`, `customData`, …) */
  meta?: Map<string, UsdValue>;
}

/** a simple eagerly-valued property spec */
export class PropSpecData implements PropSpec {
  typeName: string;
  custom = false;
  variability: 'varying' | 'uniform' = 'varying';
  value: UsdValue | undefined = undefined;
  firstSample: UsdValue | undefined = undefined;
  targets?: ListOp<string>;
  connections?: ListOp<string>;
  meta?: Map<string, UsdValue>;
  constructor(
    readonly name: string,
    readonly kind: 'attribute' | 'relationship',
    typeName = '',
  ) {
    this.typeName = typeName;
  }
}

/** a prim spec (or a variant spec, which has the same content) */
export class PrimSpec {
  specifier: Specifier = 'over';
  typeName = '';
  /**
   * prim metadata: plain values (`instanceable`, `kind`, `active`, `customData`, `variants` as a
   * UsdDict of selections, …) and list ops (`apiSchemas`, `references`, `payload`, `inherits`,
   * `specializes`, `variantSetNames`)
   */
  readonly meta = new Map<string, UsdValue>();
  readonly props = new Map<string, PropSpec>();
  readonly children: PrimSpec[] = [];
  readonly childByName = new Map<string, PrimSpec>();
  /** variant sets: set name → variant name → variant spec */
  readonly variantSets = new Map<string, Map<string, PrimSpec>>();

  constructor(
    readonly name: string,
    /** the spec's path in its layer ('/' for the pseudo-root; variant specs use `/P{set=sel}`) */
    readonly path: string,
  ) {}

  /** adds (or returns the existing) child spec */
  child(name: string): PrimSpec {
    let c = this.childByName.get(name);
    if (!c) {
      c = new PrimSpec(name, this.path === '/' ? `/${name}` : `${this.path}/${name}`);
      this.children.push(c);
      this.childByName.set(name, c);
    }
    return c;
  }

  /** adds (or returns) a variant spec */
  variant(set: string, name: string): PrimSpec {
    let s = this.variantSets.get(set);
    if (!s) {
      s = new Map();
      this.variantSets.set(set, s);
    }
    let v = s.get(name);
    if (!v) {
      v = new PrimSpec(name, `${this.path}{${set}=${name}}`);
      v.specifier = 'over';
      s.set(name, v);
    }
    return v;
  }

  /** a list-op metadata field, if authored as a list op */
  listOp(key: string): ListOp | undefined {
    const v = this.meta.get(key);
    return v !== null && typeof v === 'object' && 'kind' in v && v.kind === 'listop'
      ? (v as ListOp)
      : undefined;
  }
}

/** layer-level metadata the importer uses (everything else is kept in `meta`) */
export interface LayerInfo {
  upAxis?: string;
  metersPerUnit?: number;
  kilogramsPerUnit?: number;
  defaultPrim?: string;
  /** sublayer asset paths, strongest first */
  subLayers: string[];
}

/** one parsed layer */
export class Layer {
  /** the pseudo-root; its children are the root prims */
  readonly root = new PrimSpec('', '/');
  readonly info: LayerInfo = { subLayers: [] };
  /** every layer metadata entry as authored */
  readonly meta = new Map<string, UsdValue>();
  constructor(
    /** the identifier the resolver read it from */
    readonly identifier: string,
    readonly format: 'usda' | 'usdc',
  ) {}

  /** the prim spec at an absolute prim path (no variant selections), if any */
  primAt(path: string): PrimSpec | undefined {
    if (path === '/' || path === '') return this.root;
    let cur: PrimSpec | undefined = this.root;
    let i = 1;
    while (cur && i <= path.length) {
      let j = i;
      // a variant selection element `{set=sel}` directly follows a prim name
      while (j < path.length && path[j] !== '/' && path[j] !== '{') j++;
      const name = path.slice(i, j);
      if (name) cur = cur.childByName.get(name);
      if (!cur) return undefined;
      while (j < path.length && path[j] === '{') {
        const k = path.indexOf('}', j);
        if (k < 0) return undefined;
        const sel = path.slice(j + 1, k);
        const eq = sel.indexOf('=');
        cur = cur.variantSets.get(sel.slice(0, eq))?.get(sel.slice(eq + 1));
        if (!cur) return undefined;
        j = k + 1;
        if (j < path.length && path[j] !== '/') {
          // a prim directly after a variant selection: `/P{v=a}Child`
          let e = j;
          while (e < path.length && path[e] !== '/' && path[e] !== '{') e++;
          cur = cur.childByName.get(path.slice(j, e));
          if (!cur) return undefined;
          j = e;
        }
      }
      i = j + 1;
    }
    return cur;
  }

  /** every reference/payload asset path and sublayer authored anywhere in the layer (for prefetching) */
  collectArcAssets(): string[] {
    const out = new Set<string>(this.info.subLayers);
    const visit = (p: PrimSpec) => {
      for (const key of ['references', 'payload']) {
        const op = p.listOp(key);
        if (op) {
          for (const list of [op.explicit, op.prepend, op.append, op.add]) {
            for (const r of list) if (typeof r !== 'string' && r.assetPath) out.add(r.assetPath);
          }
        }
      }
      for (const c of p.children) visit(c);
      for (const set of p.variantSets.values()) for (const v of set.values()) visit(v);
    };
    visit(this.root);
    return [...out];
  }
}

/** a reference-like arc read from `references` or `payload` metadata */
export type ArcRef = UsdReference;
