/**
 * SapCollisionPipeline (SPEC §4): body poses → inflated world AABBs → broad phase → narrow phase →
 * bounded per-world contact buffer.
 *
 * Conventions chosen here:
 * - **Shape order within a contact.** shape 0 is the shape of the lower ShapeType, ties broken by
 *   the lower shape index. The ground (a plane, type 0) is therefore always shape 0 and its contact
 *   normals point up, out of the ground into the other shape. The normal always points from shape 0
 *   into shape 1 (the `SapContacts` contract).
 * - **Candidates.** A point is written exactly when d − (m0 + m1) ≤ g0 + g1, d being the un-inflated
 *   signed distance; φ₀ = d − m0 − m1 = nᵀ(x1 − x0) − m0 − m1.
 * - **Deterministic order.** Within world w, pairs are visited in ascending (lower shape index,
 *   higher shape index) order over the world's shapes and the shared (world −1) shapes, and the
 *   points of one pair in ascending feature id. Identical inputs give identical contact lists.
 * - **Capacity.** Each world has `contacts.capacity` slots; once full, further candidates of that
 *   world (the last ones in the order above) are counted in `truncated[w]` and never written.
 * - **Shared shapes** (shape_world −1) meet the shapes of every world; their contacts are written to
 *   that world's slots.
 */
import { transformPointInv } from '../math';
import type { SapModel } from '../model';
import type { SapState } from '../state';
import {
  combineFriction,
  combineStiffness,
  makeContacts,
  totalTruncated,
  type SapContacts,
} from './contacts';
import { makeFilterPairSet, shapePairAllowed } from './filter';
import { aabbOverlap, makeShapeGeom, updateShapeGeom, type ShapeGeom } from './geometry';
import { makeManifold, sortManifoldByFeature, type ContactManifold } from './manifold';
import { collideShapes } from './narrowphase';

/** broad-phase modes available now ('sap' sweep-and-prune is a later addition) */
export type BroadPhaseMode = 'nxn' | 'explicit';

export interface CollisionPipelineOptions {
  /** contact slots per world (default 256) */
  rigid_contact_max?: number;
  /**
   * 'explicit' (default): the filtered shape-pair list is built once at construction and each
   * collide only AABB-tests those pairs. 'nxn': every pair of a world is filtered and AABB-tested on
   * every collide (same result; useful for debugging).
   */
  broad_phase?: BroadPhaseMode;
  /** exclude shapes of joint parent/child bodies from colliding (default true) */
  filter_parent_child?: boolean;
  /** extra shape pairs that never collide */
  filter_pairs?: readonly (readonly [number, number])[];
}

export class SapCollisionPipeline {
  readonly model: SapModel;
  /** contact slots per world of buffers made by {@link contacts} */
  readonly rigid_contact_max: number;
  readonly broad_phase: BroadPhaseMode;
  readonly filter_parent_child: boolean;

  /** candidates dropped for lack of capacity in the last collide, all worlds */
  last_truncated_contact_count = 0;
  /** pairs that passed the broad phase in the last collide */
  last_broad_phase_pair_count = 0;
  /** broad-phase pairs whose shape types have no narrow-phase routine yet (skipped) in the last collide */
  last_unsupported_pair_count = 0;

  /** world-frame shape data of the last collide */
  readonly geom: ShapeGeom;
  private readonly manifold: ContactManifold = makeManifold();
  private readonly filterSet: Set<number>;
  /** (num_worlds + 1) ranges into worldShapes */
  private readonly worldShapeStart: Int32Array;
  /** per world: its shapes and the shared shapes, ascending */
  private readonly worldShapes: Int32Array;
  /** explicit mode: (num_worlds + 1) ranges into pairs (in pairs, not numbers) */
  private readonly pairStart: Int32Array | null = null;
  /** explicit mode: filtered pairs (a < b), two numbers each */
  private readonly pairs: Int32Array | null = null;

  constructor(model: SapModel, opts: CollisionPipelineOptions = {}) {
    const max = opts.rigid_contact_max ?? 256;
    if (!(Number.isInteger(max) && max >= 0)) {
      throw new RangeError(`rigid_contact_max must be an integer ≥ 0; got ${max}`);
    }
    const mode = opts.broad_phase ?? 'explicit';
    if (mode !== 'nxn' && mode !== 'explicit') {
      throw new RangeError(`broad_phase must be 'nxn' or 'explicit'; got '${String(mode)}'`);
    }
    this.model = model;
    this.rigid_contact_max = max;
    this.broad_phase = mode;
    this.filter_parent_child = opts.filter_parent_child ?? true;
    this.filterSet = makeFilterPairSet(model, opts.filter_pairs);
    this.geom = makeShapeGeom(model);

    // per-world shape lists (the world's own shapes plus the shared ones, ascending)
    const nw = model.num_worlds;
    const lists: number[][] = Array.from({ length: nw }, () => []);
    for (let s = 0; s < model.shape_count; s++) {
      const w = model.shape_world[s];
      if (w === -1) for (const l of lists) l.push(s);
      else if (w >= 0 && w < nw) lists[w].push(s);
    }
    this.worldShapeStart = new Int32Array(nw + 1);
    for (let w = 0; w < nw; w++) this.worldShapeStart[w + 1] = this.worldShapeStart[w] + lists[w].length;
    this.worldShapes = Int32Array.from(lists.flat());

    if (mode === 'explicit') {
      const pairStart = new Int32Array(nw + 1);
      const pairs: number[] = [];
      for (let w = 0; w < nw; w++) {
        const l = lists[w];
        for (let i = 0; i < l.length; i++) {
          for (let j = i + 1; j < l.length; j++) {
            if (shapePairAllowed(model, l[i], l[j], this.filter_parent_child, this.filterSet))
              pairs.push(l[i], l[j]);
          }
        }
        pairStart[w + 1] = pairs.length / 2;
      }
      this.pairStart = pairStart;
      this.pairs = Int32Array.from(pairs);
    }
  }

