/**
 * Trajectory export tables: the history ring's steps ({@link TrajectoryDump}) as one row per step and
 * world, `step, time, world`, then every coordinate and velocity of that world's joints, each column
 * named after its joint (`shoulder.q`, `shoulder.v`, `base.x` … `base.qw`, `base.vx` … `base.wz`).
 * Written as CSV (RFC 4180 quoting, numbers in the shortest form that reads back to the same double)
 * or JSON, as lists of string chunks so that a long history never becomes one giant string.
 */
import type { SceneInfo, TrajectoryDump } from './protocol';

/** what the tables need from a scene's description */
export type TrajectoryScene = Pick<
  SceneInfo,
  'name' | 'num_worlds' | 'joint_type' | 'joint_label' | 'joint_q_start' | 'joint_qd_start' | 'body_world'
>;

/** one world's columns: names, and where each reads in the world's slice of q and qd */
export interface TrajectoryLayout {
  /** coordinate column names (world 0's joints; every world has the same) */
  q: string[];
  /** velocity column names */
  v: string[];
  /** per world: the first index of its joints' coordinates in q, and of its DOFs in qd */
  q_offset: number[];
  qd_offset: number[];
}

/** the leading columns of every row */
export const TRAJECTORY_KEY_COLUMNS = ['step', 'time', 'world'] as const;

const FREE_Q = ['x', 'y', 'z', 'qx', 'qy', 'qz', 'qw'];
const FREE_V = ['vx', 'vy', 'vz', 'wx', 'wy', 'wz'];
const BALL_Q = ['qx', 'qy', 'qz', 'qw'];
const BALL_V = ['wx', 'wy', 'wz'];

/** the suffixes of a joint's coordinates and velocities (`nq`, `nv` of them) */
function coordinateNames(type: string, nq: number, nv: number): { q: string[]; v: string[] } {
  if (type === 'free' && nq === 7 && nv === 6) return { q: FREE_Q, v: FREE_V };
  if (type === 'ball' && nq === 4 && nv === 3) return { q: BALL_Q, v: BALL_V };
  if (nq === 1 && nv === 1) return { q: ['q'], v: ['v'] };
  return {
    q: Array.from({ length: nq }, (_, i) => `q${i}`),
    v: Array.from({ length: nv }, (_, i) => `v${i}`),
  };
}

/** a trajectory cannot be tabulated (worlds of different layouts, a dump of another model) */
export class TrajectoryTableError extends Error {
  override name = 'TrajectoryTableError';
}

/**
 * the columns of one world and where each world's values start. Joint names that repeat get `#k`
 * (their joint index) so that every column name is unique.
 */
export function trajectoryLayout(scene: TrajectoryScene): TrajectoryLayout {
  const nw = scene.num_worlds;
  const byWorld: number[][] = Array.from({ length: nw }, () => []);
  for (let j = 0; j < scene.joint_type.length; j++) byWorld[scene.body_world[j]]?.push(j);
  const signature = (js: number[]) =>
    js
      .map(
        (j) =>
          `${scene.joint_type[j]}:${scene.joint_q_start[j + 1] - scene.joint_q_start[j]}:${scene.joint_qd_start[j + 1] - scene.joint_qd_start[j]}`,
      )
      .join(',');
  const first = signature(byWorld[0] ?? []);
  for (let w = 1; w < nw; w++) {
    if (signature(byWorld[w]) !== first) {
      throw new TrajectoryTableError(
        `world ${w} has other joints than world 0: one table of columns cannot hold both`,
      );
    }
  }
  const seen = new Map<string, number>();
  for (const j of byWorld[0] ?? []) seen.set(scene.joint_label[j], (seen.get(scene.joint_label[j]) ?? 0) + 1);
  const q: string[] = [];
  const v: string[] = [];
  for (const j of byWorld[0] ?? []) {
    const label = scene.joint_label[j];
    const name = (seen.get(label) ?? 0) > 1 ? `${label}#${j}` : label;
    const nq = scene.joint_q_start[j + 1] - scene.joint_q_start[j];
    const nv = scene.joint_qd_start[j + 1] - scene.joint_qd_start[j];
    const c = coordinateNames(scene.joint_type[j], nq, nv);
    for (const s of c.q) q.push(`${name}.${s}`);
    for (const s of c.v) v.push(`${name}.${s}`);
  }
  const start = (arr: number[], w: number) => {
    const js = byWorld[w];
    return js.length > 0 ? arr[js[0]] : 0;
  };
  return {
    q,
    v,
    q_offset: Array.from({ length: nw }, (_, w) => start(scene.joint_q_start, w)),
    qd_offset: Array.from({ length: nw }, (_, w) => start(scene.joint_qd_start, w)),
  };
}

/** every column name of a row, in order */
export function trajectoryColumns(layout: TrajectoryLayout): string[] {
  return [...TRAJECTORY_KEY_COLUMNS, ...layout.q, ...layout.v];
}

