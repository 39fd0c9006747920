/**
 * SapCollisionPipeline (SPEC §4): body poses → inflated world AABBs → broad phase → narrow phase →
 * bounded per-world contact buffer.
 *
 * Conventions chosen here:
 * - **Shape order within a contact.** shape 0 is the shape of the lower ShapeType, ties broken by
 *   the lower shape index. The ground (a plane, type 0) is therefore always shape 0 and its contact
 *   normals point up, out of the ground into the other shape; a heightfield (type 9) is always
 *   shape 1, its normals point down into it. The normal always points from shape 0 into shape 1 (the
 *   `SapContacts` contract).
 * - **Candidates.** A point is written exactly when d − (m0 + m1) ≤ g0 + g1, d being the un-inflated
 *   signed distance; φ₀ = d − m0 − m1 = nᵀ(x1 − x0) − m0 − m1.
 * - **Deterministic order.** Within world w, pairs are visited in ascending (lower shape index,
 *   higher shape index) order over the world's shapes and the shared (world −1) shapes — whatever
 *   the broad phase — and the points of one pair in ascending feature id. Identical inputs give
 *   identical contact lists, and the three broad phases give the same lists.
 * - **Capacity.** Each world has `contacts.capacity` slots; once full, further candidates of that
 *   world (the last ones in the order above) are counted in `truncated[w]` and never written; other
 *   worlds' slots are never touched.
 * - **Shared shapes** (shape_world −1) meet the shapes of every world; their contacts are written to
 *   that world's slots.
 * - **Unsupported pairs.** A broad-phase pair whose types have no narrow-phase routine (plane–plane,
 *   plane–heightfield, heightfield–heightfield) produces no contacts; it is counted per world in
 *   `contacts.unsupported` and in {@link SapCollisionPipeline.last_unsupported_pair_count}, the
 *   type pairs that can occur are listed in {@link SapCollisionPipeline.unsupported_pair_types},
 *   and with `on_unsupported: 'throw'` collide throws an {@link UnsupportedPairError} naming the pair.
 */
import { transformPointInv, zeroRun } from '../math';
import { SHAPE_TYPE_NAMES, ShapeType, type SapModel } from '../model';
import type { SapState } from '../state';
import {
  AllPairsBroadPhase,
  BROAD_PHASE_MODES,
  ExplicitBroadPhase,
  PairList,
  SweepAndPruneBroadPhase,
  makeWorldShapes,
  type BroadPhaseMode,
} from './broadphase';
import {
  combineFriction,
  combineStiffness,
  makeContacts,
  totalTruncated,
  type SapContacts,
} from './contacts';
import { makePairFilter, pairAllowed, shapeCollides, type PairFilter } from './filter';
import { aabbAbovePlane, makeShapeGeom, updateShapeGeomOf, type ShapeGeom } from './geometry';
import { makeManifold, sortManifoldByFeature, type ContactManifold } from './manifold';
import { shapeMaterialFallback, type MaterialFallbacks, type ShapeMaterial } from './material';
import { NARROW_PHASE_TABLE, pairName } from './narrowphase';

export { BROAD_PHASE_MODES, type BroadPhaseMode } from './broadphase';

/** what collide does with a pair that has no narrow-phase routine */
export type UnsupportedPairPolicy = 'count' | 'throw';

export interface CollisionPipelineOptions {
  /** contact slots per world (default 256; alias `max_rigid_contact`) */
  rigid_contact_max?: number;
  /** alias of `rigid_contact_max` (the solver-option name) */
  max_rigid_contact?: number;
  /**
   * 'explicit': the filtered shape-pair list is built once at construction and each collide only
   * AABB-tests those pairs. 'sap': sweep and prune per world. 'nxn': every pair of a world is
   * filtered and AABB-tested on every collide (debugging). Omitted: explicit, or sap when a world
   * has more than {@link EXPLICIT_MAX_SHAPES} colliding shapes (the pair list grows with the
   * square of that). Aliases (case-insensitive):
   * `sweep_and_prune`, `sweep-and-prune`, `sweep` → sap; `all_pairs`, `all-pairs`, `n2`,
   * `brute_force` → nxn; `pairs`, `precomputed` → explicit; `auto` → the default choice. Same
   * contacts in every mode.
   */
  broad_phase?: BroadPhaseMode | string;
  /**
   * material of shapes that have none (NaN or negative ke / τ / μ in the model; see
   * `material.ts`): default τ 0.1 s, μ 0.5, ke 1e6 N/m
   */
  material?: Partial<MaterialFallbacks>;
  /**
   * parent/child exclusion: omitted → the model's per-joint `joint_collision_filter_parent`;
   * true → every parent/child pair excluded; false → none
   */
  filter_parent_child?: boolean;
  /** extra shape pairs that never collide, added to the model's `shape_filter_pairs` */
  filter_pairs?: readonly (readonly [number, number])[];
  /** 'count' (default): count unsupported pairs; 'throw': throw an {@link UnsupportedPairError} */
  on_unsupported?: UnsupportedPairPolicy;
}

