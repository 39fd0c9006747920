/**
 * Load feedback from the worker: `load_progress` events while a dropped robot loads (its files, its
 * meshes, the model, the simulation), and `cancel_load`, after which the running scene stays.
 */
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, type WorkerEvent } from './protocol';
import { SimHost } from './sim_host';

const v = PROTOCOL_VERSION;

/** an ASCII STL tetrahedron of edge `s` [m] */
function tetra(s: number): Uint8Array {
  const p = [
    [0, 0, 0],
    [s, 0, 0],
    [0, s, 0],
    [0, 0, s],
  ];
  const faces = [
    [0, 2, 1],
    [0, 1, 3],
    [0, 3, 2],
    [1, 2, 3],
  ];
  const body = faces
    .map(
      (f) =>
        `facet normal 0 0 0\nouter loop\n${f.map((i) => `vertex ${p[i].join(' ')}`).join('\n')}\nendloop\nendfacet`,
    )
    .join('\n');
  return new TextEncoder().encode(`solid t\n${body}\nendsolid t\n`);
}

const URDF = `<robot name="two_links">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="meshes/a.stl"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="meshes/b.stl"/></geometry></collision>
  </link>
  <joint name="j" type="revolute">
    <parent link="base"/><child link="arm"/><origin xyz="0 0 0.2"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="1"/>
  </joint>
</robot>`;

function robotFiles(): Map<string, Uint8Array> {
  return new Map([
    ['robot/robot.urdf', new TextEncoder().encode(URDF)],
    ['robot/meshes/a.stl', tetra(0.1)],
    ['robot/meshes/b.stl', tetra(0.05)],
    // dropped but not used by the robot: the mesh total is an upper bound
    ['robot/meshes/spare.stl', tetra(0.02)],
  ]);
}
const robot = () => ({ kind: 'files' as const, files: robotFiles(), entry: 'robot/robot.urdf' });
const cube = {
  kind: 'text' as const,
  file_name: 'cube.yaml',
  text: `schema_version: 1
bodies:
  - id: cube
    transform: { p: [0, 0, 0.5] }
    shapes:
      - { type: box, hx: 0.1, hy: 0.1, hz: 0.1, cfg: { density: 1000 } }
`,
};

function newHost() {
  const events: WorkerEvent[] = [];
  let onEvent: (e: WorkerEvent) => void = () => {};
  const h = new SimHost((e) => {
    events.push(e);
    onEvent(e);
  });
  const of = <T extends WorkerEvent['type']>(t: T) =>
    events.filter((e): e is Extract<WorkerEvent, { type: T }> => e.type === t);
  return { h, of, events, listen: (fn: (e: WorkerEvent) => void) => (onEvent = fn) };
}

describe('load progress and cancel (protocol v4)', () => {
  it('a dropped robot reports its files, each mesh, the model and the simulation, then ready', async () => {
    const { h, of, events } = newHost();
    h.handle({ v, type: 'load_scene', source: robot(), request_id: 7 });
    await h.idle();
    const progress = of('load_progress');
    expect(progress.every((p) => p.request_id === 7)).toBe(true);
    const meshes = progress.filter((p) => p.phase === 'meshes');
    expect(meshes.map((p) => [p.done, p.total, p.file])).toEqual([
      [1, 3, 'robot/meshes/a.stl'],
      [2, 3, 'robot/meshes/b.stl'],
    ]);
    expect(progress[0]).toMatchObject({ phase: 'files', file: 'robot/robot.urdf' });
    const phases = [...new Set(progress.map((p) => p.phase))];
    expect(phases).toEqual(['files', 'meshes', 'model', 'simulation']);
    // every progress event comes before the ready event of its load
    const ready = events.findIndex((e) => e.type === 'ready');
    expect(ready).toBeGreaterThan(events.lastIndexOf(progress.at(-1)!));
    expect(of('ready')[0].scene.body_count).toBeGreaterThanOrEqual(2);
  });

  it('cancel during a load: no model is built, the running scene stays, the next load works', async () => {
    const { h, of, listen } = newHost();
    h.handle({ v, type: 'load_scene', source: cube });
    await h.idle();
    const sim = h.sim;
    expect(of('ready')).toHaveLength(1);
    // the user presses cancel as the first mesh arrives
    listen((e) => {
      if (e.type === 'load_progress' && e.phase === 'meshes') h.handle({ v, type: 'cancel_load' });
    });
    h.handle({ v, type: 'load_scene', source: robot(), request_id: 2 });
    await h.idle();
    listen(() => {});
    expect(of('ready')).toHaveLength(1);
    expect(h.sim).toBe(sim);
    const err = of('error').at(-1)!.error;
    expect(err).toMatchObject({ code: 'load', reason: 'cancelled', file: 'robot/robot.urdf' });
    // it stopped before the model was built (the URDF importer reads its meshes in parallel, so the
    // second read may have started before the cancel)
    expect(of('load_progress').filter((p) => p.phase === 'meshes').length).toBeLessThanOrEqual(2);
    expect(of('load_progress').some((p) => p.phase === 'model')).toBe(false);
    // a cancel abandons only the loads received before it
    h.handle({ v, type: 'load_scene', source: robot(), request_id: 3 });
    await h.idle();
    expect(of('ready')).toHaveLength(2);
    expect(of('ready')[1].request_id).toBe(3);
  });

  it('a cancel that arrives while the load waits in the queue abandons it before it reads anything', async () => {
    const { h, of } = newHost();
    h.handle({ v, type: 'load_scene', source: cube });
    h.handle({ v, type: 'load_scene', source: robot() });
    h.handle({ v, type: 'cancel_load' });
    await h.idle();
    expect(of('ready')).toHaveLength(0);
    expect(of('error').map((e) => e.error.reason)).toEqual(['cancelled', 'cancelled']);
    expect(of('load_progress')).toEqual([]);
    expect(h.sim).toBeNull();
  });
});
