/**
 * Kernel descriptors: the host side of shaders/kernels/*.wgsl (same names). Each kernel is one
 * entry point, dispatched with one invocation per element of `over`. A kernel with a `precision`
 * knob is compiled once per realization of that knob (P = f32 or P = df64, SPEC §3.7).
 */
import type { SapSolverOptions } from '../../../sap/options';

/** what one invocation handles */
export type KernelDomain = 'tree' | 'world' | 'slot' | 'dof' | 'eq' | 'pair';

/** solver options that select a kernel's precision prelude */
export type PrecisionKnob =
  'free_motion_solve_precision' | 'sap_contact_weight_precision' | 'contact_linear_solve_precision';

export interface KernelDef {
  /** the shader file under shaders/ */
  file: string;
  entry: string;
  over: KernelDomain;
  precision?: PrecisionKnob;
  /** extra shader files included before `file` */
  includes?: readonly string[];
}

/** WGSL files every kernel module starts with */
export const COMMON_SOURCES = ['common/df64.wgsl', 'common/spatial.wgsl', 'generated/layout.wgsl'] as const;

export const KERNELS = {
  // shaders/kernels/collision.wgsl (GPU collision, collision.ts; after fk_boundary)
  collide_pairs: { file: 'kernels/collision.wgsl', entry: 'collide_pairs', over: 'pair' },
  collide_compact: { file: 'kernels/collision.wgsl', entry: 'collide_compact', over: 'world' },
  // shaders/kernels/fk.wgsl
  fk_boundary: { file: 'kernels/fk.wgsl', entry: 'fk_boundary', over: 'tree' },
  fk_final: { file: 'kernels/fk.wgsl', entry: 'fk_final', over: 'tree' },
  // shaders/kernels/free_motion.wgsl
  free_motion: {
    file: 'kernels/free_motion.wgsl',
    entry: 'free_motion',
    over: 'tree',
    precision: 'free_motion_solve_precision',
    includes: ['common/cholesky.wgsl'],
  },
  // shaders/kernels/contacts.wgsl
  contact_constraints: {
    file: 'kernels/contacts.wgsl',
    entry: 'contact_constraints',
    over: 'slot',
    precision: 'sap_contact_weight_precision',
  },
  // shaders/kernels/joint_constraints.wgsl
  joint_constraints: { file: 'kernels/joint_constraints.wgsl', entry: 'joint_constraints', over: 'dof' },
  // shaders/kernels/equality.wgsl
  equality_constraints: {
    file: 'kernels/equality.wgsl',
    entry: 'equality_constraints',
    over: 'eq',
    precision: 'sap_contact_weight_precision',
    includes: ['kernels/sap_constraints.wgsl'],
  },
  // shaders/kernels/sap_newton.wgsl
  sap_setup: {
    file: 'kernels/sap_newton.wgsl',
    entry: 'sap_setup',
    over: 'world',
    includes: ['kernels/sap_constraints.wgsl'],
  },
  sap_eval: {
    file: 'kernels/sap_newton.wgsl',
    entry: 'sap_eval',
    over: 'world',
    includes: ['kernels/sap_constraints.wgsl'],
  },
  sap_hessian: {
    file: 'kernels/sap_newton.wgsl',
    entry: 'sap_hessian',
    over: 'world',
    includes: ['kernels/sap_constraints.wgsl'],
  },
  sap_linesearch: {
    file: 'kernels/sap_newton.wgsl',
    entry: 'sap_linesearch',
    over: 'world',
    includes: ['kernels/sap_constraints.wgsl'],
  },
  sap_finish: {
    file: 'kernels/sap_newton.wgsl',
    entry: 'sap_finish',
    over: 'world',
    includes: ['kernels/sap_constraints.wgsl'],
  },
  // shaders/kernels/sap_linear.wgsl
  sap_factor: {
    file: 'kernels/sap_linear.wgsl',
    entry: 'sap_factor',
    over: 'world',
    precision: 'contact_linear_solve_precision',
    includes: ['common/cholesky.wgsl', 'kernels/sap_constraints.wgsl'],
  },
  sap_solve: {
    file: 'kernels/sap_linear.wgsl',
    entry: 'sap_solve',
    over: 'world',
    precision: 'contact_linear_solve_precision',
    includes: ['common/cholesky.wgsl', 'kernels/sap_constraints.wgsl'],
  },
  // shaders/kernels/integrate.wgsl
  integrate: { file: 'kernels/integrate.wgsl', entry: 'integrate', over: 'world' },
} as const satisfies Record<string, KernelDef>;

export type KernelName = keyof typeof KERNELS;

/** the WGSL files of a kernel's module, in order, for the given options */
export function kernelSources(def: KernelDef, opts: Pick<SapSolverOptions, PrecisionKnob>): string[] {
  const out: string[] = [...COMMON_SOURCES];
  if (def.precision)
    out.push(opts[def.precision] === 'fp32' ? 'common/prec_f32.wgsl' : 'common/prec_df64.wgsl');
  out.push(...(def.includes ?? []), def.file);
  return out;
}