  /** allocates a contact buffer sized for this pipeline (num_worlds × rigid_contact_max slots) */
  contacts(): SapContacts {
    return makeContacts(this.model.num_worlds, this.rigid_contact_max);
  }

  /**
   * Clears `contacts` and fills it from the body poses `state.body_q` (which must be current, i.e.
   * forward kinematics already ran). Allocation-free.
   */
  collide(state: SapState, contacts: SapContacts): void {
    const m = this.model;
    if (contacts.num_worlds !== m.num_worlds) {
      throw new RangeError(`contact buffer has ${contacts.num_worlds} worlds; the model has ${m.num_worlds}`);
    }
    contacts.count.fill(0);
    contacts.truncated.fill(0);
    this.last_broad_phase_pair_count = 0;
    this.last_unsupported_pair_count = 0;
    updateShapeGeom(m, state.body_q, this.geom);
    const aabb = this.geom.aabb;
    for (let w = 0; w < m.num_worlds; w++) {
      if (this.pairs !== null && this.pairStart !== null) {
        const pairs = this.pairs;
        for (let p = this.pairStart[w]; p < this.pairStart[w + 1]; p++) {
          const a = pairs[2 * p],
            b = pairs[2 * p + 1];
          if (aabbOverlap(aabb, a, b)) this.collidePair(w, a, b, state, contacts);
        }
      } else {
        const list = this.worldShapes;
        const end = this.worldShapeStart[w + 1];
        for (let i = this.worldShapeStart[w]; i < end; i++) {
          const a = list[i];
          for (let j = i + 1; j < end; j++) {
            const b = list[j];
            if (!shapePairAllowed(m, a, b, this.filter_parent_child, this.filterSet)) continue;
            if (aabbOverlap(aabb, a, b)) this.collidePair(w, a, b, state, contacts);
          }
        }
      }
    }
    this.last_truncated_contact_count = totalTruncated(contacts);
  }

  /** narrow phase of one broad-phase pair (a < b) of world w, writing its points */
  private collidePair(w: number, a: number, b: number, state: SapState, c: SapContacts): void {
    const m = this.model;
    this.last_broad_phase_pair_count++;
    // shape 0 = lower type, ties → lower index (a < b already)
    let s0 = a,
      s1 = b;
    if (m.shape_type[b] < m.shape_type[a]) {
      s0 = b;
      s1 = a;
    }
    const m0 = m.shape_margin[s0],
      m1 = m.shape_margin[s1];
    const out = this.manifold;
    out.count = 0;
    if (!collideShapes(this.geom, s0, s1, m0 + m1, m.shape_gap[s0] + m.shape_gap[s1], out)) {
      this.last_unsupported_pair_count++;
      return;
    }
    if (out.count === 0) return;
    sortManifoldByFeature(out);
    const b0 = m.shape_body[s0],
      b1 = m.shape_body[s1];
    const ke0 = m.shape_ke[s0],
      ke1 = m.shape_ke[s1];
    const ke = combineStiffness(ke0, ke1);
    const tau = m.shape_tau[s0] + m.shape_tau[s1];
    const mu = combineFriction(m.shape_mu[s0], m.shape_mu[s1]);
    const cap = c.capacity;
    const q = state.body_q;
    for (let i = 0; i < out.count; i++) {
      const n = c.count[w];
      if (n >= cap) {
        c.truncated[w]++;
        continue;
      }
      c.count[w] = n + 1;
      const k = w * cap + n;
      const k3 = k * 3,
        i3 = i * 3;
      c.shape0[k] = s0;
      c.shape1[k] = s1;
      c.body0[k] = b0;
      c.body1[k] = b1;
      if (b0 >= 0) transformPointInv(q, b0 * 7, out.pointA, i3, c.point0, k3);
      else for (let d = 0; d < 3; d++) c.point0[k3 + d] = out.pointA[i3 + d];
      if (b1 >= 0) transformPointInv(q, b1 * 7, out.pointB, i3, c.point1, k3);
      else for (let d = 0; d < 3; d++) c.point1[k3 + d] = out.pointB[i3 + d];
      for (let d = 0; d < 3; d++) {
        c.normal[k3 + d] = out.normal[i3 + d];
        c.force[k3 + d] = 0;
        c.position[k3 + d] = 0;
      }
      c.slip_state[k] = 0;
      c.margin0[k] = m0;
      c.margin1[k] = m1;
      c.phi0[k] = out.distance[i] - m0 - m1;
      c.ke0[k] = ke0;
      c.ke1[k] = ke1;
      c.ke[k] = ke;
      c.tau[k] = tau;
      c.mu[k] = mu;
      c.feature[k] = out.feature[i];
    }
  }
}

/**
 * One-shot form: builds a pipeline, allocates a buffer and collides once. Allocates; use
 * {@link SapCollisionPipeline} in a stepping loop.
 */
export function collideOnce(model: SapModel, state: SapState, opts?: CollisionPipelineOptions): SapContacts {
  const p = new SapCollisionPipeline(model, opts);
  const c = p.contacts();
  p.collide(state, c);
  return c;
}
