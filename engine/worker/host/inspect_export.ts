/**
 * The read-out hooks on the history: `inspect_step` (a traced re-solve of one step, inspect_host.ts;
 * the live simulation waits meanwhile) and `export_trajectory` (the history ring's newest steps).
 */
import { OptionsError } from '../../sap/options';
import { InspectError, type StepInspector } from '../inspect_host';
import { toErrorInfo } from '../load_any';
import { PROTOCOL_VERSION, type Command, type TrajectoryDump } from '../protocol';
import type { HostCore } from './context';
import { mergeOptions } from './scene_prepare';

/** `inspect_step`: an `inspection` event, or an `options` / `inspect` error */
export function inspectStep(
  host: HostCore,
  inspector: StepInspector,
  cmd: Extract<Command, { type: 'inspect_step' }>,
): void {
  const sim = host.sim;
  if (!sim) throw new InspectError('inspect_step: no scene loaded', 'no scene loaded');
  try {
    const inspection = inspector.inspect({
      sim,
      history: host.history,
      stepCount: host.stepCount,
      which: cmd.step ?? 'last',
      options: mergeOptions(host.explicit, cmd.options ?? {}),
      id: cmd.id,
    });
    host.pacer.restart(); // the live view resumes from now, it does not catch up the solve's time
    host.emit({ v: PROTOCOL_VERSION, type: 'inspection', inspection });
  } catch (err) {
    if (err instanceof OptionsError) host.error(toErrorInfo(err, 'options'));
    else if (err instanceof InspectError)
      host.error({ code: 'inspect', message: err.message, reason: err.reason });
    else throw err;
  }
}

/** `export_trajectory`: the history ring's newest `last` steps (all when absent) */
export function exportTrajectory(host: HostCore, request_id: number, last?: number): void {
  const sim = host.sim;
  const h = host.history;
  if (!sim || !h) throw new Error('no scene is loaded: there is no trajectory to export');
  const dump = h.dump(last);
  const trajectory: TrajectoryDump = {
    ...dump,
    num_worlds: sim.model.num_worlds,
    nq: h.nq,
    nv: h.nv,
    capacity: h.capacity,
  };
  // copied, not transferred: a detached ArrayBuffer would slow every typed-array access of the worker
  host.emit({ v: PROTOCOL_VERSION, type: 'trajectory_export', request_id, trajectory });
}
