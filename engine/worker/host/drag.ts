/**
 * The mouse drag (`perturb`): a critically damped spring from a point on a body to a target,
 * applied as an external wrench on the body before each step (force capped at 30 g).
 */
import type { Simulation } from '../../pipeline';
import type { Command } from '../protocol';
import type { DragSpring } from './context';

/** default drag stiffness per kilogram [N/m/kg] */
export const DEFAULT_DRAG_STIFFNESS = 150;

/** quaternion (xyzw at o) rotating v into out */
function rotate(q: ArrayLike<number>, o: number, v: ArrayLike<number>, out: number[]): void {
  const x = q[o],
    y = q[o + 1],
    z = q[o + 2],
    w = q[o + 3];
  const tx = 2 * (y * v[2] - z * v[1]),
    ty = 2 * (z * v[0] - x * v[2]),
    tz = 2 * (x * v[1] - y * v[0]);
  out[0] = v[0] + w * tx + (y * tz - z * ty);
  out[1] = v[1] + w * ty + (z * tx - x * tz);
  out[2] = v[2] + w * tz + (x * ty - y * tx);
}

/** writes the drag spring's wrench on the dragged body into `sim.state.body_f` */
export function applyDrag(sim: Simulation, d: DragSpring): void {
  const m = sim.model;
  const b = d.body;
  const q = sim.state.body_q,
    qd = sim.state.body_qd;
  const r: number[] = [0, 0, 0],
    rc: number[] = [0, 0, 0];
  rotate(q, b * 7 + 3, d.point, r);
  rotate(q, b * 7 + 3, m.body_com.subarray(b * 3, b * 3 + 3), rc);
  const x = [q[b * 7] + r[0], q[b * 7 + 1] + r[1], q[b * 7 + 2] + r[2]];
  // lever from the COM to the grabbed point
  const l = [r[0] - rc[0], r[1] - rc[1], r[2] - rc[2]];
  const w = [qd[b * 6 + 3], qd[b * 6 + 4], qd[b * 6 + 5]];
  const vp = [
    qd[b * 6] + w[1] * l[2] - w[2] * l[1],
    qd[b * 6 + 1] + w[2] * l[0] - w[0] * l[2],
    qd[b * 6 + 2] + w[0] * l[1] - w[1] * l[0],
  ];
  const mass = Math.max(m.body_mass[b], 1e-3);
  const k = d.stiffness * mass;
  const c = 2 * 0.7 * mass * Math.sqrt(d.stiffness);
  const f = [0, 1, 2].map((i) => k * (d.target[i] - x[i]) - c * vp[i]);
  const fmax = 30 * mass * 9.81;
  const fn = Math.hypot(f[0], f[1], f[2]);
  if (fn > fmax) for (let i = 0; i < 3; i++) f[i] *= fmax / fn;
  const bf = sim.state.body_f;
  bf[b * 6] = f[0];
  bf[b * 6 + 1] = f[1];
  bf[b * 6 + 2] = f[2];
  bf[b * 6 + 3] = l[1] * f[2] - l[2] * f[1];
  bf[b * 6 + 4] = l[2] * f[0] - l[0] * f[2];
  bf[b * 6 + 5] = l[0] * f[1] - l[1] * f[0];
}

/**
 * `perturb`: releases the current drag's wrench, then returns the new drag (null: released).
 * Throws on a body that does not exist or a missing point or target.
 */
export function perturbDrag(
  sim: Simulation,
  current: DragSpring | null,
  cmd: Extract<Command, { type: 'perturb' }>,
): DragSpring | null {
  if (current) {
    sim.state.body_f.fill(0, current.body * 6, current.body * 6 + 6);
  }
  if (cmd.body < 0) return null;
  if (cmd.body >= sim.model.body_count) throw new Error(`perturb: body ${cmd.body} does not exist`);
  if (!cmd.point || !cmd.target) throw new Error('perturb: point and target are required');
  return {
    body: cmd.body,
    point: cmd.point,
    target: cmd.target,
    stiffness: cmd.stiffness ?? DEFAULT_DRAG_STIFFNESS,
  };
}
