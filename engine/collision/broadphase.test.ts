/**
 * Pipeline-level tests: the three broad phases give identical contact lists, option normalization,
 * unsupported-pair reporting, model filters, mesh / heightfield AABBs, capacity with manifolds.
 */
import { describe, expect, it } from 'vitest';
import { makeRng, quatFromAxisAngle } from '../math';
import { ModelBuilder, type SapModel, type ShapeTypeName } from '../model';
import { mergeSortKeys } from './broadphase';
import { EXPLICIT_MAX_SHAPES } from './pipeline';
import { convexHull } from './hull';
import {
  CollisionOptionsError,
  SapCollisionPipeline,
  UnsupportedPairError,
  collideOnce,
  normalizeBroadPhase,
  resolveCollisionOptions,
} from './pipeline';
import { shapeSupport } from './reference';
import { contactRecords, posedState, worldWitnesses } from './test_fixtures';

type Rng = () => number;

function quat(rng: Rng): number[] {
  const q = new Float64Array([0, 0, 0, 1]);
  quatFromAxisAngle(rng() - 0.5, rng() - 0.5, rng() - 0.5, 7 * rng(), q, 0);
  return Array.from(q);
}

function hullMesh(rng: Rng): { vertices: number[]; triangles: number[] } {
  const pts: number[] = [];
  for (let i = 0; i < 12; i++) pts.push(0.2 * (rng() - 0.5), 0.2 * (rng() - 0.5), 0.2 * (rng() - 0.5));
  const h = convexHull(pts)!;
  return { vertices: Array.from(h.vertices), triangles: Array.from(h.triangles) };
}

/** many shapes of every type, clustered so that plenty overlap, in nw worlds */
function clutter(seed: number, nw: number, n = 60): SapModel {
  const rng = makeRng(seed);
  const b = new ModelBuilder();
  b.num_worlds = nw;
  b.spacing = [4, 0, 0];
  b.addGround();
  const mesh = b.addMesh(hullMesh(rng));
  const hf = b.addHeightfield({
    nrow: 6,
    ncol: 7,
    size: [0.8, 0.7, 0.15, 0.05],
    data: Array.from({ length: 42 }, () => rng()),
  });
  // static terrain and a static triangle mesh in every world
  b.addShape({
    body: -1,
    type: 'heightfield',
    size: [0, 0, 0],
    hfield: hf,
    X_bs: [0.4, 0, 0.05, 0, 0, 0, 1],
  });
  b.addShape({ body: -1, type: 'mesh', size: [2, 2, 2], mesh, X_bs: [-0.5, 0.3, 0.1, ...quat(rng)] });
  const types: ShapeTypeName[] = [
    'sphere',
    'capsule',
    'box',
    'cylinder',
    'cone',
    'ellipsoid',
    'convex_mesh',
    'mesh',
  ];
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const t = types[i % types.length];
    const s = 0.04 + 0.08 * rng();
    const size =
      t === 'sphere'
        ? [s]
        : t === 'capsule' || t === 'cylinder' || t === 'cone'
          ? [s, s * (0.5 + rng())]
          : t === 'box' || t === 'ellipsoid'
            ? [s, s * (0.5 + rng()), s * (0.5 + rng())]
            : [0.5 + rng(), 0.5 + rng(), 0.5 + rng()];
    const body = b.addBody({ X_wb: [1.2 * (rng() - 0.5), 1.2 * (rng() - 0.5), 0.4 * rng(), ...quat(rng)] });
    const group = i % 11 === 0 ? 2 : i % 13 === 0 ? -1 : 1;
    b.addShape({
      body,
      type: t,
      size,
      mesh: t === 'convex_mesh' || t === 'mesh' ? mesh : undefined,
      cfg: { margin: 0.004 * rng(), gap: 0.01 * rng(), collision_group: group },
    });
    // a few articulated pairs (revolute to the previous body), the rest free
    if (i % 9 === 1 && prev >= 0)
      b.addJoint({ type: 'revolute', parent: prev, child: body, axis: [0, 0, 1] });
    prev = body;
  }
  b.addFilterPair(5, 6);
  b.addFilterPair(7, 9);
  return b.finalize();
}

/** moves every free body randomly (body poses only, as the pipeline reads body_q) */
function jiggle(model: SapModel, q: Float64Array, rng: Rng, amount: number): void {
  for (let bd = 0; bd < model.body_count; bd++) {
    q[bd * 7] += amount * (rng() - 0.5);
    q[bd * 7 + 1] += amount * (rng() - 0.5);
    q[bd * 7 + 2] += 0.3 * amount * (rng() - 0.5);
  }
}

