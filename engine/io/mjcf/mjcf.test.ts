import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JointType, ModelBuilder, ShapeFlags, ShapeType, type SapModel } from '../../model';
import { ImportError } from '../assets/errors';
import { rotate } from '../assets/frames';
import { NodeFsResolver } from '../assets/node_fs';
import { MemoryResolver } from '../assets/resolvers';
import { loadModelAsset } from '../import';
import { MJCF_MODELS, SHARED_ASSETS, watchRun } from '../testing_assets';
import { importMjcf } from './mjcf';
import { gravcompArmMjcf, tendonArmMjcf } from './testing';
import { Simulation } from '../../pipeline';
import {
  loadMujoco,
  mujocoFromXml,
  type MjData,
  type MjModel,
  type MujocoModule,
} from '../../cli/peers/mujoco';

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

async function load(xml: string, files: Record<string, string | Uint8Array> = {}, opts = {}) {
  const b = new ModelBuilder();
  const r = await importMjcf(
    b,
    { text: xml, path: 'm/model.xml' },
    { resolver: new MemoryResolver(files), ...opts },
  );
  return { b, r };
}
/** compiles `xml` in MuJoCo's WebAssembly build, runs `fn` on its model and data, then frees both */
async function withMujoco<T>(
  xml: string,
  fn: (mj: MujocoModule, mm: MjModel, d: MjData) => T | Promise<T>,
): Promise<T> {
  const mj = await loadMujoco();
  if (typeof mj === 'string') throw new Error(mj);
  const { m: mm, d } = mujocoFromXml(mj, xml);
  try {
    return await fn(mj, mm, d);
  } finally {
    d.delete();
    mm.delete();
  }
}
const round = (a: ArrayLike<number>, d = 9) => Array.from(a, (v) => +v.toFixed(d) + 0);
const shapeNamed = (b: ModelBuilder, label: string) => {
  const s = b.shapes.find((x) => x.label === label);
  if (!s) throw new Error(`no shape ${label}; have ${b.shapes.map((x) => x.label).join(', ')}`);
  return s;
};

