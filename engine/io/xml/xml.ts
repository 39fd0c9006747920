/**
 * XML reader for the importers (SPEC §5.3): a thin wrapper over `saxes` (strict, streaming, no DOM,
 * so it runs inside a Web Worker) that builds a small element tree with 1-based line/column per
 * element. Entity declarations are refused (no expansion beyond the five predefined entities and
 * character references), and the text size, nesting depth and element count are bounded.
 */
import { SaxesParser } from 'saxes';
import { ImportError, XmlSyntaxError } from '../assets/errors';
import { LIMITS, limitMessage, type LimitName } from '../limits';

/** one element: name, attributes, child elements and its own text */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** concatenated character data directly inside this element (trimmed) */
  text: string;
  /** 1-based position of the element's start tag */
  line: number;
  column: number;
  /** the file it was read from, when known (elements from `<include>`d files keep theirs) */
  file?: string;
}

export interface XmlParseOptions {
  /** the file name used in errors and stored on the elements */
  file?: string;
  /** largest accepted text [characters] (default {@link MAX_XML_CHARS}) */
  maxChars?: number;
  /** deepest accepted nesting (default {@link MAX_XML_DEPTH}) */
  maxDepth?: number;
  /** most accepted elements (default {@link MAX_XML_ELEMENTS}) */
  maxElements?: number;
  /** longest attribute value, text run, comment or tag [characters] (default {@link MAX_XML_VALUE_CHARS}) */
  maxValueChars?: number;
}

/** default size limit of an XML document [characters] */
export const MAX_XML_CHARS = LIMITS.max_xml_chars;
/** default nesting limit */
export const MAX_XML_DEPTH = LIMITS.max_xml_depth;
/** default element-count limit */
export const MAX_XML_ELEMENTS = LIMITS.max_xml_elements;
/** default limit of one attribute value, text run, comment or tag [characters] */
export const MAX_XML_VALUE_CHARS = LIMITS.max_xml_value_chars;

/** 1-based line and column of `offset` in `text` */
function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/**
 * Refuses, before the parser runs, any span the parser (or an importer reading numbers from it)
 * would hold whole: an attribute value, a run of text or CDATA, a comment, a processing instruction
 * or the unquoted part of a tag longer than `max` characters. A linear scan with `indexOf`; the
 * error names the span and its line/column. Unterminated spans are left to the parser's own error.
 */
function refuseLongValues(src: string, max: number, file: string | undefined): void {
  const n = src.length;
  if (n <= max) return;
  const fail = (what: string, at: number, len: number): never => {
    const { line, column } = lineColumnAt(src, at);
    throw new XmlSyntaxError(
      `${what} of ${len} characters or more exceeds max_xml_value_chars = ${max}`,
      file,
      line,
      column,
    );
  };
  // a span from `from` up to the `close` marker (or the end)
  const span = (what: string, from: number, close: string): number => {
    const k = src.indexOf(close, from);
    const end = k < 0 ? n : k;
    if (end - from > max) fail(what, from, end - from);
    return k < 0 ? n : k + close.length;
  };
  let i = 0;
  while (i < n) {
    let lt = src.indexOf('<', i);
    if (lt < 0) lt = n;
    if (lt - i > max) fail('a run of text', i, lt - i);
    if (lt >= n) return;
    if (src.startsWith('<!--', lt)) i = span('a comment', lt + 4, '-->');
    else if (src.startsWith('<![CDATA[', lt)) i = span('a CDATA section', lt + 9, ']]>');
    else if (src.startsWith('<?', lt)) i = span('a processing instruction', lt + 2, '?>');
    else if (src.startsWith('<!', lt)) i = span('a declaration', lt + 2, '>');
    else {
      // a tag: quoted attribute values, the rest (names, spaces) counted together
      let p = lt + 1;
      let bare = 0;
      while (p < n) {
        const c = src.charCodeAt(p);
        if (c === 0x3e /* > */) break;
        if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
          p = span('an attribute value', p + 1, c === 0x22 ? '"' : "'");
          continue;
        }
        if (++bare > max) fail('a tag', lt, bare);
        p++;
      }
      i = p + 1;
    }
  }
}

/**
 * Parses XML text into its root element. Throws {@link XmlSyntaxError} (with line/column) on
 * malformed input, DTD entity declarations, or when a limit is exceeded.
 */
