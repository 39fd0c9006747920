/** shared helpers of the studio's end-to-end tests */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { zipSync } from 'fflate';
import type { StatsInfo } from '../engine/worker/protocol';

/** the read-only test API the studio exposes as window.__sapStudio (see app/session.ts) */
export interface StudioApi {
  ready: boolean;
  sceneName: string;
  loads: number;
  frames: number;
  time: number;
  step: number;
  playing: boolean;
  transport: string;
  crossOriginIsolated: boolean;
  poses(): number[];
  options(): { explicit: Record<string, unknown>; effective: Record<string, unknown> } | null;
  errors(): string[];
  stats(): {
    step: number;
    contacts: number;
    truncated: number;
    stage_ms: StatsInfo['stage_ms'];
  } | null;
  contacts(): { count: number; truncated: number; data: number[] } | null;
  joints(): { q: number[]; qd: number[]; effort: number[] } | null;
  scene(): {
    bodies: string[];
    shapes: {
      label: string;
      body: number;
      flags: number;
      color: number[];
      triangles: number;
      textured: boolean;
    }[];
    textures: { label: string; mime: string; bytes: number }[];
    warnings: string[];
    notes: string[];
    keyframes: string[];
    keyframe: string | null;
  } | null;
  textures(): {
    requested: number;
    ready: number;
    failed: number;
    drawn: { meshes: number; images: number[][] };
  };
  markers(): { pC: number[][]; x0: number[][]; x1: number[][] } | null;
  islands(): number[] | null;
  plotData(): Record<string, (number | null)[][]> | null;
  trajectory(): {
    on: boolean;
    start: number;
    time: number[];
    q_precision: (number | null)[];
    q_model: (number | null)[];
    v_precision: (number | null)[];
    v_model: (number | null)[];
  };
  project(p: number[]): [number, number] | null;
  bodyPosition(b: number): number[] | null;
  selection(): number | null;
  /** posts a command to the worker (the app's send) */
  send(cmd: { type: string; [k: string]: unknown }): void;
  control(): {
    sequence: { playing: boolean; time: number; keyframe: string | null } | null;
    hold: boolean;
  } | null;
  camera(): { position: number[]; target: number[] } | null;
  backend(): {
    requested: 'cpu' | 'webgpu';
    active: 'cpu' | 'webgpu';
    pending: boolean;
    fallback: string | null;
    adapter: string | null;
    description: string;
    precision: Record<string, string>;
  } | null;
  link(): string;
  dropChoice(): { open: boolean; candidates: string[]; setAside: string[] } | null;
  loading(): { phase: string; done: number; total: number } | null;
  /** test builds: holds the reads of dropped files open (true) or lets them go (false) */
  holdReads(on: boolean): void;
  strict: boolean;
  /** the step inspector: open?, a request pending?, its last error, solves A and B, the φ(α) chart */
  inspector(): InspectorView;
}

/** one solve the step inspector shows (app/inspector_state.ts inspectorSnapshot) */
export interface InspectorRunView {
  label: string;
  step: number;
  which: string;
  preset: string;
  line_search: string;
  status: string;
  contacts: number;
  rows: number;
  cost: number[];
  alpha: (number | null)[];
}

/** the step inspector as the test hook reports it */
export interface InspectorView {
  open: boolean;
  pending: boolean;
  error: string | null;
  a: InspectorRunView | null;
  b: InspectorRunView | null;
  chart: { labels: string[]; points: number; iteration: number };
}

/** evaluates `fn` against the test API */
export function studio<T>(page: Page, fn: (s: StudioApi) => T): Promise<T> {
  return page.evaluate(`(${fn.toString()})(window.__sapStudio)`) as Promise<T>;
}

/** collects console errors and uncaught exceptions of a page */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
  return errors;
}

/** opens the studio and waits until a scene is loaded */
export async function openStudio(page: Page, hash = ''): Promise<void> {
  await page.goto('/' + hash);
  await page.waitForFunction(
    () => (window as unknown as { __sapStudio?: { ready: boolean } }).__sapStudio?.ready,
    null,
    {
      timeout: 60_000,
    },
  );
}

/** picks a built-in scene in the scene panel and waits for it to load */
export async function pickCatalogScene(page: Page, id: string): Promise<void> {
  const loads = await studio(page, (s) => s.loads);
  await page.locator('[id="scene.catalog"]').selectOption({ label: id });
  await expect.poll(() => studio(page, (s) => [s.loads, s.sceneName])).toEqual([loads + 1, id]);
}

/** toggles a leva checkbox by its path (e.g. 'view.contact overlay') */
export async function toggleCheckbox(page: Page, id: string): Promise<void> {
  await page.locator(`label[for="${id}"]`).last().click();
}

/** the pixel variance of a PNG (computed in the page from a data URL) */
export async function pngVariance(page: Page, png: Buffer): Promise<number> {
  const url = `data:image/png;base64,${png.toString('base64')}`;
  return page.evaluate(async (src) => {
    const img = new Image();
    img.src = src;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let sum = 0,
      sum2 = 0;
    const n = d.length / 4;
    for (let i = 0; i < d.length; i += 4) {
      const l = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
      sum += l;
      sum2 += l * l;
    }
    const mean = sum / n;
    return sum2 / n - mean * mean;
  }, url);
}

/** page coordinates of a world point, as the viewport's camera projects it */
export function project(page: Page, p: number[]): Promise<[number, number]> {
  return page.evaluate(
    (q) => (window as unknown as { __sapStudio: StudioApi }).__sapStudio.project(q) as [number, number],
    p,
  );
}

/** clicks the middle of arm7's link2 (body 2; its capsule's middle is 0.125 m along the body z axis) */
export async function clickArm7Link2(page: Page): Promise<void> {
  const mid = await studio(page, (s) => {
    const p = s.poses().slice(2 * 7, 2 * 7 + 7);
    const [x, y, z, w] = p.slice(3);
    // R·(0, 0, 0.125): the third column of the rotation
    const c = [2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)].map((v) => 0.125 * v);
    return [p[0] + c[0], p[1] + c[1], p[2] + c[2]];
  });
  const at = await project(page, mid);
  await page.mouse.click(at[0], at[1]);
}

/**
 * steps once (paused, arm7's link2 selected) and expects the frames and the body inspector to show
 * the drive of link2's hinge (DOF 1) holding ~14 N·m of its ±150
 */
export async function stepAndSeeArm7Drive(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'step', exact: true }).first().click();
  await expect
    .poll(async () => {
      const j = await studio(page, (s) => s.joints());
      return j ? Math.abs(j.effort[3 * 1 + 1]) : 0;
    })
    .toBeGreaterThan(5);
  await expect(page.getByTestId('body-inspector')).toContainText(
    /drive effort\s*-?\d+\.\d+ N·m of ±150\.0000/,
  );
}

/** waits until the studio has a scene */
export async function waitReady(page: Page): Promise<void> {
  await page.waitForFunction(
    () => (window as unknown as { __sapStudio?: StudioApi }).__sapStudio?.ready === true,
  );
}

/** the text a read-only leva field shows (its row's text after the label), by the field's path */
export function panelText(page: Page, id: string): Promise<string> {
  return page.evaluate((key) => {
    let el = document.querySelector(`label[for="${CSS.escape(key)}"]`) as HTMLElement | null;
    const label = el?.textContent ?? '';
    while (el && (el.textContent ?? '') === label) el = el.parentElement;
    return (el?.textContent ?? '').slice(label.length);
  }, id);
}

/** every file under `dir`, keyed by its path relative to `dir`'s parent (the package folder first) */
export function zipFolder(dir: string): Buffer {
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
