/**
 * Commanding the robot through the real app: arm7's target sliders move its joints, the drive-less
 * Franka URDF holds its pose, and a dropped scene's control sequence plays and can be taken over.
 */
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openStudio, pickCatalogScene, studio, zipFolder } from './helpers';

const SHOTS = 'dist/e2e-results/screens';
const ASSETS = path.resolve('..', 'shared', 'assets');

/** sets a range input's value as a user drag would end (input + change events) */
async function setSlider(page: Page, testId: string, value: number): Promise<void> {
  await page.getByTestId(testId).evaluate((el, v) => {
    const input = el as HTMLInputElement;
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
    setter.call(input, String(v));
    input.dispatchEvent(new Event('input', { bubbles: true }));
    input.dispatchEvent(new Event('change', { bubbles: true }));
  }, value);
}

/** the live coordinate of the joint panel's row for `dof` */
async function coordOf(page: Page, dof: number): Promise<number> {
  const coord = Number(await page.locator(`tr[data-dof="${dof}"]`).getAttribute('data-coord'));
  const j = await studio(page, (s) => s.joints());
  return j ? j.q[coord] : NaN;
}

test('arm7: the joint panel’s target sliders move the joints', async ({ page }) => {
  await openStudio(page);
  await pickCatalogScene(page, 'arm7');
  const panel = page.getByTestId('joint-panel');
  await expect(panel).toContainText('joints (7)');
  await page.getByTestId('joint-panel-toggle').click();
  await expect(panel.locator('tr[data-mode="target"]')).toHaveCount(7);
  await expect(page.getByTestId('hold-pose')).toHaveCount(0); // arm7 has its own drives
  const dof = Number(await panel.locator('tr').nth(1).getAttribute('data-dof'));
  await studio(page, (s) => s.send({ type: 'play' }));
  await expect.poll(() => coordOf(page, dof)).not.toBeNaN();
  const before = await coordOf(page, dof);
  await setSlider(page, `joint-slider-${dof}`, before + 0.6);
  await expect.poll(() => coordOf(page, dof), { timeout: 30_000 }).toBeGreaterThan(before + 0.4);
  await page.screenshot({ path: `${SHOTS}/60-arm7-joint-panel.png` });
});

test('the drive-less Franka URDF holds its pose with “hold pose” (and sags without)', async ({ page }) => {
  test.setTimeout(180_000);
  await openStudio(page);
  const loads = await studio(page, (s) => s.loads);
  await page.getByTestId('file-input').setInputFiles({
    name: 'franka_emika_panda.zip',
    mimeType: 'application/zip',
    buffer: zipFolder(path.join(ASSETS, 'newton-assets/franka_emika_panda')),
  });
  await expect.poll(() => studio(page, (s) => s.loads), { timeout: 120_000 }).toBeGreaterThan(loads);
  // back to the initial pose (the URDF's zero configuration, upright), paused
  await studio(page, (s) => s.send({ type: 'pause' }));
  await studio(page, (s) => s.send({ type: 'reset' }));
  await expect.poll(() => studio(page, (s) => s.step)).toBe(0);
  const hold = page.getByTestId('hold-pose');
  await expect(hold).toBeVisible();
  await page.getByTestId('joint-panel-toggle').click();
  await expect(page.getByTestId('joint-panel').locator('tr[data-mode="effort"]').first()).toBeVisible();
  await hold.click();
  await expect.poll(() => studio(page, (s) => s.control()?.hold)).toBe(true);
  await expect(page.getByTestId('joint-panel').locator('tr[data-mode="effort"]')).toHaveCount(0);
  // the shoulder (second joint) carries the arm's weight: it stays within a few degrees while held
  const dof = Number(await page.getByTestId('joint-panel').locator('tr').nth(1).getAttribute('data-dof'));
  await expect.poll(() => coordOf(page, dof)).not.toBeNaN();
  const start = await coordOf(page, dof);
  expect(Math.abs(start)).toBeLessThan(1e-6); // held from the initial pose
  const t0 = await studio(page, (s) => s.time);
  await studio(page, (s) => s.send({ type: 'play' }));
  await expect.poll(() => studio(page, (s) => s.time), { timeout: 60_000 }).toBeGreaterThan(t0 + 1);
  expect(Math.abs((await coordOf(page, dof)) - start)).toBeLessThan(0.08);
  await page.screenshot({ path: `${SHOTS}/61-franka-hold-pose.png` });
  // released, the arm falls
  await hold.click();
  await expect.poll(() => studio(page, (s) => s.control()?.hold)).toBe(false);
  await expect
    .poll(async () => Math.abs((await coordOf(page, dof)) - start), { timeout: 60_000 })
    .toBeGreaterThan(0.2);
});

