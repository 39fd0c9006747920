/**
 * Mutators of the fuzzers: byte-level (flips, truncation, chunk duplication/deletion, interesting
 * integers at aligned offsets, splices from another file) and text-level (numeric fields corrupted
 * to NaN / inf / 1e308 / negative sizes, lines deleted or repeated, structural characters inserted,
 * deep nesting, huge counts, prototype-pollution keys), plus generated garbage. Every mutator is a
 * pure function of its input and the {@link Rng}, so an input is reproduced from its seed.
 */
import { Rng } from './rng';

/** the text forms a numeric field is corrupted to */
export const BAD_NUMBERS = [
  'nan',
  'NaN',
  '.nan',
  'inf',
  '-inf',
  '.inf',
  '-.inf',
  'Infinity',
  '1e308',
  '-1e308',
  '1e309',
  '1e-320',
  '-1',
  '-0',
  '0',
  '-1e9',
  '1e9',
  '4294967296',
  '2147483648',
  '9007199254740993',
  '0x7fffffff',
  '1e',
  '--1',
  '',
] as const;

/** interesting 32-bit values for binary fields (counts, offsets, sizes) */
const INTERESTING_U32 = [
  0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe,
  0xffffffff, 1_000_000, 100_000_000,
];

/** largest mutated text [characters]: well past every reader limit, far below the JS string limit */
export const MAX_MUTANT_CHARS = 16 * 1024 * 1024;

export type ByteMutator = (b: Uint8Array, rng: Rng, other?: Uint8Array) => Uint8Array;
export type TextMutator = (t: string, rng: Rng) => string;

