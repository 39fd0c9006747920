/**
 * loadSceneAsync: scenes with `assets[]` (URDF / MJCF through the importers), the SAP Warp example
 * scenes that use URDF assets (read offline from the reference mirror), asset options and post_build
 * ops on imported content.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JointType, ShapeType, type SapModel } from '../../model';
import { NodeFsResolver } from '../assets/node_fs';
import { MemoryResolver } from '../assets/resolvers';
import { SAP_WARP, SHARED_ASSETS, watchRun } from '../testing_assets';
import { SceneError } from './errors';
import { loadSceneAsync, parseSceneText, type LoadedScene } from './load';
import { Simulation } from '../../pipeline';

/** simulates `seconds` at `dt` and watches the state */
function simulateFor(
  model: SapModel,
  dt: number,
  seconds: number,
  solver: Record<string, unknown> = { contact_preset_variant: 'drake' },
  max_rigid_contact = 256,
) {
  return watchRun(new Simulation(model, { dt, solver, max_rigid_contact }), model, Math.round(seconds / dt));
}

const ASSET_ROOT = path.join(SAP_WARP, 'assets');
const resolver = new NodeFsResolver();

async function loadSapWarp(name: string, strict = true): Promise<LoadedScene> {
  const file = path.join(SAP_WARP, 'scenes', `${name}.yaml`);
  const doc = parseSceneText(readFileSync(file, 'utf8'), file);
  return loadSceneAsync(doc, { resolver, asset_root: ASSET_ROOT, scene_path: file, strict });
}

async function catchAsync(p: Promise<unknown>): Promise<SceneError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(SceneError);
  return e as SceneError;
}

const dofOf = (s: LoadedScene, label: string) => s.model.joint_qd_start[s.model.joint_label.indexOf(label)];

