/**
 * UsdPhysics generic (D6) joints: each combination of locked, limited and free axes is exact. The
 * free axes move, the locked ones hold to round-off (they carry no DOF), limits and drives act per
 * axis, and the chains equal the same mechanism written in MJCF (several joints in one body).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePairFilter, pairAllowed } from '../../collision/filter';
import { crbaTree, makeCompositeScratch } from '../../dynamics';
import { forwardKinematics, makeKinematicsData } from '../../kinematics';
import { JOINT_TYPE_NAMES, ModelBuilder, type SapModel } from '../../model';
import { Simulation } from '../../pipeline';
import { MemoryResolver } from '../assets/resolvers';
import { importMjcf } from '../mjcf/mjcf';
import { chainCoordinates, planD6 } from './d6';
import { importUsd } from './physics';
import { SAP_ASSETS, fsResolver, memResolver } from './testing';
import { mat4FromQuatWXYZ, mat4Mul, mat4RotateAxis } from './xform';
import { openStageFromText } from './compose';

const DEG = Math.PI / 180;
const AXES = ['transX', 'transY', 'transZ', 'rotX', 'rotY', 'rotZ'] as const;
type Axis = (typeof AXES)[number];

/**
 * A D6 joint from the world (its frame at `anchor`) to a 1 kg body `bob` whose COM is `com` in its
 * frame (at the anchor); `free` axes get a LimitAPI of `limits` (degrees / m) or none, the others
 * are locked (low 1 > high −1); `extra` is more of the joint's body (drives, states).
 */
function d6Stage(opts: {
  free: Axis[];
  limits?: Partial<Record<Axis, [number, number]>>;
  drives?: Axis[];
  com: [number, number, number];
  extra?: string;
  order?: Axis[];
}): string {
  const order = opts.order ?? [...AXES];
  const apis: string[] = [];
  const attrs: string[] = [];
  for (const a of order) {
    const locked = !opts.free.includes(a);
    const lim = opts.limits?.[a];
    if (locked || lim) apis.push(`"PhysicsLimitAPI:${a}"`);
    if (opts.drives?.includes(a)) apis.push(`"PhysicsDriveAPI:${a}"`);
    const [lo, hi] = locked ? [1, -1] : (lim ?? [0, 0]);
    if (locked || lim)
      attrs.push(`    float limit:${a}:physics:low = ${lo}`, `    float limit:${a}:physics:high = ${hi}`);
  }
  return `#usda 1.0
(
    upAxis = "Z"
    metersPerUnit = 1
)
def Xform "bob" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) {
    float physics:mass = 1
    point3f physics:centerOfMass = (${opts.com.join(', ')})
    float3 physics:diagonalInertia = (0.01, 0.02, 0.03)
    double3 xformOp:translate = (0, 0, 1)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def PhysicsJoint "d6" ( prepend apiSchemas = [${apis.join(', ')}] ) {
    rel physics:body1 = </bob>
    point3f physics:localPos0 = (0, 0, 1)
${attrs.join('\n')}
${opts.extra ?? ''}
}
`;
}

async function usd(text: string) {
  const b = new ModelBuilder();
  const r = await importUsd(b, 'd6.usda', memResolver({ 'd6.usda': text }));
  b.gravity = [0, 0, -9.81];
  return { b, r };
}

async function mjcf(xml: string) {
  const b = new ModelBuilder();
  await importMjcf(b, { text: xml, path: 'm/model.xml' }, { resolver: new MemoryResolver({}) });
  b.gravity = [0, 0, -9.81];
  return b;
}

const sim = (m: SapModel) => new Simulation(m, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });

/** the bob's pose relative to the joint's world frame (at (0, 0, 1), unrotated): [p, R row-major] */
function bobPose(m: SapModel, s: Simulation): { p: number[]; R: Float64Array } {
  const k = m.body_label.indexOf('bob');
  const q = s.state.body_q.subarray(7 * k, 7 * k + 7);
  const R = mat4FromQuatWXYZ(q[6], q[3], q[4], q[5]);
  return {
    p: [q[0], q[1], q[2] - 1],
    R: new Float64Array([R[0], R[1], R[2], R[4], R[5], R[6], R[8], R[9], R[10]]),
  };
}

