/**
 * The validation pass of built models (issue 54 item 1): the reproducers of the issue, each written
 * here, in every format that can author them. An unsimulatable value is an error naming the file and
 * the element, body or joint; a value replaced by a rule is a warning that says what replaced it.
 */
import { describe, expect, it } from 'vitest';
import { ModelBuilder } from '../model';
import { loadModelAsset } from './import';
import { MemoryResolver } from './assets/resolvers';
import { assertBuilderPhysical, symmetricEigenvalues3, timeStepProblem } from './model_check';
import { loadScene } from './scene/load';

const urdf = (inertia: string, joint = '') => `<robot name="r">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <link name="arm"><inertial><mass value="${inertia.startsWith('m0') ? 0 : 1}"/><inertia ${inertia.replace(/^m0 /, '')} ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="${joint || 'revolute'}"><parent link="base"/><child link="arm"/><origin xyz="0 0 0.2"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
</robot>`;

const loadUrdf = (text: string) => loadModelAsset('urdf', { text, path: 'robots/r.urdf' });
const loadMjcf = (text: string) => loadModelAsset('mjcf', { text, path: 'm.xml' });

describe('symmetric 3 × 3 eigenvalues', () => {
  it('match a rotated diagonal and a diagonal matrix', () => {
    expect(symmetricEigenvalues3([3, 0, 0, 0, 1, 0, 0, 0, 2])).toEqual([1, 2, 3]);
    // diag(1, 2, 4) rotated by 30° about z
    const c = Math.cos(Math.PI / 6),
      s = Math.sin(Math.PI / 6);
    const a = [c * c * 1 + s * s * 2, c * s * (1 - 2), 0, c * s * (1 - 2), s * s * 1 + c * c * 2, 0, 0, 0, 4];
    const l = symmetricEigenvalues3(a);
    [1, 2, 4].forEach((x, i) => expect(l[i]).toBeCloseTo(x, 12));
  });
});

describe('URDF inertias', () => {
  it('a negative moment is an error naming the file and the link', async () => {
    await expect(loadUrdf(urdf('ixx="-1" iyy="1" izz="1"'))).rejects.toThrow(
      /robots\/r\.urdf: model: bodies\['arm'\]\.inertia: principal moments \(-1, 1, 1\).*cannot be negative/,
    );
  });
  it('a moving link that violates the triangle inequality is an error', async () => {
    await expect(loadUrdf(urdf('ixx="0.01" iyy="0.01" izz="1"'))).rejects.toThrow(
      /bodies\['arm'\]\.inertia: .*violate the triangle inequality \(0\.01 \+ 0\.01 < 1\)/,
    );
  });
  it('a welded link that violates it is simulated, with a warning that says so', async () => {
    const r = await loadUrdf(urdf('ixx="0.01" iyy="0.01" izz="1"', 'fixed'));
    expect(r.warnings.join('\n')).toMatch(/bodies\['arm'\].*triangle inequality.*welded to 'base'/);
  });
  it('a revolute joint that moves no mass gets the importer minimum, with a warning that says so', async () => {
    const r = await loadUrdf(urdf('m0 ixx="0" iyy="0" izz="0"'));
    expect(r.warnings.join('\n')).toMatch(
      /link 'arm' moves \(joint 'j'\) but nothing beyond it has mass; it gets 1e-3 kg/,
    );
    expect(r.model.body_mass[1]).toBe(1e-3);
  });
});

