/**
 * SimHost: the engine side of the worker, independent of the messaging transport, so it runs in a Web
 * Worker, on a test's main thread or in Node (vitest drives it directly).
 *
 * It owns one `Simulation` and answers commands (protocol.ts). While playing, `tick(now)` is called
 * once per frame: the {@link Pacer} says how many steps the wall clock owes, the host steps within
 * 0.7 of a frame, then publishes one pose frame (ring or transfer), stats a few times a second and a
 * one-step ablation sample every `ablation_every` steps. A failed load, a rejected option or a bad
 * command leaves the running scene untouched; a non-finite step pauses and reports `divergence`.
 */
import { clearContacts, type SapContacts } from '../collision/contacts';
import { OneStepAblator, Simulation } from '../pipeline';
import type { StepReport } from '../pipeline';
import { resolveSolverOptions } from '../sap/options';
import { HistoryRing } from './history';
import { RingWriter } from './frame_ring';
import { loadAnyFile, toErrorInfo, type LoadedAny } from './load_any';
import { Pacer, runBudgeted } from './pacing';
import {
  CF,
  CONTACT_STRIDE,
  MAX_FRAME_CONTACTS,
  PROTOCOL_VERSION,
  parseCommand,
  type AblationSample,
  type Command,
  type ContactFrame,
  type ErrorInfo,
  type OptionsInfo,
  type SceneInfo,
  type SceneSource,
  type WorkerEvent,
} from './protocol';
import { buildSceneInfo } from './scene_info';

type Emit = (e: WorkerEvent, transfer?: Transferable[]) => void;
type OptionValue = string | number | boolean;

export interface SimHostOptions {
  /** stream poses through a SharedArrayBuffer ring (needs cross-origin isolation) */
  useRing?: boolean;
  /** clock [ms] */
  now?: () => number;
  /** history snapshots kept */
  historyCapacity?: number;
}

/** default drag stiffness per kilogram [N/m/kg] */
export const DEFAULT_DRAG_STIFFNESS = 150;
const RING_SLOTS = 4;
const STATS_PERIOD_MS = 250;

/** quaternion (xyzw at o) rotating v into out */
function rotate(q: ArrayLike<number>, o: number, v: ArrayLike<number>, out: number[]): void {
  const x = q[o],
    y = q[o + 1],
    z = q[o + 2],
    w = q[o + 3];
  const tx = 2 * (y * v[2] - z * v[1]),
    ty = 2 * (z * v[0] - x * v[2]),
    tz = 2 * (x * v[1] - y * v[0]);
  out[0] = v[0] + w * tx + (y * tz - z * ty);
  out[1] = v[1] + w * ty + (z * tx - x * tz);
  out[2] = v[2] + w * tz + (x * ty - y * tx);
}

export class SimHost {
  sim: Simulation | null = null;
  info: SceneInfo | null = null;
  playing = false;
  speed = 1;
  sendContacts = false;
  ablation_every = 10;
  /** steps taken since the last load or reset */
  stepCount = 0;

  private source: SceneSource | null = null;
  private loadOpts: { num_worlds?: number; dt?: number } = {};
  private explicit: Record<string, OptionValue> = {};
  private ablator: OneStepAblator | null = null;
  private ablContacts: SapContacts | null = null;
  private lastAblationStep = -1;
  private history: HistoryRing | null = null;
  private ring: RingWriter | null = null;
  private seq = 0;
  private drag: { body: number; point: number[]; target: number[]; stiffness: number } | null = null;
  private readonly pacer = new Pacer({ dt: 0.005, speed: 1 });
  private readonly now: () => number;
  private lastReport: StepReport | null = null;
  private statWindow = { steps: 0, ms: 0, t0: 0, sim0: 0 };
  private lastStatsAt = -Infinity;
  private loading: Promise<void> = Promise.resolve();

  constructor(
    private readonly emit: Emit,
    private readonly opts: SimHostOptions = {},
  ) {
    this.now = opts.now ?? (() => performance.now());
  }

  private error(e: ErrorInfo): void {
    this.emit({ v: PROTOCOL_VERSION, type: 'error', error: e });
  }

