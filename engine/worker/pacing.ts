/**
 * Real-time pacing of the worker loop (MuJoCo `simulate`'s scheme, SPEC §7), as pure logic.
 *
 * Each tick the wall clock advanced by Δw; the simulation owes speed·Δw more simulated seconds.
 * The loop steps while it owes at least one dt and the tick's work budget (0.7 of a frame) lasts.
 * When the debt exceeds `max_drift_s` of wall time (the machine cannot keep up, or the tab slept),
 * the pacer re-synchronizes: it forgives the debt instead of racing to catch up, so the scene runs in
 * slow motion rather than freezing the UI.
 */

export interface PacerOptions {
  /** step size [s] */
  dt: number;
  /** simulated seconds per wall second (1 = real time) */
  speed: number;
  /** frame period of the loop [ms] */
  frame_ms?: number;
  /** fraction of a frame the loop may spend stepping */
  budget_fraction?: number;
  /** wall-time drift past which the debt is forgiven [s] */
  max_drift_s?: number;
}

export interface TickPlan {
  /** steps to take now (the caller may take fewer when the budget runs out) */
  steps: number;
  /** wall-clock budget for this tick's work [ms] */
  budget_ms: number;
  /** the debt was forgiven in this tick */
  resynced: boolean;
}

export class Pacer {
  dt: number;
  speed: number;
  readonly frame_ms: number;
  readonly budget_fraction: number;
  readonly max_drift_s: number;
  /** simulated seconds owed to the wall clock */
  owed_s = 0;
  /** wall time of the last tick [ms], or null before the first */
  private last_ms: number | null = null;
  /** number of re-synchronizations so far */
  resyncs = 0;

  constructor(o: PacerOptions) {
    this.dt = o.dt;
    this.speed = o.speed;
    this.frame_ms = o.frame_ms ?? 1000 / 60;
    this.budget_fraction = o.budget_fraction ?? 0.7;
    this.max_drift_s = o.max_drift_s ?? 0.1;
  }

  /** forgets the clock (call when playback starts or after a pause) */
  restart(): void {
    this.owed_s = 0;
    this.last_ms = null;
  }

  /** plans a tick at wall time `now_ms` */
  plan(now_ms: number): TickPlan {
    const budget_ms = this.budget_fraction * this.frame_ms;
    if (this.last_ms === null) {
      this.last_ms = now_ms;
      return { steps: 0, budget_ms, resynced: false };
    }
    const wall_s = Math.max(0, (now_ms - this.last_ms) / 1000);
    this.last_ms = now_ms;
    this.owed_s += wall_s * this.speed;
    let resynced = false;
    // drift in wall seconds: how far the simulation lags behind the clock
    if (this.owed_s / this.speed > this.max_drift_s) {
      this.owed_s = Math.min(this.owed_s, this.dt);
      this.resyncs++;
      resynced = true;
    }
    const steps = Math.max(0, Math.floor(this.owed_s / this.dt + 1e-9));
    return { steps, budget_ms, resynced };
  }

  /** records that `taken` steps were done this tick */
  commit(taken: number): void {
    this.owed_s = Math.max(0, this.owed_s - taken * this.dt);
  }
}

/**
 * Runs up to `plan.steps` calls of `stepOnce` while the clock (`now`, ms) stays within the budget;
 * returns the steps taken. At least one step is taken when any is owed, so a scene whose single step
 * is longer than the budget still advances (in slow motion).
 */
export function runBudgeted(plan: TickPlan, now: () => number, stepOnce: () => boolean): number {
  if (plan.steps <= 0) return 0;
  const t0 = now();
  let taken = 0;
  while (taken < plan.steps) {
    if (!stepOnce()) {
      taken++;
      break;
    }
    taken++;
    if (now() - t0 >= plan.budget_ms) break;
  }
  return taken;
}

/**
 * {@link runBudgeted} for an asynchronous step (the WebGPU backend reads its results back): the
 * steps run one after another, never overlapping, and at least one runs when any is owed.
 */
export async function runBudgetedAsync(
  plan: TickPlan,
  now: () => number,
  stepOnce: () => Promise<boolean>,
): Promise<number> {
  if (plan.steps <= 0) return 0;
  const t0 = now();
  let taken = 0;
  while (taken < plan.steps) {
    const ok = await stepOnce();
    taken++;
    if (!ok || now() - t0 >= plan.budget_ms) break;
  }
  return taken;
}
