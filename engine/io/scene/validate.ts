/**
 * Schema validation of a parsed scene document: runs {@link sceneSchema}, turns zod issues into
 * {@link SceneIssue}s with key paths (choosing the most relevant branch of unions), and applies the
 * strict / lenient policy for unknown keys: strict ⇒ error; lenient ⇒ warning, key dropped.
 */
import { z } from 'zod';
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

/** a type / literal mismatch at the union's own path (the branch did not apply at all) */
function isShallowMismatch(issue: z.ZodIssue, depth: number): boolean {
  return (
    issue.path.length <= depth &&
    (issue.code === 'invalid_type' || issue.code === 'invalid_literal' || issue.code === 'invalid_union')
  );
}

/** the scene issues (key path, code, message) of one zod issue found in the document `root` */
export function flatten(issue: z.ZodIssue, root: unknown): SceneIssue[] {
  const path = issue.path as KeySegment[];
  const missing =
    path.length > 0 &&
    valueAt(root, path) === undefined &&
    (issue.code === 'invalid_type' || issue.code === 'invalid_literal' || issue.code === 'invalid_union');
  if (missing) return [mk(path, 'missing_key', `required key is missing`)];
  switch (issue.code) {
    case 'unrecognized_keys': {
      const allowed = issue.message.startsWith('allowed keys:') ? `; ${issue.message}` : '';
      return issue.keys.map((k) => mk([...path, k], 'unknown_key', `unknown key '${k}'${allowed}`));
    }
    case 'invalid_union': {
      const depth = path.length;
      const branches = issue.unionErrors.map((e) => e.issues);
      // prefer a branch that got past the type check (deeper issues, or non-type issues)
      const relevant = branches.filter((b) => b.some((i) => !isShallowMismatch(i, depth)));
      if (relevant.length > 0) {
        const score = (b: z.ZodIssue[]) => Math.max(...b.map((i) => i.path.length));
        relevant.sort((a, b) => score(b) - score(a) || a.length - b.length);
        return relevant[0].flatMap((i) => flatten(i, root));
      }
      const expected = new Set<string>();
      for (const b of branches) {
        for (const i of b) {
          if (i.code === 'invalid_type') expected.add(i.expected);
          else if (i.code === 'invalid_literal') expected.add(JSON.stringify(i.expected));
          else if (i.code === 'invalid_union') expected.add('…');
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
    case 'invalid_union_discriminator':
      if (valueAt(root, path) === undefined) {
        return [
          mk(
            path,
            'missing_key',
            `required key is missing; allowed: ${issue.options.map(String).join(', ')}`,
          ),
        ];
      }
      return [
        mk(
          path,
          'invalid_value',
          `invalid value ${describeValue(valueAt(root, path))}; allowed: ${issue.options.map(String).join(', ')}`,
        ),
      ];
    case 'invalid_enum_value':
      return [
        mk(
          path,
          'invalid_value',
          `invalid value ${describeValue(issue.received)}; allowed: ${issue.options.join(', ')}`,
        ),
      ];
    case 'invalid_literal':
      return [
        mk(
          path,
          'invalid_value',
          `expected ${JSON.stringify(issue.expected)}; got ${describeValue(issue.received)}`,
        ),
      ];
    case 'invalid_type':
      return [
        mk(path, 'invalid_type', `expected ${issue.expected}; got ${describeValue(valueAt(root, path))}`),
      ];
    case 'too_small':
    case 'too_big': {
      const v = valueAt(root, path);
      return [
        mk(
          path,
          'invalid_value',
          `${issue.message.replace(/^(Number|String|Array) must/, 'must')}; got ${describeValue(v)}`,
        ),
      ];
    }
    case 'invalid_string':
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