export function parseXml(text: string, opts: XmlParseOptions = {}): XmlElement {
  const file = opts.file;
  const maxChars = opts.maxChars ?? MAX_XML_CHARS;
  const maxDepth = opts.maxDepth ?? MAX_XML_DEPTH;
  const maxElements = opts.maxElements ?? MAX_XML_ELEMENTS;
  const maxValueChars = opts.maxValueChars ?? MAX_XML_VALUE_CHARS;
  if (typeof text !== 'string') throw new XmlSyntaxError('XML input must be text', file);
  if (text.length > maxChars) {
    throw new XmlSyntaxError(
      `XML text of ${text.length} characters exceeds max_xml_chars = ${maxChars}`,
      file,
      1,
      1,
    );
  }
  // a UTF-8 byte-order mark is not part of the document
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  refuseLongValues(src, maxValueChars, file);
  const parser = new SaxesParser({ position: true });
  const stack: XmlElement[] = [];
  const texts: string[][] = [];
  let root: XmlElement | undefined;
  let count = 0;
  let failure: XmlSyntaxError | undefined;
  const fail = (reason: string): never => {
    throw new XmlSyntaxError(reason, file, parser.line, parser.column + 1);
  };
  let tagLine = 1;
  let tagColumn = 1;

  parser.on('opentagstart', (tag) => {
    // saxes reports the position just after the name; plus the next character; the "<" is name.length + 1 characters before that
    tagLine = parser.line;
    tagColumn = Math.max(1, parser.column - tag.name.length - 1);
  });
  parser.on('opentag', (tag) => {
    if (++count > maxElements)
      fail(`more than ${maxElements} elements: exceeds max_xml_elements = ${maxElements}`);
    if (stack.length >= maxDepth) fail(`nesting deeper than max_xml_depth = ${maxDepth} levels`);
    // a null-prototype map: attribute names like __proto__ or constructor are plain keys
    const attrs: Record<string, string> = Object.create(null);
    for (const [k, v] of Object.entries(tag.attributes)) attrs[k] = typeof v === 'string' ? v : v.value;
    const el: XmlElement = {
      name: tag.name,
      attrs,
      children: [],
      text: '',
      line: tagLine,
      column: tagColumn,
    };
    if (file !== undefined) el.file = file;
    if (stack.length) stack[stack.length - 1].children.push(el);
    else root = el;
    stack.push(el);
    texts.push([]);
  });
  parser.on('closetag', () => {
    const el = stack.pop();
    const t = texts.pop();
    if (el && t && t.length) el.text = t.join('').trim();
  });
  const addText = (s: string) => {
    if (texts.length) texts[texts.length - 1].push(s);
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('doctype', (d) => {
    if (/<!ENTITY/i.test(d)) {
      fail(
        'DTD entity declarations are not accepted (entity expansion is disabled: max_xml_entity_expansions = 0)',
      );
    }
  });
  parser.on('error', (e) => {
    if (!failure) {
      const msg = e.message.replace(/^(?:[^:\n]*:)?\d+:\d+: /, '');
      failure = new XmlSyntaxError(msg, file, parser.line, parser.column + 1);
    }
  });
  try {
    parser.write(src).close();
  } catch (e) {
    if (e instanceof XmlSyntaxError) throw e;
    throw failure ?? new XmlSyntaxError(e instanceof Error ? e.message : String(e), file, parser.line);
  }
  if (failure) throw failure;
  if (!root) throw new XmlSyntaxError('no root element', file);
  return root;
}

/** the child elements named `name` */
export function childrenNamed(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((c) => c.name === name);
}

/** the first child element named `name`, if any */
export function childNamed(el: XmlElement, name: string): XmlElement | undefined {
  return el.children.find((c) => c.name === name);
}

/**
 * Counts elements by name over a tree (iteratively) and throws an {@link ImportError} located at the
 * first element past a limit: `counted` maps element names to the limit their total falls under
 * (e.g. URDF `link` → max_bodies, `collision` and `visual` → max_shapes together).
 */
export function assertElementCounts(root: XmlElement, counted: Record<string, LimitName>): void {
  const totals = new Map<LimitName, number>();
  const stack: XmlElement[] = [root];
  while (stack.length) {
    const el = stack.pop()!;
    const limit = Object.prototype.hasOwnProperty.call(counted, el.name) ? counted[el.name] : undefined;
    if (limit) {
      const n = (totals.get(limit) ?? 0) + 1;
      totals.set(limit, n);
      if (n > LIMITS[limit]) {
        throw new ImportError(
          limitMessage(
            `more than ${LIMITS[limit]} <${Object.keys(counted)
              .filter((k) => counted[k] === limit)
              .join('>/<')}> elements`,
            limit,
          ),
          el.file,
          el.line,
          el.column,
        );
      }
    }
    for (let i = el.children.length - 1; i >= 0; i--) stack.push(el.children[i]);
  }
}

/** whether a UTF-16 code unit is white space as `\s` matches it */
function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * the white-space-separated tokens of `t` as numbers (`inf`, `+inf`, `-inf` in any case as
 * ±Infinity, anything else through `Number`, so a bad token is NaN); a scan that holds no array of
 * token strings, so a long attribute costs its numbers only
 */
export function numberTokens(t: string): number[] {
  const out: number[] = [];
  const n = t.length;
  let i = 0;
  while (i < n) {
    while (i < n && isSpace(t.charCodeAt(i))) i++;
    if (i >= n) break;
    let j = i + 1;
    while (j < n && !isSpace(t.charCodeAt(j))) j++;
    const x = t.slice(i, j);
    const l = x.length <= 4 ? x.toLowerCase() : '';
    out.push(l === 'inf' || l === '+inf' ? Infinity : l === '-inf' ? -Infinity : Number(x));
    i = j;
  }
  return out;
}
