import { describe, expect, it } from 'vitest';
import { makeRng, quatFromAxisAngle } from '../math';
import { ModelBuilder, ShapeType, type ShapeConfig } from '../model';
import { combineFriction, combineStiffness, type SapContacts } from './contacts';
import { SapCollisionPipeline, collideOnce } from './pipeline';
import { contactRecords, posedState, worldWitnesses } from './test_fixtures';

const TOL = 1e-9;

function pose(x: number, y: number, z: number, ax = 1, ay = 0, az = 0, angle = 0): number[] {
  const q = new Float64Array([0, 0, 0, 1]);
  quatFromAxisAngle(ax, ay, az, angle, q, 0);
  return [x, y, z, ...q];
}

/** checks the SapContacts contract for every written contact */
function checkContract(c: SapContacts, state: ReturnType<typeof posedState>): void {
  for (let w = 0; w < c.num_worlds; w++) {
    for (let i = 0; i < c.count[w]; i++) {
      const k = w * c.capacity + i;
      const { x0, x1, n } = worldWitnesses(c, state, k);
      expect(Math.hypot(n[0], n[1], n[2])).toBeCloseTo(1, 12);
      const d = n[0] * (x1[0] - x0[0]) + n[1] * (x1[1] - x0[1]) + n[2] * (x1[2] - x0[2]);
      expect(Math.abs(d - c.margin0[k] - c.margin1[k] - c.phi0[k])).toBeLessThan(TOL);
    }
  }
}

