/**
 * Real robot descriptions dropped into the studio as a person would bring them: a zipped ROS package
 * from the shared asset set (MANIFEST.md), loaded through the page's file input, drawn and simulated.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { zipSync } from 'fflate';
import { openStudio, pngVariance, studio, watchConsole } from './helpers';

const SHOTS = 'dist/e2e-results/screens';
const ASSETS = path.resolve('..', 'shared', 'assets');

/** every file under `dir`, keyed by its path relative to `dir`'s parent (the package folder first) */
function zipFolder(dir: string): Buffer {
  const files: Record<string, Uint8Array> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else files[path.relative(path.dirname(dir), p).split(path.sep).join('/')] = readFileSync(p);
    }
  };
  walk(dir);
  return Buffer.from(zipSync(files));
}

const VISIBLE = 1;
const COLLIDE_SHAPES = 2;

test('the Franka FR3 package (URDF, STL colliders, COLLADA visuals) loads from a zip with its colours', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await openStudio(page);
  const loads = await studio(page, (s) => s.loads);
  await page.getByTestId('file-input').setInputFiles({
    name: 'franka_emika_panda.zip',
    mimeType: 'application/zip',
    buffer: zipFolder(path.join(ASSETS, 'newton-assets/franka_emika_panda')),
  });
  await expect.poll(() => studio(page, (s) => s.loads)).toBeGreaterThan(loads);
  await expect.poll(() => studio(page, (s) => s.sceneName)).not.toBe('box_stack');
  const scene = (await studio(page, (s) => s.scene()))!;
  expect(scene.bodies).toContain('fr3_hand');

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
    /visual meshes not loaded on 8 link\(s\).*fr3_link0, .*fr3_link7/,
  );
  await expect(page.getByText(/1 loader warning:/)).toBeVisible();

  // it simulates
  const at = await studio(page, (s) => s.step);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(at + 20);
  const shot = await page.screenshot({ path: `${SHOTS}/20-franka-dae.png` });
  expect(await pngVariance(page, shot)).toBeGreaterThan(20);
  expect(errors).toEqual([]);
});