/** the D6 coordinates of the bob's pose: translation and Tait–Bryan angles of the sequence `seq` */
function coords(m: SapModel, s: Simulation, seq: [number, number, number] = [0, 1, 2]) {
  const { p, R } = bobPose(m, s);
  const rel = new Float64Array(16);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) rel[r * 4 + c] = R[r * 3 + c];
  rel[3] = p[0];
  rel[7] = p[1];
  rel[11] = p[2];
  rel[15] = 1;
  const axis = (i: number) => ({
    name: AXES[3 + i],
    angular: true,
    index: i as 0 | 1 | 2,
    lower: 0,
    upper: 0,
    driven: false,
  });
  const ang = chainCoordinates(
    seq.map((i) => ({ type: 'revolute' as const, axis: axis(i) })),
    rel,
  );
  return { p, ang };
}

const jq = (m: SapModel, s: Simulation, label: string) =>
  s.state.joint_q[m.joint_q_start[m.joint_label.indexOf(label)]];

/**
 * Steps a USD and an MJCF model side by side for `steps` steps; returns both simulations and the
 * largest gap of the named joint pairs' coordinates ([USD label, MJCF name]); `each` sees every step
 */
function twins(
  mu: SapModel,
  mm: SapModel,
  pairs: [string, string][],
  steps: number,
  each?: (su: Simulation) => void,
): { su: Simulation; sm: Simulation; worst: number } {
  const su = sim(mu),
    sm = sim(mm);
  let worst = 0;
  for (let i = 0; i < steps; i++) {
    su.step();
    sm.step();
    each?.(su);
    for (const [u, v] of pairs) worst = Math.max(worst, Math.abs(jq(mu, su, u) - jq(mm, sm, v)));
  }
  return { su, sm, worst };
}

function setQ(b: ModelBuilder, label: string, q: number): void {
  const j = b.findJoint(label);
  expect(j).toBeGreaterThanOrEqual(0);
  b.jointQ(j)[0] = q;
}

/** the smallest pivot of the Cholesky factorization of each tree's M(q) (≤ 0: not positive definite) */
function minPivot(m: SapModel, q: Float64Array): number {
  const d = makeKinematicsData(m);
  forwardKinematics(m, q, d);
  let worst = Infinity;
  for (let t = 0; t < m.tree_count; t++) {
    const n = m.tree_dof_start[t + 1] - m.tree_dof_start[t];
    const M = new Float64Array(n * n);
    crbaTree(m, d, t, makeCompositeScratch(m), M);
    for (let k = 0; k < n; k++) {
      for (let p = 0; p < k; p++) M[k * n + k] -= M[k * n + p] ** 2;
      const piv = M[k * n + k];
      worst = Math.min(worst, piv);
      const l = Math.sqrt(Math.max(piv, 1e-300));
      M[k * n + k] = l;
      for (let i = k + 1; i < n; i++) {
        for (let p = 0; p < k; p++) M[i * n + k] -= M[i * n + p] * M[k * n + p];
        M[i * n + k] /= l;
      }
    }
  }
  return worst;
}

const typesOf = (b: ModelBuilder) => b.joints.map((j) => `${j.label}:${JOINT_TYPE_NAMES[j.type]}`);

