/**
 * The studio as a person uses it: open it, watch the default scene, pull a body, switch scenes,
 * flip every solver knob in the panel, read the ablation plots, turn on the contact overlay and
 * inspect a contact, drop a broken file, share and open links. Assertions read the state the app
 * exposes for tests (window.__sapStudio), never timings.
 */
import { expect, test } from '@playwright/test';
import { CF, CONTACT_STRIDE } from '../engine/worker/protocol';
import {
  clickArm7Link2,
  openStudio,
  pickCatalogScene,
  pngVariance,
  type StudioApi,
  project,
  stepAndSeeArm7Drive,
  studio,
  toggleCheckbox,
  waitReady,
  watchConsole,
} from './helpers';

const SHOTS = 'dist/e2e-results/screens';

test('the built app loads, renders, simulates and a body can be dragged', async ({ page }) => {
  const errors = watchConsole(page);
  await openStudio(page);
  expect(await studio(page, (s) => s.sceneName)).toBe('box_stack');
  expect(await studio(page, (s) => s.crossOriginIsolated)).toBe(true);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(20);
  expect(await studio(page, (s) => s.transport)).toBe('ring');

  // the stats panel's stage rows: each stage's mean time per step and its share
  await expect.poll(() => studio(page, (s) => s.stats()?.stage_ms?.solve ?? 0)).toBeGreaterThan(0);
  await page.getByText('stage times', { exact: true }).click();
  // five rows (collision, free motion, constraints, solve, integrate): "14.1 µs (17%)"
  await expect(page.getByText(/^[\d.]+( µs| ms)? \(\d+%\)$/)).toHaveCount(5);
  await expect(page.getByText('free motion', { exact: true })).toBeVisible();

  // the canvas shows something (not a blank clear colour)
  const canvas = page.locator('canvas').first();
  const shot = await canvas.screenshot({ path: `${SHOTS}/01-box-stack.png` });
  expect(await pngVariance(page, shot)).toBeGreaterThan(50);

  // pull the top box sideways with the mouse: it moves
  const top = 9;
  const before = (await studio(page, (s) => s.bodyPosition(9)))!;
  const at = await project(page, before);
  await page.mouse.move(at[0], at[1]);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(at[0] + 12 * i, at[1] - 2 * i, { steps: 2 });
  await expect.poll(() => studio(page, (s) => s.selection())).toBe(top);
  await expect
    .poll(async () => {
      const p = (await studio(page, (s) => s.bodyPosition(9)))!;
      return Math.hypot(p[0] - before[0], p[1] - before[1]);
    })
    .toBeGreaterThan(0.05);
  await page.mouse.up();
  await canvas.screenshot({ path: `${SHOTS}/02-dragged.png` });

  // a lively scene: the double pendulum swings (its poses move away from the first ones read)
  await pickCatalogScene(page, 'double_pendulum');
  const p0 = await studio(page, (s) => s.poses());
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(50);
  await expect
    .poll(async () => {
      const p1 = await studio(page, (s) => s.poses());
      return p1.length === p0.length ? Math.max(...p1.map((v, i) => Math.abs(v - p0[i]))) : -1;
    })
    .toBeGreaterThan(0.01);
  expect(errors).toEqual([]);
});

