/**
 * MJCF spatial tendons, tendon actuators and slider-cranks against MuJoCo's WebAssembly build:
 * lengths and Jacobians (moments) at random joint positions, a finite-difference check of the
 * Jacobians, and a gripper whose fingers close through a spatial-tendon motor.
 */
import { describe, expect, it } from 'vitest';
import { webgpuUnsupported } from '../../backends';
import { exportMjcf } from '../../cli/peers/mjcf_export';
import { loadMujoco, mujocoFromXml, type MjData, type MujocoModule } from '../../cli/peers/mujoco';
import { forwardKinematics, makeKinematicsData } from '../../kinematics';
import { ModelBuilder, type SapModel } from '../../model';
import { Simulation } from '../../pipeline';
import { actuatorTransmissionLength, spatialTendonLength } from '../../pipeline/transmissions';
import { MemoryResolver } from '../assets/resolvers';
import { importMjcf } from './mjcf';

/** MuJoCo's data fields these tests read */
interface MjTransmissionData {
  ten_length: Float64Array;
  actuator_length: Float64Array;
  actuator_moment: Float64Array;
  moment_rownnz: Int32Array;
  moment_rowadr: Int32Array;
  moment_colind: Int32Array;
}

async function mujoco(): Promise<MujocoModule> {
  const mj = await loadMujoco();
  if (typeof mj === 'string') throw new Error(mj);
  return mj;
}

async function load(xml: string, opts = {}) {
  const b = new ModelBuilder();
  const r = await importMjcf(
    b,
    { text: xml, path: 'm/model.xml' },
    { resolver: new MemoryResolver({}), ...opts },
  );
  if (r.gravity) b.gravity = r.gravity; // (the file's <option gravity>, as a scene load applies it)
  return { b, r, m: b.finalize() };
}

/** MuJoCo's dense actuator moments (nu × nv) from its sparse rows */
function denseMoments(d: MjData, nu: number, nv: number): Float64Array {
  const x = d as unknown as MjTransmissionData;
  const out = new Float64Array(nu * nv);
  for (let i = 0; i < nu; i++)
    for (let k = 0; k < x.moment_rownnz[i]; k++) {
      const a = x.moment_rowadr[i] + k;
      out[i * nv + x.moment_colind[a]] = x.actuator_moment[a];
    }
  return out;
}

/** a seeded uniform generator in [0, 1) */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * two trees of hinge and slide joints: a spatial tendon from a world site over three bodies with a
 * pulley branch (divisor 2) onto the second tree, a fixed tendon, and a slider-crank whose crank
 * pin and slider lie on different trees (its slider axis tilted)
 */
const ARM = `
<mujoco>
  <worldbody>
    <site name="w0" pos="0 0 1"/>
    <body name="l1" pos="0 0 0.5">
      <joint name="h1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03"/>
      <site name="a1" pos="0.2 0.05 0"/>
      <body name="l2" pos="0.4 0 0" euler="0 10 20">
        <joint name="h2" type="hinge" axis="0 0.6 0.8"/>
        <joint name="s2" type="slide" axis="1 0 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <site name="a2" pos="0.3 0 0.02"/>
        <site name="c2" pos="0.1 0.1 0"/>
      </body>
    </body>
    <body name="r" pos="1 0 0.5">
      <joint name="h3" type="hinge" axis="1 0 0"/>
      <geom type="box" size="0.05 0.05 0.05"/>
      <site name="b3" pos="0 0.1 0.1"/>
      <site name="sl" pos="0 0.02 0" zaxis="0.3 0.4 1"/>
    </body>
  </worldbody>
  <tendon>
    <spatial name="path">
      <site site="w0"/><site site="a1"/><site site="a2"/><pulley divisor="2"/><site site="a2"/><site site="b3"/>
    </spatial>
    <fixed name="fx"><joint joint="h1" coef="0.5"/><joint joint="s2" coef="-2"/></fixed>
  </tendon>
  <actuator>
    <motor name="mt" tendon="path" gear="1.5"/>
    <motor name="mf" tendon="fx" gear="2"/>
    <motor name="crank" cranksite="c2" slidersite="sl" cranklength="0.9" gear="0.7"/>
  </actuator>
</mujoco>`;
const ARM_JOINTS = ['h1', 'h2', 's2', 'h3'];

