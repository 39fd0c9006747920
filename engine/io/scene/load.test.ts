/* eslint-disable @typescript-eslint/no-explicit-any */
import { describe, expect, it } from 'vitest';
import { JointType, ShapeType, type SapModel } from '../../model';
import { SceneError, SceneSyntaxError, SceneUnsupportedError, SceneValidationError } from './errors';
import { loadScene, loadSceneText, parseSceneText, type LoadedScene } from './load';
import { INLINE_SCENES, chainScene, readScene, sceneFiles } from './testing';

const load = (file: string, opts = {}) => loadSceneText(readScene(file), file, opts);

function catchErr(fn: () => unknown): SceneError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SceneError);
    return e as SceneError;
  }
  throw new Error('expected a SceneError');
}

/** the DOF slice of a scene joint id (world 0) */
function dofsOf(s: LoadedScene, id: string): number[] {
  const J = s.joint_ids[id];
  const out = [];
  for (let d = s.model.joint_qd_start[J]; d < s.model.joint_qd_start[J + 1]; d++) out.push(d);
  return out;
}
const qOf = (s: LoadedScene, id: string) =>
  Array.from(
    s.model.joint_q0.subarray(
      s.model.joint_q_start[s.joint_ids[id]],
      s.model.joint_q_start[s.joint_ids[id] + 1],
    ),
  );

