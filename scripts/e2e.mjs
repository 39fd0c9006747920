// end-to-end tests: makes sure Debian's Chromium is installed (apt-get, as root; browsers are never
// downloaded any other way), builds the studio and runs the Playwright suite against `vite preview`.
import { execSync } from 'node:child_process';
import { ensureChromium } from './chromium.mjs';

const run = (cmd) => execSync(cmd, { stdio: 'inherit' });

ensureChromium('e2e');
if (!process.argv.includes('--no-build')) {
  console.log('[e2e] building the studio as a test build (vite build --mode test)…');
  run('npx vite build --mode test --logLevel warn');
}
const extra = process.argv.slice(2).filter((a) => a !== '--no-build');
run(['npx playwright test', ...extra].join(' '));
