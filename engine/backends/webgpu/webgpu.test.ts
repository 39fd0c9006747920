/**
 * WebGPU backend tests on the actual device (SwiftShader here; skipped with the reason when no
 * adapter exists). All GPU tests live in this one file so the kernels compile once per run.
 *   1. df64 (SPEC §3.7): error-free transforms are exact; add, sub, mul, div, sqrt (and sin/cos)
 *      within 2^-44 relative of fp64 over random inputs.
 *   2. stage-by-stage parity with the CPU twins (testing/suite_stages.ts; the cone-limit slots:
 *      testing/suite_cone.ts).
 *   3. whole-step parity over 100 steps (repository scenes, built and imported equality, tendon
 *      and cone models) and the 1024-world test (testing/suite_step.ts).
 */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from './testing/rng';
import { runDf64Probe } from './testing/df64_probe';
import { swiftShaderInstalled, testGpu } from './testing/test_gpu';
import { STAGE_TABLE, stageParityTests } from './testing/suite_stages';
import { coneStageTests } from './testing/suite_cone';
import { collisionParityTests, collisionStepTest } from './testing/suite_collision';
import {
  STEP_TABLE,
  containmentTest,
  manyWorldsTest,
  printStepTable,
  wholeStepTests,
} from './testing/suite_step';
import type { GpuHandle } from './device';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSceneText } from '../../io/scene/load';
import { importMjcf } from '../../io/mjcf/mjcf';
import { gravcompArmMjcf, tendonArmMjcf } from '../../io/mjcf/testing';
import { importUsd } from '../../io/usd/physics';
import { ASSETS, USD_MODELS, fsResolver } from '../../io/usd/testing';
import { JointType, ModelBuilder } from '../../model';
import { setSceneLoader, type TestScene } from './testing/parity';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
setSceneLoader((name, num_worlds) => {
  const file = path.join(ROOT, 'scenes', `${name}.yaml`);
  return loadSceneText(readFileSync(file, 'utf8'), file, num_worlds ? { num_worlds } : {});
});

/**
 * The closed four-bar of ../shared/assets (USD; the loop-closing joint becomes a SAP ball
 * equality), sheared by an initial joint rate as in engine/io/usd/import.test.ts.
 */
async function usdFourBar(): Promise<TestScene> {
  const b = new ModelBuilder();
  const r = await importUsd(b, path.join(ASSETS, USD_MODELS.S3), fsResolver(), { load_visual_shapes: false });
  if (r.gravity) b.gravity = [...r.gravity];
  b.jointQd(b.findJoint('joint_1'))[0] = 2;
  return {
    name: 'usd_fourbar',
    dt: 0.002,
    model: b.finalize(),
    solver: {},
    max_rigid_contact: 64,
    joint_ids: {},
  };
}

/**
 * MJCF equalities through the importer: a free box hung from a pendulum's tip by `connect` (ball)
 * and a second free box `weld`ed to another pendulum, both swinging, over the ground; the first
 * pendulum's hinge has a joint spring (stiffness, springref).
 */
async function mjcfEqualities(): Promise<TestScene> {
  const text = `<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body name="p1" pos="0 0 2"><joint name="h1" type="hinge" axis="0 1 0" stiffness="3" springref="20"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.03" mass="1"/></body>
    <body name="b1" pos="0 0 1.45"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="0.5"/></body>
    <body name="p2" pos="1 0 2"><joint name="h2" type="hinge" axis="1 0 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.03" mass="1"/></body>
    <body name="b2" pos="1 0 1.4"><freejoint/><geom type="box" size="0.05 0.1 0.05" mass="0.5"/></body>
  </worldbody>
  <equality>
    <connect body1="p1" body2="b1" anchor="0 0 -0.5"/>
    <weld body1="p2" body2="b2"/>
  </equality>
</mujoco>`;
  const b = new ModelBuilder();
  await importMjcf(b, { text, path: 'equalities.xml' });
  b.jointQd(b.findJoint('h1'))[0] = 1.5;
  b.jointQd(b.findJoint('h2'))[0] = -1;
  return {
    name: 'mjcf_equalities',
    dt: 0.002,
    model: b.finalize(),
    solver: {},
    max_rigid_contact: 64,
    joint_ids: {},
  };
}

