/// <reference lib="webworker" />
/**
 * Web Worker entry: runs a SimHost and keeps real time — while playing, each tick steps as many dt
 * as the wall clock advanced (at most 0.7 of a 16 ms frame of work, re-syncing after drift).
 */
import { SimHost } from './sim_host';
import type { WorkerEvent } from './protocol';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const host = new SimHost((e: WorkerEvent, transfer?: Transferable[]) => scope.postMessage(e, transfer ?? []));
scope.onmessage = (ev: MessageEvent) => host.handle(ev.data);

let simAhead = 0;
let last = performance.now();
const FRAME_MS = 16;
setInterval(() => {
  const now = performance.now();
  const wall = (now - last) / 1000;
  last = now;
  const sim = host.sim;
  if (!host.playing || !sim) return;
  simAhead += wall;
  if (simAhead > 0.1) simAhead = 0.1; // re-sync after drift
  const taken = host.advance(Math.floor(simAhead / sim.dt), 0.7 * FRAME_MS);
  simAhead -= taken * sim.dt;
}, FRAME_MS);
