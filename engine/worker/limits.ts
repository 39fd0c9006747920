/**
 * The input limits (engine/io/limits.ts) for the studio: the app reaches the engine only through
 * engine/worker and engine/index.ts, so the table is re-exported here.
 */
export { LIMITS, formatLimit, limitMessage, limitsTable, type LimitName } from '../io/limits';
/** zip listing with the archive limits checked before inflating (the studio's zip drops) */
export { listZip, ZipError, type ZipEntryRecord } from '../io/zip';
/** the reason text with a UTF-16/UTF-32 byte-order mark is refused (the studio's inline text drops) */
export { nonUtf8BomReason } from '../io/assets/resolver';