/**
 * MJCF ball-joint range: a bob 0.5 m out on a ball joint with range 45° (a rotation cone, as in
 * engine/io/mjcf/mjcf.test.ts), thrown down at 4 rad/s so it reaches its cone within the run
 */
async function mjcfCone(): Promise<TestScene> {
  const text = `<mujoco><option timestep="0.002" gravity="0 0 -9.81"/><worldbody>
    <body name="bob" pos="0 0 1"><joint name="b" type="ball" range="0 45"/>
      <inertial pos="0.5 0 0" mass="1" diaginertia="0.001 0.001 0.001"/>
      <geom type="sphere" size="0.02" pos="0.5 0 0" contype="0" conaffinity="0"/></body>
  </worldbody></mujoco>`;
  const b = new ModelBuilder();
  await importMjcf(b, { text, path: 'cone.xml' });
  b.jointQd(b.findJoint('b')).splice(0, 3, 0, 4, 0.5);
  const model = b.finalize();
  expect(Array.from(model.joint_cone_mode)).toEqual([1]);
  return { name: 'mjcf_cone', dt: 0.002, model, solver: {}, max_rigid_contact: 16, joint_ids: {} };
}

/** MJCF fixed tendon: a two-link arm (hip ref 0.2: a length offset) swung into its tendon's upper limit */
async function mjcfTendon(): Promise<TestScene> {
  const text = tendonArmMjcf(0.3);
  const b = new ModelBuilder();
  await importMjcf(b, { text, path: 'tendon.xml' });
  b.jointQd(b.findJoint('hip'))[0] = 6;
  return {
    name: 'mjcf_tendon',
    dt: 0.002,
    model: b.finalize(),
    solver: {},
    max_rigid_contact: 16,
    joint_ids: {},
  };
}

/**
 * MJCF gravity compensation (½, 1 and ¼ of the bodies' weights) with a position servo whose damping
 * comes from a damping ratio, the arm swung and the plate thrown
 */
async function mjcfGravcomp(): Promise<TestScene> {
  const text = gravcompArmMjcf('<position joint="knee" kp="20" dampratio="0.7"/>');
  const b = new ModelBuilder();
  await importMjcf(b, { text, path: 'gravcomp.xml' });
  b.jointQd(b.findJoint('hip'))[0] = 2;
  b.jointQd(b.joints.findIndex((j) => j.type === JointType.FREE)).splice(0, 6, 0.5, 0, 1, 0.3, -0.2, 0.1);
  return {
    name: 'mjcf_gravcomp',
    dt: 0.002,
    model: b.finalize(),
    solver: {},
    max_rigid_contact: 16,
    joint_ids: {},
  };
}

const gpu = await testGpu();
const REL = 2 ** -44;

describe('GPU adapter', () => {
  it('is available where SwiftShader is installed', () => {
    if (!gpu.ok) console.warn(`WebGPU tests skipped: ${gpu.reason}`);
    if (swiftShaderInstalled()) expect(gpu.ok, gpu.ok ? '' : gpu.reason).toBe(true);
  });
});

