/**
 * Readable model names: the name a file gives its model (MJCF `<mujoco model>`, URDF `<robot name>`,
 * USD `defaultPrim`), unless it is a placeholder that says nothing of the model ("root", "World",
 * "Scene", …), in which case the file's own name (without folders, archive members and extension).
 */

/** names that are the format's or a tool's default, never the model's (compared in lower case) */
export const PLACEHOLDER_NAMES: ReadonlySet<string> = new Set([
  'root',
  'world',
  'scene',
  'stage',
  'env',
  'envs',
  'mujoco',
  'mujoco model',
  'robot',
  'model',
  'default',
  'physicsscene',
]);

/**
 * the file's name without folders, an archive member (`cube.usdz[cube.usdc]` → `cube.usdz`) and its
 * extension: `a/b/crazyflie.usd` → `crazyflie`; '' for none
 */
export function fileStem(path: string | undefined): string {
  if (!path) return '';
  const outer = path.replace(/\[.*$/, '');
  const base = outer.slice(Math.max(outer.lastIndexOf('/'), outer.lastIndexOf('\\')) + 1);
  return base.replace(/\.[^.]*$/, '');
}

/** whether `name` names nothing (empty, or a placeholder) */
export function isPlaceholderName(name: string | undefined): boolean {
  return !name || !name.trim() || PLACEHOLDER_NAMES.has(name.trim().toLowerCase());
}

/**
 * the model's display name: `given` when it names the model, else the file's stem, else `given`
 * as it is (a placeholder beats nothing), else `fallback`
 */
export function readableModelName(
  given: string | undefined,
  file: string | undefined,
  fallback = 'model',
): string {
  if (!isPlaceholderName(given)) return given!.trim();
  return fileStem(file) || given?.trim() || fallback;
}