/** our lengths (gear·l) and moments (gear·J, MuJoCo's DOF order) at MuJoCo's qpos */
function ourTransmissions(m: SapModel, names: readonly string[], qpos: readonly number[]) {
  const q = Float64Array.from(m.joint_q0);
  const dofOf = names.map((n) => m.joint_qd_start[m.joint_label.indexOf(n)]);
  names.forEach((n, k) => (q[m.joint_q_start[m.joint_label.indexOf(n)]] = qpos[k]));
  const kin = makeKinematicsData(m);
  forwardKinematics(m, q, kin);
  const J = new Float64Array(m.joint_dof_count);
  const length: number[] = [];
  const moment: number[] = [];
  for (let a = 0; a < m.actuator_count; a++) {
    const g = m.actuator_gear[a];
    length.push(g * actuatorTransmissionLength(m, kin, q, a, J));
    for (const d of dofOf) moment.push(g * J[d]);
  }
  const spatial: number[] = [];
  for (let t = 0; t < m.spatial_count; t++) spatial.push(spatialTendonLength(m, kin, t, null));
  return { length, moment, spatial, q, kin, J, dofOf };
}

describe('MJCF spatial tendons and length actuators', () => {
  it("tendon, fixed-tendon and slider-crank lengths and moments equal MuJoCo's at random q (1e-9)", async () => {
    const mj = await mujoco();
    const { m, r } = await load(ARM);
    expect(r.unsupported).toEqual([]);
    expect(m.spatial_count).toBe(1);
    expect(m.actuator_count).toBe(3);
    const { m: mm, d } = mujocoFromXml(mj, ARM);
    const x = d as unknown as MjTransmissionData;
    try {
      const rand = rng(7);
      let worst = 0;
      for (let trial = 0; trial < 25; trial++) {
        const qpos = [2 * rand() - 1, 2 * rand() - 1, 0.4 * rand() - 0.2, 2 * rand() - 1].map((v, k) =>
          k === 2 ? v : 2 * v,
        );
        qpos.forEach((v, k) => (d.qpos[k] = v));
        mj.mj_forward(mm, d);
        const ours = ourTransmissions(m, ARM_JOINTS, qpos);
        const theirs = denseMoments(d, 3, 4);
        for (let a = 0; a < 3; a++) worst = Math.max(worst, Math.abs(ours.length[a] - x.actuator_length[a]));
        for (let k = 0; k < 12; k++) worst = Math.max(worst, Math.abs(ours.moment[k] - theirs[k]));
        worst = Math.max(worst, Math.abs(ours.spatial[0] - x.ten_length[0]));
      }
      expect(worst).toBeLessThan(1e-9);
    } finally {
      d.delete();
      mm.delete();
    }
  });

  it('the Jacobians are the derivatives of the lengths (central differences)', async () => {
    const { m } = await load(ARM);
    const rand = rng(3);
    const h = 1e-6;
    for (let trial = 0; trial < 5; trial++) {
      const qpos = ARM_JOINTS.map(() => 2 * rand() - 1);
      const base = ourTransmissions(m, ARM_JOINTS, qpos);
      for (let k = 0; k < ARM_JOINTS.length; k++) {
        const up = qpos.slice(),
          dn = qpos.slice();
        up[k] += h;
        dn[k] -= h;
        const lu = ourTransmissions(m, ARM_JOINTS, up).length;
        const ld = ourTransmissions(m, ARM_JOINTS, dn).length;
        for (let a = 0; a < m.actuator_count; a++) {
          const fd = (lu[a] - ld[a]) / (2 * h);
          expect(Math.abs(fd - base.moment[a * ARM_JOINTS.length + k])).toBeLessThan(1e-7);
        }
      }
    }
  });

  it('the WebGPU backend refuses spatial tendons and length actuators with a reason; the MuJoCo export lists them', async () => {
    const { m } = await load(ARM);
    expect(webgpuUnsupported(m)).toMatch(
      /spatial tendon path: spatial tendons are not on the WebGPU backend yet/,
    );
    const { b } = await load(
      ARM.replace(/<spatial[\s\S]*?<\/spatial>/, '').replace(/<motor name="mt"[^>]*>/, ''),
    );
    expect(webgpuUnsupported(b.finalize())).toMatch(/actuator mf: tendon and slider-crank actuators/);
    // nor does the MuJoCo peer's export carry them yet: it lists them
    const exp = exportMjcf(m, 0.002);
    expect(exp.skipped_tendons).toEqual(['path: spatial tendons are not exported']);
    expect(exp.skipped_actuators).toHaveLength(3);
  });
});