describe('UsdPhysics D6 joints: the schema reading', () => {
  const plan = async (text: string) => {
    const st = await openStageFromText(text, 'x.usda', undefined);
    const j = st.prim('/d6')!;
    const out: string[] = [];
    const num = (n: string) => {
      const v = j.attr(n);
      return typeof v === 'number' ? v : undefined;
    };
    return { plan: planD6(j, 1, num, (w) => out.push(w)), warnings: out };
  };

  it('unlisted axes are free, low > high locks, rotations in degrees, order as applied', async () => {
    const { plan: p } = await plan(
      d6Stage({
        free: ['rotZ', 'rotX', 'transY'],
        limits: { rotX: [-30, 60] },
        drives: ['rotZ'],
        com: [0, 0, 0],
        order: ['rotZ', 'transX', 'rotX', 'transZ', 'rotY'],
      }),
    );
    // rotZ listed first (a DriveAPI, no LimitAPI: free), then rotX (limited); transY unlisted: free
    expect(p.kind).toBe('chain');
    if (p.kind !== 'chain') return;
    expect(p.steps.map((s) => `${s.type}:${s.axis?.name}`)).toEqual([
      'prismatic:transY',
      'revolute:rotZ',
      'revolute:rotX',
    ]);
    expect(p.steps[2].axis!.lower).toBeCloseTo(-30 * DEG, 15);
    expect(p.steps[2].axis!.upper).toBeCloseTo(60 * DEG, 15);
    expect(p.steps[1].axis!.lower).toBe(-Infinity);
  });

  it('maps single types where they fit and names the distance limit it does not simulate', async () => {
    const kind = async (free: Axis[], limits = {}) =>
      (await plan(d6Stage({ free, limits, com: [0, 0, 0] }))).plan.kind;
    expect(await kind([])).toBe('fixed');
    expect(await kind(['rotY'])).toBe('revolute');
    expect(await kind(['transZ'])).toBe('prismatic');
    expect(await kind(['rotX', 'rotY', 'rotZ'])).toBe('ball');
    expect(await kind(['rotX', 'rotY', 'rotZ'], { rotX: [-10, 10] })).toBe('chain'); // per-axis limits: three hinges
    expect(await kind([...AXES])).toBe('free');
    expect(await kind(['rotX', 'rotY'])).toBe('chain');
    const { warnings: w } = await plan(
      d6Stage({ free: ['rotX'], com: [0, 0, 0] }).replace(
        '"PhysicsLimitAPI:transX"',
        '"PhysicsLimitAPI:distance", "PhysicsLimitAPI:transX"',
      ),
    );
    expect(w.join('\n')).toMatch(/PhysicsLimitAPI:distance .* not simulated/);
  });

  it('builds all-free to the world as a free joint, all-locked as fixed', async () => {
    // (a bound beyond ±1e30 is none: six LimitAPI instances that leave every axis free)
    const wide = Object.fromEntries(AXES.map((a) => [a, [-2e30, 2e30]]));
    expect(typesOf((await usd(d6Stage({ free: [...AXES], limits: wide, com: [0, 0, 0] }))).b)).toEqual([
      'd6:free',
    ]);
    expect(typesOf((await usd(d6Stage({ free: [], com: [0, 0, 0] }))).b)).toEqual(['d6:fixed']);
  });
});

