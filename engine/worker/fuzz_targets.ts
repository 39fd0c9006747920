/**
 * Fuzz targets of the worker's input surfaces (engine/io/fuzz drives them in a worker thread):
 * - {@link runFiles}: a file map + entry through exactly what a drop or a `load_scene` command runs
 *   (`prepareScene`: loadAnyFile, options, Simulation), then a few steps of the loaded model;
 * - {@link runCommand}: one protocol message through a long-lived {@link SimHost}.
 * A target returns an Outcome when the input ended as SPEC §11 requires and throws a FuzzFinding
 * otherwise. Test support only: nothing in the app imports this module.
 */
import { UNAUTHORED_MATERIAL_FIELDS } from '../collision/material';
import { ModelError, type SapModel } from '../model';
import { ImportError } from '../io/assets/errors';
import { AssetError } from '../io/assets/resolver';
import { SceneError } from '../io/scene/errors';
import { FuzzFinding, locationKind, type Outcome } from '../io/fuzz/finding';
import type { FuzzInput } from '../io/fuzz/surfaces';
import { createBackend } from '../backends';
import { OptionsError } from '../sap/options';
import { LoadError, toErrorInfo } from './load_any';
import { PROTOCOL_VERSION, type WorkerEvent } from './protocol';
import { SimHost, prepareScene } from './sim_host';

const TYPED = [SceneError, ImportError, AssetError, ModelError, OptionsError] as const;

function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e).slice(0, 300);
  const at = (e.stack ?? '').split('\n').slice(1, 5).join(' | ');
  return `${e.name}: ${e.message.slice(0, 300)} ${at}`;
}

/** the innermost error of a chain of `cause`s that is not a wrapper */
function rootCause(e: unknown): unknown {
  let x = e;
  for (let k = 0; k < 8 && x instanceof Error && x.cause !== undefined; k++) x = x.cause;
  return x;
}

/** judges a failed load: a typed error with a location, or a finding */
export function judgeError(e: unknown, entry: string): Outcome {
  const own = e instanceof LoadError ? ((e.cause as unknown) ?? e) : e;
  const root = rootCause(own);
  const typed = (x: unknown) => x instanceof LoadError || TYPED.some((C) => x instanceof C);
  if (!typed(own) || !typed(root)) {
    throw new FuzzFinding('untyped', describe(typed(own) ? root : own));
  }
  const msg = own instanceof Error ? own.message : String(own);
  if (/internal (importer )?error/i.test(msg)) throw new FuzzFinding('untyped', `${msg.slice(0, 300)}`);
  const info = e instanceof LoadError ? e.info : toErrorInfo(e, 'load', entry);
  const where = locationKind(info);
  if (!where) throw new FuzzFinding('no_location', info.message.slice(0, 300));
  return {
    result: 'rejected',
    error: (own as Error).name,
    where,
    message: info.message.slice(0, 300),
  };
}

/** NaN anywhere, or non-finite poses, masses and sizes, in a model that loaded */
export function checkModel(m: SapModel): void {
  const mustBeFinite = new Set([
    'gravity',
    'body_mass',
    'body_com',
    'body_inertia',
    'body_gravcomp',
    'joint_X_p',
    'joint_X_c',
    'joint_axis',
    'shape_X_bs',
    'shape_size',
    'mesh_vertices',
    'hfield_data',
    'joint_q0',
    'joint_qd0',
  ]);
  for (const [k, v] of Object.entries(m)) {
    if (!(v instanceof Float64Array || v instanceof Float32Array)) continue;
    const all = mustBeFinite.has(k);
    const nanMeansUnauthored = (UNAUTHORED_MATERIAL_FIELDS as readonly string[]).includes(k);
    for (let i = 0; i < v.length; i++) {
      if ((Number.isNaN(v[i]) && !nanMeansUnauthored) || (all && !Number.isFinite(v[i]))) {
        throw new FuzzFinding('invalid_model', `model.${k}[${i}] = ${v[i]} after a successful load`);
      }
    }
  }
}

