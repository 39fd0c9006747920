/**
 * The main-thread side of the worker: typed commands out, typed events in, and the latest pose frame
 * (from the SharedArrayBuffer ring or the last transferred buffer) for the renderer to read each
 * animation frame without going through React state.
 */
import { RingReader } from './frame_ring';
import { PROTOCOL_VERSION, type CommandBody, type ContactFrame, type WorkerEvent } from './protocol';

export interface LatestFrame {
  seq: number;
  time: number;
  step: number;
  poses: Float32Array | null;
  contacts: ContactFrame | null;
}

export class SimClient {
  private readonly worker: Worker;
  private ring: RingReader | null = null;
  /** the newest frame metadata and poses; mutated in place */
  readonly latest: LatestFrame = { seq: 0, time: 0, step: 0, poses: null, contacts: null };
  /** 'ring' or 'transfer', once the first frame arrived */
  transport: 'ring' | 'transfer' | 'none' = 'none';

  constructor(private readonly onEvent: (e: WorkerEvent) => void) {
    this.worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'sap-engine' });
    this.worker.onmessage = (ev: MessageEvent<WorkerEvent>) => this.receive(ev.data);
    this.worker.onerror = (ev) =>
      onEvent({
        v: PROTOCOL_VERSION,
        type: 'error',
        error: { code: 'worker', message: ev.message || 'worker error' },
      });
  }

  private receive(e: WorkerEvent): void {
    if (e.type === 'ring') {
      this.ring = new RingReader(e.buffer);
      this.transport = 'ring';
    } else if (e.type === 'ready') {
      this.ring = null;
      this.latest.poses = null;
      this.latest.contacts = null;
    } else if (e.type === 'frame') {
      this.latest.seq = e.seq;
      this.latest.time = e.time;
      this.latest.step = e.step;
      this.latest.contacts = e.contacts ?? null;
      if (e.poses) {
        this.latest.poses = e.poses;
        this.transport = 'transfer';
      } else if (this.ring) {
        const f = this.ring.read();
        if (f) this.latest.poses = f.poses;
      }
    }
    this.onEvent(e);
  }

  /** the newest poses: reads the ring when one is in use (called once per animation frame) */
  poses(): Float32Array | null {
    if (this.ring && this.ring.hasNew()) {
      const f = this.ring.read();
      if (f) {
        this.latest.poses = f.poses;
        this.latest.time = f.time;
        this.latest.step = f.step;
      }
    }
    return this.latest.poses;
  }

  send(cmd: CommandBody, transfer: Transferable[] = []): void {
    this.worker.postMessage({ ...cmd, v: PROTOCOL_VERSION }, transfer);
  }

  dispose(): void {
    this.worker.terminate();
  }
}
