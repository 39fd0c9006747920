/**
 * A linear scan of YAML text for its nesting depth, run before the `yaml` parser, whose composer
 * recurses once per level: `[[[[…` 200,000 deep overflows the call stack after seconds of work. The
 * scan counts block levels (indentation, and `- ` entries nested on one line) and flow levels (`[`
 * and `{`, outside quotes, comments and block scalars); it errs on the side of counting less, so the
 * exact bound stays with the check of the parsed document (max_scene_depth, `source.ts`).
 */

/** where the text first nests deeper than the bound: 1-based line and column, and the depth */
export interface YamlDepthExcess {
  line: number;
  column: number;
  depth: number;
}

/** a line that ends in a block scalar's header (`|`, `>-`, `|2+`), a comment allowed after it */
const BLOCK_SCALAR_END = /(?:^|[\s:])[|>][-+1-9]{0,2}[ \t]*(?:#[^\n]*)?\r?$/;

/**
 * the first place `text` nests more than `maxDepth` collections deep, or undefined when it does
 * not (as far as a scan without parsing can tell)
 */
export function yamlDepthExcess(text: string, maxDepth: number): YamlDepthExcess | undefined {
  const indents: number[] = [];
  let flow = 0;
  let quote = 0; // the open quote character (code), 0 outside quotes
  let blockScalarIndent = -1; // the indentation a block scalar's lines must exceed, −1 outside one
  let lineNo = 0;
  let start = 0;
  const n = text.length;
  while (start < n) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = n;
    lineNo++;
    let i = start;
    while (i < end && text.charCodeAt(i) === 0x20) i++;
    const indent = i - start;
    const blank = i >= end || text.charCodeAt(i) === 0x23 /* # */ || text.charCodeAt(i) === 0x0d;
    if (blockScalarIndent >= 0) {
      if (blank || indent > blockScalarIndent) {
        start = end + 1;
        continue;
      }
      blockScalarIndent = -1;
    }
    if (blank && quote === 0) {
      start = end + 1;
      continue;
    }
    if (quote === 0 && flow === 0) {
      while (indents.length && indents[indents.length - 1] >= indent) indents.pop();
      indents.push(indent);
      if (indents.length > maxDepth) return { line: lineNo, column: indent + 1, depth: indents.length };
      // `- - - x`: each dash opens a sequence one level further in
      while (i + 1 < end && text.charCodeAt(i) === 0x2d /* - */ && text.charCodeAt(i + 1) === 0x20) {
        i += 2;
        while (i < end && text.charCodeAt(i) === 0x20) i++;
        indents.push(i - start);
        if (indents.length + flow > maxDepth)
          return { line: lineNo, column: i - start + 1, depth: indents.length };
      }
    }
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (quote !== 0) {
        if (c === 0x5c /* \ */ && quote === 0x22) i++;
        else if (c === quote) quote = 0;
        continue;
      }
      if (c === 0x22 || c === 0x27) {
        // a quote opens a quoted scalar only where a scalar starts
        const prev = i === start ? 0x20 : text.charCodeAt(i - 1);
        if (prev === 0x20 || prev === 0x5b || prev === 0x7b || prev === 0x2c || prev === 0x3a) quote = c;
        continue;
      }
      if (c === 0x23 && (i === start || text.charCodeAt(i - 1) === 0x20)) break; // comment
      if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
        const prev = i === start ? 0x20 : text.charCodeAt(i - 1);
        if (flow > 0 || prev === 0x20 || prev === 0x3a) {
          flow++;
          if (indents.length + flow > maxDepth)
            return { line: lineNo, column: i - start + 1, depth: indents.length + flow };
        }
      } else if ((c === 0x5d || c === 0x7d) && flow > 0) flow--;
    }
    // `key: |` / `- >-`: the lines indented deeper are text
    if (quote === 0 && flow === 0 && BLOCK_SCALAR_END.test(text.slice(Math.max(start, end - 24), end)))
      blockScalarIndent = indent;
    start = end + 1;
  }
  return undefined;
}