/** loads a file map as the worker does, then steps the model a little; the step must never throw */
export async function runFiles(input: FuzzInput): Promise<Outcome> {
  if (input.kind !== 'files') throw new Error('runFiles: expected a file map');
  let prepared;
  try {
    prepared = await prepareScene({ kind: 'files', files: input.files, entry: input.entry }, {}, {});
  } catch (e) {
    return judgeError(e, input.entry);
  }
  const { sim } = prepared;
  checkModel(sim.model);
  // a few steps of what loaded (small models only: the fuzzer tests loading, not throughput)
  const steps = sim.model.body_count <= 64 && sim.model.joint_dof_count <= 256 ? 2 : 0;
  for (let i = 0; i < steps; i++) {
    try {
      sim.step();
    } catch (e) {
      throw new FuzzFinding('untyped', `the step threw on a loaded model: ${describe(e)}`);
    }
  }
  return { result: 'loaded' };
}

// ------------------------------------------------------------------------------------------ protocol

let host: SimHost | null = null;
let events: WorkerEvent[] = [];
let boxScene = '';

async function freshHost(): Promise<SimHost> {
  if (!boxScene) {
    const { readFile } = await import('node:fs/promises');
    boxScene = await readFile(new URL('../../scenes/box_at_rest.yaml', import.meta.url), 'utf8');
  }
  const h = new SimHost((e) => events.push(e), {
    historyCapacity: 64,
    // `set_backend: webgpu` exercises the switch and its fallback without compiling GPU kernels
    createBackend: (kind, model, opts) =>
      createBackend(kind, model, opts, {
        acquire: async () => ({ ok: false, reason: 'no adapter (fuzz host)' }),
      }),
    probeAdapter: async () => undefined,
  });
  h.handle({
    v: PROTOCOL_VERSION,
    type: 'load_scene',
    source: { kind: 'text', text: boxScene, file_name: 'box_at_rest.yaml' },
  });
  await h.idle();
  if (!h.sim) throw new Error('the protocol fuzz host could not load box_at_rest');
  return h;
}

/** one untrusted message into a running host; the host must answer with typed events and keep working */
export async function runCommand(input: FuzzInput): Promise<Outcome> {
  if (input.kind !== 'command') throw new Error('runCommand: expected a message');
  host ??= await freshHost();
  const h = host;
  events = [];
  try {
    h.handle(input.message);
  } catch (e) {
    throw new FuzzFinding('untyped', `SimHost.handle threw: ${describe(e)}`);
  }
  await h.idle();
  const errors = events.filter((e): e is Extract<WorkerEvent, { type: 'error' }> => e.type === 'error');
  for (const e of errors) {
    if (typeof e.error.code !== 'string' || typeof e.error.message !== 'string' || !e.error.message) {
      throw new FuzzFinding('untyped', `error event without code or message: ${JSON.stringify(e.error)}`);
    }
  }
  // the host still works: a step answers with a frame (or a divergence report)
  const before = events.length;
  h.handle({ v: PROTOCOL_VERSION, type: 'pause' });
  h.handle({ v: PROTOCOL_VERSION, type: 'step', n: 1 });
  await h.idle();
  const after = events.slice(before);
  if (
    !h.sim ||
    !after.some((e) => e.type === 'frame' || (e.type === 'error' && e.error.code === 'divergence'))
  ) {
    throw new FuzzFinding(
      'broken_host',
      `no frame after a step: ${JSON.stringify(after.map((e) => e.type))}`,
    );
  }
  // keep the host small and sane for the next input
  if (
    h.sim.model.num_worlds > 4 ||
    h.sim.model.body_count > 64 ||
    errors.some((e) => e.error.code === 'divergence')
  ) {
    host = null;
  }
  const protocolError = errors.find((e) => e.error.code === 'protocol');
  if (protocolError)
    return { result: 'rejected', error: 'protocol', where: 'path', message: protocolError.error.message };
  const other = errors[0];
  if (other) {
    const where = locationKind(other.error) ?? 'path';
    return { result: 'rejected', error: other.error.code, where, message: other.error.message.slice(0, 300) };
  }
  return { result: 'loaded' };
}
