/**
 * The step inspector's actions (issue 55): open it (pauses and asks the worker for the traced
 * re-solve of the last step, or of the next one before any step), re-solve under other options for
 * the overlay, close it. The answers arrive as `inspection` events (session.ts → inspector_state.ts).
 */
import { client, send, setPlaying } from './session';
import { parseOverrides, useInspector } from './inspector_state';

type OptionValue = string | number | boolean;

let nextId = 1;

/** which step the inspector solves: the last one taken, or the next one when none was taken */
function whichStep(): 'last' | 'next' {
  return client.latest.step > 0 ? 'last' : 'next';
}

function request(slot: 'a' | 'b', options: Record<string, OptionValue> | undefined): void {
  const id = nextId++;
  useInspector.getState().set({ pending: { id, slot }, error: null });
  const first = useInspector.getState().a?.inspection;
  // B re-solves A's step (the live simulation is paused while the inspector is open)
  const step = slot === 'b' && first ? first.which : whichStep();
  send({ type: 'inspect_step', step, id, ...(options ? { options } : {}) });
}

/** opens the inspector on the current step (pauses the simulation) */
export function openInspector(): void {
  setPlaying(false);
  useInspector.getState().set({ open: true });
  request('a', undefined);
}

/** closes the inspector and drops its solves */
export function closeInspector(): void {
  useInspector.getState().set({ open: false, a: null, b: null, pending: null, error: null });
}

/** `i`: opens or closes the inspector */
export function toggleInspector(): void {
  if (useInspector.getState().open) closeInspector();
  else openInspector();
}

/** solves A again (after stepping on, say) */
export function refreshInspector(): void {
  setPlaying(false);
  request('a', undefined);
}

/**
 * re-solves A's step under a preset, a line search and "key=value" overrides (the live options
 * with these on top) as solve B; an override the field cannot read is shown, nothing is sent
 */
export function resolveUnder(preset: string, lineSearch: string, overrides: string): void {
  let extra: Record<string, OptionValue>;
  try {
    extra = parseOverrides(overrides);
  } catch (err) {
    useInspector.getState().set({ error: (err as Error).message });
    return;
  }
  const options: Record<string, OptionValue> = { ...extra };
  if (preset !== '') options.contact_preset_variant = preset;
  if (lineSearch !== '') options.line_search_variant = lineSearch;
  request('b', options);
}