/** a two-finger gripper: hinge fingers held open by joint springs, closed by a spatial-tendon motor */
function gripper(
  tendonAttrs = '',
  ctrl = -4,
  actuator = '<motor name="squeeze" tendon="close" ctrlrange="-5 0"/>',
): string {
  const finger = (side: string, x: number) => `
      <body name="f${side}" pos="${x} 0 -0.01">
        <joint name="j${side}" type="hinge" axis="0 1 0" stiffness="0.3" damping="0.03" armature="0.001"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.08" size="0.008"/>
        <site name="t${side}" pos="0 0 -0.06"/>
      </body>`;
  return `
<mujoco>
  <option timestep="0.002"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body name="palm" pos="0 0 0.5">
      <geom type="box" size="0.06 0.02 0.01"/>
      <site name="pl" pos="-0.02 0 -0.01"/>
      <site name="pr" pos="0.02 0 -0.01"/>${finger('l', -0.05)}${finger('r', 0.05)}
    </body>
  </worldbody>
  <tendon>
    <spatial name="close" ${tendonAttrs}><site site="tl"/><site site="pl"/><site site="pr"/><site site="tr"/></spatial>
  </tendon>
  <actuator>${actuator}</actuator>
  <keyframe><key name="grip" ctrl="${ctrl}"/></keyframe>
</mujoco>`;
}

/** finger angles [jl, jr] after `seconds` in ours and in MuJoCo, from the keyframe */
async function closeBoth(xml: string, seconds: number) {
  const mj = await mujoco();
  const { m, r } = await load(xml, { keyframe: 0 });
  const sim = new Simulation(m, { dt: 0.002, solver: {} });
  const steps = Math.round(seconds / 0.002);
  for (let i = 0; i < steps; i++) sim.step();
  const ours = ['jl', 'jr'].map((n) => sim.state.joint_q[m.joint_q_start[m.joint_label.indexOf(n)]]);
  const kin = makeKinematicsData(m);
  forwardKinematics(m, sim.state.joint_q, kin);
  const length = spatialTendonLength(m, kin, 0, null);
  const { m: mm, d } = mujocoFromXml(mj, xml);
  try {
    mj.mj_resetDataKeyframe(mm, d, 0);
    for (let i = 0; i < steps; i++) mj.mj_step(mm, d);
    const theirs = [d.qpos[0], d.qpos[1]];
    return { ours, theirs, length, mjLength: (d as unknown as MjTransmissionData).ten_length[0], r };
  } finally {
    d.delete();
    mm.delete();
  }
}

