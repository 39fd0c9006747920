/**
 * Per-world divergence detection for the worker (SPEC §3.2, §7, §11): the step already reports
 * non-finite values per world (`worlds[w].nonfinite`); this adds an energy blow-up detector and the
 * per-world recovery policy, so one diverging world is contained while the others keep running.
 *
 * Energy: E_w = Σ_b ½ m_b |v_b|² + ½ tr(I_b) |ω_b|² + m_b g·(z0_b − z_b) over the world's bodies
 * (an upper bound of the rotational term; body COM heights). A world blows up when E_w exceeds
 * `ENERGY_BLOWUP_FACTOR` × its energy scale, E_scale = Σ m_b · 9.81 m/s² · L + E_w(0) + 1 J, with L
 * the world's initial extent (at least 1 m): 1000× the work of lifting everything across the scene,
 * which no stable step reaches (a 1 m scene would need speeds near 140 m/s), while drags (capped at
 * 30 m g) and drives stay far below it.
 */
import type { SapModel } from '../model';
import type { SapState } from '../state';
import { locateNonfinite } from '../pipeline/report';

/** how many times its energy scale a world may hold before it counts as blown up */
export const ENERGY_BLOWUP_FACTOR = 1000;
/** steps after a recovery within which a second divergence escalates the recovery */
export const RECOVERY_WINDOW_STEPS = 100;

/** what the worker does with a diverged world, escalating on repeated divergence */
export type RecoveryAction = 'restored' | 'reset' | 'frozen' | 'paused';

export interface WorldFault {
  world: number;
  /** the offending quantity: a non-finite field of the step, or `energy` */
  quantity: string;
  /** for energy blow-ups: the world's energy and its limit [J] */
  energy?: number;
  limit?: number;
}

/** COM height of body b (body pose xyzw at o, COM in the body frame) */
function comZ(q: ArrayLike<number>, b: number, com: ArrayLike<number>): number {
  const o = b * 7;
  const x = q[o + 3],
    y = q[o + 4],
    z = q[o + 5],
    w = q[o + 6];
  const cx = com[b * 3],
    cy = com[b * 3 + 1],
    cz = com[b * 3 + 2];
  // z row of the rotation matrix
  return q[o + 2] + 2 * (x * z - w * y) * cx + 2 * (y * z + w * x) * cy + (1 - 2 * (x * x + y * y)) * cz;
}

export class EnergyGuard {
  readonly limit: Float64Array;
  private readonly z0: Float64Array;
  private readonly g: number;

  constructor(
    readonly model: SapModel,
    initial: SapState,
  ) {
    const m = model;
    const nw = m.num_worlds;
    this.g = Math.hypot(m.gravity[0], m.gravity[1], m.gravity[2]);
    this.z0 = new Float64Array(m.body_count);
    for (let b = 0; b < m.body_count; b++) this.z0[b] = comZ(initial.body_q, b, m.body_com);
    const mass = new Float64Array(nw);
    const lo = Array.from({ length: nw }, () => [Infinity, Infinity, Infinity]);
    const hi = Array.from({ length: nw }, () => [-Infinity, -Infinity, -Infinity]);
    for (let b = 0; b < m.body_count; b++) {
      const w = m.body_world[b];
      mass[w] += m.body_mass[b];
      for (let k = 0; k < 3; k++) {
        lo[w][k] = Math.min(lo[w][k], initial.body_q[b * 7 + k]);
        hi[w][k] = Math.max(hi[w][k], initial.body_q[b * 7 + k]);
      }
    }
    const e0 = this.energies(initial);
    this.limit = new Float64Array(nw);
    for (let w = 0; w < nw; w++) {
      const L = Math.max(1, Math.hypot(hi[w][0] - lo[w][0], hi[w][1] - lo[w][1], hi[w][2] - lo[w][2]) || 0);
      this.limit[w] = ENERGY_BLOWUP_FACTOR * (mass[w] * 9.81 * L + Math.abs(e0[w]) + 1);
    }
  }