describe('UsdPhysics D6 joints: free axes move, locked axes hold', () => {
  it('universal: a pendulum swings about both axes while the locked twist and anchor hold < 1e-9', async () => {
    const { b, r } = await usd(
      d6Stage({
        free: ['rotX', 'rotY'],
        com: [0, 0, -0.5],
        extra: '    float state:rotX:physics:position = 20\n    float state:rotY:physics:position = 10',
      }),
    );
    expect(r.unsupported).toEqual([]);
    expect(typesOf(b)).toEqual(['d6/rotX:revolute', 'd6/rotY:revolute']);
    expect(b.bodies.find((x) => x.label === 'd6/rotX')?.mass).toBe(0); // the massless intermediate body
    const m = b.finalize();
    const s = sim(m);
    // the authored joint state is the initial pose
    expect(jq(m, s, 'd6/rotX')).toBeCloseTo(20 * DEG, 12);
    const lo = [Infinity, Infinity],
      hi = [-Infinity, -Infinity];
    let twist = 0,
      slip = 0,
      pivot = Infinity;
    for (let i = 0; i < 1000; i++) {
      s.step();
      const c = coords(m, s);
      twist = Math.max(twist, Math.abs(c.ang[2]));
      slip = Math.max(slip, Math.hypot(...c.p));
      for (const k of [0, 1]) {
        lo[k] = Math.min(lo[k], c.ang[k]);
        hi[k] = Math.max(hi[k], c.ang[k]);
        expect(c.ang[k]).toBeCloseTo(jq(m, s, k === 0 ? 'd6/rotX' : 'd6/rotY'), 9);
      }
      if (i % 100 === 0) pivot = Math.min(pivot, minPivot(m, s.state.joint_q));
    }
    expect(hi[0] - lo[0]).toBeGreaterThan(30 * DEG);
    expect(hi[1] - lo[1]).toBeGreaterThan(15 * DEG);
    expect(twist).toBeLessThan(1e-9);
    expect(slip).toBeLessThan(1e-9);
    expect(pivot).toBeGreaterThan(1e-4); // M(q) stays positive definite with the massless body
  });

  it('universal: the same pendulum written in MJCF (two hinges in one body) has the same trajectory to 1e-9', async () => {
    const { b } = await usd(d6Stage({ free: ['rotX', 'rotY'], com: [0, 0, -0.5] }));
    const bm = await mjcf(`<mujoco><worldbody><body name="bob" pos="0 0 1">
      <joint name="jx" type="hinge" axis="1 0 0"/><joint name="jy" type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 -0.5" mass="1" diaginertia="0.01 0.02 0.03"/></body></worldbody></mujoco>`);
    setQ(b, 'd6/rotX', 0.4);
    setQ(b, 'd6/rotY', -0.25);
    setQ(bm, 'jx', 0.4);
    setQ(bm, 'jy', -0.25);
    const mu = b.finalize(),
      mm = bm.finalize();
    const { su, worst } = twins(
      mu,
      mm,
      [
        ['d6/rotX', 'jx'],
        ['d6/rotY', 'jy'],
      ],
      1000,
    );
    expect(worst).toBeLessThan(1e-9);
    expect(Math.abs(jq(mu, su, 'd6/rotY'))).toBeGreaterThan(1e-3); // it moved
  });

  it('body1 as the tree parent: the chain runs backwards (axes negated) and equals that MJCF; the authored pose sets q', async () => {
    // the bob is body0, the world body1: X_01 = Rx(a)·Ry(b) puts the y hinge on the world side
    const text = d6Stage({ free: ['rotX', 'rotY'], com: [0, 0, -0.5] })
      .replace('rel physics:body1 = </bob>', 'rel physics:body0 = </bob>')
      .replace('point3f physics:localPos0 = (0, 0, 1)', 'point3f physics:localPos1 = (0, 0, 1)')
      .replace(
        'uniform token[] xformOpOrder = ["xformOp:translate"]',
        'float3 xformOp:rotateXYZ = (0, -15, 0)\n    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ"]',
      );
    const { b } = await usd(text);
    expect(typesOf(b)).toEqual(['d6/rotY:revolute', 'd6/rotX:revolute']);
    expect(b.joints[0].axis.map((x) => x + 0)).toEqual([0, -1, 0]); // negated: y runs from body1 to body0
    // the bob turned −15° about y in the world: X_01 = its inverse, Ry(+15°)
    expect(b.jointQ(b.findJoint('d6/rotY'))[0]).toBeCloseTo(15 * DEG, 12);
    expect(b.jointQ(b.findJoint('d6/rotX'))[0]).toBe(0);
    const bm = await mjcf(`<mujoco><worldbody><body name="bob" pos="0 0 1">
      <joint name="jy" type="hinge" axis="0 -1 0"/><joint name="jx" type="hinge" axis="-1 0 0"/>
      <inertial pos="0 0 -0.5" mass="1" diaginertia="0.01 0.02 0.03"/></body></worldbody></mujoco>`);
    setQ(b, 'd6/rotX', 0.3);
    setQ(bm, 'jx', 0.3);
    setQ(bm, 'jy', 15 * DEG);
    const mu = b.finalize(),
      mm = bm.finalize();
    const { su, sm, worst } = twins(
      mu,
      mm,
      [
        ['d6/rotX', 'jx'],
        ['d6/rotY', 'jy'],
      ],
      500,
    );
    expect(worst).toBeLessThan(1e-9);
    const k = mu.body_label.indexOf('bob');
    const km = mm.body_label.indexOf('bob');
    for (let c = 0; c < 7; c++)
      expect(su.state.body_q[7 * k + c]).toBeCloseTo(sm.state.body_q[7 * km + c], 9);
  });

  it('cylindrical: slides and turns about x; off-axis position and tilt hold < 1e-9; a drive on transX pulls it to its target', async () => {
    const { b } = await usd(
      d6Stage({
        free: ['transX', 'rotX'],
        drives: ['transX'],
        com: [0, 0.3, 0],
        extra: [
          '    float drive:transX:physics:stiffness = 50',
          '    float drive:transX:physics:damping = 10',
          '    float drive:transX:physics:targetPosition = 0.25',
        ].join('\n'),
      }),
    );
    expect(typesOf(b)).toEqual(['d6/transX:prismatic', 'd6/rotX:revolute']);
    const m = b.finalize();
    const s = sim(m);
    let off = 0,
      turned = 0;
    for (let i = 0; i < 2500; i++) {
      s.step();
      const c = coords(m, s);
      off = Math.max(off, Math.abs(c.p[1]), Math.abs(c.p[2]), Math.abs(c.ang[1]), Math.abs(c.ang[2]));
      turned = Math.max(turned, Math.abs(c.ang[0]));
    }
    expect(off).toBeLessThan(1e-9);
    expect(turned).toBeGreaterThan(1); // the off-axis COM swings under gravity
    expect(Math.abs(coords(m, s).p[0] - 0.25)).toBeLessThan(1e-4); // 5 s of a drive with ζ ≈ 0.7
  });

  it('planar: a cart in the vertical xz plane falls, slides and turns; its out-of-plane motion holds < 1e-9; equal to MJCF', async () => {
    // (spinning about y at 2 rad/s, its COM 0.1 m off the joint frame couples the turn into x and z)
    const { b } = await usd(d6Stage({ free: ['transX', 'transZ', 'rotY'], com: [0.1, 0, 0] }));
    expect(typesOf(b)).toEqual(['d6/transX:prismatic', 'd6/transZ:prismatic', 'd6/rotY:revolute']);
    const bm = await mjcf(`<mujoco><worldbody><body name="bob" pos="0 0 1">
      <joint name="x" type="slide" axis="1 0 0"/><joint name="z" type="slide" axis="0 0 1"/>
      <joint name="ry" type="hinge" axis="0 1 0"/>
      <inertial pos="0.1 0 0" mass="1" diaginertia="0.01 0.02 0.03"/></body></worldbody></mujoco>`);
    setQ(b, 'd6/transX', 0.2);
    setQ(bm, 'x', 0.2);
    b.jointQd(b.findJoint('d6/rotY'))[0] = 2;
    bm.jointQd(bm.findJoint('ry'))[0] = 2;
    const mu = b.finalize(),
      mm = bm.finalize();
    let off = 0;
    const { su, worst } = twins(
      mu,
      mm,
      [
        ['d6/transX', 'x'],
        ['d6/transZ', 'z'],
        ['d6/rotY', 'ry'],
      ],
      500,
      (s) => {
        const c = coords(mu, s, [1, 0, 2]); // the turn about y first: no flip past ±90°
        off = Math.max(off, Math.abs(c.p[1]), Math.abs(c.ang[1]), Math.abs(c.ang[2]));
        expect(c.ang[0]).toBeCloseTo(jq(mu, s, 'd6/rotY'), 9);
      },
    );
    expect(off).toBeLessThan(1e-9);
    expect(worst).toBeLessThan(1e-9);
    // the COM falls freely for 1 s (z = −g t²/2 to the integrator's O(dt)) while the cart turns about it
    expect(Math.abs(jq(mu, su, 'd6/rotY'))).toBeGreaterThan(1.5);
    const th = jq(mu, su, 'd6/rotY');
    // (the spin gives the COM an initial ω × r = −0.2 m/s along z)
    expect(coords(mu, su).p[2] - 0.1 * Math.sin(th)).toBeCloseTo(-9.81 / 2 - 0.2, 1);
  });

  it('three translations: the body falls and slides without turning; two translations: its height holds', async () => {
    for (const free of [
      ['transX', 'transY', 'transZ'],
      ['transX', 'transY'],
    ] as Axis[][]) {
      const { b } = await usd(d6Stage({ free, com: [0.2, -0.1, 0.05] }));
      expect(b.joints.every((j) => JOINT_TYPE_NAMES[j.type] === 'prismatic')).toBe(true);
      setQ(b, 'd6/transX', 0.1);
      b.jointQd(b.findJoint('d6/transY'))[0] = 0.5;
      const m = b.finalize();
      const s = sim(m);
      let tilt = 0;
      for (let i = 0; i < 500; i++) {
        s.step();
        tilt = Math.max(tilt, ...coords(m, s).ang.map(Math.abs));
      }
      const c = coords(m, s);
      expect(tilt).toBeLessThan(1e-12);
      expect(c.p[0]).toBeCloseTo(0.1, 12);
      expect(c.p[1]).toBeCloseTo(0.5, 9); // 1 s at 0.5 m/s
      if (free.length === 3) expect(c.p[2]).toBeCloseTo(-9.81 / 2, 1);
      else expect(Math.abs(c.p[2])).toBeLessThan(1e-12);
    }
  });

  it('mixed limited: a universal joint whose rotX is limited to ±10° stops there; rotY swings free', async () => {
    const { b } = await usd(
      d6Stage({ free: ['rotX', 'rotY'], limits: { rotX: [-10, 10] }, com: [0.2, 0.3, 0] }),
    );
    const j = b.joints[b.findJoint('d6/rotX')];
    expect(j.dof.limit_lower).toBeCloseTo(-10 * DEG, 14);
    expect(j.dof.limit_upper).toBeCloseTo(10 * DEG, 14);
    expect(b.joints[b.findJoint('d6/rotY')].dof.limit_upper).toBe(Infinity);
    const m = b.finalize();
    const s = sim(m);
    let worstX = 0,
      rangeY = 0;
    for (let i = 0; i < 1500; i++) {
      s.step();
      worstX = Math.max(worstX, Math.abs(jq(m, s, 'd6/rotX')));
      rangeY = Math.max(rangeY, Math.abs(jq(m, s, 'd6/rotY')));
    }
    // the COM at +y falls: rotX runs to its lower limit (SAP's limit is compliant: a little past it)
    expect(worstX).toBeGreaterThan(9.9 * DEG);
    expect(worstX).toBeLessThan(10.5 * DEG);
    expect(jq(m, s, 'd6/rotX')).toBeCloseTo(-10 * DEG, 2);
    expect(rangeY).toBeGreaterThan(30 * DEG);
  });

  it('ball with translations and all-free between two bodies: chains to a ball; the child moves as a free body; no parent–child contact', async () => {
    const text = `#usda 1.0
(
    upAxis = "Z"
    metersPerUnit = 1
)
def Xform "base" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) {
    float physics:mass = 1
    def Cube "c" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) { double size = 1 }
}
def PhysicsFixedJoint "root" { rel physics:body1 = </base> }
def Xform "bob" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) {
    float physics:mass = 1
    float3 physics:diagonalInertia = (0.01, 0.02, 0.03)
    def Cube "c" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) { double size = 1 }
}
def Xform "twin" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) {
    float physics:mass = 1
    float3 physics:diagonalInertia = (0.01, 0.02, 0.03)
    double3 xformOp:translate = (5, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def PhysicsJoint "d6" ( prepend apiSchemas = ["PhysicsLimitAPI:transX"] ) {
    rel physics:body0 = </base>
    rel physics:body1 = </bob>
}
`;
    const { b } = await usd(text);
    expect(typesOf(b).filter((t) => t.startsWith('d6'))).toEqual([
      'd6/transX:prismatic',
      'd6/transY:prismatic',
      'd6/transZ:prismatic',
      'd6/rot:ball',
    ]);
    // the same initial motion on the chained bob and on a free twin
    const tw = b.findJoint('twin_free');
    expect(tw).toBeGreaterThanOrEqual(0);
    b.jointQd(b.findJoint('d6/transY'))[0] = 0.3;
    b.jointQd(tw).splice(0, 6, 0, 0.3, 0, 0, 0, 0);
    const m = b.finalize();
    const f = makePairFilter(m);
    const shape = (body: string) => m.shape_body.indexOf(m.body_label.indexOf(body));
    expect(pairAllowed(f, shape('base'), shape('bob'))).toBe(false);
    const s = sim(m);
    expect(minPivot(m, s.state.joint_q)).toBeGreaterThan(1e-3);
    for (let i = 0; i < 300; i++) s.step();
    const pb = s.state.body_q.subarray(7 * m.body_label.indexOf('bob'), 7 * m.body_label.indexOf('bob') + 3);
    const pt = s.state.body_q.subarray(
      7 * m.body_label.indexOf('twin'),
      7 * m.body_label.indexOf('twin') + 3,
    );
    expect(Math.abs(pb[0] - (pt[0] - 5))).toBeLessThan(1e-9);
    expect(Math.abs(pb[1] - pt[1])).toBeLessThan(1e-9);
    expect(Math.abs(pb[2] - pt[2])).toBeLessThan(1e-9);
    expect(pb[1]).toBeCloseTo(0.18, 9);
  });

  it('a drive on a D6 rotation (degrees, gains per degree) holds its target against gravity like a revolute drive', async () => {
    const { b } = await usd(
      d6Stage({
        free: ['rotX', 'rotY'],
        drives: ['rotX'],
        com: [0, 0, -0.5],
        extra: [
          '    float drive:rotX:physics:stiffness = 10',
          '    float drive:rotX:physics:damping = 1',
          '    float drive:rotX:physics:targetPosition = 30',
          '    float drive:rotX:physics:maxForce = 1000',
        ].join('\n'),
      }),
    );
    const dof = b.joints[b.findJoint('d6/rotX')].dof;
    expect(dof.target_ke).toBeCloseTo(10 / DEG, 9);
    expect(dof.target_kd).toBeCloseTo(1 / DEG, 9);
    expect(dof.target_pos).toBeCloseTo(30 * DEG, 12);
    expect(dof.effort_limit).toBe(1000);
    const m = b.finalize();
    const s = sim(m);
    s.control.joint_target_pos.set(m.joint_target_pos);
    for (let i = 0; i < 2000; i++) s.step();
    // static balance: k (θ* − θ) = m g L sin θ with k = 10/° [N·m/rad], L = 0.5 m
    const th = jq(m, s, 'd6/rotX');
    const k = 10 / DEG;
    expect(k * (30 * DEG - th)).toBeCloseTo(9.81 * 0.5 * Math.sin(th), 4);
    expect(Math.abs(jq(m, s, 'd6/rotY'))).toBeLessThan(1e-9);
  });
});