describe('MJCF import', () => {
  it('resolves nested default classes, childclass and explicit class', async () => {
    const { b } = await load(`
<mujoco>
  <default>
    <geom type="capsule" size="0.1 0.2" friction="0.7"/>
    <joint damping="1" armature="0.5"/>
    <default class="a">
      <geom size="0.3 0.4"/>
      <joint damping="2"/>
      <default class="b"><geom type="sphere" friction="0.9"/><joint frictionloss="0.3"/></default>
    </default>
  </default>
  <worldbody>
    <body name="p" childclass="a">
      <freejoint/>
      <geom name="g1"/>
      <geom name="g2" class="b"/>
      <geom name="g3" class="main"/>
      <body name="c" pos="0 0 1">
        <joint name="h" class="b"/>
        <geom name="g4"/>
      </body>
    </body>
  </worldbody>
</mujoco>`);
    const g1 = shapeNamed(b, 'p/g1');
    expect([g1.type, ...g1.size.slice(0, 2), g1.cfg.mu]).toEqual([ShapeType.CAPSULE, 0.3, 0.4, 0.7]);
    const g2 = shapeNamed(b, 'p/g2');
    expect([g2.type, g2.size[0], g2.cfg.mu]).toEqual([ShapeType.SPHERE, 0.3, 0.9]);
    const g3 = shapeNamed(b, 'p/g3');
    expect([g3.type, ...g3.size.slice(0, 2)]).toEqual([ShapeType.CAPSULE, 0.1, 0.2]);
    expect(shapeNamed(b, 'c/g4').size.slice(0, 2)).toEqual([0.3, 0.4]); // childclass reaches nested bodies
    const h = b.joints[b.findJoint('h')];
    expect(h.type).toBe(JointType.REVOLUTE); // hinge by default
    expect(h.axis).toEqual([0, 0, 1]);
    expect(h.dof).toMatchObject({ damping: 2, armature: 0.5, friction: 0.3 });
  });

  it("a geom without friction gets MuJoCo's default 1, unless the importing scene sets mu", async () => {
    const xml = `<mujoco><default><default class="f"><geom friction="0.3"/></default></default>
  <worldbody><geom name="floor" type="plane" size="0 0 1"/>
    <body name="p"><freejoint/><geom name="g" size="0.1"/><geom name="h" class="f" size="0.1"/></body>
  </worldbody></mujoco>`;
    const { b } = await load(xml);
    expect(shapeNamed(b, 'world/floor').cfg.mu).toBe(1);
    expect(shapeNamed(b, 'p/g').cfg.mu).toBe(1);
    expect(shapeNamed(b, 'p/h').cfg.mu).toBe(0.3); // the class's friction
    const scene = await load(xml, {}, { shape_cfg: { mu: 0.6 } });
    expect(shapeNamed(scene.b, 'world/floor').cfg.mu).toBe(0.6);
    expect(shapeNamed(scene.b, 'p/h').cfg.mu).toBe(0.3); // the file's own friction still wins
  });

  it('fromto for capsule, cylinder, box and ellipsoid', async () => {
    const { b } = await load(`
<mujoco><worldbody><body name="p"><freejoint/>
  <geom name="c" type="capsule" fromto="0 0 0 0 0.6 0.8" size="0.05"/>
  <geom name="y" type="cylinder" fromto="1 0 0 1 0 -2" size="0.1"/>
  <geom name="x" type="box" fromto="-1 0 0 1 0 0" size="0.2 0.3"/>
  <geom name="e" type="ellipsoid" fromto="0 0 0 0 0 1" size="0.2 0.3"/>
</body></worldbody></mujoco>`);
    const c = shapeNamed(b, 'p/c');
    expect(c.size.slice(0, 2)).toEqual([0.05, 0.5]);
    expect(round(c.X_bs.slice(0, 3))).toEqual([0, 0.3, 0.4]);
    // the local z axis points along to − from
    expect(round(rotate(c.X_bs.slice(3), [0, 0, 1]))).toEqual([0, 0.6, 0.8]);
    const y = shapeNamed(b, 'p/y');
    expect(round(rotate(y.X_bs.slice(3), [0, 0, 1]))).toEqual([0, 0, -1]);
    expect(y.size.slice(0, 2)).toEqual([0.1, 1]);
    const x = shapeNamed(b, 'p/x');
    expect([x.type, ...x.size]).toEqual([ShapeType.BOX, 0.2, 0.3, 1]);
    expect(round(rotate(x.X_bs.slice(3), [0, 0, 1]))).toEqual([1, 0, 0]);
    expect(shapeNamed(b, 'p/e').size).toEqual([0.2, 0.3, 0.5]);
  });

  it('quat is w x y z; euler follows eulerseq; angles in degrees unless compiler says radian', async () => {
    const { b } = await load(`
<mujoco>
  <compiler eulerseq="zyx"/>
  <worldbody>
    <body name="q" quat="0 1 0 0"><geom size="0.1"/></body>
    <body name="e" euler="90 90 0"><geom size="0.1"/></body>
    <body name="a" axisangle="0 0 1 90"><geom size="0.1"/></body>
    <body name="x" xyaxes="0 1 0 -1 0 0"><geom size="0.1"/></body>
    <body name="z" zaxis="1 0 0"><geom size="0.1"/></body>
  </worldbody>
</mujoco>`);
    const pose = (l: string) => b.bodies[b.findBody(l)].X_wb;
    expect(round(pose('q').slice(3))).toEqual([1, 0, 0, 0]); // 180° about x
    // zyx intrinsic: first 90° about z, then 90° about the new y
    const qe = pose('e').slice(3);
    expect(round(rotate(qe, [1, 0, 0]))).toEqual([0, 0, -1]);
    expect(round(rotate(qe, [0, 0, 1]))).toEqual([0, 1, 0]);
    expect(round(rotate(pose('a').slice(3), [1, 0, 0]))).toEqual([0, 1, 0]);
    expect(round(rotate(pose('x').slice(3), [1, 0, 0]))).toEqual([0, 1, 0]);
    expect(round(rotate(pose('z').slice(3), [0, 0, 1]))).toEqual([1, 0, 0]);
    const rad = await load(`<mujoco><compiler angle="radian" eulerseq="XYZ"/><worldbody>
      <body name="r" euler="0 0 1.5707963267948966"><geom size="0.1"/></body></worldbody></mujoco>`);
    expect(round(rotate(rad.b.bodies[0].X_wb.slice(3), [1, 0, 0]))).toEqual([0, 1, 0]);
  });

  it('several joints in one body become a chain through massless bodies; limits in degrees', async () => {
    const { b, r } = await load(`
<mujoco><worldbody>
  <body name="base"><geom type="box" size="0.1 0.1 0.1"/>
    <body name="leg" pos="0 0 -0.2">
      <joint name="hx" axis="1 0 0" pos="0 0 0.1" range="-30 60"/>
      <joint name="hy" axis="0 1 0" pos="0 0 0.1"/>
      <joint name="s" type="slide" axis="0 0 1" range="-0.1 0.1"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.05"/>
    </body>
  </body>
</worldbody></mujoco>`);
    expect(b.bodies.map((x) => x.label)).toEqual(['base', 'leg/dof0', 'leg/dof1', 'leg']);
    expect(b.joints.map((j) => [j.label, j.type, j.parent, j.child])).toEqual([
      ['base_weld', JointType.FIXED, -1, 0],
      ['hx', JointType.REVOLUTE, 0, 1],
      ['hy', JointType.REVOLUTE, 1, 2],
      ['s', JointType.PRISMATIC, 2, 3],
    ]);
    const hx = b.joints[1];
    expect(round(hx.X_p.slice(0, 3))).toEqual([0, 0, -0.1]); // body pos + joint pos
    expect(round(hx.X_c.slice(0, 3))).toEqual([0, 0, 0.1]);
    expect(hx.dof.limit_lower).toBeCloseTo(-Math.PI / 6, 12);
    expect(hx.dof.limit_upper).toBeCloseTo(Math.PI / 3, 12);
    expect(b.joints[2].dof.limit_lower).toBe(-Infinity); // no range: unlimited
    expect(b.joints[3].dof).toMatchObject({ limit_lower: -0.1, limit_upper: 0.1 });
    expect(b.bodies[1].mass).toBe(0);
    expect(r.warnings.filter((w) => /mass/.test(w))).toEqual([]);
    const m = b.finalize();
    expect(m.body_mass[m.body_label.indexOf('leg')]).toBeGreaterThan(0);
  });

  it('keyframes: free-joint qpos wxyz → xyzw (moved by xform), ball wxyz → xyzw, hinge minus ref; ctrl → PD targets', async () => {
    const xml = `
<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="torso" pos="0 0 1"><freejoint name="root"/><geom size="0.1"/>
      <body name="arm"><joint name="sh" type="ball"/><geom size="0.05"/>
        <body name="fore"><joint name="el" ref="0.5" range="0 2"/><geom size="0.05"/></body>
      </body>
    </body>
  </worldbody>
  <actuator><position name="pe" joint="el" kp="100" kv="3" gear="2" forcerange="-10 10"/></actuator>
  <keyframe><key name="k" qpos="1 2 3  0 0 0 1  0 1 0 0  1.5" ctrl="0.8"/></keyframe>
</mujoco>`;
    const { b, r } = await load(xml, {}, { xform: [0, 0, 1, 0, 0, 0, 1], keyframe: 'k' });
    const k = r.keyframes![0];
    expect(k.name).toBe('k');
    expect(k.joint_q).toEqual([
      { joint: 0, q: [1, 2, 4, 0, 0, 1, 0] },
      { joint: 1, q: [1, 0, 0, 0] },
      { joint: 2, q: [1] },
    ]);
    expect(b.joints[0].q).toEqual([1, 2, 4, 0, 0, 1, 0]);
    const el = b.joints[2];
    expect(el.q).toEqual([1]);
    // position actuator with gear g: ke = kp·g², kd = kv·g², target = ctrl/g, effort = g·forcerange
    expect(el.dof).toMatchObject({ target_ke: 400, target_kd: 12, target_pos: 0.4, effort_limit: 20 });
    expect(el.dof.limit_lower).toBeCloseTo(-0.5, 12);
    expect(r.actuators).toEqual([
      { name: 'pe', kind: 'position', joint: 2, gear: 2, ctrlrange: undefined, forcerange: [-10, 10] },
    ]);
  });

  it("a keyframe's time is the initial time (MuJoCo's mj_resetDataKeyframe); a non-finite one is refused where it stands", async () => {
    const xml = (t: string) => `
<mujoco>
  <worldbody><body name="b" pos="0 0 1"><freejoint/><geom size="0.1"/></body></worldbody>
  <keyframe><key name="k" time="${t}" qpos="0 0 2 1 0 0 0"/></keyframe>
</mujoco>`;
    const { b } = await load(xml('1.25'), {}, { keyframe: 'k' });
    const m = b.finalize();
    expect(m.time0).toBe(1.25);
    const sim = new Simulation(m, { dt: 0.01 });
    expect(sim.state.time).toBe(1.25);
    sim.step();
    expect(sim.state.time).toBeCloseTo(1.26, 14);
    sim.reset();
    expect(sim.state.time).toBe(1.25);
    // without the keyframe the clock starts at 0
    expect((await load(xml('1.25'))).b.finalize().time0).toBe(0);
    await expect(
      loadModelAsset('mjcf', { text: xml('1e999'), path: 'k.xml' }, { keyframe: 'k' }),
    ).rejects.toThrow(/4:13: <key time="1e999">: expected finite numbers/);
  });

  it("a free joint's keyframe qvel (origin velocity, body-frame ω) starts the COM where MuJoCo's goes", async () => {
    // no gravity: the COM moves at v_C = v_O + ω × R·c, the body precesses about its COM
    const xml = `
<mujoco>
  <option gravity="0 0 0" timestep="0.001"/>
  <worldbody>
    <body name="b" pos="0 0 1"><freejoint/>
      <inertial pos="0.2 0.1 -0.05" mass="2" diaginertia="0.05 0.08 0.11"/>
      <geom type="sphere" size="0.05" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <keyframe><key name="spin" qpos="0.1 0 1  0.9238795 0 0.3826834 0" qvel="0.3 -0.2 0.5  1.5 -0.7 2"/></keyframe>
</mujoco>`;
    const { model: m } = await loadModelAsset('mjcf', { text: xml, path: 'spin.xml' }, { keyframe: 'spin' });
    expect(m.gravity[2]).toBe(0);
    const sim = new Simulation(m, { dt: 0.001, solver: { contact_preset_variant: 'drake' } });
    const q = [0, 0.3826834, 0, 0.9238795]; // xyzw
    const c = [0.2, 0.1, -0.05];
    const w = rotate(q, [1.5, -0.7, 2]);
    const r = rotate(q, c);
    const vC = [
      0.3 + w[1] * r[2] - w[2] * r[1],
      -0.2 + w[2] * r[0] - w[0] * r[2],
      0.5 + w[0] * r[1] - w[1] * r[0],
    ];
    expect(round(sim.state.joint_qd, 6)).toEqual(round([...vC, ...w], 6));
    const com = () => {
      const X = sim.state.body_q;
      const rc = rotate([X[3], X[4], X[5], X[6]], c);
      return [X[0] + rc[0], X[1] + rc[1], X[2] + rc[2]];
    };
    const c0 = [0.1 + r[0], r[1], 1 + r[2]];
    await withMujoco(xml, (mj, mm, d) => {
      mj.mj_resetDataKeyframe(mm, d, 0);
      for (let i = 0; i < 300; i++) {
        sim.step();
        mj.mj_step(mm, d);
      }
      const t = 0.3;
      const expected = c0.map((x, k) => x + vC[k] * t);
      // both step the body origin with the COM's velocity change O(δt) off (centripetal terms held
      // over a step): measured ours 1.8e-4 from the straight line, MuJoCo 1.0e-3; with the origin
      // velocity taken for the COM's, ours would miss it by |ω × R·c|·t ≈ 0.19 m
      for (let k = 0; k < 3; k++) {
        expect(Math.abs(com()[k] - expected[k])).toBeLessThan(5e-4);
        expect(Math.abs(d.xipos[3 + k] - expected[k])).toBeLessThan(2e-3);
      }
      // the precession agrees (different integrators: 1 − |q·q'| measured 8.5e-7, 0.15°)
      const ours = sim.state.body_q.slice(3, 7);
      const theirs = [d.xquat[5], d.xquat[6], d.xquat[7], d.xquat[4]];
      const dot = Math.abs(ours.reduce((s, x, k) => s + x * theirs[k], 0));
      expect(1 - dot).toBeLessThan(3e-6);
    });
  });

  it('equality connect / weld / joint, contact exclude, fixed tendons, includes and meshes with negative scale', async () => {
    const tet = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n';
    // an included file's top-level children replace the <include> element
    const inc = `<mujoco>
      <body name="b" pos="1 0 0"><joint name="jb"/><geom name="gb" type="mesh" mesh="tetm"/></body>
    </mujoco>`;
    const { b, r } = await load(
      `
<mujoco>
  <compiler meshdir="meshes"/>
  <asset><mesh name="tetm" file="tet.obj" scale="1 -1 1"/></asset>
  <worldbody>
    <body name="a"><joint name="ja"/><geom name="ga" size="0.1"/></body>
    <include file="part.xml"/>
    <site name="s0" pos="0 0 1"/><site name="s1" pos="1 0 1"/>
  </worldbody>
  <contact><exclude body1="a" body2="b"/></contact>
  <equality>
    <connect body1="a" body2="b" anchor="0.5 0 0"/>
    <weld body1="a" body2="b"/>
    <joint joint1="jb" joint2="ja" polycoef="0.1 2 0 0 0"/>
  </equality>
  <tendon><fixed name="t"><joint joint="ja" coef="1"/></fixed><spatial name="s"><site site="s0"/><geom geom="ga"/><site site="s1"/></spatial></tendon>
</mujoco>`,
      { 'm/part.xml': inc, 'm/meshes/tet.obj': tet },
    );
    expect(b.bodies.map((x) => x.label)).toEqual(['a', 'b']);
    expect(b.equalities.map((e) => e.type)).toEqual(['ball', 'weld', 'coupler']);
    const ball = b.equalities[0];
    expect(round(ball.anchor1)).toEqual([-0.5, 0, 0]); // the same world point in b's frame
    expect(b.equalities[2]).toMatchObject({ joint0: 1, joint1: 0, ratio: 2, offset: 0.1 });
    expect(b.tendons).toMatchObject([
      { label: 't', joints: [{ joint: 0, coef: 1 }], lower: -Infinity, upper: Infinity },
    ]);
    expect(r.unsupported.join('\n')).not.toMatch(/'t'/);
    // a spatial tendon is built; its wrapping geom is not (straight segments)
    expect(b.spatialTendons.map((t) => t.label)).toEqual(['s']);
    expect(r.unsupported.join('\n')).toMatch(
      /tendon 's': wrapping around geom 'ga' is not built \(the tendon is treated as straight segments between its sites\)/,
    );
    // mirrored mesh keeps positive volume; collider is the hull (hidden) + a visual copy
    const hull = shapeNamed(b, 'b/gb');
    expect(hull.type).toBe(ShapeType.CONVEX_MESH);
    expect(hull.cfg.is_visible).toBe(false);
    expect(shapeNamed(b, 'b/gb/visual').cfg.has_shape_collision).toBe(false);
    const m = b.finalize();
    expect(m.body_mass[1]).toBeCloseTo(1000 / 6, 6);
    // exclude: the two bodies' colliders are a filtered pair
    const ga = b.shapes.findIndex((s) => s.label === 'a/ga');
    const gb = b.shapes.findIndex((s) => s.label === 'b/gb');
    expect(b.filterPairs).toContainEqual([ga, gb]);
  });

  it('frictionloss acts on hinges; on a ball joint it is named as not simulated', async () => {
    const { b, r } = await load(`<mujoco><worldbody>
  <body name="a"><joint name="h" type="hinge" frictionloss="0.4"/><geom size="0.1"/>
    <body name="s" pos="0 0 -0.3"><joint name="s" type="ball" frictionloss="0.2"/><geom size="0.1"/></body>
  </body>
</worldbody></mujoco>`);
    expect(r.unsupported.join('\n')).toMatch(/joint 's': frictionloss on a ball joint is not simulated/);
    expect(Array.from(b.finalize().joint_friction)).toEqual([0.4, 0, 0, 0]);
  });

  it('contype / conaffinity decide collision flags and filtered pairs', async () => {
    const { b } = await load(`
<mujoco><worldbody>
  <body name="l"><freejoint/><geom name="v" size="0.1" contype="0" conaffinity="0" group="2"/><geom name="c" size="0.1" contype="2" conaffinity="4" group="3"/></body>
  <body name="r" pos="1 0 0"><freejoint/><geom name="c" size="0.1" contype="2" conaffinity="4"/></body>
  <body name="x" pos="2 0 0"><freejoint/><geom name="c" size="0.1" contype="4" conaffinity="2"/></body>
</worldbody></mujoco>`);
    const v = shapeNamed(b, 'l/v');
    expect([v.cfg.has_shape_collision, v.cfg.is_visible]).toEqual([false, true]);
    expect(shapeNamed(b, 'l/c').cfg.is_visible).toBe(false); // group 3 is hidden
    const idx = (l: string) => b.shapes.findIndex((s) => s.label === l);
    expect(b.filterPairs).toEqual([[idx('l/c'), idx('r/c')]]); // 2&4 = 0 both ways; x collides with both
  });

  it('hfield assets from elevation are normalized to [0, 1]; sites are massless non-colliding shapes', async () => {
    const { b } = await load(`
<mujoco><asset><hfield name="hf" nrow="2" ncol="3" size="1 2 0.5 0.1" elevation="1 2 3 4 5 5"/></asset>
<worldbody><geom name="ground" type="hfield" hfield="hf" pos="0 0 -1"/><site name="s0" pos="0 0 1"/>
  <body name="p"><freejoint/><geom size="0.1"/><site name="tip" type="box" size="0.01 0.02 0.03"/></body></worldbody></mujoco>`);
    expect(b.hfields).toHaveLength(1);
    expect(b.hfields[0]).toMatchObject({ nrow: 2, ncol: 3, size: [1, 2, 0.5, 0.1] });
    expect(round(b.hfields[0].data)).toEqual([0, 0.25, 0.5, 0.75, 1, 1]);
    const g = shapeNamed(b, 'world/ground');
    expect([g.type, g.body, g.hfield]).toEqual([ShapeType.HEIGHTFIELD, -1, 0]);
    const tip = shapeNamed(b, 'p/tip');
    expect([tip.type, ...tip.size, tip.cfg.is_site, tip.cfg.has_shape_collision, tip.cfg.density]).toEqual([
      ShapeType.BOX,
      0.01,
      0.02,
      0.03,
      true,
      false,
      0,
    ]);
  });

  it('errors are typed and located; the builder is left untouched', async () => {
    const b = new ModelBuilder();
    const cases = [
      ['<mujoco>\n<worldbody>\n<body>\n</worldbody></mujoco>', /m\/model\.xml:4:\d+: /],
      ['<mujoco><worldbody><body><geom type="box" size="1 2"/></body></worldbody></mujoco>', /needs 3 size/],
      [
        '<mujoco><worldbody><body><geom class="nope" size="1"/></body></worldbody></mujoco>',
        /unknown class 'nope'/,
      ],
      ['<mujoco><worldbody><body><joint type="screw"/></body></worldbody></mujoco>', /unknown joint type/],
      ['<mujoco><include file="missing.xml"/></mujoco>', /missing\.xml/],
      [
        '<mujoco><worldbody><body><geom size="1"/></body></worldbody><actuator><motor joint="zz"/></actuator></mujoco>',
        /unknown joint 'zz'/,
      ],
      ['<robot/>', /expected a <mujoco> root/],
    ] as const;
    for (const [xml, re] of cases) {
      const err = await importMjcf(
        b,
        { text: xml, path: 'm/model.xml' },
        { resolver: new MemoryResolver({}) },
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, String(xml)).toBeInstanceOf(ImportError);
      expect((err as Error).message).toMatch(re);
      expect(b.bodies.length + b.joints.length + b.shapes.length + b.meshes.length).toBe(0);
    }
  });
});

