/**
 * Safe numeric expressions for scene files (SPEC §5.1): numbers, `pi`, `inf`, `+ - * /`, unary signs
 * and parentheses, e.g. `pi * 0.5` or `-(pi / 4)`. A hand-written recursive-descent parser; no
 * `eval`/`Function`. Errors are {@link ExprError}s naming the key path and the column.
 */
import { LIMITS } from '../limits';
import { ExprError, type KeySegment } from './errors';

/** longest accepted expression text (characters) */
export const MAX_EXPR_LENGTH = LIMITS.max_expr_chars;
/** deepest accepted nesting of parentheses and unary signs */
export const MAX_EXPR_DEPTH = LIMITS.max_expr_depth;

type Token =
  | { kind: 'num'; value: number; pos: number; text: string }
  | { kind: 'ident'; name: string; pos: number }
  | { kind: 'op'; op: '+' | '-' | '*' | '/' | '(' | ')'; pos: number }
  | { kind: 'end'; pos: number };

const CONSTANTS: Record<string, number> = { pi: Math.PI, inf: Infinity, infinity: Infinity };

function tokenize(src: string, fail: (pos: number, msg: string) => never): Token[] {
  const out: Token[] = [];
  const numRe = /(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
  const identRe = /[A-Za-z_][A-Za-z0-9_]*/y;
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '+' || c === '-' || c === '*' || c === '/' || c === '(' || c === ')') {
      if (c === '*' && src[i + 1] === '*') fail(i, `'**' is not supported (only + - * / and parentheses)`);
      out.push({ kind: 'op', op: c, pos: i });
      i++;
      continue;
    }
    numRe.lastIndex = i;
    const nm = numRe.exec(src);
    if (nm) {
      out.push({ kind: 'num', value: Number(nm[0]), pos: i, text: nm[0] });
      i += nm[0].length;
      continue;
    }
    identRe.lastIndex = i;
    const im = identRe.exec(src);
    if (im) {
      out.push({ kind: 'ident', name: im[0], pos: i });
      i += im[0].length;
      continue;
    }
    fail(i, `unexpected character '${c}'`);
  }
  out.push({ kind: 'end', pos: src.length });
  return out;
}

/**
 * Evaluates a numeric expression. `path` names the key for error messages. The result must be a
 * number; ±Infinity is accepted only when the expression names `inf` explicitly (so `1/0` is an error).
 */
export function evalExpr(src: string, path: string | readonly KeySegment[] = ''): number {
  const fail = (pos: number, msg: string): never => {
    throw new ExprError(path, `invalid expression '${src}': ${msg} (column ${pos + 1})`, pos + 1);
  };
  if (typeof src !== 'string') throw new ExprError(path, `expected a number or an expression string`);
  if (src.length > MAX_EXPR_LENGTH) {
    throw new ExprError(path, `expression longer than max_expr_chars = ${MAX_EXPR_LENGTH} characters`);
  }
  if (src.trim() === '') throw new ExprError(path, `empty expression; expected a number or an expression`);
  const toks = tokenize(src, fail);
  let k = 0;
  let usedInf = false;

  const peek = () => toks[k];
  const isOp = (t: Token, op: string) => t.kind === 'op' && t.op === op;

  function primary(depth: number): number {
    if (depth > MAX_EXPR_DEPTH) fail(peek().pos, `nesting deeper than max_expr_depth = ${MAX_EXPR_DEPTH}`);
    const t = peek();
    if (t.kind === 'num') {
      k++;
      if (!Number.isFinite(t.value)) fail(t.pos, `number '${t.text}' is out of range`);
      return t.value;
    }
    if (t.kind === 'ident') {
      k++;
      const v = CONSTANTS[t.name.toLowerCase()];
      if (v === undefined) fail(t.pos, `unknown name '${t.name}' (allowed: pi, inf)`);
      if (!Number.isFinite(v)) usedInf = true;
      return v;
    }
    if (isOp(t, '(')) {
      k++;
      const v = sum(depth + 1);
      if (!isOp(peek(), ')')) fail(peek().pos, `expected ')'`);
      k++;
      return v;
    }
    if (t.kind === 'end') return fail(t.pos, `unexpected end of expression`);
    return fail(t.pos, `unexpected '${t.kind === 'op' ? t.op : ''}'`);
  }

  function unary(depth: number): number {
    if (depth > MAX_EXPR_DEPTH) fail(peek().pos, `nesting deeper than max_expr_depth = ${MAX_EXPR_DEPTH}`);
    const t = peek();
    if (isOp(t, '-')) {
      k++;
      return -unary(depth + 1);
    }
    if (isOp(t, '+')) {
      k++;
      return unary(depth + 1);
    }
    return primary(depth);
  }

  function product(depth: number): number {
    let v = unary(depth);
    while (isOp(peek(), '*') || isOp(peek(), '/')) {
      const t = toks[k++] as Extract<Token, { kind: 'op' }>;
      const r = unary(depth);
      if (t.op === '*') v *= r;
      else {
        if (r === 0) fail(t.pos, `division by zero`);
        v /= r;
      }
    }
    return v;
  }

  function sum(depth: number): number {
    let v = product(depth);
    while (isOp(peek(), '+') || isOp(peek(), '-')) {
      const t = toks[k++] as Extract<Token, { kind: 'op' }>;
      const r = product(depth);
      v = t.op === '+' ? v + r : v - r;
    }
    return v;
  }

  const v = sum(0);
  const rest = peek();
  if (rest.kind !== 'end')
    fail(rest.pos, `unexpected '${rest.kind === 'op' ? rest.op : src.slice(rest.pos)}'`);
  if (Number.isNaN(v)) throw new ExprError(path, `expression '${src}' is not a number`);
  if (!Number.isFinite(v) && !usedInf) throw new ExprError(path, `expression '${src}' overflows`);
  return v;
}

/** a number, or an expression string evaluated with {@link evalExpr} */
export function toNumber(v: unknown, path: string | readonly KeySegment[] = ''): number {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) throw new ExprError(path, `expected a number; got NaN`);
    return v;
  }
  if (typeof v === 'string') return evalExpr(v, path);
  throw new ExprError(path, `expected a number or an expression; got ${v === null ? 'null' : typeof v}`);
}
