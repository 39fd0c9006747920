/**
 * The host's ablation read-outs (SPEC §3.8): one-step samples every `every` live steps (and on
 * request) and trajectory mode, three shadow simulations stepped beside the live one with its
 * control, sampled every `trajEvery` live steps.
 */
import type { SapContacts } from '../../collision/contacts';
import { OneStepAblator, TrajectoryAblator, type Simulation } from '../../pipeline';
import { PROTOCOL_VERSION, type AblationSample, type TrajectoryAblationSample } from '../protocol';
import type { HostCore, AblationJob } from './context';

/** the ablation state of one host */
export class AblationHost implements AblationJob {
  /** a one-step sample every this many live steps (0: only on request) */
  every = 10;
  /** trajectory-mode ablation: shadow simulations beside the live one (null: off) */
  traj: TrajectoryAblator | null = null;
  /** a trajectory sample every this many live steps */
  trajEvery = 10;
  /** the live steps since the last ablation sample: their count and wall time [ms] */
  private readonly sampleWindow = { steps: 0, ms: 0 };
  private ablator: OneStepAblator | null = null;
  private ablContacts: SapContacts | null = null;
  private lastAblationStep = -1;
  private trajStart = 0;
  private trajLastStep = 0;
  private trajMs = 0;

  constructor(private readonly host: HostCore) {}

  /** `request_ablation`: a new sampling period, and a sample now when asked */
  request(every: number | undefined, now: boolean | undefined): void {
    if (every !== undefined) this.every = every;
    if (now) this.ablate();
  }

  /** `request_trajectory`: a new sampling period; trajectory mode on (from the current state) or off */
  requestTrajectory(every: number | undefined, on: boolean): void {
    if (every !== undefined) this.trajEvery = every;
    if (on) this.startTrajectory();
    else this.stopTrajectory();
  }

  /** a new scene: its own contact buffer for the samples, no ablator yet, trajectory mode off */
  onLoad(sim: Simulation): void {
    this.ablator = null;
    this.stopTrajectory();
    this.ablContacts = sim.collision.contacts();
    this.restartSampling();
  }

  /** new solver options: the one-step ablator is rebuilt on the next sample */
  dropAblator(): void {
    this.ablator = null;
  }

  /** counts one live step of `ms` wall time [ms] into the next sample's mean step time */
  recordStep(ms: number): void {
    this.sampleWindow.steps++;
    this.sampleWindow.ms += ms;
  }

  /** after `taken` live steps: the shadows follow, and a one-step sample if one is due */
  afterSteps(taken: number): void {
    if (this.traj) this.stepTrajectory(taken);
    if (this.every > 0 && this.host.stepCount - this.lastAblationStep >= this.every) this.ablate();
  }

  /** the next step is sampled afresh (after a load, reset, seek or restore): no ablation yet, an empty step-time window */
  restartSampling(): void {
    this.lastAblationStep = -1;
    this.sampleWindow.steps = 0;
    this.sampleWindow.ms = 0;
  }

  /** one-step ablation from the current state (SPEC §3.8) */
  ablate(): AblationSample | null {
    const sim = this.host.sim;
    if (!sim || !this.ablContacts) return null;
    const t0 = this.host.now();
    if (!this.ablator) this.ablator = new OneStepAblator(sim.model, this.host.explicit);
    sim.collision.collide(sim.state, this.ablContacts);
    const r = this.ablator.run(sim.state, sim.control, this.ablContacts, sim.dt);
    this.lastAblationStep = this.host.stepCount;
    const sample: AblationSample = {
      time: sim.state.time,
      step: this.host.stepCount,
      delta_precision: r.delta_precision.norm,
      delta_model: r.delta_model.norm,
      delta_precision_max: r.delta_precision.max_abs,
      delta_model_max: r.delta_model.max_abs,
      iterations: this.host.lastReport?.iterations_mean ?? 0,
      contacts: this.host.lastReport?.contact_count ?? 0,
      line_search_iterations: this.host.lastReport
        ? this.host.lastReport.line_search_iterations / Math.max(1, this.host.lastReport.worlds.length)
        : 0,
      step_ms: this.sampleWindow.steps > 0 ? this.sampleWindow.ms / this.sampleWindow.steps : 0,
      ms: this.host.now() - t0,
      ...energyOf(sim),
    };
    this.sampleWindow.steps = 0;
    this.sampleWindow.ms = 0;
    this.host.emit({ v: PROTOCOL_VERSION, type: 'ablation', sample });
    return sample;
  }

  /** trajectory-mode ablation (SPEC §3.8): three shadow simulations from the current state */
  startTrajectory(): void {
    const sim = this.host.sim;
    if (!sim) return;
    this.traj = new TrajectoryAblator(
      sim.model,
      sim.dt,
      this.host.explicit,
      sim.state,
      sim.contacts.capacity,
    );
    this.trajStart = sim.state.time;
    this.trajLastStep = this.host.stepCount;
    this.trajMs = 0;
    this.host.emit({ v: PROTOCOL_VERSION, type: 'trajectory_state', on: true });
  }

  stopTrajectory(): void {
    if (!this.traj) return;
    this.traj = null;
    this.host.emit({ v: PROTOCOL_VERSION, type: 'trajectory_state', on: false });
  }

  /** after a jump of the live state (reset, seek, restore, new options): start again from it */
  restartTrajectory(): void {
    if (this.traj) this.startTrajectory();
  }

  /**
   * steps the shadows `n` times (the live simulation's last n steps) with the live control; a
   * sample every `trajEvery` live steps
   */
  private stepTrajectory(n: number): void {
    const traj = this.traj!;
    const control = this.host.sim!.control;
    for (let i = 0; i < n; i++) {
      const t0 = this.host.now();
      const s = traj.step(control);
      this.trajMs += this.host.now() - t0;
      const step = this.host.stepCount - n + i + 1;
      if (step - this.trajLastStep < this.trajEvery) continue;
      this.trajLastStep = step;
      const sample: TrajectoryAblationSample = {
        time: s.time,
        step,
        start_time: this.trajStart,
        q_precision: s.q_divergence.precision,
        q_model: s.q_divergence.model,
        v_precision: s.v_divergence.precision,
        v_model: s.v_divergence.model,
        ms: this.trajMs,
      };
      this.trajMs = 0;
      this.host.emit({ v: PROTOCOL_VERSION, type: 'trajectory', sample });
    }
  }
}

/** the live state's energy summed over worlds, and whether inputs (drives, efforts, wrenches) act */
function energyOf(sim: Simulation): Pick<AblationSample, 'kinetic_energy' | 'potential_energy' | 'driven'> {
  sim.energy.measure(sim.state);
  let kinetic = 0,
    potential = 0;
  for (let w = 0; w < sim.model.num_worlds; w++) {
    kinetic += sim.energy.kinetic[w];
    potential += sim.energy.potential[w];
  }
  const m = sim.model;
  const nonzero = (a: Float64Array) => a.some((x) => x !== 0);
  const driven =
    nonzero(m.joint_target_ke) ||
    nonzero(m.joint_target_kd) ||
    nonzero(sim.control.joint_f) ||
    nonzero(sim.state.body_f);
  return { kinetic_energy: kinetic, potential_energy: potential, driven };
}