describe('a gripper closing through a spatial-tendon motor', () => {
  it("closes as MuJoCo's after 1 s (finger angles within 1e-4 rad)", async () => {
    const { ours, theirs, r } = await closeBoth(gripper(), 1);
    expect(r.unsupported).toEqual([]);
    // measured: ours ∓0.38755629, MuJoCo ∓0.38755615 (1.4e-7 apart); ignoring the tendon left it at 0
    expect(Math.abs(theirs[0])).toBeGreaterThan(0.3); // it does close
    for (let k = 0; k < 2; k++) expect(Math.abs(ours[k] - theirs[k])).toBeLessThan(1e-4);
  });

  it("with the tendon's spring and damping it settles where MuJoCo's does", async () => {
    const { ours, theirs } = await closeBoth(gripper('stiffness="50" damping="0.5"'), 1);
    // measured: ours ∓0.30106574, MuJoCo ∓0.30106581
    const free = await closeBoth(gripper(), 1);
    expect(Math.abs(ours[0])).toBeLessThan(Math.abs(free.ours[0]) - 0.05); // the spring holds it more open
    for (let k = 0; k < 2; k++) expect(Math.abs(ours[k] - theirs[k])).toBeLessThan(1e-4);
  });

  it("position and velocity servos on the tendon (kp, kv, a general affine bias) act as MuJoCo's", async () => {
    for (const act of [
      '<position name="p" tendon="close" kp="60" kv="1"/>',
      '<general name="g" tendon="close" gainprm="60" biastype="affine" biasprm="0 -60 -1" forcerange="-1 1"/>',
      '<velocity name="v" tendon="close" kv="20"/>',
    ]) {
      const ctrl = act.startsWith('<velocity') ? -0.05 : 0.15;
      const { ours, theirs, r } = await closeBoth(gripper('', ctrl, act), 0.6);
      expect(r.unsupported).toEqual([]);
      expect(Math.abs(theirs[0])).toBeGreaterThan(0.05);
      // measured (ours vs MuJoCo): position ∓0.101275 / ∓0.101277, general (force clamped at 1 N)
      // ∓0.090332 / ∓0.090336, velocity ∓0.086585 / ∓0.086534
      for (let k = 0; k < 2; k++) expect(Math.abs(ours[k] - theirs[k]), act).toBeLessThan(2e-3);
    }
  });

  it('a limited tendon stops at its lower length (a SAP tendon limit)', async () => {
    const { length, mjLength, ours, theirs } = await closeBoth(gripper('limited="true" range="0.165 1"'), 1);
    // measured: ours l = 0.16478 (near-rigid, 2.2e-4 inside), MuJoCo's soft limit 0.16487; the
    // fingers at ∓0.16950 and ∓0.16801
    expect(Math.abs(mjLength - 0.165)).toBeLessThan(1e-3);
    expect(length).toBeGreaterThan(0.165 - 1e-3);
    expect(length).toBeLessThan(0.165 + 1e-3);
    for (let k = 0; k < 2; k++) expect(Math.abs(ours[k] - theirs[k])).toBeLessThan(5e-3);
  });
});

/** a crank (hinge) and a slider (slide) joined only by a slider-crank motor's transmission */
const SLIDER_CRANK = `
<mujoco>
  <option timestep="0.002" gravity="0 0 0"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body name="crank" pos="0 0 0.5">
      <joint name="jc" type="hinge" axis="0 1 0" damping="0.01" armature="0.01"/>
      <geom type="capsule" fromto="0 0 0 0.1 0 0" size="0.01"/>
      <site name="pin" pos="0.1 0 0"/>
    </body>
    <body name="slider" pos="0.35 0 0.5">
      <joint name="js" type="slide" axis="1 0 0" damping="2" armature="0.5"/>
      <geom type="box" size="0.02 0.02 0.02"/>
      <site name="slot" zaxis="-1 0 0.2"/>
    </body>
  </worldbody>
  <actuator><motor name="drive" cranksite="pin" slidersite="slot" cranklength="0.25" ctrlrange="-1 1"/></actuator>
  <keyframe><key qpos="0.3 0.02" ctrl="0.5"/></keyframe>
</mujoco>`;

describe('a slider-crank motor', () => {
  it("moves the crank and the slider as MuJoCo's does (0.5 s)", async () => {
    const mj = await mujoco();
    const { m, r } = await load(SLIDER_CRANK, { keyframe: 0 });
    expect(r.unsupported).toEqual([]);
    expect(r.actuators).toMatchObject([{ name: 'drive', joint: -1, length_actuator: 0 }]);
    const sim = new Simulation(m, { dt: 0.002, solver: {} });
    const { m: mm, d } = mujocoFromXml(mj, SLIDER_CRANK);
    try {
      mj.mj_resetDataKeyframe(mm, d, 0);
      for (let i = 0; i < 250; i++) {
        sim.step();
        mj.mj_step(mm, d);
      }
      const ours = ['jc', 'js'].map((n) => sim.state.joint_q[m.joint_q_start[m.joint_label.indexOf(n)]]);
      // measured: crank 0.58059 vs MuJoCo's 0.58216, slider 0.09018 vs 0.09041 — the position
      // integrators differ (MuJoCo's q += dt·v_{n+1}, ours q += dt·v̄), about ½·dt·v while it
      // accelerates; at t = 0 the accelerations agree (the moments do to 1e-9, first test)
      expect(Math.abs(ours[0] - 0.3)).toBeGreaterThan(0.2); // it turned
      for (let k = 0; k < 2; k++) expect(Math.abs(ours[k] - d.qpos[k])).toBeLessThan(3e-3);
    } finally {
      d.delete();
      mm.delete();
    }
  });
});

