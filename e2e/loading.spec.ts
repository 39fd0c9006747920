/**
 * Loading in the studio as a user brings files: a folder with several models offers a chooser (a
 * MuJoCo Menagerie layout, SAP Warp's folder with its twelve scenes beside their assets), each chosen
 * scene loads, progress shows while it does and can be cancelled, every loader warning is listed
 * behind its count, and the strict toggle reloads under the other policy. A cancel in the worker (the
 * scene's files read, meshes, model) is tested in engine/worker/load_progress.test.ts, where it does
 * not race the load. `SAP_WARP_SCENES=all` (or a comma-separated list) picks the scenes loaded.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { shadowHandFolder } from './fixtures_loading';
import { openStudio, studio, toggleCheckbox, watchConsole, zipFolder } from './helpers';

const SHOTS = 'dist/e2e-results/screens';
const SAP_WARP = path.resolve('..', 'shared', 'reference', 'sap_warp');

/** writes a file map under a fresh temporary folder and returns the folder of its first segment */
function writeFolder(files: Map<string, Uint8Array>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'sap-drop-'));
  for (const [p, bytes] of files) {
    mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    writeFileSync(path.join(root, p), bytes);
  }
  return path.join(root, [...files.keys()][0].split('/')[0]);
}

/** picks a folder through the studio's folder input, as "open folder…" does */
async function openFolder(page: Page, dir: string): Promise<void> {
  await page.getByTestId('folder-input').setInputFiles(dir);
}

/** clicks the chooser's entry for `file` (a path ending) and waits for its scene */
async function choose(page: Page, file: string): Promise<void> {
  const loads = await studio(page, (s) => s.loads);
  await page.locator(`[data-testid="drop-choice"][data-path$="/${file}"]`).click();
  await expect(page.getByTestId('drop-chooser')).toBeHidden();
  await expect
    .poll(() => studio(page, (s) => s.loads), { timeout: 120_000, intervals: [250] })
    .toBeGreaterThan(loads);
}

test("Menagerie's shadow hand folder offers its two scenes; the chosen one loads with its bodies", async ({
  page,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await openFolder(page, writeFolder(shadowHandFolder()));
  const chooser = page.getByTestId('drop-chooser');
  await expect(chooser).toBeVisible();
  const choice = (await studio(page, (s) => s.dropChoice()))!;
  expect(choice.candidates.map((p) => path.basename(p))).toEqual(['scene_left.xml', 'scene_right.xml']);
  expect(choice.setAside.map((p) => path.basename(p)).sort()).toEqual([
    'keyframes.xml',
    'left_hand.xml',
    'right_hand.xml',
  ]);
  await expect(chooser.getByTestId('drop-choice').first()).toContainText('includes left_hand.xml');
  await page.screenshot({ path: `${SHOTS}/drop-chooser-shadow-hand.png` });
  // nothing was chosen silently: box_stack still runs
  expect(await studio(page, (s) => s.sceneName)).toBe('box_stack');

  await choose(page, 'scene_right.xml');
  const scene = (await studio(page, (s) => s.scene()))!;
  expect(scene.bodies).toContain('right_palm');
  expect(scene.bodies).toContain('object');
  expect(await studio(page, (s) => s.sceneName)).toBe('right_shadow_hand scene');
  // the drop is kept: the other scene loads from it without dropping again
  await page.getByTestId('drop-reopen').click();
  await choose(page, 'scene_left.xml');
  expect((await studio(page, (s) => s.scene()))!.bodies).toContain('left_palm');
  expect(errors).toEqual([]);
});

test('a zip with several models offers the same chooser; a model-less file is never opened silently', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  const dir = writeFolder(shadowHandFolder());
  await page.getByTestId('file-input').setInputFiles({
    name: 'shadow_hand.zip',
    mimeType: 'application/zip',
    buffer: zipFolder(dir),
  });
  await expect(page.getByTestId('drop-chooser')).toBeVisible();
  const choice = (await studio(page, (s) => s.dropChoice()))!;
  expect(choice.candidates.map((p) => path.basename(p))).toEqual(['scene_left.xml', 'scene_right.xml']);
  expect(choice.setAside.map((p) => path.basename(p))).toContain('keyframes.xml');
  expect(await studio(page, (s) => s.sceneName)).toBe('box_stack');
  await choose(page, 'scene_left.xml');
  expect((await studio(page, (s) => s.scene()))!.bodies).toContain('left_palm');
  expect(errors).toEqual([]);
});

