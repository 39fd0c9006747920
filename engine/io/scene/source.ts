/**
 * Scene text → plain document (YAML through the `yaml` package, JSON by extension or content), with
 * source positions remembered per returned document so later errors can report line and column.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { SceneError, SceneSyntaxError, SceneValidationError, type KeySegment } from './errors';

/** largest accepted scene text (characters) */
export const MAX_SCENE_TEXT = 8 * 1024 * 1024;

interface SourceInfo {
  file?: string;
  doc?: Document;
  lines: LineCounter;
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
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

function parseYaml(
  text: string,
  fileName: string | undefined,
  lines: LineCounter,
): { value: unknown; doc: Document } {
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const pos = e.linePos?.[0];
    const reason = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw new SceneSyntaxError(`YAML: ${reason}`, pos?.line, pos?.col, fileName);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 1000 });
  } catch (e) {
    throw new SceneSyntaxError(
      `YAML: ${e instanceof Error ? e.message : String(e)}`,
      undefined,
      undefined,
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
      `scene text larger than ${MAX_SCENE_TEXT} characters`,
      undefined,
      undefined,
      fileName,
    );
  }
  const lines = new LineCounter();
  let value: unknown;
  let doc: Document | undefined;
  const byExtension = fileName?.toLowerCase().endsWith('.json') ?? false;
  if (looksLikeJson(text, fileName)) {
    try {
      value = JSON.parse(text);
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
    if (!doc) {
      // JSON is YAML 1.2: parse it again for source positions (best effort)
      try {
        const d = parseDocument(text, { lineCounter: lines });
        if (d.errors.length === 0) doc = d;
      } catch {
        /* positions unavailable */
      }
    }
  } else {
    ({ value, doc } = parseYaml(text, fileName, lines));
  }
  if (value !== null && typeof value === 'object') sources.set(value, { file: fileName, doc, lines });
  return value;
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
  if (!info.doc) return { file: info.file };
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
  if (!range) return { file: info.file };
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