describe('sphere on plane', () => {
  const r = 0.1;
  for (const z of [0.5, r + 0.0015, r + 0.0025, r, r - 0.01]) {
    it(`at height ${z}`, () => {
      const b = new ModelBuilder();
      b.addGround({ margin: 0.0 });
      const rng = makeRng(7);
      const body = b.addBody({ X_wb: pose(0.3, -0.2, z, rng(), rng(), rng(), 2 * rng()) });
      b.addShape({ body, type: 'sphere', size: [r] });
      const model = b.finalize();
      const state = posedState(model);
      const c = collideOnce(model, state);
      const expected = z - r - 0 <= 0.004 ? 1 : 0; // gap 0.002 per shape
      expect(c.count[0]).toBe(expected);
      expect(c.truncated[0]).toBe(0);
      if (!expected) return;
      // ground (plane, lower type) is shape 0 even though its index is higher
      expect(model.shape_type[c.shape0[0]]).toBe(ShapeType.PLANE);
      expect(c.shape0[0]).toBe(1);
      expect(c.shape1[0]).toBe(0);
      expect(c.body0[0]).toBe(-1);
      expect(c.body1[0]).toBe(body);
      expect([c.normal[0], c.normal[1], c.normal[2]]).toEqual([0, 0, 1]);
      expect(c.phi0[0]).toBeCloseTo(z - r, 12);
      const { x0, x1 } = worldWitnesses(c, state, 0);
      // x0 on the plane below the centre, x1 on the sphere's surface
      expect(Math.abs(x0[0] - 0.3)).toBeLessThan(TOL);
      expect(Math.abs(x0[1] + 0.2)).toBeLessThan(TOL);
      expect(Math.abs(x0[2])).toBeLessThan(TOL);
      expect(Math.abs(Math.hypot(x1[0] - 0.3, x1[1] + 0.2, x1[2] - z) - r)).toBeLessThan(TOL);
      expect(Math.abs(x1[2] - (z - r))).toBeLessThan(TOL);
      // material
      expect(c.ke0[0]).toBe(1e6);
      expect(c.ke[0]).toBe(combineStiffness(1e6, 1e6));
      expect(c.tau[0]).toBeCloseTo(0.2, 15);
      expect(c.mu[0]).toBe(combineFriction(0.5, 0.5));
      checkContract(c, state);
    });
  }

  it('margins shift phi0 and the band', () => {
    const b = new ModelBuilder();
    b.addGround({ margin: 0.01, gap: 0.0 });
    const body = b.addBody({ X_wb: pose(0, 0, r + 0.025) });
    b.addShape({ body, type: 'sphere', size: [r], cfg: { margin: 0.02, gap: 0 } });
    const model = b.finalize();
    const state = posedState(model);
    const c = collideOnce(model, state);
    expect(c.count[0]).toBe(1);
    expect(c.margin0[0]).toBe(0.01);
    expect(c.margin1[0]).toBe(0.02);
    expect(c.phi0[0]).toBeCloseTo(0.025 - 0.03, 12);
    checkContract(c, state);
  });

  it('a mesh above an infinite plane: a vertex inside the band is a candidate, none beyond it', () => {
    // a tilted tetrahedron: its world AABB reaches lower than its lowest vertex
    const tet = {
      vertices: [0, 0, 0, 0.3, 0, 0, 0, 0.3, 0, 0, 0, 0.3],
      triangles: [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3],
    };
    const q = [0.3, 0.2, 0.1];
    const n = Math.hypot(...q, 1);
    const at = (z: number) => {
      const b = new ModelBuilder();
      b.addGround({ margin: 0.001, gap: 0.004 });
      const mesh = b.addMesh(tet);
      const body = b.addBody({ X_wb: [0, 0, z, q[0] / n, q[1] / n, q[2] / n, 1 / n] });
      b.addShape({ body, type: 'mesh', size: [1, 1, 1], mesh, cfg: { margin: 0.002, gap: 0.003 } });
      const model = b.finalize();
      const state = posedState(model);
      return { c: collideOnce(model, state) };
    };
    expect(at(1).c.count[0]).toBe(0); // far above: the broad phase pairs it with the plane anyway
    // band: d − (m0 + m1) ≤ g0 + g1 → d ≤ 0.010 for the lowest vertex; find it by the reported φ₀
    const near = at(0);
    expect(near.c.count[0]).toBeGreaterThan(0);
    const lowest = Math.min(...Array.from(near.c.phi0.subarray(0, near.c.count[0]))) + 0.003; // φ₀ = d − margins
    // z places the lowest vertex at height 0 + lowest; shift it to just inside / just outside the band
    expect(at(0.01 - lowest - 1e-6).c.count[0]).toBeGreaterThan(0);
    expect(at(0.01 - lowest + 1e-6).c.count[0]).toBe(0);
  });

  it('finite plane only supports points over its extent', () => {
    const b = new ModelBuilder();
    b.addShape({ body: -1, type: 'plane', size: [1, 1, 0] });
    const inside = b.addBody({ X_wb: pose(0.5, 0, r) });
    b.addShape({ body: inside, type: 'sphere', size: [r] });
    const outside = b.addBody({ X_wb: pose(1.05, 0, r) }); // AABBs overlap, projection off the plane
    b.addShape({ body: outside, type: 'sphere', size: [r] });
    const model = b.finalize();
    const c = collideOnce(model, posedState(model));
    expect(c.count[0]).toBe(1);
    expect(c.body1[0]).toBe(inside);
  });
});