  /** handles one untrusted message; load commands complete asynchronously (see `idle()`) */
  handle(raw: unknown): void {
    const parsed = parseCommand(raw);
    if (!parsed.ok) {
      this.error({ code: 'protocol', message: `bad command: ${parsed.error}`, reason: parsed.error });
      return;
    }
    const cmd = parsed.command;
    // loads are serialized; other commands wait for a pending load so they apply to the new scene
    const run =
      cmd.type === 'load_scene' || cmd.type === 'reload'
        ? () => this.loadCommand(cmd)
        : () => this.apply(cmd);
    // a failure never breaks the queue: it is reported and the next command runs
    this.loading = this.loading.then(run).catch((err) => this.error(toErrorInfo(err, cmd.type)));
  }

  /** resolves when every queued command has been applied */
  idle(): Promise<void> {
    return this.loading;
  }

  private apply(cmd: Command): void {
    try {
      switch (cmd.type) {
        case 'set_options':
          this.setOptions(cmd.options);
          break;
        case 'set_sim':
          if (cmd.dt !== undefined && this.sim) {
            this.sim.dt = cmd.dt;
            this.pacer.dt = cmd.dt;
            if (this.info) this.info.dt = cmd.dt;
          }
          if (cmd.speed !== undefined) this.speed = this.pacer.speed = cmd.speed;
          if (cmd.contacts !== undefined) {
            this.sendContacts = cmd.contacts;
            this.sendFrame();
          }
          break;
        case 'play':
          this.setPlaying(true);
          break;
        case 'pause':
          this.setPlaying(false);
          break;
        case 'step':
          this.advance(cmd.n);
          break;
        case 'reset':
          this.reset();
          break;
        case 'seek':
          this.seek(cmd.step);
          break;
        case 'perturb':
          this.perturb(cmd);
          break;
        case 'set_control':
          this.setControl(cmd);
          break;
        case 'request_ablation':
          if (cmd.every !== undefined) this.ablation_every = cmd.every;
          if (cmd.now) this.ablate();
          break;
      }
    } catch (err) {
      this.error(toErrorInfo(err, cmd.type));
    }
  }

  setPlaying(p: boolean): void {
    if (p && !this.sim) return;
    if (p !== this.playing) {
      this.playing = p;
      this.pacer.restart();
      this.statWindow = { steps: 0, ms: 0, t0: this.now(), sim0: this.sim?.state.time ?? 0 };
      this.emit({ v: PROTOCOL_VERSION, type: 'play_state', playing: p });
    }
  }

  // ------------------------------------------------------------------------------------------ loading

  private async loadCommand(cmd: Extract<Command, { type: 'load_scene' | 'reload' }>): Promise<void> {
    let source: SceneSource;
    let loadOpts: { num_worlds?: number; dt?: number };
    let extra: Record<string, OptionValue | null> = {};
    if (cmd.type === 'reload') {
      if (!this.source) {
        this.error({ code: 'load', message: 'reload: no scene loaded yet' });
        return;
      }
      source = this.source;
      loadOpts = { ...this.loadOpts, num_worlds: cmd.num_worlds ?? this.loadOpts.num_worlds };
    } else {
      source = cmd.source;
      loadOpts = { num_worlds: cmd.num_worlds, dt: cmd.dt };
      extra = cmd.options ?? {};
    }
    const files =
      source.kind === 'text'
        ? new Map([[source.file_name, new TextEncoder().encode(source.text)]])
        : source.files;
    const entry = source.kind === 'text' ? source.file_name : source.entry;
    let loaded: LoadedAny;
    let explicit: Record<string, OptionValue>;
    try {
      loaded = await loadAnyFile(files, entry, loadOpts);
      explicit =
        cmd.type === 'reload'
          ? { ...this.explicit }
          : mergeOptions(loaded.solver as Record<string, OptionValue>, extra);
      resolveSolverOptions(explicit); // validate before replacing anything
    } catch (err) {
      this.error(toErrorInfo(err, 'load', entry));
      return;
    }
    try {
      const sim = new Simulation(loaded.model, {
        dt: loaded.dt,
        solver: explicit,
        max_rigid_contact: (explicit.max_rigid_contact as number | undefined) ?? loaded.max_rigid_contact,
      });
      // commit: the new scene replaces the old one only now
      this.sim = sim;
      this.source = source;
      this.loadOpts = loadOpts;
      this.explicit = explicit;
      this.stepCount = 0;
      this.drag = null;
      this.lastReport = null;
      this.pacer.dt = sim.dt;
      this.pacer.restart();
      this.ablator = null;
      this.ablContacts = sim.collision.contacts();
      this.lastAblationStep = -1;
      this.history = new HistoryRing(
        loaded.model.joint_coord_count,
        loaded.model.joint_dof_count,
        this.opts.historyCapacity,
      );
      this.history.push(0, 0, sim.state.joint_q, sim.state.joint_qd);
      this.info = buildSceneInfo(loaded.model, sim.state.body_q, {
        name: loaded.name,
        file_name: entry,
        description: loaded.description,
        dt: sim.dt,
        contact_capacity: sim.contacts.capacity,
        warnings: loaded.warnings,
      });
      this.emit({
        v: PROTOCOL_VERSION,
        type: 'ready',
        scene: this.info,
        options: this.optionsInfo(),
        request_id: cmd.type === 'load_scene' ? cmd.request_id : undefined,
      });
      this.setupRing();
      this.sendFrame();
      this.sendStats(true);
      if (cmd.type === 'load_scene' && cmd.play !== undefined) this.setPlaying(cmd.play);
    } catch (err) {
      this.error(toErrorInfo(err, 'load', entry));
    }
  }

