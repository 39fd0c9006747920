/**
 * USDA (text layer) parser: header metadata, def/over/class prims with types and metadata, attribute
 * and relationship specs (arrays, tuples, matrices, asset paths, paths, connections, time samples,
 * custom/uniform, list-op edits), variant sets, dictionaries, comments and escapes. Produces a
 * {@link Layer}; every error is a {@link UsdError} of kind 'syntax' with line and column.
 *
 * The parser is a hand-written recursive descent over char codes; numeric arrays are parsed straight
 * into one growable Float64Array.
 */
import { DEFAULT_USD_LIMITS, UsdError, type UsdLimits } from './errors';
import { Layer, PrimSpec, PropSpecData, type Specifier } from './layer';
import {
  AssetPath,
  ListOp,
  NumArray,
  SdfPathValue,
  UsdDict,
  UsdList,
  UsdReference,
  type LayerOffset,
  type UsdValue,
} from './values';

const LIST_OP_KEYWORDS = new Set(['prepend', 'append', 'delete', 'add', 'reorder']);
type ListOpKind = 'explicit' | 'prepend' | 'append' | 'delete' | 'add' | 'reorder';

const C_NL = 10,
  C_CR = 13,
  C_SP = 32,
  C_TAB = 9,
  C_HASH = 35,
  C_SLASH = 47,
  C_STAR = 42,
  C_QUOTE = 34,
  C_APOS = 39,
  C_AT = 64,
  C_LT = 60,
  C_LPAR = 40,
  C_RPAR = 41,
  C_LBR = 91,
  C_RBR = 93,
  C_LBRACE = 123,
  C_RBRACE = 125,
  C_COMMA = 44,
  C_EQ = 61,
  C_SEMI = 59,
  C_COLON = 58,
  C_DOT = 46,
  C_MINUS = 45,
  C_PLUS = 43,
  C_BSLASH = 92;

