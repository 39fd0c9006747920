/**
 * A scene's control file (`control: {source, loop}`, SAP Warp's control-sequence JSON): parsed,
 * validated and turned into a {@link ControlSequence} in the model's DOF order.
 *
 * SAP Warp's semantics, kept here: rows are in the scene's public (authoring) joint order — assets
 * first, then inline joints — one world wide (tiled over the replicated worlds) or all worlds wide;
 * `joint_target_pos` is sampled every `dt` (or the spacing of `times`) and held between samples;
 * the first row of `joint_q` / `joint_qd` is the initial state; `control.loop` (else the file's
 * `loop`) replays the sequence. `joint_target_vel` and `joint_f` tracks of the same form are an
 * extension SAP Warp's loader does not read. Our model orders joints breadth-first per tree, so every
 * column is mapped from its authored DOF to the model's DOF.
 */
import { z } from '../zod';
import { JOINT_QD_SIZE, JOINT_Q_SIZE, type ModelBuilder, type SapModel } from '../../model';
import type { ControlKeyframe, ControlSequence, ControlTrack } from '../../state/control_sequence';
import { SceneError, formatKeyPath, type KeySegment } from './errors';
import type { Authoring } from './authoring';
import { parseSceneText, locateKeyPath } from './source';
import { flatten } from './validate';

/** a control file's problem: reported at the scene's `control.source`, naming the file and its key path */
export class ControlSequenceError extends SceneError {
  constructor(
    /** the control file's path, as read */
    readonly controlFile: string,
    /** the key path inside the control file ('' for the whole file) */
    readonly controlPath: string,
    reason: string,
    line?: number,
  ) {
    const where = `${controlFile}${line !== undefined ? `:${line}` : ''}`;
    super(['control', 'source'], `${where}: ${controlPath ? `${controlPath}: ` : ''}${reason}`);
    this.name = 'ControlSequenceError';
  }
}

/** a finite number (zod 4's z.number() takes no ±∞) */
const finite = z.number();
const rows = z.array(z.array(finite).min(1)).min(1);
const strictObj = <T extends z.ZodRawShape>(shape: T) => {
  const allowed = `allowed keys: ${Object.keys(shape).join(', ')}`;
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? allowed : undefined),
  });
};

const stateSection = (order: string) =>
  strictObj({
    order: z.literal(order).optional(),
    values: rows,
  });

const trackSection = strictObj({
  order: z.literal('sap_public_joint_dof').optional(),
  dt: finite.positive().optional(),
  times: z.array(finite).min(2).optional(),
  values: rows,
});

/** SAP Warp's control file (schema version 1) */
export const controlFileSchema = strictObj({
  schema_version: z.literal(1).optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  /** descriptive metadata (column names, the scene it was made for); only the columns are checked */
  model: z.record(z.string(), z.unknown()).optional(),
  keyframes: z.array(z.looseObject({ time: finite, label: z.string().optional() })).optional(),
  joint_q: stateSection('sap_public_joint_q').optional(),
  joint_qd: stateSection('sap_public_joint_qd').optional(),
  joint_target_pos: trackSection.optional(),
  joint_target_vel: trackSection.optional(),
  joint_f: trackSection.optional(),
  loop: z.boolean().optional(),
});
export type ControlFileDoc = z.output<typeof controlFileSchema>;

/** parses and validates a control file's text (JSON or YAML) */
export function parseControlFile(text: string, file: string): ControlFileDoc {
  let doc: unknown;
  try {
    doc = parseSceneText(text, file.endsWith('.json') ? file : undefined);
  } catch (e) {
    const err = e as SceneError;
    throw new ControlSequenceError(file, '', err.reason ?? String(e), err.line);
  }
  const r = controlFileSchema.safeParse(doc);
  if (!r.success) {
    const issue = flatten(r.error.issues[0], doc)[0];
    const line = locateKeyPath(doc, issue.keyPath, issue.code === 'unknown_key')?.line;
    throw new ControlSequenceError(file, issue.path, issue.message, line);
  }
  const d = r.data;
  if (!d.joint_target_pos && !d.joint_target_vel && !d.joint_f) {
    throw new ControlSequenceError(file, '', 'no joint_target_pos, joint_target_vel or joint_f to play');
  }
  return d;
}

const TRACKS = ['joint_target_pos', 'joint_target_vel', 'joint_f'] as const;

/** per authored joint: its first coordinate and DOF in the authored (public) order */
function authoredLayout(b: ModelBuilder): { q: number[]; d: number[] } {
  const q = [0],
    d = [0];
  for (const j of b.joints) {
    q.push(q[q.length - 1] + JOINT_Q_SIZE[j.type]);
    d.push(d[d.length - 1] + JOINT_QD_SIZE[j.type]);
  }
  return { q, d };
}

/**
 * Writes the first rows of the file's `joint_q` and `joint_qd` into the authored world (SAP Warp
 * applies them to the initial state), before the builder is finalized; replicated worlds copy them.
 */
