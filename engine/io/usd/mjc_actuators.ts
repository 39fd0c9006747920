/**
 * MuJoCo's USD schema (`mjcPhysics`): `MjcActuator` prims on revolute and prismatic joints → SAP
 * joint drives, with the schema's fallbacks for what a prim leaves unauthored: `mjc:gainType`
 * "fixed", `mjc:gainPrm` (1, 0, …), `mjc:biasType` "none", `mjc:biasPrm` (0, …), `mjc:gear`
 * (1, 0, …); `mjc:ctrlLimited` / `mjc:forceLimited` "auto" (limited when a range is authored and
 * the scene's `mjc:compiler:autoLimits`, default true, holds); `mjc:ctrlRange:min/max` and
 * `mjc:forceRange:min/max` 0. A force range is the joint's effort limit (|gear|·max|range|), a
 * motor's control range too (|gear·gain|·max|ctrlRange|); `mjc:inheritRange` X > 0 sets the
 * control range to the joint range's midpoint ± X·half its width; a position servo's damping
 * ratio (biasPrm[2] > 0) is resolved at the joint's authored-pose inertia. The servo form is MuJoCo's
 * (`assets/mujoco_actuator.ts`).
 */
import type { JointDofConfig } from '../../model';
import type { ImportedActuator } from '../assets/importer';
import { generalServo, servoJointGains, type MujocoServo } from '../assets/mujoco_actuator';
import type { UsdPrim } from './compose';
import { NumArray, asNumber, asString, type UsdValue } from './values';

/** one `MjcActuator` prim read with its fallbacks */
export interface MjcServoPrim {
  prim: UsdPrim;
  servo: MujocoServo;
  gear: number;
  forcerange?: [number, number];
  ctrlrange?: [number, number];
  /** `mjc:inheritRange` (0: off) */
  inheritRange: number;
}

/** an actuator of a joint record, its builder joint index set when the joint is added */
export type MjcJointActuator = Omit<ImportedActuator, 'joint'>;

/** a position servo whose damping is a ratio, resolved once the joint's inertia is known */
export interface MjcDampedServo {
  dampratio: number;
  kp: number;
  gear: number;
}

/**
 * the drive damping [N·m·s/rad or N·s/m] of damped servos on a joint of inertia `m0` at its
 * authored pose (MuJoCo's mj_setConst: kv = dampratio·2·√(kp·m0/gear²), then kv·gear²)
 */
export function dampedServoKd(servos: readonly MjcDampedServo[], m0: number): number {
  let kd = 0;
  for (const s of servos) {
    const g2 = s.gear * s.gear;
    if (g2 > 1e-15) kd += s.dampratio * 2 * Math.sqrt((s.kp * m0) / g2) * g2;
  }
  return kd;
}

function nums(v: UsdValue | undefined): number[] | undefined {
  if (v instanceof NumArray) return Array.from(v.data);
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return v as number[];
  return undefined;
}

/** a `…Limited` token: 'true', 'false' or 'auto' (a bool is taken as its token) */
function limitedToken(v: UsdValue | undefined): string {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return asString(v) ?? 'auto';
}

/**
 * the range `base:min` / `base:max` of a prim when `limitedName` makes it a limit (see the module
 * comment), else undefined; a reversed range is warned of and not used
 */
function range(
  a: UsdPrim,
  limitedName: string,
  base: string,
  autoLimits: boolean,
  warnings: string[],
): [number, number] | undefined {
  const lo = asNumber(a.attr(`${base}:min`)),
    hi = asNumber(a.attr(`${base}:max`));
  const lim = limitedToken(a.attr(limitedName));
  const on = lim === 'true' || (lim === 'auto' && autoLimits && (lo !== undefined || hi !== undefined));
  if (!on) return undefined;
  const r: [number, number] = [lo ?? 0, hi ?? 0];
  if (!(r[0] <= r[1])) {
    warnings.push(`<${a.path}> ${base} [${r[0]}, ${r[1]}] is reversed; not used`);
    return undefined;
  }
  return r;
}

/**
 * the `MjcActuator` prims by the path of the joint they target (in prim order); forms SAP has no
 * drive for, and prims without a target, are listed in `unsupported`
 */
