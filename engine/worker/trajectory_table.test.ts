import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HistoryRing } from './history';
import { PROTOCOL_VERSION, parseCommand, type TrajectoryDump, type WorkerEvent } from './protocol';
import { SimHost } from './sim_host';
import {
  TrajectoryTableError,
  parseTrajectoryCsv,
  trajectoryColumns,
  trajectoryCsv,
  trajectoryJson,
  trajectoryLayout,
} from './trajectory_table';

const v = PROTOCOL_VERSION;
const scene = (name: string) => readFileSync(new URL(`../../scenes/${name}.yaml`, import.meta.url), 'utf8');

async function exported(name: string, opts: { num_worlds?: number; steps: number; capacity?: number }) {
  const events: WorkerEvent[] = [];
  const h = new SimHost((e) => events.push(e), { historyCapacity: opts.capacity });
  h.handle({
    v,
    type: 'load_scene',
    source: { kind: 'text', text: scene(name), file_name: `${name}.yaml` },
    num_worlds: opts.num_worlds,
  });
  h.handle({ v, type: 'step', n: opts.steps });
  h.handle({ v, type: 'export_trajectory', request_id: 7 });
  await h.idle();
  const ready = events.find((e) => e.type === 'ready');
  const answer = events.find((e) => e.type === 'trajectory_export');
  if (ready?.type !== 'ready' || answer?.type !== 'trajectory_export') throw new Error('no answer');
  return { h, info: ready.scene, answer, dump: answer.trajectory, events };
}

describe('trajectory export', () => {
  it('the protocol accepts export_trajectory and refuses a bad one with its key path', () => {
    expect(parseCommand({ v, type: 'export_trajectory', request_id: 1, last: 10 }).ok).toBe(true);
    const bad = parseCommand({ v, type: 'export_trajectory', request_id: 1, last: 0 });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^export_trajectory\.last:/);
  });

  it('names each joint coordinate, writes one row per step and world, and the CSV parses back exactly', async () => {
    const { h, info, answer, dump } = await exported('double_pendulum', { num_worlds: 3, steps: 40 });
    expect(answer.request_id).toBe(7);
    const layout = trajectoryLayout(info);
    expect(trajectoryColumns(layout)).toEqual([
      'step',
      'time',
      'world',
      'shoulder.q',
      'elbow.q',
      'shoulder.v',
      'elbow.v',
    ]);
    expect(dump.step.length).toBe(41); // the initial state and 40 steps
    const table = parseTrajectoryCsv(trajectoryCsv(dump, info).join(''));
    expect(table.columns).toHaveLength(7);
    expect(table.rows).toHaveLength(41 * 3);
    // the last rows are the live state of each world, to the bit
    const sim = h.sim!;
    for (let w = 0; w < 3; w++) {
      const row = table.rows[40 * 3 + w];
      expect(row.slice(0, 3)).toEqual([40, sim.state.time, w]);
      expect(row.slice(3, 5)).toEqual(Array.from(sim.state.joint_q.subarray(w * 2, w * 2 + 2)));
      expect(row.slice(5, 7)).toEqual(Array.from(sim.state.joint_qd.subarray(w * 2, w * 2 + 2)));
    }
    // the pendulum moved: the rows are not copies of the first
    expect(table.rows[40 * 3][3]).not.toBe(table.rows[0][3]);
    // JSON holds the same rows
    const json = JSON.parse(trajectoryJson(dump, info).join('')) as { columns: string[]; rows: number[][] };
    expect(json.columns).toEqual(table.columns);
    expect(json.rows).toEqual(table.rows);
  });

  it('free joints get position, quaternion and twist columns', async () => {
    const { info, dump } = await exported('box_at_rest', { steps: 3 });
    const cols = trajectoryColumns(trajectoryLayout(info));
    const label = info.joint_label[0];
    expect(cols.slice(3, 16)).toEqual(
      ['x', 'y', 'z', 'qx', 'qy', 'qz', 'qw', 'vx', 'vy', 'vz', 'wx', 'wy', 'wz'].map((s) => `${label}.${s}`),
    );
    const t = parseTrajectoryCsv(trajectoryCsv(dump, info).join(''));
    const qn = Math.hypot(...t.rows[3].slice(6, 10));
    expect(qn).toBeCloseTo(1, 12);
  });

  it('keeps a bounded history: the newest steps only', async () => {
    const { dump } = await exported('double_pendulum', { steps: 60, capacity: 25 });
    expect(dump.capacity).toBe(25);
    expect(Array.from(dump.step)).toEqual(Array.from({ length: 25 }, (_, i) => 36 + i));
  });

  it('refuses a dump of another model and a malformed CSV, with the line', async () => {
    const { info, dump } = await exported('double_pendulum', { steps: 2 });
    const other: TrajectoryDump = { ...dump, nq: dump.nq + 1 };
    expect(() => trajectoryCsv(other, info)).toThrow(TrajectoryTableError);
    expect(() => parseTrajectoryCsv('a,b\n1,2\n3\n')).toThrow(/line 3: 1 fields, the header has 2/);
    expect(() => parseTrajectoryCsv('a,b\n1,x\n')).toThrow(/line 2, column 2 \(b\)/);
  });

  it('quotes names with commas and reads them back', () => {
    const info = {
      name: 'm',
      num_worlds: 1,
      joint_type: ['revolute'],
      joint_label: ['a,"b"'],
      joint_q_start: [0, 1],
      joint_qd_start: [0, 1],
      body_world: [0],
    };
    const ring = new HistoryRing(1, 1, 4);
    ring.push(0, 0, [0.5], [-1e-300]);
    const d = ring.dump();
    const dump: TrajectoryDump = { ...d, num_worlds: 1, nq: 1, nv: 1, capacity: 4 };
    const t = parseTrajectoryCsv(trajectoryCsv(dump, info).join(''));
    expect(t.columns).toEqual(['step', 'time', 'world', 'a,"b".q', 'a,"b".v']);
    expect(t.rows).toEqual([[0, 0, 0, 0.5, -1e-300]]);
  });

  it('answers with an error when no scene is loaded', async () => {
    const events: WorkerEvent[] = [];
    const h = new SimHost((e) => events.push(e));
    h.handle({ v, type: 'export_trajectory', request_id: 1 });
    await h.idle();
    const err = events.find((e) => e.type === 'error');
    expect(err?.type === 'error' && err.error.message).toMatch(/no scene is loaded/);
  });
});
