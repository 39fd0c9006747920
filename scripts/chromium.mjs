// Debian's chromium: the browser of the end-to-end tests and, through its SwiftShader Vulkan ICD,
// the headless WebGPU adapter of the engine's GPU tests. Installed with apt-get (as root) when
// /usr/bin/chromium is missing; browsers are never downloaded any other way.
import { existsSync } from 'node:fs';
import { execSync } from 'node:child_process';

export const CHROMIUM = '/usr/bin/chromium';

export function ensureChromium(tag = 'chromium') {
  if (existsSync(CHROMIUM)) return;
  console.log(`[${tag}] installing Debian chromium (apt-get)…`);
  const sudo = process.getuid && process.getuid() !== 0 ? 'sudo ' : '';
  execSync(`${sudo}apt-get update`, { stdio: 'inherit' });
  execSync(`${sudo}env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium`, { stdio: 'inherit' });
}