describe('box on plane', () => {
  const h = [0.2, 0.1, 0.05];
  function run(X: number[], half = h, cfg: Partial<ShapeConfig> = {}) {
    const b = new ModelBuilder();
    b.addGround();
    const body = b.addBody({ X_wb: X });
    b.addShape({ body, type: 'box', size: half, cfg });
    const model = b.finalize();
    const state = posedState(model);
    const c = collideOnce(model, state);
    checkContract(c, state);
    return { c, state };
  }

  it('resting flat gives exactly the 4 bottom corners', () => {
    const { c } = run(pose(0.1, 0.2, h[2] - 0.0005));
    expect(c.count[0]).toBe(4);
    for (let i = 0; i < 4; i++) {
      expect(c.feature[i]).toBe(i); // bit 2 clear = bottom corners, ascending
      expect(c.phi0[i]).toBeCloseTo(-0.0005, 12);
      expect(Math.abs(c.point1[i * 3] - (i & 1 ? h[0] : -h[0]))).toBeLessThan(TOL);
      expect(Math.abs(c.point1[i * 3 + 1] - (i & 2 ? h[1] : -h[1]))).toBeLessThan(TOL);
      expect(Math.abs(c.point1[i * 3 + 2] - -h[2])).toBeLessThan(TOL);
      expect(Math.abs(c.point0[i * 3 + 2])).toBeLessThan(TOL);
    }
  });

  it('tilted onto an edge gives 2 points, onto a corner 1', () => {
    // rotated 30° about x: the lowest edge is at the corners with -y... find the height that puts it at 0
    const a = Math.PI / 6;
    const zEdge = h[1] * Math.sin(a) + h[2] * Math.cos(a);
    let { c } = run(pose(0, 0, zEdge, 1, 0, 0, a));
    expect(c.count[0]).toBe(2);
    for (let i = 0; i < 2; i++) expect(Math.abs(c.phi0[i])).toBeLessThan(TOL);
    // generic rotation: a single lowest corner
    const q = new Float64Array([0, 0, 0, 1]);
    quatFromAxisAngle(0.3, 0.5, 0.1, 0.7, q, 0);
    const X = [0, 0, 1, ...q];
    ({ c } = run(X));
    expect(c.count[0]).toBe(0);
    // find the lowest corner height and drop the box onto it
    const probe = run(X, h, { gap: 10 }).c; // huge band: all corners (capped to the deepest 4)
    expect(probe.count[0]).toBe(4);
    let minPhi = Infinity;
    for (let i = 0; i < 4; i++) minPhi = Math.min(minPhi, probe.phi0[i]);
    ({ c } = run([0, 0, 1 - minPhi - 1e-4, ...q]));
    expect(c.count[0]).toBe(1);
    expect(c.phi0[0]).toBeCloseTo(-1e-4, 9);
  });

  it('a box thinner than the band is capped at the 4 deepest corners', () => {
    const { c } = run(pose(0, 0, 0.0004, 1, 0, 0, 0.01), [0.2, 0.1, 0.0005]);
    expect(c.count[0]).toBe(4);
    // the deepest corners are the bottom ones on the side rotated downwards (−y, bit 1 clear)
    expect(Array.from(c.feature.subarray(0, 4))).toEqual([0, 1, 4, 5]);
  });
});

describe('capsule on plane', () => {
  const r = 0.05,
    hh = 0.2;
  function run(X: number[]) {
    const b = new ModelBuilder();
    b.addGround();
    const body = b.addBody({ X_wb: X });
    b.addShape({ body, type: 'capsule', size: [r, hh] });
    const model = b.finalize();
    const state = posedState(model);
    const c = collideOnce(model, state);
    checkContract(c, state);
    return { c, state };
  }
  it('lying flat gives both end caps', () => {
    const { c, state } = run(pose(0.5, 0, r - 0.001, 0, 1, 0, Math.PI / 2));
    expect(c.count[0]).toBe(2);
    expect(Array.from(c.feature.subarray(0, 2))).toEqual([0, 1]);
    const xs = [0, 1].map((k) => worldWitnesses(c, state, k).x1);
    // feature 0 is the cap at local -h: R_y(90°) maps local -z to world -x... sign check
    expect(Math.abs(xs[0][0] - (0.5 - hh))).toBeLessThan(TOL);
    expect(Math.abs(xs[1][0] - (0.5 + hh))).toBeLessThan(TOL);
    for (const x of xs) expect(Math.abs(x[2] - -0.001)).toBeLessThan(TOL);
    for (let i = 0; i < 2; i++) {
      expect(c.phi0[i]).toBeCloseTo(-0.001, 12);
      // body-frame witness on the cap sphere: (0,0,∓h) + r·(R⁻¹(−z))
      expect(Math.abs(c.point1[i * 3 + 2] - (i === 0 ? -hh : hh))).toBeLessThan(TOL);
    }
  });
  it('upright gives only the lower cap', () => {
    const { c } = run(pose(0, 0, hh + r));
    expect(c.count[0]).toBe(1);
    expect(c.feature[0]).toBe(0);
    expect(Math.abs(c.phi0[0])).toBeLessThan(TOL);
  });
});

