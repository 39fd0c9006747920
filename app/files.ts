/**
 * Files from the picker or a drop (single files, folders, zip archives) → one flat file map
 * (POSIX paths → bytes) and the entry file to load. Zip archives are unpacked with fflate, with
 * limits on entry count and inflated size. USDZ archives stay whole: the USD importer reads them.
 */
import { unzipSync } from 'fflate';
import { LIMITS, limitMessage } from '../engine/worker/limits';

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

/** entry preference: scene files first, then URDF, MJCF, USD */
const ENTRY_RANK: Record<string, number> = {
  '.yaml': 0,
  '.yml': 0,
  '.json': 1,
  '.urdf': 2,
  '.xml': 3,
  '.mjcf': 3,
  '.usda': 4,
  '.usd': 4,
  '.usdc': 5,
  '.usdz': 5,
};

function ext(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const i = base.lastIndexOf('.');
  return i <= 0 ? '' : base.slice(i).toLowerCase();
}

/**
 * whether a path is tool bookkeeping rather than a model: a hidden file or folder (Omniverse's
 * `.collect.mapping.json`, `.git/`) or macOS's zip metadata (`__MACOSX/`, `._name` forks)
 */
function isBookkeeping(path: string): boolean {
  return path.split('/').some((seg) => seg.startsWith('.') || seg === '__MACOSX');
}

/**
 * the MJCF files among `paths` that another MJCF file includes (`<include file="…">`, relative to
 * the including file), and the .xml files that are not MJCF at all (ROS's package.xml, launch files)
 */
function notMjcfEntries(paths: string[], read: (path: string) => Uint8Array | undefined): Set<string> {
  const out = new Set<string>();
  const decoder = new TextDecoder();
  for (const p of paths) {
    const e = ext(p);
    if (e !== '.xml' && e !== '.mjcf') continue;
    const bytes = read(p);
    if (!bytes) continue;
    const text = decoder.decode(bytes.subarray(0, 1 << 20));
    if (!/<mujoco[\s>/]/.test(text)) {
      out.add(p);
      continue;
    }
    const dir = p.slice(0, p.lastIndexOf('/') + 1);
    for (const m of text.matchAll(/<include\s[^>]*?file\s*=\s*(["'])(.*?)\1/g)) out.add(joinPosix(dir, m[2]));
  }
  return out;
}

/** `rel` resolved against the folder `dir` (ending in '/' or empty), '.' and '..' folded */
function joinPosix(dir: string, rel: string): string {
  const parts: string[] = [];
  for (const seg of (rel.startsWith('/') ? rel : dir + rel).split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/');
}

/**
 * the file to load among `paths`: best-ranked extension, then shallowest, then alphabetical;
 * hidden files and macOS metadata are never the entry. With `read`, an MJCF file that another one
 * includes is not the entry (a MuJoCo Menagerie folder opens its scene.xml, which includes the
 * robot and adds the floor and lights), nor is an .xml file that is not MJCF.
 */
export function chooseEntry(
  paths: Iterable<string>,
  read?: (path: string) => Uint8Array | undefined,
): string | null {
  const all = [...paths];
  const excluded = read ? notMjcfEntries(all, read) : new Set<string>();
  let best: string | null = null;
  let key: [number, number, string] | null = null;
  for (const p of all) {
    const r = ENTRY_RANK[ext(p)];
    if (r === undefined || isBookkeeping(p) || excluded.has(p)) continue;
    // an MJCF .xml is only a candidate when no better format is present; depth decides among equals
    const k: [number, number, string] = [r, p.split('/').length, p];
    if (!key || k[0] < key[0] || (k[0] === key[0] && (k[1] < key[1] || (k[1] === key[1] && k[2] < key[2])))) {
      key = k;
      best = p;
    }
  }
  return best;
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

/** reads named files into a map, expanding zip archives */
export async function collectFiles(items: { path: string; file: Blob }[]): Promise<Map<string, Uint8Array>> {
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
    const bytes = new Uint8Array(await file.arrayBuffer());
    if (ext(path) === '.zip') unzipInto(path, bytes, out, budget);
    else out.set(path.replace(/^\/+/, ''), bytes);
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
  const walk = async (e: Entry): Promise<void> => {
    if (out.length > MAX_DROP_FILES)
      throw new DropError(e.fullPath, limitMessage(`more than ${MAX_DROP_FILES} files`, 'max_upload_files'));
    if (e.isFile) {
      const file = await new Promise<File>((res, rej) => (e as FileSystemFileEntry).file(res, rej));
      out.push({ path: e.fullPath.replace(/^\/+/, ''), file });
    } else if (e.isDirectory) {
      for (const c of await readAllEntries(e as FileSystemDirectoryEntry)) await walk(c);
    }
  };
  for (const e of entries) if (e) await walk(e);
  return out;
}