function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c > 127;
}
function isIdentChar(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** parses USDA text into a layer */
export function parseUsda(text: string, identifier: string, limits: Partial<UsdLimits> = {}): Layer {
  return new UsdaParser(text, identifier, { ...DEFAULT_USD_LIMITS, ...limits }).parseLayer();
}

class UsdaParser {
  private pos = 0;
  private line = 1;
  private lineStart = 0;
  private depth = 0;
  private readonly n: number;
  private readonly layer: Layer;

  constructor(
    private readonly s: string,
    private readonly id: string,
    private readonly limits: UsdLimits,
  ) {
    this.n = s.length;
    this.layer = new Layer(id, 'usda');
  }

  // ------------------------------------------------------------------ errors and lexing

  private error(reason: string, at = this.pos): UsdError {
    // recompute line/column for an earlier position when needed
    let line = this.line,
      col = at - this.lineStart + 1;
    if (at < this.lineStart) {
      line = 1;
      let ls = 0;
      for (let i = 0; i < at; i++) {
        if (this.s.charCodeAt(i) === C_NL) {
          line++;
          ls = i + 1;
        }
      }
      col = at - ls + 1;
    }
    return new UsdError('syntax', { layer: this.id, line, column: col }, reason);
  }

  /** throws when the token that started at `start` and reaches `end` is longer than max_token_chars */
  private tokenBound(what: string, start: number, end: number): void {
    if (end - start > this.limits.maxTokenChars)
      throw this.error(
        `${what} of ${end - start} characters or more exceeds max_token_chars = ${this.limits.maxTokenChars}`,
        start,
      );
  }

  private describeHere(): string {
    if (this.pos >= this.n) return 'end of file';
    const c = this.s[this.pos];
    const word = /^[^\s]{1,20}/.exec(this.s.slice(this.pos, this.pos + 20));
    return c === '\n' ? 'end of line' : `'${word ? word[0] : c}'`;
  }

  /** skips whitespace and comments (`#`, `//`, `/* *\/`) */
  private ws(): void {
    const s = this.s;
    while (this.pos < this.n) {
      const c = s.charCodeAt(this.pos);
      if (c === C_NL) {
        this.pos++;
        this.line++;
        this.lineStart = this.pos;
      } else if (c === C_SP || c === C_TAB || c === C_CR || c === 0xfeff) {
        this.pos++;
      } else if (c === C_HASH) {
        while (this.pos < this.n && s.charCodeAt(this.pos) !== C_NL) this.pos++;
      } else if (c === C_SLASH && s.charCodeAt(this.pos + 1) === C_SLASH) {
        while (this.pos < this.n && s.charCodeAt(this.pos) !== C_NL) this.pos++;
      } else if (c === C_SLASH && s.charCodeAt(this.pos + 1) === C_STAR) {
        const start = this.pos;
        this.pos += 2;
        while (
          this.pos < this.n &&
          !(s.charCodeAt(this.pos) === C_STAR && s.charCodeAt(this.pos + 1) === C_SLASH)
        ) {
          if (s.charCodeAt(this.pos) === C_NL) {
            this.line++;
            this.lineStart = this.pos + 1;
          }
          this.pos++;
        }
        if (this.pos >= this.n) throw this.error('unterminated /* comment', start);
        this.pos += 2;
      } else break;
    }
  }

  private peek(): number {
    this.ws();
    return this.pos < this.n ? this.s.charCodeAt(this.pos) : -1;
  }

  private eat(c: number): boolean {
    if (this.peek() === c) {
      this.pos++;
      return true;
    }
    return false;
  }

  private expect(c: number, what: string): void {
    if (!this.eat(c)) throw this.error(`expected ${what}, found ${this.describeHere()}`);
  }

  /** an identifier; namespaced (`a:b:c`) when `namespaced` */
  private ident(namespaced = false): string {
    this.ws();
    const start = this.pos;
    const s = this.s;
    if (this.pos >= this.n || !isIdentStart(s.charCodeAt(this.pos))) {
      throw this.error(`expected an identifier, found ${this.describeHere()}`);
    }
    this.pos++;
    while (this.pos < this.n) {
      const c = s.charCodeAt(this.pos);
      if (isIdentChar(c) || (namespaced && c === C_COLON && isIdentStart(s.charCodeAt(this.pos + 1))))
        this.pos++;
      else break;
    }
    this.tokenBound('an identifier', start, this.pos);
    return s.slice(start, this.pos);
  }

  /** the next identifier without consuming it, or '' */
  private peekIdent(): string {
    this.ws();
    const save = this.pos;
    if (this.pos >= this.n || !isIdentStart(this.s.charCodeAt(this.pos))) return '';
    const w = this.ident(true);
    this.pos = save;
    return w;
  }

  private string(): string {
    this.ws();
    const s = this.s;
    const q = s.charCodeAt(this.pos);
    if (q !== C_QUOTE && q !== C_APOS) throw this.error(`expected a string, found ${this.describeHere()}`);
    const start = this.pos;
    const triple = s.charCodeAt(this.pos + 1) === q && s.charCodeAt(this.pos + 2) === q;
    this.pos += triple ? 3 : 1;
    let out = '';
    let chunk = this.pos;
    while (true) {
      if (this.pos >= this.n) throw this.error('unterminated string', start);
      const c = s.charCodeAt(this.pos);
      if (c === q && (!triple || (s.charCodeAt(this.pos + 1) === q && s.charCodeAt(this.pos + 2) === q))) {
        this.tokenBound('a string', start, this.pos);
        out += s.slice(chunk, this.pos);
        this.pos += triple ? 3 : 1;
        return out;
      }
      if (c === C_NL) {
        if (!triple) throw this.error('newline in a single-quoted string', start);
        this.tokenBound('a string', start, this.pos);
        this.line++;
        this.lineStart = this.pos + 1;
        this.pos++;
        continue;
      }
      if (c === C_BSLASH) {
        this.tokenBound('a string', start, this.pos);
        out += s.slice(chunk, this.pos);
        this.pos++;
        out += this.escape();
        chunk = this.pos;
        continue;
      }
      this.pos++;
    }
  }

  private escape(): string {
    const s = this.s;
    const e = s[this.pos++];
    switch (e) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case 'a':
        return '\x07';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'v':
        return '\v';
      case '\\':
      case '"':
      case "'":
        return e;
      case 'x': {
        const m = /^[0-9a-fA-F]{1,2}/.exec(s.slice(this.pos, this.pos + 2));
        if (!m) throw this.error('bad \\x escape', this.pos - 2);
        this.pos += m[0].length;
        return String.fromCharCode(parseInt(m[0], 16));
      }
      default:
        if (e !== undefined && e >= '0' && e <= '7') {
          const m = /^[0-7]{1,3}/.exec(s.slice(this.pos - 1, this.pos + 2))!;
          this.pos += m[0].length - 1;
          return String.fromCharCode(parseInt(m[0], 8));
        }
        if (e === undefined) throw this.error('unterminated string');
        // unknown escapes keep the character (Sdf behaviour)
        return e;
    }
  }

  /** `@path@` or `@@@path@@@` */
  private assetPath(): string {
    this.ws();
    const s = this.s;
    const start = this.pos;
    if (s.startsWith('@@@', this.pos)) {
      const end = s.indexOf('@@@', this.pos + 3);
      if (end < 0) throw this.error('unterminated @@@asset path@@@', start);
      this.tokenBound('an asset path', start, end);
      this.pos = end + 3;
      return s.slice(start + 3, end).replace(/\\@@@/g, '@@@');
    }
    if (s.charCodeAt(this.pos) !== C_AT)
      throw this.error(`expected an asset path, found ${this.describeHere()}`);
    const end = s.indexOf('@', this.pos + 1);
    const nl = s.indexOf('\n', this.pos + 1);
    if (end < 0 || (nl >= 0 && nl < end)) throw this.error('unterminated @asset path@', start);
    this.tokenBound('an asset path', start, end);
    this.pos = end + 1;
    return s.slice(start + 1, end);
  }

  /** `</a/b.c>` */
  private pathLiteral(): string {
    this.ws();
    const start = this.pos;
    if (this.s.charCodeAt(this.pos) !== C_LT)
      throw this.error(`expected a path </...>, found ${this.describeHere()}`);
    const end = this.s.indexOf('>', this.pos + 1);
    const nl = this.s.indexOf('\n', this.pos + 1);
    if (end < 0 || (nl >= 0 && nl < end)) throw this.error('unterminated path <...>', start);
    this.tokenBound('a path', start, end);
    this.pos = end + 1;
    return this.s.slice(start + 1, end).trim();
  }

  /** a number (`1`, `-2.5e3`, `inf`, `-inf`, `nan`), or NaN-with-false when not at a number */
  private tryNumber(): number | undefined {
    this.ws();
    const s = this.s;
    const start = this.pos;
    let p = this.pos;
    let c = s.charCodeAt(p);
    if (c === C_MINUS || c === C_PLUS) {
      p++;
      c = s.charCodeAt(p);
    }
    if (c === 105 /* i */ && s.startsWith('inf', p) && !isIdentChar(s.charCodeAt(p + 3))) {
      this.pos = p + 3;
      return s.charCodeAt(start) === C_MINUS ? -Infinity : Infinity;
    }
    if (c === 110 /* n */ && s.startsWith('nan', p) && !isIdentChar(s.charCodeAt(p + 3))) {
      this.pos = p + 3;
      return NaN;
    }
    if (!isDigit(c) && !(c === C_DOT && isDigit(s.charCodeAt(p + 1)))) return undefined;
    while (isDigit(s.charCodeAt(p))) p++;
    if (s.charCodeAt(p) === C_DOT) {
      p++;
      while (isDigit(s.charCodeAt(p))) p++;
    }
    c = s.charCodeAt(p);
    if (c === 101 || c === 69) {
      let q = p + 1;
      const d = s.charCodeAt(q);
      if (d === C_MINUS || d === C_PLUS) q++;
      if (isDigit(s.charCodeAt(q))) {
        while (isDigit(s.charCodeAt(q))) q++;
        p = q;
      }
    }
    this.tokenBound('a number', start, p);
    this.pos = p;
    return Number(s.slice(start, p));
  }

  private number(): number {
    const v = this.tryNumber();
    if (v === undefined) throw this.error(`expected a number, found ${this.describeHere()}`);
    return v;
  }

  private enter(): void {
    if (++this.depth > this.limits.maxNesting)
      throw this.error(`nesting deeper than max_usda_nesting = ${this.limits.maxNesting}`);
  }

  // ------------------------------------------------------------------ layer

  parseLayer(): Layer {
    const s = this.s;
    if (!s.startsWith('#usda')) {
      throw new UsdError(
        'syntax',
        { layer: this.id, line: 1, column: 1 },
        "not a USDA layer: missing '#usda 1.0' header",
      );
    }
    const eol = s.indexOf('\n');
    const header = s.slice(5, eol < 0 ? s.length : eol).trim();
    if (!/^\d+\.\d+/.test(header))
      throw new UsdError('syntax', { layer: this.id, line: 1, column: 6 }, `bad version '${header}'`);
    this.pos = eol < 0 ? s.length : eol;
    if (this.peek() === C_LPAR) this.layerMetadata();
    while (this.peek() !== -1) {
      const w = this.peekIdent();
      if (w === 'def' || w === 'over' || w === 'class') this.prim(this.layer.root);
      else throw this.error(`expected 'def', 'over' or 'class', found ${this.describeHere()}`);
    }
    return this.layer;
  }

  private layerMetadata(): void {
    this.expect(C_LPAR, "'('");
    const L = this.layer;
    while (true) {
      const c = this.peek();
      if (c === C_RPAR) {
        this.pos++;
        break;
      }
      if (c === C_SEMI) {
        this.pos++;
        continue;
      }
      if (c === C_QUOTE || c === C_APOS) {
        L.meta.set('doc', this.string());
        continue;
      }
      const keyPos = this.pos;
      let key = this.ident();
      if (LIST_OP_KEYWORDS.has(key)) key = this.ident(); // list-op edits on layer metadata: treat as explicit
      this.expect(C_EQ, "'='");
      if (key === 'subLayers') {
        L.info.subLayers = this.subLayers();
        L.meta.set('subLayers', new UsdList(L.info.subLayers.map((p) => new AssetPath(p))));
        continue;
      }
      const v = this.value();
      L.meta.set(key, v);
      if (key === 'upAxis') {
        if (typeof v !== 'string') throw this.error('upAxis must be a string', keyPos);
        L.info.upAxis = v;
      } else if (key === 'metersPerUnit') {
        if (typeof v !== 'number') throw this.error('metersPerUnit must be a number', keyPos);
        L.info.metersPerUnit = v;
      } else if (key === 'kilogramsPerUnit') {
        if (typeof v !== 'number') throw this.error('kilogramsPerUnit must be a number', keyPos);
        L.info.kilogramsPerUnit = v;
      } else if (key === 'defaultPrim') {
        if (typeof v !== 'string') throw this.error('defaultPrim must be a string', keyPos);
        L.info.defaultPrim = v;
      }
    }
  }

  private subLayers(): string[] {
    this.expect(C_LBR, "'['");
    const out: string[] = [];
    while (true) {
      const c = this.peek();
      if (c === C_RBR) {
        this.pos++;
        return out;
      }
      if (c === C_COMMA) {
        this.pos++;
        continue;
      }
      out.push(this.assetPath());
      if (this.peek() === C_LPAR) this.layerOffset();
    }
  }

  /** `( offset = 1; scale = 2 )` */
  private layerOffset(): LayerOffset {
    this.expect(C_LPAR, "'('");
    const lo: LayerOffset = { offset: 0, scale: 1 };
    while (true) {
      const c = this.peek();
      if (c === C_RPAR) {
        this.pos++;
        return lo;
      }
      if (c === C_SEMI || c === C_COMMA) {
        this.pos++;
        continue;
      }
      const key = this.ident();
      this.expect(C_EQ, "'='");
      if (key === 'offset') lo.offset = this.number();
      else if (key === 'scale') lo.scale = this.number();
      else this.value();
    }
  }

  // ------------------------------------------------------------------ prims

  private prim(parent: PrimSpec): void {
    this.enter();
    const specifier = this.ident() as Specifier;
    let typeName = '';
    const c = this.peek();
    if (c !== C_QUOTE && c !== C_APOS) {
      typeName = this.ident();
      while (this.s.charCodeAt(this.pos) === C_DOT) {
        this.pos++;
        typeName += '.' + this.ident();
      }
    }
    const namePos = this.pos;
    const name = this.string();
    if (!/^[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*$/.test(name))
      throw this.error(`invalid prim name '${name}'`, namePos);
    const spec = parent.child(name);
    spec.specifier = specifier;
    if (typeName) spec.typeName = typeName;
    if (this.peek() === C_LPAR) this.primMetadata(spec);
    this.expect(C_LBRACE, "'{'");
    this.primBody(spec);
    this.depth--;
  }

  private primBody(spec: PrimSpec): void {
    while (true) {
      const c = this.peek();
      if (c === C_RBRACE) {
        this.pos++;
        return;
      }
      if (c === -1) throw this.error("unexpected end of file: missing '}'");
      if (c === C_SEMI) {
        this.pos++;
        continue;
      }
      const w = this.peekIdent();
      if (w === 'def' || w === 'over' || w === 'class') {
        this.prim(spec);
      } else if (w === 'variantSet') {
        this.ident();
        this.variantSet(spec);
      } else if (w === 'reorder') {
        const save = { pos: this.pos, line: this.line, lineStart: this.lineStart };
        this.ident();
        const what = this.peekIdent();
        if (what === 'nameChildren' || what === 'properties') {
          this.ident();
          this.expect(C_EQ, "'='");
          this.value();
        } else {
          Object.assign(this, save);
          this.property(spec);
        }
      } else if (w !== '') {
        this.property(spec);
      } else {
        throw this.error(`expected a prim, property or '}', found ${this.describeHere()}`);
      }
    }
  }

  private variantSet(spec: PrimSpec): void {
    const setName = this.string();
    this.expect(C_EQ, "'='");
    this.expect(C_LBRACE, "'{'");
    this.enter();
    while (true) {
      const c = this.peek();
      if (c === C_RBRACE) {
        this.pos++;
        break;
      }
      const vname = this.string();
      const v = spec.variant(setName, vname);
      if (this.peek() === C_LPAR) this.primMetadata(v);
      this.expect(C_LBRACE, "'{'");
      this.primBody(v);
    }
    this.depth--;
    // record the set name like `variantSets` metadata would
    const op = spec.listOp('variantSetNames') ?? new ListOp();
    if (!op.isExplicit && !op.prepend.includes(setName) && !op.append.includes(setName))
      op.append.push(setName);
    spec.meta.set('variantSetNames', op);
  }

  private primMetadata(spec: PrimSpec): void {
    this.expect(C_LPAR, "'('");
    this.enter();
    while (true) {
      const c = this.peek();
      if (c === C_RPAR) {
        this.pos++;
        break;
      }
      if (c === C_SEMI) {
        this.pos++;
        continue;
      }
      if (c === C_QUOTE || c === C_APOS) {
        spec.meta.set('doc', this.string());
        continue;
      }
      let opKind: ListOpKind = 'explicit';
      let key = this.ident();
      if (LIST_OP_KEYWORDS.has(key)) {
        opKind = key as ListOpKind;
        key = this.ident();
      }
      this.expect(C_EQ, "'='");
      switch (key) {
        case 'apiSchemas':
        case 'variantSets':
          this.mergeListOp(
            spec,
            key === 'variantSets' ? 'variantSetNames' : key,
            opKind,
            this.tokenListValue(),
          );
          break;
        case 'references':
        case 'payload':
          this.mergeListOp(spec, key, opKind, this.referenceListValue(key));
          break;
        case 'inherits':
        case 'specializes':
          this.mergeListOp(spec, key, opKind, this.pathListValue());
          break;
        case 'variants': {
          const v = this.value();
          if (!(v instanceof UsdDict)) throw this.error('variants must be a dictionary of selections');
          spec.meta.set('variants', v);
          break;
        }
        default:
          spec.meta.set(key, this.value());
      }
    }
    this.depth--;
  }

  private mergeListOp<T extends string | UsdReference>(
    spec: PrimSpec,
    key: string,
    kind: ListOpKind,
    items: T[] | null,
  ): void {
    let op = spec.listOp(key) as ListOp<T> | undefined;
    if (!op) {
      op = new ListOp<T>();
      spec.meta.set(key, op as ListOp);
    }
    if (items === null) {
      // `None`: an explicit empty list
      op.isExplicit = true;
      op.explicit = [];
      return;
    }
    switch (kind) {
      case 'explicit':
        op.isExplicit = true;
        op.explicit = items;
        break;
      case 'reorder':
        op.order = items;
        break;
      default:
        op[kind] = items;
    }
  }

  /** `"a"` | `["a", "b"]` | `None` */
  private tokenListValue(): string[] | null {
    this.ws();
    const at = this.pos;
    const v = this.value();
    if (v === null) return null;
    if (typeof v === 'string') return [v];
    if (v instanceof NumArray && v.data.length === 0) return [];
    if (v instanceof UsdList && v.items.every((x) => typeof x === 'string')) return v.items as string[];
    throw this.error('expected a token or a list of tokens', at);
  }

  /** `</p>` | `[</a>, </b>]` | `None` */
  private pathListValue(): string[] | null {
    const c = this.peek();
    if (c === C_LT) return [this.pathLiteral()];
    if (c === C_LBR) {
      this.pos++;
      const out: string[] = [];
      while (true) {
        const d = this.peek();
        if (d === C_RBR) {
          this.pos++;
          return out;
        }
        if (d === C_COMMA) {
          this.pos++;
          continue;
        }
        out.push(this.pathLiteral());
      }
    }
    if (this.peekIdent() === 'None') {
      this.ident();
      return null;
    }
    throw this.error(`expected a path or a list of paths, found ${this.describeHere()}`);
  }

  /** one reference: `@a@</p> (offset = 1)` | `@a@` | `</p>` */
  private reference(): UsdReference {
    let asset = '';
    let prim = '';
    const c = this.peek();
    if (c === C_AT) {
      asset = this.assetPath();
      if (this.s.charCodeAt(this.pos) === C_LT) prim = this.pathLiteral();
    } else if (c === C_LT) {
      prim = this.pathLiteral();
    } else throw this.error(`expected a reference @asset@</path>, found ${this.describeHere()}`);
    let lo: LayerOffset | undefined;
    if (this.peek() === C_LPAR) lo = this.layerOffset();
    return new UsdReference(asset, prim, lo);
  }

  private referenceListValue(key: string): UsdReference[] | null {
    const c = this.peek();
    if (c === C_LBR) {
      this.pos++;
      const out: UsdReference[] = [];
      while (true) {
        const d = this.peek();
        if (d === C_RBR) {
          this.pos++;
          return out;
        }
        if (d === C_COMMA) {
          this.pos++;
          continue;
        }
        out.push(this.reference());
      }
    }
    if (this.peekIdent() === 'None') {
      this.ident();
      return null;
    }
    if (c === C_AT || c === C_LT) return [this.reference()];
    throw this.error(`expected ${key}: @asset@</path>, a list or None; found ${this.describeHere()}`);
  }

  // ------------------------------------------------------------------ properties

  private property(spec: PrimSpec): void {
    const startPos = this.pos;
    let opKind: ListOpKind = 'explicit';
    let w = this.ident();
    if (LIST_OP_KEYWORDS.has(w)) {
      opKind = w as ListOpKind;
      w = this.ident();
    }
    let custom = false;
    let variability: 'varying' | 'uniform' = 'varying';
    while (w === 'custom' || w === 'uniform' || w === 'varying' || w === 'config') {
      if (w === 'custom') custom = true;
      if (w === 'uniform' || w === 'config') variability = 'uniform';
      w = this.ident();
    }
    const isRel = w === 'rel';
    let typeName = '';
    if (!isRel) {
      typeName = w;
      if (this.s.charCodeAt(this.pos) === C_LBR) {
        this.pos++;
        this.expect(C_RBR, "']'");
        typeName += '[]';
      }
    }
    const name = this.ident(true);
    let suffix = '';
    if (this.s.charCodeAt(this.pos) === C_DOT) {
      this.pos++;
      suffix = this.ident();
      if (suffix !== 'connect' && suffix !== 'timeSamples' && suffix !== 'default' && suffix !== 'spline') {
        throw this.error(`unknown property suffix '.${suffix}'`);
      }
    }
    let prop = spec.props.get(name) as PropSpecData | undefined;
    if (!prop) {
      prop = new PropSpecData(name, isRel ? 'relationship' : 'attribute', typeName);
      spec.props.set(name, prop);
    } else if (typeName) prop.typeName = typeName;
    prop.custom = prop.custom || custom;
    if (variability === 'uniform') prop.variability = 'uniform';

    if (this.peek() === C_EQ) {
      this.pos++;
      if (isRel || suffix === 'connect') {
        const targets = this.pathListValue();
        const key = isRel ? 'targets' : 'connections';
        const op = prop[key] ?? new ListOp<string>();
        if (targets === null) {
          op.isExplicit = true;
          op.explicit = [];
        } else if (opKind === 'explicit') {
          op.isExplicit = true;
          op.explicit = targets;
        } else if (opKind === 'reorder') op.order = targets;
        else op[opKind] = targets;
        prop[key] = op;
      } else if (suffix === 'timeSamples') {
        prop.firstSample = this.timeSamples(typeName);
      } else if (suffix === 'spline') {
        this.value(); // splines are not evaluated; skip
      } else {
        if (opKind !== 'explicit')
          throw this.error(`'${opKind}' is only valid on relationships and connections`, startPos);
        prop.value = coerce(this.value(), typeName);
      }
    }
    if (this.peek() === C_LPAR) prop.meta = this.propertyMetadata(prop.meta);
  }

  private propertyMetadata(into: Map<string, UsdValue> | undefined): Map<string, UsdValue> {
    const meta = into ?? new Map<string, UsdValue>();
    this.expect(C_LPAR, "'('");
    this.enter();
    while (true) {
      const c = this.peek();
      if (c === C_RPAR) {
        this.pos++;
        break;
      }
      if (c === C_SEMI) {
        this.pos++;
        continue;
      }
      if (c === C_QUOTE || c === C_APOS) {
        meta.set('doc', this.string());
        continue;
      }
      let key = this.ident();
      if (LIST_OP_KEYWORDS.has(key)) key = this.ident();
      this.expect(C_EQ, "'='");
      meta.set(key, this.value());
    }
    this.depth--;
    return meta;
  }

  /** `{ time: value, ... }`; returns the value at the earliest time (undefined if none) */
  private timeSamples(typeName: string): UsdValue | undefined {
    this.expect(C_LBRACE, "'{'");
    this.enter();
    let best: UsdValue | undefined;
    let bestT = Infinity;
    while (true) {
      const c = this.peek();
      if (c === C_RBRACE) {
        this.pos++;
        break;
      }
      if (c === C_COMMA) {
        this.pos++;
        continue;
      }
      const t = this.number();
      this.expect(C_COLON, "':'");
      const v = coerce(this.value(), typeName);
      if (t < bestT || best === undefined) {
        bestT = t;
        best = v;
      }
    }
    this.depth--;
    return best;
  }

  // ------------------------------------------------------------------ values

  /** any value: None, number, bool, string, token, asset, path, tuple, list, dictionary */
  value(): UsdValue {
    const c = this.peek();
    if (c === C_QUOTE || c === C_APOS) return this.string();
    if (c === C_AT) return new AssetPath(this.assetPath());
    if (c === C_LT) return new SdfPathValue(this.pathLiteral());
    if (c === C_LPAR) return this.tuple();
    if (c === C_LBR) return this.list();
    if (c === C_LBRACE) return this.dictionary();
    const num = this.tryNumber();
    if (num !== undefined) return num;
    if (c !== -1 && isIdentStart(c)) {
      const w = this.ident(true);
      if (w === 'None') return null;
      if (w === 'true') return true;
      if (w === 'false') return false;
      return w;
    }
    throw this.error(`expected a value, found ${this.describeHere()}`);
  }

  /** `(a, b, ...)`: numbers (nested tuples flattened, as in matrices) or a list of other values */
  private tuple(): UsdValue {
    this.expect(C_LPAR, "'('");
    this.enter();
    const nums: number[] = [];
    let others: UsdValue[] | null = null;
    while (true) {
      const c = this.peek();
      if (c === C_RPAR) {
        this.pos++;
        break;
      }
      if (c === C_COMMA) {
        this.pos++;
        continue;
      }
      const num = this.tryNumber();
      if (num !== undefined) {
        if (others) others.push(num);
        else nums.push(num);
        continue;
      }
      const v = this.value();
      if (Array.isArray(v) && !others) nums.push(...v);
      else {
        if (!others) others = [...nums];
        others.push(v);
      }
    }
    this.depth--;
    return others ? new UsdList(others) : nums;
  }

  /** `[...]`: numeric arrays (of scalars or tuples) become one NumArray */
  private list(): UsdValue {
    this.expect(C_LBR, "'['");
    this.enter();
    let buf = new Float64Array(16);
    let len = 0;
    let width = 0;
    let count = 0;
    let others: UsdValue[] | null = null;
    const push = (x: number) => {
      if (len === buf.length) {
        const nb = new Float64Array(buf.length * 2);
        nb.set(buf);
        buf = nb;
      }
      buf[len++] = x;
    };
    while (true) {
      const c = this.peek();
      if (c === C_RBR) {
        this.pos++;
        break;
      }
      if (c === C_COMMA) {
        this.pos++;
        continue;
      }
      if (++count > this.limits.maxArrayElements)
        throw this.error(`array longer than max_array_elements = ${this.limits.maxArrayElements}`);
      if (!others) {
        if (c === C_LPAR) {
          // a numeric tuple: parse in place
          const save = len;
          const at = { pos: this.pos, line: this.line, lineStart: this.lineStart };
          this.pos++;
          let w = 0;
          let ok = true;
          while (true) {
            const d = this.peek();
            if (d === C_RPAR) {
              this.pos++;
              break;
            }
            if (d === C_COMMA) {
              this.pos++;
              continue;
            }
            if (d === C_LPAR) {
              // a nested tuple (matrix rows): flatten
              const sub = this.tuple();
              if (!Array.isArray(sub)) {
                ok = false;
                break;
              }
              for (const x of sub) push(x);
              w += sub.length;
              continue;
            }
            const num = this.tryNumber();
            if (num === undefined) {
              ok = false;
              break;
            }
            push(num);
            w++;
          }
          if (ok && (width === 0 || width === w) && (len > 0 || w > 0)) {
            width = w;
            continue;
          }
          // not a uniform numeric array: keep what was parsed as tuples and continue generically
          len = save;
          Object.assign(this, at);
          others = [];
          const w0 = width === 0 ? 1 : width;
          for (let i = 0; i < len; i += w0)
            others.push(w0 === 1 ? buf[i] : Array.from(buf.subarray(i, i + w0)));
          len = 0;
          others.push(this.value());
          continue;
        }
        const num = this.tryNumber();
        if (num !== undefined) {
          if (width > 1) throw this.error('mixed scalars and tuples in an array');
          width = 1;
          push(num);
          continue;
        }
        others = [];
        const w1 = width === 0 ? 1 : width;
        for (let i = 0; i < len; i += w1)
          others.push(w1 === 1 ? buf[i] : Array.from(buf.subarray(i, i + w1)));
        len = 0;
      }
      others.push(this.value());
    }
    this.depth--;
    if (others) return new UsdList(others);
    return new NumArray(buf.slice(0, len), width === 0 ? 1 : width);
  }

  /** `{ type key = value ... }` (also untyped `key = value` and time-sample/relocates style `k: v`) */
  private dictionary(): UsdDict {
    this.expect(C_LBRACE, "'{'");
    this.enter();
    const d = new UsdDict();
    while (true) {
      const c = this.peek();
      if (c === C_RBRACE) {
        this.pos++;
        break;
      }
      if (c === C_SEMI || c === C_COMMA) {
        this.pos++;
        continue;
      }
      if (c === C_LT) {
        // relocates `</a>: </b>`
        const k = this.pathLiteral();
        this.expect(C_COLON, "':'");
        d.entries.set(k, this.value());
        continue;
      }
      let key: string;
      let type = '';
      if (c === C_QUOTE || c === C_APOS) key = this.string();
      else {
        const first = this.ident(true);
        const d2 = this.peek();
        if (d2 === C_EQ) key = first;
        else {
          type = first;
          if (this.s.charCodeAt(this.pos) === C_LBR) {
            this.pos++;
            this.expect(C_RBR, "']'");
            type += '[]';
          }
          const k = this.peek();
          key = k === C_QUOTE || k === C_APOS ? this.string() : this.ident(true);
        }
      }
      this.expect(C_EQ, "'='");
      d.entries.set(key, coerce(this.value(), type));
    }
    this.depth--;
    return d;
  }
}

/** adjusts a parsed value to its declared type (bools written as 0/1) */
function coerce(v: UsdValue, typeName: string): UsdValue {
  if (typeName === 'bool' && typeof v === 'number') return v !== 0;
  return v;
}