/** the option keys {@link SapCollisionPipeline} accepts */
export const COLLISION_OPTION_KEYS = [
  'rigid_contact_max',
  'max_rigid_contact',
  'broad_phase',
  'material',
  'filter_parent_child',
  'filter_pairs',
  'on_unsupported',
] as const;

/** thrown for unknown keys and invalid values; `key` names the offending option */
export class CollisionOptionsError extends RangeError {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
    this.name = 'CollisionOptionsError';
  }
}

/** thrown by collide (policy 'throw') for a broad-phase pair without a narrow-phase routine */
export class UnsupportedPairError extends Error {
  constructor(
    readonly shape0: number,
    readonly shape1: number,
    message: string,
  ) {
    super(message);
    this.name = 'UnsupportedPairError';
  }
}

const BROAD_PHASE_ALIASES: Readonly<Record<string, BroadPhaseMode>> = {
  explicit: 'explicit',
  pairs: 'explicit',
  precomputed: 'explicit',
  sap: 'sap',
  sweep_and_prune: 'sap',
  'sweep-and-prune': 'sap',
  sweepandprune: 'sap',
  sweep: 'sap',
  nxn: 'nxn',
  all_pairs: 'nxn',
  'all-pairs': 'nxn',
  n2: 'nxn',
  brute_force: 'nxn',
};

/**
 * Normalizes a broad-phase name (trimmed, case-insensitive, aliases resolved); throws a
 * {@link CollisionOptionsError} naming `broad_phase` and the allowed values otherwise.
 */
export function normalizeBroadPhase(raw: unknown): BroadPhaseMode {
  if (typeof raw === 'string') {
    const v = BROAD_PHASE_ALIASES[raw.trim().toLowerCase()];
    if (v !== undefined) return v;
  }
  throw new CollisionOptionsError(
    'broad_phase',
    `option 'broad_phase' must be one of ${BROAD_PHASE_MODES.join(', ')}; got ${JSON.stringify(raw)}`,
  );
}

/** validated, normalized pipeline options */
export interface ResolvedCollisionOptions {
  rigid_contact_max: number;
  /** undefined: chosen by the pipeline from the model's size ({@link EXPLICIT_MAX_SHAPES}) */
  broad_phase: BroadPhaseMode | undefined;
  material: Partial<MaterialFallbacks>;
  filter_parent_child: boolean | undefined;
  filter_pairs: readonly (readonly [number, number])[];
  on_unsupported: UnsupportedPairPolicy;
}

/** validates and normalizes pipeline options (unknown keys and bad values throw {@link CollisionOptionsError}) */
export function resolveCollisionOptions(opts: CollisionPipelineOptions = {}): ResolvedCollisionOptions {
  for (const k of Object.keys(opts)) {
    if (!(COLLISION_OPTION_KEYS as readonly string[]).includes(k)) {
      throw new CollisionOptionsError(
        k,
        `unknown collision option '${k}'; allowed: ${COLLISION_OPTION_KEYS.join(', ')}`,
      );
    }
  }
  const r = opts.rigid_contact_max,
    m = opts.max_rigid_contact;
  if (r !== undefined && m !== undefined && r !== m) {
    throw new CollisionOptionsError(
      'max_rigid_contact',
      `'rigid_contact_max' (${r}) and its alias 'max_rigid_contact' (${m}) differ`,
    );
  }
  const max = r ?? m ?? 256;
  if (!(typeof max === 'number' && Number.isInteger(max) && max >= 0)) {
    throw new CollisionOptionsError(
      r !== undefined ? 'rigid_contact_max' : 'max_rigid_contact',
      `option 'rigid_contact_max' must be an integer ≥ 0; got ${JSON.stringify(max)}`,
    );
  }
  const fpc = opts.filter_parent_child;
  if (fpc !== undefined && typeof fpc !== 'boolean') {
    throw new CollisionOptionsError(
      'filter_parent_child',
      `option 'filter_parent_child' must be one of true, false; got ${JSON.stringify(fpc)}`,
    );
  }
  const pol = opts.on_unsupported ?? 'count';
  if (pol !== 'count' && pol !== 'throw') {
    throw new CollisionOptionsError(
      'on_unsupported',
      `option 'on_unsupported' must be one of count, throw; got ${JSON.stringify(pol)}`,
    );
  }
  return {
    rigid_contact_max: max,
    broad_phase:
      opts.broad_phase === undefined || String(opts.broad_phase).trim().toLowerCase() === 'auto'
        ? undefined
        : normalizeBroadPhase(opts.broad_phase),
    material: opts.material ?? {},
    filter_parent_child: fpc,
    filter_pairs: opts.filter_pairs ?? [],
    on_unsupported: pol,
  };
}

