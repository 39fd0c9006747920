/**
 * The step inspector (issue 55) through the built app: box_stack paused after some steps, `i` opens
 * the traced solve of the last step (iteration rows and the φ(α) chart), and "re-solve under…"
 * another preset overlays solve B on A in the chart (second series in the legend).
 */
import { expect, test } from '@playwright/test';
import { openStudio, studio, watchConsole } from './helpers';

const SHOTS = 'dist/e2e-results/screens';

test('box_stack: pause, open the inspector, see the iterations and φ(α), re-solve under approx32', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  expect(await studio(page, (s) => s.sceneName)).toBe('box_stack');
  // pause, back to the start, and three single steps: the boxes land on each other (40 contacts) and
  // every Newton solve of these steps takes steps (later, at rest, v_n already meets the tolerance)
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(true);
  await page.keyboard.press('Space');
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);
  await page.keyboard.press('r');
  await expect.poll(() => studio(page, (s) => s.step)).toBe(0);
  for (let k = 1; k <= 3; k++) {
    await page.keyboard.press('s');
    await expect.poll(() => studio(page, (s) => s.step)).toBe(k);
  }
  const step = 3;
  expect(await studio(page, (s) => s.playing)).toBe(false);

  await page.keyboard.press('i');
  const panel = page.getByTestId('step-inspector');
  await expect(panel).toBeVisible();
  await expect.poll(() => studio(page, (s) => s.inspector().a?.rows ?? 0)).toBeGreaterThanOrEqual(1);
  const a = (await studio(page, (s) => s.inspector())).a!;
  expect(a.which).toBe('last');
  expect(a.step).toBe(step - 1);
  expect(a.preset).toBe('drake');
  expect(a.contacts).toBeGreaterThan(0);
  expect(a.status).toBe('converged');
  await expect(page.getByTestId('inspector-table-a').getByTestId('inspector-row')).toHaveCount(a.rows);
  // the simulation stays paused on that step
  expect(await studio(page, (s) => [s.playing, s.step])).toEqual([false, step]);

  // φ(α) of the first iteration, with its accepted α marked (one run: a curve and its point)
  const chart = page.getByTestId('inspector-phi-chart');
  expect(a.rows).toBeGreaterThanOrEqual(2);
  expect(a.alpha[0]).toBeGreaterThan(0);
  await expect(chart.locator('canvas')).toHaveCount(1);
  await expect.poll(() => studio(page, (s) => s.inspector().chart.labels.length)).toBe(2);
  expect((await studio(page, (s) => s.inspector())).chart.points).toBeGreaterThan(2);
  await page.screenshot({ path: `${SHOTS}/inspector-a.png` });

  // re-solve under approx32 with monotone_decay: solve B overlays A
  await page.getByTestId('inspector-preset').selectOption('approx32');
  await page.getByTestId('inspector-line-search').selectOption('monotone_decay');
  await page.getByTestId('inspector-resolve').click();
  await expect.poll(() => studio(page, (s) => s.inspector().b?.rows ?? 0)).toBeGreaterThanOrEqual(1);
  const v = await studio(page, (s) => s.inspector());
  expect(v.b!.preset).toBe('approx32');
  expect(v.b!.line_search).toBe('monotone_decay');
  expect(v.b!.step).toBe(a.step);
  // the same step under other arithmetic and another line search: other iterates
  expect(v.b!.cost).not.toEqual(a.cost);
  await expect(page.getByTestId('inspector-table-b').getByTestId('inspector-row')).toHaveCount(v.b!.rows);
  await expect.poll(() => studio(page, (s) => s.inspector().chart.labels.length)).toBe(4);
  const labels = (await studio(page, (s) => s.inspector())).chart.labels;
  expect(labels.some((l) => l.startsWith('B: approx32 · monotone_decay'))).toBe(true);
  await expect(chart.locator('.u-legend')).toContainText('B: approx32');
  await page.screenshot({ path: `${SHOTS}/inspector-ab.png` });

  // a bad override is answered with the key, and A and B stay
  await page.getByTestId('inspector-overrides').fill('rho=2');
  await page.getByTestId('inspector-resolve').click();
  await expect.poll(() => studio(page, (s) => s.inspector().error ?? '')).toMatch(/rho/);
  expect((await studio(page, (s) => s.inspector())).b?.preset).toBe('approx32');

  // the option error is also in the studio's error banner
  const banner = page.getByTestId('error-banner');
  await expect(banner).toContainText('rho');
  await banner.getByRole('button', { name: 'dismiss' }).click();
  // the inspector button closes it, `i` opens it again on the same step
  await page.getByTestId('inspector-button').click();
  await expect(panel).toBeHidden();
  await page.keyboard.press('i');
  await expect(panel).toBeVisible();
  await expect.poll(() => studio(page, (s) => s.inspector().a?.step ?? -1)).toBe(step - 1);
  // one more step with it open: it solves the new last step
  await page.keyboard.press('s');
  await expect.poll(() => studio(page, (s) => s.step)).toBe(step + 1);
  await expect.poll(() => studio(page, (s) => s.inspector().a?.step ?? -1)).toBe(step);
  expect(await studio(page, (s) => s.playing)).toBe(false);
  await page.getByTestId('step-inspector').getByRole('button', { name: 'close' }).click();
  await expect(panel).toBeHidden();
  expect(errors.filter((e) => !/rho/.test(e))).toEqual([]);
});
