#!/usr/bin/env node
// `npm run sim`, `npm run bench` and the package's `sap-studio` bin: the CLI (engine/cli/main.ts)
// on the engine as built, not through tsx.
//
// It runs a bundle of engine/cli/main.ts and the bench's peer worker (esbuild, as the studio's Vite
// build bundles the engine; npm packages stay external), kept in
// node_modules/.cache/sap-studio/cli-<hash>/ where <hash> covers every engine source, package.json
// and this script: the first run after a change bundles (~1–2 s), the others start at once. Why not
// tsx: under its loader our step runs as slowly as in an isolate where an ArrayBuffer was detached
// (V8 then checks every typed-array access of optimized code, ~6–9% of a CPU step), so timings and
// the bench would measure a development loader's side effect. Arguments are passed to main.ts; the
// exit code is the CLI's.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(here), '..');
const engine = path.join(root, 'engine');
const cache = path.join(root, 'node_modules/.cache/sap-studio');

/** sha-256 of the engine's sources (without tests), package.json and this script */
function sourceHash() {
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const f = path.join(dir, e.name);
      if (e.isDirectory()) walk(f);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) files.push(f);
    }
  };
  walk(engine);
  files.sort();
  const h = createHash('sha256');
  for (const f of [...files, path.join(root, 'package.json'), here]) {
    h.update(path.relative(root, f));
    h.update('\0');
    h.update(readFileSync(f));
  }
  return h.digest('hex');
}

/** bundles into a fresh folder and moves it into place (a concurrent run may win the race) */
async function bundle(dir) {
  const { build } = await import('esbuild');
  mkdirSync(cache, { recursive: true });
  const tmp = mkdtempSync(path.join(cache, 'tmp-'));
  try {
    await build({
      entryPoints: {
        cli: path.join(engine, 'cli/main.ts'),
        peer_worker: path.join(engine, 'cli/peers/peer_worker.ts'),
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outdir: tmp,
      outExtension: { '.js': '.mjs' },
      logLevel: 'warning',
    });
    try {
      renameSync(tmp, dir);
    } catch (e) {
      if (!existsSync(path.join(dir, 'cli.mjs'))) throw e;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** bundles of older sources, and folders left by killed runs, once they are an hour old */
function prune(keep) {
  if (!existsSync(cache)) return;
  for (const e of readdirSync(cache)) {
    const f = path.join(cache, e);
    if (f === keep || !(e.startsWith('cli-') || e.startsWith('tmp-'))) continue;
    if (Date.now() - statSync(f).mtimeMs > 3_600_000) rmSync(f, { recursive: true, force: true });
  }
}

const hash = sourceHash();
const dir = path.join(cache, `cli-${hash.slice(0, 16)}`);
if (!existsSync(path.join(dir, 'cli.mjs')) || !existsSync(path.join(dir, 'peer_worker.mjs'))) {
  await bundle(dir);
}
prune(dir);
const r = spawnSync(process.execPath, [path.join(dir, 'cli.mjs'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  cwd: process.cwd(),
  env: { ...process.env, SAP_ENGINE_ROOT: engine, SAP_ENGINE_HASH: hash },
});
if (r.error) console.error(`sap-studio: ${r.error.message}`);
process.exit(r.status ?? 1);