type BroadPhase = ExplicitBroadPhase | SweepAndPruneBroadPhase | AllPairsBroadPhase;

/**
 * Most colliding shapes in one world for the default explicit broad phase: beyond it the default
 * is sweep and prune (same pairs, same order). On the 1000-box pile the explicit list holds 500k
 * pairs and a collide takes 2.6 ms against 1.3 ms with sweep and prune; on the 64-box pile both
 * take the same (~0.1 ms).
 */
export const EXPLICIT_MAX_SHAPES = 128;

export class SapCollisionPipeline {
  readonly model: SapModel;
  /** contact slots per world of buffers made by {@link contacts} */
  readonly rigid_contact_max: number;
  readonly broad_phase: BroadPhaseMode;
  /** the parent/child option as given (undefined: the model's per-joint flags) */
  readonly filter_parent_child: boolean | undefined;
  readonly on_unsupported: UnsupportedPairPolicy;
  /** per-shape contact material with the fallbacks applied (what every contact combines) */
  readonly material: ShapeMaterial;

  /** candidates dropped for lack of capacity in the last collide, all worlds */
  last_truncated_contact_count = 0;
  /** pairs that passed the broad phase in the last collide */
  last_broad_phase_pair_count = 0;
  /** broad-phase pairs whose shape types have no narrow-phase routine (no contacts) in the last collide */
  last_unsupported_pair_count = 0;
  /** shape indices of the first unsupported pair of the last collide ([-1, -1] when none) */
  readonly last_unsupported_pair: Int32Array = new Int32Array([-1, -1]);
  /**
   * the shape-type pairs without a routine that this model can present to the narrow phase
   * (e.g. "plane–heightfield"), sorted; empty when every possible pair is supported
   */
  readonly unsupported_pair_types: readonly string[];

  /** world-frame shape data of the last collide (shapes that take part in collision) */
  readonly geom: ShapeGeom;
  /** the shapes whose {@link geom} each collide updates: those with shape–shape collision */
  private readonly collidingShapes: Int32Array;
  /** the static pair filter */
  readonly filter: PairFilter;
  private readonly manifold: ContactManifold = makeManifold();
  private readonly broad: BroadPhase;
  private readonly pairs: PairList;

  constructor(model: SapModel, opts: CollisionPipelineOptions = {}) {
    const o = resolveCollisionOptions(opts);
    this.model = model;
    this.rigid_contact_max = o.rigid_contact_max;
    this.filter_parent_child = o.filter_parent_child;
    this.on_unsupported = o.on_unsupported;
    this.material = shapeMaterialFallback(model, o.material);
    this.filter = makePairFilter(model, {
      filter_parent_child: o.filter_parent_child,
      filter_pairs: o.filter_pairs,
    });
    this.geom = makeShapeGeom(model);
    const colliding: number[] = [];
    for (let s = 0; s < model.shape_count; s++) if (shapeCollides(model, s)) colliding.push(s);
    this.collidingShapes = Int32Array.from(colliding);
    this.pairs = new PairList(Math.max(1, model.shape_count));
    const ws = makeWorldShapes(model);
    let most = 0;
    for (let w = 0; w + 1 < ws.start.length; w++) most = Math.max(most, ws.start[w + 1] - ws.start[w]);
    this.broad_phase = o.broad_phase ?? (most > EXPLICIT_MAX_SHAPES ? 'sap' : 'explicit');
    if (this.broad_phase === 'explicit') this.broad = new ExplicitBroadPhase(ws, this.filter);
    else if (this.broad_phase === 'sap') this.broad = new SweepAndPruneBroadPhase(model, ws, this.filter);
    else this.broad = new AllPairsBroadPhase(ws, this.filter);
    this.unsupported_pair_types = findUnsupportedTypes(model, ws.start, ws.shapes, this.filter);
  }

