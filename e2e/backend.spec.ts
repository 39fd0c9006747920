/**
 * The backend switch (SPEC §6, §8) as a person uses it: pick WebGPU in the simulation panel, see
 * which backend runs (and why not, when WebGPU cannot), watch the scene keep moving, share it, and
 * go back to the CPU. Headless Chromium runs with `--enable-unsafe-webgpu
 * --use-webgpu-adapter=swiftshader` (playwright.config.ts), so it gets SwiftShader's adapter and the
 * GPU path runs; were there no adapter, the fallback reason must be on screen instead (that case is
 * e2e/backend_fallback.spec.ts).
 */
import { expect, test } from '@playwright/test';
import { decodeLink, linkPayloadFromHash } from '../app/link';
import {
  clickArm7Link2,
  openStudio,
  panelText,
  pickCatalogScene,
  stepAndSeeArm7Drive,
  studio,
  watchConsole,
} from './helpers';

const SHOTS = 'dist/e2e-results/screens';

test('switching to WebGPU runs the scene there (or states why not), and back to the CPU', async ({
  page,
}) => {
  // the first WebGPU use compiles every kernel (SwiftShader: tens of seconds on a small machine)
  test.setTimeout(300_000);
  const errors = watchConsole(page);
  const tStart = Date.now();
  await openStudio(page);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(10);
  expect(await studio(page, (s) => s.backend())).toMatchObject({ requested: 'cpu', active: 'cpu' });
  // the worker's CPU solver runs its linear algebra in WebAssembly (allowed by 'wasm-unsafe-eval')
  expect((await studio(page, (s) => s.backend()))!.description).toMatch(/WebAssembly linear algebra/);
  await expect.poll(() => panelText(page, 'simulation.active backend')).toBe('cpu');

  // choose WebGPU in the simulation panel
  await page.locator('[id="simulation.backend"]').selectOption({ label: 'webgpu' });
  await expect
    .poll(() => studio(page, (s) => s.backend()?.requested), { message: 'requested' })
    .toBe('webgpu');
  // the CPU keeps stepping while the backend starts; wait until it has started or fallen back
  await expect
    .poll(() => studio(page, (s) => s.backend()?.pending), { timeout: 240_000, message: 'pending' })
    .toBe(false);
  const b = (await studio(page, (s) => s.backend()))!;
  console.log(
    `[backend e2e] ${Date.now() - tStart} ms: active=${b.active} adapter=${b.adapter} fallback=${b.fallback}`,
  );

  const step0 = await studio(page, (s) => s.step);
  const time0 = await studio(page, (s) => s.time);
  if (b.active === 'webgpu') {
    // SwiftShader's adapter: the GPU path steps the scene
    expect(b.fallback).toBeNull();
    expect(b.adapter).toBeTruthy();
    expect(b.description).toMatch(/^webgpu:/);
    // box_stack runs the drake preset: fp64 knobs, emulated in df64 on the GPU
    expect(Object.values(b.precision)).toContain('fp64 (df64)');
    await expect.poll(() => panelText(page, 'simulation.active backend')).toBe('webgpu');
    await expect.poll(() => panelText(page, 'simulation.precision')).toMatch(/fp64 \(df64\)/);
    await expect(page.getByTestId('backend-status')).toHaveCount(0);
  } else {
    // no adapter (or a model the GPU path cannot run): the CPU runs, and the reason is shown
    expect(b.fallback).toBeTruthy();
    await expect(page.getByTestId('backend-status')).toContainText(b.fallback!);
    await expect.poll(() => panelText(page, 'simulation.active backend')).toBe('cpu (fallback)');
  }
  // the simulation keeps advancing
  await expect.poll(() => studio(page, (s) => s.step), { timeout: 60_000 }).toBeGreaterThan(step0 + 5);
  expect(await studio(page, (s) => s.time)).toBeGreaterThan(time0);
  expect(await studio(page, (s) => s.backend()?.active)).toBe(b.active);
  // a lively scene: loading it makes the chosen backend anew, and the pendulum swings on it
  await pickCatalogScene(page, 'double_pendulum');
  await expect.poll(() => studio(page, (s) => s.backend()?.pending), { timeout: 240_000 }).toBe(false);
  expect(await studio(page, (s) => s.backend())).toMatchObject({ requested: 'webgpu', active: b.active });
  const swing0 = await studio(page, (s) => s.poses());
  await expect
    .poll(
      async () => {
        const p = await studio(page, (s) => s.poses());
        return p.length === swing0.length ? Math.max(...p.map((v, i) => Math.abs(v - swing0[i]))) : 0;
      },
      { timeout: 60_000 },
    )
    .toBeGreaterThan(0.01);
  if (b.active === 'webgpu') {
    // the body inspector's efforts come back from the GPU: arm7's link2 hangs on its drive
    await pickCatalogScene(page, 'arm7');
    await expect.poll(() => studio(page, (s) => s.backend()?.pending), { timeout: 240_000 }).toBe(false);
    expect(await studio(page, (s) => s.backend()?.active)).toBe('webgpu');
    await page.getByRole('button', { name: 'pause', exact: true }).first().click();
    await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);
    await clickArm7Link2(page);
    await expect.poll(() => studio(page, (s) => s.selection())).toBe(2);
    await stepAndSeeArm7Drive(page);
    await page.screenshot({ path: `${SHOTS}/10b-body-inspector-webgpu.png` });
    await page.getByTestId('body-inspector').getByRole('button', { name: 'close' }).click();
    // play on from the timeline's button
    await page.getByRole('button', { name: '▶ play', exact: true }).click({ timeout: 20_000 });
    await expect.poll(() => studio(page, (s) => s.playing)).toBe(true);
  }
  // the simulation panel (backend, active backend, adapter, precision) in the shot
  await page.locator('[id="simulation.backend"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/10-backend-${b.active}.png` });

  // a link carries the backend
  const link = await studio(page, (s) => s.link());
  expect(decodeLink(linkPayloadFromHash(new URL(link).hash)!).sim?.backend).toBe('webgpu');

  // back to the CPU
  await page.locator('[id="simulation.backend"]').selectOption({ label: 'cpu' });
  await expect
    .poll(() => studio(page, (s) => s.backend()))
    .toMatchObject({ requested: 'cpu', active: 'cpu', fallback: null });
  await expect.poll(() => panelText(page, 'simulation.active backend')).toBe('cpu');
  await expect(page.getByTestId('backend-status')).toHaveCount(0);
  const step1 = await studio(page, (s) => s.step);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(step1 + 10);
  const cpuLink = decodeLink(linkPayloadFromHash(new URL(await studio(page, (s) => s.link())).hash)!);
  expect(cpuLink.sim?.backend).toBeUndefined();
  expect(await studio(page, (s) => s.errors())).toEqual([]);
  expect(errors).toEqual([]);
});
