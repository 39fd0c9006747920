/**
 * The solver options of the live scene (`set_options`): a patch merged into the explicit options,
 * validated before anything changes, applied to the CPU solver and the live backend; the ablation
 * and trajectory mode restart, and a change of a collision-build option reloads the scene.
 */
import { COLLISION_BUILD_OPTION_KEYS, resolveSolverOptions } from '../../sap/options';
import { toErrorInfo } from '../load_any';
import { PROTOCOL_VERSION, type OptionsInfo } from '../protocol';
import type { HostCore, OptionValue } from './context';
import { mergeOptions } from './scene_prepare';

/** the explicit options and the effective ones of the loaded scene's solver */
export function optionsInfo(host: HostCore): OptionsInfo {
  const effective = host.sim ? { ...host.sim.solver.options } : {};
  return { explicit: { ...host.explicit }, effective: effective as Record<string, OptionValue> };
}

/** `set_options`: an invalid patch is reported (`error`, then the unchanged `options`) */
export function setOptions(host: HostCore, patch: Record<string, OptionValue | null>): void {
  const sim = host.sim;
  if (!sim) return;
  const next = mergeOptions(host.explicit, patch);
  try {
    resolveSolverOptions(next);
  } catch (err) {
    host.error(toErrorInfo(err, 'options'));
    host.emit({ v: PROTOCOL_VERSION, type: 'options', options: optionsInfo(host) });
    return;
  }
  const before = host.explicit;
  host.explicit = next;
  sim.solver.setOptions(next);
  host.backend.setOptions(next);
  host.ablation.dropAblator();
  host.ablation.restartTrajectory();
  host.emit({ v: PROTOCOL_VERSION, type: 'options', options: optionsInfo(host) });
  host.backend.send();
  // the contact capacity, broad phase and material fallbacks are fixed per collision pipeline:
  // a new one needs a reload
  if (COLLISION_BUILD_OPTION_KEYS.some((k) => next[k] !== before[k])) {
    host.loading = host.loading.then(() => host.loader.load({ v: PROTOCOL_VERSION, type: 'reload' }));
  }
}
