/**
 * Control sequences (SAP Warp's `control:` block): columns in the scene's authored DOF order mapped
 * to the model's (breadth-first) order, zero-order hold at SAP Warp's sample index, loop and clamp,
 * the initial state, errors located in the control file, and playback moving a PD-driven joint.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryResolver } from '../assets/resolvers';
import { SAP_WARP } from '../testing_assets';
import { applyControlSequence, Simulation } from '../../pipeline';
import { controlSampleIndex } from '../../state/control_sequence';
import { makeControl } from '../../state';
import { loadModelFile } from '../load_file';
import { runCommand } from '../../cli/commands';
import { ControlSequenceError } from './control';
import { loadScene, loadSceneAsync, type LoadedScene } from './load';

/** a tree whose authored joint order (a, b, d, c) differs from the model's breadth-first one (a, b, c, d) */
function treeScene(control?: Record<string, unknown>): Record<string, unknown> {
  const body = (id: string, x: number, z: number) => ({
    id,
    transform: { p: [x, 0, z], q: 'identity' },
    shapes: [{ type: 'sphere', radius: 0.05, cfg: { has_shape_collision: false } }],
  });
  const hinge = (id: string, parent: string, child: string) => ({
    id,
    type: 'revolute',
    parent,
    child,
    axis: 'y',
    target_ke: 50,
    target_kd: 5,
  });
  return {
    schema_version: 1,
    name: 'tree',
    simulation: { dt: 0.01 },
    builder: { gravity: 0, defaults: { shape: { density: 500 } } },
    ground: false,
    bodies: [body('A', 0, 0.1), body('B', 0, 0.3), body('C', 0.3, 0.3), body('D', 0, 0.5)],
    joints: [hinge('a', 'world', 'A'), hinge('b', 'A', 'B'), hinge('d', 'B', 'D'), hinge('c', 'A', 'C')],
    post_build: [{ op: 'set_joint_targets', range: 'head:4', mode: 'position', ke: 50, kd: 5 }],
    ...(control ? { control } : {}),
  };
}

async function load(doc: Record<string, unknown>, file: object): Promise<LoadedScene> {
  const mem = new MemoryResolver({ 'scenes/ctl.json': JSON.stringify(file) });
  return loadSceneAsync(doc, { resolver: mem, scene_path: 'scenes/tree.yaml', beside_scene: false });
}

/** the error a load rejects with */
async function failure(p: Promise<LoadedScene>): Promise<Error> {
  return p.then(
    () => new Error('loaded'),
    (e: unknown) => e as Error,
  );
}

const dofOf = (s: LoadedScene, id: string) => s.model.joint_qd_start[s.joint_ids[id]];