export function readMjcActuators(
  prims: readonly UsdPrim[],
  autoLimits: boolean,
  warnings: string[],
  unsupported: string[],
): Map<string, MjcServoPrim[]> {
  const out = new Map<string, MjcServoPrim[]>();
  for (const a of prims) {
    const target = a.rel('mjc:target')?.[0];
    if (!target) {
      unsupported.push(`<${a.path}> MjcActuator without mjc:target (not built)`);
      continue;
    }
    if (a.rel('mjc:sliderSite')?.length || a.rel('mjc:refSite')?.length) {
      unsupported.push(`<${a.path}> MjcActuator with a slider-crank or site transmission (not built)`);
      continue;
    }
    const gainType = asString(a.attr('mjc:gainType')) ?? 'fixed';
    const biasType = asString(a.attr('mjc:biasType')) ?? 'none';
    const dynType = asString(a.attr('mjc:dynType')) ?? 'none';
    const servo =
      dynType === 'none'
        ? generalServo(
            gainType,
            biasType,
            nums(a.attr('mjc:gainPrm')) ?? [1],
            nums(a.attr('mjc:biasPrm')) ?? [0, 0, 0],
          )
        : undefined;
    if (!servo) {
      unsupported.push(
        `<${a.path}> MjcActuator (dynType ${dynType}, gainType ${gainType}, biasType ${biasType}) is not a motor, position or velocity servo (not built)`,
      );
      continue;
    }
    const rec: MjcServoPrim = {
      prim: a,
      servo,
      gear: nums(a.attr('mjc:gear'))?.[0] ?? 1,
      forcerange: range(a, 'mjc:forceLimited', 'mjc:forceRange', autoLimits, warnings),
      ctrlrange: range(a, 'mjc:ctrlLimited', 'mjc:ctrlRange', autoLimits, warnings),
      inheritRange: asNumber(a.attr('mjc:inheritRange')) ?? 0,
    };
    const list = out.get(target) ?? [];
    list.push(rec);
    out.set(target, list);
  }
  return out;
}

/**
 * applies the servos of one revolute or prismatic joint to its DOF config (gains add up, the
 * effort limit is the smallest): returns the actuators to record once the joint has its builder
 * index, and the damped servos whose damping ({@link dampedServoKd}) needs the joint's inertia
 */
export function applyMjcServos(
  dof: Partial<JointDofConfig>,
  servos: readonly MjcServoPrim[],
  warnings: string[],
): { actuators: MjcJointActuator[]; damped: MjcDampedServo[] } {
  const damped: MjcDampedServo[] = [];
  let ke = 0,
    kd = 0,
    pos = 0,
    vel = 0;
  const out: MjcJointActuator[] = [];
  for (const s of servos) {
    let ctrlrange = s.ctrlrange;
    const lo = dof.limit_lower ?? -Infinity,
      hi = dof.limit_upper ?? Infinity;
    if (s.inheritRange > 0) {
      if (Number.isFinite(lo) && Number.isFinite(hi)) {
        const mid = (lo + hi) / 2,
          half = (s.inheritRange * (hi - lo)) / 2;
        ctrlrange = [mid - half, mid + half];
      } else warnings.push(`<${s.prim.path}> mjc:inheritRange on a joint without a range; no control range`);
    }
    if (s.servo.dampratio !== undefined)
      damped.push({ dampratio: s.servo.dampratio, kp: s.servo.kp, gear: s.gear });
    const g = servoJointGains(s.servo, s.servo.kv, s.gear, s.forcerange, ctrlrange);
    if (s.servo.kind === 'position') {
      if (ke > 0) warnings.push(`<${s.prim.path}>: several position servos on one joint; their gains add up`);
      ke += g.ke;
      kd += g.kd;
      pos = g.targetOffset;
    } else if (s.servo.kind === 'velocity') {
      kd += g.kd;
      vel = g.targetOffset;
    }
    if (g.effort !== undefined) dof.effort_limit = Math.min(dof.effort_limit ?? Infinity, g.effort);
    out.push({
      name: s.prim.path.slice(s.prim.path.lastIndexOf('/') + 1),
      kind: s.servo.kind,
      gear: s.gear * (s.servo.kind === 'motor' ? s.servo.ctrlGain : 1),
      ctrlrange,
      forcerange: s.forcerange,
    });
  }
  if (ke > 0) {
    dof.target_ke = ke;
    dof.target_pos = pos;
  }
  if (kd > 0) dof.target_kd = kd;
  if (ke === 0 && kd > 0) dof.target_vel = vel;
  return { actuators: out, damped };
}
