/**
 * MuJoCo's actuator model on a scalar joint, shared by the MJCF importer and the USD importer's
 * `MjcActuator` prims: the force of a general actuator is `gain·ctrl + b0 + b1·l + b2·l̇` with
 * `l = gear·q`, and its joint torque `gear` times that. A fixed gain with an affine bias is a PD
 * servo of the joint (SAP's drive): stiffness kp·gear², damping kv·gear², target
 * (gain·ctrl + b0)/(k·gear) with k = kp (position) or kv (velocity). Without a bias it is a motor.
 */

/** the joint-level form of one actuator (see {@link generalServo}) */
export interface MujocoServo {
  kind: 'motor' | 'position' | 'velocity';
  /** position gain (−biasprm[1]) [N/m or N·m/rad of actuator length] */
  kp: number;
  /** velocity gain (−biasprm[2]) [N·s/m or N·m·s/rad of actuator length] */
  kv: number;
  /** a position servo's damping ratio in place of kv (biasprm[2] > 0 with kp as the gain) */
  dampratio?: number;
  /** force per unit ctrl: gainprm[0] */
  ctrlGain: number;
  /** force at ctrl 0 and rest: biasprm[0] */
  ctrlBias: number;
}

/**
 * the servo a general actuator is (gaintype, biastype, gainprm, biasprm as MuJoCo names them),
 * or undefined for the forms SAP has no drive for (non-fixed gains, muscles, user types, affine
 * biases that are neither a position nor a velocity servo)
 */
export function generalServo(
  gainType: string,
  biasType: string,
  gainPrm: readonly number[],
  biasPrm: readonly number[],
): MujocoServo | undefined {
  if (gainType !== 'fixed') return undefined;
  const g0 = gainPrm[0] ?? 1;
  const [b0, b1, b2] = [biasPrm[0] ?? 0, biasPrm[1] ?? 0, biasPrm[2] ?? 0];
  if (biasType === 'none') return { kind: 'motor', kp: 0, kv: 0, ctrlGain: g0, ctrlBias: 0 };
  if (biasType !== 'affine') return undefined;
  if (b1 < 0 && (b2 <= 0 || g0 === -b1)) {
    // with the gain kp, biasprm[2] > 0 is the damping ratio (MuJoCo's mj_setConst)
    return b2 > 0
      ? { kind: 'position', kp: -b1, kv: 0, dampratio: b2, ctrlGain: g0, ctrlBias: b0 }
      : { kind: 'position', kp: -b1, kv: -b2, ctrlGain: g0, ctrlBias: b0 };
  }
  if (b1 === 0 && b2 < 0) return { kind: 'velocity', kp: 0, kv: -b2, ctrlGain: g0, ctrlBias: b0 };
  return undefined;
}

/** what a servo does to its joint's drive (see {@link servoJointGains}) */
export interface ServoJointGains {
  /** drive stiffness kp·gear² */
  ke: number;
  /** drive damping kv·gear² */
  kd: number;
  /** the effort limit from forcerange (and a motor's ctrlrange) [N or N·m], if any */
  effort?: number;
  /** the drive target per unit ctrl, and at ctrl 0 [m or rad; m/s or rad/s for velocity servos] */
  targetScale: number;
  targetOffset: number;
}

const maxAbs = (r: readonly [number, number]): number => Math.max(Math.abs(r[0]), Math.abs(r[1]));

/**
 * the joint drive of a servo with transmission `gear`: gains, effort limit (|gear|·max|forcerange|;
 * a motor's |gear·gain|·max|ctrlrange| too) and the target's affine map from ctrl; `kv` is the
 * servo's velocity gain (its dampratio resolved by the caller, which knows the joint's inertia)
 */
export function servoJointGains(
  s: MujocoServo,
  kv: number,
  gear: number,
  forcerange?: readonly [number, number],
  ctrlrange?: readonly [number, number],
): ServoJointGains {
  const g2 = gear * gear;
  let effort = forcerange ? Math.abs(gear) * maxAbs(forcerange) : undefined;
  if (s.kind === 'motor' && ctrlrange) {
    const e = Math.abs(gear * s.ctrlGain) * maxAbs(ctrlrange);
    effort = effort === undefined ? e : Math.min(effort, e);
  }
  const k = s.kind === 'motor' ? 0 : (s.kind === 'position' ? s.kp : kv) * gear;
  return {
    ke: s.kp * g2,
    kd: kv * g2,
    effort,
    targetScale: k !== 0 ? s.ctrlGain / k : 0,
    targetOffset: k !== 0 ? s.ctrlBias / k : 0,
  };
}
