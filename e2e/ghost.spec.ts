/**
 * The MuJoCo ghost (app/ghost.ts) in a real browser: MuJoCo's WebAssembly build starts in its own
 * worker under its own Content-Security-Policy, follows the humanoid step for step, is drawn, and
 * the trajectory chart plots ‖Δq‖ against it with finite positive values, what is not mirrored is
 * named; a model MuJoCo cannot
 * take says why; the layout still fits at 1024 × 700 with the ghost on. No page errors throughout.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openStudio, pickCatalogScene, studio, toggleCheckbox, watchConsole } from './helpers';

const ASSETS = path.resolve('..', 'shared', 'assets');
const SHOTS = 'dist/e2e-results/screens';

interface GhostApi {
  phase: string;
  why: string;
  steps: number;
  answers: number;
  step: number;
  dq: number;
  dxMax: number;
  drawn: number;
  notMirrored(): string[];
}
const ghost = <T>(page: Page, fn: (g: GhostApi) => T): Promise<T> =>
  page.evaluate(`(${fn.toString()})(window.__sapStudio.ghost)`) as Promise<T>;

async function loadHumanoid(page: Page): Promise<void> {
  const loads = await studio(page, (s) => s.loads);
  await page.getByTestId('file-input').setInputFiles({
    name: 'humanoid.xml',
    mimeType: 'text/xml',
    buffer: readFileSync(path.join(ASSETS, 'mujoco/humanoid/humanoid.xml')),
  });
  await expect.poll(() => studio(page, (s) => [s.loads, s.sceneName])).toEqual([loads + 1, 'Humanoid']);
}

test('the humanoid with its MuJoCo ghost: stepped in lockstep, drawn, ‖Δq‖ plotted, no page errors', async ({
  page,
}) => {
  const errors = watchConsole(page);
  const workerCsp: string[] = [];
  page.on('response', (r) => {
    if (r.url().includes('ghost_worker')) workerCsp.push(r.headers()['content-security-policy'] ?? '');
  });
  await openStudio(page);
  await loadHumanoid(page);
  if (!(await studio(page, (s) => s.playing)))
    await page.getByRole('button', { name: 'play', exact: true }).first().click();

  // `g` turns it on
  await page.locator('body').press('g');
  await expect.poll(() => ghost(page, (g) => g.phase), { timeout: 60_000 }).toBe('running');
  await expect(page.getByTestId('ghost-status')).toContainText('MuJoCo');
  // its worker script came with its own policy (eval for MuJoCo's bindings), the page's has none
  expect(workerCsp.length).toBeGreaterThan(0);
  expect(workerCsp[0]).toContain("'unsafe-eval'");
  const pageCsp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(pageCsp).not.toContain("'unsafe-eval'");

  // the ghost steps with the live simulation and is drawn
  await expect.poll(() => ghost(page, (g) => g.steps), { timeout: 60_000 }).toBeGreaterThan(100);
  const at = await ghost(page, (g) => ({ step: g.step, answers: g.answers, drawn: g.drawn, dq: g.dq }));
  expect(at.drawn).toBeGreaterThan(10);
  expect(Number.isFinite(at.dq)).toBe(true);
  await expect.poll(() => ghost(page, (g) => g.answers)).toBeGreaterThan(at.answers + 5);
  expect(await ghost(page, (g) => g.step)).toBeGreaterThan(at.step);
  // the live and the ghost step counts agree to within the frames in flight
  const live = await studio(page, (s) => s.step);
  expect(live - (await ghost(page, (g) => g.step))).toBeLessThan(2000);

  // the trajectory chart draws finite, positive ‖Δq‖ against MuJoCo (a log axis: no zeros handed to it)
  await expect
    .poll(async () => {
      const d = await studio(page, (s) => s.plotData());
      const q = (d?.ghost?.[1] ?? []).filter((x) => x !== null) as number[];
      return q.length;
    })
    .toBeGreaterThan(5);
  const d = (await studio(page, (s) => s.plotData()))!;
  const dq = d.ghost[1].filter((x) => x !== null) as number[];
  expect(dq.every((x) => Number.isFinite(x) && x > 0)).toBe(true);
  // the trajectory chart holds them on its time axis
  expect(d.trajectory.length).toBe(7);
  expect((d.trajectory[5] as (number | null | undefined)[]).some((x) => typeof x === 'number')).toBe(true);

  // a drag is mirrored (the same spring on MuJoCo's body); hold pose is not: the status line says so
  await studio(page, (s) => s.send({ type: 'perturb', body: 0, point: [0, 0, 0], target: [0, 0, 2] }));
  await studio(page, (s) => s.send({ type: 'perturb', body: -1 }));
  await studio(page, (s) => s.send({ type: 'hold_pose', on: true }));
  await expect(page.getByTestId('ghost-status')).toContainText('not mirrored: hold pose');
  await studio(page, (s) => s.send({ type: 'hold_pose', on: false }));

  // a reset brings both back to the start: the ghost syncs and goes on
  const answers = await ghost(page, (g) => g.answers);
  await page.locator('body').press('r');
  await expect.poll(() => ghost(page, (g) => g.answers)).toBeGreaterThan(answers + 3);
  await expect(page.getByTestId('ghost-status')).toContainText('controls and drags mirrored');

  await page.screenshot({ path: `${SHOTS}/ghost-humanoid.png` });
  // the plots row with the ghost's series still fits 1280 px
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
  // the panel's checkbox turns it off
  await toggleCheckbox(page, 'view.MuJoCo ghost');
  await expect.poll(() => ghost(page, (g) => g.phase)).toBe('off');
  await expect(page.getByTestId('ghost-status')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('a model MuJoCo cannot take: the toggle says why; the layout fits at 1024 × 700 with the ghost on', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await page.setViewportSize({ width: 1024, height: 700 });
  await openStudio(page);
  // a heightfield is not in the MJCF export
  await pickCatalogScene(page, 'capsules_heightfield');
  await page.locator('body').press('g');
  await expect.poll(() => ghost(page, (g) => g.phase), { timeout: 60_000 }).toBe('unfit');
  expect(await ghost(page, (g) => g.why)).toMatch(/MuJoCo cannot take this model: .*shape type/);
  await expect(page.getByText(/MuJoCo ghost: MuJoCo cannot take this model/).first()).toBeVisible();
  await expect(page.getByTestId('ghost-status')).toContainText('MuJoCo ghost off');

  // the arm runs with it, and the plots and viewport still fit the window
  await pickCatalogScene(page, 'arm7');
  await page.locator('body').press('g');
  await expect.poll(() => ghost(page, (g) => g.phase), { timeout: 60_000 }).toBe('running');
  await expect.poll(() => ghost(page, (g) => g.answers), { timeout: 30_000 }).toBeGreaterThan(3);
  const fit = await page.evaluate(() => {
    const plots = document.querySelector('.plots')!.getBoundingClientRect();
    const canvas = document.querySelector('[data-testid="viewport"] canvas')!.getBoundingClientRect();
    return {
      scrollW: document.documentElement.scrollWidth,
      scrollH: document.documentElement.scrollHeight,
      plotsBottom: plots.bottom,
      canvasH: canvas.height,
    };
  });
  expect(fit.scrollW).toBeLessThanOrEqual(1024);
  expect(fit.plotsBottom).toBeLessThanOrEqual(700 + 1);
  expect(fit.canvasH).toBeGreaterThan(250);
  await page.screenshot({ path: `${SHOTS}/ghost-1024x700.png` });
  expect(errors).toEqual([]);
});