describe('gap band boundary: d − (m0 + m1) ≤ g0 + g1', () => {
  const m0 = 0.01,
    m1 = 0.02,
    g0 = 0.003,
    g1 = 0.004;
  const limit = m0 + m1 + (g0 + g1);
  for (const eps of [-1e-9, 1e-9]) {
    it(`sphere–sphere at the limit ${eps > 0 ? '+' : '−'} 1e-9`, () => {
      const r0 = 0.1,
        r1 = 0.15;
      const b = new ModelBuilder();
      const a = b.addBody({ X_wb: pose(0, 0, 1) });
      b.addShape({ body: a, type: 'sphere', size: [r0], cfg: { margin: m0, gap: g0 } });
      const c1 = b.addBody({ X_wb: pose(r0 + r1 + limit + eps, 0, 1) });
      b.addShape({ body: c1, type: 'sphere', size: [r1], cfg: { margin: m1, gap: g1 } });
      const model = b.finalize();
      for (const mode of ['explicit', 'nxn'] as const) {
        const c = collideOnce(model, posedState(model), { broad_phase: mode });
        expect(c.count[0]).toBe(eps < 0 ? 1 : 0);
        if (eps < 0) expect(c.phi0[0]).toBeCloseTo(g0 + g1 + eps, 12);
      }
    });
    it(`plane–sphere, plane–box and plane–capsule at the limit ${eps > 0 ? '+' : '−'} 1e-9`, () => {
      const b = new ModelBuilder();
      b.addGround({ margin: m0, gap: g0 });
      const cfg = { margin: m1, gap: g1 };
      const s = b.addBody({ X_wb: pose(0, 0, 0.1 + limit + eps) });
      b.addShape({ body: s, type: 'sphere', size: [0.1], cfg });
      const bx = b.addBody({ X_wb: pose(1, 0, 0.05 + limit + eps) });
      b.addShape({ body: bx, type: 'box', size: [0.1, 0.1, 0.05], cfg });
      const cp = b.addBody({ X_wb: pose(2, 0, 0.05 + limit + eps, 1, 0, 0, Math.PI / 2) });
      b.addShape({ body: cp, type: 'capsule', size: [0.05, 0.2], cfg });
      const model = b.finalize();
      const c = collideOnce(model, posedState(model));
      expect(c.count[0]).toBe(eps < 0 ? 1 + 4 + 2 : 0);
    });
  }
});

describe('capacity', () => {
  function scene(nw: number) {
    const b = new ModelBuilder();
    b.num_worlds = nw;
    b.spacing = [5, 0, 0];
    b.addGround();
    for (let i = 0; i < 20; i++) {
      const body = b.addBody({ X_wb: pose((i % 5) * 0.3, Math.floor(i / 5) * 0.3, 0.099) });
      b.addShape({ body, type: 'sphere', size: [0.1] });
    }
    return b.finalize();
  }
  it('drops exactly the excess, counts it, and corrupts nothing', () => {
    const model = scene(3);
    const state = posedState(model);
    const full = new SapCollisionPipeline(model, { rigid_contact_max: 64 });
    const cf = full.contacts();
    full.collide(state, cf);
    for (let w = 0; w < 3; w++) {
      expect(cf.count[w]).toBe(20);
      expect(cf.truncated[w]).toBe(0);
    }
    const small = new SapCollisionPipeline(model, { rigid_contact_max: 5 });
    const cs = small.contacts();
    expect(cs.shape0.length).toBe(15);
    small.collide(state, cs);
    for (let w = 0; w < 3; w++) {
      expect(cs.count[w]).toBe(5);
      expect(cs.truncated[w]).toBe(15);
    }
    expect(small.last_truncated_contact_count).toBe(45);
    // every world holds exactly the first 5 contacts of its full list
    const recFull = contactRecords(cf);
    const recSmall = contactRecords(cs);
    for (let w = 0; w < 3; w++) {
      expect(recSmall.filter((r) => r.w === w)).toEqual(recFull.filter((r) => r.w === w).slice(0, 5));
    }
    // a zero-capacity buffer writes nothing
    const none = new SapCollisionPipeline(model, { rigid_contact_max: 0 });
    const cn = none.contacts();
    none.collide(state, cn);
    expect(Array.from(cn.truncated)).toEqual([20, 20, 20]);
  });
});

