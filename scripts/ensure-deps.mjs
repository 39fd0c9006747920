// installs npm dependencies when node_modules is missing or older than the lock file, and with
// --chromium Debian's chromium (the e2e browser and the SwiftShader WebGPU adapter of the GPU tests).
// used by `npm start` and `npm test` so both work on a fresh clone.
import { existsSync, statSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { ensureChromium } from './chromium.mjs';

const lock = 'package-lock.json';
const marker = 'node_modules/.package-lock.json';
const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs);
if (stale) {
  // `npm ci` installs exactly the locked versions and never rewrites the lock file, so a fresh
  // clone's tree stays clean. the lock lists every platform's optional packages (rollup, esbuild):
  // refresh it with `npm install --package-lock-only` after changing package.json.
  console.log('[ensure-deps] installing npm packages (npm ci, from package-lock.json)…');
  execSync('npm ci --no-audit --no-fund', { stdio: 'inherit' });
}

if (process.argv.includes('--chromium')) ensureChromium('ensure-deps');
