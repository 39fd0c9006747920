/**
 * The keyboard and the camera as a person uses them: Space pauses even after a panel control was
 * clicked, `?` lists the shortcuts, `h` hides the panels, camera presets and *frame all* look at
 * where the bodies are now, and a link restores a camera the user moved.
 */
import { expect, test } from '@playwright/test';
import { openStudio, studio, toggleCheckbox, watchConsole } from './helpers';

const SHOTS = 'dist/e2e-results/screens';

test('Space pauses after a panel control was clicked; ? lists the shortcuts; h hides the panels', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(true);
  // a checkbox in the view panel keeps the focus after the click
  await toggleCheckbox(page, 'view.shadows');
  await page.keyboard.press('Space');
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);
  // Space paused the simulation and did not toggle the clicked control again
  await expect(page.locator('input[id="view.shadows"]')).not.toBeChecked();
  await page.keyboard.press('Space');
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(true);
  // a button too (the timeline's reset): Space pauses instead of resetting again
  await page.getByRole('button', { name: 'reset', exact: true }).click();
  await page.keyboard.press('Space');
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);

  await page.keyboard.press('?');
  const help = page.getByTestId('help');
  await expect(help).toBeVisible();
  await expect(help).toContainText('play / pause');
  await expect(help).toContainText('camera: top');
  await page.screenshot({ path: `${SHOTS}/shortcuts-help.png` });
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  await page.getByTestId('help-button').click();
  await expect(help).toBeVisible();
  await page.keyboard.press('?');
  await expect(help).toBeHidden();

  await expect(page.locator('.leva-wrap')).toBeVisible();
  await page.keyboard.press('h');
  await expect(page.locator('.leva-wrap')).toBeHidden();
  await expect(page.getByTestId('scene-info')).toBeHidden();
  await page.screenshot({ path: `${SHOTS}/shortcuts-panels-hidden.png` });
  await page.keyboard.press('h');
  await expect(page.locator('.leva-wrap')).toBeVisible();
  expect(errors).toEqual([]);
});

test('camera presets and frame all look at the bodies where they are now; a link keeps a moved camera', async ({
  page,
  browser,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await page.getByRole('button', { name: 'pause', exact: true }).first().click();
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);
  // top view: the camera straight above its target
  await page.keyboard.press('3');
  const top = (await studio(page, (s) => s.camera()))!;
  const up = top.position.map((p, i) => p - top.target[i]);
  expect(Math.hypot(up[0], up[1]) / Math.abs(up[2])).toBeLessThan(1e-3);
  expect(up[2]).toBeGreaterThan(0);
  // front view: looking along +y
  await page.keyboard.press('1');
  const front = (await studio(page, (s) => s.camera()))!;
  expect(front.position[1]).toBeLessThan(front.target[1]);
  // frame all targets the middle of the bodies as they are now
  await page.keyboard.press('a');
  const framed = (await studio(page, (s) => s.camera()))!;
  const poses = await studio(page, (s) => s.poses());
  const n = poses.length / 7;
  let zmax = -Infinity;
  for (let b = 0; b < n; b++) zmax = Math.max(zmax, poses[7 * b + 2]);
  expect(framed.target[2]).toBeLessThan(zmax);
  expect(framed.target[2]).toBeGreaterThan(0);

  // the user zooms and orbits: the link carries that camera, not the load-time framing
  const box = (await page.getByTestId('viewport').boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.85);
  await page.mouse.wheel(0, -600);
  await page.keyboard.press('2');
  await page.mouse.wheel(0, 400);
  const moved = (await studio(page, (s) => s.camera()))!;
  await page.getByRole('button', { name: 'copy link' }).click();
  await expect(page).toHaveURL(/#link=/);
  const other = await browser.newPage();
  const otherErrors = watchConsole(other);
  await openStudio(other, new URL(page.url()).hash);
  await expect.poll(() => studio(other, (s) => s.loads)).toBeGreaterThan(0);
  await expect
    .poll(async () => {
      // null while the viewport remounts for the link's scene
      const c = await studio(other, (s) => s.camera());
      return c ? Math.max(...c.position.map((p, i) => Math.abs(p - moved.position[i]))) : Infinity;
    })
    .toBeLessThan(1e-3);
  const c = (await studio(other, (s) => s.camera()))!;
  for (let i = 0; i < 3; i++) expect(Math.abs(c.target[i] - moved.target[i])).toBeLessThan(1e-3);
  await other.close();
  expect(otherErrors).toEqual([]);
  expect(errors).toEqual([]);
});

test('a link taken after a mid-run option change carries the exact state', async ({ page, browser }) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(20);
  // the steps so far ran under the default line search; the rest under another
  await page.locator('[id="solver.line_search_variant"]').selectOption({ label: 'armijo_decay' });
  await expect
    .poll(() => studio(page, (s) => s.options()?.effective.line_search_variant))
    .toBe('armijo_decay');
  await page.keyboard.press('Space');
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);
  const step = await studio(page, (s) => s.step);
  const poses = await studio(page, (s) => s.poses());
  await page.getByRole('button', { name: 'copy link' }).click();
  await expect(page.getByTestId('notice')).toContainText('with the current state');
  const other = await browser.newPage();
  const otherErrors = watchConsole(other);
  await openStudio(other, new URL(page.url()).hash);
  await expect.poll(() => studio(other, (s) => [s.sceneName, s.step])).toEqual(['box_stack', step]);
  await expect.poll(() => studio(other, (s) => s.poses())).toEqual(poses);
  await other.close();
  expect(otherErrors).toEqual([]);
  expect(errors).toEqual([]);
});