function concat(...parts: Uint8Array[]): Uint8Array {
  const n = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

// ------------------------------------------------------------------------------------------ bytes

export const BYTE_MUTATORS: Record<string, ByteMutator> = {
  flip_bits(b, rng) {
    const out = b.slice();
    if (out.length === 0) return out;
    const n = rng.skewed(64);
    for (let i = 0; i < n; i++) out[rng.int(out.length)] ^= 1 << rng.int(8);
    return out;
  },
  set_bytes(b, rng) {
    const out = b.slice();
    if (out.length === 0) return out;
    const n = rng.skewed(32);
    for (let i = 0; i < n; i++) out[rng.int(out.length)] = rng.pick([0, 0xff, 0x7f, 0x80, 0x20, 0x0a]);
    return out;
  },
  truncate(b, rng) {
    return b.slice(0, rng.int(b.length + 1));
  },
  truncate_head(b, rng) {
    return b.slice(rng.int(b.length + 1));
  },
  delete_chunk(b, rng) {
    if (b.length < 2) return b.slice();
    const len = rng.skewed(Math.max(1, b.length >> 2));
    const at = rng.int(b.length);
    return concat(b.subarray(0, at), b.subarray(Math.min(b.length, at + len)));
  },
  duplicate_chunk(b, rng) {
    if (b.length === 0) return b.slice();
    const len = rng.skewed(Math.min(4096, b.length));
    const from = rng.int(b.length);
    const chunk = b.subarray(from, Math.min(b.length, from + len));
    const at = rng.int(b.length + 1);
    const times = rng.chance(0.1) ? rng.range(2, 64) : 1;
    return concat(b.subarray(0, at), ...Array<Uint8Array>(times).fill(chunk), b.subarray(at));
  },
  insert_garbage(b, rng) {
    const at = rng.int(b.length + 1);
    return concat(b.subarray(0, at), rng.bytes(rng.skewed(256)), b.subarray(at));
  },
  interesting_u32(b, rng) {
    const out = b.slice();
    if (out.length < 4) return out;
    const dv = new DataView(out.buffer);
    const n = rng.skewed(8);
    for (let i = 0; i < n; i++) {
      // prefer aligned offsets near the start (headers, tables of contents)
      const span = rng.chance(0.5) ? Math.min(out.length - 4, 512) : out.length - 4;
      const at = rng.chance(0.7) ? rng.int(span + 1) & ~3 : rng.int(span + 1);
      dv.setUint32(at, rng.pick(INTERESTING_U32), rng.chance(0.8));
    }
    return out;
  },
  interesting_u64(b, rng) {
    const out = b.slice();
    if (out.length < 8) return out;
    const dv = new DataView(out.buffer);
    const at = (rng.chance(0.5) ? rng.int(Math.min(out.length - 7, 256)) : rng.int(out.length - 7)) & ~7;
    const v = rng.pick([0n, 1n, 0xffffffffn, 0x100000000n, 0x7fffffffffffffffn, 0xffffffffffffffffn]);
    dv.setBigUint64(Math.max(0, at), v, true);
    return out;
  },
  splice(b, rng, other) {
    if (!other || other.length === 0) return BYTE_MUTATORS.duplicate_chunk(b, rng);
    const at = rng.int(b.length + 1);
    const from = rng.int(other.length);
    const len = rng.skewed(Math.min(8192, other.length));
    return concat(b.subarray(0, at), other.subarray(from, from + len), b.subarray(at));
  },
};

// ------------------------------------------------------------------------------------------ text

const NUMBER_RE = /-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/g;

/** positions of the numeric tokens of a text (at most `limit`) */
function numberSpans(t: string, limit = 20000): [number, number][] {
  const out: [number, number][] = [];
  NUMBER_RE.lastIndex = 0;
  for (let m = NUMBER_RE.exec(t); m && out.length < limit; m = NUMBER_RE.exec(t)) {
    out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

function lineSpans(t: string): [number, number][] {
  const out: [number, number][] = [];
  let s = 0;
  for (let i = 0; i <= t.length; i++) {
    if (i === t.length || t[i] === '\n') {
      out.push([s, i + 1]);
      s = i + 1;
    }
  }
  return out;
}

export const TEXT_MUTATORS: Record<string, TextMutator> = {
  corrupt_number(t, rng) {
    const spans = numberSpans(t);
    if (spans.length === 0) return t + rng.pick(BAD_NUMBERS);
    let out = t;
    const n = rng.skewed(6);
    // replace from the back so earlier spans keep their offsets
    const chosen = [...new Set(Array.from({ length: n }, () => rng.int(spans.length)))].sort((a, b) => b - a);
    for (const k of chosen) {
      const [a, b] = spans[k];
      out = out.slice(0, a) + rng.pick(BAD_NUMBERS) + out.slice(b);
    }
    return out;
  },
  negate_number(t, rng) {
    const spans = numberSpans(t);
    if (spans.length === 0) return t;
    const [a, b] = spans[rng.int(spans.length)];
    const s = t.slice(a, b);
    return t.slice(0, a) + (s.startsWith('-') ? s.slice(1) : `-${s}`) + t.slice(b);
  },
  huge_number(t, rng) {
    const spans = numberSpans(t);
    if (spans.length === 0) return t;
    const [a, b] = spans[rng.int(spans.length)];
    return (
      t.slice(0, a) + rng.pick(['1000000000', '65536', '100000', '4096', '1e7', '2e9', '1e12']) + t.slice(b)
    );
  },
  delete_lines(t, rng) {
    const lines = lineSpans(t);
    const i = rng.int(lines.length);
    const j = Math.min(lines.length - 1, i + rng.skewed(8) - 1);
    return t.slice(0, lines[i][0]) + t.slice(lines[j][1]);
  },
  duplicate_lines(t, rng) {
    const lines = lineSpans(t);
    const i = rng.int(lines.length);
    const j = Math.min(lines.length - 1, i + rng.skewed(16) - 1);
    const block = t.slice(lines[i][0], lines[j][1]);
    let times = rng.chance(0.1) ? rng.range(10, 500) : rng.range(1, 3);
    // stacked duplications stay within a size the readers' limits are about (not the JS string limit)
    times = Math.max(1, Math.min(times, Math.floor(MAX_MUTANT_CHARS / Math.max(1, block.length))));
    return t.slice(0, lines[j][1]) + block.repeat(times) + t.slice(lines[j][1]);
  },
  swap_lines(t, rng) {
    const lines = lineSpans(t).map(([a, b]) => t.slice(a, b));
    if (lines.length < 2) return t;
    const i = rng.int(lines.length),
      j = rng.int(lines.length);
    [lines[i], lines[j]] = [lines[j], lines[i]];
    return lines.join('');
  },
  insert_char(t, rng) {
    const n = rng.skewed(8);
    let out = t;
    for (let k = 0; k < n; k++) {
      const at = rng.int(out.length + 1);
      const c = rng.pick([
        '<',
        '>',
        '"',
        "'",
        '&',
        '{',
        '}',
        '[',
        ']',
        ':',
        '-',
        '\t',
        '\n',
        '#',
        '*',
        '!',
        '@',
        '(',
        ')',
        '\\',
        '\u0000',
        '\ufffd',
        '\u2028',
        '😀',
        '%',
        '|',
        '/',
        '=',
        ';',
      ]);
      out = out.slice(0, at) + c + out.slice(at);
    }
    return out;
  },
  delete_chars(t, rng) {
    const at = rng.int(t.length);
    return t.slice(0, at) + t.slice(at + rng.skewed(64));
  },
  truncate_text(t, rng) {
    return t.slice(0, rng.int(t.length + 1));
  },
  replace_word(t, rng) {
    // swaps one identifier for another found in the text (names, types, keys)
    const words = t.match(/[A-Za-z_][A-Za-z0-9_:]{1,40}/g);
    if (!words || words.length < 2) return t;
    const a = rng.pick(words),
      b = rng.pick(words);
    const idx = t.indexOf(a, rng.int(t.length));
    const at = idx >= 0 ? idx : t.indexOf(a);
    return t.slice(0, at) + b + t.slice(at + a.length);
  },
  unicode(t, rng) {
    const at = rng.int(t.length + 1);
    const junk = rng.pick([
      '\ud800',
      '\udfff',
      '\u202e',
      '\u0085',
      '\ufeff',
      'Ω≈ç√',
      '\u{10ffff}',
      '\r',
      '\r\n',
    ]);
    return t.slice(0, at) + junk.repeat(rng.range(1, 4)) + t.slice(at);
  },
};

/** applies 1–3 text mutators; returns the text and the names applied */
export function mutateText(
  t: string,
  rng: Rng,
  extra: Record<string, TextMutator> = {},
): { text: string; ops: string[] } {
  const all = { ...TEXT_MUTATORS, ...extra };
  const names = Object.keys(all);
  const n = rng.chance(0.6) ? 1 : rng.range(2, 3);
  const ops: string[] = [];
  let out = t;
  for (let i = 0; i < n; i++) {
    const name = rng.pick(names);
    ops.push(name);
    out = all[name](out, rng);
    if (out.length > MAX_MUTANT_CHARS) out = out.slice(0, MAX_MUTANT_CHARS);
  }
  return { text: out, ops };
}

/** applies 1–3 byte mutators; returns the bytes and the names applied */
export function mutateBytes(
  b: Uint8Array,
  rng: Rng,
  other?: Uint8Array,
): { bytes: Uint8Array; ops: string[] } {
  const names = Object.keys(BYTE_MUTATORS);
  const n = rng.chance(0.6) ? 1 : rng.range(2, 3);
  const ops: string[] = [];
  let out = b;
  for (let i = 0; i < n; i++) {
    const name = rng.pick(names);
    ops.push(name);
    out = BYTE_MUTATORS[name](out, rng, other);
  }
  return { bytes: out, ops };
}

// ------------------------------------------------------------------------------------------ generated

/** random printable text made of a format's alphabet */
export function garbageText(rng: Rng, alphabet: readonly string[], maxTokens = 400): string {
  const n = rng.skewed(maxTokens);
  let s = '';
  for (let i = 0; i < n; i++) s += rng.pick(alphabet);
  return s;
}

/** `depth` nested copies of open … close around `inner` */
export function nest(open: string, close: string, depth: number, inner = ''): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

export const encoder = new TextEncoder();
export const decoder = new TextDecoder('utf-8');
