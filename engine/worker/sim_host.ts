/**
 * SimHost: the engine side of the worker, independent of the messaging transport so it runs in a
 * Web Worker, on the main thread or in Node tests. Keeps the current scene when a load fails.
 */
import { loadScene, parseSceneText } from '../io/scene/load';
import { Simulation } from '../pipeline';
import { checkCommand, type Command, type SceneInfo, type WorkerEvent } from './protocol';

export class SimHost {
  sim: Simulation | null = null;
  playing = false;
  private info: SceneInfo | null = null;
  private solverOptions: Record<string, unknown> = {};

  constructor(private readonly emit: (e: WorkerEvent, transfer?: Transferable[]) => void) {}

  handle(raw: unknown): void {
    const bad = checkCommand(raw);
    if (bad) {
      this.emit({ v: 1, type: 'error', message: bad, where: 'protocol' });
      return;
    }
    const cmd = raw as Command;
    try {
      switch (cmd.type) {
        case 'load_scene':
          this.load(cmd.text, cmd.file_name);
          break;
        case 'set_options':
          if (!this.sim) break;
          this.sim.solver.setOptions({ ...this.solverOptions, ...cmd.options });
          this.solverOptions = { ...this.solverOptions, ...cmd.options };
          break;
        case 'play':
          this.playing = true;
          break;
        case 'pause':
          this.playing = false;
          break;
        case 'step':
          this.advance(cmd.n);
          break;
        case 'reset':
          this.sim?.reset();
          this.sendFrame();
          break;
      }
    } catch (err) {
      const e = err as Error & { path?: string };
      this.emit({ v: 1, type: 'error', message: e.message, where: e.path });
    }
  }

  private load(text: string, fileName: string): void {
    // parse and build first: a failure leaves the current scene untouched
    const loaded = loadScene(parseSceneText(text, fileName), { strict: true });
    const sim = new Simulation(loaded.model, {
      dt: loaded.dt,
      solver: loaded.solver,
      max_rigid_contact: loaded.max_rigid_contact,
    });
    this.sim = sim;
    this.solverOptions = { ...loaded.solver };
    const m = loaded.model;
    this.info = {
      name: loaded.name,
      dt: loaded.dt,
      num_worlds: m.num_worlds,
      body_count: m.body_count,
      body_label: [...m.body_label],
      shapes: Array.from({ length: m.shape_count }, (_, s) => ({
        type: m.shape_type[s],
        body: m.shape_body[s],
        size: Array.from(m.shape_size.subarray(s * 3, s * 3 + 3)),
        X_bs: Array.from(m.shape_X_bs.subarray(s * 7, s * 7 + 7)),
        color: Array.from(m.shape_color.subarray(s * 3, s * 3 + 3)),
      })),
      options: { ...sim.solver.options },
    };
    this.emit({ v: 1, type: 'ready', scene: this.info });
    this.sendFrame();
  }

  /** steps up to n times within budget_ms of wall time, then emits one frame and stats; returns steps taken */
  advance(n: number, budget_ms = Infinity): number {
    const sim = this.sim;
    if (!sim || n <= 0) return 0;
    const t0 = performance.now();
    let last = null;
    let done = 0;
    while (done < n && performance.now() - t0 < budget_ms) {
      last = sim.step();
      done++;
    }
    const ms = (performance.now() - t0) / Math.max(1, done);
    this.sendFrame();
    if (last) {
      this.emit({
        v: 1,
        type: 'stats',
        time: sim.state.time,
        status: last.status,
        iterations: last.iterations_mean,
        line_search_iterations: last.line_search_iterations,
        contacts: last.contact_count,
        truncated: last.truncated_contact_count,
        step_ms: ms,
      });
    }
    return done;
  }

  private sendFrame(): void {
    const sim = this.sim;
    if (!sim) return;
    const poses = Float32Array.from(sim.state.body_q);
    this.emit({ v: 1, type: 'frame', time: sim.state.time, poses, contacts: sim.contacts.count[0] ?? 0 }, [
      poses.buffer,
    ]);
  }
}