describe('MJCF models of MANIFEST.md load and simulate 2 s without NaN', () => {
  const resolver = new NodeFsResolver({ root: SHARED_ASSETS });
  const expected: Record<string, { bodies: number; free: number; hinge: number; ball: number }> = {
    D1: { bodies: 16, free: 1, hinge: 21, ball: 0 },
    D2: { bodies: 15, free: 1, hinge: 12, ball: 0 },
    D3: { bodies: 25, free: 1, hinge: 20, ball: 2 },
    D4: { bodies: 24, free: 1, hinge: 23, ball: 0 },
  };
  for (const [id, file] of Object.entries(MJCF_MODELS)) {
    it(`${id} ${path.basename(path.dirname(file))}`, async () => {
      const a = await loadModelAsset('mjcf', { path: file }, { resolver });
      const m = a.model;
      const count = (t: number) => Array.from(m.joint_type).filter((x) => x === t).length;
      const e = expected[id];
      expect(a.builder.bodies.filter((x) => !/\/dof\d+$/.test(x.label)).length).toBe(e.bodies);
      expect([count(JointType.FREE), count(JointType.REVOLUTE), count(JointType.BALL)]).toEqual([
        e.free,
        e.hinge,
        e.ball,
      ]);
      expect(a.result.keyframes!.length).toBeGreaterThan(0);
      const r = simulateFor(m, Math.max(a.dt, 0.002), 2);
      expect(r.finite).toBe(true);
    });
  }
});