describe('SAP Warp URDF scenes load offline and simulate 2 s at their own dt', () => {
  it('franka_panda_urdf: 9 DOFs, post_build joint_q / targets / armature on imported joints', async () => {
    const s = await loadSapWarp('franka_panda_urdf');
    const m = s.model;
    expect(s.unsupported).toEqual([]);
    expect(m.joint_dof_count).toBe(9);
    expect(m.joint_label[0]).toBe('franka/fixed_base');
    const q = [
      -0.0036802115, 0.023901723, 0.003680411, -2.3683236, -0.00012918962, 2.3922248, 0.785492, 0.04, 0.04,
    ];
    expect(Array.from(m.joint_q0)).toEqual(q);
    expect(Array.from(m.joint_target_pos)).toEqual(q);
    expect(Array.from(m.joint_armature)).toEqual([0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.5, 0.5]);
    expect(Array.from(m.joint_target_ke)).toEqual(new Array(9).fill(5000));
    expect(m.eq_count).toBe(1); // the finger mimic
    // 9 collision STLs and 16 visual parts (one per material of the COLLADA files present: fr3 link1–5,
    // the hand and the finger, shared by both fingers); link0, 6 and 7 have no visual file in the mirror
    expect(m.mesh_count).toBe(9 + 16);
    expect(s.warnings.join('\n')).toMatch(
      /visual meshes not loaded on 3 link\(s\); their collision shapes are shown instead: fr3_link0 \(package:\/\/franka_emika_panda\/.*link0\.dae: file not found in package 'franka_emika_panda' .*; fr3_link6 \(.*; fr3_link7 \(package:/m,
    );
    const r = simulateFor(m, s.dt, 2, s.solver, s.max_rigid_contact);
    expect(r.finite).toBe(true);
    expect(r.minZ).toBeGreaterThan(-0.005);
  });

  it('franka_panda_cube_urdf: the cube stays on the ground next to the arm', async () => {
    // post_build[5] gives the cube's three angular DOFs a velocity drive (kd 0.05): per-DOF values
    const s = await loadSapWarp('franka_panda_cube_urdf');
    expect(s.unsupported).toEqual([]);
    const m = s.model;
    const cube = m.joint_label.findIndex((l) => /cube_free/.test(l));
    const d = m.joint_qd_start[cube];
    expect(Array.from(m.joint_target_kd.subarray(d, d + 6))).toEqual([0, 0, 0, 0.05, 0.05, 0.05]);
    expect(Array.from(m.joint_target_ke.subarray(d, d + 6))).toEqual([0, 0, 0, 0, 0, 0]);
    expect(s.model.joint_dof_count).toBe(15);
    const r = simulateFor(s.model, s.dt, 2, s.solver, s.max_rigid_contact);
    expect(r.finite).toBe(true);
    expect(r.minZ).toBeGreaterThan(-0.005);
  });

  it('anymal_c_urdf: floating base at the xform, doubled foot spheres, leg armature, stands', async () => {
    const s = await loadSapWarp('anymal_c_urdf');
    const m = s.model;
    expect(s.unsupported).toEqual([]);
    expect(m.joint_type[0]).toBe(JointType.FREE);
    expect(m.joint_label[0]).toBe('anymal_c/floating_base');
    const q0 = Array.from(m.joint_q0.subarray(0, 7));
    expect(q0.map((v) => +v.toFixed(12))).toEqual([
      0,
      0,
      0.62,
      0,
      0,
      +Math.SQRT1_2.toFixed(12),
      +Math.SQRT1_2.toFixed(12),
    ]);
    const spheres = Array.from(m.shape_type)
      .map((t, i) => (t === ShapeType.SPHERE ? m.shape_size[i * 3] : -1))
      .filter((r) => r >= 0);
    expect(spheres).toEqual([0.06, 0.06, 0.06, 0.06]);
    expect(m.joint_armature[dofOf(s, 'anymal_c/LF_HAA')]).toBe(0.02);
    expect(Array.from(m.joint_armature.subarray(0, 6))).toEqual([0, 0, 0, 0, 0, 0]);
    expect(m.joint_target_ke[dofOf(s, 'anymal_c/RH_KFE')]).toBe(5000);
    expect(Array.from(m.joint_target_ke.subarray(0, 6))).toEqual([0, 0, 0, 0, 0, 0]);
    const r = simulateFor(m, s.dt, 2, s.solver, s.max_rigid_contact);
    expect(r.finite).toBe(true);
    expect(r.minZ).toBeGreaterThan(-0.005);
  });

  it('agilex_piper_urdf: OBJ meshes, zero gravity, joint_q from post_build', async () => {
    const s = await loadSapWarp('agilex_piper_urdf');
    expect(s.unsupported).toEqual([]);
    expect(Array.from(s.model.joint_q0)).toEqual([0, 0.8, -1.2, 0, 0.7, 0, 0.025, -0.025]);
    expect(s.model.mesh_count).toBeGreaterThan(0);
    const r = simulateFor(s.model, s.dt, 2, s.solver, s.max_rigid_contact);
    expect(r.finite).toBe(true);
    expect(r.minZ).toBeGreaterThan(-0.005);
  });
});

describe('asset options and post_build on imported content', () => {
  const urdf = `<robot name="r">
    <link name="base"><collision><geometry><mesh filename="meshes/tet.obj" scale="2 2 2"/></geometry></collision></link>
    <joint name="hinge" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/><limit lower="-1" upper="1"/></joint>
    <link name="arm"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial>
      <collision><geometry><sphere radius="0.1"/></geometry></collision></link>
  </robot>`;
  const files = {
    'robots/r/r.urdf': urdf,
    'robots/r/meshes/tet.obj': 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n',
    'mirror/my-assets/robots/r/r.urdf': urdf,
    'mirror/my-assets/robots/r/meshes/tet.obj':
      'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n',
    'scenes/parts/box.stl':
      'solid b\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 0 0 1\nvertex 1 0 0\nendloop\nendfacet\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 0 1 0\nvertex 0 0 1\nendloop\nendfacet\nfacet normal 0 0 1\nouter loop\nvertex 1 0 0\nvertex 0 0 1\nvertex 0 1 0\nendloop\nendfacet\nendsolid b\n',
  };
  const mem = new MemoryResolver(files);
  const scene = (extra: Record<string, unknown> = {}, asset: Record<string, unknown> = {}) => ({
    schema_version: 1,
    simulation: { dt: 0.01 },
    builder: { defaults: { shape: { density: 500, mu: 0.3 } } },
    assets: [{ id: 'bot', type: 'urdf', source: { path: '../robots/r/r.urdf' }, ...asset }],
    ...extra,
  });

  it('prefixes labels with the asset id, applies xform / cfg, and joint selectors match suffixes', async () => {
    const s = await loadSceneAsync(
      scene(
        {
          post_build: [
            { op: 'set_joint_targets', joint: 'hinge', mode: 'position', ke: 50, kd: 2 },
            { op: 'set_joint_q', joint: 'hinge', value: 0.3 },
          ],
        },
        { xform: { p: [0, 0, 2] }, cfg: { mu: 0.9 }, hide_collision_shapes: true },
      ),
      { resolver: mem, scene_path: 'scenes/s.yaml' },
    );
    const m = s.model;
    expect(Array.from(m.body_label)).toEqual(['bot/base', 'bot/arm']);
    expect(Array.from(m.joint_label)).toEqual(['bot/fixed_base', 'bot/hinge']);
    expect(Array.from(m.joint_X_p.subarray(0, 3))).toEqual([0, 0, 2]);
    expect(m.shape_mu[0]).toBe(0.9);
    expect(m.shape_flags[0] & 1).toBe(0); // hidden collider
    expect([m.joint_target_ke[0], m.joint_target_kd[0], m.joint_q0[0]]).toEqual([50, 2, 0.3]);
    // the mesh link has no inertial: its mass is the scaled tetrahedron at the scene density
    expect(m.body_mass[0]).toBeCloseTo((500 * 8) / 6, 9);
  });

  it('git sources map to <asset_root>/<repo name>/<path>; plain paths fall back to the asset root', async () => {
    const s = await loadSceneAsync(
      scene(
        {},
        {
          source: {
            git: { repo: 'https://github.com/x/my-assets.git', rev: 'abc', path: 'robots/r/r.urdf' },
          },
        },
      ),
      { resolver: mem, asset_root: 'mirror', scene_path: 'scenes/s.yaml' },
    );
    expect(s.model.body_count).toBe(2);
    const t = await loadSceneAsync(scene({}, { source: 'my-assets/robots/r/r.urdf' }), {
      resolver: mem,
      asset_root: 'mirror',
      scene_path: 'scenes/s.yaml',
    });
    expect(t.model.body_count).toBe(2);
  });

  it('approximate_meshes: bounding_box replaces colliding meshes by oriented boxes', async () => {
    const s = await loadSceneAsync(
      scene({ post_build: [{ op: 'approximate_meshes', method: 'bounding_box' }] }),
      {
        resolver: mem,
        scene_path: 'scenes/s.yaml',
      },
    );
    const m = s.model;
    expect(m.shape_type[0]).toBe(ShapeType.BOX);
    expect(m.shape_mesh[0]).toBe(-1);
    // the scaled tetrahedron (edge 2) is bounded by a 2×2×2 box centred at (1, 1, 1) (or a tighter oriented one)
    const vol = 8 * m.shape_size[0] * m.shape_size[1] * m.shape_size[2];
    expect(vol).toBeLessThanOrEqual(8 + 1e-9);
    expect(vol).toBeGreaterThan(8 / 6);
  });

  it('inline mesh shapes: vertices + indices, or a source file read by the async loader', async () => {
    const s = await loadSceneAsync(
      scene({
        bodies: [
          {
            id: 'tet',
            transform: { p: [3, 0, 1] },
            shapes: [
              {
                type: 'mesh',
                vertices: [
                  [0, 0, 0],
                  [1, 0, 0],
                  [0, 1, 0],
                  [0, 0, 1],
                ],
                indices: [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3],
              },
              { type: 'mesh', source: 'parts/box.stl', is_convex: true, scale: 2 },
            ],
          },
        ],
      }),
      { resolver: mem, scene_path: 'scenes/s.yaml' },
    );
    const m = s.model;
    const b = m.body_label.indexOf('tet');
    const shapes = Array.from(m.shape_body)
      .map((x, i) => (x === b ? i : -1))
      .filter((i) => i >= 0);
    expect(shapes.map((i) => m.shape_type[i])).toEqual([ShapeType.MESH, ShapeType.CONVEX_MESH]);
    expect(m.body_mass[b]).toBeCloseTo(500 / 6 + (500 * 8) / 6, 9);
  });

  it('a failing asset is reported at assets[i].source with the importer’s location', async () => {
    const bad = new MemoryResolver({ 'robots/r/r.urdf': '<robot>\n  <link name="a">\n</robot>' });
    const e = await catchAsync(loadSceneAsync(scene(), { resolver: bad, scene_path: 'scenes/s.yaml' }));
    expect(e.path).toBe('assets[0].source');
    expect(e.message).toMatch(/robots\/r\/r\.urdf:3:\d+: /);
    const missing = await catchAsync(
      loadSceneAsync(scene({}, { source: { path: 'nope.urdf' } }), {
        resolver: mem,
        scene_path: 'scenes/s.yaml',
      }),
    );
    expect(missing.message).toMatch(/nope\.urdf.*not found/);
  });

  it('an MJCF asset: bodies, joints and keyframes under the asset prefix', async () => {
    const file = path.join(SHARED_ASSETS, 'mujoco/humanoid/humanoid.xml');
    const s = await loadSceneAsync(
      {
        schema_version: 1,
        simulation: { dt: 0.005 },
        assets: [{ id: 'h', type: 'mjcf', source: file, xform: { p: [1, 0, 0] } }],
        post_build: [{ op: 'set_joint_targets', label_prefix: 'h/knee', mode: 'position', ke: 10 }],
      },
      { resolver },
    );
    // (strict: nothing unsupported since its fixed tendons are built)
    expect(s.unsupported).toEqual([]);
    const m = s.model;
    expect(m.tendon_label).toEqual(['h/hamstring_right', 'h/hamstring_left']);
    expect(m.joint_label[m.tendon_joint[0]]).toBe('h/hip_y_right');
    expect(m.joint_label).toContain('h/root');
    expect(m.joint_target_ke[dofOf(s, 'h/knee_left')]).toBe(10);
    expect(m.joint_q0[0]).toBeCloseTo(1, 12); // the free joint starts at xform ∘ body pose
  });
});
