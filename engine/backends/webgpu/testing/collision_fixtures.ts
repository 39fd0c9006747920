/**
 * Fixtures of the GPU collision parity test (suite_collision.ts): a model with every primitive
 * pair type on the GPU and random poses per world.
 */
import { makeContacts, type SapContacts } from '../../../collision/contacts';
import { ModelBuilder, SHAPE_TYPE_NAMES, type SapModel } from '../../../model';
import { resolveSolverOptions } from '../../../sap/options';
import { makeControl, type SapState } from '../../../state';
import { CONTACT_READBACK, unpackContacts } from '../collision';
import { GpuSapContext } from '../context';
import type { GpuHandle } from '../device';
import { relErr } from './parity';
import { mulberry32 } from './rng';

/** bodies 0–11: three columns of one kind each (i mod 3); 12–15: a capsule–box column */
const BODIES = 16;
/** half length of the capsule–box column's capsules (shorter than the boxes' faces) */
const MIXED_CAPSULE_H = 0.06;

/** 0 sphere, 1 capsule, 2 box */
function kindOf(i: number): number {
  return i < 12 ? i % 3 : 1 + (i % 2);
}

/** the column (x position) and level (z order) of body i in the stacked poses */
function columnOf(i: number): [number, number] {
  return i < 12 ? [i % 3, Math.floor(i / 3)] : [3, i - 12];
}

function capsuleH(i: number): number {
  return i < 12 ? 0.12 : MIXED_CAPSULE_H;
}

/** the primitive-collision model: ground, a finite plane, spheres, capsules and boxes */
export function collisionModel(num_worlds: number): SapModel {
  const b = new ModelBuilder();
  b.num_worlds = num_worlds;
  b.rigid_gap = 0.01;
  b.addGround({ collision_group: -1 });
  const s = Math.sin(0.15),
    c = Math.cos(0.15);
  b.addShape({
    body: -1,
    type: 'plane',
    size: [0.4, 0.3, 0],
    X_bs: [0.6, 0.2, 0.05, s, 0, 0, c],
    cfg: { collision_group: -1 },
  });
  for (let i = 0; i < BODIES; i++) {
    const body = b.addBody({ X_wb: [0, 0, 1 + i, 0, 0, 0, 1] });
    const kind = kindOf(i);
    // spheres alternate between groups −2 and −3 (a negative group never meets itself); capsules
    // and boxes share group 2
    const group = kind === 0 ? -2 - (i % 2) : 2;
    const cfg = { collision_group: group, margin: i === 4 ? 0.003 : 0 };
    if (kind === 0) b.addShape({ body, type: 'sphere', size: [0.08 + 0.01 * i, 0, 0], cfg });
    else if (kind === 1) b.addShape({ body, type: 'capsule', size: [0.05, capsuleH(i), 0], cfg });
    else b.addShape({ body, type: 'box', size: [0.1, 0.1 + 0.005 * (i % 2), 0.1], cfg });
    b.addJoint({ type: 'free', parent: -1, child: body });
  }
  return b.finalize();
}

function randomQuat(rnd: () => number, out: number[]): void {
  let n = 0;
  for (let k = 0; k < 4; k++) {
    out[k] = rnd() - 0.5;
    n += out[k] * out[k];
  }
  n = Math.sqrt(n);
  for (let k = 0; k < 4; k++) out[k] /= n;
}

/**
 * random poses per world (mode = w mod 4): 0 scattered and rotated in a small region (many
 * overlaps), 1 aligned columns resting on each other and on the ground, 2 aligned columns separated
 * by a gap inside the band, 3 columns of randomly rotated shapes, each lifted to a random vertical
 * clearance in [−2, 8] mm above the one below (edge and vertex contacts, separated closest points).
 * Columns 0–2 hold one kind each; column 3 alternates capsules and boxes (capsule–box: in modes 1
 * and 2 the capsules lie along y on the box faces, two-point face contacts).
 */
