/**
 * Divergence of a run that the solver reports as converged: bodies that passed through each other.
 *
 * The SAP solve converges for any time step, but at a step too large for a contact's stiffness
 * and the bodies' speeds (dt = 1 s on a box stack) the bodies sink through the floor and each
 * other and fall on. Each step's contacts show it: a contact deeper than the smaller of its two
 * shapes' bounding radii means one shape's centre passed the other's surface. No compliant contact
 * rests that deep, so the monitor reports it as divergence with the world, the bodies and the depth.
 */
import type { SapContacts } from '../collision/contacts';
import { makeShapeGeom, updateShapeGeom } from '../collision/geometry';
import type { SapModel } from '../model';

/** a contact that shows the bodies passed through each other */
export interface Divergence {
  world: number;
  /** body indices (−1: the world) */
  body_a: number;
  body_b: number;
  /** how far the shapes overlap, −φ₀ [m] */
  depth: number;
  /** the smaller of the two shapes' bounding radii, the depth's limit [m] */
  limit: number;
}

/** per-shape bounding radii and the per-step check of the contacts against them */
export class DivergenceMonitor {
  /** (shape_count) bounding radius about the shape origin, from its AABB at rest [m]; Infinity for unbounded shapes */
  readonly shape_radius: Float64Array;

  constructor(readonly model: SapModel) {
    const g = makeShapeGeom(model);
    const identity = new Float64Array(model.body_count * 7);
    for (let b = 0; b < model.body_count; b++) identity[b * 7 + 6] = 1;
    updateShapeGeom(model, identity, g);
    this.shape_radius = new Float64Array(model.shape_count);
    for (let s = 0; s < model.shape_count; s++) {
      const a = g.aabb;
      const hx = (a[s * 6 + 3] - a[s * 6]) / 2,
        hy = (a[s * 6 + 4] - a[s * 6 + 1]) / 2,
        hz = (a[s * 6 + 5] - a[s * 6 + 2]) / 2;
      const r = Math.sqrt(hx * hx + hy * hy + hz * hz);
      this.shape_radius[s] = Number.isFinite(r) ? r : Infinity;
    }
  }

  /** the deepest contact deeper than its limit, or null (allocation-free when there is none) */
  check(c: SapContacts): Divergence | null {
    let worst: Divergence | null = null;
    let worstRatio = 1;
    for (let w = 0; w < c.num_worlds; w++) {
      for (let i = 0; i < c.count[w]; i++) {
        const slot = w * c.capacity + i;
        const depth = -c.phi0[slot];
        if (!(depth > 0)) continue;
        const limit = Math.min(this.radiusOf(c.shape0[slot]), this.radiusOf(c.shape1[slot]));
        if (!Number.isFinite(limit) || limit <= 0) continue;
        const ratio = depth / limit;
        if (ratio > worstRatio) {
          worstRatio = ratio;
          worst = { world: w, body_a: c.body0[slot], body_b: c.body1[slot], depth, limit };
        }
      }
    }
    return worst;
  }

  private radiusOf(s: number): number {
    return s >= 0 && s < this.shape_radius.length ? this.shape_radius[s] : Infinity;
  }
}
