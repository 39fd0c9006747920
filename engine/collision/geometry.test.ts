import { describe, expect, it } from 'vitest';
import { makeRng } from '../math';
import { ModelBuilder, SHAPE_TYPE_NAMES } from '../model';
import { makeState } from '../kinematics';
import { aabbAbovePlane, makeShapeGeom, updateShapeGeom } from './geometry';
import { makeManifold } from './manifold';
import { NARROW_PHASE_TABLE } from './narrowphase';
import { randomQuat } from './primitives/narrow_fixtures';

describe('aabbAbovePlane (the plane pairs’ early out)', () => {
  it('culls only pairs whose narrow phase finds no point', () => {
    const b = new ModelBuilder();
    // a tilted plane on a body, with its own margin and gap
    b.addShape({ body: b.addBody(), type: 'plane', size: [0, 0], cfg: { margin: 0.004, gap: 0.01 } });
    const tetra = b.addMesh({
      vertices: [0, 0, 0, 0.2, 0, 0, 0, 0.15, 0, 0, 0, 0.1],
      triangles: [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3],
    });
    const shapes: [string, number[], number?][] = [
      ['sphere', [0.05]],
      ['capsule', [0.03, 0.08]],
      ['box', [0.05, 0.1, 0.02]],
      ['cylinder', [0.04, 0.06]],
      ['cone', [0.05, 0.07]],
      ['ellipsoid', [0.03, 0.06, 0.09]],
      ['convex_mesh', [1.5, 1, 0.8], tetra],
      ['mesh', [1, 1.2, 1], tetra],
    ];
    for (const [type, size, mesh] of shapes)
      b.addShape({ body: b.addBody(), type: type as 'box', size, mesh, cfg: { margin: 0.002, gap: 0.005 } });
    const model = b.finalize();
    const st = makeState(model);
    const g = makeShapeGeom(model);
    const out = makeManifold();
    const r = makeRng(7);
    let culled = 0,
      kept = 0,
      keptEmpty = 0;
    for (let trial = 0; trial < 400; trial++) {
      for (let k = 0; k < model.body_count; k++) {
        const q = randomQuat(r);
        const x = [0.4 * (r() - 0.5), 0.4 * (r() - 0.5), 0.25 * (r() - 0.3)];
        if (k === 0) x.fill(0);
        st.body_q.set([...x, ...q], 7 * k);
      }
      updateShapeGeom(model, st.body_q, g);
      for (let s = 1; s < model.shape_count; s++) {
        const fn = NARROW_PHASE_TABLE[model.shape_type[0]][model.shape_type[s]];
        expect(fn, SHAPE_TYPE_NAMES[model.shape_type[s]]).not.toBeNull();
        out.count = 0;
        fn!(
          g,
          0,
          s,
          model.shape_margin[0] + model.shape_margin[s],
          model.shape_gap[0] + model.shape_gap[s],
          out,
        );
        if (aabbAbovePlane(g, 0, s, model.shape_margin[0] + model.shape_gap[0])) {
          culled++;
          expect(out.count, `${SHAPE_TYPE_NAMES[model.shape_type[s]]} culled with points`).toBe(0);
        } else {
          kept++;
          if (out.count === 0) keptEmpty++;
        }
      }
    }
    // the test sees both sides: far shapes culled, near ones kept (with and without points)
    expect(culled).toBeGreaterThan(300);
    expect(kept - keptEmpty).toBeGreaterThan(1000);
    expect(keptEmpty).toBeGreaterThan(100);
  });

  it('keeps a box resting exactly on the band and culls it just above', () => {
    const b = new ModelBuilder();
    b.addShape({ body: -1, type: 'plane', size: [0, 0], cfg: { margin: 0, gap: 0.01 } });
    b.addShape({ body: b.addBody(), type: 'box', size: [0.05, 0.05, 0.05], cfg: { margin: 0, gap: 0 } });
    const model = b.finalize();
    const st = makeState(model);
    const g = makeShapeGeom(model);
    for (const [z, cull] of [
      [0.05 + 0.01, false],
      [0.05 + 0.0101, true],
    ] as const) {
      st.body_q.set([0.3, -0.2, z, 0, 0, 0, 1], 0);
      updateShapeGeom(model, st.body_q, g);
      expect(aabbAbovePlane(g, 0, 1, 0.01)).toBe(cull);
    }
  });

  it('never culls an unbounded AABB', () => {
    const b = new ModelBuilder();
    b.addShape({ body: -1, type: 'plane', size: [0, 0] });
    b.addShape({ body: b.addBody(), type: 'plane', size: [0, 0] });
    const model = b.finalize();
    const st = makeState(model);
    st.body_q.set([0, 0, 5, 0, 0, 0, 1], 0);
    const g = makeShapeGeom(model);
    updateShapeGeom(model, st.body_q, g);
    expect(aabbAbovePlane(g, 0, 1, 0)).toBe(false);
  });
});
