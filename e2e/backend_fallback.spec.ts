/**
 * The backend switch where WebGPU cannot run: Chromium without `--enable-unsafe-webgpu` (on Linux it
 * exposes navigator.gpu but finds no adapter). Choosing WebGPU keeps the CPU stepping and shows the
 * reason in the UI; the studio keeps working.
 */
import { expect, test } from '@playwright/test';
import { openStudio, panelText, studio, watchConsole } from './helpers';

const SHOTS = 'dist/e2e-results/screens';

// the configuration's launch flags without the WebGPU ones (a browser of its own for this file)
test.use({
  launchOptions: {
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  },
});

test('choosing WebGPU keeps the CPU running and shows why', async ({ page }) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await page.locator('[id="simulation.backend"]').selectOption({ label: 'webgpu' });
  await expect
    .poll(() => studio(page, (s) => s.backend()))
    .toMatchObject({ requested: 'webgpu', active: 'cpu', pending: false });
  const b = (await studio(page, (s) => s.backend()))!;
  expect(b.fallback).toMatch(/WebGPU unavailable \(.*no adapter.*\); running on the CPU backend/);
  expect(b.adapter).toBeNull();
  expect(Object.values(b.precision)).not.toContain('fp64 (df64)');
  // the reason is on screen, and the panel says the CPU runs in its place
  await expect(page.getByTestId('backend-status')).toContainText(b.fallback!);
  await expect.poll(() => panelText(page, 'simulation.active backend')).toBe('cpu (fallback)');
  await expect.poll(() => panelText(page, 'simulation.adapter')).toBe('none');
  const step = await studio(page, (s) => s.step);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(step + 10);
  await page.locator('[id="simulation.backend"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/11-backend-fallback.png` });

  await page.locator('[id="simulation.backend"]').selectOption({ label: 'cpu' });
  await expect
    .poll(() => studio(page, (s) => s.backend()))
    .toMatchObject({ requested: 'cpu', active: 'cpu', fallback: null });
  await expect(page.getByTestId('backend-status')).toHaveCount(0);
  expect(errors).toEqual([]);
});
