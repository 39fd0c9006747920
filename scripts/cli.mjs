// `npm run sim` and `npm run bench`: the CLI (engine/cli/main.ts) on the engine as built, not
// through tsx.
//
// It bundles engine/cli/main.ts and the bench's peer worker with esbuild (as the studio's Vite build
// bundles the engine; npm packages stay external) into a folder of its own under
// node_modules/.cache/sap-studio/ and runs the bundle with plain node; the folder goes when the
// command ends. Why not tsx: under its loader our step runs as slowly as in an isolate where an
// ArrayBuffer was detached (V8 then checks every typed-array access of optimized code, ~6–9% of a
// CPU step), so timings and the bench would measure a development loader's side effect. The bundle
// also starts faster (~0.2 s against tsx's ~0.6 s). Arguments are passed to main.ts.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = path.join(root, 'node_modules/.cache/sap-studio');
mkdirSync(cache, { recursive: true });
// folders left by runs that were killed (older than a day)
for (const e of readdirSync(cache)) {
  const f = path.join(cache, e);
  if (e.startsWith('cli-') && Date.now() - statSync(f).mtimeMs > 86_400_000)
    rmSync(f, { recursive: true, force: true });
}
// (a folder per run: concurrent runs never read a bundle another one is writing)
const out = mkdtempSync(path.join(cache, 'cli-'));
let status = 1;
try {
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
  const r = spawnSync(process.execPath, [path.join(out, 'cli.mjs'), ...process.argv.slice(2)], {
    stdio: 'inherit',
    cwd: process.cwd(),
    env: { ...process.env, SAP_ENGINE_ROOT: path.join(root, 'engine') },
  });
  status = r.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exit(status);
