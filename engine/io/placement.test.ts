import { describe, expect, it } from 'vitest';
import { ModelBuilder } from '../model';
import { Simulation } from '../pipeline';
import { MemoryResolver } from './assets/resolvers';
import { loadModelAsset, registerImporter } from './import';
import { lowestColliderZ } from './placement';

const s45 = Math.SQRT1_2;

describe('lowestColliderZ', () => {
  it('is exact for turned primitives and scaled meshes, and ignores visual-only shapes', () => {
    const lowest = (add: (b: ModelBuilder, body: number) => void) => {
      const b = new ModelBuilder();
      const body = b.addBody({ X_wb: [0, 0, 1, 0, 0, 0, 1] });
      add(b, body);
      return lowestColliderZ(b);
    };
    // a box turned 45° about x: its y and z half sizes both reach down by √½ each
    const qx45 = [Math.sin(Math.PI / 8), 0, 0, Math.cos(Math.PI / 8)];
    const turned = (p: number[]) => [...p, ...qx45];
    expect(
      lowest((b, body) => b.addShape({ body, type: 'box', size: [0.1, 0.2, 0.3], X_bs: turned([0, 0, 0]) })),
    ).toBeCloseTo(1 - (0.2 + 0.3) * s45, 12);
    expect(lowest((b, body) => b.addShape({ body, type: 'sphere', size: [0.25] }))).toBeCloseTo(0.75, 12);
    expect(
      lowest((b, body) =>
        b.addShape({ body, type: 'capsule', size: [0.1, 0.4], X_bs: turned([0, 0, -0.5]) }),
      ),
    ).toBeCloseTo(0.5 - 0.4 * s45 - 0.1, 12);
    expect(
      lowest((b, body) => b.addShape({ body, type: 'cylinder', size: [0.1, 0.4], X_bs: turned([0, 0, 0]) })),
    ).toBeCloseTo(1 - 0.4 * s45 - 0.1 * s45, 12);
    expect(lowest((b, body) => b.addShape({ body, type: 'ellipsoid', size: [0.1, 0.2, 0.3] }))).toBeCloseTo(
      0.7,
      12,
    );
    expect(
      lowest((b, body) => {
        const mesh = b.addMesh({
          vertices: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, -1],
          triangles: [0, 2, 1, 0, 1, 3],
        });
        b.addShape({ body, type: 'mesh', mesh, size: [1, 1, 0.5] });
      }),
    ).toBeCloseTo(0.5, 12);
    // visual only: no collider
    expect(
      lowest((b, body) =>
        b.addShape({ body, type: 'sphere', size: [5], cfg: { has_shape_collision: false, density: 0 } }),
      ),
    ).toBe(Infinity);
  });
});

const LEGGED = `<robot name="legged">
  <link name="torso">
    <inertial><mass value="5"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial>
    <collision><geometry><box size="0.4 0.2 0.1"/></geometry></collision>
  </link>
  <joint name="hip" type="revolute"><parent link="torso"/><child link="leg"/><origin xyz="0 0 -0.05"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1"/></joint>
  <link name="leg">
    <inertial><origin xyz="0 0 -0.2"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial>
    <collision><origin xyz="0 0 -0.2"/><geometry><capsule radius="0.03" length="0.4"/></geometry></collision>
  </link>
</robot>`;

describe('a robot placed on a ground it was not authored with (URDF; USD without a floor)', () => {
  const load = (opts = {}) =>
    loadModelAsset(
      'urdf',
      { text: LEGGED, path: 'legged.urdf' },
      { resolver: new MemoryResolver({}), ...opts },
    );
  // at the authored pose the leg's capsule reaches 0.05 + 0.2 + 0.2 + 0.03 m below the torso's frame
  const depth = 0.48;

  it('lifts the robot (fixed or floating base) so its lowest collider touches the ground, and says so', async () => {
    for (const floating of [false, true]) {
      const a = await load({ floating });
      expect(a.warnings).toEqual([]);
      expect(a.notes[0]).toMatch(/reach 0\.480 m below the ground .* lifted 0\.480 m/);
      const sim = new Simulation(a.model, { dt: 0.002, max_rigid_contact: 16 });
      const q = sim.state.body_q;
      expect(q[2]).toBeCloseTo(depth, 12); // the torso
      expect(q[7 + 2]).toBeCloseTo(depth - 0.05, 12); // the leg, its joint at zero
      // standing on the ground, not in it: a floating robot settles without a bounce
      for (let i = 0; i < 200; i++) sim.step();
      expect(Math.abs(sim.state.body_q[2] - depth)).toBeLessThan(floating ? 0.01 : 1e-12);
    }
  });

  it('keeps an explicit xform, a file without a ground, and a robot above the ground as they are', async () => {
    const xform = [0, 0, 0.1, 0, 0, 0, 1];
    const placed = await load({ xform });
    expect(placed.notes).toEqual([]);
    expect(new Simulation(placed.model, { dt: 0.002 }).state.body_q[2]).toBeCloseTo(0.1, 12);
    const noGround = await load({ ground: false });
    expect(new Simulation(noGround.model, { dt: 0.002 }).state.body_q[2]).toBe(0);
    const high = await load({ xform: [0, 0, 1, 0, 0, 0, 1], place_on_ground: true });
    expect(new Simulation(high.model, { dt: 0.002 }).state.body_q[2]).toBeCloseTo(1, 12);
  });

  it("stands a USD robot without a ground of its own on the studio's, and leaves one with its own ground as authored", async () => {
    await import('./usd').then((m) => registerImporter('usd', m.importUsdAsset));
    const usd = (plane: boolean) => `#usda 1.0
(
    metersPerUnit = 1
    upAxis = "Z"
)
def Xform "ball" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    float physics:mass = 1
    def Sphere "hull" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double radius = 0.2
    }
}
${plane ? 'def Plane "floor" (prepend apiSchemas = ["PhysicsCollisionAPI"])\n{\n    uniform token axis = "Z"\n}' : ''}
`;
    const bare = await loadModelAsset('usd', { text: usd(false), path: 'ball.usda' });
    expect(bare.notes.join('\n')).toMatch(/reach 0\.200 m below the ground .* lifted 0\.200 m/);
    expect(new Simulation(bare.model, { dt: 0.002 }).state.body_q[2]).toBeCloseTo(0.2, 12);
    const grounded = await loadModelAsset('usd', { text: usd(true), path: 'ball.usda' });
    expect(grounded.notes).toEqual([]);
    expect(new Simulation(grounded.model, { dt: 0.002 }).state.body_q[2]).toBe(0);
  });
});