describe('SAP Warp inline example scenes', () => {
  it('free_cube.yaml: one free cube, initial q and public-order qd from post_build', () => {
    const s = load('free_cube.yaml');
    const m = s.model;
    expect(s.name).toBe('small_cube_spin_release');
    expect(s.dt).toBe(0.005);
    expect(s.num_worlds).toBe(1);
    expect(s.max_rigid_contact).toBe(256);
    expect(s.solver).toEqual({ contact_preset_variant: 'drake', line_search_variant: 'armijo_decay' });
    expect(m.body_count).toBe(1);
    expect(m.joint_count).toBe(1);
    expect(m.joint_type[0]).toBe(JointType.FREE);
    expect(m.body_label[0]).toBe('small_cube');
    expect(Array.from(m.joint_q0)).toEqual([0.35, 0, 0.12, 0, 0, 0, 1]);
    // public free-joint velocity order: [v_COM (3), ω (3)]
    expect(Array.from(m.joint_qd0)).toEqual([0.5, 0.2, 0.3, 2, 1, 6]);
    expect(m.body_mass[0]).toBeCloseTo(1500 * 0.04 ** 3, 12); // cfg density overrides the default
    expect(Array.from(m.gravity)).toEqual([0, 0, -9.81]);
    // cube + shared ground
    expect(m.shape_count).toBe(2);
    expect(m.shape_type[1]).toBe(ShapeType.PLANE);
    expect(m.shape_world[1]).toBe(-1);
    expect(m.shape_label[1]).toBe('DEFAULT_GROUND');
    expect(m.shape_mu[0]).toBe(0.5);
    expect(m.shape_mu[1]).toBe(0.1);
    expect(m.shape_ke[0]).toBe(10000);
    expect(m.shape_tau[0]).toBe(0.03);
    expect(m.shape_gap[0]).toBe(0.002);
    expect(Array.from(m.shape_color.subarray(0, 3))).toEqual([1, 0.45, 0.05].map(Math.fround));
    expect(s.articulations).toEqual([{ id: 'cube_articulation', label: 'cube_articulation', joints: [0] }]);
    expect(s.warnings).toEqual([]);
    expect(s.unsupported).toEqual([]);
  });

  it('multi_joints.yaml: fixed, revolute, prismatic and free joints; q = π/2 from `pi * 0.5`', () => {
    const s = load('multi_joints.yaml');
    const m = s.model;
    expect(s.dt).toBe(0.01);
    expect(s.max_rigid_contact).toBe(32);
    expect(s.solver).toEqual({ contact_preset_variant: 'approx32', line_search_variant: 'monotone_decay' });
    expect(m.body_count).toBe(6);
    expect(m.joint_count).toBe(6);
    expect(m.joint_dof_count).toBe(0 + 1 + 0 + 1 + 6 + 6);
    expect(m.joint_coord_count).toBe(0 + 1 + 0 + 1 + 7 + 7);
    expect(m.tree_count).toBe(4);
    expect(qOf(s, 'revolute_a_b')).toEqual([Math.PI / 2]);
    expect(qOf(s, 'prismatic_a_b')).toEqual([0]);
    expect(qOf(s, 'rb1_free')).toEqual([0, -2, 3.2, 0, 0, 0, 1]);
    const rev = s.joint_ids.revolute_a_b;
    expect(m.joint_type[rev]).toBe(JointType.REVOLUTE);
    expect(Array.from(m.joint_axis.subarray(rev * 3, rev * 3 + 3))).toEqual([1, 0, 0]);
    expect(Array.from(m.joint_X_p.subarray(rev * 7, rev * 7 + 7))).toEqual([0, 0, -0.1875, 0, 0, 0, 1]);
    expect(Array.from(m.joint_X_c.subarray(rev * 7, rev * 7 + 7))).toEqual([0, 0, 0.75, 0, 0, 0, 1]);
    const [pri] = dofsOf(s, 'prismatic_a_b');
    expect([m.joint_limit_lower[pri], m.joint_limit_upper[pri]]).toEqual([-0.3, 0.3]);
    expect([m.joint_limit_ke[pri], m.joint_limit_kd[pri]]).toEqual([100, 10]);
    expect(m.body_label[s.body_ids.b_pri]).toBe('b_prismatic');
    expect(m.body_mass[s.body_ids.rb1]).toBeCloseTo(10, 12);
    expect(m.shape_gap[0]).toBe(0.02);
    expect(s.articulations.map((a) => a.joints.length)).toEqual([2, 2, 1, 1]);
    expect(s.warnings).toEqual([]);
  });

  it('basic_cartpole_usd.yaml: limits ±1.5 and ±π, massless rail, no ground', () => {
    const s = load('basic_cartpole_usd.yaml');
    const m = s.model;
    expect(m.body_count).toBe(3);
    expect(m.joint_dof_count).toBe(2);
    expect(m.shape_count).toBe(3); // ground disabled
    const [slider] = dofsOf(s, 'cart_slider');
    const [hinge] = dofsOf(s, 'pole_hinge');
    expect([m.joint_limit_lower[slider], m.joint_limit_upper[slider]]).toEqual([-1.5, 1.5]);
    expect([m.joint_limit_lower[hinge], m.joint_limit_upper[hinge]]).toEqual([-Math.PI, Math.PI]);
    expect([m.joint_limit_ke[hinge], m.joint_limit_kd[hinge]]).toEqual([0, 0]);
    expect([m.joint_limit_ke[slider], m.joint_limit_kd[slider]]).toEqual([1000, 20]);
    expect(m.joint_armature[hinge]).toBe(0.01);
    expect(m.body_mass[s.body_ids.rail]).toBe(0);
    expect(m.body_mass[s.body_ids.cart]).toBeCloseTo(250 * 8 * 0.28 * 0.18 * 0.14, 10);
    const r = 0.04,
      h = 0.55;
    expect(m.body_mass[s.body_ids.pole]).toBeCloseTo(
      80 * (Math.PI * r * r * 2 * h + (4 / 3) * Math.PI * r ** 3),
      10,
    );
    // default_body_armature 0.01 is added to the inertia diagonal (even for the massless rail)
    expect(m.body_inertia[s.body_ids.rail * 9]).toBeCloseTo(0.01, 12);
    expect(m.shape_flags[0] & 2).toBe(0); // rail: has_shape_collision false
    expect(m.shape_collision_group[0]).toBe(0);
    expect(Array.from(m.joint_q0)).toEqual([0, 0]);
    expect(Array.from(s.joint_target_mode)).toEqual([0, 0]); // target gains are 0 ⇒ mode none
    expect(s.articulations[0].joints).toEqual([0, 1, 2]);
  });
});

