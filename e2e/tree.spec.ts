/**
 * The scene tree (`t`): the file's bodies nested with their joints and shapes; a click selects the
 * body and frames it; branches fold; the panel scrolls and stays clear of the panels at 1024×700 and
 * 1920×1080. The help overlay lists the new shortcuts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { openStudio, pickCatalogScene, studio, watchConsole, type StudioApi } from './helpers';

const SHOTS = 'test-results';
const ASSETS = path.resolve('..', 'shared', 'assets');

function overlaps(a: { x: number; y: number; width: number; height: number }, b: typeof a): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function box(l: Locator) {
  const b = await l.boundingBox();
  expect(b).not.toBeNull();
  return b!;
}

async function checkLayout(page: Page, name: string) {
  const tree = await box(page.getByTestId('scene-tree'));
  const stage = await box(page.locator('.stage'));
  // inside the stage, clear of the leva panel, the info box and the bottom-left buttons
  expect(tree.y + tree.height).toBeLessThanOrEqual(stage.y + stage.height);
  expect(overlaps(tree, await box(page.locator('.leva-wrap')))).toBe(false);
  expect(overlaps(tree, await box(page.getByTestId('scene-info')))).toBe(false);
  expect(overlaps(tree, await box(page.getByTestId('help-button')))).toBe(false);
  // the viewport keeps most of its width
  expect(tree.width).toBeLessThan(0.35 * stage.width);
  await page.screenshot({ path: `${SHOTS}/${name}` });
}

test('t opens the scene tree; a click selects and frames a body; branches fold', async ({ page }) => {
  const errors = watchConsole(page);
  await page.setViewportSize({ width: 1024, height: 700 });
  await openStudio(page);
  await pickCatalogScene(page, 'arm7');
  await expect(page).toHaveTitle('arm7 · SAP Studio');
  await page.getByTestId('play-toggle').click();
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);

  await page.keyboard.press('?');
  await expect(page.getByTestId('help')).toContainText('scene tree');
  await expect(page.getByTestId('help')).toContainText('record the viewport');
  await page.keyboard.press('Escape');

  await page.keyboard.press('t');
  const tree = page.getByTestId('scene-tree');
  await expect(tree).toBeVisible();
  const bodies = (await studio(page, (s) => s.scene()))!.bodies;
  // every body of the file, by its name, with its joint
  for (let b = 0; b < bodies.length; b++)
    await expect(page.getByTestId(`tree-body-${b}`)).toHaveText(bodies[b]);
  await checkLayout(page, 'tree-1024x700.png');

  // the deepest body: selected (the inspector opens) and framed
  const last = bodies.length - 1;
  const before = await studio(page, (s) => s.camera());
  await page.getByTestId(`tree-body-${last}`).click();
  await expect.poll(() => studio(page, (s) => s.selection())).toBe(last);
  await expect(page.getByTestId(`tree-body-${last}`)).toHaveAttribute('data-selected', 'true');
  const at = (await page.evaluate(
    (b) => (window as unknown as { __sapStudio: StudioApi }).__sapStudio.bodyPosition(b),
    last,
  ))!;
  await expect
    .poll(async () => {
      const c = (await studio(page, (s) => s.camera()))!;
      return Math.hypot(c.target[0] - at[0], c.target[1] - at[1], c.target[2] - at[2]);
    })
    .toBeLessThan(1e-6);
  expect((await studio(page, (s) => s.camera()))!.position).not.toEqual(before!.position);
  // the body inspector opened for it, and the tree stays clear of it
  const inspector = page.getByTestId('body-inspector');
  await expect(inspector).toBeVisible();
  expect(overlaps(await box(tree), await box(inspector))).toBe(false);
  // the panel got shorter above the inspector; the selected body is still in its view
  await expect
    .poll(async () => {
      const row = await box(page.getByTestId(`tree-body-${last}`));
      const t = await box(tree);
      return row.y >= t.y && row.y + row.height <= t.y + t.height + 1;
    })
    .toBe(true);
  await page.screenshot({ path: `${SHOTS}/tree-selected-1024x700.png` });

  // folding the first body hides the rest of the chain; unfolding shows it again
  const first = bodies[0];
  await page.getByRole('button', { name: `fold ${first}`, exact: true }).click();
  await expect(page.getByTestId(`tree-body-${last}`)).toBeHidden();
  await page.getByRole('button', { name: `unfold ${first}`, exact: true }).click();
  await expect(page.getByTestId(`tree-body-${last}`)).toBeVisible();

  // the panel scrolls when the tree is taller than it
  const scroll = await tree.evaluate((el) => ({
    h: el.scrollHeight,
    c: el.clientHeight,
    o: getComputedStyle(el).overflowY,
  }));
  expect(scroll.o).toBe('auto');

  await page.setViewportSize({ width: 1920, height: 1080 });
  await checkLayout(page, 'tree-1920x1080.png');
  await page.keyboard.press('t');
  await expect(tree).toBeHidden();
  expect(errors).toEqual([]);
});

test('names come from the file: a USD whose default prim is "root" is named after its file', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await page.setViewportSize({ width: 1024, height: 700 });
  await openStudio(page);
  const loads = await studio(page, (s) => s.loads);
  await page.getByTestId('file-input').setInputFiles({
    name: 'crazyflie.usd',
    mimeType: 'application/octet-stream',
    buffer: readFileSync(path.join(ASSETS, 'newton/crazyflie/crazyflie.usd')),
  });
  await expect.poll(() => studio(page, (s) => s.loads)).toBeGreaterThan(loads);
  await expect.poll(() => studio(page, (s) => s.sceneName)).toBe('crazyflie');
  await expect(page).toHaveTitle('crazyflie · SAP Studio');
  await expect(page.getByTestId('scene-info')).toContainText('crazyflie');
  await page.keyboard.press('t');
  // no bodies: its meshes are static geometry of the world, under their prim names
  const tree = page.getByTestId('scene-tree');
  await expect(tree).toContainText('0 bodies');
  await expect(tree).toContainText('battery_holder');
  await expect(tree).not.toContainText('mesh_');
  await page.screenshot({ path: `${SHOTS}/tree-names-1024x700.png` });
  expect(errors).toEqual([]);
});

test('Shift+F goes fullscreen and back', async ({ page }) => {
  await openStudio(page);
  await page.keyboard.press('Shift+F');
  await expect.poll(() => page.evaluate(() => document.fullscreenElement !== null)).toBe(true);
  await page.keyboard.press('Shift+F');
  await expect.poll(() => page.evaluate(() => document.fullscreenElement !== null)).toBe(false);
});
