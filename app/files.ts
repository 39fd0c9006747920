/**
 * Files from the picker or a drop (single files, folders, zip archives) → one flat file map
 * (POSIX paths → bytes) and the entry file to load. Zip archives are unpacked with fflate, with
 * limits on entry count and inflated size. USDZ archives stay whole: the USD importer reads them.
 */
import { unzipSync } from 'fflate';
import { LIMITS, ZipError, limitMessage, listZip } from '../engine/worker/limits';
import { extOf as ext, rankCandidates } from './candidates';

export const MAX_DROP_FILES = LIMITS.max_upload_files;
export const MAX_DROP_BYTES = LIMITS.max_upload_bytes;

export class DropError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'DropError';
  }
}

/**
 * the file to load among `paths`: the first of {@link rankCandidates} (scene files first, then URDF,
 * MJCF, USD; shallowest, then alphabetical; hidden files and macOS metadata never). With `read`, an
 * MJCF file that another one includes is not the entry (a MuJoCo Menagerie folder opens its
 * scene.xml, which includes the robot and adds the floor and lights), nor is an .xml file that is not
 * MJCF or URDF, nor a file that holds no model.
 */
export function chooseEntry(
  paths: Iterable<string>,
  read?: (path: string) => Uint8Array | undefined,
): string | null {
  return rankCandidates(paths, read).candidates[0]?.path ?? null;
}

/** unpacks a zip archive into `out` under `prefix` */
export function unzipInto(
  name: string,
  data: Uint8Array,
  out: Map<string, Uint8Array>,
  budget: { bytes: number },
): void {
  let count = out.size;
  let entries: Record<string, Uint8Array>;
  if (data.byteLength > LIMITS.max_archive_bytes) {
    throw new DropError(
      name,
      limitMessage(`the zip archive of ${data.byteLength} bytes`, 'max_archive_bytes'),
    );
  }
  // every declared size, the ratios and overlapping entries checked from the central directory
  // before fflate inflates anything (it trusts the headers' sizes)
  try {
    listZip(data, name);
  } catch (e) {
    if (!(e instanceof ZipError)) throw e;
    const at = e.entry !== undefined ? `${name}/${e.entry}` : name;
    throw new DropError(
      at,
      / exceeds |overlaps/.test(e.reason) ? e.reason : `not a readable zip archive (${e.reason})`,
    );
  }
  let inArchive = 0;
  try {
    entries = unzipSync(data, {
      filter: (f) => {
        if (f.name.endsWith('/')) return false;
        count++;
        inArchive++;
        budget.bytes -= f.originalSize;
        if (inArchive > LIMITS.max_archive_entries) {
          throw new DropError(
            name,
            limitMessage(`a zip archive with more than ${inArchive - 1} entries`, 'max_archive_entries'),
          );
        }
        if (count > MAX_DROP_FILES)
          throw new DropError(name, limitMessage(`${count} files`, 'max_upload_files'));
        if (budget.bytes < 0) {
          throw new DropError(
            name,
            limitMessage(`the inflated files (${MAX_DROP_BYTES - budget.bytes} bytes)`, 'max_upload_bytes'),
          );
        }
        if (
          f.originalSize > 1024 * 1024 &&
          f.originalSize / Math.max(1, f.size) > LIMITS.max_compression_ratio
        ) {
          throw new DropError(
            `${name}/${f.name}`,
            limitMessage(
              `an inflate ratio of ${Math.round(f.originalSize / Math.max(1, f.size))}`,
              'max_compression_ratio',
            ),
          );
        }
        return true;
      },
    });
  } catch (e) {
    if (e instanceof DropError) throw e;
    throw new DropError(name, `not a readable zip archive (${e instanceof Error ? e.message : String(e)})`);
  }
  for (const [p, bytes] of Object.entries(entries)) {
    // guard the declared size: fflate trusts the header's originalSize
    if (bytes.byteLength > MAX_DROP_BYTES)
      throw new DropError(name, limitMessage('an entry', 'max_upload_bytes'));
    // entry names are paths inside the drop: '..' and absolute paths cannot climb out of it
    out.set(
      p
        .replace(/\\/g, '/')
        .replace(/^\/+/, '')
        .replace(/(^|\/)\.\.(?=\/|$)/g, '$1_'),
      bytes,
    );
  }
}