describe('MJCF fixed tendons', () => {
  it("the humanoid's hamstrings: ±0.5 coefficients on hip_y and knee, range [−0.3, 2] not in degrees", async () => {
    const a = await loadModelAsset(
      'mjcf',
      { path: MJCF_MODELS.D1 },
      { resolver: new NodeFsResolver({ root: SHARED_ASSETS }) },
    );
    const m = a.model;
    expect(m.tendon_label).toEqual(['hamstring_right', 'hamstring_left']);
    expect(a.result.unsupported.join('\n')).not.toMatch(/tendon/);
    for (let t = 0; t < 2; t++) {
      const side = t === 0 ? 'right' : 'left';
      const e0 = m.tendon_adr[t];
      expect(m.tendon_adr[t + 1] - e0).toBe(2);
      expect([m.joint_label[m.tendon_joint[e0]], m.joint_label[m.tendon_joint[e0 + 1]]]).toEqual([
        expect.stringMatching(new RegExp(`hip_y_${side}$`)),
        expect.stringMatching(new RegExp(`knee_${side}$`)),
      ]);
      expect([m.tendon_coef[e0], m.tendon_coef[e0 + 1], m.tendon_offset[t]]).toEqual([0.5, -0.5, 0]);
      expect([m.tendon_lower[t], m.tendon_upper[t]]).toEqual([-0.3, 2]);
    }
  });

  // a two-link arm (hinges about y, 0.4 m links of 1 kg) released horizontally; its tendon
  // l = ½(hip − knee) + ½·ref_hip (angles below the horizontal) has the upper limit 0.5 + 0.1, which
  // the hanging pose (hip = π/2, knee = 0) would exceed, so it comes to rest on the limit:
  // hip − knee = 1 rad, at the minimum of V(h) = −g·(0.6·sin h + 0.2·sin(2h − 1)), i.e.
  // 0.6·cos h + 0.4·cos(2h − 1) = 0
  const arm = tendonArmMjcf(1.5);
  // (hip's ref 0.2 rotates nothing at import, MuJoCo measures qpos from it: qpos_hip = q_hip + 0.2)
  let h = 1.2;
  for (let k = 0; k < 50; k++) {
    const f = 0.6 * Math.cos(h) + 0.4 * Math.cos(2 * h - 1);
    const df = -0.6 * Math.sin(h) - 0.8 * Math.sin(2 * h - 1);
    h -= f / df;
  }
  const restHip = h;

  it('rest on the tendon limit at the analytic constrained equilibrium, as MuJoCo does', async () => {
    const { b } = await load(arm);
    const m = b.finalize();
    expect(m.gravity[2]).toBe(-9.81);
    expect([m.tendon_offset[0], m.tendon_upper[0]]).toEqual([0.1, 0.6]);
    const dt = 0.002;
    const sim = new Simulation(m, { dt, solver: { contact_preset_variant: 'drake' } });
    await withMujoco(arm, (mj, mm, d) => {
      let maxL = -Infinity;
      for (let i = 0; i < 4000; i++) {
        sim.step();
        mj.mj_step(mm, d);
        maxL = Math.max(maxL, 0.5 * (sim.state.joint_q[0] + 0.2 - sim.state.joint_q[1]));
      }
      // arm angles below the horizontal: ours q, MuJoCo's qpos − ref
      const ours = [sim.state.joint_q[0], sim.state.joint_q[1]];
      const theirs = [d.qpos[0] - 0.2, d.qpos[1]];
      // without the tendon both would hang (hip → π/2, knee → 0); measured: ours 5e-5 from the
      // analytic hip angle, 1.9e-4 past the limit (ke = 1e4); MuJoCo 4e-4 and 1.5e-3 (its solref)
      expect(Math.abs(ours[0] - restHip)).toBeLessThan(5e-4);
      expect(Math.abs(ours[0] - ours[1] - 1)).toBeLessThan(5e-4);
      expect(maxL).toBeLessThan(0.6 + 0.01); // the swing never pulls far past the limit
      expect(Math.abs(theirs[0] - restHip)).toBeLessThan(3e-3);
      expect(Math.abs(theirs[0] - theirs[1] - 1)).toBeLessThan(3e-3);
      expect(Math.abs(ours[0] - theirs[0])).toBeLessThan(1e-3);
      expect(Math.hypot(sim.state.joint_qd[0], sim.state.joint_qd[1])).toBeLessThan(1e-3);
    });
  });
});

