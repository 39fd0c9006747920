/**
 * SapContacts: the bounded per-world contact buffer written by collision and read by the step
 * (SPEC §4). Capacity is `max_rigid_contact` per world; contact i of world w lives at slot
 * w·capacity + i. Candidates past capacity are counted in `truncated[w]`, never written.
 *
 * Geometry convention: the normal points from shape 0 (body A) into shape 1 (body B); `point0` is the
 * witness on shape 0's surface (the point of A deepest into B), `point1` the witness on shape 1's
 * surface, both without margins and expressed in their body frames (world frame for static shapes).
 * The margin-adjusted signed gap is φ₀ = nᵀ(x₁ − x₀) − m₀ − m₁ (< 0 overlaps).
 */

/** contact state written back by the step */
export const ContactSlip = { OPEN: 0, STICK: 1, SLIP: 2 } as const;

export interface SapContacts {
  readonly num_worlds: number;
  /** slots per world */
  readonly capacity: number;
  /** (num_worlds) contacts written per world */
  readonly count: Int32Array;
  /** (num_worlds) candidates dropped for lack of capacity in the last collide */
  readonly truncated: Int32Array;
  /**
   * (num_worlds) broad-phase pairs of the last collide whose shape types have no narrow-phase
   * routine (no contacts could be generated for them; see `SapCollisionPipeline`)
   */
  readonly unsupported: Int32Array;
  /** (slots) shape indices */
  readonly shape0: Int32Array;
  readonly shape1: Int32Array;
  /** (slots) body indices, -1 for static geometry */
  readonly body0: Int32Array;
  readonly body1: Int32Array;
  /** (slots × 3) witness points in body frames (world frame when static) [m] */
  readonly point0: Float64Array;
  readonly point1: Float64Array;
  /** (slots × 3) unit normal, world frame, from shape 0 into shape 1 */
  readonly normal: Float64Array;
  /** (slots) shape margins [m] */
  readonly margin0: Float64Array;
  readonly margin1: Float64Array;
  /** (slots) margin-adjusted signed gap φ₀ at collide time [m] */
  readonly phi0: Float64Array;
  /** (slots) per-shape stiffness, for the contact-midpoint weights [N/m] */
  readonly ke0: Float64Array;
  readonly ke1: Float64Array;
  /** (slots) combined material: series stiffness [N/m], τ₀ + τ₁ [s], 2μ₀μ₁/(μ₀+μ₁) */
  readonly ke: Float64Array;
  readonly tau: Float64Array;
  readonly mu: Float64Array;
  /** (slots) a feature id for deterministic ordering */
  readonly feature: Int32Array;
  // written by the step
  /** (slots × 3) world-frame force on body 1 (γ/dt rotated to world) [N] */
  readonly force: Float64Array;
  /** (slots × 3) world-frame contact point used by the Jacobian [m] */
  readonly position: Float64Array;
  /** (slots) ContactSlip */
  readonly slip_state: Int8Array;
}

/** allocates an empty contact buffer */
export function makeContacts(num_worlds: number, capacity: number): SapContacts {
  const n = num_worlds * capacity;
  return {
    num_worlds,
    capacity,
    count: new Int32Array(num_worlds),
    truncated: new Int32Array(num_worlds),
    unsupported: new Int32Array(num_worlds),
    shape0: new Int32Array(n),
    shape1: new Int32Array(n),
    body0: new Int32Array(n),
    body1: new Int32Array(n),
    point0: new Float64Array(n * 3),
    point1: new Float64Array(n * 3),
    normal: new Float64Array(n * 3),
    margin0: new Float64Array(n),
    margin1: new Float64Array(n),
    phi0: new Float64Array(n),
    ke0: new Float64Array(n),
    ke1: new Float64Array(n),
    ke: new Float64Array(n),
    tau: new Float64Array(n),
    mu: new Float64Array(n),
    feature: new Int32Array(n),
    force: new Float64Array(n * 3),
    position: new Float64Array(n * 3),
    slip_state: new Int8Array(n),
  };
}

/** clears counts (slots are overwritten by the next collide) */
export function clearContacts(c: SapContacts): void {
  c.count.fill(0);
  c.truncated.fill(0);
  c.unsupported.fill(0);
}

/** combined contact stiffness: the series combination k₀k₁/(k₀+k₁) (the other if one is infinite) */
export function combineStiffness(k0: number, k1: number): number {
  if (!Number.isFinite(k0)) return k1;
  if (!Number.isFinite(k1)) return k0;
  const s = k0 + k1;
  return s > 0 ? (k0 * k1) / s : 0;
}

/** combined friction 2μ₀μ₁/(μ₀+μ₁) (0 when both are 0) */
export function combineFriction(mu0: number, mu1: number): number {
  const s = mu0 + mu1;
  return s > 0 ? (2 * mu0 * mu1) / s : 0;
}

/** total contacts written across worlds */
export function totalContacts(c: SapContacts): number {
  let n = 0;
  for (let w = 0; w < c.num_worlds; w++) n += c.count[w];
  return n;
}

/** total truncated candidates across worlds */
export function totalTruncated(c: SapContacts): number {
  let n = 0;
  for (let w = 0; w < c.num_worlds; w++) n += c.truncated[w];
  return n;
}