  /** mechanical energy per world [J] (NaN when the state is not finite) */
  energies(s: SapState): Float64Array {
    const m = this.model;
    const out = new Float64Array(m.num_worlds);
    const qd = s.body_qd;
    for (let b = 0; b < m.body_count; b++) {
      const mb = m.body_mass[b];
      const I = m.body_inertia;
      const tr = I[b * 9] + I[b * 9 + 4] + I[b * 9 + 8];
      const v2 = qd[b * 6] ** 2 + qd[b * 6 + 1] ** 2 + qd[b * 6 + 2] ** 2;
      const w2 = qd[b * 6 + 3] ** 2 + qd[b * 6 + 4] ** 2 + qd[b * 6 + 5] ** 2;
      const pe = this.g > 0 ? mb * this.g * (comZ(s.body_q, b, m.body_com) - this.z0[b]) : 0;
      out[m.body_world[b]] += 0.5 * mb * v2 + 0.5 * tr * w2 + pe;
    }
    return out;
  }

  /** the worlds whose energy exceeds their limit (or is not finite) */
  check(s: SapState): WorldFault[] {
    const e = this.energies(s);
    const out: WorldFault[] = [];
    for (let w = 0; w < e.length; w++) {
      if (!Number.isFinite(e[w]))
        out.push({ world: w, quantity: 'energy', energy: e[w], limit: this.limit[w] });
      else if (e[w] > this.limit[w])
        out.push({ world: w, quantity: 'energy', energy: e[w], limit: this.limit[w] });
    }
    return out;
  }
}

/** the worlds a step report and state mark as diverged (non-finite values), with the quantity */
export function nonfiniteWorlds(
  model: SapModel,
  report: { worlds: { status: string; nonfinite?: string }[] },
  s: SapState,
): WorldFault[] {
  const out = new Map<number, WorldFault>();
  report.worlds.forEach((r, w) => {
    if (r.nonfinite !== undefined || r.status === 'invalid_input') {
      out.set(w, {
        world: w,
        quantity: r.nonfinite ? locateNonfinite(model, w, r.nonfinite) : 'invalid input',
      });
    }
  });
  for (let b = 0; b < model.body_count; b++) {
    const w = model.body_world[b];
    if (out.has(w)) continue;
    for (let k = 0; k < 7; k++) {
      if (!Number.isFinite(s.body_q[b * 7 + k])) {
        out.set(w, { world: w, quantity: `body_q of body '${model.body_label[b]}'` });
        break;
      }
    }
  }
  const cs = model.world_coord_start,
    ds = model.world_dof_start;
  for (let w = 0; w < model.num_worlds; w++) {
    if (out.has(w)) continue;
    for (let i = cs[w]; i < cs[w + 1]; i++) {
      if (!Number.isFinite(s.joint_q[i])) {
        out.set(w, { world: w, quantity: `joint_q[${i}]` });
        break;
      }
    }
    if (out.has(w)) continue;
    for (let i = ds[w]; i < ds[w + 1]; i++) {
      if (!Number.isFinite(s.joint_qd[i])) {
        out.set(w, { world: w, quantity: `joint_qd[${i}]` });
        break;
      }
    }
  }
  return [...out.values()].sort((a, b) => a.world - b.world);
}

/** per-world recovery bookkeeping: escalates restored → reset → frozen on repeated divergence */
export class RecoveryLog {
  private readonly lastStep: Int32Array;
  private readonly level: Uint8Array;
  /** worlds held still (until reset or reload) */
  readonly frozen: Uint8Array;

  constructor(nw: number) {
    this.lastStep = new Int32Array(nw).fill(-1_000_000_000);
    this.level = new Uint8Array(nw);
    this.frozen = new Uint8Array(nw);
  }

  /** the action for a divergence of world w at `step` */
  next(w: number, step: number): Exclude<RecoveryAction, 'paused'> {
    const again = step - this.lastStep[w] <= RECOVERY_WINDOW_STEPS;
    this.level[w] = again ? Math.min(2, this.level[w] + 1) : 0;
    this.lastStep[w] = step;
    const action = (['restored', 'reset', 'frozen'] as const)[this.level[w]];
    if (action === 'frozen') this.frozen[w] = 1;
    return action;
  }

  clear(): void {
    this.lastStep.fill(-1_000_000_000);
    this.level.fill(0);
    this.frozen.fill(0);
  }
}
