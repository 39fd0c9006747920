/**
 * The CLI's outcomes (SPEC §9): exit codes, the usage error, and the JSON error document that
 * `--json` prints on stdout when a command fails.
 */
import type { ErrorOutput } from './schema';

/** the CLI's exit codes: 0 ok, 1 the run failed or diverged (or its input could not be loaded), 2 usage */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** bad flags or arguments: exit code 2 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** where an error points: the file, its line and column, and a scene key path, when known */
export type ErrorLocation = NonNullable<ErrorOutput['error']['location']>;

/** `{ error: { kind, message, location } }`: what `--json` prints for a failure */
export type ErrorDocument = ErrorOutput;

/** `SceneValidationError` → `scene_validation` */
function snake(name: string): string {
  return name
    .replace(/Error$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
}

/** whether an error is a usage error: ours, or node:util parseArgs' unknown or malformed options */
export function isUsageError(e: unknown): boolean {
  if (e instanceof UsageError) return true;
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/** the exit code of a failure */
export function exitCodeOf(e: unknown): number {
  return isUsageError(e) ? EXIT.usage : EXIT.failed;
}

/** the error document of a failure, with its location from the engine's typed errors */
export function errorDocument(err: unknown): ErrorDocument {
  const e = err instanceof Error ? err : new Error(String(err));
  const any = e as Error & {
    code?: unknown;
    path?: unknown;
    file?: unknown;
    line?: unknown;
    column?: unknown;
  };
  const location: ErrorLocation = {};
  if (typeof any.file === 'string' && any.file) location.file = any.file;
  if (typeof any.line === 'number') location.line = any.line;
  if (typeof any.column === 'number') location.column = any.column;
  let kind: string;
  let message = e.message;
  if (isUsageError(e)) kind = 'usage';
  else if (any.code === 'ENOENT' || any.code === 'EISDIR' || any.code === 'EACCES') {
    kind = any.code === 'ENOENT' ? 'file_not_found' : any.code === 'EISDIR' ? 'is_a_directory' : 'permission';
    if (typeof any.path === 'string') {
      location.file = any.path;
      const what = {
        ENOENT: 'file not found',
        EISDIR: 'is a folder, not a file',
        EACCES: 'permission denied',
      };
      message = `${any.path}: ${what[any.code as keyof typeof what]}`;
    }
  } else {
    kind = e.name && e.name !== 'Error' && e.name !== 'TypeError' ? snake(e.name) : 'internal';
    // scene errors carry a key path; asset errors the path that failed
    if (e.name.startsWith('Scene') || e.name === 'ExprError') {
      if (typeof any.path === 'string' && any.path) location.key_path = any.path;
    } else if (e.name === 'AssetError' && typeof any.path === 'string' && !location.file) {
      location.file = any.path;
    }
  }
  return { error: { kind, message, location: Object.keys(location).length ? location : null } };
}

/**
 * JSON text with every non-finite number as null (JSON has no Infinity or NaN); the reason for
 * such a value is said beside it by the command that wrote it
 */
export function toJson(value: unknown, indent?: number): string {
  return JSON.stringify(
    value,
    (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v),
    indent,
  );
}

/**
 * exits once stdout and stderr have handed everything written so far to the OS: a pipe that is
 * read slowly still gets the whole output (process.exit alone drops what is still queued)
 */
export function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const done = (): void => {
    if (--pending === 0) process.exit(code);
  };
  // a reader that went away (`| head`) is not a failure of the command
  for (const s of [process.stdout, process.stderr]) s.on('error', () => process.exit(code));
  process.stdout.write('', done);
  process.stderr.write('', done);
}
