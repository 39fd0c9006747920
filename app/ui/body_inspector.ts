/**
 * The body inspector's rows: the selected body, the joint that moves it, each of the joint's DOFs
 * (coordinate, velocity) and the last step's constraint efforts of a revolute or prismatic DOF:
 * limit, PD drive (against its effort limit) and dry friction (against its bound, sticking or
 * sliding). Pure data in, strings out.
 */
import type { JointFrame, SceneInfo } from '../../engine/worker/protocol';

/** one table row: a label and its text */
export type InspectorRow = [string, string];

/** a friction effort within this fraction of its bound counts as sliding */
const SLIDE_FRACTION = 1 - 1e-9;

const fmt = (x: number) =>
  Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(3) : x.toFixed(4);
const vec = (a: ArrayLike<number>) => `[${Array.from(a, fmt).join(', ')}]`;

/** the dry-friction state of an effort against its bound τ_c */
export function frictionState(effort: number, bound: number): 'stick' | 'slip' {
  return Math.abs(effort) >= bound * SLIDE_FRACTION ? 'slip' : 'stick';
}

/**
 * Rows for body `b` of `scene` from the latest joint frame (null while none has arrived: the
 * joint rows are left out).
 */
export function bodyInspectorRows(scene: SceneInfo, b: number, joints: JointFrame | null): InspectorRow[] {
  const rows: InspectorRow[] = [
    ['body', `${scene.body_label[b] ?? `body ${b}`} (#${b}, world ${scene.body_world[b] ?? 0})`],
    ['mass', `${fmt(scene.body_mass[b] ?? 0)} kg`],
  ];
  const type = scene.joint_type[b];
  if (type === undefined) return rows;
  rows.push(['joint', `${scene.joint_label[b]} (${type})`]);
  if (!joints) return rows;
  const q0 = scene.joint_q_start[b],
    q1 = scene.joint_q_start[b + 1];
  const d0 = scene.joint_qd_start[b];
  const qd = joints.qd.subarray(d0, scene.joint_qd_start[b + 1]);
  const q = joints.q.subarray(q0, q1);
  if (type === 'free') {
    rows.push(['position, quaternion (xyzw)', `${vec(q.subarray(0, 3))}, ${vec(q.subarray(3, 7))}`]);
    rows.push(['COM velocity (world)', `${vec(qd.subarray(0, 3))} m/s`]);
    rows.push(['ω (world)', `${vec(qd.subarray(3, 6))} rad/s`]);
    return rows;
  }
  if (type === 'ball') {
    rows.push(['quaternion (xyzw)', vec(q)]);
    rows.push(['ω (parent joint frame)', `${vec(qd)} rad/s`]);
    return rows;
  }
  if (type !== 'revolute' && type !== 'prismatic') return rows;
  const [pos, vel, eff] = type === 'revolute' ? ['rad', 'rad/s', 'N·m'] : ['m', 'm/s', 'N'];
  rows.push(['q, q̇', `${fmt(q[0])} ${pos}, ${fmt(qd[0])} ${vel}`]);
  const e = joints.effort;
  const [limit, drive, friction] = [e[3 * d0], e[3 * d0 + 1], e[3 * d0 + 2]];
  rows.push(['limit effort', `${fmt(limit)} ${eff}`]);
  const cap = scene.dof_effort_limit[d0];
  rows.push([
    'drive effort',
    `${fmt(drive)} ${eff}${Number.isFinite(cap) && cap < 1e29 ? ` of ±${fmt(cap)}${Math.abs(drive) >= cap * SLIDE_FRACTION ? ' (saturated)' : ''}` : ''}`,
  ]);
  const bound = scene.dof_friction[d0];
  rows.push([
    'friction effort',
    bound > 0 ? `${fmt(friction)} ${eff} of ±${fmt(bound)} (${frictionState(friction, bound)})` : 'none',
  ]);
  return rows;
}