describe('MJCF', () => {
  const body = (inertial: string) =>
    `<mujoco><worldbody><body pos="0 0 1"><freejoint/>${inertial}<geom type="sphere" size="0.1"/></body></worldbody></mujoco>`;
  it('a negative diaginertia is an error', async () => {
    await expect(loadMjcf(body('<inertial pos="0 0 0" mass="1" diaginertia="-1 1 1"/>'))).rejects.toThrow(
      /m\.xml: model: bodies\['body0'\]\.inertia: .*cannot be negative/,
    );
  });
  it('a free point mass is an error naming its joint', async () => {
    await expect(loadMjcf(body('<inertial pos="0 0 0" mass="1" diaginertia="0 0 0"/>'))).rejects.toThrow(
      /m\.xml: model: joints\['body0_free0'\]: a free joint: .* singular inertia \(smallest principal moment 0/,
    );
  });
  it.each(['0', '-0.01', '1e30'])('timestep %s is an error at <option>', async (ts) => {
    const xml = `<mujoco>\n<option timestep="${ts}"/>\n<worldbody/></mujoco>`;
    await expect(loadMjcf(xml)).rejects.toThrow(
      new RegExp(
        `m\\.xml:2:\\d+: <option timestep="${ts}">: time step .*(finite number > 0|exceeds max_time_step = 1)`,
      ),
    );
  });
  it('a keyframe of the wrong length is an error at its <key>', async () => {
    const xml = (qpos: string) => `<mujoco><worldbody><body><joint type="hinge"/><geom size="0.1"/></body>
<body pos="1 0 0"><joint type="slide"/><geom size="0.1"/></body></worldbody>
<keyframe>
<key name="k" qpos="${qpos}"/></keyframe></mujoco>`;
    await expect(loadMjcf(xml('0.1'))).rejects.toThrow(
      /m\.xml:4:\d+: <key name="k">: qpos has 1 values; the model has 2/,
    );
    await expect(loadMjcf(xml('0.1 0.2 0.3'))).rejects.toThrow(/qpos has 3 values; the model has 2/);
    const ok = await loadModelAsset('mjcf', { text: xml('0.1 0.2'), path: 'm.xml' }, { keyframe: 'k' });
    expect(Array.from(ok.model.joint_q0)).toEqual([0.1, 0.2]);
  });
});

describe('scene files', () => {
  const scene = (sim: Record<string, unknown>, density = 1000) => ({
    schema_version: 1,
    name: 's',
    simulation: { num_worlds: 1, ...sim },
    ground: false,
    bodies: [
      {
        id: 'box',
        transform: { p: [0, 0, 1] },
        shapes: [{ type: 'box', hx: 0.1, hy: 0.1, hz: 0.1, cfg: { density } }],
      },
    ],
  });
  it.each([['.inf'], [0], [-0.01], [1e30]])('dt %s is an error at simulation.dt', (dt) => {
    expect(() => loadScene(scene({ dt }))).toThrow(/simulation\.dt|simulation: dt|dt/);
    try {
      loadScene(scene({ dt }));
    } catch (e) {
      expect(String(e)).toMatch(/time step .*(finite number > 0|exceeds max_time_step)|dt/);
    }
  });
  it('dt .inf names the key and the reason', () => {
    expect(() => loadScene(scene({ dt: 'inf' }))).toThrow(
      /time step Infinity s: must be a finite number > 0/,
    );
  });
  it('a mesh-derived mass of 0 (one triangle: no volume) is an error naming the free joint', () => {
    const doc = scene({ dt: 0.01 });
    doc.bodies[0].shapes = [
      {
        type: 'mesh',
        vertices: [
          [5, 0, 0],
          [6, 0, 0],
          [6, 1, 0],
        ],
        indices: [0, 1, 2],
      } as never,
    ];
    expect(() => loadScene(doc)).toThrow(
      /model: joints\['box_free'\]: a free joint: the bodies it moves \('box' and what hangs from it\) have no mass \(0 kg\)/,
    );
  });
  it('density 0 on the only shape of a free body is an error naming the body', () => {
    expect(() => loadScene(scene({ dt: 0.01 }, 0))).toThrow(
      /a free joint: the bodies it moves \('box' and what hangs from it\) have no mass/,
    );
  });
});

describe('USD physics:mass', () => {
  const usd = (mass: string) => `#usda 1.0
(
    upAxis = "Z"
    metersPerUnit = 1
)
def Xform "b" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) {
    float physics:mass = ${mass}
    double3 xformOp:translate = (0, 0, 1)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Cube "c" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) { double size = 0.2 }
}
`;
  it.each(['-5', 'inf', 'nan'])(
    '%s is replaced by the density-derived mass, with a warning that says so',
    async (m) => {
      const r = await loadModelAsset(
        'usd',
        { path: 'x.usda' },
        { resolver: new MemoryResolver({ 'x.usda': usd(m) }) },
      );
      expect(r.warnings.join('\n')).toMatch(
        new RegExp(
          `</b>: physics:mass = ${m === 'inf' ? 'Infinity' : m === 'nan' ? 'NaN' : m} is not a finite number ≥ 0; ignored, the mass comes from the colliders' density`,
        ),
      );
      // 0.2 m cube at UsdPhysics' default 1000 kg/m³
      expect(r.model.body_mass[0]).toBeCloseTo(8, 9);
    },
  );
});

describe('time steps and the builder', () => {
  it('timeStepProblem accepts (0, 1] s only', () => {
    expect(timeStepProblem(0.002)).toBeUndefined();
    expect(timeStepProblem(1)).toBeUndefined();
    for (const dt of [0, -0.01, Infinity, NaN, 1e30]) expect(timeStepProblem(dt)).toBeTruthy();
  });
  it('a prismatic joint with armature moves no mass, but is simulatable', () => {
    const b = new ModelBuilder();
    const base = b.addBody({ label: 'a', mass: 1, inertia: [1, 1, 1] });
    const slider = b.addBody({ label: 's', mass: 0 });
    b.addJoint({ type: 'fixed', parent: -1, child: base });
    b.addJoint({
      type: 'prismatic',
      parent: base,
      child: slider,
      axis: [1, 0, 0],
      label: 'p',
      armature: 0.1,
    });
    b.finalize();
    expect(assertBuilderPhysical(b)).toEqual([]);
    const c = new ModelBuilder();
    const cb = c.addBody({ label: 'a', mass: 1, inertia: [1, 1, 1] });
    const cs = c.addBody({ label: 's', mass: 0 });
    c.addJoint({ type: 'fixed', parent: -1, child: cb });
    c.addJoint({ type: 'prismatic', parent: cb, child: cs, axis: [1, 0, 0], label: 'p' });
    c.finalize();
    expect(() => assertBuilderPhysical(c)).toThrow(
      /joints\['p'\]: a prismatic joint: .* have no mass \(0 kg\) and it has no armature/,
    );
  });
});