describe('control sequences', () => {
  const rows = [
    [0.1, 0.2, 0.4, 0.3],
    [1.1, 1.2, 1.4, 1.3],
    [2.1, 2.2, 2.4, 2.3],
  ];

  it('maps authored columns to model DOFs and holds each sample for dt (SAP Warp sample index)', async () => {
    const s = await load(treeScene({ source: 'ctl.json' }), {
      schema_version: 1,
      name: 'wave',
      joint_target_pos: { order: 'sap_public_joint_dof', dt: 0.1, values: rows },
      keyframes: [{ time: 0, label: 'start' }],
    });
    const seq = s.control_sequence!;
    expect(seq.name).toBe('wave');
    expect(seq.duration).toBeCloseTo(0.3, 12);
    // the model orders c before d; the file's columns are a, b, d, c
    expect(s.model.joint_qd_start[s.joint_ids.c]).toBeLessThan(s.model.joint_qd_start[s.joint_ids.d]);
    const c = makeControl(s.model);
    const at = (t: number) => {
      applyControlSequence(seq, c, t);
      return ['a', 'b', 'c', 'd'].map((id) => c.joint_target_pos[dofOf(s, id)]);
    };
    expect(at(0)).toEqual([0.1, 0.2, 0.3, 0.4]);
    expect(at(0.0999)).toEqual([0.1, 0.2, 0.3, 0.4]);
    // 3 steps of 1/30 s reach 0.1 up to rounding: the 1e-9 guard picks row 1 as SAP Warp does
    expect(at(3 * (1 / 30))).toEqual([1.1, 1.2, 1.3, 1.4]);
    expect(at(0.25)).toEqual([2.1, 2.2, 2.3, 2.4]);
    expect(at(7)).toEqual([2.1, 2.2, 2.3, 2.4]); // held after the end
    expect(controlSampleIndex(seq.joint_target_pos!, 0.35, true)).toBe(0); // looped
    expect(seq.keyframes).toEqual([{ time: 0, label: 'start' }]);
  });

  it('scene loop overrides the file; joint_q and joint_qd rows become the initial state', async () => {
    const s = await load(treeScene({ source: 'ctl.json', loop: true }), {
      loop: false,
      joint_q: { order: 'sap_public_joint_q', values: [[0.5, 0.6, 0.8, 0.7]] },
      joint_qd: { values: [[0, 0, 0, 1]] },
      joint_target_pos: { times: [0, 0.05, 0.1], values: rows },
    });
    const m = s.model;
    expect(s.control_sequence!.loop).toBe(true);
    expect(s.control_sequence!.joint_target_pos!.sample_dt).toBeCloseTo(0.05, 15);
    expect(m.joint_q0[m.joint_q_start[s.joint_ids.d]]).toBe(0.8);
    expect(m.joint_q0[m.joint_q_start[s.joint_ids.c]]).toBe(0.7);
    expect(m.joint_qd0[dofOf(s, 'c')]).toBe(1);
  });

  it('plays into the step: a PD joint follows the held target', async () => {
    const s = await load(treeScene({ source: 'ctl.json' }), {
      joint_target_pos: {
        dt: 1,
        values: [
          [0, 0, 0, 0],
          [0.3, 0, 0, -0.2],
        ],
      },
    });
    const sim = new Simulation(s.model, { dt: s.dt, solver: {} });
    const q = () => [sim.state.joint_q[dofOf(s, 'a')], sim.state.joint_q[dofOf(s, 'c')]];
    for (let k = 0; k < 700; k++) {
      applyControlSequence(s.control_sequence!, sim.control, sim.state.time);
      sim.step();
      if (k === 98) expect(q().map(Math.abs)).toEqual([0, 0]); // row 0 holds for the first second
    }
    // 6 s later the joints have settled at the second row's targets (no gravity, no contacts)
    expect(q()[0]).toBeCloseTo(0.3, 2);
    expect(q()[1]).toBeCloseTo(-0.2, 2);
  });

  it('the CLI run plays the sequence of a scene file (read beside it)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ctl-'));
    writeFileSync(path.join(dir, 'tree.json'), JSON.stringify(treeScene({ source: 'ctl.json' })));
    writeFileSync(
      path.join(dir, 'ctl.json'),
      JSON.stringify({
        joint_target_pos: {
          dt: 0.5,
          values: [
            [0, 0, 0, 0],
            [0.25, 0, 0, 0],
          ],
        },
      }),
    );
    const scene = await loadModelFile(path.join(dir, 'tree.json'));
    const a = scene.model.joint_q_start[scene.model.joint_label.indexOf('a')];
    const held = runCommand(scene, { steps: 50 }); // row 0 still holds
    expect(held.worlds[0].joint_q[a]).toBe(0);
    const out = runCommand(scene, { steps: 400 });
    expect(out.worlds[0].joint_q[a]).toBeCloseTo(0.25, 2);
  });

  it('reports a bad control file at control.source, naming the file and its key path', async () => {
    const err = await failure(
      load(treeScene({ source: 'ctl.json' }), {
        joint_target_pos: { dt: 0.1, values: [[1, 2, 3]] },
      }),
    );
    expect(err).toBeInstanceOf(ControlSequenceError);
    expect((err as ControlSequenceError).path).toBe('control.source');
    expect(err.message).toMatch(/scenes\/ctl\.json: joint_target_pos\.values\[0\]: expected 4 values/);
    const unknown = await failure(
      load(treeScene({ source: 'ctl.json' }), {
        joint_target_pos: { dt: 0.1, values: rows },
        joint_targets: [],
      }),
    );
    expect(unknown.message).toMatch(/joint_targets/);
    const missing = await failure(load(treeScene({ source: 'nope.json' }), {}));
    expect(missing).toBeInstanceOf(ControlSequenceError);
    expect(missing.message).toMatch(/scenes\/nope\.json: cannot read the control file/);
  });

  it('the synchronous loader cannot read the file and says so', () => {
    const s = loadScene(treeScene({ source: 'ctl.json' }));
    expect(s.control_sequence).toBeUndefined();
    expect(s.warnings.join('\n')).toMatch(/control: the control file is read by the asynchronous loader/);
  });

  it("franka_panda_cube_urdf: the pick-and-place file's columns match the joints; the CLI loader plays it", async () => {
    const file = path.join(SAP_WARP, 'scenes', 'franka_panda_cube_urdf.yaml');
    const s = await loadModelFile(file, { asset_root: path.join(SAP_WARP, 'assets'), env: {} });
    const seq = s.control_sequence!;
    expect(seq.joint_target_pos!.frame_count).toBe(431);
    expect(seq.joint_target_pos!.sample_dt).toBe(0.02);
    expect(s.warnings.filter((w) => w.startsWith('control'))).toEqual([]);
    expect(seq.keyframes.map((k) => k.label)).toContain('close_gripper');
    // at 3.8 s the gripper closes: finger targets 0.006 m on both finger DOFs
    const c = makeControl(s.model);
    applyControlSequence(seq, c, 3.8);
    const fingers = ['franka/fr3_finger_joint1', 'franka/fr3_finger_joint2'].map(
      (l) => c.joint_target_pos[s.model.joint_qd_start[s.model.joint_label.indexOf(l)]],
    );
    expect(fingers).toEqual([0.006, 0.006]);
  });
});