export function randomizeWorlds(m: SapModel, state: SapState, seed: number): void {
  const rnd = mulberry32(seed);
  const q: number[] = [0, 0, 0, 1];
  const top = [0, 0, 0, 0];
  for (let w = 0; w < m.num_worlds; w++) {
    const mode = w % 4;
    const j0 = m.world_joint_start[w];
    for (let i = 0; i < BODIES; i++) {
      const o = m.joint_q_start[j0 + i];
      const x = state.joint_q;
      const kind = kindOf(i);
      if (mode === 0) {
        x[o] = 0.6 * rnd();
        x[o + 1] = 0.5 * rnd();
        x[o + 2] = 0.02 + 0.35 * rnd();
        randomQuat(rnd, q);
      } else {
        // columns stacked along z
        const [col, lev] = columnOf(i);
        const gap = mode === 2 ? 0.004 * rnd() : 0;
        x[o] = 0.5 * col + (mode === 3 ? 0.02 * (rnd() - 0.5) : 0);
        x[o + 1] = (col === 3 ? 0.02 : 0.05) * lev * (mode === 1 ? 0 : 1);
        x[o + 2] = 0.1 + 0.2 * lev + gap * (lev + 1);
        if (mode === 3) {
          randomQuat(rnd, q);
          const [x0, y0, z0, w0] = q;
          // |R row z| · half extents: the shape's half height along world z
          const r6 = 2 * (x0 * z0 - y0 * w0),
            r7 = 2 * (y0 * z0 + x0 * w0),
            r8 = 1 - 2 * (x0 * x0 + y0 * y0);
          const hz =
            kind === 0
              ? 0.08 + 0.01 * i
              : kind === 1
                ? capsuleH(i) * Math.abs(r8) + 0.05
                : 0.1 * Math.abs(r6) + (0.1 + 0.005 * (i % 2)) * Math.abs(r7) + 0.1 * Math.abs(r8);
          const below = lev === 0 ? 0 : top[col];
          x[o + 2] = below + hz + (lev === 0 ? 0 : 0.01 * rnd() - 0.002);
          top[col] = x[o + 2] + hz;
        } else if (col === 3) {
          // a capsule lying along y (90° about x, half height r) or an aligned box (half height 0.1)
          const lying = kind === 1;
          q[0] = lying ? Math.SQRT1_2 : 0;
          q[1] = q[2] = 0;
          q[3] = lying ? Math.SQRT1_2 : 1;
          const hz = lying ? 0.05 : 0.1;
          const below = lev === 0 ? 0 : top[col];
          x[o + 2] = below + hz + gap;
          top[col] = x[o + 2] + hz;
        } else {
          q[0] = q[1] = q[2] = 0;
          q[3] = 1;
        }
      }
      for (let k = 0; k < 4; k++) x[o + 3 + k] = q[k];
    }
  }
}

/** collides `state` on the GPU (NaN-prefilled) and returns the contacts as the host reads them */
export async function gpuCollide(
  gpu: GpuHandle,
  m: SapModel,
  state: SapState,
  capacity: number,
): Promise<SapContacts> {
  const ctx = new GpuSapContext(gpu, m, { capacity, max_iterations: 2, collision: true });
  try {
    ctx.setParams(resolveSolverOptions({}), 0.001, false);
    ctx.fillDataNaN();
    ctx.uploadInputs(state, makeControl(m), null);
    await ctx.run(['fk_boundary', 'collide_pairs', 'collide_compact']);
    const g = await ctx.readFields(CONTACT_READBACK);
    const c = makeContacts(m.num_worlds, capacity);
    unpackContacts(m, g, capacity, c);
    return c;
  } finally {
    ctx.destroy();
  }
}

export interface CollisionParity {
  contacts: number;
  truncated: number;
  mismatches: number;
  point: number;
  normal: number;
  phi0: number;
  pairTypes: string[];
  /** the pair types with contacts in the worlds of each pose mode (w mod 4) */
  pairTypesByMode: string[][];
}

/** compares GPU contacts with the CPU pipeline's: identical lists, geometry errors */
export function compareContacts(m: SapModel, got: SapContacts, ref: SapContacts): CollisionParity {
  let mismatches = 0,
    contacts = 0,
    truncated = 0;
  const gp: number[] = [],
    rp: number[] = [],
    gn: number[] = [],
    rn: number[] = [],
    gphi: number[] = [],
    rphi: number[] = [];
  const types = new Set<string>();
  const byMode = [0, 1, 2, 3].map(() => new Set<string>());
  for (let w = 0; w < m.num_worlds; w++) {
    if (got.count[w] !== ref.count[w] || got.truncated[w] !== ref.truncated[w]) mismatches++;
    contacts += ref.count[w];
    truncated += ref.truncated[w];
    const n = Math.min(got.count[w], ref.count[w]);
    for (let i = 0; i < n; i++) {
      const k = w * ref.capacity + i;
      if (
        got.shape0[k] !== ref.shape0[k] ||
        got.shape1[k] !== ref.shape1[k] ||
        got.body0[k] !== ref.body0[k] ||
        got.body1[k] !== ref.body1[k] ||
        got.feature[k] !== ref.feature[k]
      )
        mismatches++;
      const t = `${SHAPE_TYPE_NAMES[m.shape_type[ref.shape0[k]]]}–${SHAPE_TYPE_NAMES[m.shape_type[ref.shape1[k]]]}`;
      types.add(t);
      byMode[w % 4].add(t);
      for (let d = 0; d < 3; d++) {
        gp.push(got.point0[3 * k + d], got.point1[3 * k + d]);
        rp.push(ref.point0[3 * k + d], ref.point1[3 * k + d]);
        gn.push(got.normal[3 * k + d]);
        rn.push(ref.normal[3 * k + d]);
      }
      gphi.push(got.phi0[k]);
      rphi.push(ref.phi0[k]);
    }
  }
  return {
    contacts,
    truncated,
    mismatches,
    point: relErr(gp, rp),
    normal: relErr(gn, rn),
    // φ₀ relative to the shapes' size (0.1 m), not to its own (near-zero) magnitude
    phi0: relErr(gphi, rphi, 0.1),
    pairTypes: [...types].sort(),
    pairTypesByMode: byMode.map((b) => [...b].sort()),
  };
}
