/**
 * Real robot descriptions dropped into the studio as a person would bring them: a zipped ROS package
 * from the shared asset set (MANIFEST.md), loaded through the page's file input, drawn and simulated.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openStudio, pngVariance, studio, toggleCheckbox, watchConsole, zipFolder } from './helpers';

const SHOTS = 'dist/e2e-results/screens';
const ASSETS = path.resolve('..', 'shared', 'assets');
const SAP_WARP_ASSETS = path.resolve('..', 'shared', 'reference', 'sap_warp', 'assets');

const VISIBLE = 1;
const COLLIDE_SHAPES = 2;

/** opens the studio, drops `dir` as a zip through the file input and returns the scene it loads */
async function dropPackage(page: Page, dir: string) {
  await openStudio(page);
  const loads = await studio(page, (s) => s.loads);
  await page.getByTestId('file-input').setInputFiles({
    name: `${path.basename(dir)}.zip`,
    mimeType: 'application/zip',
    buffer: zipFolder(dir),
  });
  await expect.poll(() => studio(page, (s) => s.loads)).toBeGreaterThan(loads);
  await expect.poll(() => studio(page, (s) => s.sceneName)).not.toBe('box_stack');
  return (await studio(page, (s) => s.scene()))!;
}

test('the Franka FR3 package (URDF, STL colliders, COLLADA visuals) loads from a zip with its colours', async ({
  page,
}) => {
  const errors = watchConsole(page);
  const scene = await dropPackage(page, path.join(ASSETS, 'newton-assets/franka_emika_panda'));
  expect(scene.bodies).toContain('fr3_hand');
  // the scene menu no longer names the built-in scene that was showing before
  await expect(page.locator('[id="scene.catalog"] option:checked')).toHaveText('(an opened file)');

  // the hand's COLLADA visual: five shapes, one per material, in the file's colours, drawn; its
  // collider hidden behind it
  const hand = scene.bodies.indexOf('fr3_hand');
  const handShapes = scene.shapes.filter((s) => s.body === hand);
  const visuals = handShapes.filter((s) => !(s.flags & COLLIDE_SHAPES));
  expect(visuals).toHaveLength(5);
  expect(visuals.every((s) => s.flags & VISIBLE && s.triangles > 0)).toBe(true);
  expect(visuals.reduce((n, s) => n + s.triangles, 0)).toBe(690 + 3548 + 2310 + 488 + 42);
  const rgb = visuals.map((s) => s.color.map((c) => +c.toFixed(3)).join(' '));
  expect(rgb).toContain('1 1 1');
  expect(rgb).toContain('0.251 0.251 0.251');
  expect(handShapes.filter((s) => s.flags & COLLIDE_SHAPES).some((s) => s.flags & VISIBLE)).toBe(false);
  // the arm's visual DAEs are not in the package (MANIFEST.md): its colliders are shown, and the
  // loader says so
  expect(scene.warnings.join('\n')).toMatch(
    /visual meshes not loaded on 8 link\(s\).*fr3_link0 \(.*fr3_link7 \(.*file not found in package 'franka_emika_panda'/,
  );
  await expect(page.getByTestId('loader-warning-count')).toHaveText('1 loader warning');

  // it simulates
  const at = await studio(page, (s) => s.step);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(at + 20);
  const shot = await page.screenshot({ path: `${SHOTS}/20-franka-dae.png` });
  expect(await pngVariance(page, shot)).toBeGreaterThan(20);
  expect(errors).toEqual([]);
});

test('ANYmal C (URDF with textured COLLADA visuals) loads from a zip and draws its images', async ({
  page,
}) => {
  const errors = watchConsole(page);
  const scene = await dropPackage(page, path.join(SAP_WARP_ASSETS, 'newton-assets/anybotics_anymal_c'));
  expect(scene.bodies).toContain('LF_SHANK');

  // seventeen JPEG images (one per part family: base, shells, drives, hips, thighs, shanks, feet,
  // cameras, lidar, …), each sent once however many meshes use it
  expect(scene.textures).toHaveLength(17);
  expect(scene.textures.every((t) => t.mime === 'image/jpeg' && t.bytes > 50_000)).toBe(true);
  expect(new Set(scene.textures.map((t) => t.label)).size).toBe(17);
  // every leg's thigh, shank and foot (their visuals hang on the fixed links) draws textured, in
  // white (the image as authored)
  const textured = scene.shapes.filter((s) => s.textured);
  for (const leg of ['LF', 'RF', 'LH', 'RH']) {
    for (const link of ['thigh_fixed', 'shank_fixed', 'FOOT']) {
      const b = scene.bodies.indexOf(`${leg}_${link}`);
      expect(b, `${leg}_${link}`).toBeGreaterThanOrEqual(0);
      expect(textured.some((s) => s.body === b)).toBe(true);
    }
  }
  expect(textured.every((s) => s.color.join(' ') === '1 1 1' && s.flags & VISIBLE)).toBe(true);
  // the base's COLLADA has textured and coloured materials side by side (the E-stop's red)
  const base = scene.bodies.indexOf('base');
  const baseVisuals = scene.shapes.filter((s) => s.body === base && !(s.flags & COLLIDE_SHAPES));
  expect(baseVisuals.some((s) => s.textured)).toBe(true);
  expect(baseVisuals.some((s) => !s.textured && s.color[0] > 5 * s.color[1])).toBe(true);
  expect(scene.warnings.join('\n')).not.toMatch(/texture|visual meshes not loaded/);
  // the URDF puts the base frame at the origin, the feet half a metre into the ground: the studio
  // stands it on the ground (welded there, as a URDF's root is) and says so
  expect(scene.notes.join('\n')).toMatch(/reach 0\.\d{3} m below the ground .* lifted 0\.\d{3} m/);
  // the lift is a note, not a warning; the only warnings are the file's own impossible inertias of
  // four camera links and the hatch, each welded to another link (so they only add to its inertia)
  expect(scene.warnings.join('\n')).not.toMatch(/lifted|below the ground/);
  expect(scene.warnings).toHaveLength(5);
  for (const w of scene.warnings) expect(w).toMatch(/violate the triangle inequality.*welded to/);
  await expect(page.getByTestId('loader-notes')).toContainText('lifted');
  const poses = await studio(page, (s) => s.poses());
  expect(poses[base * 7 + 2]).toBeGreaterThan(0.4);

  // the renderer decodes every image (2048² JPEGs) and draws the textured meshes with them
  await expect.poll(() => studio(page, (s) => s.textures().ready), { timeout: 30_000 }).toBe(17);
  const tex = await studio(page, (s) => s.textures());
  expect(tex.failed).toBe(0);
  await expect.poll(() => studio(page, (s) => s.textures().drawn.images.length)).toBe(17);
  const drawn = (await studio(page, (s) => s.textures())).drawn;
  expect(drawn.meshes).toBeGreaterThanOrEqual(17);
  expect(drawn.images).toHaveLength(17);
  // drawn at most 1024 px a side (MAX_TEXTURE_SIZE): the 2048² images at half size
  expect(drawn.images.every(([w, h]) => w === 1024 && h === 1024)).toBe(true);

  const at = await studio(page, (s) => s.step);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(at + 20);
  const shot = await page.screenshot({ path: `${SHOTS}/21-anymal-c-textured.png` });
  expect(await pngVariance(page, shot)).toBeGreaterThan(20);
  expect(errors).toEqual([]);
});

test('ANYmal D (USD with OmniPBR textures in an instanced crate) loads from a zip and draws its images', async ({
  page,
}) => {
  const errors = watchConsole(page);
  const scene = await dropPackage(page, path.join(ASSETS, 'newton-assets/anybotics_anymal_d'));
  expect(scene.bodies).toContain('LF_SHANK');

  // the visuals that are not authored invisible draw with five JPEGs (hips, drives, thighs, shanks,
  // feet) read from beside the crate layer that names them, each sent once
  expect(scene.textures.map((t) => path.basename(t.label)).sort()).toEqual([
    'drive.jpg',
    'foot.jpg',
    'hip.jpg',
    'shank.jpg',
    'thigh.jpg',
  ]);
  const textured = scene.shapes.filter((s) => s.textured);
  expect(textured).toHaveLength(20);
  // the file authors the base's and the right hind thigh's and shank's visuals invisible
  for (const leg of ['LF', 'RF', 'LH', 'RH']) {
    for (const link of ['HIP', 'THIGH', 'SHANK', 'FOOT']) {
      const b = scene.bodies.indexOf(`${leg}_${link}`);
      const hidden = leg === 'RH' && (link === 'THIGH' || link === 'SHANK');
      expect(
        textured.some((s) => s.body === b),
        `${leg}_${link}`,
      ).toBe(!hidden);
    }
  }
  expect(textured.every((s) => s.color.join(' ') === '1 1 1' && s.flags & VISIBLE)).toBe(true);
  expect(scene.warnings.join('\n')).not.toMatch(/texture/);
  // authored with its base at the origin and its feet below it, on no ground of its own: it stands
  // on the studio's
  expect(scene.notes.join('\n')).toMatch(/reach 0\.\d{3} m below the ground .* lifted 0\.\d{3} m/);
  // a note, not a warning: nothing is wrong with the file
  expect(scene.warnings).toEqual([]);
  await expect(page.getByTestId('loader-notes')).toContainText('lifted');

  await expect.poll(() => studio(page, (s) => s.textures().ready), { timeout: 30_000 }).toBe(5);
  expect((await studio(page, (s) => s.textures())).failed).toBe(0);
  await expect.poll(() => studio(page, (s) => s.textures().drawn.images.length)).toBe(5);

  const at = await studio(page, (s) => s.step);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(at + 20);
  const shot = await page.screenshot({ path: `${SHOTS}/22-anymal-d-usd-textured.png` });
  expect(await pngVariance(page, shot)).toBeGreaterThan(20);
  expect(errors).toEqual([]);
});

test('Agility Cassie (MJCF, OBJ meshes with a texture atlas) loads from a zip and draws its image', async ({
  page,
}) => {
  const errors = watchConsole(page);
  const scene = await dropPackage(page, path.join(ASSETS, 'mujoco_menagerie/agility_cassie'));
  expect(scene.bodies).toContain('left-foot');
  // one PNG atlas, sent once, drawn on every visual mesh through the OBJ files' coordinates
  expect(scene.textures).toHaveLength(1);
  expect(scene.textures[0].mime).toBe('image/png');
  const visuals = scene.shapes.filter((s) => s.triangles > 0 && !(s.flags & COLLIDE_SHAPES));
  expect(visuals.length).toBeGreaterThanOrEqual(20);
  expect(visuals.every((s) => s.textured)).toBe(true);
  expect(scene.warnings.join('\n')).not.toMatch(/texture/);
  await expect.poll(() => studio(page, (s) => s.textures().ready), { timeout: 30_000 }).toBe(1);
  await expect.poll(() => studio(page, (s) => s.textures().drawn.images.length)).toBe(1);
  const at = await studio(page, (s) => s.step);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(at + 20);
  const shot = await page.screenshot({ path: `${SHOTS}/23-cassie-mjcf-textured.png` });
  expect(await pngVariance(page, shot)).toBeGreaterThan(20);
  expect(errors).toEqual([]);
});

test("MuJoCo's humanoid (one MJCF file) starts from a keyframe picked in the panel, its link carries it, the camera follows it", async ({
  page,
  browser,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  await page.getByRole('button', { name: 'pause', exact: true }).first().click();
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);
  let loads = await studio(page, (s) => s.loads);
  await page.getByTestId('file-input').setInputFiles({
    name: 'humanoid.xml',
    mimeType: 'text/xml',
    buffer: readFileSync(path.join(ASSETS, 'mujoco/humanoid/humanoid.xml')),
  });
  await expect.poll(() => studio(page, (s) => [s.loads, s.sceneName])).toEqual([loads + 1, 'Humanoid']);
  let scene = (await studio(page, (s) => s.scene()))!;
  expect(scene.keyframes).toEqual(['squat', 'stand_on_left_leg', 'prone', 'supine']);
  expect(scene.keyframe).toBeNull();
  await expect(page.getByTestId('loader-notes')).toContainText(
    'keyframes (squat, stand_on_left_leg, prone, supine)',
  );
  const torso = scene.bodies.indexOf('torso');
  const torsoZ = async (p: Page) => (await studio(p, (s) => s.poses()))[7 * torso + 2];
  expect(await torsoZ(page)).toBeCloseTo(1.282, 5);

  // pick 'prone': the scene reloads lying on the floor (qpos z 0.0757706), still paused
  loads = await studio(page, (s) => s.loads);
  await page.locator('[id="simulation.keyframe"]').selectOption({ label: 'prone' });
  await expect.poll(() => studio(page, (s) => s.loads)).toBe(loads + 1);
  scene = (await studio(page, (s) => s.scene()))!;
  expect(scene.keyframe).toBe('prone');
  await expect.poll(() => torsoZ(page)).toBeCloseTo(0.0757706, 5);
  expect(await studio(page, (s) => s.playing)).toBe(false);
  const shot = await page.screenshot({ path: `${SHOTS}/24-humanoid-keyframe-prone.png` });
  expect(await pngVariance(page, shot)).toBeGreaterThan(20);

  // the dropped file travels inline in the link, with its keyframe
  await page.getByRole('button', { name: 'copy link' }).click();
  await expect(page).toHaveURL(/#link=/);
  const other = await browser.newPage();
  const otherErrors = watchConsole(other);
  await other.goto(page.url());
  await expect
    .poll(() => studio(other, (s) => [s.sceneName, s.scene()?.keyframe]))
    .toEqual(['Humanoid', 'prone']);
  expect(await torsoZ(other)).toBeCloseTo(0.0757706, 5);
  // the panel shows it (leva's select values are option indices)
  await expect(other.locator('[id="simulation.keyframe"] option:checked')).toHaveText('prone');
  await other.close();
  expect(otherErrors).toEqual([]);

  // and back to the reference pose
  loads = await studio(page, (s) => s.loads);
  await page.locator('[id="simulation.keyframe"]').selectOption({ label: 'qpos0 (reference pose)' });
  await expect.poll(() => studio(page, (s) => [s.loads, s.scene()?.keyframe])).toEqual([loads + 1, null]);
  expect(await torsoZ(page)).toBeCloseTo(1.282, 5);

  // follow: the camera keeps its place relative to the falling torso (the first body; none selected)
  expect(torso).toBe(0);
  await toggleCheckbox(page, 'view.follow');
  const offset = async () => {
    const cam = (await studio(page, (s) => s.camera()))!;
    const p = (await studio(page, (s) => s.bodyPosition(0)))!;
    return cam.target.map((t, i) => t - p[i]);
  };
  const before = await offset();
  await page.getByTestId('play-toggle').click();
  await expect.poll(() => torsoZ(page)).toBeLessThan(0.9);
  await page.getByTestId('play-toggle').click();
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);
  await expect
    .poll(async () => Math.max(...(await offset()).map((d, i) => Math.abs(d - before[i]))))
    .toBeLessThan(1e-4);
  expect(errors).toEqual([]);
});
