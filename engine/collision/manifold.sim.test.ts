/**
 * Manifold quality in simulation (engine/pipeline Simulation, drake preset): resting contacts get
 * enough well-spread points to stay at rest, upright and unsunk.
 */
import { describe, expect, it } from 'vitest';
import { ModelBuilder, type SapModel, type ShapeDesc } from '../model';
import { Simulation } from '../pipeline';
import { convexHull } from './hull';

const DT = 0.002;

/** tilt of body 0 from upright [rad], from its quaternion (x, y, z, w) in joint_q[3..7) */
function tilt(q: Float64Array): number {
  const [x, y] = [q[3], q[4]];
  // the body z axis' z component is 1 − 2(x² + y²)
  return Math.acos(Math.min(1, Math.max(-1, 1 - 2 * (x * x + y * y))));
}

type Support = 'plane' | 'box' | 'heightfield';

/**
 * One free body with `shape` resting on a support: the ground plane, a static 1 m box whose top is at
 * z = 0, or a flat heightfield at z = 0. `z` is the body's initial height (touching).
 */
function scene(
  shape: Omit<ShapeDesc, 'body'>,
  z: number,
  support: Support,
  mesh?: { vertices: number[]; triangles: number[] },
): SapModel {
  const b = new ModelBuilder();
  b.default_shape = { ...b.default_shape, ke: 1e6, tau: 0.01, mu: 0.6 };
  const body = b.addBody({ X_wb: [0.013, -0.021, z, 0, 0, 0, 1] });
  const m = mesh ? b.addMesh(mesh) : undefined;
  b.addShape({ ...shape, body, mesh: m, cfg: { density: 500 } });
  b.addJoint({ type: 'free', parent: -1, child: body });
  if (support === 'plane') b.addGround();
  else if (support === 'box')
    b.addShape({ body: -1, type: 'box', size: [0.5, 0.5, 0.5], X_bs: [0, 0, -0.5, 0, 0, 0, 1] });
  else {
    const hf = b.addHeightfield({
      nrow: 9,
      ncol: 9,
      size: [0.6, 0.6, 0.2, 0.1],
      data: new Array<number>(81).fill(0.5),
    });
    b.addShape({
      body: -1,
      type: 'heightfield',
      size: [0, 0, 0],
      hfield: hf,
      X_bs: [0, 0, -0.1, 0, 0, 0, 1],
    });
  }
  return b.finalize();
}

interface RestResult {
  contacts: number;
  drift: number;
  sink: number;
  tiltMax: number;
  omegaMax: number;
}

/** runs T seconds; measures from the state after a 0.5 s settle */
function rest(model: SapModel, T = 5): RestResult {
  const sim = new Simulation(model, {
    dt: DT,
    solver: { contact_preset_variant: 'drake' },
    max_rigid_contact: 32,
  });
  const z0 = sim.state.joint_q[2];
  for (let i = 0; i < 0.5 / DT; i++) sim.step();
  const x0 = [sim.state.joint_q[0], sim.state.joint_q[1], sim.state.joint_q[2]];
  let drift = 0,
    sink = 0,
    tiltMax = 0,
    omegaMax = 0;
  for (let i = 0; i < T / DT; i++) {
    const r = sim.step();
    expect(r.status).not.toBe('invalid_input');
    const q = sim.state.joint_q;
    drift = Math.max(drift, Math.hypot(q[0] - x0[0], q[1] - x0[1], q[2] - x0[2]));
    sink = Math.max(sink, Math.abs(q[2] - z0));
    tiltMax = Math.max(tiltMax, tilt(q));
    omegaMax = Math.max(
      omegaMax,
      Math.hypot(sim.state.joint_qd[3], sim.state.joint_qd[4], sim.state.joint_qd[5]),
    );
  }
  return { contacts: sim.contacts.count[0], drift, sink, tiltMax, omegaMax };
}

function cubeMesh(h: number): { vertices: number[]; triangles: number[] } {
  const pts: number[] = [];
  for (let k = 0; k < 8; k++) pts.push(k & 1 ? h : -h, k & 2 ? h : -h, k & 4 ? h : -h);
  const hull = convexHull(pts)!;
  return { vertices: Array.from(hull.vertices), triangles: Array.from(hull.triangles) };
}

describe('resting manifolds (drake preset, 5 s)', () => {
  for (const support of ['plane', 'box'] as const) {
    it(`a box lying on a ${support}: 4 corner contacts, at rest (drift < 1e-5 m, no rocking)`, () => {
      const r = rest(scene({ type: 'box', size: [0.1, 0.08, 0.05] }, 0.05, support));
      expect(r.contacts).toBe(4);
      expect(r.drift).toBeLessThan(1e-5);
      expect(r.tiltMax).toBeLessThan(1e-4);
      expect(r.omegaMax).toBeLessThan(1e-3);
    });

    it(`a cylinder standing on its cap on a ${support}: ≥ 3 contacts, upright, not sinking`, () => {
      const model = scene({ type: 'cylinder', size: [0.08, 0.12] }, 0.12, support);
      const r = rest(model);
      expect(r.contacts).toBeGreaterThanOrEqual(3);
      expect(r.tiltMax).toBeLessThan(1e-3);
      expect(r.sink).toBeLessThan(1e-4);
      expect(r.drift).toBeLessThan(1e-4);
    });

    it(`a cone standing on its base on a ${support}: ≥ 3 contacts, upright, not sinking`, () => {
      const r = rest(scene({ type: 'cone', size: [0.1, 0.1] }, 0.1, support));
      expect(r.contacts).toBeGreaterThanOrEqual(3);
      expect(r.tiltMax).toBeLessThan(1e-3);
      expect(r.sink).toBeLessThan(1e-4);
    });
  }

  it('a capsule lying on a box gets 2 contacts and stays', () => {
    const r = rest(
      scene(
        { type: 'capsule', size: [0.05, 0.15], X_bs: [0, 0, 0, Math.SQRT1_2, 0, 0, Math.SQRT1_2] },
        0.05,
        'box',
      ),
      2,
    );
    expect(r.contacts).toBe(2);
    expect(r.drift).toBeLessThan(1e-4);
  });

  it('a convex-mesh cube on the ground and a box on a flat heightfield stay at rest', () => {
    const a = rest(scene({ type: 'convex_mesh', size: [1, 1, 1] }, 0.06, 'plane', cubeMesh(0.06)), 2);
    expect(a.contacts).toBe(4);
    expect(a.drift).toBeLessThan(1e-5);
    expect(a.tiltMax).toBeLessThan(1e-4);
    const b = rest(scene({ type: 'box', size: [0.1, 0.08, 0.05] }, 0.05, 'heightfield'), 2);
    expect(b.contacts).toBeGreaterThanOrEqual(3);
    expect(b.drift).toBeLessThan(1e-4);
    expect(b.tiltMax).toBeLessThan(1e-3);
  });

  it('a convex-mesh cube on a static box stays at rest (general path, face clipping)', () => {
    const r = rest(scene({ type: 'convex_mesh', size: [1, 1, 1] }, 0.06, 'box', cubeMesh(0.06)), 2);
    expect(r.contacts).toBe(4);
    expect(r.drift).toBeLessThan(1e-5);
    expect(r.tiltMax).toBeLessThan(1e-4);
  });
});