describe('MJCF joint stiffness', () => {
  // a hinged arm in zero gravity with a spring toward springref = 0.3 rad, a little damping and
  // armature; explicit inertia so that both engines integrate the same body
  const xml = `<mujoco><compiler angle="radian"/><option gravity="0 0 0" timestep="0.002"/><worldbody>
    <body name="arm"><joint name="h" type="hinge" axis="0 1 0" stiffness="4" springref="0.3"
      damping="0.02" armature="0.01"/>
      <inertial pos="0.25 0 0" mass="0.8" diaginertia="0.001 0.02 0.02"/></body>
  </worldbody></mujoco>`;

  it('is a passive spring, not a PD drive; the same swing as MuJoCo, at the analytic period', async () => {
    const { b, r } = await load(xml);
    b.gravity = [...r.gravity!]; // (as loadModelAsset applies <option gravity>)
    const m = b.finalize();
    expect(m.joint_stiffness[0]).toBe(4);
    expect(m.joint_spring_ref[0]).toBeCloseTo(0.3, 15);
    expect(m.joint_target_ke[0]).toBe(0); // no SAP constraint: the spring acts in the free motion
    const dt = 0.002;
    const sim = new Simulation(m, { dt, solver: { contact_preset_variant: 'drake' } });
    await withMujoco(xml, (mj, mm, d) => {
      const ours: number[] = [];
      const theirs: number[] = [];
      for (let i = 0; i < 1000; i++) {
        expect(sim.step().worlds[0].iterations).toBe(0);
        mj.mj_step(mm, d);
        ours.push(sim.state.joint_q[0]);
        theirs.push(d.qpos[0]);
      }
      // semi-implicit Euler with implicit damping and an explicit spring in both (drake: sap_euler)
      let worst = 0;
      for (let i = 0; i < ours.length; i++) worst = Math.max(worst, Math.abs(ours[i] - theirs[i]));
      expect(worst).toBeLessThan(1e-12);
      // period 2π·√(I/k), I = I_yy + m·r² + armature = 0.02 + 0.8·0.25² + 0.01 (damping ratio 0.01
      // lengthens it by 5e-5): upward crossings of springref, 2 s of swing
      const period = 2 * Math.PI * Math.sqrt((0.02 + 0.8 * 0.25 ** 2 + 0.01) / 4);
      const ups: number[] = [];
      for (let i = 1; i < ours.length; i++) {
        const a = ours[i - 1] - 0.3;
        const c = ours[i] - 0.3;
        if (a < 0 && c >= 0) ups.push(i - 1 + a / (a - c));
      }
      expect(ups.length).toBeGreaterThanOrEqual(2);
      const measured = ((ups[ups.length - 1] - ups[0]) / (ups.length - 1)) * dt;
      expect(Math.abs(measured - period) / period).toBeLessThan(1e-3); // measured 2.7e-4
      // it swings about springref between 0 and 0.6, barely damped
      expect(Math.min(...ours)).toBeGreaterThan(-1e-9);
      expect(Math.max(...ours)).toBeLessThan(0.6);
      expect(Math.max(...ours)).toBeGreaterThan(0.55);
    });
  });

  it('adds to a position actuator instead of merging with it', async () => {
    const { b } =
      await load(`<mujoco><worldbody><body name="a"><joint name="h" type="hinge" stiffness="3" springref="10"/>
      <geom size="0.1"/></body></worldbody><actuator><position joint="h" kp="50" kv="2"/></actuator></mujoco>`);
    const m = b.finalize();
    expect([m.joint_stiffness[0], m.joint_target_ke[0], m.joint_target_kd[0]]).toEqual([3, 50, 2]);
    expect(m.joint_spring_ref[0]).toBeCloseTo(Math.PI / 18, 15);
    expect(m.joint_target_pos[0]).toBe(0);
  });
});