describe('MJCF spatial tendons: what is not built, bad input', () => {
  const arm = (tendon: string, actuator = '') =>
    ARM.replace(/<spatial name="path">[\s\S]*?<\/spatial>/, tendon).replace(
      /<actuator>[\s\S]*<\/actuator>/,
      `<actuator>${actuator}</actuator>`,
    );

  it('names the attributes it does not build or read', async () => {
    const { r } = await load(
      arm(
        '<spatial name="t" frictionloss="0.3" armature="0.01" solreflimit="0.01 1" margin="0.1"><site site="w0"/><site site="a1"/></spatial>',
      ),
    );
    const u = r.unsupported.join('\n');
    expect(u).toMatch(/tendon 't': frictionloss="0.3" is not built/);
    expect(u).toMatch(/tendon 't': armature="0.01" is not built/);
    expect(u).toMatch(/tendon 't': margin="0.1" is not built/);
    expect(r.warnings.join('\n')).toMatch(/tendon 't': solreflimit not read/);
  });

  it('refuses a dampratio servo on a tendon and a tendon that was not built, by name', async () => {
    const { r, m } = await load(
      arm(
        '<spatial name="t"><site site="w0"/><site site="a1"/></spatial>',
        '<position tendon="t" kp="10" dampratio="1"/><motor name="m2" tendon="nope"/>',
      ),
    );
    const u = r.unsupported.join('\n');
    expect(u).toMatch(/actuator 'position0': dampratio on a tendon or slider-crank is not built/);
    expect(u).toMatch(/actuator 'm2': tendon 'nope' was not built/);
    expect(m.actuator_count).toBe(0);
    const { r: r2 } = await load(
      arm(
        '<spatial name="t" actuatorfrcrange="-1 1"><site site="w0"/><site site="a1"/></spatial>',
        '<general name="act" tendon="t" dyntype="filter" dynprm="0.1"/><motor name="m3" tendon="t" lengthrange="0 1" actearly="true"/>',
      ),
    );
    const u2 = r2.unsupported.join('\n');
    expect(u2).toMatch(/actuator 'act': activation dynamics \(dyntype="filter"\) are not built/);
    expect(u2).toMatch(/tendon 't': actuatorfrcrange \(a bound on its actuators' total force\) is not built/);
    expect(r2.warnings.join('\n')).toMatch(/actuator 'm3': actearly, lengthrange not read/);
  });

  it('reports bad paths where they stand', async () => {
    await expect(load(arm('<spatial name="t"><site site="w0"/><site site="zz"/></spatial>'))).rejects.toThrow(
      /model\.xml:\d+.*unknown site 'zz'/,
    );
    await expect(
      load(arm('<spatial name="t"><site site="w0"/><pulley/><site site="a1"/></spatial>')),
    ).rejects.toThrow(/<pulley> needs a divisor > 0/);
    await expect(load(arm('<spatial name="t"><site site="w0"/></spatial>'))).rejects.toThrow(
      /spatial_tendons\[0\].path: a spatial tendon needs two consecutive points in one branch/,
    );
    await expect(
      load(
        arm(
          '<spatial name="t"><site site="w0"/><site site="a1"/></spatial>',
          '<motor cranksite="c2" slidersite="sl"/>',
        ),
      ),
    ).rejects.toThrow(/a slider-crank needs cranklength > 0/);
  });

  it("a spring's default rest length is the authored length (no force at the authored pose)", async () => {
    const { m } = await load(
      arm('<spatial name="t" stiffness="100"><site site="w0"/><site site="a1"/><site site="b3"/></spatial>'),
    );
    const kin = makeKinematicsData(m);
    forwardKinematics(m, m.joint_q0, kin);
    const l = spatialTendonLength(m, kin, 0, null);
    expect(m.spatial_spring_lower[0]).toBeCloseTo(l, 12);
    expect(m.spatial_spring_upper[0]).toBeCloseTo(l, 12);
    const { m: m2 } = await load(
      arm(
        '<spatial name="t" stiffness="100" springlength="0.5 0.7"><site site="w0"/><site site="a1"/></spatial>',
      ),
    );
    expect([m2.spatial_spring_lower[0], m2.spatial_spring_upper[0]]).toEqual([0.5, 0.7]);
  });
});
