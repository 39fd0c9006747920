/**
 * Stepping and pacing: one step with its bookkeeping (drag, controls, stats, fault injection,
 * containment, history), `step n` on demand, and the per-frame tick while playing: the
 * {@link Pacer} says how many steps the wall clock owes and the host steps within 0.7 of a frame,
 * then publishes one frame, stats when due and an ablation sample when due. On the WebGPU backend a
 * step is asynchronous: a playing tick queues one batch on the command queue (never two; commands
 * wait for it, so nothing touches the state while a step is in flight).
 */
import type { Simulation, StepReport } from '../../pipeline';
import { runBudgeted, runBudgetedAsync } from '../pacing';
import { firstLine, type HostCore } from './context';
import { applyDrag } from './drag';

/** the stepping of one host */
export class Stepper {
  /** a GPU batch is queued or running */
  private gpuBusy = false;

  constructor(private readonly host: HostCore) {}

  /** the controls and the drag spring, before a step */
  private beforeStep(sim: Simulation): void {
    this.host.controls?.beforeStep(sim);
    if (this.host.drag) applyDrag(sim, this.host.drag);
  }

  /**
   * One step on the CPU with drag, divergence containment (containment.ts) and history. Returns
   * false when the simulation paused. Always the CPU path (see {@link stepActive}).
   */
  stepOnce(): boolean {
    const sim = this.host.sim;
    if (!sim) return false;
    this.beforeStep(sim);
    const t0 = this.host.now();
    const r = sim.step();
    return this.afterStep(sim, r, t0, false);
  }

  /**
   * One step on the active backend: the WebGPU backend when one is attached (collision on the CPU
   * into `sim.contacts`, the GPU step from `sim.state` into the spare state, then a swap), else the
   * CPU. A GPU failure drops the backend and redoes the step on the CPU from the untouched state.
   */
  async stepActive(): Promise<boolean> {
    const host = this.host;
    const sim = host.sim;
    const gpu = host.backend.gpu;
    const next = host.backend.gpuNext;
    if (!sim || !gpu || !next) return this.stepOnce();
    this.beforeStep(sim);
    const t0 = host.now();
    // a backend that collides on the device fills sim.contacts in step()
    if (!gpu.collides_on_device) sim.collision.collide(sim.state, sim.contacts);
    const tc = host.now() - t0;
    let r: StepReport;
    try {
      host.faults.throwIfGpuArmed();
      r = await gpu.step(sim.state, next, sim.control, sim.contacts, sim.dt);
    } catch (err) {
      // the input state is intact (the step writes only its output): continue on the CPU
      if (host.backend.gpu === gpu) host.backend.failed(err);
      return host.sim === sim ? this.stepOnce() : false;
    }
    if (host.sim !== sim || host.backend.gpu !== gpu) return false; // replaced meanwhile (cannot happen on the queue)
    if (!gpu.collides_on_device) r.timing.collision = tc;
    host.backend.gpuNext = sim.state;
    sim.state = next;
    sim.last_report = r;
    return this.afterStep(sim, r, t0, true);
  }

  /** the bookkeeping after a step: stats, fault injection, divergence containment, history */
  private afterStep(sim: Simulation, r: StepReport, t0: number, onGpu: boolean): boolean {
    const host = this.host;
    const ms = host.now() - t0;
    host.publish.recordStep(ms, r, onGpu);
    host.ablation.recordStep(ms);
    host.lastReport = r;
    host.stepCount++;
    host.faults.afterStep(sim.state);
    if (host.containment.check(r)) return false;
    host.history?.push(host.stepCount, sim.state.time, sim.state.joint_q, sim.state.joint_qd);
    return true;
  }

  /** `step n` on the active backend (the WebGPU path is asynchronous) */
  async advanceAsync(n: number): Promise<number> {
    let done = 0;
    while (done < n && this.host.sim) {
      done++;
      if (!(await this.stepActive())) break;
    }
    this.afterSteps(done);
    return done;
  }

  /** steps n times now on the CPU (no budget), then publishes a frame, stats and an ablation sample if due */
  advance(n: number): number {
    let done = 0;
    while (done < n && this.host.sim) {
      done++;
      if (!this.stepOnce()) break;
    }
    this.afterSteps(done);
    return done;
  }

  private afterSteps(taken: number): void {
    if (taken <= 0) return;
    this.host.ablation.afterSteps(taken);
    this.host.publish.frame();
    this.host.publish.stats(false);
  }

  /** the worker loop's per-frame entry */
  tick(): void {
    const host = this.host;
    host.faults.throwIfArmed();
    if (!host.playing || !host.sim) return;
    if (host.backend.gpu) {
      this.tickGpu();
      return;
    }
    const plan = host.pacer.plan(host.now());
    const taken = runBudgeted(plan, host.now, () => this.stepOnce());
    host.pacer.commit(taken);
    this.afterSteps(taken);
  }

  /**
   * The WebGPU tick: queues one budgeted batch of asynchronous steps on the command queue unless one
   * is still queued or running, so steps never overlap and ticks never pile up.
   */
  private tickGpu(): void {
    const host = this.host;
    if (this.gpuBusy) return;
    this.gpuBusy = true;
    host.loading = host.loading
      .then(async () => {
        if (!host.playing || !host.sim) return;
        const plan = host.pacer.plan(host.now());
        const taken = await runBudgetedAsync(plan, host.now, () => this.stepActive());
        host.pacer.commit(taken);
        this.afterSteps(taken);
      })
      .catch((err) => {
        host.setPlaying(false);
        host.error({ code: 'worker', message: `worker step failed: ${firstLine(err)}` });
      })
      .finally(() => {
        this.gpuBusy = false;
      });
  }
}
