/**
 * Loading (`load_scene`, `reload`): loads are numbered as they arrive so that `cancel_load` abandons
 * those received before it; each is prepared off to the side (scene_prepare.ts, with `load_progress`
 * events) and committed only when it succeeded: the new scene replaces the old one, starts on the
 * CPU (the chosen backend is made in the background) and is announced with `ready`, then `backend`,
 * `ring`, a frame and stats. A failed or cancelled load leaves the running scene untouched.
 */
import { ControlHost } from '../control_host';
import { HistoryRing } from '../history';
import { loadCancelled, toErrorInfo } from '../load_any';
import {
  PROTOCOL_VERSION,
  withReloadKeyframe,
  type Command,
  type LoadProgress,
  type SceneSource,
} from '../protocol';
import { buildSceneInfo } from '../scene_info';
import type { HostCore, LoadJob, OptionValue } from './context';
import { optionsInfo } from './options';
import { prepareScene, type PreparedScene, type SceneLoadOptions } from './scene_prepare';

/** a load command */
export type LoadCommand = Extract<Command, { type: 'load_scene' | 'reload' }>;

/** the scene source of one host and its loads */
export class SceneLoader implements LoadJob {
  /** the source and load options of the loaded scene (a reload reads them again) */
  source: SceneSource | null = null;
  loadOpts: SceneLoadOptions = {};
  /** load commands received so far, and the count of those a `cancel_load` abandoned */
  private loadsReceived = 0;
  private cancelBefore = 0;

  constructor(private readonly host: HostCore) {}

  /** numbers a load command on arrival: the returned runner loads it unless a later cancel abandoned it */
  receive(cmd: LoadCommand): () => Promise<void> {
    const n = ++this.loadsReceived;
    return () => this.load(cmd, () => n <= this.cancelBefore);
  }

  /** `cancel_load`: the loads received so far are abandoned (the running one stops at its next file) */
  cancel(): void {
    this.cancelBefore = this.loadsReceived;
  }

  /** loads a scene (or reloads the current one) and, when that succeeded, makes it the live scene */
  async load(cmd: LoadCommand, cancelled: () => boolean = () => false): Promise<void> {
    let source: SceneSource;
    let loadOpts: SceneLoadOptions;
    let extra: Record<string, OptionValue | null> = {};
    if (cmd.type === 'reload') {
      if (!this.source) {
        this.host.error({ code: 'load', message: 'reload: no scene loaded yet' });
        return;
      }
      source = this.source;
      loadOpts = withReloadKeyframe(
        { ...this.loadOpts, num_worlds: cmd.num_worlds ?? this.loadOpts.num_worlds },
        cmd.keyframe,
      );
      if (cmd.strict !== undefined) loadOpts.strict = cmd.strict;
    } else {
      source = cmd.source;
      loadOpts = { num_worlds: cmd.num_worlds, dt: cmd.dt };
      if (cmd.keyframe !== undefined) loadOpts.keyframe = cmd.keyframe;
      if (cmd.strict !== undefined) loadOpts.strict = cmd.strict;
      extra = cmd.options ?? {};
    }
    const entry = source.kind === 'text' ? source.file_name : source.entry;
    let prepared: PreparedScene;
    const request_id = cmd.type === 'load_scene' ? cmd.request_id : undefined;
    const watch = {
      cancelled,
      progress: (p: LoadProgress) =>
        this.host.emit({ v: PROTOCOL_VERSION, type: 'load_progress', request_id, ...p }),
    };
    try {
      if (cancelled()) throw loadCancelled(entry);
      prepared = await prepareScene(
        source,
        loadOpts,
        cmd.type === 'reload' ? null : extra,
        this.host.explicit,
        watch,
      );
      // an importer may have turned the refused read into a warning: the load still ends here
      if (cancelled()) throw loadCancelled(entry);
    } catch (err) {
      this.host.error(toErrorInfo(err, 'load', entry));
      return;
    }
    const { loaded, sim, explicit } = prepared;
    try {
      // commit: the new scene replaces the old one only now; it starts on the CPU, and the selected
      // backend is made for its model in the background
      const host = this.host;
      host.backend.onLoad();
      host.sim = sim;
      host.controls = new ControlHost(loaded.model, loaded.control_sequence);
      host.controls.afterReset(sim);
      this.source = source;
      this.loadOpts = loadOpts;
      host.explicit = explicit;
      host.stepCount = 0;
      host.drag = null;
      host.lastReport = null;
      host.pacer.dt = sim.dt;
      host.pacer.restart();
      sim.solver.track_islands = host.sendIslands;
      sim.solver.track_joint_efforts = host.sendJoints;
      host.ablation.onLoad(sim);
      host.history = new HistoryRing(
        loaded.model.joint_coord_count,
        loaded.model.joint_dof_count,
        host.opts.historyCapacity,
      );
      host.history.push(0, sim.state.time, sim.state.joint_q, sim.state.joint_qd);
      host.containment.onLoad(loaded.model, sim.state);
      host.info = buildSceneInfo(loaded.model, sim.state.body_q, {
        name: loaded.name,
        file_name: entry,
        description: loaded.description,
        dt: sim.dt,
        contact_capacity: sim.contacts.capacity,
        warnings: loaded.warnings,
        notes: loaded.notes,
        keyframes: loaded.keyframes,
        keyframe: loaded.keyframe,
        control_sequence: loaded.control_sequence,
      });
      this.host.emit({
        v: PROTOCOL_VERSION,
        type: 'ready',
        scene: host.info,
        options: optionsInfo(this.host),
        request_id: cmd.type === 'load_scene' ? cmd.request_id : undefined,
      });
      host.backend.afterLoad(sim);
      host.publish.setupRing();
      host.publish.frame();
      host.publish.stats(true);
      if (cmd.type === 'load_scene' && cmd.play !== undefined) host.setPlaying(cmd.play);
    } catch (err) {
      this.host.error(toErrorInfo(err, 'load', entry));
    }
  }
}