  private setupRing(): void {
    const sim = this.sim;
    if (!sim || !this.opts.useRing) {
      this.ring = null;
      return;
    }
    const floats = sim.model.body_count * 7;
    this.ring = new RingWriter(RING_SLOTS, floats);
    this.emit({ v: PROTOCOL_VERSION, type: 'ring', buffer: this.ring.buffer, slots: RING_SLOTS, floats });
  }

  optionsInfo(): OptionsInfo {
    const effective = this.sim ? { ...this.sim.solver.options } : {};
    return { explicit: { ...this.explicit }, effective: effective as Record<string, OptionValue> };
  }

  private setOptions(patch: Record<string, OptionValue | null>): void {
    const sim = this.sim;
    if (!sim) return;
    const next = mergeOptions(this.explicit, patch);
    try {
      resolveSolverOptions(next);
    } catch (err) {
      this.error(toErrorInfo(err, 'options'));
      this.emit({ v: PROTOCOL_VERSION, type: 'options', options: this.optionsInfo() });
      return;
    }
    const capBefore = this.explicit.max_rigid_contact;
    this.explicit = next;
    sim.solver.setOptions(next);
    this.ablator = null;
    this.emit({ v: PROTOCOL_VERSION, type: 'options', options: this.optionsInfo() });
    // the contact capacity is fixed per collision pipeline: a new one needs a reload
    if (next.max_rigid_contact !== capBefore && next.max_rigid_contact !== undefined) {
      this.loading = this.loading.then(() => this.loadCommand({ v: PROTOCOL_VERSION, type: 'reload' }));
    }
  }

  // ------------------------------------------------------------------------------------------ stepping

  /** applies the drag spring as an external wrench on the dragged body */
  private applyDrag(): void {
    const sim = this.sim;
    const d = this.drag;
    if (!sim || !d) return;
    const m = sim.model;
    const b = d.body;
    const q = sim.state.body_q,
      qd = sim.state.body_qd;
    const r: number[] = [0, 0, 0],
      rc: number[] = [0, 0, 0];
    rotate(q, b * 7 + 3, d.point, r);
    rotate(q, b * 7 + 3, m.body_com.subarray(b * 3, b * 3 + 3), rc);
    const x = [q[b * 7] + r[0], q[b * 7 + 1] + r[1], q[b * 7 + 2] + r[2]];
    // lever from the COM to the grabbed point
    const l = [r[0] - rc[0], r[1] - rc[1], r[2] - rc[2]];
    const w = [qd[b * 6 + 3], qd[b * 6 + 4], qd[b * 6 + 5]];
    const vp = [
      qd[b * 6] + w[1] * l[2] - w[2] * l[1],
      qd[b * 6 + 1] + w[2] * l[0] - w[0] * l[2],
      qd[b * 6 + 2] + w[0] * l[1] - w[1] * l[0],
    ];
    const mass = Math.max(m.body_mass[b], 1e-3);
    const k = d.stiffness * mass;
    const c = 2 * 0.7 * mass * Math.sqrt(d.stiffness);
    const f = [0, 1, 2].map((i) => k * (d.target[i] - x[i]) - c * vp[i]);
    const fmax = 30 * mass * 9.81;
    const fn = Math.hypot(f[0], f[1], f[2]);
    if (fn > fmax) for (let i = 0; i < 3; i++) f[i] *= fmax / fn;
    const bf = sim.state.body_f;
    bf[b * 6] = f[0];
    bf[b * 6 + 1] = f[1];
    bf[b * 6 + 2] = f[2];
    bf[b * 6 + 3] = l[1] * f[2] - l[2] * f[1];
    bf[b * 6 + 4] = l[2] * f[0] - l[0] * f[2];
    bf[b * 6 + 5] = l[0] * f[1] - l[1] * f[0];
  }

