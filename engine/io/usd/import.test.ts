/**
 * Acceptance tests of the USD importer on real assets (read in place from ../shared):
 * MANIFEST.md's USD models load and simulate, the USD scenes of SAP Warp (INDEX.md) load with the
 * expected counts, the closed four-bar keeps its loop closed, and the same robot agrees across formats.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { forwardKinematics, makeKinematicsData } from '../../kinematics';
import { crbaTree, makeCompositeScratch } from '../../dynamics';
import { makeRng } from '../../math';
import { JOINT_TYPE_NAMES, ModelBuilder, SHAPE_TYPE_NAMES, type SapModel } from '../../model';
import { Simulation } from '../../pipeline';
import type { ImportOptions, ImportResult, ImportSource } from '../assets/importer';
import { UsdError } from './errors';
import { importUsd, importUsdAsset, type UsdImportOptions, type UsdImportResult } from './physics';
import { ASSETS, SAP_ASSETS, USD_MODELS, fsResolver, memResolver } from './testing';

const DRAKE = { contact_preset_variant: 'drake' };

async function load(
  file: string,
  opts: UsdImportOptions = {},
): Promise<{ b: ModelBuilder; r: UsdImportResult }> {
  const b = new ModelBuilder();
  const r = await importUsd(b, file, fsResolver(), { load_visual_shapes: false, ...opts });
  return { b, r };
}

/** counts of joint types and collider/visual shape types of an import */
function census(b: ModelBuilder, r: ImportResult) {
  const joints: Record<string, number> = {};
  for (const j of r.joints) {
    const n = JOINT_TYPE_NAMES[b.joints[j].type];
    joints[n] = (joints[n] ?? 0) + 1;
  }
  const colliders: Record<string, number> = {};
  const visuals: Record<string, number> = {};
  for (const s of r.shapes) {
    const sh = b.shapes[s];
    const into = sh.cfg.has_shape_collision ? colliders : visuals;
    const n = SHAPE_TYPE_NAMES[sh.type];
    into[n] = (into[n] ?? 0) + 1;
  }
  return { bodies: r.bodies.length, joints, colliders, visuals, equalities: r.equalities.length };
}

/** steps the model; returns whether every state stayed finite */
function simulate(model: SapModel, dt: number, seconds: number, each?: (sim: Simulation) => void): boolean {
  const sim = new Simulation(model, { dt, solver: DRAKE, max_rigid_contact: 256 });
  const steps = Math.round(seconds / dt);
  for (let i = 0; i < steps; i++) {
    sim.step();
    const s = sim.state;
    if (
      !s.joint_q.every(Number.isFinite) ||
      !s.joint_qd.every(Number.isFinite) ||
      !s.body_q.every(Number.isFinite)
    ) {
      return false;
    }
    each?.(sim);
  }
  return true;
}

function totalMass(m: SapModel, exclude: (label: string) => boolean = () => false): number {
  let t = 0;
  for (let i = 0; i < m.body_count; i++) if (!exclude(m.body_label[i])) t += m.body_mass[i];
  return t;
}

function massMatrix(m: SapModel, q: Float64Array): Float64Array {
  const d = makeKinematicsData(m);
  forwardKinematics(m, q, d);
  const out = new Float64Array(m.joint_dof_count ** 2);
  crbaTree(m, d, 0, makeCompositeScratch(m), out);
  return out;
}

function relFrobenius(a: Float64Array, b: Float64Array): number {
  let num = 0,
    den = 0;
  for (let i = 0; i < a.length; i++) {
    num += (a[i] - b[i]) ** 2;
    den += b[i] ** 2;
  }
  return Math.sqrt(num / den);
}

// ---------------------------------------------------------------------------------------------------

/** MANIFEST.md, "USD" table: bodies, joints (USD joint prims; our added root joints in `root`), colliders */
const MANIFEST_TABLE: {
  id: keyof typeof USD_MODELS;
  bodies: number;
  joints: Record<string, number>;
  colliders: Record<string, number>;
  equalities?: number;
  xform?: number[];
}[] = [
  { id: 'S1', bodies: 4, joints: { fixed: 1, prismatic: 1, revolute: 2 }, colliders: { box: 4 } },
  { id: 'S2', bodies: 9, joints: { free: 1, revolute: 8 }, colliders: { capsule: 12, sphere: 1 } },
  // four revolute joints in a loop: three in the tree, one closing equality; the base floats
  { id: 'S3', bodies: 4, joints: { free: 1, revolute: 3 }, colliders: { box: 5 }, equalities: 1 },
  {
    id: 'S4',
    bodies: 24,
    joints: { free: 1, revolute: 23 },
    colliders: { box: 3, cylinder: 8, sphere: 1 },
    xform: [0, 0, 0.05, 0, 0, 0, 1],
  },
  {
    id: 'S5',
    bodies: 17,
    joints: { free: 1, revolute: 12, fixed: 4 },
    colliders: { cylinder: 8, sphere: 4, box: 4, capsule: 1 },
    xform: [0, 0, 0.67, 0, 0, 0, 1],
  },
  { id: 'S6', bodies: 0, joints: {}, colliders: {} },
  { id: 'S7', bodies: 0, joints: {}, colliders: {} },
];

