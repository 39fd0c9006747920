/**
 * MuJoCo's USD schema on USD joints: MjcActuator fallbacks, force and control ranges (small stages
 * written here, against the analytic rest angle and the same model in MJCF), the Booster T1 USD
 * against its MJCF twin under the same controls, and PhysicsScene time steps.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCommand } from '../../cli/commands';
import { loadModelFile } from '../load_file';
import { describe, expect, it } from 'vitest';
import { ModelBuilder, type SapModel } from '../../model';
import { Simulation } from '../../pipeline';
import { importMjcf } from '../mjcf/mjcf';
import { loadModelAsset } from '../import';
import { importUsd } from './physics';
import { ASSETS, USD_MODELS, fsResolver, memResolver } from './testing';

const DEG = Math.PI / 180;

/**
 * a 1 kg point bob 0.5 m along +x from a hinge about −y at the origin (z up, gravity −z: the bob
 * falls toward −z, i.e. positive joint angle), damped 0.5 N·m·s/rad, driven by `actuator` (the body
 * of an MjcActuator prim targeting the hinge)
 */
const pendulum = (actuator: string, joint = '', scene = '') => `#usda 1.0
(
    upAxis = "Z"
    metersPerUnit = 1
)
def PhysicsScene "scene" {
    vector3f physics:gravityDirection = (0, 0, -1)
    float physics:gravityMagnitude = 9.81
${scene}
}
def Xform "bob" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) {
    float physics:mass = 1
    point3f physics:centerOfMass = (0.5, 0, 0)
    float3 physics:diagonalInertia = (1e-6, 1e-6, 1e-6)
}
def PhysicsRevoluteJoint "hinge" ( prepend apiSchemas = ["MjcJointAPI"] ) {
    rel physics:body1 = </bob>
    uniform token physics:axis = "Y"
    quatf physics:localRot0 = (0, 0, 0, 1)
    quatf physics:localRot1 = (0, 0, 0, 1)
    uniform double mjc:damping = 0.5
${joint}
}
def MjcActuator "servo" {
    rel mjc:target = </hinge>
${actuator}
}
`;

async function usdModel(text: string) {
  const b = new ModelBuilder();
  const r = await importUsd(b, 'x.usda', memResolver({ 'x.usda': text }));
  b.gravity = r.gravity ? [...r.gravity] : [0, 0, -9.81];
  return { b, r, m: b.finalize() };
}

/** the hinge angle after `seconds` at dt 2 ms (drake preset) from rest at 0, with the drive target */
function settle(m: SapModel, seconds: number, target = 0): number {
  const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
  sim.control.joint_target_pos[0] = target;
  for (let i = 0; i < Math.round(seconds / 0.002); i++) sim.step();
  return sim.state.joint_q[0];
}