describe('SAP Warp scenes with assets', () => {
  const withAssets = sceneFiles().filter((f) => !INLINE_SCENES.includes(f));

  it('are the 9 asset scenes', () => {
    expect(withAssets).toHaveLength(9);
  });

  it.each(withAssets)('%s: strict load reports the asset import as unsupported with its key path', (file) => {
    const e = catchErr(() => load(file, { strict: true }));
    expect(e).toBeInstanceOf(SceneUnsupportedError);
    expect(e.path).toBe('assets[0]');
    expect(e.reason).toMatch(/asset import lands with the importers issue/);
    expect(e.file).toBe(file);
    expect(e.line).toBeGreaterThan(1);
  });

  it.each(withAssets)('%s: lenient load lists the asset and its dependent edits, builds the rest', (file) => {
    const s = load(file); // lenient is the default
    expect(s.unsupported[0]).toMatch(/^assets\[0\]: (usd|urdf|mjcf) asset '\w+' \(.+\): asset import lands/);
    const doc = parseSceneText(readScene(file), file) as { post_build?: unknown[] };
    expect(s.unsupported.filter((u) => u.startsWith('post_build['))).toHaveLength(
      doc.post_build?.length ?? 0,
    );
    expect(s.model.num_worlds).toBe(1);
  });

  it('franka_panda_cube_urdf.yaml keeps its inline cube and control block in a lenient load', () => {
    const s = load('franka_panda_cube_urdf.yaml', { strict: false });
    expect(s.model.body_count).toBe(1);
    expect(s.body_ids).toEqual({ cube: 0 });
    expect(s.model.body_label[0]).toBe('small_cube');
    expect(s.control).toEqual({ source: '../control/franka_panda_cube_pick_place.json', loop: false });
  });
});

/** all typed arrays and scalars of two models are equal */
function expectSameModel(a: SapModel, b: SapModel) {
  expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
  for (const k of Object.keys(a) as (keyof SapModel)[]) {
    const x = a[k],
      y = b[k];
    if (ArrayBuffer.isView(x))
      expect(Array.from(x as Float64Array), k).toEqual(Array.from(y as Float64Array));
    else expect(x, k).toEqual(y);
  }
}

