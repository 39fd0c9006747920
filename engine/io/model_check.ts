/**
 * The last gate of every loader (SPEC §11: never a half-loaded scene): a finalized model whose mass
 * properties, poses, sizes or initial state are not finite — e.g. finite inputs such as 1e308 whose
 * products overflow — is rejected with the offending entity and field, before a simulation sees it.
 */
import { ModelError, type SapModel } from '../model';

/** fields that must hold finite numbers, and the entity their index counts (with its stride) */
const FINITE: [
  keyof SapModel,
  'body' | 'joint' | 'shape' | 'coord' | 'dof' | 'mesh' | 'hfield' | 'world' | 'equality' | 'tendon',
  number,
][] = [
  ['gravity', 'world', 3],
  ['body_mass', 'body', 1],
  ['body_com', 'body', 3],
  ['body_inertia', 'body', 9],
  ['body_gravcomp', 'body', 1],
  ['joint_X_p', 'joint', 7],
  ['joint_X_c', 'joint', 7],
  ['joint_axis', 'dof', 3],
  ['shape_X_bs', 'shape', 7],
  ['shape_size', 'shape', 3],
  ['shape_color', 'shape', 3],
  ['joint_q0', 'coord', 1],
  ['joint_qd0', 'dof', 1],
  ['joint_target_pos', 'dof', 1],
  ['joint_target_vel', 'dof', 1],
  ['joint_armature', 'dof', 1],
  ['joint_damping', 'dof', 1],
  ['joint_stiffness', 'dof', 1],
  ['joint_spring_ref', 'dof', 1],
  ['mesh_vertices', 'mesh', 3],
  ['hfield_data', 'hfield', 1],
  ['eq_anchor0', 'equality', 3],
  ['eq_anchor1', 'equality', 3],
  ['eq_relpose', 'equality', 7],
  ['eq_ratio', 'equality', 1],
  ['eq_offset', 'equality', 1],
  ['tendon_offset', 'tendon', 1],
];

/** fields where ±inf is meaningful (unbounded) but NaN is not */
const NOT_NAN: (keyof SapModel)[] = [
  'joint_limit_lower',
  'joint_limit_upper',
  'joint_cone_limit',
  'joint_limit_ke',
  'joint_limit_kd',
  'joint_target_ke',
  'joint_target_kd',
  'joint_effort_limit',
  'joint_velocity_limit',
  'joint_friction',
  'shape_margin',
  'shape_gap',
  // shape_ke / shape_tau / shape_mu may be NaN: "none authored", resolved by the collision
  // pipeline's material fallbacks (engine/collision/material.ts)
  'tendon_lower',
  'tendon_upper',
  'tendon_limit_ke',
  'tendon_limit_kd',
];

/** the label of the entity an array index belongs to */
function entityOf(m: SapModel, kind: string, i: number): string {
  const label = (arr: readonly string[] | undefined, k: number) =>
    arr && arr[k] !== undefined ? `'${arr[k]}'` : `${k}`;
  switch (kind) {
    case 'body':
      return `bodies[${label(m.body_label, i)}]`;
    case 'shape':
      return `shapes[${label(m.shape_label, i)}]`;
    case 'joint':
      return `joints[${label(m.joint_label, i)}]`;
    case 'equality':
      return `equalities[${label(m.eq_label, i)}]`;
    case 'tendon':
      return `tendons[${label(m.tendon_label, i)}]`;
    case 'dof':
    case 'coord': {
      const start = kind === 'dof' ? m.joint_qd_start : m.joint_q_start;
      let j = 0;
      while (j + 1 < start.length && start[j + 1] <= i) j++;
      return `joints[${label(m.joint_label, j)}]`;
    }
    default:
      return `${kind}s[${i}]`;
  }
}

/**
 * Throws a {@link ModelError} (path: the entity and field, e.g. `bodies['link3'].body_inertia`) when
 * the model holds a non-finite value where only finite ones make sense.
 */
export function assertModelFinite(m: SapModel): void {
  for (const [field, kind, stride] of FINITE) {
    const a = m[field] as unknown;
    if (!(a instanceof Float64Array || a instanceof Float32Array)) continue;
    for (let i = 0; i < a.length; i++) {
      if (Number.isFinite(a[i])) continue;
      throw new ModelError(
        `${entityOf(m, kind, Math.floor(i / stride))}.${String(field)}`,
        `is ${a[i]} after building (a value in the file is out of range, or overflows when combined)`,
      );
    }
  }
  if (!Number.isFinite(m.time0))
    throw new ModelError('time0', `is ${m.time0} (the initial time must be finite)`);
  for (const field of NOT_NAN) {
    const a = m[field] as unknown;
    if (!(a instanceof Float64Array || a instanceof Float32Array)) continue;
    const i = a.findIndex((x) => Number.isNaN(x));
    if (i >= 0) throw new ModelError(`${String(field)}[${i}]`, 'is NaN after building');
  }
}
