/**
 * Scene text → plain document (YAML through the `yaml` package, JSON by extension or content), with
 * source positions remembered per returned document so later errors can report line and column.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { LIMITS, limitMessage } from '../limits';
import { SceneError, SceneSyntaxError, SceneValidationError, type KeySegment } from './errors';
import { yamlDepthExcess } from './yaml_depth';

/** largest accepted scene text (characters; JSON — YAML text is limited to {@link MAX_YAML_TEXT}) */
export const MAX_SCENE_TEXT = LIMITS.max_scene_chars;
/** largest accepted YAML scene text (characters): YAML parsing runs at about 1 MB/s */
export const MAX_YAML_TEXT = LIMITS.max_yaml_chars;

interface SourceInfo {
  file?: string;
  doc?: Document;
  lines: LineCounter;
  /** JSON text: located by {@link jsonPathOffset}, without a second (YAML) parse */
  json?: string;
}

const sources = new WeakMap<object, SourceInfo>();

function looksLikeJson(text: string, fileName?: string): boolean {
  if (fileName) {
    const f = fileName.toLowerCase();
    if (f.endsWith('.json')) return true;
    if (f.endsWith('.yaml') || f.endsWith('.yml')) return false;
  }
  const t = text.trimStart();
  return t.startsWith('{') || t.startsWith('[');
}

/**
 * Offset of the first JSON syntax error (a small scanner; `JSON.parse` messages do not always carry a
 * position), or undefined when the scanner finds none.
 */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r'))
      i++;
  };
  class Stop {
    constructor(readonly at: number) {}
  }
  const fail = (): never => {
    throw new Stop(i);
  };
  const str = () => {
    i++; // opening quote
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const value = (depth: number): void => {
    if (depth > 512) fail();
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        str();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail();
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail();
      }
    }
    if (c === '"') return str();
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|^(true|false|null)/.exec(text.slice(i, i + 400));
    if (!m) fail();
    i += m![0].length;
  };
  try {
    value(0);
    ws();
    return i < text.length ? i : undefined;
  } catch (e) {
    if (e instanceof Stop) return e.at;
    return undefined;
  }
}

function offsetToLineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  const end = Math.min(offset, text.length);
  for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

function parseYaml(
  text: string,
  fileName: string | undefined,
  lines: LineCounter,
): { value: unknown; doc: Document } {
  if (text.length > MAX_YAML_TEXT) {
    const at = offsetToLineColumn(text, MAX_YAML_TEXT);
    throw new SceneSyntaxError(
      limitMessage(`YAML scene text of ${text.length} characters`, 'max_yaml_chars') +
        ' (JSON scenes may be larger)',
      at.line,
      at.column,
      fileName,
    );
  }
  // the parser recurses once per level: deep text is refused before it runs (the exact bound is
  // checkDocumentBounds' on the parsed document; the scan leaves it two levels of slack)
  const deep = yamlDepthExcess(text, LIMITS.max_scene_depth + 2);
  if (deep) {
    throw new SceneSyntaxError(
      limitMessage(`YAML text nesting ${deep.depth} collections deep`, 'max_scene_depth'),
      deep.line,
      deep.column,
      fileName,
    );
  }
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const pos = e.linePos?.[0];
    const reason = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw new SceneSyntaxError(`YAML: ${reason}`, pos?.line, pos?.col, fileName);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: LIMITS.max_yaml_aliases });
  } catch (e) {
    // alias expansion (toJS's resource check) or a document too deep: point at the first alias
    let offset: number | undefined;
    visit(doc, {
      Alias(_, node) {
        offset = node.range?.[0];
        return visit.BREAK;
      },
    });
    const pos = offset !== undefined ? lines.linePos(offset) : undefined;
    const msg = e instanceof Error ? e.message : String(e);
    throw new SceneSyntaxError(
      `YAML: ${msg}${/alias/i.test(msg) ? ` (aliases expand past max_yaml_aliases = ${LIMITS.max_yaml_aliases})` : ''}`,
      pos?.line,
      pos?.col,
      fileName,
    );
  }
  return { value, doc };
}