function checkDump(dump: TrajectoryDump, scene: TrajectoryScene, layout: TrajectoryLayout): void {
  const n = dump.step.length;
  const perQ = layout.q.length,
    perV = layout.v.length;
  if (
    dump.num_worlds !== scene.num_worlds ||
    dump.nq !== perQ * scene.num_worlds ||
    dump.nv !== perV * scene.num_worlds ||
    dump.q.length !== n * dump.nq ||
    dump.qd.length !== n * dump.nv
  ) {
    throw new TrajectoryTableError(
      `the trajectory (${dump.num_worlds} worlds, ${dump.nq} coordinates, ${dump.nv} DOFs per step) is not of the loaded scene (${scene.num_worlds} worlds, ${perQ * scene.num_worlds} coordinates, ${perV * scene.num_worlds} DOFs)`,
    );
  }
}

/** visits each row (step k, world w) with its values, in step-major order */
function forEachRow(
  dump: TrajectoryDump,
  layout: TrajectoryLayout,
  visit: (k: number, w: number, values: number[]) => void,
): void {
  const perQ = layout.q.length,
    perV = layout.v.length;
  const row = new Array<number>(3 + perQ + perV);
  for (let k = 0; k < dump.step.length; k++) {
    for (let w = 0; w < dump.num_worlds; w++) {
      row[0] = dump.step[k];
      row[1] = dump.time[k];
      row[2] = w;
      const qo = k * dump.nq + layout.q_offset[w];
      const vo = k * dump.nv + layout.qd_offset[w];
      for (let i = 0; i < perQ; i++) row[3 + i] = dump.q[qo + i];
      for (let i = 0; i < perV; i++) row[3 + perQ + i] = dump.qd[vo + i];
      visit(k, w, row);
    }
  }
}

/** a CSV field: quoted when it holds a comma, a quote or a line break */
export function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** rows per chunk of the written text */
const ROWS_PER_CHUNK = 256;

/** the trajectory as CSV text chunks (header line first; join them, or hand them to a Blob) */
export function trajectoryCsv(dump: TrajectoryDump, scene: TrajectoryScene): string[] {
  const layout = trajectoryLayout(scene);
  checkDump(dump, scene, layout);
  const chunks = [trajectoryColumns(layout).map(csvField).join(',') + '\n'];
  let lines: string[] = [];
  forEachRow(dump, layout, (_k, _w, values) => {
    lines.push(values.join(','));
    if (lines.length === ROWS_PER_CHUNK) {
      chunks.push(lines.join('\n') + '\n');
      lines = [];
    }
  });
  if (lines.length) chunks.push(lines.join('\n') + '\n');
  return chunks;
}

/**
 * the trajectory as JSON text chunks: `{ format, version, model, num_worlds, columns, rows }`, each
 * row the values of `columns` (as in the CSV)
 */
export function trajectoryJson(dump: TrajectoryDump, scene: TrajectoryScene): string[] {
  const layout = trajectoryLayout(scene);
  checkDump(dump, scene, layout);
  const head = {
    format: 'sap-trajectory',
    version: 1,
    model: scene.name,
    num_worlds: scene.num_worlds,
    convention: 'free joints: position [m], quaternion xyzw; velocities [v_COM; ω] in world [m/s, rad/s]',
    columns: trajectoryColumns(layout),
  };
  const chunks = [JSON.stringify(head).slice(0, -1) + ',"rows":['];
  let lines: string[] = [];
  let first = true;
  forEachRow(dump, layout, (_k, _w, values) => {
    lines.push((first ? '' : ',') + JSON.stringify(values));
    first = false;
    if (lines.length === ROWS_PER_CHUNK) {
      chunks.push(lines.join('\n'));
      lines = [];
    }
  });
  if (lines.length) chunks.push(lines.join('\n'));
  chunks.push(']}\n');
  return chunks;
}

/** a CSV table read back: its header and its numeric rows */
export interface ParsedTable {
  columns: string[];
  rows: number[][];
}

/** splits one CSV line into fields (RFC 4180 quotes; no line breaks inside fields) */
function splitCsvLine(line: string, lineNo: number): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let s = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new TrajectoryTableError(`line ${lineNo}: unterminated quote`);
        s += line.slice(i, q);
        if (line[q + 1] === '"') {
          s += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      out.push(s);
    } else {
      const c = line.indexOf(',', i);
      out.push(line.slice(i, c < 0 ? line.length : c));
      i = c < 0 ? line.length : c;
    }
    if (i >= line.length) return out;
    if (line[i] !== ',') throw new TrajectoryTableError(`line ${lineNo}: text after a quoted field`);
    i++;
  }
}

/**
 * parses a trajectory CSV (as {@link trajectoryCsv} writes it): every row must have the header's
 * column count and numbers only; an error names the line and column
 */
export function parseTrajectoryCsv(text: string): ParsedTable {
  const lines = text.split(/\r?\n/);
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  if (!lines.length) throw new TrajectoryTableError('line 1: the CSV is empty (no header)');
  const columns = splitCsvLine(lines[0], 1);
  const rows: number[][] = [];
  for (let l = 1; l < lines.length; l++) {
    const f = splitCsvLine(lines[l], l + 1);
    if (f.length !== columns.length) {
      throw new TrajectoryTableError(`line ${l + 1}: ${f.length} fields, the header has ${columns.length}`);
    }
    const row = f.map((x, c) => {
      const v = x.trim() === '' ? NaN : Number(x);
      if (Number.isNaN(v) && x !== 'NaN') {
        throw new TrajectoryTableError(
          `line ${l + 1}, column ${c + 1} (${columns[c]}): "${x}" is not a number`,
        );
      }
      return v;
    });
    rows.push(row);
  }
  return { columns, rows };
}