describe.skipIf(!gpu.ok)('df64 on the device', () => {
  const N = 4096;
  const rnd = mulberry32(12345);
  // random doubles over 12 decades, random signs, split into (hi, lo)
  const a = new Float64Array(N);
  const b = new Float64Array(N);
  const pairs = new Float32Array(N * 4);
  const split = (x: number, o: number) => {
    const hi = Math.fround(x);
    pairs[o] = hi;
    pairs[o + 1] = Math.fround(x - hi);
    return pairs[o] + pairs[o + 1];
  };
  for (let i = 0; i < N; i++) {
    const ea = -6 + 12 * rnd();
    const eb = -6 + 12 * rnd();
    const sa = rnd() < 0.5 ? -1 : 1;
    const sb = rnd() < 0.5 ? -1 : 1;
    // a few near-cancelling pairs
    const x = sa * 10 ** ea * (1 + rnd());
    const y = i % 16 === 0 ? -x * (1 + 1e-3 * rnd()) : sb * 10 ** eb * (1 + rnd());
    a[i] = split(x, i * 4);
    b[i] = split(y, i * 4 + 2);
  }
  let out: Float32Array;
  const val = (i: number, k: number) => out[i * 20 + k] + out[i * 20 + k + 1];

  it('runs the probe', async () => {
    if (!gpu.ok) return;
    out = (await runDf64Probe(gpu.gpu.device, pairs)).out;
    expect(out.length).toBe(N * 20);
  });

  it('TwoSum and TwoProd are error-free', () => {
    let bad = 0;
    for (let i = 0; i < N; i++) {
      const x = pairs[i * 4],
        y = pairs[i * 4 + 2];
      // f32 + f32 and f32 × f32 are exact in fp64
      if (out[i * 20 + 12] + out[i * 20 + 13] !== x + y || out[i * 20 + 12] !== Math.fround(x + y)) bad++;
      if (out[i * 20 + 14] + out[i * 20 + 15] !== x * y || out[i * 20 + 14] !== Math.fround(x * y)) bad++;
    }
    expect(bad).toBe(0);
  });

  it('add, sub, mul, div, sqrt within 2^-44 relative of fp64', () => {
    const worst = { add: 0, sub: 0, mul: 0, div: 0, sqrt: 0 };
    const rel = (got: number, ref: number) => Math.abs(got - ref) / Math.abs(ref);
    for (let i = 0; i < N; i++) {
      worst.add = Math.max(worst.add, rel(val(i, 0), a[i] + b[i]));
      worst.sub = Math.max(worst.sub, rel(val(i, 2), a[i] - b[i]));
      worst.mul = Math.max(worst.mul, rel(val(i, 4), a[i] * b[i]));
      worst.div = Math.max(worst.div, rel(val(i, 6), a[i] / b[i]));
      worst.sqrt = Math.max(worst.sqrt, rel(val(i, 8), Math.sqrt(Math.abs(a[i]))));
    }
    console.log(
      'df64 worst relative error (units of 2^-44):',
      Object.fromEntries(Object.entries(worst).map(([k, v]) => [k, +(v / REL).toFixed(4)])),
    );
    for (const v of Object.values(worst)) expect(v).toBeLessThanOrEqual(REL);
  });

  it('sin and cos within 1e-13 absolute on |a| ≤ 100', () => {
    let worst = 0;
    for (let i = 0; i < N; i++) {
      if (!(Math.abs(a[i]) <= 100)) continue;
      worst = Math.max(worst, Math.abs(val(i, 10) - Math.sin(a[i])), Math.abs(val(i, 16) - Math.cos(a[i])));
    }
    expect(worst).toBeLessThan(1e-13);
  });
});

const handle = (): GpuHandle => {
  if (!gpu.ok) throw new Error(gpu.reason);
  return gpu.gpu;
};

describe.skipIf(!gpu.ok)('GPU stage parity', () => stageParityTests(handle));
describe.skipIf(!gpu.ok)('GPU cone-limit stage parity', () => coneStageTests(handle));
describe.skipIf(!gpu.ok)('GPU collision parity', () => {
  collisionParityTests(handle);
  collisionStepTest(handle, 100);
});
describe.skipIf(!gpu.ok)('GPU whole-step parity', () => {
  wholeStepTests(handle, 100, [
    { name: 'usd_fourbar', load: usdFourBar },
    { name: 'mjcf_equalities', load: mjcfEqualities },
    { name: 'mjcf_tendon', load: mjcfTendon },
    { name: 'mjcf_cone', load: mjcfCone },
    { name: 'mjcf_gravcomp', load: mjcfGravcomp },
  ]);
  manyWorldsTest(handle, 1024, 4);
  containmentTest(handle);
  printStepTable();
  // SAP_PARITY_JSON=file writes both parity tables (for reports and CI artifacts)
  it('writes the parity tables when asked', () => {
    const file = process.env.SAP_PARITY_JSON;
    if (file) writeFileSync(file, JSON.stringify({ stages: STAGE_TABLE, steps: STEP_TABLE }, null, 2));
  });
});