/**
 * Parses scene text. JSON when `fileName` ends in `.json` (or, without a YAML extension, when the text
 * starts with `{`/`[` and is valid JSON), YAML otherwise. Throws {@link SceneSyntaxError} with line and
 * column.
 */
export function parseSceneText(text: string, fileName?: string): unknown {
  if (typeof text !== 'string')
    throw new SceneSyntaxError('scene text must be a string', undefined, undefined, fileName);
  if (text.length > MAX_SCENE_TEXT) {
    throw new SceneSyntaxError(
      limitMessage(`scene text of ${text.length} characters`, 'max_scene_chars'),
      undefined,
      undefined,
      fileName,
    );
  }
  const lines = new LineCounter();
  let value: unknown;
  let doc: Document | undefined;
  let json: string | undefined;
  const byExtension = fileName?.toLowerCase().endsWith('.json') ?? false;
  if (looksLikeJson(text, fileName)) {
    try {
      value = JSON.parse(text);
      json = text;
    } catch (e) {
      if (byExtension) {
        const at = jsonErrorOffset(text);
        const { line, column } =
          at !== undefined ? offsetToLineColumn(text, at) : { line: undefined, column: undefined };
        const reason =
          at !== undefined
            ? `unexpected ${at < text.length ? JSON.stringify(text[at]) : 'end of input'}`
            : (e instanceof Error ? e.message : String(e)).split('\n')[0];
        throw new SceneSyntaxError(`JSON: ${reason}`, line, column, fileName);
      }
      ({ value, doc } = parseYaml(text, fileName, lines)); // flow-style YAML
    }
  } else {
    ({ value, doc } = parseYaml(text, fileName, lines));
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    // nothing to attach positions to: the document itself is the wrong shape
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    const issue = {
      path: '',
      keyPath: [],
      code: 'invalid_type',
      message: `expected object; got ${got}`,
      line: 1,
      column: 1,
    };
    throw new SceneValidationError([issue]).locate(fileName, 1, 1);
  }
  sources.set(value, { file: fileName, doc, lines, json });
  checkDocumentBounds(value);
  return value;
}

/** the array keys of a scene whose entries each become a body, a joint or a shape */
const COUNTED: Record<string, 'max_bodies' | 'max_shapes'> = {
  bodies: 'max_bodies',
  joints: 'max_bodies',
  articulations: 'max_bodies',
  post_build: 'max_bodies',
};

/**
 * Bounds a parsed document before anything walks it recursively: nesting depth (max_scene_depth),
 * entry counts of the top-level lists (max_bodies) and shapes over all bodies (max_shapes). Iterative,
 * so a hostile document cannot overflow the stack here. Throws a located {@link SceneError}.
 */
function checkDocumentBounds(root: object): void {
  const fail = (path: KeySegment[], reason: string): never => {
    throw attachLocation(new SceneError(path, reason), root);
  };
  const stack: { v: unknown; path: KeySegment[] }[] = [{ v: root, path: [] }];
  let shapes = 0;
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= LIMITS.max_scene_depth) {
      fail(path, limitMessage(`nesting deeper than ${path.length} levels`, 'max_scene_depth'));
    }
    if (Array.isArray(v)) {
      const limit = path.length === 1 ? COUNTED[String(path[0])] : undefined;
      if (limit && v.length > LIMITS[limit]) fail(path, limitMessage(`a list of ${v.length} entries`, limit));
      if (path.length === 3 && path[0] === 'bodies' && path[2] === 'shapes') {
        shapes += v.length;
        if (shapes > LIMITS.max_shapes) fail(path, limitMessage(`${shapes} shapes`, 'max_shapes'));
      }
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, i] });
    } else {
      for (const k of Object.keys(v))
        stack.push({ v: (v as Record<string, unknown>)[k], path: [...path, k] });
    }
  }
}

/**
 * The offset of the value (or with `preferKey` the key) at `keyPath` in JSON text, as deep as the
 * text allows; a linear scan without building anything (no second parse of large documents).
 */
