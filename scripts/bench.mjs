// `npm run bench`: runs the CLI's bench on the engine as built, not through tsx.
//
// It bundles engine/cli/main.ts and the peer worker (esbuild, as the studio's Vite build bundles the
// engine; npm packages stay external) into node_modules/.cache/sap-studio/bench/ and runs them with
// plain node, each peer in a worker thread of its own. Why not tsx: its loader detaches an
// ArrayBuffer in the main isolate, and after the first detach V8 adds a detach check to every
// typed-array access of optimized code (~6–9% of a CPU step). The bench would then time a
// development loader's side effect, not the engine. Arguments are passed to `main.ts bench`.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'node_modules/.cache/sap-studio/bench');
await build({
  entryPoints: {
    cli: path.join(root, 'engine/cli/main.ts'),
    peer_worker: path.join(root, 'engine/cli/peers/peer_worker.ts'),
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  outdir: out,
  outExtension: { '.js': '.mjs' },
  logLevel: 'warning',
});
const r = spawnSync(process.execPath, [path.join(out, 'cli.mjs'), 'bench', ...process.argv.slice(2)], {
  stdio: 'inherit',
  cwd: root,
  env: { ...process.env, SAP_ENGINE_ROOT: path.join(root, 'engine') },
});
process.exit(r.status ?? 1);
