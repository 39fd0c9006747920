/**
 * Typed import errors (SPEC §11): every failure of an asset importer (XML, URDF, MJCF, meshes, USD)
 * is an {@link ImportError} naming the file, the line/column when known, and the reason.
 */

/** an importer failure with its location */
export class ImportError extends Error {
  /** the reason, without location */
  readonly reason: string;

  constructor(
    reason: string,
    /** the file (or asset id) being imported, when known */
    readonly file?: string,
    /** 1-based line in `file`, when known */
    readonly line?: number,
    /** 1-based column in `file`, when known */
    readonly column?: number,
  ) {
    const where = [file, line !== undefined ? `${line}:${column ?? 1}` : undefined]
      .filter((x) => x !== undefined && x !== '')
      .join(':');
    super(where ? `${where}: ${reason}` : reason);
    this.name = 'ImportError';
    this.reason = reason;
  }
}

/** malformed XML (not well-formed, too deep, too large, entity declarations) */
export class XmlSyntaxError extends ImportError {
  constructor(reason: string, file?: string, line?: number, column?: number) {
    super(reason, file, line, column);
    this.name = 'XmlSyntaxError';
  }
}

/** a mesh file that cannot be read (format, size limits, bad indices); binary files carry a byte offset */
export class MeshError extends ImportError {
  constructor(
    reason: string,
    file?: string,
    line?: number,
    /** byte offset in a binary file (STL) */
    readonly offset?: number,
  ) {
    super(offset !== undefined && line === undefined ? `${reason} (at byte ${offset})` : reason, file, line);
    this.name = 'MeshError';
  }
}

/** a reference that resolves outside the allowed folders */
export class OutsideAssetError extends ImportError {
  constructor(
    /** the file the reference is written in ('' when only the path is known) */
    file: string,
    /** the reference as written (or the path read, when no reference is known) */
    readonly ref: string,
    /** the path it resolves to */
    readonly path: string,
    /** the folders assets may come from */
    readonly roots: readonly string[],
    /** what the user can do about it */
    advice = 'pass --allow-outside-assets to read it',
  ) {
    super(
      `${!file ? `'${path}'` : ref === path ? `reference '${ref}'` : `reference '${ref}' resolves to ${path}, which`} lies outside the model's folder and the asset roots (${roots.join(', ')}); ${advice}`,
      file || undefined,
    );
    this.name = 'OutsideAssetError';
  }
}