describe('UsdPhysics D6 joints on an asset: the Newton humanoid and its MJCF twin', () => {
  it('has the MJCF model: the same 27 DOFs in the same order (D6 waist, hips, ankles, shoulders as hinge chains), limits in degrees, M(q0) equal', async () => {
    const dir = path.join(SAP_ASSETS, 'newton/newton/examples/assets');
    const bu = new ModelBuilder();
    const ru = await importUsd(bu, path.join(dir, 'humanoid.usda'), fsResolver());
    expect(ru.unsupported).toEqual([]);
    const bm = new ModelBuilder();
    const file = path.join(dir, 'nv_humanoid.xml');
    await importMjcf(
      bm,
      { text: readFileSync(file, 'utf8'), path: file },
      { resolver: new MemoryResolver({}) },
    );
    const mu = bu.finalize(),
      mm = bm.finalize();
    // the hips: apiSchemas rotX, rotZ, rotY = MJCF's right_hip_x, right_hip_z, right_hip_y
    const dofs = (m: SapModel) =>
      m.joint_label.filter((_, j) => m.joint_qd_start[j + 1] - m.joint_qd_start[j] > 0);
    expect(dofs(mu).slice(10, 18)).toEqual([
      'right_thigh/rotX',
      'left_thigh/rotX',
      'right_thigh/rotZ',
      'left_thigh/rotZ',
      'right_thigh/rotY',
      'left_thigh/rotY',
      'right_knee',
      'left_knee',
    ]);
    expect(dofs(mm).slice(10, 18)).toEqual([
      'right_hip_x',
      'left_hip_x',
      'right_hip_z',
      'left_hip_z',
      'right_hip_y',
      'left_hip_y',
      'right_knee',
      'left_knee',
    ]);
    expect(mu.joint_dof_count).toBe(27);
    expect(mm.joint_dof_count).toBe(27);
    const d = mu.joint_qd_start[mu.joint_label.indexOf('right_thigh/rotY')];
    expect(mu.joint_limit_lower[d]).toBeCloseTo(-120 * DEG, 6);
    expect(mu.joint_limit_upper[d]).toBeCloseTo(45 * DEG, 6);
    // the joint-space inertia at the authored pose (a wrong joint order or frame moves its entries by
    // far more than round-off), armature aside (the USD authors none); the axes'
    // signs may differ between the files, so entries are compared in magnitude
    const M = (m: SapModel) => {
      const kd = makeKinematicsData(m);
      forwardKinematics(m, Float64Array.from(m.joint_q0), kd);
      const out = new Float64Array(27 * 27);
      crbaTree(m, kd, 0, makeCompositeScratch(m), out);
      for (let i = 0; i < 27; i++) out[i * 27 + i] -= m.joint_armature[i];
      return out;
    };
    const Mu = M(mu),
      Mm = M(mm);
    let worst = 0,
      scale = 0;
    for (let i = 0; i < Mu.length; i++) {
      worst = Math.max(worst, Math.abs(Math.abs(Mu[i]) - Math.abs(Mm[i])));
      scale = Math.max(scale, Math.abs(Mm[i]));
    }
    expect(scale).toBeGreaterThan(40);
    // (the converter wrote masses, inertias and frames as float32: 7.7e-6 of the largest entry)
    expect(worst / scale).toBeLessThan(2e-5);
    expect(minPivot(mu, Float64Array.from(mu.joint_q0))).toBeGreaterThan(1e-4);
  });
});

