/**
 * The MuJoCo ghost's Web Worker: MuJoCo's official WebAssembly build (`@mujoco/mujoco`, its .wasm
 * served beside the bundle) driven by {@link GhostHost}. It runs apart from the engine worker: the
 * MuJoCo module's JS bindings (embind) build their invokers with `new Function`, which the studio's
 * policy forbids; this script alone is served with a policy that allows it (vite.config.ts,
 * `ghostWorkerCsp`), and a MuJoCo memory growing here never detaches a buffer in the engine's isolate.
 */
import loadMujocoWasm from '@mujoco/mujoco';
import wasmUrl from '@mujoco/mujoco/mujoco.wasm?url';
import type { MujocoModule } from '../../cli/peers/mujoco';
import { GhostHost, type GhostReply, type GhostRequest } from './ghost_host';

let mujoco: Promise<MujocoModule | string> | null = null;
const getMujoco = (): Promise<MujocoModule | string> => {
  mujoco ??= (loadMujocoWasm({ locateFile: () => wasmUrl }) as unknown as Promise<MujocoModule>).catch(
    (e: unknown) => `MuJoCo's WebAssembly did not start (${e instanceof Error ? e.message : String(e)})`,
  );
  return mujoco;
};

const host = new GhostHost(getMujoco);
const post = (r: GhostReply): void => (self as unknown as Worker).postMessage(r);
// one message at a time, in order (a load finishes before the advances that follow it)
let queue: Promise<void> = Promise.resolve();
self.onmessage = (ev: MessageEvent<GhostRequest>) => {
  const msg = ev.data;
  queue = queue.then(async () => {
    const r = await host.handle(msg);
    if (r) post(r);
  });
};
