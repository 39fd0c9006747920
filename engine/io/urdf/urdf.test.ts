import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JointType, ModelBuilder, ShapeFlags, ShapeType, type SapModel } from '../../model';
import { ImportError } from '../assets/errors';
import { NodeFsResolver } from '../assets/node_fs';
import { MemoryResolver } from '../assets/resolvers';
import { loadModelAsset } from '../import';
import { SAP_WARP, SHARED_ASSETS, URDF_MODELS, watchRun } from '../testing_assets';
import { parseObj } from '../mesh';
import { importUrdf, parseUrdf } from './urdf';
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

const ARM = `<?xml version="1.0"?>
<robot name="arm">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="base">
    <visual><geometry><box size="0.2 0.2 0.1"/></geometry><material name="red"/></visual>
    <collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision>
  </link>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.1" rpy="0 0 1.5707963267948966"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1" upper="2" effort="30" velocity="4"/>
    <dynamics damping="0.5" friction="0.25"/>
  </joint>
  <link name="l1">
    <inertial>
      <origin xyz="0 0 0.25" rpy="1.5707963267948966 0 0"/>
      <mass value="2"/>
      <inertia ixx="1" iyy="2" izz="3" ixy="0" ixz="0" iyz="0"/>
    </inertial>
    <collision><origin xyz="0 0 0.25"/><geometry><cylinder radius="0.05" length="0.5"/></geometry></collision>
    <visual><geometry><mesh filename="package://arm/meshes/missing.stl"/></geometry></visual>
  </link>
  <joint name="finger_a" type="prismatic">
    <parent link="l1"/><child link="fa"/><axis xyz="1 0 0"/><limit lower="0" upper="0.04" effort="10" velocity="0.2"/>
  </joint>
  <link name="fa"><inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4"/></inertial></link>
  <joint name="finger_b" type="prismatic">
    <parent link="l1"/><child link="fb"/><axis xyz="-1 0 0"/><limit lower="0" upper="0.04"/>
    <mimic joint="finger_a" multiplier="1.5" offset="0.01"/>
  </joint>
  <link name="fb"><inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4"/></inertial></link>
  <joint name="wheel" type="continuous"><parent link="l1"/><child link="w"/><axis xyz="0 0 1"/><limit effort="5" velocity="10"/></joint>
  <link name="w"><collision><geometry><sphere radius="0.1"/></geometry></collision></link>
  <transmission name="t"/>
</robot>`;

async function loadArm(opts = {}) {
  const b = new ModelBuilder();
  const r = await importUrdf(
    b,
    { text: ARM, path: 'arm/urdf/arm.urdf' },
    { resolver: new MemoryResolver({}), ...opts },
  );
  return { b, r };
}