  /** allocates a contact buffer sized for this pipeline (num_worlds × rigid_contact_max slots) */
  contacts(): SapContacts {
    return makeContacts(this.model.num_worlds, this.rigid_contact_max);
  }

  /**
   * Clears `contacts` and fills it from the body poses `state.body_q` (which must be current, i.e.
   * forward kinematics already ran). Allocation-free after the first calls (buffers only grow).
   */
  collide(state: SapState, contacts: SapContacts): void {
    const m = this.model;
    if (contacts.num_worlds !== m.num_worlds) {
      throw new RangeError(`contact buffer has ${contacts.num_worlds} worlds; the model has ${m.num_worlds}`);
    }
    const nw = contacts.num_worlds;
    zeroRun(contacts.count, 0, nw);
    zeroRun(contacts.truncated, 0, nw);
    zeroRun(contacts.unsupported, 0, nw);
    this.last_broad_phase_pair_count = 0;
    this.last_unsupported_pair_count = 0;
    this.last_unsupported_pair[0] = -1;
    this.last_unsupported_pair[1] = -1;
    updateShapeGeomOf(m, state.body_q, this.geom, this.collidingShapes, this.collidingShapes.length);
    const aabb = this.geom.aabb;
    const pl = this.pairs;
    for (let w = 0; w < m.num_worlds; w++) {
      this.broad.collect(w, aabb, pl);
      for (let i = 0; i < pl.count; i++) this.collidePair(w, pl.first(i), pl.second(i), state, contacts);
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
    const fn = NARROW_PHASE_TABLE[m.shape_type[s0]][m.shape_type[s1]];
    if (fn === null) {
      this.last_unsupported_pair_count++;
      c.unsupported[w]++;
      if (this.last_unsupported_pair[0] < 0) {
        this.last_unsupported_pair[0] = s0;
        this.last_unsupported_pair[1] = s1;
      }
      if (this.on_unsupported === 'throw') {
        throw new UnsupportedPairError(
          s0,
          s1,
          `unsupported shape pair ${pairName(m.shape_type[s0], m.shape_type[s1])}: shapes ${s0} ` +
            `('${m.shape_label[s0]}') and ${s1} ('${m.shape_label[s1]}') of world ${w} have no narrow-phase routine`,
        );
      }
      return;
    }
    // a plane (always shape 0: the lowest type) against a shape whose AABB lies above its band
    if (m.shape_type[s0] === ShapeType.PLANE && aabbAbovePlane(this.geom, s0, s1, m0 + m.shape_gap[s0]))
      return;
    fn(this.geom, s0, s1, m0 + m1, m.shape_gap[s0] + m.shape_gap[s1], out);
    if (out.count === 0) return;
    sortManifoldByFeature(out);
    const b0 = m.shape_body[s0],
      b1 = m.shape_body[s1];
    const mat = this.material;
    const ke0 = mat.ke[s0],
      ke1 = mat.ke[s1];
    const ke = combineStiffness(ke0, ke1);
    const tau = mat.tau[s0] + mat.tau[s1];
    const mu = combineFriction(mat.mu[s0], mat.mu[s1]);
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

/** the distinct unsupported type pairs among the statically allowed pairs, as "a–b" names */
function findUnsupportedTypes(
  model: SapModel,
  start: Int32Array,
  shapes: Int32Array,
  filter: PairFilter,
): string[] {
  const T = SHAPE_TYPE_NAMES.length;
  // which types occur at all, to skip the pair scan in the common all-supported case
  const present = new Uint8Array(T);
  for (let i = 0; i < shapes.length; i++) present[model.shape_type[shapes[i]]] = 1;
  let possible = false;
  for (let a = 0; a < T && !possible; a++)
    for (let b = a; b < T && !possible; b++)
      if (present[a] && present[b] && NARROW_PHASE_TABLE[a][b] === null) possible = true;
  if (!possible) return [];
  const found = new Set<string>();
  for (let w = 0; w + 1 < start.length; w++) {
    for (let i = start[w]; i < start[w + 1]; i++) {
      for (let j = i + 1; j < start[w + 1]; j++) {
        const a = shapes[i],
          b = shapes[j];
        const ta = model.shape_type[a],
          tb = model.shape_type[b];
        if (NARROW_PHASE_TABLE[ta][tb] !== null) continue;
        if (pairAllowed(filter, a, b)) found.add(pairName(Math.min(ta, tb), Math.max(ta, tb)));
      }
    }
  }
  return [...found].sort();
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