describe('chainCoordinates', () => {
  it('inverts the rotation sequences (xyz, zxy, xzy, two axes) and the translations', () => {
    const step = (type: 'prismatic' | 'revolute', i: number) => ({
      type,
      axis: {
        name: AXES[(type === 'revolute' ? 3 : 0) + i],
        angular: type === 'revolute',
        index: i as 0 | 1 | 2,
        lower: 0,
        upper: 0,
        driven: false,
      },
    });
    for (const seq of [
      [0, 1, 2],
      [2, 0, 1],
      [0, 2, 1],
      [1, 0],
    ]) {
      const angles = [0.3, -0.7, 1.1].slice(0, seq.length);
      let R = mat4Mul(mat4RotateAxis(0, 0), mat4RotateAxis(0, 0));
      seq.forEach((ax, k) => (R = mat4Mul(R, mat4RotateAxis(ax, angles[k] / DEG))));
      R[3] = 0.5;
      R[11] = -0.25;
      const steps = [step('prismatic', 0), step('prismatic', 2), ...seq.map((ax) => step('revolute', ax))];
      const q = chainCoordinates(steps, R);
      expect(q[0]).toBeCloseTo(0.5, 14);
      expect(q[1]).toBeCloseTo(-0.25, 14);
      angles.forEach((a, k) => expect(q[2 + k]).toBeCloseTo(a, 12));
    }
  });
});