/** a two-link arm with PD drives and a control file that swings it */
const ARM = `schema_version: 1
name: swing_arm
simulation: { dt: 0.005 }
builder: { gravity: -9.81 }
ground: true
bodies:
  - id: l1
    transform: { p: [0.25, 0, 1], q: identity }
    shapes: [{ type: box, hx: 0.25, hy: 0.03, hz: 0.03, cfg: { density: 1000 } }]
  - id: l2
    transform: { p: [0.75, 0, 1], q: identity }
    shapes: [{ type: box, hx: 0.25, hy: 0.03, hz: 0.03, cfg: { density: 500 } }]
joints:
  - { id: shoulder, type: revolute, parent: world, child: l1, axis: y, parent_xform: { p: [0, 0, 1] }, child_xform: { p: [-0.25, 0, 0] }, target_ke: 800, target_kd: 60, limit_lower: -2, limit_upper: 2 }
  - { id: elbow, type: revolute, parent: l1, child: l2, axis: y, parent_xform: { p: [0.25, 0, 0] }, child_xform: { p: [-0.25, 0, 0] }, target_ke: 400, target_kd: 30, limit_lower: -2, limit_upper: 2 }
control: { source: swing.json, loop: true }
`;
const SWING = JSON.stringify({
  schema_version: 1,
  name: 'swing',
  keyframes: [
    { time: 0, label: 'level' },
    { time: 1, label: 'raised' },
  ],
  joint_target_pos: {
    order: 'sap_public_joint_dof',
    dt: 1,
    values: [
      [0, 0],
      [-0.8, 0.5],
    ],
  },
});

test('a scene’s control sequence plays on the timeline and the user can take over the sliders', async ({
  page,
}) => {
  await openStudio(page);
  const loads = await studio(page, (s) => s.loads);
  await page.getByTestId('file-input').setInputFiles([
    { name: 'swing_arm.yaml', mimeType: 'text/yaml', buffer: Buffer.from(ARM) },
    { name: 'swing.json', mimeType: 'application/json', buffer: Buffer.from(SWING) },
  ]);
  await expect.poll(() => studio(page, (s) => s.sceneName)).toBe('swing_arm');
  expect(await studio(page, (s) => s.loads)).toBeGreaterThan(loads);
  await page.getByTestId('joint-panel-toggle').click();
  const badge = page.getByTestId('sequence');
  await expect(badge).toContainText('swing');
  await expect(badge).toHaveAttribute('data-playing', 'true');
  await studio(page, (s) => s.send({ type: 'play' }));
  // the sequence raises the shoulder to −0.8 rad in its second second
  const shoulder = Number(
    await page.getByTestId('joint-panel').locator('tr').first().getAttribute('data-dof'),
  );
  await expect.poll(() => coordOf(page, shoulder), { timeout: 30_000 }).toBeLessThan(-0.5);
  await expect(badge).toContainText('raised');
  await page.screenshot({ path: `${SHOTS}/62-control-sequence.png` });
  // take over: the sequence stops driving; the slider commands the shoulder
  await page.getByTestId('sequence-toggle').click();
  await expect(badge).toHaveAttribute('data-playing', 'false');
  await setSlider(page, `joint-slider-${shoulder}`, 0.6);
  await expect.poll(() => coordOf(page, shoulder), { timeout: 30_000 }).toBeGreaterThan(0.4);
  // it stays there while the looping sequence would have lowered and raised it again
  const t = await studio(page, (s) => s.time);
  await expect.poll(() => studio(page, (s) => s.time), { timeout: 30_000 }).toBeGreaterThan(t + 2.2);
  expect(await coordOf(page, shoulder)).toBeGreaterThan(0.4);
  expect((await studio(page, (s) => s.control()))?.sequence?.playing).toBe(false);
});
