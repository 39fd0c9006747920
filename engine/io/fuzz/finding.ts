/**
 * What a fuzz target reports for one input. A target returns an {@link Outcome} when the input ended
 * the way SPEC §11 requires (a loaded model, or a typed error with a location) and throws a
 * {@link FuzzFinding} otherwise; anything else it throws is a finding too ('uncaught').
 */

export type FindingKind =
  /** an exception of an untyped class, or an "internal error" wrapper around one */
  | 'untyped'
  /** a typed error that says neither file nor line/column, key path or byte offset */
  | 'no_location'
  /** a model loaded but holds NaN / infinite values where only finite ones make sense */
  | 'invalid_model'
  /** a worker or host stopped answering correctly after the input (protocol surface) */
  | 'broken_host'
  /** Object.prototype (or another builtin prototype) changed */
  | 'prototype_pollution'
  /** HTML or script from the input reached a place where it would be interpreted */
  | 'injection'
  /** thrown by the runner: the input took longer than the per-input limit */
  | 'slow'
  /** thrown by the pool: the input did not finish (killed), or the worker died (crash, out of memory) */
  | 'hang'
  | 'crash'
  | 'uncaught';

export class FuzzFinding extends Error {
  constructor(
    readonly kind: FindingKind,
    message: string,
  ) {
    super(message);
    this.name = 'FuzzFinding';
  }
}

/** how an input ended when it ended well */
export interface Outcome {
  result: 'loaded' | 'rejected';
  /** for rejections: the error class */
  error?: string;
  /** for rejections: which kind of location the error carries */
  where?: 'line' | 'path' | 'offset' | 'file';
  /** for rejections: the message (first 300 characters) */
  message?: string;
}

/** a located-error description as the worker protocol carries it */
export interface LocatedInfo {
  file?: string;
  line?: number;
  path?: string;
  offset?: number;
}

/** the most precise location kind an error description carries, or undefined when it has none */
export function locationKind(e: LocatedInfo): Outcome['where'] | undefined {
  if (e.line !== undefined && Number.isFinite(e.line)) return 'line';
  if (e.offset !== undefined && Number.isFinite(e.offset)) return 'offset';
  if (e.path) return 'path';
  if (e.file) return 'file';
  return undefined;
}