describe('MJCF gravity compensation and servo damping ratio', () => {
  it('gravcomp: the same swing as MuJoCo; the plate falls at ¾ g', async () => {
    const xml = gravcompArmMjcf();
    const { b, r } = await load(xml);
    expect(r.unsupported).toEqual([]);
    const m = b.finalize();
    const label = (l: string) => m.body_label.indexOf(l);
    expect([label('upper'), label('lower'), label('plate')].map((i) => m.body_gravcomp[i])).toEqual([
      0.5, 1, 0.25,
    ]);
    const dt = 0.002;
    const sim = new Simulation(m, { dt, solver: { contact_preset_variant: 'drake' } });
    await withMujoco(xml, (mj, mm, d) => {
      const hip = m.joint_q_start[m.joint_label.indexOf('hip')];
      const knee = m.joint_q_start[m.joint_label.indexOf('knee')];
      const plate = 7 * label('plate');
      let worst = 0;
      const n = 500;
      for (let i = 0; i < n; i++) {
        expect(sim.step().worlds[0].iterations).toBe(0);
        mj.mj_step(mm, d);
        worst = Math.max(
          worst,
          Math.abs(sim.state.joint_q[hip] - d.qpos[0]),
          Math.abs(sim.state.joint_q[knee] - d.qpos[1]),
          Math.abs(sim.state.body_q[plate + 2] - d.qpos[4]),
        );
      }
      // the explicit gravity terms and semi-implicit Euler in both
      expect(worst).toBeLessThan(1e-10);
      // uncompensated, the upper link's half weight swings the arm down (hip angle grows about +y)
      expect(sim.state.joint_q[hip]).toBeGreaterThan(0.5);
      // the plate: z = 1 − ½g't² − g'·dt·t/2 with g' = ¾·9.81 (sap_euler lags the parabola)
      const t = n * dt;
      const g = 0.75 * 9.81;
      expect(sim.state.body_q[plate + 2]).toBeCloseTo(1 - 0.5 * g * t * t - (g * dt * t) / 2, 9);
    });
  });

  it("dampratio: the servo damping MuJoCo derives from the joint's inertia at qpos0", async () => {
    const xml = gravcompArmMjcf(
      '<position joint="hip" kp="50" dampratio="1" gear="2"/>' +
        '<general joint="knee" gainprm="20" biastype="affine" biasprm="0 -20 0.7"/>',
    );
    const { b, r } = await load(xml);
    expect(r.unsupported).toEqual([]);
    const hip = b.findJoint('hip');
    const knee = b.findJoint('knee');
    const m0 = [b.dofInertiaAtAuthoredPose(hip), b.dofInertiaAtAuthoredPose(knee)];
    const m = b.finalize();
    await withMujoco(xml, (_mj, mm) => {
      const mx = mm as unknown as { dof_M0: Float64Array; actuator_biasprm: Float64Array };
      // the joint inertia at qpos0, armature included: MuJoCo's dof_M0
      expect(m0[0]).toBeCloseTo(mx.dof_M0[0], 12);
      expect(m0[1]).toBeCloseTo(mx.dof_M0[1], 12);
      // MuJoCo's kv (−biasprm[2], per unit of actuator length) on the joint: times gear²
      const kd = (j: string) => m.joint_target_kd[m.joint_qd_start[m.joint_label.indexOf(j)]];
      expect(kd('hip')).toBeCloseTo(-mx.actuator_biasprm[2] * 4, 10);
      expect(kd('knee')).toBeCloseTo(-mx.actuator_biasprm[10 + 2], 10);
      // kv = dampratio·2·√(kp·m0/gear²)
      expect(kd('hip')).toBeCloseTo(4 * 2 * Math.sqrt((50 * m0[0]) / 4), 10);
    });
    await expect(
      load(gravcompArmMjcf('<position joint="hip" kp="5" kv="1" dampratio="1"/>')),
    ).rejects.toThrow(/kv and dampratio cannot both be defined/);
  });

  it('general affine servos: target (gain·ctrl + b0)/(kp·gear); the same equilibrium as MuJoCo', async () => {
    // hip: 2·(40·ctrl + 5 − 100·2·q − 10·2·q̇) N·m; knee: 3·ctrl + 0.6 − 2·q̇, held still by ctrl −0.2
    const xml = gravcompArmMjcf(
      '<general joint="hip" gear="2" gainprm="40" biastype="affine" biasprm="5 -100 -10"/>' +
        '<general joint="knee" gainprm="3" biastype="affine" biasprm="0.6 0 -2"/>',
    ).replace('</mujoco>', '<keyframe><key name="hold" ctrl="1.5 -0.2"/></keyframe></mujoco>');
    const { b, r } = await load(xml, {}, { keyframe: 'hold' });
    expect(r.unsupported).toEqual([]);
    const m = b.finalize();
    const dof = (j: string) => m.joint_qd_start[m.joint_label.indexOf(j)];
    expect(m.joint_target_ke[dof('hip')]).toBe(400);
    expect(m.joint_target_kd[dof('hip')]).toBe(40);
    expect(m.joint_target_pos[dof('hip')]).toBeCloseTo((40 * 1.5 + 5) / 200, 15);
    expect([m.joint_target_ke[dof('knee')], m.joint_target_kd[dof('knee')]]).toEqual([0, 2]);
    expect(m.joint_target_vel[dof('knee')]).toBeCloseTo(0, 15);
    const dt = 0.002;
    const sim = new Simulation(m, { dt, solver: { contact_preset_variant: 'drake' } });
    await withMujoco(xml, (mj, mm, d) => {
      d.ctrl[0] = 1.5;
      d.ctrl[1] = -0.2;
      for (let i = 0; i < 2000; i++) {
        sim.step();
        mj.mj_step(mm, d);
      }
      const q = sim.state.joint_q[m.joint_q_start[m.joint_label.indexOf('hip')]];
      // at rest: the servo holds the uncompensated half of the upper link's weight, 0.981·cos q N·m
      expect(Math.abs(2 * (40 * 1.5 + 5 - 200 * q) + 0.5 * 9.81 * 0.2 * Math.cos(q))).toBeLessThan(1e-6);
      expect(q).toBeCloseTo(d.qpos[0], 8);
      expect(Math.abs(sim.state.joint_qd[dof('knee')])).toBeLessThan(1e-6);
    });
  });

  it('actuatorgravcomp is named where a body is compensated', async () => {
    const act = (xml: string) => xml.replace('armature="0.05"', 'armature="0.05" actuatorgravcomp="true"');
    expect((await load(act(gravcompArmMjcf()))).r.unsupported).toEqual([
      expect.stringMatching(/joint 'hip': actuatorgravcomp/),
    ]);
    expect((await load(act(gravcompArmMjcf()).replace(/gravcomp="[\d.]+"/g, ''))).r.unsupported).toEqual([]);
  });
});