export function applyControlInitialState(
  doc: ControlFileDoc,
  file: string,
  auth: Authoring,
  b: ModelBuilder,
): void {
  const { q, d } = authoredLayout(b);
  for (const [name, total] of [
    ['joint_q', q[q.length - 1]],
    ['joint_qd', d[d.length - 1]],
  ] as const) {
    const sec = doc[name];
    if (!sec) continue;
    const row = sec.values[0];
    if (row.length !== total) {
      throw new ControlSequenceError(
        file,
        `${name}.values[0]`,
        `expected ${total} values (one world's ${name === 'joint_q' ? 'coordinates' : 'DOFs'} in the scene's joint order); got ${row.length}`,
      );
    }
    auth.write(
      name,
      row.map((_, k) => k),
      row,
      ['control', 'source'],
    );
  }
}

/** the joint and DOF names a column may use: `label`, its last `/` part, each with `.suffix` for multi-DOF joints */
function columnMatches(column: string, label: string): boolean {
  const base = column.includes('.') ? column.slice(0, column.indexOf('.')) : column;
  return base === label || base === label.slice(label.lastIndexOf('/') + 1);
}

/**
 * Builds the played sequence after finalize: each track's columns mapped from the authored DOF order
 * (one world, tiled, or every world) to the model's. `order[j]` is the model joint of authored joint j
 * in world 0. Returns the warnings to report (column names that do not match the joints they drive).
 */
export function buildControlSequence(
  doc: ControlFileDoc,
  file: string,
  source: string,
  loopOverride: boolean | undefined,
  b: ModelBuilder,
  model: SapModel,
  order: readonly number[],
): { sequence: ControlSequence; warnings: string[] } {
  const { d } = authoredLayout(b);
  const perWorld = d[d.length - 1];
  const nw = model.num_worlds;
  const nb = b.joints.length;
  const ndof = model.joint_dof_count;
  // authored DOF k of world w → model DOF
  const toModel = new Int32Array(perWorld * nw);
  for (let w = 0; w < nw; w++) {
    b.joints.forEach((rec, j) => {
      const start = model.joint_qd_start[w * nb + order[j]];
      for (let k = 0; k < JOINT_QD_SIZE[rec.type]; k++) toModel[w * perWorld + d[j] + k] = start + k;
    });
  }
  const warnings: string[] = [];
  const track = (name: (typeof TRACKS)[number]): ControlTrack | null => {
    const sec = doc[name];
    if (!sec) return null;
    const at = (...p: KeySegment[]) => formatKeyPath([name, ...p]);
    let sample_dt = sec.dt;
    if (sample_dt === undefined && sec.times) sample_dt = sec.times[1] - sec.times[0];
    if (sample_dt === undefined) throw new ControlSequenceError(file, at(), 'needs dt or times');
    if (!(sample_dt > 0)) throw new ControlSequenceError(file, at('times'), 'must increase');
    const width = sec.values[0].length;
    if (width !== perWorld && width !== perWorld * nw) {
      throw new ControlSequenceError(
        file,
        at('values', 0),
        `expected ${perWorld} values (one world's DOFs in the scene's joint order)${nw > 1 ? ` or ${perWorld * nw} (every world's)` : ''}; got ${width}`,
      );
    }
    const values = new Float64Array(sec.values.length * ndof);
    sec.values.forEach((row, f) => {
      if (row.length !== width)
        throw new ControlSequenceError(
          file,
          at('values', f),
          `expected ${width} values like row 0; got ${row.length}`,
        );
      for (let k = 0; k < perWorld * nw; k++) values[f * ndof + toModel[k]] = row[k % width];
    });
    return { sample_dt, frame_count: sec.values.length, values };
  };
  const tracks = {
    joint_target_pos: track('joint_target_pos'),
    joint_target_vel: track('joint_target_vel'),
    joint_f: track('joint_f'),
  };

  const columns = doc.model?.joint_target_pos_columns;
  if (Array.isArray(columns) && columns.length === perWorld) {
    b.joints.forEach((rec, j) => {
      for (let k = 0; k < JOINT_QD_SIZE[rec.type]; k++) {
        const c = columns[d[j] + k];
        if (typeof c === 'string' && !columnMatches(c, rec.label) && !warnings.length) {
          warnings.push(
            `control: ${file}: column ${d[j] + k} is named '${c}' but drives joint '${rec.label}' (the scene's joint order decides; names are not matched)`,
          );
        }
      }
    });
  }
  const duration = Math.max(
    ...TRACKS.map((t) => (tracks[t] ? tracks[t].frame_count * tracks[t].sample_dt : 0)),
  );
  const keyframes: ControlKeyframe[] = (doc.keyframes ?? []).map((k, i) => ({
    time: k.time,
    label: k.label ?? `keyframe ${i}`,
  }));
  const base = file.slice(file.lastIndexOf('/') + 1);
  return {
    sequence: {
      name: doc.name ?? base,
      source,
      loop: loopOverride ?? doc.loop ?? false,
      ...tracks,
      duration,
      keyframes,
    },
    warnings,
  };
}