describe('MjcActuator (MuJoCo USD schema) on USD joints', () => {
  it('an unauthored gainPrm is the fallback (1, 0, …): an affine bias (0, −kp, −kv) is a position servo', async () => {
    const { b, r } = await usdModel(
      pendulum(`uniform token mjc:biasType = "affine"
    uniform double[] mjc:biasPrm = [0, -1, -0.2]`),
    );
    expect(r.unsupported).toEqual([]);
    // gain 1 = kp: a servo of stiffness 1 and damping 0.2 (MuJoCo: force ctrl − q − 0.2 q̇)
    expect(b.joints[0].dof).toMatchObject({ target_ke: 1, target_kd: 0.2, target_pos: 0 });
    expect(r.actuators).toEqual([
      { name: 'servo', kind: 'position', joint: 0, gear: 1, ctrlrange: undefined, forcerange: undefined },
    ]);
  });

  it('nothing authored but the target is a motor (gain 1, no bias): recorded, no drive', async () => {
    const { b, r } = await usdModel(pendulum(''));
    expect(r.unsupported).toEqual([]);
    expect(r.actuators?.[0]).toMatchObject({ kind: 'motor', gear: 1 });
    expect(b.joints[0].dof.target_ke ?? 0).toBe(0);
    expect(b.joints[0].dof.target_kd ?? 0).toBe(0);
  });

  it('gear scales gains by gear² and the force range by |gear|; forceLimited false drops the range', async () => {
    const servo = `uniform token mjc:biasType = "affine"
    uniform double[] mjc:gainPrm = [100]
    uniform double[] mjc:biasPrm = [0, -100, -4]
    uniform double[] mjc:gear = [2, 0, 0, 0, 0, 0]
    uniform double mjc:forceRange:min = -1.5
    uniform double mjc:forceRange:max = 1`;
    const { b, r } = await usdModel(pendulum(servo));
    expect(b.joints[0].dof).toMatchObject({ target_ke: 400, target_kd: 16, effort_limit: 3 });
    expect(r.actuators?.[0]).toMatchObject({ gear: 2, forcerange: [-1.5, 1] });
    const off = await usdModel(pendulum(`${servo}\n    uniform token mjc:forceLimited = "false"`));
    expect(off.b.joints[0].dof.effort_limit ?? Infinity).toBe(Infinity);
    // the scene's autoLimits = false: a range without forceLimited "true" is no limit
    const noAuto = await usdModel(pendulum(servo, '', '    uniform bool mjc:compiler:autoLimits = 0'));
    expect(noAuto.b.joints[0].dof.effort_limit ?? Infinity).toBe(Infinity);
  });

  it("a motor's control range bounds its effort; inheritRange takes the joint range's middle ± X·half", async () => {
    const motor = await usdModel(
      pendulum(`uniform double[] mjc:gainPrm = [3]
    uniform double mjc:ctrlRange:min = -0.5
    uniform double mjc:ctrlRange:max = 0.25`),
    );
    expect(motor.b.joints[0].dof.effort_limit).toBe(1.5);
    expect(motor.r.actuators?.[0]).toMatchObject({ kind: 'motor', gear: 3, ctrlrange: [-0.5, 0.25] });
    const inherit = await usdModel(
      pendulum(
        `uniform token mjc:biasType = "affine"
    uniform double[] mjc:gainPrm = [10]
    uniform double[] mjc:biasPrm = [0, -10, -1]
    uniform double mjc:inheritRange = 0.5`,
        `    float physics:lowerLimit = -30
    float physics:upperLimit = 90`,
      ),
    );
    const cr = inherit.r.actuators?.[0].ctrlrange ?? [NaN, NaN];
    expect(cr[0]).toBeCloseTo(0, 12);
    expect(cr[1]).toBeCloseTo(60 * DEG, 12);
  });

  it('a force range is an effort limit: a stiff servo that cannot hold the bob level rests where m·g·L·cos θ = the range', async () => {
    const servo = (range: string) =>
      pendulum(`uniform token mjc:biasType = "affine"
    uniform double[] mjc:gainPrm = [200]
    uniform double[] mjc:biasPrm = [0, -200, -5]
    ${range}`);
    // unlimited: the servo holds the bob within m·g·L/kp = 4.905/200 rad of level
    const free = settle((await usdModel(servo(''))).m, 3);
    expect(Math.abs(Math.abs(free) - (9.81 * 0.5) / 200)).toBeLessThan(2e-3);
    // limited to 2 N·m: the bob sags until gravity's torque m·g·L·cos θ is 2 N·m
    const limited = await usdModel(
      servo(`uniform double mjc:forceRange:min = -2
    uniform double mjc:forceRange:max = 2`),
    );
    const theta = settle(limited.m, 6);
    expect(Math.abs(Math.abs(theta) - Math.acos(2 / (9.81 * 0.5)))).toBeLessThan(2e-3);
    // the same servo written in MJCF moves the same way
    const mb = new ModelBuilder();
    await importMjcf(
      mb,
      {
        path: 'p.xml',
        text: `<mujoco><worldbody><body name="bob"><joint name="hinge" axis="0 -1 0" damping="0.5"/>
        <inertial pos="0.5 0 0" mass="1" diaginertia="1e-6 1e-6 1e-6"/></body></worldbody>
        <actuator><general joint="hinge" biastype="affine" gainprm="200" biasprm="0 -200 -5" forcerange="-2 2"/></actuator></mujoco>`,
      },
      { resolver: memResolver({}) },
    );
    mb.gravity = [0, 0, -9.81];
    expect(Math.abs(settle(mb.finalize(), 6) - theta)).toBeLessThan(1e-9);
  });

  it('a damping ratio (biasPrm[2] > 0 with the gain kp) is kv = dampratio·2·√(kp·m₀) at the authored-pose inertia, as MJCF dampratio', async () => {
    const { b, r } = await usdModel(
      pendulum(`uniform token mjc:biasType = "affine"
    uniform double[] mjc:gainPrm = [40]
    uniform double[] mjc:biasPrm = [0, -40, 0.7]`),
    );
    expect(r.unsupported).toEqual([]);
    const m0 = 1 * 0.5 ** 2 + 1e-6; // m·L² + I about the hinge
    expect(b.joints[0].dof.target_ke).toBe(40);
    expect(b.joints[0].dof.target_kd).toBeCloseTo(0.7 * 2 * Math.sqrt(40 * m0), 12);
    const mb = new ModelBuilder();
    await importMjcf(
      mb,
      {
        path: 'p.xml',
        text: `<mujoco><worldbody><body name="bob"><joint name="hinge" axis="0 -1 0"/>
        <inertial pos="0.5 0 0" mass="1" diaginertia="1e-6 1e-6 1e-6"/></body></worldbody>
        <actuator><position joint="hinge" kp="40" dampratio="0.7"/></actuator></mujoco>`,
      },
      { resolver: memResolver({}) },
    );
    expect(b.joints[0].dof.target_kd).toBeCloseTo(mb.joints[0].dof.target_kd, 9);
  });

  it('a form with no SAP drive (a muscle, activation dynamics) is named, not built', async () => {
    const { b, r } = await usdModel(pendulum('uniform token mjc:dynType = "integrator"'));
    expect(r.unsupported.join('\n')).toMatch(/<\/servo> MjcActuator \(dynType integrator/);
    expect(b.joints[0].dof.target_ke ?? 0).toBe(0);
  });
});

describe('Booster T1 (S4) USD and its MJCF twin (D4) under the same controls', () => {
  it('hold the same pose: joint angles within 1e-3 rad after 1 s, base fixed, every servo at a target', async () => {
    const bu = new ModelBuilder();
    const ru = await importUsd(bu, path.join(ASSETS, USD_MODELS.S4), fsResolver(), {
      load_visual_shapes: false,
      floating: false,
    });
    expect(ru.unsupported.filter((u) => /MjcActuator/.test(u))).toEqual([]);
    expect(ru.actuators).toHaveLength(23);
    bu.gravity = [0, 0, -9.81];
    const file = path.join(ASSETS, 'mujoco_menagerie/booster_t1/t1.xml');
    const bm = new ModelBuilder();
    await importMjcf(
      bm,
      {
        path: file,
        // base fixed: without its free joint, the file's keyframes no longer fit the model (MuJoCo
        // refuses them too), so they go with it
        text: readFileSync(file, 'utf8')
          .replace('<freejoint/>', '')
          .replace(/<keyframe>[\s\S]*?<\/keyframe>/, ''),
      },
      { resolver: fsResolver(), load_visual_shapes: false },
    );
    bm.gravity = [0, 0, -9.81];
    const mu = bu.finalize(),
      mm = bm.finalize();
    const name = (l: string) => (l === 'Waist_1' ? 'Waist' : l);
    const run = (m: SapModel) => {
      const sim = new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
      // each hinge's target: 0.3 of the way from the middle of its range to its upper end
      for (let j = 0; j < m.joint_count; j++) {
        if (m.joint_qd_start[j + 1] - m.joint_qd_start[j] !== 1) continue;
        const d = m.joint_qd_start[j];
        const lo = m.joint_limit_lower[d],
          hi = m.joint_limit_upper[d];
        sim.control.joint_target_pos[d] = (lo + hi) / 2 + 0.3 * ((hi - lo) / 2);
      }
      for (let i = 0; i < 500; i++) sim.step();
      const out = new Map<string, number>();
      for (let j = 0; j < m.joint_count; j++) {
        if (m.joint_qd_start[j + 1] - m.joint_qd_start[j] === 1)
          out.set(name(m.joint_label[j]), sim.state.joint_q[m.joint_q_start[j]]);
      }
      return out;
    };
    const qu = run(mu),
      qm = run(mm);
    expect(qu.size).toBe(23);
    let worst = 0,
      moved = 0;
    for (const [n, q] of qu) {
      worst = Math.max(worst, Math.abs(q - qm.get(n)!));
      moved = Math.max(moved, Math.abs(q));
    }
    expect(moved).toBeGreaterThan(0.3); // the servos moved the limbs
    expect(worst).toBeLessThan(1e-3); // 1.5e-6 rad (the USD file's float32 frames and masses)
  });
});

describe('USD PhysicsScene time steps', () => {
  const stage = (attrs: string) => pendulum('', '', attrs);
  it('newton:timeStepsPerSecond, else physxScene:timeStepsPerSecond, else mjc:option:timestep set the time step', async () => {
    const dt = async (attrs: string) => (await usdModel(stage(attrs))).r;
    expect((await dt('    uniform int newton:timeStepsPerSecond = 500')).timestep).toBe(0.002);
    expect((await dt('    uniform uint physxScene:timeStepsPerSecond = 120')).timestep).toBe(1 / 120);
    expect((await dt('    uniform double mjc:option:timestep = 0.004')).timestep).toBe(0.004);
    expect((await dt('')).timestep).toBeUndefined();
    const both = await dt(`    uniform int newton:timeStepsPerSecond = 500
    uniform uint physxScene:timeStepsPerSecond = 60`);
    expect(both.timestep).toBe(0.002);
    expect(both.warnings.join('\n')).toMatch(/physxScene:timeStepsPerSecond gives a time step of 0.01666/);
    const bad = await dt('    uniform int newton:timeStepsPerSecond = 0');
    expect(bad.timestep).toBeUndefined();
    expect(bad.warnings.join('\n')).toMatch(/newton:timeStepsPerSecond = 0 is not a positive number/);
  });

  it("a dt chosen over the file's (CLI --dt, a scene's simulation.dt) is warned of", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sap-usd-dt-'));
    try {
      const file = path.join(dir, 'p.usda');
      writeFileSync(file, stage('    uniform int newton:timeStepsPerSecond = 500'));
      const loaded = await loadModelFile(file);
      expect(loaded.dt).toBe(0.002);
      expect(loaded.authored_dt).toBe(0.002);
      const same = runCommand(loaded, { steps: 1, dt: 0.002 });
      expect(same.warnings.join('\n')).not.toMatch(/overridden/);
      const over = runCommand(loaded, { steps: 1, dt: 0.001 });
      expect(over.warnings).toContain("the model file's time step 0.002 s is overridden by --dt: 0.001 s");
      const sceneFile = path.join(dir, 's.yaml');
      writeFileSync(
        sceneFile,
        'schema_version: 1\nname: s\nsimulation:\n  dt: 0.004\nassets:\n  - id: p\n    type: usd\n    source: p.usda\n',
      );
      const scene = await loadModelFile(sceneFile);
      expect(scene.dt).toBe(0.004);
      expect(scene.warnings.join('\n')).toMatch(
        /time step 0.002 s is overridden by the scene's simulation.dt: 0.004 s/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the Booster T1 USD runs at its 2 ms (500 steps per second) like its MJCF twin', async () => {
    const loaded = await loadModelAsset(
      'usd',
      { path: path.join(ASSETS, USD_MODELS.S4) },
      { resolver: fsResolver(), load_visual_shapes: false },
    );
    expect(loaded.dt).toBe(0.002);
  });
});
