/**
 * The constraint kinds of the packed problem, one row per {@link SapKind} code: its name, its
 * kernel (cost, impulse, Hessian) and the named offsets of its physical record. The solver's
 * generic paths look a kind up here.
 *
 * Adding a kind: its file in this folder (rows, record offsets, parameters, kernel, weight and
 * checks, with a test), a code in `SapKind` and a row here, its packing in PackedSapProblem and its
 * parameters in the constraint bundle (`../bundle.ts`), and the pipeline's packer.
 */
import type { ConstraintCalc } from './common';
import { ContactPhys, contactCalc } from './contact';
import { HolonomicPhys, holonomicCalc } from './holonomic';
import { JointFrictionPhys } from './joint_friction';
import { LimitPhys, limitCalc } from './limit';
import { PdPhys, pdCalc } from './pd';
import { TendonPhys } from './tendon';
import { SapKind } from '../packed_problem';

/** one constraint kind of the packed problem */
export interface ConstraintKind {
  /** the packed code (`SapKind`) */
  code: SapKind;
  /** the name in messages and in the public spec (`SapConstraintSpec.kind`) */
  name: 'contact' | 'limit' | 'pd' | 'holonomic' | 'tendon' | 'joint_friction';
  /** cost, impulse and Hessian of one constraint from its parameter record */
  calc: ConstraintCalc;
  /** offsets of its physical inputs in its record */
  phys: Readonly<Record<string, number>>;
}

/**
 * every kind, indexed by its code. A tendon's rows are a limit's (unilateral, R and v̂ per row), so
 * it shares the limit kernel; joint dry friction's parameters are a PD record, so it shares the PD kernel.
 */
export const CONSTRAINT_KINDS: readonly ConstraintKind[] = [
  { code: SapKind.Contact, name: 'contact', calc: contactCalc, phys: ContactPhys },
  { code: SapKind.Limit, name: 'limit', calc: limitCalc, phys: LimitPhys },
  { code: SapKind.Pd, name: 'pd', calc: pdCalc, phys: PdPhys },
  { code: SapKind.Holonomic, name: 'holonomic', calc: holonomicCalc, phys: HolonomicPhys },
  { code: SapKind.Tendon, name: 'tendon', calc: limitCalc, phys: TendonPhys },
  { code: SapKind.JointFriction, name: 'joint_friction', calc: pdCalc, phys: JointFrictionPhys },
];
