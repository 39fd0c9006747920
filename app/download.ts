/** saving what the studio makes (videos, trajectories) as downloaded files */

/** a file-name-safe form of a model name: letters, digits, `-`, `_` and `.` only ("model" when empty) */
export function fileSlug(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents off their letters
    .replace(/[^\w.-]+/g, '_')
    .replace(/^[_.]+|[_.]+$/g, '')
    .slice(0, 80);
  return s || 'model';
}

/** `<model>-YYYYMMDD-HHMMSS.<ext>` in local time: names sort by when they were made */
export function stampedFileName(model: string, ext: string, at: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp =
    `${at.getFullYear()}${p(at.getMonth() + 1)}${p(at.getDate())}` +
    `-${p(at.getHours())}${p(at.getMinutes())}${p(at.getSeconds())}`;
  return `${fileSlug(model)}-${stamp}.${ext}`;
}

/** starts the browser's download of `blob` as `name` */
export function downloadBlob(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // the download has taken its copy once the click's task ran
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