test('every solver knob applies live through the panel; the Δ plots draw on the box stack', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  const loads = await studio(page, (s) => s.loads);
  const effective = (key: string) => studio(page, (s) => s.options()?.effective ?? {}).then((e) => e[key]);

  const select = async (key: string, value: string) => {
    await page.locator(`[id="solver.${key}"]`).selectOption({ label: value });
    await expect.poll(() => effective(key), { message: key }).toBe(value);
  };
  // preset: expands into the mode and precision knobs
  await select('contact_preset_variant', 'approx64');
  expect(await effective('contact_weight_mode')).toBe('body_inertia');
  expect(await effective('free_motion_solve_precision')).toBe('fp64');
  await select('contact_preset_variant', 'approx32');
  expect(await effective('free_motion_solve_precision')).toBe('fp32');
  expect(await effective('use_f64_boundary_pose')).toBe(false);
  // line search (its defaults follow)
  await select('line_search_variant', 'armijo_decay');
  await select('line_search_variant', 'monotone_decay');
  expect(await effective('cost_rel_tol')).toBe(5e-3);
  // every mode and precision knob, one factor at a time
  await select('contact_weight_mode', 'diag_delassus');
  await select('contact_point_mode', 'contact_midpoint');
  await select('position_integration', 'sap_euler');
  await select('free_motion_solve_precision', 'fp64');
  await select('contact_solve_precision', 'fp32');
  await select('contact_linear_solve_precision', 'fp64');
  await select('sap_contact_weight_precision', 'fp64');
  await toggleCheckbox(page, 'solver.use_f64_boundary_pose');
  await expect.poll(() => effective('use_f64_boundary_pose')).toBe(true);
  expect(await effective('solve_islands')).toBe(false);
  await toggleCheckbox(page, 'solver.solve_islands');
  await expect.poll(() => effective('solve_islands')).toBe(true);
  // tolerances and caps
  const text = async (key: string, value: string, expected: number) => {
    const input = page.locator(`[id="solver.${key}"]`);
    await input.fill(value);
    await input.press('Enter');
    await expect.poll(() => effective(key), { message: key }).toBe(expected);
  };
  await text('optimality_rel_tol', '1e-8', 1e-8);
  await text('max_iterations', '60', 60);
  await text('line_search_max_iterations', '30', 30);
  // the one-factor overrides are listed; nothing was reloaded
  const explicit = await studio(page, (s) => s.options()?.explicit ?? {});
  expect(explicit).toMatchObject({ contact_weight_mode: 'diag_delassus', contact_solve_precision: 'fp32' });
  expect(await studio(page, (s) => s.loads)).toBe(loads);
  // another preset keeps the one-factor overrides (explicit keys override the preset) and says so
  await select('contact_preset_variant', 'drake');
  expect(await effective('contact_weight_mode')).toBe('diag_delassus');
  expect(await effective('contact_solve_precision')).toBe('fp32');
  await expect(page.getByTestId('notice')).toContainText('contact_solve_precision=fp32');
  // back to the scene's options: the file's own (drake, exact_root) come back, the overrides go
  await page.getByRole('button', { name: 'back to scene options' }).click();
  await expect.poll(() => effective('contact_solve_precision')).toBe('fp64');
  expect(await studio(page, (s) => s.options()?.explicit ?? {})).toEqual({
    contact_preset_variant: 'drake',
    line_search_variant: 'exact_root',
  });

  // the Δ plots draw finite positive values
  await expect
    .poll(async () => {
      const d = await studio(page, (s) => s.plotData());
      if (!d) return 0;
      const dp = d.delta_precision[1].filter((v) => v !== null) as number[];
      const dm = d.delta_model[1].filter((v) => v !== null) as number[];
      if (!dp.every((v) => Number.isFinite(v) && v > 0) || !dm.every((v) => Number.isFinite(v) && v > 0))
        return -1;
      return Math.min(dp.length, dm.length);
    })
    .toBeGreaterThan(5);
  // the solver chart: Newton and line-search iterations, contacts and the step's wall time
  const solver = (await studio(page, (s) => s.plotData()))!.solver;
  expect(solver).toHaveLength(5);
  const [newton, lineSearch, , stepMs] = solver
    .slice(1)
    .map((col) => col.filter((v) => v !== null) as number[]);
  expect(newton.length).toBeGreaterThan(5);
  expect(lineSearch.length).toBe(newton.length);
  expect(lineSearch.every((v) => Number.isFinite(v) && v >= 0) && lineSearch.some((v) => v > 0)).toBe(true);
  expect(stepMs.every((v) => Number.isFinite(v) && v > 0)).toBe(true);
  // the energy chart: kinetic, potential and their sum, finite at every sample
  const energy = (await studio(page, (s) => s.plotData()))!.energy;
  expect(energy).toHaveLength(4);
  const [kinetic, potential, total] = energy.slice(1).map((col) => col.filter((v) => v !== null) as number[]);
  expect(kinetic.length).toBeGreaterThan(5);
  expect(kinetic.every((v) => Number.isFinite(v) && v >= 0)).toBe(true);
  total.forEach((e, i) => expect(e).toBeCloseTo(kinetic[i] + potential[i], 9));
  await page.screenshot({ path: `${SHOTS}/03-solver-and-plots.png` });
  // pause the plots, export what was recorded
  await page.getByTestId('plots-pause').click();
  await expect(page.getByTestId('plots-pause')).toHaveText('resume plots');
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('plots-csv').click()]);
  expect(csv.suggestedFilename()).toBe('sap-ablation.csv');
  const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('plots-png').click()]);
  expect(png.suggestedFilename()).toBe('sap-ablation.png');
  const lines = (await (await csv.createReadStream()).toArray()).join('').trim().split('\n');
  expect(lines[0]).toMatch(
    /^time_s,delta_precision,delta_model,.*,iterations,contacts,line_search_iterations,step_ms,kinetic_energy_J,potential_energy_J,driven$/,
  );
  expect(lines.length).toBeGreaterThan(5);

  // trajectory-mode ablation: approx32, approx64 and drake shadows from now, beside the live scene
  await page.getByTestId('plots-pause').click(); // resume drawing
  await page.getByTestId('trajectory-toggle').click();
  await expect(page.getByTestId('trajectory-toggle')).toHaveText('stop trajectory ablation');
  await expect
    .poll(async () => {
      const t = await studio(page, (s) => s.trajectory());
      const rising = t.time.every((x, i) => x > t.start && (i === 0 || x > t.time[i - 1]));
      const vals = [...t.q_precision, ...t.q_model, ...t.v_precision, ...t.v_model].filter(
        (v) => v !== null,
      ) as number[];
      return t.on && rising && vals.every((v) => Number.isFinite(v) && v > 0) ? t.time.length : -1;
    })
    .toBeGreaterThan(3);
  await expect
    .poll(async () => (await studio(page, (s) => s.plotData()))?.trajectory[0].length ?? 0)
    .toBeGreaterThan(3);
  await page.screenshot({ path: `${SHOTS}/03b-trajectory-ablation.png` });
  await page.getByTestId('trajectory-toggle').click();
  await expect(page.getByTestId('trajectory-toggle')).toHaveText('start trajectory ablation');
  expect(await studio(page, (s) => s.trajectory().on)).toBe(false);
  expect(errors).toEqual([]);
});

