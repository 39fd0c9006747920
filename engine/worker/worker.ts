/// <reference lib="webworker" />
/**
 * Web Worker entry: a SimHost driven by a frame clock. Each tick (≈ 60 Hz) the host steps what the
 * wall clock owes within 0.7 of a frame (pacing.ts), so the worker stays responsive to commands
 * between ticks. Poses go through a SharedArrayBuffer ring when the page is cross-origin isolated.
 */
import { SimHost } from './sim_host';
import { PROTOCOL_VERSION, type WorkerEvent } from './protocol';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const useRing = scope.crossOriginIsolated === true && typeof SharedArrayBuffer !== 'undefined';
const host = new SimHost(
  (e: WorkerEvent, transfer?: Transferable[]) => scope.postMessage(e, transfer ?? []),
  {
    useRing,
    // fault injection (tests): the worker ends, or stops answering, like a crashed one
    onDebug: (fault) => {
      if (fault === 'close') scope.close();
      else {
        const until = performance.now() + 3_600_000;
        while (performance.now() < until) {
          /* blocked */
        }
      }
    },
  },
);
scope.onmessage = (ev: MessageEvent) => host.handle(ev.data);

const FRAME_MS = 1000 / 60;
let next = performance.now();
function loop(): void {
  try {
    host.tick();
  } catch (err) {
    host.setPlaying(false);
    scope.postMessage({
      v: PROTOCOL_VERSION,
      type: 'error',
      error: {
        code: 'worker',
        message: `worker step failed: ${err instanceof Error ? err.message : String(err)}`,
      },
    } satisfies WorkerEvent);
  }
  next += FRAME_MS;
  const now = performance.now();
  if (next < now) next = now; // fell behind: do not queue a burst of ticks
  setTimeout(loop, next - now);
}
setTimeout(loop, FRAME_MS);