describe('filtering', () => {
  function twoSpheres(g0: number, g1: number) {
    const b = new ModelBuilder();
    const a = b.addBody({ X_wb: pose(0, 0, 1) });
    b.addShape({ body: a, type: 'sphere', size: [0.1], cfg: { collision_group: g0 } });
    const c = b.addBody({ X_wb: pose(0.15, 0, 1) });
    b.addShape({ body: c, type: 'sphere', size: [0.1], cfg: { collision_group: g1 } });
    const model = b.finalize();
    return collideOnce(model, posedState(model)).count[0];
  }
  it('collision groups', () => {
    expect(twoSpheres(1, 1)).toBe(1);
    expect(twoSpheres(1, 2)).toBe(0);
    expect(twoSpheres(0, 1)).toBe(0);
    expect(twoSpheres(0, 0)).toBe(0);
    expect(twoSpheres(-1, -1)).toBe(0);
    expect(twoSpheres(-1, -2)).toBe(1);
    expect(twoSpheres(-1, 2)).toBe(1);
    expect(twoSpheres(3, -1)).toBe(1);
  });

  it('flags, same body, static–static', () => {
    const b = new ModelBuilder();
    b.addGround();
    b.addShape({ body: -1, type: 'sphere', size: [0.1] }); // static, touching the ground: skipped
    const a = b.addBody({ X_wb: pose(1, 0, 0.1) });
    b.addShape({ body: a, type: 'sphere', size: [0.1] });
    b.addShape({ body: a, type: 'sphere', size: [0.1], X_bs: [0.05, 0, 0, 0, 0, 0, 1] }); // same body
    const ghost = b.addBody({ X_wb: pose(2, 0, 0.1) });
    b.addShape({ body: ghost, type: 'sphere', size: [0.1], cfg: { has_shape_collision: false } });
    const site = b.addBody({ X_wb: pose(3, 0, 0.1) });
    b.addShape({ body: site, type: 'sphere', size: [0.1], cfg: { is_site: true } });
    const model = b.finalize();
    const c = collideOnce(model, posedState(model));
    // only the two shapes of body a against the ground
    expect(c.count[0]).toBe(2);
    expect(c.body1[0]).toBe(a);
    expect(c.body1[1]).toBe(a);
  });

  it('parent–child pairs excluded by default, grandparent pairs kept', () => {
    const b = new ModelBuilder();
    const b0 = b.addBody();
    const b1 = b.addBody();
    const b2 = b.addBody();
    for (const body of [b0, b1, b2]) b.addShape({ body, type: 'capsule', size: [0.05, 0.2] });
    b.addJoint({ type: 'fixed', parent: -1, child: b0 });
    b.addJoint({ type: 'revolute', parent: b0, child: b1 });
    b.addJoint({ type: 'revolute', parent: b1, child: b2 });
    const model = b.finalize();
    const state = posedState(model);
    // all three capsules overlap along the same axis, slightly offset (set body_q directly)
    for (let k = 0; k < 3; k++) state.body_q.set([0.02 * k, 0, 1, 0, 0, 0, 1], k * 7);
    const c = collideOnce(model, state);
    // bodies are 0,1,2 in joint order; only the 0–2 pair remains
    expect(c.count[0]).toBe(2); // parallel capsules: two points
    expect([c.body0[0], c.body1[0]]).toEqual([0, 2]);
    const all = collideOnce(model, state, { filter_parent_child: false });
    expect(all.count[0]).toBe(6);
    const filtered = collideOnce(model, state, { filter_pairs: [[2, 0]] });
    expect(filtered.count[0]).toBe(0);
  });
});