describe('broad phases', () => {
  it('explicit, sap and nxn give identical contact lists on random multi-world scenes', () => {
    for (const seed of [1, 2, 3]) {
      const model = clutter(seed, 3);
      const state = posedState(model);
      const modes = ['explicit', 'sap', 'nxn'] as const;
      const pipes = modes.map(
        (m) => new SapCollisionPipeline(model, { broad_phase: m, rigid_contact_max: 400 }),
      );
      const bufs = pipes.map((p) => p.contacts());
      const rng = makeRng(100 + seed);
      for (let round = 0; round < 4; round++) {
        pipes.forEach((p, k) => p.collide(state, bufs[k]));
        const ref = contactRecords(bufs[0]);
        expect(ref.length).toBeGreaterThan(60);
        for (let k = 1; k < 3; k++) {
          expect(contactRecords(bufs[k])).toEqual(ref);
          expect(pipes[k].last_broad_phase_pair_count).toBe(pipes[0].last_broad_phase_pair_count);
        }
        for (let w = 0; w < 3; w++) expect(bufs[0].truncated[w]).toBe(0);
        // contract: φ₀ = nᵀ(x1 − x0) − m0 − m1 for every contact
        for (let w = 0; w < model.num_worlds; w++) {
          for (let i = 0; i < bufs[0].count[w]; i++) {
            const kk = w * bufs[0].capacity + i;
            const { x0, x1, n } = worldWitnesses(bufs[0], state, kk);
            const d = n[0] * (x1[0] - x0[0]) + n[1] * (x1[1] - x0[1]) + n[2] * (x1[2] - x0[2]);
            expect(Math.abs(d - bufs[0].margin0[kk] - bufs[0].margin1[kk] - bufs[0].phi0[kk])).toBeLessThan(
              1e-9,
            );
          }
        }
        jiggle(model, state.body_q, rng, 0.3);
      }
    }
  });

  it('sap switches its sweep axis with the spread of the shapes', () => {
    const b = new ModelBuilder();
    for (let i = 0; i < 10; i++) {
      const body = b.addBody({ X_wb: [0, 0.3 * i, 0, 0, 0, 0, 1] });
      b.addShape({ body, type: 'sphere', size: [0.2] });
    }
    const model = b.finalize();
    const p = new SapCollisionPipeline(model, { broad_phase: 'sap' });
    const c = p.contacts();
    const state = posedState(model);
    p.collide(state, c);
    const broad = (p as unknown as { broad: { lastAxis: Int32Array } }).broad;
    expect(broad.lastAxis[0]).toBe(1);
    expect(c.count[0]).toBe(9);
    for (let i = 0; i < 10; i++) {
      state.body_q[i * 7] = 0.3 * i;
      state.body_q[i * 7 + 1] = 0;
    }
    p.collide(state, c);
    expect(broad.lastAxis[0]).toBe(0);
    expect(c.count[0]).toBe(9);
  });

  it('the merge sort sorts by key then value and is linear on sorted input', () => {
    const rng = makeRng(4);
    const n = 500;
    const k = Float64Array.from({ length: n }, () => Math.floor(20 * rng()));
    const v = Int32Array.from({ length: n }, (_, i) => n - i);
    const ref = Array.from(k, (x, i) => [x, v[i]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    mergeSortKeys(k, v, 0, n, new Float64Array(n), new Int32Array(n));
    expect(Array.from(k)).toEqual(ref.map((r) => r[0]));
    expect(Array.from(v)).toEqual(ref.map((r) => r[1]));
  });
});

describe('options', () => {
  it('broad_phase aliases are normalized; bad values and unknown keys name the key', () => {
    expect(normalizeBroadPhase('SAP')).toBe('sap');
    expect(normalizeBroadPhase(' sweep_and_prune ')).toBe('sap');
    expect(normalizeBroadPhase('sweep-and-prune')).toBe('sap');
    expect(normalizeBroadPhase('NxN')).toBe('nxn');
    expect(normalizeBroadPhase('all_pairs')).toBe('nxn');
    expect(normalizeBroadPhase('Explicit')).toBe('explicit');
    let err: unknown;
    try {
      normalizeBroadPhase('octree');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CollisionOptionsError);
    expect((err as CollisionOptionsError).key).toBe('broad_phase');
    expect((err as Error).message).toMatch(/explicit, sap, nxn/);
    expect(() => resolveCollisionOptions({ broad_phase: 3 as unknown as string })).toThrow(/broad_phase/);
    expect(() => resolveCollisionOptions({ brod_phase: 'sap' } as unknown as object)).toThrow(/brod_phase/);
    expect(resolveCollisionOptions({ max_rigid_contact: 12 }).rigid_contact_max).toBe(12);
    expect(() => resolveCollisionOptions({ max_rigid_contact: 12, rigid_contact_max: 13 })).toThrow(
      CollisionOptionsError,
    );
    expect(() => resolveCollisionOptions({ on_unsupported: 'ignore' as 'count' })).toThrow(/on_unsupported/);
    const b = new ModelBuilder();
    b.addGround();
    const p = new SapCollisionPipeline(b.finalize(), { broad_phase: 'Sweep' });
    expect(p.broad_phase).toBe('sap');
  });

  it('the default is explicit up to EXPLICIT_MAX_SHAPES colliding shapes in a world, then sap', () => {
    const spheres = (n: number, worlds = 1): SapModel => {
      const b = new ModelBuilder();
      b.num_worlds = worlds;
      b.addGround();
      for (let i = 0; i < n; i++) {
        const body = b.addBody({ X_wb: [0.3 * i, 0, 0.1, 0, 0, 0, 1] });
        b.addShape({ body, type: 'sphere', size: [0.1] });
      }
      return b.finalize();
    };
    // the ground (world −1) joins every world's list
    expect(new SapCollisionPipeline(spheres(EXPLICIT_MAX_SHAPES - 1)).broad_phase).toBe('explicit');
    expect(new SapCollisionPipeline(spheres(EXPLICIT_MAX_SHAPES)).broad_phase).toBe('sap');
    expect(new SapCollisionPipeline(spheres(40, 8)).broad_phase).toBe('explicit'); // many small worlds
    const big = spheres(EXPLICIT_MAX_SHAPES + 10);
    expect(new SapCollisionPipeline(big, { broad_phase: 'explicit' }).broad_phase).toBe('explicit');
  });
});

describe('unsupported pairs', () => {
  function planes(): SapModel {
    const b = new ModelBuilder();
    b.addGround();
    const body = b.addBody({ X_wb: [0, 0, 0.5, 0, 0, 0, 1] });
    b.addShape({ body, type: 'plane', size: [0.5, 0.5, 0], label: 'paddle' });
    b.addShape({ body, type: 'sphere', size: [0.1] });
    return b.finalize();
  }
  it('are counted per world and listed by type, never silently dropped', () => {
    const model = planes();
    const p = new SapCollisionPipeline(model);
    expect(p.unsupported_pair_types).toEqual(['plane–plane']);
    const c = p.contacts();
    p.collide(posedState(model), c);
    expect(p.last_unsupported_pair_count).toBe(1);
    expect(c.unsupported[0]).toBe(1);
    expect(Array.from(p.last_unsupported_pair).sort()).toEqual([0, 2]);
    // a supported-only model lists nothing
    const b = new ModelBuilder();
    b.addGround();
    b.addShape({ body: b.addBody(), type: 'cone', size: [0.1, 0.1] });
    expect(new SapCollisionPipeline(b.finalize()).unsupported_pair_types).toEqual([]);
  });
  it("on_unsupported: 'throw' raises an error naming the pair", () => {
    const model = planes();
    const p = new SapCollisionPipeline(model, { on_unsupported: 'throw' });
    expect(() => p.collide(posedState(model), p.contacts())).toThrow(UnsupportedPairError);
    expect(() => p.collide(posedState(model), p.contacts())).toThrow(/plane–plane.*'paddle'/);
  });
});

describe('model filters', () => {
  it('model filter pairs, per-joint parent filtering and welded bodies', () => {
    const b = new ModelBuilder();
    const base = b.addBody({ X_wb: [0, 0, 1, 0, 0, 0, 1] });
    const wall = b.addBody({ X_wb: [0, 0, 1.05, 0, 0, 0, 1] });
    const arm = b.addBody({ X_wb: [0, 0.05, 1, 0, 0, 0, 1] });
    const tip = b.addBody({ X_wb: [0, 0.1, 1, 0, 0, 0, 1] });
    const s0 = b.addShape({ body: base, type: 'box', size: [0.1, 0.1, 0.1] });
    const s1 = b.addShape({ body: wall, type: 'box', size: [0.1, 0.1, 0.1] });
    const s2 = b.addShape({ body: arm, type: 'box', size: [0.1, 0.1, 0.1] });
    const s3 = b.addShape({ body: tip, type: 'box', size: [0.1, 0.1, 0.1] });
    b.addJoint({ type: 'fixed', parent: -1, child: base });
    b.addJoint({ type: 'fixed', parent: base, child: wall }); // welded to the world through base
    b.addJoint({ type: 'revolute', parent: base, child: arm, collision_filter_parent: false });
    b.addJoint({ type: 'revolute', parent: arm, child: tip }); // filtered (default)
    b.addFilterPair(s1, s2);
    const model = b.finalize();
    const state = posedState(model);
    const pairsOf = (c: ReturnType<typeof collideOnce>) => {
      const set = new Set<string>();
      for (let i = 0; i < c.count[0]; i++) set.add([c.shape0[i], c.shape1[i]].sort().join('-'));
      return [...set].sort();
    };
    const idx = (a: number, b2: number) => {
      // shape indices are authored order within world 0
      return [a, b2].sort().join('-');
    };
    // base–wall: both welded (static) → no; base–arm: parent/child but the joint allows it → yes;
    // wall–arm: filter pair → no; arm–tip: parent/child filtered → no; base–tip, wall–tip: yes
    const expected = [idx(s0, s2), idx(s0, s3), idx(s1, s3)].sort();
    expect(pairsOf(collideOnce(model, state))).toEqual(expected);
    // options: true excludes every parent/child pair, false none (model flags ignored)
    expect(pairsOf(collideOnce(model, state, { filter_parent_child: true }))).toEqual(
      [idx(s0, s3), idx(s1, s3)].sort(),
    );
    expect(pairsOf(collideOnce(model, state, { filter_parent_child: false }))).toEqual(
      [idx(s0, s2), idx(s0, s3), idx(s1, s3), idx(s2, s3)].sort(),
    );
    // the option's filter pairs add to the model's
    expect(pairsOf(collideOnce(model, state, { filter_pairs: [[s3, s0]] }))).toEqual(
      [idx(s0, s2), idx(s1, s3)].sort(),
    );
    expect(() => collideOnce(model, state, { filter_pairs: [[0, 99]] })).toThrow(/filter_pairs/);
  });
});

describe('AABBs', () => {
  it('contain every shape (meshes from their scaled vertices, heightfields from their grid)', () => {
    const model = clutter(8, 1, 24);
    const p = new SapCollisionPipeline(model);
    const state = posedState(model);
    p.collide(state, p.contacts());
    const g = p.geom;
    const rng = makeRng(9);
    for (let s = 0; s < model.shape_count; s++) {
      const t = model.shape_type[s];
      const infl = model.shape_margin[s] + model.shape_gap[s];
      const a = g.aabb.subarray(s * 6, s * 6 + 6);
      if (t === 0) continue; // infinite plane
      const pts: number[][] = [];
      if (t === 9) {
        const h = model.shape_hfield[s];
        const [sx, sy, sz] = [
          model.hfield_size[h * 4],
          model.hfield_size[h * 4 + 1],
          model.hfield_size[h * 4 + 2],
        ];
        const nr = model.hfield_nrow[h],
          nc = model.hfield_ncol[h];
        for (let r = 0; r < nr; r++)
          for (let c = 0; c < nc; c++)
            pts.push([
              g.pos[s * 3] - sx + (2 * sx * c) / (nc - 1),
              g.pos[s * 3 + 1] - sy + (2 * sy * r) / (nr - 1),
              g.pos[s * 3 + 2] + sz * model.hfield_data[model.hfield_data_start[h] + r * nc + c],
            ]);
      } else {
        const sup = shapeSupport(g, s);
        for (let k = 0; k < 200; k++) pts.push(sup([rng() - 0.5, rng() - 0.5, rng() - 0.5]));
      }
      for (const q of pts) {
        for (let k = 0; k < 3; k++) {
          expect(q[k]).toBeGreaterThanOrEqual(a[k] + infl - 1e-9);
          expect(q[k]).toBeLessThanOrEqual(a[3 + k] - infl + 1e-9);
        }
      }
    }
  });
});

describe('capacity with multi-point manifolds', () => {
  it('drops exactly the excess per world, counts it, and leaves other worlds untouched (every mode)', () => {
    const model = clutter(21, 4);
    const state = posedState(model);
    for (const mode of ['explicit', 'sap', 'nxn'] as const) {
      const full = new SapCollisionPipeline(model, { broad_phase: mode, rigid_contact_max: 500 });
      const cf = full.contacts();
      full.collide(state, cf);
      const small = new SapCollisionPipeline(model, { broad_phase: mode, rigid_contact_max: 7 });
      const cs = small.contacts();
      // poison the slots to detect out-of-range writes
      cs.phi0.fill(12345);
      small.collide(state, cs);
      const rf = contactRecords(cf),
        rs = contactRecords(cs);
      let total = 0;
      for (let w = 0; w < 4; w++) {
        const nf = cf.count[w];
        expect(nf).toBeGreaterThan(7);
        expect(cs.count[w]).toBe(7);
        expect(cs.truncated[w]).toBe(nf - 7);
        total += nf - 7;
        expect(rs.filter((r) => r.w === w)).toEqual(rf.filter((r) => r.w === w).slice(0, 7));
      }
      expect(small.last_truncated_contact_count).toBe(total);
      expect(cs.phi0.length).toBe(28);
      for (const x of cs.phi0) expect(x).not.toBe(12345);
    }
  });
});
