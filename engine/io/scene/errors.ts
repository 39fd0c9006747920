/**
 * Typed errors of the scene loader (SPEC §5.1, §11). Every failure of parsing, validation or building
 * is a {@link SceneError} carrying the key path of the offending entry (e.g.
 * `bodies[0].shapes[1].cfg.densty`) and, where the source text is known, its line and column.
 */

/** one segment of a key path: an object key or an array index */
export type KeySegment = string | number;

/** formats key-path segments as `a.b[0].c` */
export function formatKeyPath(segments: readonly KeySegment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? s : `.${s}`;
  }
  return out;
}

/** one problem found while validating a scene */
export interface SceneIssue {
  /** formatted key path ('' for the document root) */
  path: string;
  /** the same path as segments */
  keyPath: KeySegment[];
  /** 'unknown_key', 'invalid_type', 'invalid_value', 'expression', 'solver_option', … */
  code: string;
  /** human-readable reason, without the path */
  message: string;
  line?: number;
  column?: number;
}

/** base class of every loader error */
export class SceneError extends Error {
  /** formatted key path of the offending entry ('' for the whole document) */
  readonly path: string;
  /** the reason, without location */
  readonly reason: string;
  /** 1-based source position, when the scene came from text */
  line?: number;
  column?: number;
  /** the scene file name, when known */
  file?: string;

  constructor(
    path: string | readonly KeySegment[],
    reason: string,
    readonly keyPath: KeySegment[] = typeof path === 'string' ? [] : [...path],
  ) {
    const p = typeof path === 'string' ? path : formatKeyPath(path);
    super(p ? `${p}: ${reason}` : reason);
    this.name = 'SceneError';
    this.path = p;
    this.reason = reason;
  }

  /** attaches a source location and rewrites the message to include it */
  locate(file: string | undefined, line: number | undefined, column: number | undefined): this {
    if (file !== undefined) this.file = file;
    if (line !== undefined) this.line = line;
    if (column !== undefined) this.column = column;
    const where = [this.file, this.line !== undefined ? `${this.line}:${this.column ?? 1}` : undefined]
      .filter((x) => x !== undefined)
      .join(':');
    const body = this.path ? `${this.path}: ${this.reason}` : this.reason;
    this.message = where ? `${where}: ${body}` : body;
    return this;
  }
}

/** the text is not valid YAML / JSON */
export class SceneSyntaxError extends SceneError {
  constructor(reason: string, line?: number, column?: number, file?: string) {
    super('', reason);
    this.name = 'SceneSyntaxError';
    this.locate(file, line, column);
  }
}

/** the document does not match the schema; `issues` lists every problem found */
export class SceneValidationError extends SceneError {
  constructor(readonly issues: SceneIssue[]) {
    const first = issues[0];
    const more =
      issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})` : '';
    super(first.path, `${first.message}${more}`, first.keyPath);
    this.name = 'SceneValidationError';
  }
}

/** a recognized scene feature that this loader cannot build yet (strict mode) */
export class SceneUnsupportedError extends SceneError {
  constructor(path: string | readonly KeySegment[], reason: string) {
    super(path, reason);
    this.name = 'SceneUnsupportedError';
  }
}

/** a numeric expression could not be evaluated */
export class ExprError extends SceneError {
  constructor(
    path: string | readonly KeySegment[],
    reason: string,
    /** 1-based column inside the expression text */
    readonly exprColumn?: number,
  ) {
    super(path, reason);
    this.name = 'ExprError';
  }
}

/** one place an asset was looked for */
export interface AssetPlace {
  /** where the root came from: '--asset-root', 'SAP_STUDIO_ASSET_ROOT', 'cache', 'beside the scene', … */
  origin: string;
  /** the resolver path that was tried */
  path: string;
}

/**
 * An asset file found in none of the places searched: names the source (repo, rev, path, or a plain
 * path), every place looked in, and what would fix it.
 */
export class SceneAssetNotFoundError extends SceneError {
  constructor(
    path: readonly KeySegment[],
    /** what was looked for, e.g. `git https://…/newton-assets.git @ 261cd1f… path a/b.usda` */
    readonly wanted: string,
    /** the git source, when the asset has one */
    readonly git: { repo: string; rev?: string; path: string } | undefined,
    /** every place tried, in order */
    readonly tried: AssetPlace[],
    /** commands or options that would make the asset found, one per line */
    readonly fix: string[],
  ) {
    const places = tried.map((t) => `\n  ${t.origin}: ${t.path}`).join('');
    const fixes = fix.map((f) => `\n  ${f}`).join('');
    super(path, `${wanted} not found; looked in:${places}\nto fix:${fixes}`, [...path]);
    this.name = 'SceneAssetNotFoundError';
  }
}
