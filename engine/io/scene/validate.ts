/**
 * Schema validation of a parsed scene document: runs {@link sceneSchema}, turns zod issues into
 * {@link SceneIssue}s with key paths (choosing the most relevant branch of unions), and applies the
 * strict / lenient policy for unknown keys: strict ⇒ error; lenient ⇒ warning, key dropped.
 */
import type { z } from '../zod';
import { formatKeyPath, SceneValidationError, type KeySegment, type SceneIssue } from './errors';
import { sceneSchema, type SceneDoc } from './schema';
import { locateKeyPath } from './source';

/** issues located (line/column) per validation pass; the rest keep their key paths only */
const MAX_LOCATED_ISSUES = 50;

export interface ValidateOptions {
  /** unknown keys are errors (default true); otherwise they become warnings and are ignored */
  strict?: boolean;
}

export interface ValidationResult {
  ok: boolean;
  /** the parsed document (numbers evaluated, solver options normalized) when ok */
  data?: SceneDoc;
  /** errors (empty when ok) */
  issues: SceneIssue[];
  /** lenient mode: unknown keys that were ignored, as `path: message` lines */
  warnings: string[];
  /** the unknown keys found (strict and lenient) */
  unknownKeys: SceneIssue[];
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `'${v.length > 40 ? v.slice(0, 40) + '…' : v}'`;
  return String(v);
}

function valueAt(root: unknown, path: readonly KeySegment[]): unknown {
  let cur = root;
  for (const s of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[s];
  }
  return cur;
}

function mk(keyPath: KeySegment[], code: string, message: string): SceneIssue {
  return { path: formatKeyPath(keyPath), keyPath, code, message };
}

type Issue = z.core.$ZodIssue;

/**
 * a type / literal mismatch at the union's own path (the branch did not apply at all): a value
 * outside an enum of its own type did reach the branch
 */
function isShallowMismatch(issue: Issue, value: unknown): boolean {
  if (issue.path.length > 0) return false;
  if (issue.code === 'invalid_value') {
    return issue.values.length === 1 || !issue.values.some((v) => typeof v === typeof value);
  }
  return issue.code === 'invalid_type' || issue.code === 'invalid_union';
}

/** what a type check expected, in words (zod 4 names an integer 'int' and a tuple 'tuple') */
const expectedName = (expected: string) =>
  expected === 'int' ? 'integer' : expected === 'tuple' ? 'array' : expected;

/** "must be greater than 0", "must contain at least 1 element(s)": a bound's message */
function boundMessage(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  const small = issue.code === 'too_small';
  const bound = String(small ? issue.minimum : issue.maximum);
  // a tuple's length issue states no `inclusive`: its bound is the tuple's length
  const { inclusive = true, exact } = issue as { inclusive?: boolean; exact?: boolean };
  if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') {
    const relation = exact
      ? 'exactly equal to'
      : small
        ? inclusive
          ? 'greater than or equal to'
          : 'greater than'
        : inclusive
          ? 'less than or equal to'
          : 'less than';
    return `must be ${relation} ${bound}`;
  }
  const unit = issue.origin === 'string' ? 'character(s)' : 'element(s)';
  const relation = exact
    ? 'exactly'
    : small
      ? inclusive
        ? 'at least'
        : issue.origin === 'string'
          ? 'over'
          : 'more than'
      : inclusive
        ? 'at most'
        : issue.origin === 'string'
          ? 'under'
          : 'less than';
  return `must contain ${relation} ${bound} ${unit}`;
}

/** `issues` (paths relative to a union) at the union's path `at` */
const under = (at: readonly PropertyKey[], issues: readonly Issue[]): Issue[] =>
  issues.map((i) => ({ ...i, path: [...at, ...i.path] }));