export function jsonPathOffset(text: string, keyPath: readonly KeySegment[], preferKey = false): number {
  const n = text.length;
  let i = 0;
  const ws = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const skipString = () => {
    i++;
    while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
  };
  const skipValue = () => {
    ws();
    const c = text[i];
    if (c === '"') return skipString();
    if (c === '{' || c === '[') {
      let depth = 0;
      while (i < n) {
        const d = text[i];
        if (d === '"') {
          skipString();
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') {
          depth--;
          if (depth === 0) {
            i++;
            return;
          }
        }
        i++;
      }
      return;
    }
    while (i < n && !',}] \t\n\r'.includes(text[i])) i++;
  };
  ws();
  let at = i;
  for (let k = 0; k < keyPath.length; k++) {
    const seg = keyPath[k];
    ws();
    if (typeof seg === 'number' && text[i] === '[') {
      i++;
      ws();
      if (text[i] === ']') return at;
      for (let idx = 0; idx < seg; idx++) {
        skipValue();
        ws();
        if (text[i] !== ',') return at;
        i++;
      }
      ws();
      at = i;
    } else if (typeof seg === 'string' && text[i] === '{') {
      i++;
      let found = false;
      while (i < n) {
        ws();
        if (text[i] !== '"') return at;
        const keyAt = i;
        skipString();
        let key: unknown;
        try {
          key = JSON.parse(text.slice(keyAt, i));
        } catch {
          return at;
        }
        ws();
        if (text[i] !== ':') return at;
        i++;
        ws();
        if (key === seg) {
          at = preferKey && k === keyPath.length - 1 ? keyAt : i;
          found = true;
          break;
        }
        skipValue();
        ws();
        if (text[i] !== ',') return at;
        i++;
      }
      if (!found) return at;
    } else return at;
  }
  return at;
}

/** line/column (1-based) of a key path in the source a document was parsed from, when known */
export function locateKeyPath(
  root: unknown,
  keyPath: readonly KeySegment[],
  preferKey = false,
): { file?: string; line?: number; column?: number } | undefined {
  if (root === null || typeof root !== 'object') return undefined;
  const info = sources.get(root);
  if (!info) return undefined;
  if (info.json !== undefined) {
    const { line, column } = offsetToLineColumn(info.json, jsonPathOffset(info.json, keyPath, preferKey));
    return { file: info.file, line, column };
  }
  if (!info.doc) return keyPath.length === 0 ? { file: info.file, line: 1, column: 1 } : { file: info.file };
  // walk as deep as the source allows; an unknown key resolves to its key node
  let node: unknown = info.doc.contents;
  let range: readonly number[] | undefined = (node as { range?: number[] } | null)?.range;
  for (let k = 0; k < keyPath.length; k++) {
    const seg = keyPath[k];
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === seg);
      if (!pair) break;
      const keyRange = (pair.key as { range?: number[] } | null)?.range;
      const target = pair.value as { range?: number[] } | null;
      range = (preferKey && k === keyPath.length - 1 ? keyRange : target?.range) ?? keyRange ?? range;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg] as { range?: number[] } | undefined;
      if (!item) break;
      range = item.range ?? range;
      node = item;
    } else break;
  }
  if (!range) return keyPath.length === 0 ? { file: info.file, line: 1, column: 1 } : { file: info.file };
  const pos = info.lines.linePos(range[0]);
  return { file: info.file, line: pos.line, column: pos.col };
}

/** attaches the source location of `err.keyPath` (if known) to a SceneError */
export function attachLocation<E extends SceneError>(err: E, root: unknown): E {
  if (err instanceof SceneValidationError) {
    for (const issue of err.issues) {
      const loc = locateKeyPath(root, issue.keyPath, issue.code === 'unknown_key');
      issue.line = loc?.line;
      issue.column = loc?.column;
    }
  }
  if (err.line !== undefined) return err;
  const preferKey = err instanceof SceneValidationError && err.issues[0]?.code === 'unknown_key';
  const loc = locateKeyPath(root, err.keyPath, preferKey);
  if (loc) err.locate(loc.file, loc.line, loc.column);
  return err;
}