test('contact overlay markers sit at the engine contact points; a contact can be inspected', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await pickCatalogScene(page, 'box_at_rest');
  await toggleCheckbox(page, 'view.contact overlay');
  await expect.poll(() => studio(page, (s) => s.contacts()?.count ?? 0)).toBeGreaterThanOrEqual(4);
  // compare what is drawn with what the engine reported, within 1 mm
  const check = await page.evaluate(
    ({ px, stride }) => {
      const s = (window as unknown as { __sapStudio: StudioApi }).__sapStudio;
      const c = s.contacts()!;
      const m = s.markers()!;
      let worst = 0;
      for (let k = 0; k < c.count; k++) {
        const p = c.data.slice(k * stride + px, k * stride + px + 3); // the engine's p_C
        for (const list of [m.pC, m.x0, m.x1]) {
          const q = list[k];
          worst = Math.max(worst, Math.hypot(q[0] - p[0], q[1] - p[1], q[2] - p[2]));
        }
      }
      return { n: c.count, drawn: [m.pC.length, m.x0.length, m.x1.length], worst };
    },
    { px: CF.px, stride: CONTACT_STRIDE },
  );
  expect(check.drawn).toEqual([check.n, check.n, check.n]);
  expect(check.worst).toBeLessThan(1e-3);

  // click the first contact marker: the inspector shows its numbers
  await page.locator('[id="simulation.run"]').count(); // panel present
  await page.getByRole('button', { name: 'pause', exact: true }).first().click();
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);
  const marker = await studio(page, (s) => s.markers()!.pC[0]);
  const at = await project(page, marker);
  await page.mouse.click(at[0], at[1]);
  const inspector = page.getByTestId('contact-inspector');
  await expect(inspector).toBeVisible();
  await expect(inspector).toContainText('φ₀');
  await expect(inspector).toContainText('p_C (world)');
  await page.screenshot({ path: `${SHOTS}/04-contact-overlay.png` });
  // playing again, the inspector follows the same contact: its time moves on, the pair stays
  const shown = async () => (await inspector.textContent()) ?? '';
  const timeShown = async () => Number(/at t = ([\d.]+) s/.exec(await shown())?.[1] ?? NaN);
  const t0 = await timeShown();
  const pair = /bodies(.*?)shapes/.exec(await shown())?.[1];
  await page.getByTestId('play-toggle').click();
  await expect.poll(timeShown).toBeGreaterThan(t0 + 0.05);
  expect(/bodies(.*?)shapes/.exec(await shown())?.[1]).toBe(pair);
  await expect(inspector).not.toContainText('no longer touching');
  expect(errors).toEqual([]);
});

