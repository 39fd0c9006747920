/**
 * Bad input and faults lose nothing (SPEC §11): broken files of every kind, a corrupted link, a world
 * that diverges and a worker that dies — each time the studio says what happened and the current
 * scene keeps running (or, for a dead worker, comes back where it was).
 */
import { expect, test, type Page } from '@playwright/test';
import { strToU8, zipSync } from 'fflate';
import { openStudio, studio, watchConsole } from './helpers';

/** the scene keeps stepping (it did not stop, reload or reset) */
async function keepsRunning(page: Page, name = 'box_stack'): Promise<void> {
  const at = await studio(page, (s) => s.step);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(at + 10);
  expect(await studio(page, (s) => s.sceneName)).toBe(name);
}

const URDF_OK = `<robot name="r">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="part.stl"/></geometry></collision></link>
</robot>`;

const BROKEN: { name: string; files: { name: string; buffer: Buffer }[]; where: RegExp }[] = [
  {
    name: 'YAML scene',
    files: [
      { name: 'broken.yaml', buffer: Buffer.from('schema_version: 1\nbodies:\n  - id: a\n    mass: [1\n') },
    ],
    where: /broken\.yaml — line \d+/,
  },
  {
    name: 'URDF',
    files: [
      {
        name: 'broken.urdf',
        buffer: Buffer.from(
          '<robot name="r">\n  <link name="a">\n    <inertial><mass value="heavy"/></inertial>\n  </link>\n</robot>\n',
        ),
      },
    ],
    where: /broken\.urdf — line 3/,
  },
  {
    name: 'MJCF',
    files: [
      {
        name: 'broken.xml',
        buffer: Buffer.from(
          '<mujoco>\n  <worldbody>\n    <body>\n      <geom type="sphere" size="0.1"/>\n  </worldbody>\n</mujoco>\n',
        ),
      },
    ],
    where: /broken\.xml — line \d+/,
  },
  {
    name: 'USDA',
    files: [
      {
        name: 'broken.usda',
        buffer: Buffer.from('#usda 1.0\ndef Xform "a" {\n  double3 xformOp:translate = (1, 2\n}\n'),
      },
    ],
    where: /broken\.usda — line \d+/,
  },
  {
    name: 'STL mesh of a URDF',
    files: [
      { name: 'r.urdf', buffer: Buffer.from(URDF_OK) },
      {
        name: 'part.stl',
        buffer: Buffer.from('solid x\nfacet normal 0 0 1\n  outer loop\n    vertex 0 0 nan\n'),
      },
    ],
    where: /part\.stl — line 4/,
  },
  {
    name: 'zip with a broken MJCF',
    files: [
      {
        name: 'robot.zip',
        buffer: Buffer.from(
          zipSync({
            'robot/model.xml': strToU8(
              '<mujoco><worldbody><body><joint type="spin"/></body></worldbody></mujoco>',
            ),
          }),
        ),
      },
    ],
    where: /model\.xml — line 1/,
  },
  {
    name: 'truncated zip',
    files: [
      {
        name: 'cut.zip',
        buffer: Buffer.from(zipSync({ 'a.yaml': strToU8('schema_version: 1\n') })).subarray(0, 40),
      },
    ],
    where: /cut\.zip/,
  },
  {
    name: 'truncated USDZ',
    files: [
      {
        name: 'cut.usdz',
        buffer: Buffer.from(zipSync({ 'a.usda': [strToU8('#usda 1.0\n'), { level: 0 }] })).subarray(0, 50),
      },
    ],
    where: /cut\.usdz — byte \d+/,
  },
];

test('dropping each kind of broken file shows which file, where and why; the scene keeps running', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await keepsRunning(page);
  const banner = page.getByTestId('error-banner');
  for (const b of BROKEN) {
    await page
      .getByTestId('file-input')
      .setInputFiles(
        b.files.map((f) => ({ name: f.name, mimeType: 'application/octet-stream', buffer: f.buffer })),
      );
    await expect(banner, b.name).toBeVisible();
    await expect(banner.locator('.error-item').last(), b.name).toContainText(b.where);
    await keepsRunning(page);
    await banner.getByRole('button', { name: 'dismiss' }).click();
  }
  expect(errors).toEqual([]);
});

test('a corrupted link pasted while a scene runs: an error, and the scene keeps running', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await keepsRunning(page);
  for (const hash of [
    '#link=%%%not-base64',
    '#link=eJzLSM3JyVcozy_KSQEAGgQEXQ',
    '#link=' + 'A'.repeat(100_000),
  ]) {
    await page.evaluate((h) => (location.hash = h), hash);
    await expect(page.getByTestId('error-banner')).toContainText(/link/);
    await keepsRunning(page);
    await page.getByRole('button', { name: 'dismiss' }).click();
  }
  expect(errors).toEqual([]);
});

test('a diverging world is contained: the other worlds and the UI keep going', async ({ page }) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await studio(page, (s) =>
    (s as unknown as { send(c: unknown): void }).send({ type: 'reload', num_worlds: 3 }),
  );
  await expect.poll(() => studio(page, (s) => s.loads)).toBe(2);
  await keepsRunning(page);
  await page.evaluate(() =>
    (window as unknown as { __sapStudio: { fault(f: string, w: number): void } }).__sapStudio.fault('nan', 1),
  );
  const banner = page.getByTestId('error-banner');
  await expect(banner).toContainText('worlds[1]');
  await expect(banner).toContainText(/world 1 diverged .*restored to its last good state/);
  await keepsRunning(page);
  expect(await studio(page, (s) => s.playing)).toBe(true);
  expect((await studio(page, (s) => s.poses())).every(Number.isFinite)).toBe(true);
  expect(errors).toEqual([]);
});

test('a worker that dies is restarted with the scene where it was', async ({ page }) => {
  const errors = watchConsole(page);
  await openStudio(page);
  // a non-default setting, so the restart has something to restore
  await page.locator('[id="solver.line_search_variant"]').selectOption({ label: 'armijo_decay' });
  await expect
    .poll(() => studio(page, (s) => s.options()?.effective.line_search_variant))
    .toBe('armijo_decay');
  await expect.poll(() => studio(page, (s) => s.step), { timeout: 30_000 }).toBeGreaterThan(400);
  await page.waitForTimeout(2500); // a state snapshot is kept every 2 s while playing
  const before = await studio(page, (s) => s.step);
  await page.evaluate(() =>
    (window as unknown as { __sapStudio: { fault(f: string): void } }).__sapStudio.fault('close'),
  );
  await expect
    .poll(() => studio(page, (s) => (s as unknown as { restarts: number }).restarts), { timeout: 30_000 })
    .toBe(1);
  await expect(page.getByTestId('error-banner')).toContainText(/engine worker stopped .*restored step \d+/);
  // back where it was (not from the start), with the same options, and running
  await expect.poll(() => studio(page, (s) => s.step), { timeout: 30_000 }).toBeGreaterThan(before);
  expect(await studio(page, (s) => s.sceneName)).toBe('box_stack');
  expect(await studio(page, (s) => s.options()?.effective.line_search_variant)).toBe('armijo_decay');
  await keepsRunning(page);
  expect(errors).toEqual([]);
});