/** files read at once: the browser's file reads overlap (one at a time, a 256-file folder took minutes) */
export const READ_CONCURRENCY = 16;

/** hears each finished file read: files done out of all */
export type ReadProgress = (done: number, total: number) => void;

/** thrown by {@link collectFiles} when `cancelled()` turned true */
export class ReadCancelled extends Error {
  constructor() {
    super('reading the dropped files was cancelled');
    this.name = 'ReadCancelled';
  }
}

/**
 * reads named files into a map, expanding zip archives; up to {@link READ_CONCURRENCY} reads run at
 * once, `progress` hears each finished file and `cancelled` is asked before each read; `gate`, when
 * given, is awaited before each read (the end-to-end tests hold a read open with it)
 */
export async function collectFiles(
  items: { path: string; file: Blob }[],
  progress?: ReadProgress,
  cancelled?: () => boolean,
  gate?: () => Promise<void>,
): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const budget = { bytes: MAX_DROP_BYTES };
  if (items.length > MAX_DROP_FILES)
    throw new DropError('(drop)', limitMessage(`${items.length} files`, 'max_upload_files'));
  for (const { path, file } of items) {
    budget.bytes -= file.size;
    if (budget.bytes < 0) {
      throw new DropError(
        path,
        limitMessage(`the dropped files (more than ${MAX_DROP_BYTES} bytes)`, 'max_upload_bytes'),
      );
    }
  }
  const read: (Uint8Array | undefined)[] = new Array(items.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      if (gate) await gate();
      if (cancelled?.()) throw new ReadCancelled();
      const i = next++;
      read[i] = new Uint8Array(await items[i].file.arrayBuffer());
      progress?.(++done, items.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, items.length) }, worker));
  // in the drop's order, so the map (and what wins on a repeated path) does not depend on timing
  for (let i = 0; i < items.length; i++) {
    const { path } = items[i];
    if (ext(path) === '.zip') unzipInto(path, read[i]!, out, budget);
    else out.set(path.replace(/^\/+/, ''), read[i]!);
  }
  return out;
}

/** files from an <input type=file> (keeps folder-relative paths of directory pickers) */
export function filesFromInput(list: FileList): { path: string; file: Blob }[] {
  return Array.from(list).map((f) => ({
    path: (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name,
    file: f,
  }));
}

type Entry = FileSystemEntry;

function readAllEntries(dir: FileSystemDirectoryEntry): Promise<Entry[]> {
  const reader = dir.createReader();
  const all: Entry[] = [];
  return new Promise((resolve, reject) => {
    const next = () =>
      reader.readEntries((batch) => {
        if (batch.length === 0) resolve(all);
        else {
          all.push(...batch);
          if (all.length > MAX_DROP_FILES)
            reject(
              new DropError(
                dir.fullPath,
                limitMessage(`more than ${MAX_DROP_FILES} files`, 'max_upload_files'),
              ),
            );
          else next();
        }
      }, reject);
    next();
  });
}

/** files from a drop, walking dropped folders */
export async function filesFromDrop(dt: DataTransfer): Promise<{ path: string; file: Blob }[]> {
  const out: { path: string; file: Blob }[] = [];
  const entries = Array.from(dt.items)
    .filter((i) => i.kind === 'file')
    .map((i) => (typeof i.webkitGetAsEntry === 'function' ? i.webkitGetAsEntry() : null));
  if (entries.some((e) => e === null)) {
    return Array.from(dt.files).map((f) => ({ path: f.name, file: f }));
  }
  // the folders are walked in parallel
  const walk = async (e: Entry): Promise<void> => {
    if (out.length > MAX_DROP_FILES)
      throw new DropError(e.fullPath, limitMessage(`more than ${MAX_DROP_FILES} files`, 'max_upload_files'));
    if (e.isFile) {
      const file = await new Promise<File>((res, rej) => (e as FileSystemFileEntry).file(res, rej));
      out.push({ path: e.fullPath.replace(/^\/+/, ''), file });
    } else if (e.isDirectory) {
      await Promise.all((await readAllEntries(e as FileSystemDirectoryEntry)).map(walk));
    }
  };
  await Promise.all(entries.map((e) => (e ? walk(e) : undefined)));
  // sorted, so the file map does not depend on which read finished first
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
