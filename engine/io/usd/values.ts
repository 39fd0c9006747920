/**
 * The value model shared by the USDA parser, the USDC crate reader and composition.
 *
 * - `null` is a blocked value (`None`, SdfValueBlock).
 * - Scalars are `boolean`, `number` (every numeric scalar; `inf`, `-inf`, `nan` included) and
 *   `string` (strings and tokens alike; the property's type name tells them apart).
 * - Tuples (vectors, quaternions, matrices) are plain `number[]`. Quaternions are stored in the text
 *   order of GfQuat, `(w, x, y, z)`, whatever the source; matrices are flattened row-major (USD's
 *   row-vector convention: the translation is in elements 12..14).
 * - Numeric arrays (of scalars or tuples) are {@link NumArray}: one flat typed array plus the tuple
 *   width, so large arrays (points, indices) cost one allocation.
 * - Other arrays (tokens, strings, asset paths, paths) are {@link UsdList}.
 */

/** a numeric array flattened into one typed array; `width` numbers per element */
export class NumArray {
  readonly kind = 'num[]' as const;
  constructor(
    readonly data: Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array,
    readonly width: number,
  ) {}
  /** number of elements (tuples) */
  get length(): number {
    return this.width > 0 ? this.data.length / this.width : 0;
  }
}

/** an array of non-numeric values (tokens, strings, asset paths, paths, dictionaries) */
export class UsdList {
  readonly kind = 'list' as const;
  constructor(readonly items: UsdValue[]) {}
}

/** an asset path `@...@` */
export class AssetPath {
  readonly kind = 'asset' as const;
  constructor(readonly path: string) {}
}

/** a path value `</a/b.c>` (relationship targets, connections, reference targets) */
export class SdfPathValue {
  readonly kind = 'path' as const;
  constructor(readonly path: string) {}
}

/** a dictionary (customData, assetInfo, variant selections); insertion-ordered */
export class UsdDict {
  readonly kind = 'dict' as const;
  constructor(readonly entries: Map<string, UsdValue> = new Map()) {}
  get(key: string): UsdValue | undefined {
    return this.entries.get(key);
  }
}

/** a layer offset (`offset = 10; scale = 2`) of a sublayer, reference or payload */
export interface LayerOffset {
  offset: number;
  scale: number;
}

/** a reference or payload arc: `@asset@</prim>`; an empty asset means an internal arc */
export class UsdReference {
  readonly kind = 'ref' as const;
  constructor(
    /** '' for an internal reference */
    readonly assetPath: string,
    /** '' means the target layer's defaultPrim */
    readonly primPath: string,
    readonly layerOffset: LayerOffset = { offset: 0, scale: 1 },
  ) {}
}

/** the items a list-op value may hold */
export type ListOpItem = string | UsdReference;

/**
 * An SdfListOp: explicit items, or prepend/append/delete (and the legacy add/reorder) edits.
 * Composition applies weaker ops first, see {@link composeListOps}.
 */
export class ListOp<T extends ListOpItem = ListOpItem> {
  readonly kind = 'listop' as const;
  /** set when the op is explicit (`apiSchemas = [...]`); then only `explicit` matters */
  isExplicit = false;
  explicit: T[] = [];
  prepend: T[] = [];
  append: T[] = [];
  delete: T[] = [];
  add: T[] = [];
  order: T[] = [];

  /** an explicit list op */
  static explicit<T extends ListOpItem>(items: T[]): ListOp<T> {
    const op = new ListOp<T>();
    op.isExplicit = true;
    op.explicit = items;
    return op;
  }

  /** whether the op has no effect at all */
  isEmpty(): boolean {
    return (
      !this.isExplicit &&
      this.prepend.length === 0 &&
      this.append.length === 0 &&
      this.delete.length === 0 &&
      this.add.length === 0
    );
  }

  /** a copy with every item mapped (paths remapped through a composition arc) */
  map<U extends ListOpItem>(f: (x: T) => U | null): ListOp<U> {
    const out = new ListOp<U>();
    out.isExplicit = this.isExplicit;
    const m = (a: T[]) => {
      const r: U[] = [];
      for (const x of a) {
        const y = f(x);
        if (y !== null) r.push(y);
      }
      return r;
    };
    out.explicit = m(this.explicit);
    out.prepend = m(this.prepend);
    out.append = m(this.append);
    out.delete = m(this.delete);
    out.add = m(this.add);
    out.order = m(this.order);
    return out;
  }
}

/** every value the reader produces */
export type UsdValue =
  | null
  | boolean
  | number
  | string
  | number[]
  | NumArray
  | UsdList
  | AssetPath
  | SdfPathValue
  | UsdDict
  | UsdReference
  | ListOp;

function itemKey(x: ListOpItem): string {
  return typeof x === 'string' ? x : `${x.assetPath}\u0000${x.primPath}`;
}

/**
 * Composes list ops given strongest first into the resulting item list (SdfListOp::ApplyOperations
 * applied from the weakest opinion up): an explicit op replaces everything weaker; delete removes;
 * prepend/append move items to the front/back; the legacy `add` appends missing items.
 */
export function composeListOps<T extends ListOpItem>(opsStrongestFirst: readonly ListOp<T>[]): T[] {
  let result: T[] = [];
  for (let i = opsStrongestFirst.length - 1; i >= 0; i--) {
    const op = opsStrongestFirst[i];
    if (op.isExplicit) {
      result = dedupe(op.explicit);
      continue;
    }
    if (op.delete.length) {
      const del = new Set(op.delete.map(itemKey));
      result = result.filter((x) => !del.has(itemKey(x)));
    }
    for (const x of op.add) if (!result.some((y) => itemKey(y) === itemKey(x))) result.push(x);
    if (op.prepend.length) {
      const pre = dedupe(op.prepend);
      const keys = new Set(pre.map(itemKey));
      result = [...pre, ...result.filter((x) => !keys.has(itemKey(x)))];
    }
    if (op.append.length) {
      const app = dedupe(op.append);
      const keys = new Set(app.map(itemKey));
      result = [...result.filter((x) => !keys.has(itemKey(x))), ...app];
    }
  }
  return result;
}

function dedupe<T extends ListOpItem>(items: readonly T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const x of items) {
    const k = itemKey(x);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(x);
    }
  }
  return out;
}

/** the value as a finite-or-not number, or undefined when it is not a number */
export function asNumber(v: UsdValue | undefined): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
}

/** the value as a numeric tuple of the given length, or undefined */
export function asTuple(v: UsdValue | undefined, n: number): number[] | undefined {
  if (Array.isArray(v) && v.length === n) return v;
  if (v instanceof NumArray && v.data.length === n) return Array.from(v.data);
  return undefined;
}

/** the value as a string or token, or undefined */
export function asString(v: UsdValue | undefined): string | undefined {
  if (typeof v === 'string') return v;
  if (v instanceof AssetPath) return v.path;
  return undefined;
}

/** the value as a list of strings/tokens, or undefined */
export function asStringList(v: UsdValue | undefined): string[] | undefined {
  if (v instanceof UsdList) {
    const out: string[] = [];
    for (const x of v.items) {
      const s = asString(x);
      if (s !== undefined) out.push(s);
      else if (x instanceof SdfPathValue) out.push(x.path);
    }
    return out;
  }
  if (typeof v === 'string') return [v];
  return undefined;
}
