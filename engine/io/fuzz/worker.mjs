// Worker-thread entry of the fuzz pool (pool.ts): TypeScript through tsx, then the fuzz loop.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { runJob } = await import('./runner.ts');
await runJob(workerData, (m) => parentPort.postMessage(m));