  /** one step with drag, history and divergence check; false when the step diverged (paused) */
  stepOnce(): boolean {
    const sim = this.sim;
    if (!sim) return false;
    this.applyDrag();
    const t0 = this.now();
    const r = sim.step();
    this.statWindow.ms += this.now() - t0;
    this.statWindow.steps++;
    this.lastReport = r;
    this.stepCount++;
    const bad = r.worlds.findIndex((w) => w.status === 'invalid_input' || w.nonfinite !== undefined);
    if (r.status === 'invalid_input' || bad >= 0 || !allFinite(sim.state.body_q)) {
      const w = Math.max(0, bad);
      const what = r.worlds[w]?.nonfinite ?? 'non-finite body pose';
      this.setPlaying(false);
      this.error({
        code: 'divergence',
        message: `simulation diverged at t = ${sim.state.time.toFixed(4)} s (step ${this.stepCount}): world ${w}: ${what}; paused — reset, seek back or change the options`,
        path: `worlds[${w}]`,
        reason: what,
      });
      return false;
    }
    this.history?.push(this.stepCount, sim.state.time, sim.state.joint_q, sim.state.joint_qd);
    return true;
  }

  /** steps n times now (no budget), then publishes a frame, stats and an ablation sample if due */
  advance(n: number): number {
    let done = 0;
    while (done < n && this.sim) {
      done++;
      if (!this.stepOnce()) break;
    }
    this.afterSteps(done);
    return done;
  }

  private afterSteps(taken: number): void {
    if (taken <= 0) return;
    if (this.ablation_every > 0 && this.stepCount - this.lastAblationStep >= this.ablation_every)
      this.ablate();
    this.sendFrame();
    this.sendStats(false);
  }

  /** the worker loop's per-frame entry */
  tick(): void {
    if (!this.playing || !this.sim) return;
    const plan = this.pacer.plan(this.now());
    const taken = runBudgeted(plan, this.now, () => this.stepOnce());
    this.pacer.commit(taken);
    this.afterSteps(taken);
  }

  private reset(): void {
    const sim = this.sim;
    if (!sim) return;
    sim.reset();
    sim.control.joint_f.fill(0);
    sim.control.joint_target_pos.set(sim.model.joint_target_pos);
    sim.control.joint_target_vel.set(sim.model.joint_target_vel);
    this.drag = null;
    this.stepCount = 0;
    this.lastReport = null;
    this.lastAblationStep = -1;
    this.history?.clear();
    this.history?.push(0, 0, sim.state.joint_q, sim.state.joint_qd);
    this.pacer.restart();
    clearContacts(sim.contacts);
    this.sendFrame();
    this.sendStats(true);
  }

  private seek(step: number): void {
    const sim = this.sim;
    const snap = this.history?.find(step);
    if (!sim || !snap) return;
    this.setPlaying(false);
    sim.state.joint_q.set(snap.q);
    sim.state.joint_qd.set(snap.qd);
    sim.state.time = snap.time;
    sim.state.body_f.fill(0);
    sim.solver.updateBodyState(sim.state);
    this.drag = null;
    this.stepCount = snap.step;
    this.lastAblationStep = -1;
    // the contact buffer belongs to the step that produced it: empty until the next step
    clearContacts(sim.contacts);
    this.sendFrame();
    this.sendStats(true);
  }

  private perturb(cmd: Extract<Command, { type: 'perturb' }>): void {
    const sim = this.sim;
    if (!sim) return;
    if (this.drag) {
      sim.state.body_f.fill(0, this.drag.body * 6, this.drag.body * 6 + 6);
    }
    if (cmd.body < 0) {
      this.drag = null;
      return;
    }
    if (cmd.body >= sim.model.body_count) throw new Error(`perturb: body ${cmd.body} does not exist`);
    if (!cmd.point || !cmd.target) throw new Error('perturb: point and target are required');
    this.drag = {
      body: cmd.body,
      point: cmd.point,
      target: cmd.target,
      stiffness: cmd.stiffness ?? DEFAULT_DRAG_STIFFNESS,
    };
  }

