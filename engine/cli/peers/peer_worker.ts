/**
 * A bench peer in a worker thread of its own (same process, own V8 isolate), driven round by round
 * by the bench (bench.ts, `workerPeer`).
 *
 * Why an isolate of its own: the peers' WebAssembly memories grow while they load a model, growing
 * a memory detaches its old ArrayBuffer, and the first detached ArrayBuffer in an isolate makes V8
 * add a detach check to every typed-array access of optimized JS from then on. Run beside ours, a
 * peer would so cost our JS engine ~6–9% that has nothing to do with either engine (MuJoCo's and
 * Rapier's own code is WebAssembly and pays nothing). Each engine runs as it would in a worker of
 * its own; the rounds still alternate, one engine at a time, on the same machine.
 *
 * Messages in: `start` (peer, setup without the scene; the scene is loaded here from its file),
 * `round` (r), `result`. Each answers with one message: `ready` | `unfit` (why) | `rate` | `row` |
 * `error` (message).
 */
import { parentPort } from 'node:worker_threads';
import { loadModelFile, type LoadFileOptions } from '../../io/load_file';
import type { PeerName, PeerRow } from '../bench_scene';
import { startMujoco, startRapier, type PeerRunner, type PeerSetup } from './runners';

/** the bench → peer worker messages */
export type PeerWorkerRequest =
  | { type: 'start'; peer: PeerName; setup: Omit<PeerSetup, 'scene'>; load: LoadFileOptions }
  | { type: 'round'; r: number }
  | { type: 'result' };

/** the peer worker → bench answers, one per request */
export type PeerWorkerReply =
  | { type: 'ready' }
  | { type: 'unfit'; why: string }
  | { type: 'rate'; rate: number }
  | { type: 'row'; row: PeerRow }
  | { type: 'error'; message: string };

const port = parentPort;
if (port) {
  let runner: PeerRunner | null = null;
  const reply = (m: PeerWorkerReply): void => port.postMessage(m);
  const handle = async (m: PeerWorkerRequest): Promise<PeerWorkerReply> => {
    switch (m.type) {
      case 'start': {
        const scene = await loadModelFile(m.setup.spec.file, m.load);
        const setup: PeerSetup = { ...m.setup, scene };
        const r = m.peer === 'rapier' ? await startRapier(setup) : await startMujoco(setup, m.peer);
        if (typeof r === 'string') return { type: 'unfit', why: r };
        runner = r;
        return { type: 'ready' };
      }
      case 'round': {
        if (!runner) throw new Error('round before start');
        const rate = runner.round(m.r);
        runner.rates.push(rate);
        return { type: 'rate', rate };
      }
      case 'result':
        if (!runner) throw new Error('result before start');
        return { type: 'row', row: runner.result() };
    }
  };
  port.on('message', (m: PeerWorkerRequest) => {
    handle(m).then(reply, (e: unknown) => reply({ type: 'error', message: (e as Error).message }));
  });
}
