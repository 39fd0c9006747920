/** the main-thread side of the worker: typed commands out, typed events in */
import { PROTOCOL_VERSION, type Command, type WorkerEvent } from './protocol';

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

export class SimClient {
  private readonly worker: Worker;
  constructor(onEvent: (e: WorkerEvent) => void) {
    this.worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (ev: MessageEvent<WorkerEvent>) => onEvent(ev.data);
    this.worker.onerror = (ev) => onEvent({ v: 1, type: 'error', message: ev.message || 'worker error' });
  }
  send(cmd: DistributiveOmit<Command, 'v'>): void {
    this.worker.postMessage({ ...cmd, v: PROTOCOL_VERSION });
  }
  dispose(): void {
    this.worker.terminate();
  }
}