test('colour by island: objects resting apart in the bin are separate constraint islands', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await pickCatalogScene(page, 'clutter_bin');
  await toggleCheckbox(page, 'view.colour by island');
  // the bin is static (no island); the falling objects land apart: several islands
  await expect
    .poll(async () => {
      const k = await studio(page, (s) => s.islands());
      return k ? new Set(k.filter((x) => x >= 0)).size : 0;
    })
    .toBeGreaterThan(1);
  await page.screenshot({ path: `${SHOTS}/04b-islands.png` });
  await toggleCheckbox(page, 'view.colour by island');
  await expect.poll(() => studio(page, (s) => s.islands())).toBeNull();
  expect(errors).toEqual([]);
});

test('clicking a link of the arm opens the body inspector: its hinge and the drive holding it up', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await pickCatalogScene(page, 'arm7');
  await page.getByRole('button', { name: 'pause', exact: true }).first().click();
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);
  await clickArm7Link2(page);
  await expect.poll(() => studio(page, (s) => s.selection())).toBe(2);
  const inspector = page.getByTestId('body-inspector');
  await expect(inspector).toBeVisible();
  await expect(inspector).toContainText('link2');
  await expect(inspector).toContainText('(revolute)');
  // one step on: the frames carry the joints, the drive of link2's hinge (DOF 1) holds ~14 N·m
  await stepAndSeeArm7Drive(page);
  await expect(inspector).toContainText('friction effort');
  await page.screenshot({ path: `${SHOTS}/04c-body-inspector.png` });
  // closing deselects, and the frames stop carrying the joints
  await inspector.getByRole('button', { name: 'close' }).click();
  await expect(inspector).toBeHidden();
  await page.getByRole('button', { name: 'step', exact: true }).first().click();
  await expect.poll(() => studio(page, (s) => s.joints())).toBeNull();
  expect(errors).toEqual([]);
});

test('a broken scene file shows where and why, and the current scene keeps running', async ({ page }) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(10);
  const broken =
    'schema_version: 1\nname: broken\nbodies:\n  - id: a\n    shapes:\n      - type: box\n        hx: [1, 2]\n';
  await page.getByTestId('file-input').setInputFiles({
    name: 'broken.yaml',
    mimeType: 'application/yaml',
    buffer: Buffer.from(broken),
  });
  const banner = page.getByTestId('error-banner');
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('broken.yaml');
  await expect(banner).toContainText(/line \d+/);
  const stepAtError = await studio(page, (s) => s.step);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(stepAtError + 10);
  expect(await studio(page, (s) => s.sceneName)).toBe('box_stack');

  // a dropped file of a format without an importer, and a dropped non-model file
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['not a model'], 'notes.txt', { type: 'text/plain' }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await expect(banner).toContainText('notes.txt');
  expect(await studio(page, (s) => s.sceneName)).toBe('box_stack');
  await page.screenshot({ path: `${SHOTS}/05-broken-file.png` });
  expect(errors).toEqual([]);
});