/** the scene issues (key path, code, message) of one zod issue found in the document `root` */
export function flatten(issue: Issue, root: unknown): SceneIssue[] {
  const path = issue.path as KeySegment[];
  const missing =
    path.length > 0 &&
    valueAt(root, path) === undefined &&
    (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union');
  if (missing && issue.code === 'invalid_union' && issue.errors.length === 0) {
    // a discriminated union without its discriminator (the message lists the allowed values)
    return [mk(path, 'missing_key', `required key is missing; ${issue.message}`)];
  }
  if (missing && typeof path[path.length - 1] === 'number') {
    // zod 3.25's tuple reports a list one entry short as its last entry missing
    const parent = path.slice(0, -1);
    const list = valueAt(root, parent);
    if (Array.isArray(list) && list.length === path[path.length - 1]) {
      return [
        mk(parent, 'invalid_value', `must contain at least ${list.length + 1} element(s); got an array`),
      ];
    }
  }
  if (missing) return [mk(path, 'missing_key', `required key is missing`)];
  switch (issue.code) {
    case 'unrecognized_keys': {
      const allowed = issue.message.startsWith('allowed keys:') ? `; ${issue.message}` : '';
      return issue.keys.map((k) => mk([...path, k], 'unknown_key', `unknown key '${k}'${allowed}`));
    }
    case 'invalid_union': {
      if (issue.errors.length === 0) {
        // a discriminated union: no option has this discriminator value
        return [
          mk(path, 'invalid_value', `invalid value ${describeValue(valueAt(root, path))}; ${issue.message}`),
        ];
      }
      const branches = issue.errors;
      // prefer a branch that got past the type check (deeper issues, or non-type issues)
      const value = valueAt(root, path);
      const relevant = branches.filter((b) => b.some((i) => !isShallowMismatch(i, value)));
      if (relevant.length > 0) {
        const score = (b: readonly Issue[]) => Math.max(...b.map((i) => i.path.length));
        relevant.sort((a, b) => score(b) - score(a) || a.length - b.length);
        return under(path, relevant[0]).flatMap((i) => flatten(i, root));
      }
      const expected = new Set<string>();
      for (const b of branches) {
        for (const i of b) {
          if (i.code === 'invalid_type') expected.add(expectedName(i.expected));
          else if (i.code === 'invalid_value') {
            // ±∞ are numbers (zod 4's z.number() takes finite numbers only; see schema.ts)
            for (const v of i.values)
              if (typeof v !== 'number' || Number.isFinite(v)) expected.add(JSON.stringify(v));
          } else if (i.code === 'invalid_union') expected.add('…');
        }
      }
      return [
        mk(
          path,
          'invalid_type',
          `expected ${[...expected].join(' | ')}; got ${describeValue(valueAt(root, path))}`,
        ),
      ];
    }
    case 'invalid_value': {
      const got = describeValue(valueAt(root, path));
      if (issue.values.length === 1) {
        return [mk(path, 'invalid_value', `expected ${JSON.stringify(issue.values[0])}; got ${got}`)];
      }
      return [
        mk(path, 'invalid_value', `invalid value ${got}; allowed: ${issue.values.map(String).join(', ')}`),
      ];
    }
    case 'invalid_type':
      if (issue.expected === 'number' && typeof valueAt(root, path) === 'number') {
        return [mk(path, 'invalid_value', 'Number must be finite')]; // ±∞ or NaN
      }
      return [
        mk(
          path,
          'invalid_type',
          `expected ${expectedName(issue.expected)}; got ${describeValue(valueAt(root, path))}`,
        ),
      ];
    case 'too_small':
    case 'too_big':
      return [mk(path, 'invalid_value', `${boundMessage(issue)}; got ${describeValue(valueAt(root, path))}`)];
    case 'invalid_format':
      return [mk(path, 'invalid_value', `${issue.message}; got ${describeValue(valueAt(root, path))}`)];
    case 'custom': {
      const code = (issue.params as { scene_code?: string } | undefined)?.scene_code ?? 'invalid_value';
      return [mk(path, code, issue.message)];
    }
    default:
      return [mk(path, 'invalid_value', issue.message)];
  }
}

function dedupe(issues: SceneIssue[]): SceneIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.path}\u0000${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function deleteAt(root: unknown, path: readonly KeySegment[]): void {
  const parent = valueAt(root, path.slice(0, -1));
  if (parent && typeof parent === 'object' && !Array.isArray(parent)) {
    delete (parent as Record<string, unknown>)[path[path.length - 1] as string];
  }
}

/**
 * Validates a parsed scene document against the schema. Never throws; see {@link assertValidScene}.
 */
export function validateScene(doc: unknown, opts: ValidateOptions = {}): ValidationResult {
  const strict = opts.strict ?? true;
  let current: unknown = doc;
  const unknownKeys: SceneIssue[] = [];
  for (let pass = 0; pass < 8; pass++) {
    const r = sceneSchema.safeParse(current);
    if (r.success) {
      return {
        ok: true,
        data: r.data,
        issues: [],
        warnings: unknownKeys.map(
          (i) => `${i.path}${i.line !== undefined ? ` (line ${i.line})` : ''}: ${i.message} (ignored)`,
        ),
        unknownKeys,
      };
    }
    const issues = dedupe(r.error.issues.flatMap((i) => flatten(i, current)));
    // locating is linear in the text: the first issues are the ones reported
    for (const i of issues.slice(0, MAX_LOCATED_ISSUES)) {
      const loc = locateKeyPath(doc, i.keyPath, i.code === 'unknown_key');
      i.line = loc?.line;
      i.column = loc?.column;
    }
    const unknown = issues.filter((i) => i.code === 'unknown_key');
    const others = issues.filter((i) => i.code !== 'unknown_key');
    if (strict || others.length > 0 || unknown.length === 0) {
      return {
        ok: false,
        issues: strict ? issues : others.length ? others : issues,
        warnings: [],
        unknownKeys: [...unknownKeys, ...unknown],
      };
    }
    // lenient: drop the unknown keys and parse again
    if (current === doc) current = structuredClone(doc);
    for (const u of unknown) deleteAt(current, u.keyPath);
    unknownKeys.push(...unknown);
  }
  return {
    ok: false,
    issues: [mk([], 'invalid_value', 'could not validate the scene')],
    warnings: [],
    unknownKeys,
  };
}

/** validates and returns the parsed document, or throws {@link SceneValidationError} */
export function assertValidScene(
  doc: unknown,
  opts: ValidateOptions = {},
): { data: SceneDoc; warnings: string[] } {
  const r = validateScene(doc, opts);
  if (!r.ok || !r.data) throw new SceneValidationError(r.issues);
  return { data: r.data, warnings: r.warnings };
}