describe('worlds and determinism', () => {
  function randomScene(seed: number, nw: number) {
    const rng = makeRng(seed);
    const b = new ModelBuilder();
    b.num_worlds = nw;
    b.spacing = [3, 0, 0];
    b.addGround();
    const types = ['sphere', 'capsule', 'box'] as const;
    for (let i = 0; i < 14; i++) {
      const t = types[i % 3];
      const size =
        t === 'sphere'
          ? [0.1 + 0.1 * rng()]
          : t === 'capsule'
            ? [0.05 + 0.05 * rng(), 0.2 * rng()]
            : [0.1, 0.15, 0.05];
      const body = b.addBody({
        X_wb: pose(rng() - 0.5, rng() - 0.5, 0.25 * rng(), rng(), rng(), rng(), 6 * rng()),
      });
      b.addShape({
        body,
        type: t,
        size,
        cfg: { margin: 0.005 * rng(), gap: 0.01 * rng(), ke: 1e5 + 1e6 * rng() },
      });
    }
    return b.finalize();
  }

  it('nxn and explicit agree; repeated collides are identical; every contact honours the contract', () => {
    const model = randomScene(11, 3);
    const state = posedState(model);
    const pe = new SapCollisionPipeline(model, { broad_phase: 'explicit' });
    const pn = new SapCollisionPipeline(model, { broad_phase: 'nxn' });
    const ce = pe.contacts(),
      cn = pn.contacts();
    pe.collide(state, ce);
    pn.collide(state, cn);
    const re = contactRecords(ce);
    expect(re.length).toBeGreaterThan(20);
    expect(contactRecords(cn)).toEqual(re);
    pe.collide(state, ce);
    expect(contactRecords(ce)).toEqual(re);
    checkContract(ce, state);
    // replicated worlds see identical contact lists in their own slots (up to the world offset)
    const perWorld = [0, 1, 2].map((w) => re.filter((r) => r.w === w));
    expect(perWorld[1].length).toBe(perWorld[0].length);
    for (let i = 0; i < perWorld[0].length; i++) {
      expect(perWorld[1][i].feature).toBe(perWorld[0][i].feature);
      expect(perWorld[1][i].phi0).toBeCloseTo(perWorld[0][i].phi0, 9);
    }
    // shared ground contacts are in every world; sort order (pair, then feature) holds
    for (const list of perWorld) {
      expect(list.some((r) => r.shape0 === model.shape_count - 1)).toBe(true);
      for (let i = 1; i < list.length; i++) {
        const p = list[i - 1],
          q = list[i];
        const kp = [Math.min(p.shape0, p.shape1), Math.max(p.shape0, p.shape1), p.feature];
        const kq = [Math.min(q.shape0, q.shape1), Math.max(q.shape0, q.shape1), q.feature];
        const cmp = kp[0] - kq[0] || kp[1] - kq[1] || kp[2] - kq[2];
        expect(cmp).toBeLessThan(0);
      }
    }
    // every contact's shapes belong to its world (or are shared) and shape 0 has the lower type
    for (const r of re) {
      for (const s of [r.shape0, r.shape1]) expect([-1, r.w]).toContain(model.shape_world[s]);
      const t0 = model.shape_type[r.shape0],
        t1 = model.shape_type[r.shape1];
      expect(t0 < t1 || (t0 === t1 && r.shape0 < r.shape1)).toBe(true);
      expect(r.ke).toBeCloseTo(combineStiffness(r.ke0, r.ke1), 6);
    }
    expect(pe.last_unsupported_pair_count).toBe(pn.last_unsupported_pair_count);
  });

  it('rejects a buffer of the wrong world count', () => {
    const model = randomScene(3, 2);
    const p = new SapCollisionPipeline(model);
    const other = new SapCollisionPipeline(randomScene(3, 1)).contacts();
    expect(() => p.collide(posedState(model), other)).toThrow(RangeError);
    expect(() => new SapCollisionPipeline(model, { rigid_contact_max: -1 })).toThrow(RangeError);
  });
});