test('links reproduce the scene, options, camera and state; a corrupted link shows an error', async ({
  page,
  browser,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await page.locator('[id="solver.line_search_variant"]').selectOption({ label: 'armijo_decay' });
  await expect
    .poll(() => studio(page, (s) => s.options()?.effective.line_search_variant))
    .toBe('armijo_decay');
  // restart from the initial state under these options, run, pause
  await page.getByRole('button', { name: 'reset', exact: true }).click();
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(40);
  await page.getByRole('button', { name: 'pause', exact: true }).first().click();
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);
  const step = await studio(page, (s) => s.step);
  const poses = await studio(page, (s) => s.poses());
  const camera = (await studio(page, (s) => s.camera()))!;
  await page.getByRole('button', { name: 'copy link' }).click();
  await expect(page).toHaveURL(/#link=/);
  const url = page.url();

  const other = await browser.newPage();
  const otherErrors = watchConsole(other);
  await other.goto(url);
  await expect.poll(() => studio(other, (s) => [s.sceneName, s.step])).toEqual(['box_stack', step]);
  expect(await studio(other, (s) => s.options()?.effective.line_search_variant)).toBe('armijo_decay');
  expect(await studio(other, (s) => s.playing)).toBe(false);
  // the CPU backend is deterministic: the same steps give the same state
  expect(await studio(other, (s) => s.poses())).toEqual(poses);
  const otherCamera = (await studio(other, (s) => s.camera()))!;
  for (let i = 0; i < 3; i++) {
    expect(otherCamera.position[i]).toBeCloseTo(camera.position[i], 3);
    expect(otherCamera.target[i]).toBeCloseTo(camera.target[i], 3);
  }
  await other.close();
  expect(otherErrors).toEqual([]);

  // after a drag the link carries the exact state (replaying the steps would not reproduce it)
  await page.getByTestId('play-toggle').click();
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(true);
  const top = (await studio(page, (s) => s.bodyPosition(9)))!;
  const at = await project(page, top);
  await page.mouse.move(at[0], at[1]);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(at[0] + 12 * i, at[1] - 2 * i, { steps: 2 });
  await expect
    .poll(async () => {
      const p = (await studio(page, (s) => s.bodyPosition(9)))!;
      return Math.hypot(p[0] - top[0], p[1] - top[1]);
    })
    .toBeGreaterThan(0.05);
  await page.mouse.up();
  await page.getByTestId('play-toggle').click();
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);
  const draggedStep = await studio(page, (s) => s.step);
  const draggedPoses = await studio(page, (s) => s.poses());
  await page.getByRole('button', { name: 'copy link' }).click();
  await expect(page.getByTestId('notice')).toContainText('with the current state');
  const draggedUrl = page.url();
  expect(draggedUrl).not.toBe(url);
  const third = await browser.newPage();
  const thirdErrors = watchConsole(third);
  await third.goto(draggedUrl);
  await expect.poll(() => studio(third, (s) => [s.sceneName, s.step])).toEqual(['box_stack', draggedStep]);
  await expect.poll(() => studio(third, (s) => s.poses())).toEqual(draggedPoses);
  await third.close();
  expect(thirdErrors).toEqual([]);

  // a corrupted link: a clear error, and the default scene still loads
  const bad = await browser.newPage();
  const badErrors = watchConsole(bad);
  await bad.goto('/#link=eJzLSM3JyVcozy_KSQEAGgQEXQ!!garbage');
  await waitReady(bad);
  await expect(bad.getByTestId('error-banner')).toContainText('link');
  expect(await studio(bad, (s) => s.sceneName)).toBe('box_stack');
  // a well-formed payload with an invalid field names the key path
  const { encodeLinkForTest } = await import('./link_fixture');
  await bad.goto(
    `/#link=${encodeLinkForTest({ v: 1, scene: { kind: 'catalog', id: 'box_stack' }, step: -5 })}`,
  );
  await waitReady(bad);
  await expect(bad.getByTestId('error-banner')).toContainText('step');
  await bad.close();
  expect(badErrors).toEqual([]);
  expect(errors).toEqual([]);
});
