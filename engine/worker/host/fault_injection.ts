/**
 * Fault injection for tests (the `debug` command): end or block the worker (through the host's
 * `onDebug`), throw from the next tick, or corrupt one world's state after the next step (a NaN,
 * or an energy blow-up) so that the containment (containment.ts) has something to contain.
 */
import type { SapState } from '../../state';
import type { Command } from '../protocol';
import type { HostCore, FaultJob } from './context';

/** the faults armed on one host */
export class FaultInjector implements FaultJob {
  /** the next GPU step throws (tests set it directly) */
  gpuFaultNextStep = false;
  /** a corruption applied to the state after the next step */
  private corruption: ((s: SapState) => void) | null = null;
  /** the next tick throws */
  private throwNextTick = false;

  constructor(private readonly host: HostCore) {}

  /** `debug`: arms (or, for close and hang, performs) a fault */
  arm(cmd: Extract<Command, { type: 'debug' }>): void {
    const sim = this.host.sim;
    if (cmd.fault === 'close' || cmd.fault === 'hang') {
      this.host.opts.onDebug?.(cmd.fault);
      return;
    }
    if (cmd.fault === 'throw') {
      this.throwNextTick = true;
      return;
    }
    if (!sim) return;
    const w = Math.min(cmd.world ?? 0, sim.model.num_worlds - 1);
    const m = sim.model;
    this.corruption =
      cmd.fault === 'nan'
        ? (s) => {
            if (m.world_dof_start[w + 1] > m.world_dof_start[w]) s.joint_qd[m.world_dof_start[w]] = NaN;
            else s.joint_q[m.world_coord_start[w]] = NaN;
          }
        : (s) => {
            for (let b = 0; b < m.body_count; b++) {
              if (m.body_world[b] !== w) continue;
              for (let k = 0; k < 6; k++) s.body_qd[b * 6 + k] = (s.body_qd[b * 6 + k] + 1) * 1e6;
            }
          };
  }

  /** after a step: applies the armed corruption once */
  afterStep(state: SapState): void {
    if (this.corruption) {
      this.corruption(state);
      this.corruption = null;
    }
  }

  /** at the start of a tick: throws once when armed */
  throwIfArmed(): void {
    if (this.throwNextTick) {
      this.throwNextTick = false;
      throw new Error('injected fault (debug throw)');
    }
  }

  /** in a GPU step: throws once when armed */
  throwIfGpuArmed(): void {
    if (this.gpuFaultNextStep) {
      this.gpuFaultNextStep = false;
      throw new Error('injected GPU fault');
    }
  }
}