test("SAP Warp's folder: the chooser lists its twelve scenes; URDF, USD, plain and MJCF scenes load from it with progress", async ({
  page,
}) => {
  test.setTimeout(600_000);
  const errors = watchConsole(page);
  await openStudio(page);
  const t0 = Date.now();
  await openFolder(page, SAP_WARP);
  await expect(page.getByTestId('drop-chooser')).toBeVisible({ timeout: 120_000 });
  console.log(`[loading] SAP Warp's folder (256 files, 89 MB) read and ranked in ${Date.now() - t0} ms`);
  const choice = (await studio(page, (s) => s.dropChoice()))!;
  const scenes = choice.candidates.filter((p) => p.startsWith('sap_warp/scenes/'));
  expect(scenes).toHaveLength(12);
  expect(choice.candidates.slice(0, 12)).toEqual(scenes);
  // the likely ones are shown (the scenes first, then MJCF scenes with a floor), the rest behind a toggle
  await expect(page.getByTestId('drop-choice').first()).toHaveAttribute('data-path', scenes[0]);
  expect(await page.getByTestId('drop-choice').count()).toBeLessThan(choice.candidates.length);
  await page.screenshot({ path: `${SHOTS}/drop-chooser-sap-warp.png` });

  const picks = (
    process.env.SAP_WARP_SCENES ?? 'franka_panda_urdf,basic_ant_usd,free_cube,anymal_d_usd,scene_flat.xml'
  )
    .split(',')
    .map((s) => (s === 'all' ? scenes.map((p) => path.basename(p, '.yaml')) : [s]))
    .flat();
  // the phases the progress panel showed, recorded in the page as they appear
  await page.evaluate(() => {
    const seen: string[] = ((window as unknown as { __phases: string[] }).__phases = []);
    new MutationObserver(() => {
      const el = document.querySelector('[data-testid="load-progress"]');
      const phase = el?.getAttribute('data-phase');
      if (phase && seen[seen.length - 1] !== phase) seen.push(phase);
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  const phases = () => page.evaluate(() => (window as unknown as { __phases: string[] }).__phases.splice(0));
  const shown = new Set<string>();
  for (const [i, name] of picks.entries()) {
    if (i > 0) await page.getByTestId('drop-reopen').click();
    const t = Date.now();
    const loads = await studio(page, (s) => s.loads);
    // a scene by name, or another model of the drop by its file name (the MJCF scene_flat.xml)
    const where = name.endsWith('.xml') ? `$="/${name}"` : `="sap_warp/scenes/${name}.yaml"`;
    await page.locator(`[data-testid="drop-choice"][data-path${where}]`).click();
    await expect
      .poll(() => studio(page, (s) => s.loads), { timeout: 240_000, intervals: [100] })
      .toBeGreaterThan(loads);
    const ms = Date.now() - t;
    const scene = (await studio(page, (s) => s.scene()))!;
    const seen = await phases();
    seen.forEach((p) => shown.add(p));
    console.log(
      `[loading] ${name}: ${scene.bodies.length} bodies, ${scene.warnings.length} warnings, ${ms} ms, progress shown: ${seen.join(' → ') || '(none: under 250 ms)'}`,
    );
    expect(scene.bodies.length, name).toBeGreaterThan(0);
    expect(await studio(page, (s) => s.errors()), name).toEqual([]);
    expect(errors, name).toEqual([]);
    // every loader warning is listed behind its count
    if (scene.warnings.length > 0) {
      const count = page.getByTestId('loader-warning-count');
      await expect(count).toHaveText(
        `${scene.warnings.length} loader warning${scene.warnings.length === 1 ? '' : 's'}`,
      );
      await count.click();
      await expect(page.locator('[data-testid="loader-warnings"] li')).toHaveCount(scene.warnings.length);
    }
    // it runs
    const at = await studio(page, (s) => s.step);
    await expect.poll(() => studio(page, (s) => s.step), { timeout: 60_000 }).toBeGreaterThan(at + 5);
  }
  // a robot's meshes take long enough for the panel to show its phases
  expect(shown.size).toBeGreaterThan(0);
  expect(errors).toEqual([]);
});

test('cancel while the dropped files are read: nothing loads and the running scene stays', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const errors = watchConsole(page);
  await openStudio(page);
  const progress = page.getByTestId('load-progress');
  // the test build holds the reads open (a fast machine reads the folder before cancel is pressed)
  await studio(page, (s) => s.holdReads(true));
  await openFolder(page, SAP_WARP);
  await expect(progress).toHaveAttribute('data-phase', 'read');
  await expect(page.getByTestId('load-phase')).toHaveText(/^reading the dropped files \d+ \/ 256$/);
  await page.screenshot({ path: `${SHOTS}/load-progress-read.png` });
  await page.getByTestId('load-cancel').click();
  await studio(page, (s) => s.holdReads(false));
  await expect(progress).toBeHidden();
  await expect(page.getByTestId('notice')).toContainText('cancelled; the current scene keeps running');
  await expect(page.getByTestId('drop-chooser')).toBeHidden();
  expect(await studio(page, (s) => s.dropChoice())).toBeNull();
  // the read stops: no chooser, no load; box_stack keeps running
  const loads = await studio(page, (s) => s.loads);
  const at = await studio(page, (s) => s.step);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(at + 20);
  expect(await studio(page, (s) => [s.sceneName, s.loads])).toEqual(['box_stack', loads]);
  // dropped again, it reads to the chooser
  await openFolder(page, SAP_WARP);
  await expect(page.getByTestId('drop-chooser')).toBeVisible({ timeout: 120_000 });
  expect(await studio(page, (s) => s.errors())).toEqual([]);
  expect(errors).toEqual([]);
});

test('the strict toggle reloads the scene under the other policy; a refused reload keeps it running', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  // one cube whose shape asks for restitution, which the model builder does not store
  const text = `schema_version: 1
name: bouncy
bodies:
  - id: cube
    transform: { p: [0, 0, 0.5] }
    shapes:
      - { type: box, hx: 0.1, hy: 0.1, hz: 0.1, cfg: { density: 1000, restitution: 0.5 } }
`;
  const loads = await studio(page, (s) => s.loads);
  await page
    .getByTestId('file-input')
    .setInputFiles({ name: 'bouncy.yaml', mimeType: 'text/yaml', buffer: Buffer.from(text) });
  await expect.poll(() => studio(page, (s) => s.loads)).toBe(loads + 1);
  const warnings = (await studio(page, (s) => s.scene()))!.warnings;
  expect(warnings.join('\n')).toMatch(/unsupported: .*restitution/);
  await expect(page.getByTestId('loader-warning-count')).toHaveText(`${warnings.length} loader warnings`);
  // strict on: the reload is refused at the key path, the lenient scene keeps running
  await toggleCheckbox(page, 'scene.strict loading');
  expect(await studio(page, (s) => s.strict)).toBe(true);
  await expect(page.getByTestId('error-banner')).toContainText('bodies[0].shapes[0].cfg.restitution');
  expect(await studio(page, (s) => [s.sceneName, s.loads])).toEqual(['bouncy', loads + 1]);
  // strict off: it reloads with the warning
  await toggleCheckbox(page, 'scene.strict loading');
  await expect.poll(() => studio(page, (s) => s.loads)).toBe(loads + 2);
  expect(await studio(page, (s) => s.strict)).toBe(false);
  expect(errors.filter((e) => !/restitution/.test(e))).toEqual([]);
});

test('a badge says when the simulation runs below real time and names the costliest stage', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const errors = watchConsole(page);
  await openStudio(page);
  await expect(page.getByTestId('realtime-badge')).toBeHidden();
  // a thousand spheres in a pile: far more work per step than the wall clock allows here
  const loads = await studio(page, (s) => s.loads);
  await page.locator('[id="scene.catalog"]').selectOption({ label: 'pile_1000' });
  await expect
    .poll(() => studio(page, (s) => [s.loads, s.sceneName]), { timeout: 120_000 })
    .toEqual([loads + 1, 'pile_1000']);
  const badge = page.getByTestId('realtime-badge');
  await expect(badge).toBeVisible({ timeout: 60_000 });
  await expect(badge).toHaveText(
    /^⏱ [\d.]+× real time \(asked 1×\) · (collision|free motion|constraints|solve|integrate) [\d.]+ (ms|µs) of [\d.]+ (ms|µs) a step$/,
  );
  const stats = (await studio(page, (s) => s.stats()))!;
  expect(stats).not.toBeNull();
  // paused, it goes (Space, away from the catalog menu that has the focus)
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('Space');
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);
  await expect(badge).toBeHidden();
  expect(errors).toEqual([]);
});