describe('formats and errors', () => {
  it.each(INLINE_SCENES)('%s as JSON builds the same model as the YAML', (file) => {
    const fromYaml = load(file);
    const json = JSON.stringify(parseSceneText(readScene(file), file), null, 2);
    const fromJson = loadSceneText(json, file.replace('.yaml', '.json'));
    expectSameModel(fromYaml.model, fromJson.model);
    expect(fromJson.solver).toEqual(fromYaml.solver);
    // JSON detected by content too
    expectSameModel(loadSceneText(json).model, fromYaml.model);
  });

  it('YAML syntax errors report line and column', () => {
    const text = 'schema_version: 1\nbuilder:\n  gravity: [0, 0\n  rigid_gap: 0.1\n';
    const e = catchErr(() => parseSceneText(text, 'bad.yaml'));
    expect(e).toBeInstanceOf(SceneSyntaxError);
    expect(e.line).toBe(4);
    expect(e.column).toBe(3);
    expect(e.message).toMatch(/^bad\.yaml:4:3: YAML: /);
    const dup = catchErr(() => parseSceneText('a: 1\nb: 2\na: 3\n'));
    expect(dup.line).toBe(3);
    expect(dup.reason).toMatch(/unique/i);
  });

  it('JSON syntax errors report line and column', () => {
    const e = catchErr(() => parseSceneText('{\n  "schema_version": 1,\n  "name": }\n', 'bad.json'));
    expect(e).toBeInstanceOf(SceneSyntaxError);
    expect([e.line, e.column]).toEqual([3, 11]);
    expect(e.reason).toBe('JSON: unexpected "}"');
    const trailing = catchErr(() => parseSceneText('{"a": [1, 2,]}', 'x.json'));
    expect([trailing.line, trailing.column]).toEqual([1, 13]);
  });

  it('validation and build errors carry the key path and the source line', () => {
    const text = readScene('free_cube.yaml').replace('          density: 1500.0', '          densty: 1500.0');
    const e = catchErr(() => loadSceneText(text, 'free_cube.yaml'));
    expect(e).toBeInstanceOf(SceneValidationError);
    expect(e.path).toBe('bodies[0].shapes[0].cfg.densty');
    expect(e.line).toBe(text.split('\n').findIndex((l) => l.includes('densty')) + 1);
    expect(e.column).toBe(11);
    expect(e.message).toMatch(
      /^free_cube\.yaml:\d+:11: bodies\[0\]\.shapes\[0\]\.cfg\.densty: unknown key 'densty'/,
    );
    // strict or not: an unknown key is an error with its key path
    for (const strict of [true, false]) {
      const u = catchErr(() => loadSceneText(text, 'free_cube.yaml', { strict }));
      expect(u).toBeInstanceOf(SceneValidationError);
      expect(u.path).toBe('bodies[0].shapes[0].cfg.densty');
    }

    const bad = readScene('multi_joints.yaml').replace('child: b_rev', 'child: b_revv');
    const ref = catchErr(() => loadSceneText(bad, 'multi_joints.yaml'));
    expect(ref.path).toBe('joints[1].child');
    expect(ref.reason).toMatch(/unknown body 'b_revv'; known: a_rev, b_rev/);
    expect(ref.line).toBe(bad.split('\n').findIndex((l) => l.includes('b_revv')) + 1);
  });

  it('a ball joint takes a cone limit (rotation or swing about its axis); a bad one is refused at its key', () => {
    const doc = chainScene(3) as any;
    doc.joints[1] = { ...doc.joints[1], type: 'ball', cone_limit: 0.5 };
    doc.joints[2] = { ...doc.joints[2], type: 'ball', cone_mode: 'swing', cone_limit: [0.3, 0.6] };
    const m = loadScene(doc).model;
    expect(Array.from(m.joint_cone_mode)).toEqual([0, 1, 2]);
    expect(Array.from(m.joint_cone_limit)).toEqual([Infinity, Infinity, 0.5, 0.5, 0.3, 0.6]);
    expect(Array.from(m.joint_axis.subarray(6, 9))).toEqual([0, 1, 0]);
    doc.joints[2].cone_limit = [0.3, 4];
    expect(catchErr(() => loadScene(doc))).toMatchObject({ path: 'joints[2].cone_limit' });
    doc.joints[2] = { ...doc.joints[2], type: 'revolute', cone_limit: 0.3 };
    expect(catchErr(() => loadScene(doc)).reason).toMatch(/a cone limit needs a ball joint/);
  });

  it('never throws a raw exception', () => {
    for (const doc of [null, undefined, 'x', 3, [], {}, { schema_version: 1, bodies: 'x' }]) {
      expect(catchErr(() => loadScene(doc))).toBeInstanceOf(SceneError);
    }
    expect(catchErr(() => parseSceneText(undefined as unknown as string))).toBeInstanceOf(SceneSyntaxError);
    const cyc = chainScene(2) as any;
    cyc.joints[0] = { id: 'a', type: 'revolute', parent: 'l1', child: 'l0' };
    cyc.joints[1] = { id: 'b', type: 'revolute', parent: 'l0', child: 'l1' };
    cyc.articulations = [];
    expect(catchErr(() => loadScene(cyc)).reason).toMatch(
      /^model: joints\[0\]: joint 'a' is not connected to the world/,
    );
  });

  it('reports duplicate ids, bad references and model errors with the key path', () => {
    const doc = chainScene(3) as any;
    doc.bodies[2].id = 'l1';
    expect(catchErr(() => loadScene(doc)).path).toBe('bodies[2].id');
    doc.bodies[2].id = 'l2';
    doc.joints[2].limit_lower = 2;
    doc.joints[2].limit_upper = 1;
    expect(catchErr(() => loadScene(doc))).toMatchObject({ path: 'joints[2].limit_lower' });
    doc.joints[2].limit_lower = -1;
    doc.articulations[0].joints.push('nope');
    expect(catchErr(() => loadScene(doc))).toMatchObject({ path: 'articulations[0].joints[3]' });
    doc.articulations[0].joints.pop();
    doc.initial_joint_q = [{ joint: 'j1', offset: 1, value: 1 }];
    expect(catchErr(() => loadScene(doc))).toMatchObject({ path: 'initial_joint_q[0].offset' });
    doc.initial_joint_q = [
      { joint: 'base', offset: 2, value: 1.25 },
      { index: -1, value: 0.5 },
    ];
    const s = loadScene(doc);
    expect(qOf(s, 'base')[2]).toBe(1.25);
    expect(qOf(s, 'j2')).toEqual([0.5]);
  });

  it('body gravcomp reaches the model per world; a non-finite one is rejected at its key', () => {
    const doc = chainScene(3) as any;
    doc.bodies[1].gravcomp = 0.5;
    doc.bodies[2].gravcomp = '2 * 0.5';
    const s = loadScene(doc, { num_worlds: 2 });
    const m = s.model;
    const of = (label: string) => m.body_label.flatMap((l, i) => (l === label ? [m.body_gravcomp[i]] : []));
    expect(of(doc.bodies[0].label ?? doc.bodies[0].id)).toEqual([0, 0]);
    expect(of(doc.bodies[1].label ?? doc.bodies[1].id)).toEqual([0.5, 0.5]);
    expect(of(doc.bodies[2].label ?? doc.bodies[2].id)).toEqual([1, 1]);
    doc.bodies[2].gravcomp = Infinity;
    expect(catchErr(() => loadScene(doc))).toMatchObject({ path: 'bodies[2].gravcomp' });
  });

  it('rejects unsupported inline features in strict mode and lists them in lenient mode (the default)', () => {
    const doc = chainScene(2) as any;
    doc.bodies[1].shapes.push({ type: 'mesh', source: 'x.stl' });
    doc.bodies[0].shapes[0].cfg = { restitution: 0.5 };
    const e = catchErr(() => loadScene(doc, { strict: true }));
    expect(e).toBeInstanceOf(SceneUnsupportedError);
    expect(e.path).toBe('bodies[0].shapes[0].cfg.restitution');
    const s = loadScene(doc); // lenient is the default
    expect(s.unsupported).toEqual([
      "bodies[0].shapes[0].cfg.restitution: shape 'restitution' is not stored by the model builder",
      "bodies[1].shapes[1].source: mesh file 'x.stl' is read by the asynchronous loader (loadSceneAsync) only",
    ]);
    expect(s.model.shape_count).toBe(2);
  });
});

