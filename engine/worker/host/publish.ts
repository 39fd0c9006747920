/**
 * Publishing the live state: one pose frame per published step batch (through the SharedArrayBuffer
 * ring or a copy in the message, with contacts, islands and joint state when asked) and stats at
 * most every STATS_PERIOD_MS of wall time (their step-time window, per-stage means, real-time factor).
 */
import { STEP_STAGES, type StageMs, type StepReport, type StepStage } from '../../pipeline';
import { RingWriter } from '../frame_ring';
import { CF, CONTACT_STRIDE, MAX_FRAME_CONTACTS, PROTOCOL_VERSION, type ContactFrame } from '../protocol';
import type { HostCore, PublishJob } from './context';

const RING_SLOTS = 4;
const STATS_PERIOD_MS = 250;

/** the frames and stats of one host */
export class Publisher implements PublishJob {
  private ring: RingWriter | null = null;
  private seq = 0;
  private statWindow = newStatWindow(0, 0);
  private lastStatsAt = -Infinity;

  constructor(private readonly host: HostCore) {}

  /** a new stats window from now (the clock and the simulated time at its start) */
  restartStatWindow(): void {
    this.statWindow = newStatWindow(this.host.now(), this.host.sim?.state.time ?? 0);
  }

  /** counts one step of `ms` wall time [ms] into the stats window */
  recordStep(ms: number, r: StepReport, onGpu: boolean): void {
    addToStatWindow(this.statWindow, ms, r, onGpu);
  }

  /** after a load: a pose ring for the new model (announced with a `ring` event), or none */
  setupRing(): void {
    const sim = this.host.sim;
    if (!sim || !this.host.opts.useRing) {
      this.ring = null;
      return;
    }
    const floats = sim.model.body_count * 7;
    this.ring = new RingWriter(RING_SLOTS, floats);
    this.host.emit({
      v: PROTOCOL_VERSION,
      type: 'ring',
      buffer: this.ring.buffer,
      slots: RING_SLOTS,
      floats,
    });
  }

  /**
   * publishes the current poses (ring, or a copy in the message) with contacts when asked
   *
   * (the frame's arrays are copied by the message, never transferred: a transfer detaches the
   * sender's buffer, and the first detached ArrayBuffer in an isolate makes V8 add a detach check
   * to every typed-array access of optimized code from then on, ~6–9% of a CPU step; the copies
   * are a few KB per frame)
   */
  frame(): void {
    const sim = this.host.sim;
    if (!sim) return;
    const seq = ++this.seq;
    const contacts = packContacts(this.host);
    // island labels come from the CPU step (none while the WebGPU backend steps)
    const islands =
      this.host.sendIslands && !this.host.backend.gpu ? Int32Array.from(sim.solver.body_island) : undefined;
    // joint efforts from the backend that stepped (read back from the GPU while tracked)
    const joints = this.host.sendJoints
      ? {
          q: Float64Array.from(sim.state.joint_q),
          qd: Float64Array.from(sim.state.joint_qd),
          effort: Float64Array.from(
            this.host.backend.gpu ? this.host.backend.gpu.joint_effort : sim.solver.joint_effort,
          ),
        }
      : undefined;
    let poses: Float32Array | undefined;
    if (this.ring) this.ring.publish(seq, sim.state.time, this.host.stepCount, sim.state.body_q);
    else poses = Float32Array.from(sim.state.body_q);
    this.host.emit({
      v: PROTOCOL_VERSION,
      type: 'frame',
      seq,
      time: sim.state.time,
      step: this.host.stepCount,
      poses,
      contacts,
      islands,
      joints,
    });
  }