describe('URDF import', () => {
  it('links, joints, limits, dynamics, rpy frames and rotated inertia', async () => {
    const { b, r } = await loadArm({ label_prefix: 'arm/' });
    expect(r.name).toBe('arm');
    expect(b.bodies.map((x) => x.label)).toEqual(['arm/base', 'arm/l1', 'arm/fa', 'arm/fb', 'arm/w']);
    expect(b.joints.map((j) => j.label)).toEqual([
      'arm/fixed_base',
      'arm/j1',
      'arm/finger_a',
      'arm/finger_b',
      'arm/wheel',
    ]);
    const j1 = b.joints[1];
    expect(j1.type).toBe(JointType.REVOLUTE);
    // origin rpy (0, 0, π/2) → quaternion about z
    expect(j1.X_p.map((v) => +v.toFixed(12))).toEqual([
      0,
      0,
      0.1,
      0,
      0,
      +Math.SQRT1_2.toFixed(12),
      +Math.SQRT1_2.toFixed(12),
    ]);
    expect(j1.axis).toEqual([0, 1, 0]);
    expect(j1.dof).toMatchObject({
      limit_lower: -1,
      limit_upper: 2,
      effort_limit: 30,
      velocity_limit: 4,
      damping: 0.5,
      friction: 0.25,
    });
    // continuous: no limits, effort kept
    expect(b.joints[4].dof).toMatchObject({ limit_lower: -Infinity, limit_upper: Infinity, effort_limit: 5 });
    // inertia rotated by the inertial rpy (π/2 about x swaps y and z)
    const l1 = b.bodies[1];
    expect(l1.mass).toBe(2);
    expect(l1.com).toEqual([0, 0, 0.25]);
    expect(l1.inertia!.map((v) => +v.toFixed(12) + 0)).toEqual([1, 0, 0, 0, 3, 0, 0, 0, 2]);
    // world poses at q = 0: base at the origin, l1 at the joint frame
    expect(l1.X_wb.slice(0, 3).map((v) => +v.toFixed(12))).toEqual([0, 0, 0.1]);
  });

  it('visual shapes do not collide and carry no mass; a missing visual mesh is a warning and shows the colliders', async () => {
    const { b, r } = await loadArm();
    const base = b.shapes.filter((s) => s.body === 0);
    expect(base.map((s) => [s.type, s.cfg.has_shape_collision, s.cfg.density, s.cfg.is_visible])).toEqual([
      [ShapeType.BOX, false, 0, true],
      [ShapeType.BOX, true, 1000, false], // hidden: the link has a visual
    ]);
    expect(base[0].color).toEqual([1, 0, 0]);
    const l1 = b.shapes.filter((s) => s.body === 1);
    expect(l1).toHaveLength(1); // the missing visual mesh was skipped
    expect(l1[0].type).toBe(ShapeType.CYLINDER);
    expect(l1[0].size).toEqual([0.05, 0.25, 0]); // URDF length → half height along z
    expect(l1[0].cfg.is_visible).toBe(true);
    expect(r.warnings.join('\n')).toMatch(/visual meshes not loaded on 1 link.*l1/);
    expect(r.warnings.join('\n')).toMatch(/<transmission>/);
    expect(r.unsupported).toEqual([]);
    // a link without <inertial> takes its mass from its collision geometry
    const m = b.finalize();
    const w = m.body_label.indexOf('w');
    expect(m.body_mass[w]).toBeCloseTo((1000 * 4 * Math.PI * 0.1 ** 3) / 3, 9);
    expect(m.shape_flags[0] & ShapeFlags.COLLIDE_SHAPES).toBe(0);
  });

  it("textured COLLADA visuals carry their images and coordinates; an image that can't be drawn is a warning", async () => {
    // a tetrahedron: a textured material on three faces, a red one on the fourth
    const tetDae = (image: string) => `<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><up_axis>Z_UP</up_axis></asset>
  <library_images><image id="im"><init_from>${image}</init_from></image></library_images>
  <library_effects>
    <effect id="tex-fx"><profile_COMMON>
      <newparam sid="surf"><surface type="2D"><init_from>im</init_from></surface></newparam>
      <newparam sid="samp"><sampler2D><source>surf</source></sampler2D></newparam>
      <technique sid="t"><lambert><diffuse><texture texture="samp" texcoord="uv"/></diffuse></lambert></technique>
    </profile_COMMON></effect>
    <effect id="red-fx"><profile_COMMON><technique sid="t"><lambert><diffuse><color>1 0 0 1</color></diffuse></lambert></technique></profile_COMMON></effect>
  </library_effects>
  <library_materials>
    <material id="skin" name="skin"><instance_effect url="#tex-fx"/></material>
    <material id="red" name="red"><instance_effect url="#red-fx"/></material>
  </library_materials>
  <library_geometries><geometry id="g"><mesh>
    <source id="p"><float_array id="pa" count="12">0 0 0 1 0 0 0 1 0 0 0 1</float_array>
      <technique_common><accessor source="#pa" count="4" stride="3"/></technique_common></source>
    <source id="t"><float_array id="ta" count="6">0 0 1 0 0 1</float_array>
      <technique_common><accessor source="#ta" count="3" stride="2"/></technique_common></source>
    <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
    <triangles material="s" count="3">
      <input semantic="VERTEX" source="#v" offset="0"/><input semantic="TEXCOORD" source="#t" offset="1"/>
      <p>0 0 2 1 1 2  0 0 1 1 3 2  0 0 3 1 2 2</p>
    </triangles>
    <triangles material="r" count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>1 2 3</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s"><node><instance_geometry url="#g"><bind_material><technique_common>
    <instance_material symbol="s" target="#skin"/><instance_material symbol="r" target="#red"/>
  </technique_common></bind_material></instance_geometry></node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>`;
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const link = (name: string, file: string, collide = false) => `<link name="${name}">
      <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial>
      <visual><geometry><mesh filename="package://kit/meshes/${file}"/></geometry><material name="blue"/></visual>
      ${collide ? `<collision><geometry><mesh filename="package://kit/meshes/${file}"/></geometry></collision>` : ''}</link>`;
    const urdf = `<robot name="kit"><material name="blue"><color rgba="0 0 1 1"/></material>
      ${link('a', 'a.dae', true)}${link('b', 'b.dae')}${link('c', 'c.dae')}${link('d', 'd.dae')}
      ${['b', 'c', 'd'].map((c) => `<joint name="${c}" type="fixed"><parent link="a"/><child link="${c}"/></joint>`).join('')}
    </robot>`;
    const b = new ModelBuilder();
    const r = await importUrdf(
      b,
      { text: urdf, path: 'kit/urdf/kit.urdf' },
      {
        resolver: new MemoryResolver({
          'kit/meshes/a.dae': tetDae('textures/skin.png'),
          'kit/meshes/b.dae': tetDae('missing.png'),
          'kit/meshes/c.dae': tetDae('../meshes/textures/skin.png'), // the same image again
          'kit/meshes/d.dae': tetDae('notes.png'),
          'kit/meshes/textures/skin.png': png,
          'kit/meshes/notes.png': 'not an image',
        }),
      },
    );
    const m = b.finalize();
    // one image, however many meshes draw with it
    expect(m.textures.map((t) => [t.label, t.mime, t.bytes.length])).toEqual([
      ['kit/meshes/textures/skin.png', 'image/png', 12],
    ]);
    const visualsOf = (body: string) => {
      const k = m.body_label.indexOf(body);
      return r.shapes.filter(
        (s) => m.shape_body[s] === k && (m.shape_flags[s] & ShapeFlags.COLLIDE_SHAPES) === 0,
      );
    };
    // a and c: the textured part in white, drawn with the image and its coordinates; the red part
    for (const body of ['a', 'c']) {
      const [tex, red] = visualsOf(body);
      const mesh = m.shape_mesh[tex];
      expect(m.mesh_texture[mesh]).toBe(0);
      expect(Array.from(m.shape_color.subarray(tex * 3, tex * 3 + 3))).toEqual([1, 1, 1]);
      const nv = m.mesh_vertex_start[mesh + 1] - m.mesh_vertex_start[mesh];
      expect(nv).toBe(7); // the apex with one coordinate, each base corner with two (a seam)
      expect(m.mesh_uv[mesh]!.length).toBe(2 * nv);
      expect(m.mesh_texture[m.shape_mesh[red]]).toBe(-1);
      expect(Array.from(m.shape_color.subarray(red * 3, red * 3 + 3))).toEqual([1, 0, 0]);
    }
    // b and d: their images can't be drawn: the part keeps the URDF's colour, and the loader says why
    for (const body of ['b', 'd']) {
      const [plain] = visualsOf(body);
      expect(m.mesh_texture[m.shape_mesh[plain]]).toBe(-1);
      expect(m.mesh_uv[m.shape_mesh[plain]]).toBeNull();
      expect(Array.from(m.shape_color.subarray(plain * 3, plain * 3 + 3))).toEqual([0, 0, 1]);
    }
    const warnings = r.warnings.join('\n');
    expect(warnings).toMatch(/b\.dae: texture kit\/meshes\/missing\.png not drawn \(.*not found.*\)/);
    expect(warnings).toMatch(
      /d\.dae: texture kit\/meshes\/notes\.png not drawn \(not a JPEG, PNG, GIF, BMP or WebP image\)/,
    );
    // the collider: the whole tetrahedron, untextured, each part welded by position (no texture
    // seams): the textured part's four corners and the red face's three
    const col = r.shapes.find((s) => (m.shape_flags[s] & ShapeFlags.COLLIDE_SHAPES) !== 0)!;
    const cm = m.shape_mesh[col];
    expect(m.mesh_vertex_start[cm + 1] - m.mesh_vertex_start[cm]).toBe(4 + 3);
    expect(m.mesh_triangle_start[cm + 1] - m.mesh_triangle_start[cm]).toBe(4);
    expect(m.mesh_uv[cm]).toBeNull();
  });

  it('mimic becomes a coupler q(follower) = multiplier·q(leader) + offset', async () => {
    const { b, r } = await loadArm();
    expect(r.equalities).toHaveLength(1);
    const e = b.equalities[0];
    expect(e).toMatchObject({ type: 'coupler', joint0: 3, joint1: 2, ratio: 1.5, offset: 0.01 });
  });

  it('floating gives a free root at the xform; fixed base welds it there', async () => {
    const xform = [1, 2, 3, 0, 0, 0, 1];
    const f = await loadArm({ floating: true, xform });
    expect(f.b.joints[0].type).toBe(JointType.FREE);
    expect(f.b.joints[0].q).toEqual(xform);
    const g = await loadArm({ xform });
    expect(g.b.joints[0].type).toBe(JointType.FIXED);
    expect(g.b.joints[0].X_p).toEqual(xform);
    expect(g.b.bodies[1].X_wb.slice(0, 3).map((v) => +v.toFixed(12))).toEqual([1, 2, 3.1]);
  });

  it('enable_self_collisions: false filters every colliding pair of the asset', async () => {
    const { b } = await loadArm({ enable_self_collisions: false });
    const colliders = b.shapes.map((s, i) => (s.cfg.has_shape_collision ? i : -1)).filter((i) => i >= 0);
    expect(colliders).toHaveLength(3);
    expect(b.filterPairs).toHaveLength(3);
  });

  it('planar joints become two prismatic DOFs in the plane normal to the axis; convex_hull mesh colliders', async () => {
    const b = new ModelBuilder();
    const tet = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n';
    const r = await importUrdf(
      b,
      {
        text: `<robot name="p"><link name="a"/><joint name="pl" type="planar"><parent link="a"/><child link="c"/><axis xyz="0 0 1"/><limit lower="-1" upper="1"/></joint>
          <link name="c"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial>
          <collision><geometry><mesh filename="t.obj"/></geometry></collision></link></robot>`,
        path: 'p.urdf',
      },
      { resolver: new MemoryResolver({ 't.obj': tet }), mesh_collision: 'convex_hull' },
    );
    expect(r.joints).toHaveLength(3);
    const [u, v] = [b.joints[1], b.joints[2]];
    expect([u.type, v.type]).toEqual([JointType.PRISMATIC, JointType.PRISMATIC]);
    expect(Math.abs(u.axis[0] * v.axis[0] + u.axis[1] * v.axis[1] + u.axis[2] * v.axis[2])).toBeLessThan(
      1e-12,
    );
    expect(Math.abs(u.axis[2]) + Math.abs(v.axis[2])).toBeLessThan(1e-12);
    expect(u.dof).toMatchObject({ limit_lower: -1, limit_upper: 1 });
    expect(b.shapes[0].type).toBe(ShapeType.CONVEX_MESH);
  });

  it('malformed XML and bad structure are typed errors with a location; the builder is left untouched', async () => {
    const b = new ModelBuilder();
    b.addBody({ label: 'keep' });
    const bad = [
      ['<robot name="x">\n  <link name="a">\n</robot>', /x\.urdf:3:\d+: /],
      [
        '<robot><link name="a"/><joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint></robot>',
        /unknown child link 'b'/,
      ],
      [
        '<robot><link name="a"/><joint name="j" type="screw"><parent link="a"/><child link="a"/></joint></robot>',
        /unknown type 'screw'/,
      ],
      ['<robot><link name="a"><inertial><mass value="-1"/></inertial></link></robot>', /mass must be/],
      [
        '<robot><link name="a"><collision><geometry><box size="1 2"/></geometry></collision></link></robot>',
        /needs 3 numbers/,
      ],
      [
        '<robot><link name="a"/><link name="b"/><joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint><joint name="k" type="fixed"><parent link="b"/><child link="a"/></joint></robot>',
        /cycle|child of two/,
      ],
    ] as const;
    for (const [text, re] of bad) {
      const e = await importUrdf(b, { text, path: 'x.urdf' }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(ImportError);
      expect((e as Error).message).toMatch(re);
    }
    expect(parseUrdf.length).toBe(2);
    expect(b.bodies.map((x) => x.label)).toEqual(['keep']);
    expect(b.joints).toHaveLength(0);
    expect(b.shapes).toHaveLength(0);
  });
});

describe('URDF OBJ visuals draw their MTL materials', () => {
  it("SAP Warp's Piper arm: dark links and yellow-and-grey UMI grippers, as its MTL files say", async () => {
    const file = path.join(SAP_WARP, 'assets/sap_warp/assets/robot/urdf/piper_description/piper.urdf');
    const a = await loadModelAsset(
      'urdf',
      { path: file },
      { resolver: new NodeFsResolver({ root: path.dirname(file) }) },
    );
    const m = a.model;
    const visuals = Array.from({ length: m.shape_count }, (_, s) => s).filter(
      (s) => (m.shape_flags[s] & ShapeFlags.COLLIDE_SHAPES) === 0 && m.shape_type[s] === ShapeType.MESH,
    );
    const rgb = (s: number) => Array.from(m.shape_color.subarray(s * 3, s * 3 + 3), (v) => +v.toFixed(3));
    const of = (label: string) => visuals.filter((s) => m.shape_label[s].includes(label)).map(rgb);
    expect(of('link1/')).toEqual([[0.02, 0.02, 0.02]]);
    // the gripper fingers' OBJ has two materials: two shapes
    expect(of('link7/')).toEqual([
      [0.918, 0.714, 0.243],
      [0.8, 0.8, 0.8],
    ]);
    expect(a.warnings.join('\n')).not.toMatch(/material/);
    // its collider is the whole file welded by position, not the material parts side by side
    const collider = Array.from({ length: m.shape_count }, (_, s) => s).find(
      (s) => m.shape_label[s].includes('link7/') && (m.shape_flags[s] & ShapeFlags.COLLIDE_SHAPES) !== 0,
    )!;
    const mesh = m.shape_mesh[collider];
    const welded = parseObj(readFileSync(path.join(path.dirname(file), 'meshes/umi_gripper.obj'), 'utf8'));
    expect(m.shape_type[collider]).toBe(ShapeType.MESH);
    expect(m.mesh_vertex_start[mesh + 1] - m.mesh_vertex_start[mesh]).toBe(welded.vertices.length / 3);
  });

  it('a missing MTL file is a warning; the faces keep the URDF colour', async () => {
    const b = new ModelBuilder();
    const r = await importUrdf(
      b,
      {
        path: 'r/r.urdf',
        text: `<robot name="r"><material name="blue"><color rgba="0 0 1 1"/></material>
          <link name="a"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial>
          <visual><geometry><mesh filename="m.obj"/></geometry><material name="blue"/></visual></link></robot>`,
      },
      {
        resolver: new MemoryResolver({
          'r/m.obj':
            'mtllib gone.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nusemtl red\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n',
        }),
      },
    );
    const m = b.finalize();
    expect(r.warnings.join('\n')).toMatch(
      /r\/m\.obj: material library 'gone\.mtl' not read \(.*not found.*\)/,
    );
    const s = r.shapes[0];
    expect(Array.from(m.shape_color.subarray(s * 3, s * 3 + 3))).toEqual([0, 0, 1]);
  });
});

describe('URDF models of MANIFEST.md load and simulate 2 s without NaN', () => {
  const resolver = new NodeFsResolver({ root: SHARED_ASSETS });
  for (const [id, file] of Object.entries(URDF_MODELS)) {
    it(`${id} ${path.basename(file)}`, async () => {
      // welded 1 m above the ground: these tests are about the import, not mesh contact
      const a = await loadModelAsset(
        'urdf',
        { path: file },
        { resolver, xform: [0, 0, 1, 0, 0, 0, 1], enable_self_collisions: false },
      );
      const m = a.model;
      expect(a.result.unsupported).toEqual([]);
      expect(m.body_count).toBeGreaterThan(1);
      const r = simulateFor(m, 0.005, 2);
      expect(r.finite).toBe(true);
      if (id === 'U2') {
        // upper-case .URDF with relative ../meshes/X.STL: every collision mesh found
        expect(m.mesh_count).toBe(37);
      }
      if (id === 'U3') {
        // mimic finger; the hand's and fingers' COLLADA visuals load, one shape per material in the
        // file's colours; the arm's visual DAEs are not in the asset set, so those links show colliders
        expect(m.eq_count).toBe(1);
        const warn = a.warnings.join('\n');
        expect(warn).toMatch(
          /visual meshes not loaded on 8 link\(s\); their collision shapes are shown instead: fr3_link0 \(package:\/\/franka_emika_panda\/meshes\/robot_arms\/fr3\/visual\/link0\.dae: file not found in package 'franka_emika_panda' .*fr3_link7 \(package:/m,
        );
        const shapesOf = (link: string) => {
          const body = m.body_label.indexOf(link);
          return Array.from({ length: m.shape_count }, (_, s) => s).filter((s) => m.shape_body[s] === body);
        };
        const visible = (s: number) => (m.shape_flags[s] & ShapeFlags.VISIBLE) !== 0;
        const collides = (s: number) => (m.shape_flags[s] & ShapeFlags.COLLIDE_SHAPES) !== 0;
        const hand = shapesOf('fr3_hand');
        const handVisuals = hand.filter((s) => !collides(s));
        expect(handVisuals).toHaveLength(5); // hand.dae: five materials
        expect(handVisuals.every(visible)).toBe(true);
        expect(hand.filter(collides).some(visible)).toBe(false); // the collider hides behind its visual
        const rgb = (s: number) => Array.from(m.shape_color.subarray(s * 3, s * 3 + 3), (v) => +v.toFixed(3));
        expect(handVisuals.map(rgb)).toContainEqual([1, 1, 1]);
        expect(handVisuals.map(rgb)).toContainEqual([0.251, 0.251, 0.251]);
        for (const f of ['fr3_leftfinger', 'fr3_rightfinger']) {
          expect(shapesOf(f).filter((s) => !collides(s) && visible(s))).toHaveLength(2); // finger.dae: two
        }
        // the arm links fall back to their collision meshes
        expect(shapesOf('fr3_link3').filter((s) => collides(s) && visible(s))).toHaveLength(1);
      }
      if (id === 'U4') {
        expect(Array.from(m.joint_type)).toEqual([
          JointType.FIXED,
          JointType.PRISMATIC,
          JointType.REVOLUTE,
          JointType.REVOLUTE,
        ]);
      }
    });
  }
});

describe('URDF messages name what they are about', () => {
  const robot = (limit: string, mesh = 'm.stl') => `<robot name="r">
<link name="a"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="b"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  <visual><geometry><mesh filename="${mesh}"/></geometry></visual></link>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
  ${limit}</joint></robot>`;
  const ok = '<limit lower="-1" upper="1" effort="1" velocity="1"/>';
  it('an inverted limit names the file, the line and the joint element', async () => {
    const text = robot('<limit lower="1" upper="-1" effort="1" velocity="1"/>');
    await expect(
      loadModelAsset(
        'urdf',
        { path: 'robots/r.urdf' },
        { resolver: new MemoryResolver({ 'robots/r.urdf': text }) },
      ),
    ).rejects.toThrow(/^robots\/r\.urdf:5:1: <joint name="j"> <limit>: lower 1 > upper -1$/);
  });
  it('an unknown package:// name is named, and the warning keeps the whole reason', async () => {
    const text = robot(ok, 'package://nopkg/meshes/m.stl');
    const r = await loadModelAsset(
      'urdf',
      { path: 'robots/r.urdf' },
      { resolver: new MemoryResolver({ 'robots/r.urdf': text }) },
    );
    expect(r.warnings.join('\n')).toMatch(
      /visual meshes not loaded on 1 link\(s\); their collision shapes are shown instead: b \(package:\/\/nopkg\/meshes\/m\.stl: package 'nopkg' not found \(no package map entry/,
    );
    // a corrupt mesh keeps the start of its reason (the file and the reader's words)
    const bad = await loadModelAsset(
      'urdf',
      { path: 'robots/r.urdf' },
      { resolver: new MemoryResolver({ 'robots/r.urdf': robot(ok), 'robots/m.stl': 'solid x\nfacet' }) },
    );
    expect(bad.warnings.join('\n')).toMatch(/shown instead: b \(robots\/m\.stl: .+\)/);
  });
});