describe('replication', () => {
  it('num_worlds 4 with spacing replicates bodies, joints, shapes and offsets the worlds', () => {
    const text = readScene('free_cube.yaml') + '\nreplicate:\n  spacing: [2.0, 0.0, 0.0]\n';
    const s = loadSceneText(text, 'free_cube.yaml', { num_worlds: 4 });
    const m = s.model;
    expect(s.num_worlds).toBe(4);
    expect(m.num_worlds).toBe(4);
    expect(m.body_count).toBe(4);
    expect(m.joint_coord_count).toBe(28);
    expect(m.shape_count).toBe(4 + 1); // the ground is shared
    expect(Array.from(m.shape_world)).toEqual([0, 1, 2, 3, -1]);
    expect(Array.from(m.body_world)).toEqual([0, 1, 2, 3]);
    expect([0, 1, 2, 3].map((w) => m.joint_X_p[w * 7])).toEqual([-3, -1, 1, 3]);
    // post_build edits ran before replication: every world has them
    for (let w = 0; w < 4; w++) {
      expect(Array.from(m.joint_q0.subarray(w * 7, w * 7 + 7))).toEqual([0.35, 0, 0.12, 0, 0, 0, 1]);
      expect(Array.from(m.joint_qd0.subarray(w * 6, w * 6 + 6))).toEqual([0.5, 0.2, 0.3, 2, 1, 6]);
    }
  });

  it('simulation.num_worlds / replicate.num_worlds / the option, and grid spacing', () => {
    const doc = chainScene(2) as any;
    doc.simulation.num_worlds = 3;
    expect(loadScene(doc).model.num_worlds).toBe(3);
    doc.replicate = { num_worlds: 4, spacing: [2, 4, 0] };
    const s = loadScene(doc);
    expect(s.model.num_worlds).toBe(4);
    expect(s.warnings.join()).toMatch(/replicate\.num_worlds: differs from simulation\.num_worlds/);
    expect(s.model.body_count).toBe(8);
    const xy = [0, 1, 2, 3].map((w) => [s.model.joint_X_p[w * 2 * 7], s.model.joint_X_p[w * 2 * 7 + 1]]);
    expect(xy).toEqual([
      [-1, -2],
      [1, -2],
      [-1, 2],
      [1, 2],
    ]);
    expect(loadScene(doc, { num_worlds: 2 }).model.num_worlds).toBe(2);
    expect(catchErr(() => loadScene(doc, { num_worlds: 0 })).path).toBe('num_worlds');
    expect(loadScene(doc, { dt: 0.001 }).dt).toBe(0.001);
  });
});