describe('MANIFEST USD models load and simulate 2 s (drake preset)', () => {
  for (const row of MANIFEST_TABLE) {
    it(`${row.id} ${USD_MODELS[row.id]}`, async () => {
      const { b, r } = await load(path.join(ASSETS, USD_MODELS[row.id]), { xform: row.xform });
      const c = census(b, r);
      expect(c.bodies).toBe(row.bodies);
      expect(c.joints).toEqual(row.joints);
      expect(c.colliders).toEqual(row.colliders);
      expect(c.equalities).toBe(row.equalities ?? 0);
      if (r.gravity) b.gravity = [...r.gravity];
      b.addGround();
      expect(simulate(b.finalize(), 0.005, 2)).toBe(true);
    });
  }

  it('S6 / S7 bring their render meshes as visual shapes', async () => {
    const s6 = await load(path.join(ASSETS, USD_MODELS.S6), { load_visual_shapes: true });
    expect(census(s6.b, s6.r).visuals).toEqual({ mesh: 12 });
    expect(s6.r.stage.upAxis).toBe('Y');
    const s7 = await load(path.join(ASSETS, USD_MODELS.S7), { load_visual_shapes: true });
    expect(census(s7.b, s7.r).visuals).toEqual({ mesh: 1 });
    // a ±1 cube under a ×100 transform in a centimetre (default) stage: 2 m wide
    const mesh = s7.b.meshes[s7.b.shapes[s7.r.shapes[0]].mesh];
    const xs = Array.from(mesh.vertices.filter((_, i) => i % 3 === 0));
    expect(Math.max(...xs) - Math.min(...xs)).toBeCloseTo(2, 9);
  });
});

// ---------------------------------------------------------------------------------------------------

/** the STL substitutes for the missing G1 GeometryLibrary.usdc (INDEX.md §5), read fast */
function g1Fallback(): UsdImportOptions['mesh_fallback'] {
  const subs = JSON.parse(readFileSync(path.join(SAP_ASSETS, 'geometry_library_substitutes.json'), 'utf8'));
  const lib = subs['newton-assets/unitree_g1/usd_structured/Payload/GeometryLibrary.usdc'].meshes as Record<
    string,
    { local: string }
  >;
  const cache = new Map<string, { vertices: Float32Array; triangles: Int32Array }>();
  return (req) => {
    const ref = req.references.find((x) => x.assetPath.endsWith('GeometryLibrary.usdc'));
    const entry = ref && lib[ref.primPath.slice(ref.primPath.lastIndexOf('/') + 1)];
    if (!entry) return null;
    let m = cache.get(entry.local);
    if (!m) {
      // binary STL: 80-byte header, count, 50 bytes per triangle
      const b = readFileSync(path.join(SAP_ASSETS, entry.local));
      const n = b.readUInt32LE(80);
      const vertices = new Float32Array(n * 9);
      for (let t = 0; t < n; t++)
        for (let k = 0; k < 9; k++) vertices[t * 9 + k] = b.readFloatLE(84 + t * 50 + 12 + k * 4);
      m = { vertices, triangles: Int32Array.from({ length: n * 3 }, (_, i) => i) };
      cache.set(entry.local, m);
    }
    return m;
  };
}

/**
 * The USD scenes of SAP Warp (INDEX.md §3), loaded offline with the scene files' asset options.
 * Body and joint counts: MANIFEST.md (S2 ant, S5 ANYmal D) and the files' PhysicsRigidBodyAPI /
 * Physics*Joint prims (G1, H1, UR10; INDEX.md lists their collider prims). INDEX.md's sphere counts
 * for G1 (12) and H1 (6) include the MjcSiteAPI marker spheres (4 and 1: imu and foot sites), which
 * are not colliders. UR10's `rootJoint` is a generic PhysicsJoint without limits or drives, read as a
 * fixed base (the scene's post_build indexes joint_q[0] as the shoulder pan).
 */
const SAP_SCENES: {
  scene: string;
  entry: string;
  opts: UsdImportOptions;
  bodies: number;
  joints: Record<string, number>;
  colliders: Record<string, number>;
}[] = [
  {
    scene: 'anymal_d_usd',
    entry: 'newton-assets/anybotics_anymal_d/usd/anymal_d.usda',
    opts: { enable_self_collisions: false, hide_collision_shapes: true },
    bodies: 17,
    joints: { free: 1, revolute: 12, fixed: 4 },
    colliders: { cylinder: 8, sphere: 4, box: 4, capsule: 1 },
  },
  {
    scene: 'basic_ant_usd',
    entry: 'newton/newton/examples/assets/ant.usda',
    opts: { enable_self_collisions: false, hide_collision_shapes: true, xform: [0, 0, 0, 0, 0, 0, 1] },
    bodies: 9,
    joints: { free: 1, revolute: 8 },
    colliders: { capsule: 12, sphere: 1 },
  },
  {
    scene: 'unitree_g1_usd',
    entry: 'newton-assets/unitree_g1/usd_structured/g1_29dof_with_hand_rev_1_0.usda',
    opts: {
      enable_self_collisions: false,
      hide_collision_shapes: true,
      skip_mesh_approximation: true,
      xform: [0, 0, 0.2, 0, 0, 0, 1],
    },
    bodies: 44,
    joints: { free: 1, revolute: 43 },
    colliders: { mesh: 37, sphere: 8, cylinder: 4, box: 2 },
  },
  {
    scene: 'unitree_h1_usd',
    entry: 'newton-assets/unitree_h1/usd_structured/h1.usda',
    opts: { ignore_paths: ['/GroundPlane'], enable_self_collisions: false, hide_collision_shapes: true },
    bodies: 20,
    joints: { free: 1, revolute: 19 },
    colliders: { capsule: 20, cylinder: 6, sphere: 5, box: 1 },
  },
  {
    scene: 'universal_ur10_usd',
    entry: 'newton-assets/universal_robots_ur10/usd/ur10_instanceable.usda',
    opts: { enable_self_collisions: false, hide_collision_shapes: true },
    bodies: 8,
    joints: { fixed: 2, revolute: 6 },
    colliders: { cylinder: 14 },
  },
];

