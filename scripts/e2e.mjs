// end-to-end tests: makes sure Debian's Chromium is installed (apt-get, as root; browsers are never
// downloaded any other way), builds the studio and runs the Playwright suite against `vite preview`.
import { existsSync } from 'node:fs';
import { execSync } from 'node:child_process';

const CHROMIUM = '/usr/bin/chromium';
const run = (cmd) => execSync(cmd, { stdio: 'inherit' });

if (!existsSync(CHROMIUM)) {
  console.log('[e2e] installing Debian chromium (apt-get)…');
  const sudo = process.getuid && process.getuid() !== 0 ? 'sudo ' : '';
  run(`${sudo}apt-get update`);
  run(`${sudo}env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium`);
}
if (!process.argv.includes('--no-build')) {
  console.log('[e2e] building the studio (vite build)…');
  run('npx vite build --logLevel warn');
}
const extra = process.argv.slice(2).filter((a) => a !== '--no-build');
run(['npx playwright test', ...extra].join(' '));