  private setControl(cmd: Extract<Command, { type: 'set_control' }>): void {
    const sim = this.sim;
    if (!sim) return;
    if (cmd.dofs.length !== cmd.values.length)
      throw new Error('set_control: dofs and values differ in length');
    const arr = sim.control[cmd.field];
    const m = sim.model;
    const perWorld = m.world_dof_start[1] - m.world_dof_start[0];
    for (let i = 0; i < cmd.dofs.length; i++) {
      const d = cmd.dofs[i];
      if (d >= arr.length) throw new Error(`set_control: dof ${d} out of range (${arr.length} DOFs)`);
      if (cmd.all_worlds && d < perWorld) {
        for (let w = 0; w < m.num_worlds; w++) arr[m.world_dof_start[w] + d] = cmd.values[i];
      } else arr[d] = cmd.values[i];
    }
  }

  // ------------------------------------------------------------------------------------------ read-outs

  /** one-step ablation from the current state (SPEC §3.8) */
  ablate(): AblationSample | null {
    const sim = this.sim;
    if (!sim || !this.ablContacts) return null;
    const t0 = this.now();
    if (!this.ablator) this.ablator = new OneStepAblator(sim.model, this.explicit);
    sim.collision.collide(sim.state, this.ablContacts);
    const r = this.ablator.run(sim.state, sim.control, this.ablContacts, sim.dt);
    this.lastAblationStep = this.stepCount;
    const sample: AblationSample = {
      time: sim.state.time,
      step: this.stepCount,
      delta_precision: r.delta_precision.norm,
      delta_model: r.delta_model.norm,
      delta_precision_max: r.delta_precision.max_abs,
      delta_model_max: r.delta_model.max_abs,
      iterations: this.lastReport?.iterations_mean ?? 0,
      contacts: this.lastReport?.contact_count ?? 0,
      ms: this.now() - t0,
    };
    this.emit({ v: PROTOCOL_VERSION, type: 'ablation', sample });
    return sample;
  }

  private packContacts(): ContactFrame | undefined {
    const sim = this.sim;
    if (!sim || !this.sendContacts) return undefined;
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

  /** publishes the current poses (ring or transfer) with contacts when asked */
  sendFrame(): void {
    const sim = this.sim;
    if (!sim) return;
    const seq = ++this.seq;
    const contacts = this.packContacts();
    const transfer: Transferable[] = contacts ? [contacts.data.buffer] : [];
    let poses: Float32Array | undefined;
    if (this.ring) this.ring.publish(seq, sim.state.time, this.stepCount, sim.state.body_q);
    else {
      poses = Float32Array.from(sim.state.body_q);
      transfer.push(poses.buffer);
    }
    this.emit(
      {
        v: PROTOCOL_VERSION,
        type: 'frame',
        seq,
        time: sim.state.time,
        step: this.stepCount,
        poses,
        contacts,
      },
      transfer,
    );
  }

  /** stats at most every STATS_PERIOD_MS of wall time, unless forced */
  sendStats(force: boolean): void {
    const sim = this.sim;
    if (!sim) return;
    const now = this.now();
    if (!force && now - this.lastStatsAt < STATS_PERIOD_MS) return;
    this.lastStatsAt = now;
    const r = this.lastReport;
    const win = this.statWindow;
    const wall = (now - win.t0) / 1000;
    const rtf = wall > 0 && this.playing ? (sim.state.time - win.sim0) / wall : 0;
    const step_ms = win.steps > 0 ? win.ms / win.steps : 0;
    this.statWindow = { steps: 0, ms: 0, t0: now, sim0: sim.state.time };
    this.emit({
      v: PROTOCOL_VERSION,
      type: 'stats',
      stats: {
        time: sim.state.time,
        step: this.stepCount,
        status: r?.status ?? '—',
        iterations: r?.iterations_mean ?? 0,
        iterations_max: r?.iterations_max ?? 0,
        line_search_iterations: r?.line_search_iterations ?? 0,
        contacts: r?.contact_count ?? 0,
        truncated: r?.truncated_contact_count ?? 0,
        step_ms,
        realtime_factor: rtf,
        playing: this.playing,
        speed: this.speed,
        resyncs: this.pacer.resyncs,
        history: this.history?.range() ?? { first_step: 0, last_step: 0, first_time: 0, last_time: 0 },
      },
    });
  }
}

/** explicit options with a patch applied (null removes a key) */
export function mergeOptions(
  base: Record<string, OptionValue>,
  patch: Record<string, OptionValue | null>,
): Record<string, OptionValue> {
  const out: Record<string, OptionValue> = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

function allFinite(a: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return false;
  return true;
}
