/**
 * Preparing a scene off to the side: the file read and imported, its explicit options merged and
 * validated, its contact buffers checked against the limits and its Simulation built, without
 * touching the scene that is running (a failed load leaves it as it is).
 */
import { LIMITS, limitMessage } from '../../io/limits';
import { ShapeFlags, type SapModel } from '../../model';
import { Simulation } from '../../pipeline';
import { resolveSolverOptions } from '../../sap/options';
import { LoadError, loadAnyFile, type LoadAnyOptions, type LoadedAny } from '../load_any';
import type { SceneSource } from '../protocol';
import type { OptionValue } from './context';

/** what a load may override of the file: replication, step size, (MJCF) the starting keyframe, strictness */
export interface SceneLoadOptions {
  num_worlds?: number;
  /** [s] */
  dt?: number;
  keyframe?: string | number;
  /** refuse recognized features the engine only approximates (default: warn) */
  strict?: boolean;
}

/** a loaded scene and its simulation, not yet shown */
export interface PreparedScene {
  loaded: LoadedAny;
  sim: Simulation;
  explicit: Record<string, OptionValue>;
}

/**
 * Loads a scene source and builds its simulation without touching any running one: the file
 * (`loadAnyFile`), the explicit options (the file's merged with `extra`, or `keep` on a reload),
 * validated, and the Simulation. Throws a {@link LoadError} (or the options' / model's typed error).
 */
export async function prepareScene(
  source: SceneSource,
  loadOpts: SceneLoadOptions,
  extra: Record<string, OptionValue | null> | null,
  keep: Record<string, OptionValue> = {},
  watch: Pick<LoadAnyOptions, 'progress' | 'cancelled'> = {},
): Promise<PreparedScene> {
  const files =
    source.kind === 'text'
      ? new Map([[source.file_name, new TextEncoder().encode(source.text)]])
      : source.files;
  const entry = source.kind === 'text' ? source.file_name : source.entry;
  const loaded = await loadAnyFile(files, entry, { ...loadOpts, ...watch });
  watch.progress?.({ phase: 'simulation', done: 0, total: 1 });
  const explicit =
    extra === null ? { ...keep } : mergeOptions(loaded.solver as Record<string, OptionValue>, extra);
  resolveSolverOptions(explicit); // validate before building anything
  const cap = (explicit.max_rigid_contact as number | undefined) ?? loaded.max_rigid_contact;
  checkCapacity(loaded.model, cap, entry);
  const sim = new Simulation(loaded.model, { dt: loaded.dt, solver: explicit, max_rigid_contact: cap });
  // per-stage wall times for the stats panel (a clock read per stage; results are unchanged)
  sim.stage_timing = true;
  return { loaded, sim, explicit };
}

/** the contact buffers of a model must fit the limit before they are allocated */
function checkCapacity(model: SapModel, cap: number, file: string): void {
  const fail = (reason: string): never => {
    throw new LoadError({
      code: 'load',
      file,
      path: 'max_rigid_contact',
      message: `${file}: ${reason}`,
      reason,
    });
  };
  if (!(Number.isInteger(cap) && cap >= 1)) fail(`max_rigid_contact must be an integer ≥ 1; got ${cap}`);
  if (cap > LIMITS.max_rigid_contact) fail(limitMessage(`max_rigid_contact = ${cap}`, 'max_rigid_contact'));
  const slots = cap * model.num_worlds;
  if (slots > LIMITS.max_contact_slots) {
    fail(
      limitMessage(
        `${cap} contacts × ${model.num_worlds} worlds = ${slots} contact slots`,
        'max_contact_slots',
      ),
    );
  }
  // the default broad phase lists every candidate shape pair up front: bound that list
  const perWorld = new Float64Array(model.num_worlds);
  let shared = 0;
  for (let s = 0; s < model.shape_count; s++) {
    if (!(model.shape_flags[s] & ShapeFlags.COLLIDE_SHAPES)) continue;
    const w = model.shape_world[s];
    if (w < 0) shared++;
    else perWorld[w]++;
  }
  let pairs = 0;
  for (let w = 0; w < model.num_worlds; w++)
    pairs += ((perWorld[w] + shared) * (perWorld[w] + shared - 1)) / 2;
  if (pairs > LIMITS.max_broadphase_pairs) {
    throw new LoadError({
      code: 'load',
      file,
      path: 'shapes',
      message: `${file}: ${limitMessage(`${Math.round(pairs)} candidate shape pairs`, 'max_broadphase_pairs')}`,
      reason: limitMessage(`${Math.round(pairs)} candidate shape pairs`, 'max_broadphase_pairs'),
    });
  }
}

/** explicit options with a patch applied (null removes a key) */
export function mergeOptions(
  base: Record<string, OptionValue>,
  patch: Record<string, OptionValue | null>,
): Record<string, OptionValue> {
  const out: Record<string, OptionValue> = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    // an own property even for '__proto__', so the options validator sees (and rejects) it
    else Object.defineProperty(out, k, { value: v, enumerable: true, configurable: true, writable: true });
  }
  return out;
}
