/**
 * Containment of diverging worlds: after each step, a world whose step produced non-finite values
 * or whose energy blew up is contained. With one world the simulation pauses at its last good
 * state; with several, that world alone is restored to its last good state (velocities zeroed),
 * reset to its initial state if it diverges again soon, and frozen after a third time, while the
 * other worlds keep going. Each event is reported (`divergence`, with world, quantity and action).
 */
import type { SapModel } from '../../model';
import type { StepReport } from '../../pipeline';
import type { SapState } from '../../state';
import { EnergyGuard, RecoveryLog, nonfiniteWorlds, type WorldFault } from '../divergence';
import type { HostCore, ContainmentJob } from './context';

/** the divergence guards and recovery record of one host */
export class Containment implements ContainmentJob {
  private energy: EnergyGuard | null = null;
  private recovery: RecoveryLog | null = null;
  private readonly frozenAt = new Map<number, Float64Array>();

  constructor(private readonly host: HostCore) {}

  /** a new scene: guards for its model, nothing recovered or frozen */
  onLoad(model: SapModel, state: SapState): void {
    this.energy = new EnergyGuard(model, state);
    this.recovery = new RecoveryLog(model.num_worlds);
    this.frozenAt.clear();
  }

  /** the live state jumped (reset, seek, restore): the recovery record and frozen worlds are cleared */
  clear(): void {
    this.recovery?.clear();
    this.frozenAt.clear();
  }

  /** checks the step just taken and contains its diverged worlds; true when the simulation paused */
  check(r: StepReport): boolean {
    const sim = this.host.sim!;
    const faults = nonfiniteWorlds(sim.model, r, sim.state);
    for (const f of this.energy?.check(sim.state) ?? []) {
      if (!faults.some((x) => x.world === f.world)) faults.push(f);
    }
    let paused = false;
    if (faults.length > 0) paused = this.contain(faults);
    if (this.recovery && this.recovery.frozen.some((x) => x === 1)) this.holdFrozen();
    return paused;
  }

  /** applies the recovery policy to diverged worlds; true when the simulation paused */
  private contain(faults: WorldFault[]): boolean {
    const sim = this.host.sim!;
    const m = sim.model;
    const last = this.host.history?.find(Number.MAX_SAFE_INTEGER) ?? null;
    const t = sim.state.time.toFixed(4);
    const describe = (f: WorldFault) =>
      f.quantity === 'energy'
        ? `energy ${Number.isFinite(f.energy) ? f.energy!.toExponential(3) : f.energy} J exceeds its blow-up limit ${f.limit!.toExponential(3)} J`
        : `non-finite ${f.quantity}`;
    if (m.num_worlds === 1) {
      const f = faults[0];
      if (last) this.restoreWorld(0, last.q, last.qd, false);
      sim.state.time = last?.time ?? sim.state.time;
      this.host.stepCount = last?.step ?? this.host.stepCount;
      sim.solver.updateBodyState(sim.state);
      this.host.setPlaying(false);
      this.host.error({
        code: 'divergence',
        message: `simulation diverged at t = ${t} s (step ${this.host.stepCount + 1}): world 0: ${describe(f)}; paused at the last good state — reset, seek back or change the options`,
        path: 'worlds[0]',
        reason: f.quantity,
        world: 0,
        action: 'paused',
      });
      return true;
    }
    for (const f of faults) {
      const action = this.recovery!.next(f.world, this.host.stepCount);
      if (action === 'reset') this.restoreWorld(f.world, m.joint_q0, m.joint_qd0, false);
      else if (last) this.restoreWorld(f.world, last.q, last.qd, true);
      if (action === 'frozen') this.frozenAt.set(f.world, this.worldSlice(f.world));
      const what =
        action === 'restored'
          ? 'restored to its last good state (velocities zeroed)'
          : action === 'reset'
            ? 'diverged again: reset to its initial state'
            : 'diverged a third time: frozen until reset';
      this.host.error({
        code: 'divergence',
        message: `world ${f.world} diverged at t = ${t} s (step ${this.host.stepCount}): ${describe(f)}; ${what}; the other worlds keep running`,
        path: `worlds[${f.world}]`,
        reason: f.quantity,
        world: f.world,
        action,
      });
    }
    sim.solver.updateBodyState(sim.state);
    return false;
  }

  /** copies a world's coordinates and velocities from full-model arrays (zeroing velocities if asked) */
  private restoreWorld(w: number, q: ArrayLike<number>, qd: ArrayLike<number>, zeroVelocity: boolean): void {
    const sim = this.host.sim!;
    const m = sim.model;
    for (let i = m.world_coord_start[w]; i < m.world_coord_start[w + 1]; i++) sim.state.joint_q[i] = q[i];
    for (let i = m.world_dof_start[w]; i < m.world_dof_start[w + 1]; i++) {
      sim.state.joint_qd[i] = zeroVelocity ? 0 : qd[i];
    }
    for (let b = 0; b < m.body_count; b++) {
      if (m.body_world[b] === w) sim.state.body_f.fill(0, b * 6, b * 6 + 6);
    }
    if (this.host.drag && m.body_world[this.host.drag.body] === w) this.host.drag = null;
  }

  private worldSlice(w: number): Float64Array {
    const m = this.host.sim!.model;
    return this.host.sim!.state.joint_q.slice(m.world_coord_start[w], m.world_coord_start[w + 1]);
  }

  /** frozen worlds stay where they were frozen, at rest */
  private holdFrozen(): void {
    const sim = this.host.sim!;
    const m = sim.model;
    for (const [w, q] of this.frozenAt) {
      sim.state.joint_q.set(q, m.world_coord_start[w]);
      sim.state.joint_qd.fill(0, m.world_dof_start[w], m.world_dof_start[w + 1]);
    }
    sim.solver.updateBodyState(sim.state);
  }
}
