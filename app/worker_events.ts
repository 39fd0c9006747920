/**
 * Listeners of the worker's events beside the session's own handler: features that wait for an
 * answer (a trajectory export) subscribe here instead of growing the session's switch.
 */
import type { WorkerEvent } from '../engine/worker/protocol';

const listeners = new Set<(e: WorkerEvent) => void>();

/** calls `fn` with every worker event after the session handled it; returns the unsubscribe */
export function onWorkerEvent(fn: (e: WorkerEvent) => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** hands an event to every listener (the session calls it once per event) */
export function dispatchWorkerEvent(e: WorkerEvent): void {
  for (const fn of listeners) fn(e);
}
