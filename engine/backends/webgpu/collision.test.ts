/**
 * GPU collision plan (no device needed): the candidate pairs are the CPU pipeline's statically
 * allowed pairs in its order, and a model with a pair type that is not on the GPU falls back with
 * the reason.
 */
import { describe, expect, it } from 'vitest';
import { makePairFilter, pairAllowed } from '../../collision/filter';
import { SapCollisionPipeline } from '../../collision/pipeline';
import { ModelBuilder } from '../../model';
import { GPU_ROUTINES, gpuCollisionPlan } from './collision';
import { collisionModel } from './testing/collision_fixtures';

describe('GPU collision plan', () => {
  it('lists the allowed pairs per world in (lower, higher) shape order, shape 0 the lower type', () => {
    const m = collisionModel(3);
    const plan = gpuCollisionPlan(m);
    expect(plan.supported).toBe(true);
    expect(plan.reason).toBeUndefined();
    const f = makePairFilter(m, {});
    let n = 0;
    for (let w = 0; w < m.num_worlds; w++) {
      let prev = -1;
      for (let p = plan.worldStart[w]; p < plan.worldStart[w + 1]; p++) {
        const s0 = plan.pairs[4 * p],
          s1 = plan.pairs[4 * p + 1];
        expect(plan.pairs[4 * p + 2]).toBe(w);
        expect(pairAllowed(f, s0, s1)).toBe(true);
        expect(m.shape_type[s0]).toBeLessThanOrEqual(m.shape_type[s1]);
        if (m.shape_type[s0] === m.shape_type[s1]) expect(s0).toBeLessThan(s1);
        const key = Math.min(s0, s1) * m.shape_count + Math.max(s0, s1);
        expect(key).toBeGreaterThan(prev);
        prev = key;
        n++;
      }
    }
    expect(n).toBe(plan.count);
    expect(GPU_ROUTINES).toContain('box–box');
    expect(GPU_ROUTINES).toContain('capsule–box');
  });

  it('falls back to the CPU with the reason when a pair type is not on the GPU', () => {
    const b = new ModelBuilder();
    b.addGround();
    const body0 = b.addBody({ X_wb: [0, 0, 1, 0, 0, 0, 1] });
    b.addShape({ body: body0, type: 'capsule', size: [0.05, 0.1, 0] });
    b.addJoint({ type: 'free', parent: -1, child: body0 });
    const body1 = b.addBody({ X_wb: [0, 0, 2, 0, 0, 0, 1] });
    b.addShape({ body: body1, type: 'cylinder', size: [0.1, 0.1, 0] });
    b.addJoint({ type: 'free', parent: -1, child: body1 });
    const plan = gpuCollisionPlan(b.finalize());
    expect(plan.supported).toBe(false);
    expect(plan.reason).toBe(
      'collision on the CPU: capsule–cylinder (shapes 0 and 1), plane–cylinder (shapes 2 and 1) are not on the GPU yet',
    );
  });

  it("carries the material fallbacks of shapes without one into the pairs' τ, μ and 1/ke, as the CPU pipeline does", () => {
    const b = new ModelBuilder();
    b.default_shape = { ...b.default_shape, ke: NaN, tau: NaN, mu: NaN }; // as a scene file without material
    b.addShape({ body: -1, type: 'plane', size: [0, 0, 0] });
    const body = b.addBody({ X_wb: [0, 0, 0.1, 0, 0, 0, 1] });
    b.addShape({ body, type: 'sphere', size: [0.1, 0, 0], cfg: { tau: 0.3 } });
    b.addJoint({ type: 'free', parent: -1, child: body });
    const m = b.finalize();
    const plan = gpuCollisionPlan(m, { tau_d: 0.02, mu: 0.8, stiffness: 4e5 });
    expect(plan.count).toBe(1);
    expect(plan.pairD[5]).toBeCloseTo(0.02 + 0.3, 15); // τ: the plane's fallback + the sphere's own
    expect(plan.pairD[6]).toBeCloseTo(0.8, 15); // μ: both fallbacks
    expect(plan.pairD[4]).toBeCloseTo(1 / 2e5, 15); // 1/ke: two 4e5 shapes in series
    expect(Array.from(plan.material.tau)).toEqual(
      Array.from(
        new SapCollisionPipeline(m, {
          material: { tau_d: 0.02, mu: 0.8, stiffness: 4e5 },
        }).material.tau,
      ),
    );
    expect(gpuCollisionPlan(m).pairD[5]).toBeCloseTo(0.1 + 0.3, 15); // default fallback τ 0.1 s
  });
});