describe('MJCF textures', () => {
  const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  const TRI =
    'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 0\nvt 1 0\nvt 0 1\nvt 1 1\nf 1/1 3/3 2/2\nf 1/1 2/2 4/4\nf 1/1 4/4 3/3\nf 2/2 3/3 4/4\n';

  it("a visual mesh draws its material's 2D texture on the OBJ's coordinates, tinted by the material", async () => {
    const { b, r } = await load(
      `<mujoco><compiler texturedir="tex" meshdir="mesh"/>
        <asset>
          <texture name="atlas" file="atlas.png" type="2d"/>
          <texture name="sky" builtin="gradient" type="skybox" width="8" height="8"/>
          <texture name="cube" file="atlas.png"/>
          <material name="skin" texture="atlas" rgba="1 0.5 0.5 1"/>
          <material name="plain" texture="atlas"/>
          <material name="boxy" texture="cube"/>
          <mesh name="tet" file="tet.obj"/>
        </asset>
        <worldbody><body name="b"><freejoint/>
          <geom name="look" type="mesh" mesh="tet" material="skin" contype="0" conaffinity="0"/>
          <geom name="look2" type="mesh" mesh="tet" material="plain" contype="0" conaffinity="0"/>
          <geom name="boxed" type="mesh" mesh="tet" material="boxy" contype="0" conaffinity="0"/>
          <geom name="hull" type="mesh" mesh="tet" material="skin"/>
        </body></worldbody></mujoco>`,
      { 'm/tex/atlas.png': PNG, 'm/mesh/tet.obj': TRI },
    );
    const m = b.finalize();
    // one image, read from texturedir, shared by both materials
    expect(m.textures.map((t) => t.label)).toEqual(['m/tex/atlas.png']);
    const mesh = (label: string) => m.shape_mesh[m.shape_label.indexOf(label)];
    const color = (label: string) => {
      const s = m.shape_label.indexOf(label);
      return Array.from(m.shape_color.subarray(s * 3, s * 3 + 3));
    };
    expect(m.mesh_texture[mesh('b/look')]).toBe(0);
    expect(mesh('b/look2')).toBe(mesh('b/look')); // one textured mesh per (mesh, texture)
    expect(color('b/look')).toEqual([1, 0.5, 0.5]);
    expect(color('b/look2')).toEqual([1, 1, 1]);
    // four corners with four coordinates: the tetrahedron's vertices, each with its own
    const k = mesh('b/look');
    expect(m.mesh_uv[k]).toHaveLength(8);
    // a cube texture is not drawn on a mesh (a warning), and the collider keeps its hull; its visible
    // copy draws the texture
    expect(m.mesh_texture[mesh('b/boxed')]).toBe(-1);
    expect(r.warnings.join('\n')).toMatch(
      /geom 'b\/boxed': texture 'cube' not drawn \(a 'cube' texture \(only 2d textures are drawn on meshes\)\)/,
    );
    expect(m.shape_type[m.shape_label.indexOf('b/hull')]).toBe(ShapeType.CONVEX_MESH);
    expect(m.mesh_texture[mesh('b/hull/visual')]).toBe(0);
  });

  it('Agility Cassie (Menagerie) draws every visual mesh with its texture atlas', async () => {
    const dir = path.join(SHARED_ASSETS, 'mujoco_menagerie/agility_cassie');
    const loaded = await loadModelAsset(
      'mjcf',
      { path: path.join(dir, 'cassie.xml') },
      { resolver: new NodeFsResolver({ root: '/' }) },
    );
    const m = loaded.model;
    expect(loaded.warnings.join('\n')).not.toMatch(/texture/);
    expect(m.textures).toHaveLength(1);
    expect(m.textures[0].label).toMatch(/cassie-texture\.png$/);
    expect(m.textures[0].mime).toBe('image/png');
    const visuals: number[] = [];
    for (let s = 0; s < m.shape_count; s++)
      if (m.shape_mesh[s] >= 0 && !(m.shape_flags[s] & ShapeFlags.COLLIDE_SHAPES)) visuals.push(s);
    expect(visuals.length).toBeGreaterThanOrEqual(20);
    expect(visuals.every((s) => m.mesh_texture[m.shape_mesh[s]] === 0)).toBe(true);
  });
});