  /** stats at most every STATS_PERIOD_MS of wall time, unless forced */
  stats(force: boolean): void {
    const sim = this.host.sim;
    if (!sim) return;
    const now = this.host.now();
    if (!force && now - this.lastStatsAt < STATS_PERIOD_MS) return;
    this.lastStatsAt = now;
    const r = this.host.lastReport;
    const win = this.statWindow;
    const wall = (now - win.t0) / 1000;
    const rtf = wall > 0 && this.host.playing ? (sim.state.time - win.sim0) / wall : 0;
    const step_ms = win.steps > 0 ? win.ms / win.steps : 0;
    this.statWindow = newStatWindow(now, sim.state.time);
    this.host.emit({
      v: PROTOCOL_VERSION,
      type: 'stats',
      stats: {
        time: sim.state.time,
        step: this.host.stepCount,
        status: r?.status ?? '—',
        iterations: r?.iterations_mean ?? 0,
        iterations_max: r?.iterations_max ?? 0,
        line_search_iterations: r?.line_search_iterations ?? 0,
        islands: r ? r.worlds.reduce((n, w) => n + (w.islands ?? 0), 0) : 0,
        contacts: r?.contact_count ?? 0,
        truncated: r?.truncated_contact_count ?? 0,
        step_ms,
        stage_ms: statWindowStages(win),
        stages_queued: win.queued,
        realtime_factor: rtf,
        playing: this.host.playing,
        speed: this.host.speed,
        resyncs: this.host.pacer.resyncs,
        history: this.host.history?.range() ?? { first_step: 0, last_step: 0, first_time: 0, last_time: 0 },
        ...(this.host.controls ? { control: this.host.controls.status(sim.state.time) } : {}),
      },
    });
  }
}

/** the contacts of the last step for a frame (at most MAX_FRAME_CONTACTS), or undefined when not asked */
function packContacts(host: HostCore): ContactFrame | undefined {
  const sim = host.sim;
  if (!sim || !host.sendContacts) return undefined;
  const c = sim.contacts;
  let total = 0;
  for (let w = 0; w < c.num_worlds; w++) total += c.count[w];
  const n = Math.min(total, MAX_FRAME_CONTACTS);
  const data = new Float64Array(n * CONTACT_STRIDE);
  let k = 0;
  let truncated = 0;
  for (let w = 0; w < c.num_worlds; w++) {
    truncated += c.truncated[w];
    for (let i = 0; i < c.count[w] && k < n; i++, k++) {
      const s = w * c.capacity + i;
      const o = k * CONTACT_STRIDE;
      data[o + CF.world] = w;
      data[o + CF.body0] = c.body0[s];
      data[o + CF.body1] = c.body1[s];
      data[o + CF.shape0] = c.shape0[s];
      data[o + CF.shape1] = c.shape1[s];
      for (let a = 0; a < 3; a++) {
        data[o + CF.p0x + a] = c.point0[s * 3 + a];
        data[o + CF.p1x + a] = c.point1[s * 3 + a];
        data[o + CF.nx + a] = c.normal[s * 3 + a];
        data[o + CF.fx + a] = c.force[s * 3 + a];
        data[o + CF.px + a] = c.position[s * 3 + a];
      }
      data[o + CF.phi0] = c.phi0[s];
      data[o + CF.slip] = c.slip_state[s];
      data[o + CF.mu] = c.mu[s];
      data[o + CF.ke] = c.ke[s];
      data[o + CF.tau] = c.tau[s];
      data[o + CF.margin0] = c.margin0[s];
      data[o + CF.margin1] = c.margin1[s];
    }
  }
  return { count: n, truncated, omitted: total - n, dt: sim.dt, data };
}

/** the steps since the last stats message: counts and wall-time sums [ms] */
interface StatWindow {
  steps: number;
  /** wall time of the steps, bookkeeping included */
  ms: number;
  /** wall time and simulated time at the window's start [ms, s] */
  t0: number;
  sim0: number;
  /** per-stage sums of the step reports' timing */
  stages: StageMs;
  /** a step of the window ran on the WebGPU backend (its stages are queued, see StatsInfo) */
  queued: boolean;
}

function newStatWindow(t0: number, sim0: number): StatWindow {
  return {
    steps: 0,
    ms: 0,
    t0,
    sim0,
    stages: stageMs(() => 0),
    queued: false,
  };
}

function addToStatWindow(win: StatWindow, ms: number, r: StepReport, gpu: boolean): void {
  win.steps++;
  win.ms += ms;
  for (const k of STEP_STAGES) win.stages[k] += r.timing[k] ?? 0;
  if (gpu) win.queued = true;
}

/** the window's mean stage times per step [ms], null when it holds no step */
function statWindowStages(win: StatWindow): StageMs | null {
  return win.steps === 0 ? null : stageMs((k) => win.stages[k] / win.steps);
}

function stageMs(of: (k: StepStage) => number): StageMs {
  const s = {} as StageMs;
  for (const k of STEP_STAGES) s[k] = of(k);
  return s;
}