describe('SAP Warp USD scenes load offline with the expected counts', () => {
  for (const row of SAP_SCENES) {
    it(row.scene, async () => {
      const opts: UsdImportOptions = { ...row.opts, label_prefix: row.scene };
      if (row.scene === 'unitree_g1_usd') opts.mesh_fallback = g1Fallback();
      const { b, r } = await load(path.join(SAP_ASSETS, row.entry), opts);
      const c = census(b, r);
      expect(c.bodies).toBe(row.bodies);
      expect(c.joints).toEqual(row.joints);
      expect(c.colliders).toEqual(row.colliders);
      expect(b.bodies.every((x) => x.label.startsWith(`${row.scene}/`))).toBe(true);
      // colliders are hidden, and self-collisions are filtered
      expect(r.shapes.every((s) => !b.shapes[s].cfg.is_visible)).toBe(true);
      expect(b.filterPairs.length).toBeGreaterThan(0);
      b.finalize();
    });
  }

  it('the ANYmal scene simulates from its post-build pose', async () => {
    const { b, r } = await load(path.join(SAP_ASSETS, SAP_SCENES[0].entry), SAP_SCENES[0].opts);
    const free = r.joints.find((j) => JOINT_TYPE_NAMES[b.joints[j].type] === 'free')!;
    b.jointQ(free).splice(0, 7, 0, 0, 0.67, 0, 0, 0, 1);
    b.addGround();
    expect(simulate(b.finalize(), 0.005, 1)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('the closed four-bar (S3)', () => {
  it('keeps its loop closed within 1 mm for 2 s', async () => {
    const { b, r } = await load(path.join(ASSETS, USD_MODELS.S3));
    expect(r.equalities).toHaveLength(1);
    const eq = b.equalities[r.equalities[0]];
    expect(eq.type).toBe('ball');
    // a breadth-first spanning tree from body_1: joints 1, 4 and 2 are tree joints, joint_3 closes the loop
    expect(eq.label).toBe('joint_3');
    expect(r.joints.map((j) => b.joints[j].label).sort()).toEqual([
      'body_1_free',
      'joint_1',
      'joint_2',
      'joint_4',
    ]);
    // the collision group filters the four links against each other
    expect(b.filterPairs).toHaveLength(6);
    if (r.gravity) b.gravity = [...r.gravity];
    // the upright parallelogram is balanced; shear it with an initial joint rate
    b.jointQd(b.findJoint('joint_1'))[0] = 2;
    const m = b.finalize();
    const E = 0;
    const b0 = m.eq_body0[E],
      b1 = m.eq_body1[E];
    const world = (state: Float64Array, body: number, a: ArrayLike<number>): number[] => {
      const [px, py, pz, x, y, z, w] = Array.from(state.subarray(body * 7, body * 7 + 7));
      const [ax, ay, az] = [a[0], a[1], a[2]];
      // rotate a by (x, y, z, w)
      const tx = 2 * (y * az - z * ay),
        ty = 2 * (z * ax - x * az),
        tz = 2 * (x * ay - y * ax);
      return [
        px + ax + w * tx + (y * tz - z * ty),
        py + ay + w * ty + (z * tx - x * tz),
        pz + az + w * tz + (x * ty - y * tx),
      ];
    };
    let worst = 0;
    let moved = 0;
    const start: number[] = [];
    const ok = simulate(m, 0.002, 2, (sim) => {
      const q = sim.state.body_q;
      const p0 = world(q, b0, m.eq_anchor0.subarray(0, 3));
      const p1 = world(q, b1, m.eq_anchor1.subarray(0, 3));
      worst = Math.max(worst, Math.hypot(p0[0] - p1[0], p0[1] - p1[1], p0[2] - p1[2]));
      if (!start.length) start.push(...q);
      for (let i = 0; i < q.length; i++) moved = Math.max(moved, Math.abs(q[i] - start[i]));
    });
    expect(ok).toBe(true);
    expect(worst).toBeLessThan(1e-3);
    expect(moved).toBeGreaterThan(0.01); // the linkage did move
  });
});

// ---------------------------------------------------------------------------------------------------

type TwoFormatImporter = (b: ModelBuilder, s: ImportSource, o?: ImportOptions) => Promise<ImportResult>;

async function optionalImporter(mod: 'mjcf' | 'urdf'): Promise<TwoFormatImporter | undefined> {
  try {
    const m = (await import(/* @vite-ignore */ `../${mod}/index.ts`)) as Record<string, unknown>;
    const f = m[mod === 'mjcf' ? 'importMjcf' : 'importUrdf'];
    return typeof f === 'function' ? (f as TwoFormatImporter) : undefined;
  } catch {
    return undefined;
  }
}

const mjcf = await optionalImporter('mjcf');
const urdf = await optionalImporter('urdf');

describe('the same robot in two formats', () => {
  /**
   * Booster T1: MJCF (menagerie t1.xml) vs USD (S4, converted from that file by mujoco-usd-converter).
   * Differences that come from the files themselves:
   * - the shoulder-pitch body frames: MJCF quat (1, 0, 0.000440565, 0), USD localRot0/orient
   *   (0.9999999, 0, 0.00048828122, 0) — the converter quantised the rotation (≈ 0.003°). The test copies
   *   the USD rotation into the MJCF model before comparing mass matrices;
   * - USD stores masses, inertias and frames as 32-bit floats (relative error ≈ 1e-7);
   * - the USD joint prim `Waist_1` is MJCF's joint `Waist` (renamed next to the body `Waist`).
   */
  it.skipIf(!mjcf)('Booster T1: MJCF vs USD', async () => {
    const { b: bu, r: ru } = await load(path.join(ASSETS, USD_MODELS.S4));
    const bm = new ModelBuilder();
    const rm = await mjcf!(
      bm,
      { path: path.join(ASSETS, 'mujoco_menagerie/booster_t1/t1.xml') },
      { resolver: fsResolver(), load_visual_shapes: false },
    );
    expect(ru.bodies.length).toBe(rm.bodies.length);
    const jname = (b: ModelBuilder, j: number) =>
      b.joints[j].label === 'Waist_1' ? 'Waist' : b.joints[j].label;
    for (const ju of ru.joints) {
      const ju_ = bu.joints[ju];
      if (ju_.type !== 2) continue;
      const jm = bm.findJoint(jname(bu, ju));
      expect(jm).toBeGreaterThanOrEqual(0);
      const m_ = bm.joints[jm];
      expect(JOINT_TYPE_NAMES[m_.type]).toBe('revolute');
      for (let k = 0; k < 3; k++) expect(ju_.axis[k]).toBeCloseTo(m_.axis[k], 12);
      expect(ju_.dof.limit_lower).toBeCloseTo(m_.dof.limit_lower, 5);
      expect(ju_.dof.limit_upper).toBeCloseTo(m_.dof.limit_upper, 5);
      expect(ju_.dof.armature).toBeCloseTo(m_.dof.armature, 12);
      expect(ju_.dof.friction).toBeCloseTo(m_.dof.friction, 12);
      expect(ju_.dof.effort_limit).toBe(m_.dof.effort_limit);
      expect(ju_.dof.target_ke).toBeCloseTo(m_.dof.target_ke, 12);
      expect(ju_.dof.target_kd).toBeCloseTo(m_.dof.target_kd, 12);
    }
    for (const name of ['Left_Shoulder_Pitch', 'Right_Shoulder_Pitch']) {
      const ju = bu.joints[bu.findJoint(name)],
        jm = bm.joints[bm.findJoint(name)];
      expect(Math.abs(ju.X_p[4] - jm.X_p[4])).toBeLessThan(1e-4); // the listed difference
      for (let k = 3; k < 7; k++) jm.X_p[k] = ju.X_p[k];
    }
    const mu = bu.finalize(),
      mm = bm.finalize();
    expect(mu.body_label).toEqual(mm.body_label);
    expect(Math.abs(totalMass(mu) - totalMass(mm)) / totalMass(mm)).toBeLessThan(1e-6);
    const rng = makeRng(11);
    for (let t = 0; t < 4; t++) {
      const q = Float64Array.from(mu.joint_q0);
      q[0] = rng() - 0.5;
      q[1] = rng() - 0.5;
      q[2] = rng();
      const qq = [rng() - 0.5, rng() - 0.5, rng() - 0.5, rng() - 0.5];
      const n = Math.hypot(...qq);
      for (let k = 0; k < 4; k++) q[3 + k] = qq[k] / n;
      for (let k = 7; k < q.length; k++) q[k] = 2 * (rng() - 0.5);
      expect(relFrobenius(massMatrix(mu, q), massMatrix(mm, q))).toBeLessThan(1e-6);
    }
  });

  /**
   * Cartpole: URDF (U4) vs USD (S1). The same: link masses (the rail's from its box at 1000 kg/m³ in
   * both), joint types (URDF continuous = revolute without limits), axes and limits, and the
   * prismatic DOF's inertia (total moving mass). Differences in the files: the hinge offset on the
   * cart (URDF 0.12 m, USD 0.55 × cart scale 0.2 = 0.11 m), the pole frames (URDF poles start at the
   * joint, COM 0.47 m up; USD poles are centred 0.5 m from their joints), the inertias (URDF 0.1 kg·m²
   * on every axis; USD diagonalInertia) and URDF's effort/velocity limits (USD has none). The test
   * copies those USD values into the URDF model before comparing mass matrices.
   */
  it.skipIf(!urdf)('cartpole: URDF vs USD', async () => {
    const { b: bu, r: ru } = await load(path.join(ASSETS, USD_MODELS.S1));
    const bm = new ModelBuilder();
    const rm = await urdf!(
      bm,
      { path: path.join(ASSETS, 'newton/cartpole/cartpole.urdf') },
      { resolver: fsResolver(), load_visual_shapes: false },
    );
    expect(ru.bodies.length).toBe(rm.bodies.length);
    const pairs: [string, string][] = [
      ['rootJoint', ''],
      ['railCartJoint', 'slider_to_cart'],
      ['cartPoleJoint', 'cart_to_pole1'],
      ['polePoleJoint', 'pole1_to_pole2'],
    ];
    for (const [u, m] of pairs) {
      if (!m) continue;
      const ju = bu.joints[bu.findJoint(u)],
        jm = bm.joints[bm.findJoint(m)];
      expect(ju.type).toBe(jm.type);
      expect(ju.axis).toEqual(jm.axis);
      expect(ju.dof.limit_lower).toBe(jm.dof.limit_lower);
      expect(ju.dof.limit_upper).toBe(jm.dof.limit_upper);
    }
    let mu0 = bu.finalize(),
      mm0 = bm.finalize();
    expect(Math.abs(totalMass(mu0) - totalMass(mm0)) / totalMass(mm0)).toBeLessThan(1e-6);
    const q0 = new Float64Array(mu0.joint_coord_count);
    expect(massMatrix(mu0, q0)[0]).toBeCloseTo(massMatrix(mm0, q0)[0], 12); // the moving mass, 1.5 kg
    expect(massMatrix(mu0, q0)[0]).toBeCloseTo(1.5, 6);
    // copy the listed differences into the URDF model, then the full mass matrices agree
    const linkOf: Record<string, string> = { cart: 'cart', pole1: 'pole1', pole2: 'pole2' };
    for (const [u, m] of Object.entries(linkOf)) {
      const bu_ = bu.bodies[bu.findBody(u)],
        bm_ = bm.bodies[bm.findBody(m)];
      bm_.inertia = bu_.inertia ? [...bu_.inertia] : undefined;
      bm_.com = bu_.com ? [...bu_.com] : [0, 0, 0];
    }
    for (const [u, m] of pairs.slice(2)) {
      const ju = bu.joints[bu.findJoint(u)],
        jm = bm.joints[bm.findJoint(m)];
      jm.X_p.splice(0, 7, ...ju.X_p);
      jm.X_c.splice(0, 7, ...ju.X_c);
    }
    mu0 = bu.finalize();
    mm0 = bm.finalize();
    const rng = makeRng(5);
    for (let t = 0; t < 4; t++) {
      const q = Float64Array.from({ length: mu0.joint_coord_count }, () => 2 * (rng() - 0.5));
      expect(relFrobenius(massMatrix(mu0, q), massMatrix(mm0, q))).toBeLessThan(1e-6);
    }
  });
});

// ---------------------------------------------------------------------------------------------------

describe('UsdPhysics mapping details', () => {
  const stage = (body: string) => `#usda 1.0
(
    upAxis = "Z"
    metersPerUnit = 1
)
${body}
`;

  it('maps drives (per degree), MuJoCo/PhysX aliases, materials and groups', async () => {
    const text = stage(`
def Material "Steel" ( prepend apiSchemas = ["PhysicsMaterialAPI"] ) {
    float physics:dynamicFriction = 0.3
    float physics:staticFriction = 0.6
    float physics:restitution = 0.5
}
def Xform "R" ( prepend apiSchemas = ["PhysicsArticulationRootAPI"] ) {
    def Xform "a" ( prepend apiSchemas = ["PhysicsRigidBodyAPI"] ) {
        bool physxRigidBody:disableGravity = 1
        def Sphere "s" ( prepend apiSchemas = ["PhysicsCollisionAPI", "MaterialBindingAPI"] ) {
            double radius = 0.1
            rel material:binding:physics = </Steel>
        }
    }
    def Xform "b" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) {
        float physics:mass = 2
        float mjc:gravcomp = 0.5
        double3 xformOp:translate = (0, 0, 1)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Cube "c" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) { double size = 0.2 }
    }
    def PhysicsRevoluteJoint "hinge" ( prepend apiSchemas = ["PhysicsDriveAPI:angular"] ) {
        rel physics:body0 = </R/a>
        rel physics:body1 = </R/b>
        uniform token physics:axis = "Y"
        point3f physics:localPos0 = (0, 0, 1)
        float physics:lowerLimit = -90
        float physics:upperLimit = 45
        float drive:angular:physics:stiffness = 2
        float drive:angular:physics:damping = 0.5
        float drive:angular:physics:targetPosition = 30
        float drive:angular:physics:maxForce = 12
        float physxJoint:armature = 0.25
        float mjc:frictionloss = 0.125
        float physxJoint:maxJointVelocity = 180
    }
}
`);
    const b = new ModelBuilder();
    const r = await importUsd(b, 'x.usda', memResolver({ 'x.usda': text }), { label_prefix: 'robot' });
    const j = b.joints[b.findJoint('robot/hinge')];
    expect(j.dof.limit_lower).toBeCloseTo(-Math.PI / 2, 12);
    expect(j.dof.limit_upper).toBeCloseTo(Math.PI / 4, 12);
    expect(j.dof.target_ke).toBeCloseTo((2 * 180) / Math.PI, 12);
    expect(j.dof.target_kd).toBeCloseTo((0.5 * 180) / Math.PI, 12);
    expect(j.dof.target_pos).toBeCloseTo(Math.PI / 6, 12);
    expect(j.dof.effort_limit).toBe(12);
    expect(j.dof.armature).toBe(0.25);
    expect(j.dof.friction).toBe(0.125);
    expect(j.dof.velocity_limit).toBeCloseTo(Math.PI, 12);
    const sphere = b.shapes[b.findBody('robot/a') >= 0 ? r.shapes[0] : -1];
    expect(sphere.cfg.mu).toBe(0.3);
    expect(r.unsupported.some((u) => u.includes('restitution'))).toBe(true);
    // the root floats: one free joint for the articulation root body
    expect(b.joints.filter((x) => x.type === 1)).toHaveLength(1);
    expect(b.bodies[b.findBody('robot/b')].mass).toBe(2);
    // gravity compensation: PhysX's disableGravity in full, MuJoCo's mjc:gravcomp as given
    expect(b.bodies[b.findBody('robot/a')].gravcomp).toBe(1);
    expect(b.bodies[b.findBody('robot/b')].gravcomp).toBe(0.5);
  });

  it('joint friction on a spherical joint is named as not simulated, not stored', async () => {
    const text = stage(`
def Xform "R" ( prepend apiSchemas = ["PhysicsArticulationRootAPI"] ) {
    def Xform "a" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) { float physics:mass = 1 }
    def Xform "b" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) { float physics:mass = 1 }
    def PhysicsFixedJoint "root" { rel physics:body1 = </R/a> }
    def PhysicsSphericalJoint "shoulder" {
        rel physics:body0 = </R/a>
        rel physics:body1 = </R/b>
        float physxJoint:jointFriction = 0.3
    }
}
`);
    const b = new ModelBuilder();
    const r = await importUsd(b, 'x.usda', memResolver({ 'x.usda': text }));
    const j = b.joints[b.findJoint('shoulder')];
    expect(JOINT_TYPE_NAMES[j.type]).toBe('ball');
    expect(j.dof.friction).toBe(0);
    expect(r.unsupported.join('\n')).toMatch(
      /<\/R\/shoulder> physxJoint:jointFriction 0\.3 on a spherical joint is not simulated/,
    );
  });

  it('turns generic D6 joints into fixed/revolute/ball/prismatic joints by their locked DOFs (unlisted axes are free)', async () => {
    const d6 = (name: string, apis: string, attrs: string) => `
    def PhysicsJoint "${name}" ( prepend apiSchemas = [${apis}] ) {
        rel physics:body0 = </W/base>
        rel physics:body1 = </W/${name}_b>
${attrs}
    }
    def Xform "${name}_b" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) { float physics:mass = 1 }`;
    const lock = (dofs: string[]) =>
      dofs
        .map((d) => `        float limit:${d}:physics:low = 1\n        float limit:${d}:physics:high = -1`)
        .join('\n');
    const text = stage(`
def Xform "W" {
    def Xform "base" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) { float physics:mass = 1 }
    def PhysicsFixedJoint "root" { rel physics:body1 = </W/base> }
${d6('hingeY', '"PhysicsLimitAPI:transX", "PhysicsLimitAPI:transY", "PhysicsLimitAPI:transZ", "PhysicsLimitAPI:rotX", "PhysicsLimitAPI:rotY", "PhysicsLimitAPI:rotZ"', lock(['transX', 'transY', 'transZ', 'rotX', 'rotZ']) + '\n        float limit:rotY:physics:low = -30\n        float limit:rotY:physics:high = 60')}
${d6('slideZ', '"PhysicsLimitAPI:transZ", "PhysicsLimitAPI:transX", "PhysicsLimitAPI:transY", "PhysicsLimitAPI:rotX", "PhysicsLimitAPI:rotY", "PhysicsLimitAPI:rotZ"', '        float limit:transZ:physics:low = -0.5\n        float limit:transZ:physics:high = 0.5\n' + lock(['transX', 'transY', 'rotX', 'rotY', 'rotZ']))}
${d6('ballJ', '"PhysicsLimitAPI:transX", "PhysicsLimitAPI:transY", "PhysicsLimitAPI:transZ", "PhysicsLimitAPI:rotX"', lock(['transX', 'transY', 'transZ']))}
${d6('openZ', '"PhysicsLimitAPI:transZ"', '        float limit:transZ:physics:low = -0.5\n        float limit:transZ:physics:high = 0.5')}
${d6('weld', '', '')}
}
`);
    const b = new ModelBuilder();
    const r = await importUsd(b, 'd6.usda', memResolver({ 'd6.usda': text }));
    const type = (n: string) => JOINT_TYPE_NAMES[b.joints[b.findJoint(n)].type];
    expect(type('root')).toBe('fixed');
    expect(type('hingeY')).toBe('revolute');
    expect(b.joints[b.findJoint('hingeY')].axis).toEqual([0, 1, 0]);
    expect(b.joints[b.findJoint('hingeY')].dof.limit_upper).toBeCloseTo(Math.PI / 3, 12);
    expect(type('slideZ')).toBe('prismatic');
    expect(type('ballJ')).toBe('ball');
    // the schema's default: the axes without a LimitAPI instance are free (three translations, a ball)
    expect(['openZ/transZ', 'openZ/transX', 'openZ/transY', 'openZ/rot'].map(type)).toEqual([
      'prismatic',
      'prismatic',
      'prismatic',
      'ball',
    ]);
    expect(b.joints[b.findJoint('openZ/transZ')].dof.limit_upper).toBe(0.5);
    expect(type('weld')).toBe('fixed');
    expect(r.warnings.some((w) => w.includes('</W/weld>') && w.includes('fixed'))).toBe(true);
  });

  it('closes loops with welds for fixed joints and honours floating / kinematic / ignore_paths', async () => {
    const text = stage(`
def Xform "W" {
    def Xform "a" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) { float physics:mass = 1 }
    def Xform "b" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) {
        float physics:mass = 1
        double3 xformOp:translate = (1, 0, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Xform "k" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) {
        float physics:mass = 1
        bool physics:kinematicEnabled = 1
    }
    def PhysicsRevoluteJoint "ab" { rel physics:body0 = </W/a>
        rel physics:body1 = </W/b>
        point3f physics:localPos0 = (0.5, 0, 0)
        point3f physics:localPos1 = (-0.5, 0, 0) }
    def PhysicsFixedJoint "ba" ( ) { rel physics:body0 = </W/b>
        rel physics:body1 = </W/a>
        point3f physics:localPos0 = (0, 1, 0)
        point3f physics:localPos1 = (1, 1, 0) }
    def Cube "ignored" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) {}
}
`);
    const files = { 'loop.usda': text };
    const b = new ModelBuilder();
    const r = await importUsd(b, 'loop.usda', memResolver(files), {
      floating: false,
      ignore_paths: ['/W/ign'],
    });
    expect(r.equalities).toHaveLength(1);
    const eq = b.equalities[r.equalities[0]];
    expect(eq.type).toBe('weld');
    expect(eq.relpose!.slice(0, 3).map((x) => (Math.abs(x) < 1e-12 ? 0 : x))).toEqual([0, 0, 0]);
    expect(r.shapes).toHaveLength(0); // the ignored cube
    // the root is welded to the world (floating: false); the kinematic body too
    expect(b.joints.filter((x) => x.type === 0 && x.parent === -1)).toHaveLength(2);
    expect(r.unsupported.some((u) => u.includes('kinematic'))).toBe(true);
  });

  it("a floating body's physics:velocity / angularVelocity (parent space, units/s and deg/s) start it moving", async () => {
    // Y-up in centimetres; the body's parent turns +90° about the up axis, so its x is the stage's −z,
    // which is the world's +y after the up-axis turn; its y (up) is the world's z
    const text = `#usda 1.0
(
    upAxis = "Y"
    metersPerUnit = 0.01
)
def Xform "P" {
    float xformOp:rotateY = 90
    uniform token[] xformOpOrder = ["xformOp:rotateY"]
    def Sphere "ball" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"] ) {
        double radius = 5
        float physics:mass = 1
        double3 xformOp:translate = (0, 100, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        vector3f physics:velocity = (150, 0, 0)
        vector3f physics:angularVelocity = (0, 90, 0)
        def Xform "arm" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) {
            float physics:mass = 1
            vector3f physics:velocity = (0, 5, 0)
        }
        def PhysicsRevoluteJoint "hinge" { rel physics:body0 = </P/ball>
            rel physics:body1 = </P/ball/arm>
            uniform token physics:axis = "X" }
    }
}
`;
    const b = new ModelBuilder();
    const r = await importUsd(b, 'v.usda', memResolver({ 'v.usda': text }));
    const root = b.joints[b.findJoint('ball_free')];
    expect(root.qd.map((x) => +x.toFixed(12) + 0)).toEqual([0, 1.5, 0, 0, 0, +(Math.PI / 2).toFixed(12)]);
    expect(r.warnings.filter((w) => w.includes('</P/ball/arm>: initial velocity ignored'))).toHaveLength(1);
    // free flight: the COM keeps its horizontal velocity (the hinge's arm sits on the COM's axis)
    const m = b.finalize();
    const sim = new Simulation(m, { dt: 0.001, solver: DRAKE });
    const y0 = sim.state.joint_q[1];
    for (let i = 0; i < 100; i++) sim.step();
    expect(sim.state.joint_q[1] - y0).toBeCloseTo(0.15, 9);
    // without velocities nothing moves and nothing is said
    const still = text.replace(/\s*vector3f physics:\w*[vV]elocity = \([^)]*\)/g, '');
    const b2 = new ModelBuilder();
    const r2 = await importUsd(b2, 'v.usda', memResolver({ 'v.usda': still }));
    expect(b2.joints[b2.findJoint('ball_free')].qd).toEqual([0, 0, 0, 0, 0, 0]);
    expect(r2.warnings.filter((w) => w.includes('initial velocity'))).toEqual([]);
    // a non-finite velocity is refused at its prim
    await expect(
      importUsd(
        new ModelBuilder(),
        'v.usda',
        memResolver({ 'v.usda': text.replace('(150, 0, 0)', '(inf, 0, 0)') }),
      ),
    ).rejects.toThrow(/\/P\/ball.*must be finite/);
  });

  it('maps cones, planes, mesh approximations, filtered pairs and excluded joints', async () => {
    const cubeMesh = `point3f[] points = [(-1,-1,-1),(1,-1,-1),(1,1,-1),(-1,1,-1),(-1,-1,1),(1,-1,1),(1,1,1),(-1,1,1),(0,0,0)]
            int[] faceVertexCounts = [4, 4, 4, 4, 4, 4]
            int[] faceVertexIndices = [0,3,2,1, 4,5,6,7, 0,1,5,4, 1,2,6,5, 2,3,7,6, 3,0,4,7]`;
    const text = stage(`
def Plane "ground" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) { uniform token axis = "Y" }
def Xform "R" ( prepend apiSchemas = ["PhysicsArticulationRootAPI"] ) {
    bool physxArticulation:enabledSelfCollisions = 0
    def Xform "a" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsFilteredPairsAPI"] ) {
        rel physics:filteredPairs = </R/free>
        def Cone "cone" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) { double radius = 0.5
            double height = 2 }
        def Mesh "hull" ( prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"] ) {
            uniform token physics:approximation = "convexHull"
            ${cubeMesh}
        }
        def Mesh "bbox" ( prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"] ) {
            uniform token physics:approximation = "boundingCube"
            float3 xformOp:scale = (0.5, 1, 2)
            uniform token[] xformOpOrder = ["xformOp:scale"]
            ${cubeMesh}
        }
        def Mesh "tris" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) { ${cubeMesh} }
    }
    def Xform "b" ( prepend apiSchemas = ["PhysicsRigidBodyAPI"] ) {
        def Sphere "s" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) { double radius = 0.1 }
    }
    def Xform "free" ( prepend apiSchemas = ["PhysicsRigidBodyAPI"] ) {
        def Sphere "s2" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) { double radius = 0.1 }
    }
    def PhysicsRevoluteJoint "ab" { rel physics:body0 = </R/a>
        rel physics:body1 = </R/b> }
    def PhysicsSphericalJoint "excluded" { rel physics:body0 = </R/b>
        rel physics:body1 = </R/free>
        bool physics:excludeFromArticulation = 1 }
}
`);
    const b = new ModelBuilder();
    const r = await importUsd(b, 'shapes.usda', memResolver({ 'shapes.usda': text }));
    const byLabel = (l: string) => b.shapes[r.shapes.find((s) => b.shapes[s].label === l)!];
    expect(SHAPE_TYPE_NAMES[byLabel('ground').type]).toBe('plane');
    expect(byLabel('ground').body).toBe(-1);
    const g = byLabel('ground').X_bs.slice(3); // local z (the plane normal) along stage y
    expect(2 * (g[1] * g[2] - g[3] * g[0])).toBeCloseTo(1, 12);
    expect(SHAPE_TYPE_NAMES[byLabel('cone').type]).toBe('cone');
    expect(byLabel('cone').size.slice(0, 2)).toEqual([0.5, 1]);
    expect(SHAPE_TYPE_NAMES[byLabel('hull').type]).toBe('convex_mesh');
    expect(b.meshes[byLabel('hull').mesh].vertices.length / 3).toBe(8); // the inner point is dropped
    expect(SHAPE_TYPE_NAMES[byLabel('bbox').type]).toBe('box');
    expect(byLabel('bbox').size).toEqual([0.5, 1, 2]);
    expect(SHAPE_TYPE_NAMES[byLabel('tris').type]).toBe('mesh');
    expect(b.meshes[byLabel('tris').mesh].triangles.length / 3).toBe(12);
    // the excluded joint closes a loop; the free body gets its own root first
    expect(r.equalities).toHaveLength(1);
    expect(b.equalities[r.equalities[0]].type).toBe('ball');
    // filtered pairs: a's 4 shapes × free's sphere; self collisions off within the articulation
    const has = (x: string, y: string) => {
      const i = r.shapes.find((s) => b.shapes[s].label === x)!,
        j = r.shapes.find((s) => b.shapes[s].label === y)!;
      return b.filterPairs.some(([p, q]) => (p === i && q === j) || (p === j && q === i));
    };
    expect(has('cone', 's2')).toBe(true);
    expect(has('hull', 's')).toBe(true);
    expect(has('ground', 's')).toBe(false);
  });

  it('rejects malformed physics data with the prim path', async () => {
    const text = stage(`
def Xform "R" ( prepend apiSchemas = ["PhysicsRigidBodyAPI"] ) {
    def Mesh "m" ( prepend apiSchemas = ["PhysicsCollisionAPI"] ) {
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
        int[] faceVertexCounts = [3]
        int[] faceVertexIndices = [0, 1, 7]
    }
}
`);
    const b = new ModelBuilder();
    const err = await importUsd(b, 'm.usda', memResolver({ 'm.usda': text })).catch((e) => e);
    expect(err).toBeInstanceOf(UsdError);
    expect((err as UsdError).location.primPath).toBe('/R/m');
    // all or nothing: the builder is unchanged
    expect(b.bodies).toHaveLength(0);
    expect(b.shapes).toHaveLength(0);
    // a syntax error in a referenced layer names that layer, line and column
    const bad = await importUsd(
      new ModelBuilder(),
      'a.usda',
      memResolver({
        'a.usda': '#usda 1.0\ndef "A" ( references = @./b.usda@ ) {}\n',
        'b.usda': '#usda 1.0\ndef "B" {\n  float x = [\n}\n',
      }),
    ).catch((e) => e);
    expect(bad).toBeInstanceOf(UsdError);
    expect((bad as UsdError).location).toMatchObject({ layer: 'b.usda', line: 4, column: 1 });
  });

  it('works through the importer registry adapter (inline text and files)', async () => {
    const b = new ModelBuilder();
    const r = await importUsdAsset(b, {
      text: stage(
        'def Sphere "ball" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"] ) { double radius = 0.5 }',
      ),
      path: 'inline.usda',
    });
    expect(r.bodies).toHaveLength(1);
    expect(b.shapes[r.shapes[0]].size[0]).toBe(0.5);
    expect(r.name).toBe('inline');
    const b2 = new ModelBuilder();
    const r2 = await importUsdAsset(
      b2,
      { path: path.join(ASSETS, USD_MODELS.S1) },
      { resolver: fsResolver(), load_visual_shapes: false },
    );
    expect(r2.bodies).toHaveLength(4);
    expect(r2.name).toBe('cartPole');
  });
});

describe('UsdPhysics spherical cone limits', () => {
  // a 1 kg bob 0.5 m out on a spherical joint (axis X) at z = 1, released horizontally: a swing of X
  // toward −Z, which the cone stops at 45° (coneAngle1Limit: toward the axis after the next)
  const usd = (c0: number, c1: number) => `#usda 1.0
(
    upAxis = "Z"
    metersPerUnit = 1
)
def PhysicsScene "scene" { vector3f physics:gravityDirection = (0, 0, -1)
    float physics:gravityMagnitude = 9.81 }
def Xform "bob" ( prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"] ) {
    float physics:mass = 1
    point3f physics:centerOfMass = (0.5, 0, 0)
    float3 physics:diagonalInertia = (0.001, 0.001, 0.001)
    double3 xformOp:translate = (0, 0, 1)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}
def PhysicsSphericalJoint "shoulder" {
    rel physics:body1 = </bob>
    point3f physics:localPos0 = (0, 0, 1)
    uniform token physics:axis = "X"
    float physics:coneAngle0Limit = ${c0}
    float physics:coneAngle1Limit = ${c1}
}
`;
  // the same bob and cone in MJCF (a swing without twist turns it by the swing angle)
  const mjcf = `<mujoco><option timestep="0.002"/><worldbody>
    <body name="bob" pos="0 0 1"><joint name="b" type="ball" range="0 45"/>
      <inertial pos="0.5 0 0" mass="1" diaginertia="0.001 0.001 0.001"/></body>
  </worldbody></mujoco>`;

  /** the bob's rotation angle after 5 s (at rest on a cone), and the largest on the way */
  function run(model: SapModel): { final: number; most: number } {
    const sim = new Simulation(model, { dt: 0.002, solver: { contact_preset_variant: 'drake' } });
    const angle = () => {
      const q = sim.state.joint_q;
      return 2 * Math.atan2(Math.hypot(q[0], q[1], q[2]), Math.abs(q[3]));
    };
    let most = 0;
    for (let i = 0; i < 2500; i++) {
      sim.step();
      most = Math.max(most, angle());
    }
    return { final: angle(), most };
  }

  it('are a swing cone on the joint axis, in degrees; the bob rests where the same MJCF ball range holds it', async () => {
    const b = new ModelBuilder();
    const r = await importUsd(b, 'x.usda', memResolver({ 'x.usda': usd(30, 45) }));
    expect(r.unsupported.join('\n')).not.toMatch(/cone/);
    const m = b.finalize();
    expect(Array.from(m.joint_cone_mode)).toEqual([2]);
    expect(Array.from(m.joint_axis.subarray(0, 3))).toEqual([1, 0, 0]);
    expect(m.joint_cone_limit[0]).toBeCloseTo(Math.PI / 6, 14);
    expect(m.joint_cone_limit[1]).toBeCloseTo(Math.PI / 4, 14);
    const ours = run(m).final;
    // the limit holds m·g·L·cos 45° = 3.47 N·m at ke = 1e4: 3.5e-4 rad past it
    expect(Math.abs(ours - Math.PI / 4 - 3.47e-4)).toBeLessThan(1e-4);
    const mb = new ModelBuilder();
    const { importMjcf } = await import('../mjcf/mjcf');
    await importMjcf(mb, { text: mjcf, path: 'm.xml' }, { resolver: memResolver({}) });
    mb.gravity = [0, 0, -9.81];
    expect(Math.abs(run(mb.finalize()).final - ours)).toBeLessThan(1e-6);
  });

  it('a negative angle (USD: no limit) leaves that side free; none at all, no cone', async () => {
    const one = new ModelBuilder();
    await importUsd(one, 'x.usda', memResolver({ 'x.usda': usd(30, -1) }));
    const m1 = one.finalize();
    expect(Array.from(m1.joint_cone_limit)).toEqual([Math.PI / 6, Infinity]);
    // falling toward −Z is the free side: it swings down and through, undamped
    expect(run(m1).most).toBeGreaterThan(Math.PI - 0.05); // it swings through, up to the other side
    const none = new ModelBuilder();
    await importUsd(none, 'x.usda', memResolver({ 'x.usda': usd(-1, -1) }));
    expect(Array.from(none.finalize().joint_cone_mode)).toEqual([0]);
  });
});