describe('MJCF ball-joint range', () => {
  // a 1 kg bob 0.5 m out on a ball joint, released horizontally; range 45° (degrees, MJCF's default
  // unit) stops its fall at a rotation angle of 45°, where the limit holds m·g·L·cos 45° = 3.47 N·m.
  // (MuJoCo's default solreflimit leaves its ball limit soft here: measured at rest 0.023 rad past
  // it, against 4.6e-4 for the same bob on a hinge; solreflimit 0.004 brings it to 9e-4. Ours does
  // not map solreflimit: ke = 1e4.)
  const xml = `<mujoco><option timestep="0.002"/><worldbody>
    <body name="bob" pos="0 0 1"><joint name="b" type="ball" range="0 45" solreflimit="0.004 1"/>
      <inertial pos="0.5 0 0" mass="1" diaginertia="0.001 0.001 0.001"/>
      <geom type="sphere" size="0.02" pos="0.5 0 0" contype="0" conaffinity="0"/></body>
  </worldbody></mujoco>`;
  const rotation = (x: number, y: number, z: number, w: number) =>
    2 * Math.atan2(Math.hypot(x, y, z), Math.abs(w));

  it('is a cone on the rotation angle: the bob rests at 45°, as in MuJoCo', async () => {
    const { b, r } = await load(xml);
    expect(r.unsupported.join('\n')).not.toMatch(/cone/);
    b.gravity = [0, 0, -9.81];
    const m = b.finalize();
    expect(Array.from(m.joint_cone_mode)).toEqual([1]);
    expect(m.joint_cone_limit[0]).toBeCloseTo(Math.PI / 4, 14);
    const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
    await withMujoco(xml, (mj, mm, d) => {
      let most = 0;
      for (let i = 0; i < 2500; i++) {
        sim.step();
        mj.mj_step(mm, d);
        const q = sim.state.joint_q;
        most = Math.max(most, rotation(q[0], q[1], q[2], q[3]));
      }
      const q = sim.state.joint_q;
      const ours = rotation(q[0], q[1], q[2], q[3]);
      const theirs = rotation(d.qpos[1], d.qpos[2], d.qpos[3], d.qpos[0]);
      // without the range both would hang at 90°; at ke = 1e4 ours rests 3.5e-4 rad past the limit
      expect(Math.abs(ours - Math.PI / 4 - 3.47 / 1e4)).toBeLessThan(1e-4);
      expect(most).toBeLessThan(Math.PI / 4 + 0.05);
      expect(Math.abs(theirs - Math.PI / 4)).toBeLessThan(2e-3);
      expect(Math.abs(ours - theirs)).toBeLessThan(2e-3);
      // the same swing plane: about +y
      expect(Math.abs(q[1]) / Math.hypot(q[0], q[1], q[2])).toBeCloseTo(1, 6);
      expect(Math.abs(d.qpos[2]) / Math.hypot(d.qpos[1], d.qpos[2], d.qpos[3])).toBeCloseTo(1, 6);
    });
  });

  it('range[0] ≠ 0 is named and ignored; range[1] ≤ 0 is refused at the joint', async () => {
    const { r } = await load(xml.replace('range="0 45"', 'range="-10 45"'));
    expect(r.warnings.join('\n')).toMatch(/range\[0\] = -10 is ignored/);
    await expect(load(xml.replace('range="0 45"', 'range="0 0"'))).rejects.toThrow(/range\[1\].*must be > 0/);
  });
});
