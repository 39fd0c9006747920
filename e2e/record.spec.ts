/**
 * Recording and export as a person uses them: `v` records the viewport to a video that downloads on
 * stop (WebM: EBML header, frames that are the rendered scene and not black; MP4 where Chromium
 * records it), and the timeline's trajectory buttons download the history as CSV and JSON whose
 * columns name every joint coordinate.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Download, type Page } from '@playwright/test';
import { parseTrajectoryCsv } from '../engine/worker/trajectory_table';
import { openStudio, studio, watchConsole } from './helpers';

const SHOTS = 'test-results';

async function bytesOf(d: Download): Promise<Buffer> {
  const p = await d.path();
  return readFileSync(p);
}

/** records about `ms` of the viewport with `v` in `format`; returns the download */
async function record(page: Page, format: 'webm' | 'mp4', ms: number, shot?: string): Promise<Download> {
  const select = page.getByTestId('record-format');
  if (await select.count()) await select.selectOption(format);
  await page.locator('body').click({ position: { x: 500, y: 5 } }); // the focus leaves the select
  await page.keyboard.press('v');
  const elapsed = page.getByTestId('record-elapsed');
  await expect(elapsed).toBeVisible();
  await expect(page.getByTestId('record-button')).toHaveClass(/on/);
  await page.waitForTimeout(ms);
  await expect(elapsed).not.toHaveText('0:00');
  if (shot) await page.screenshot({ path: `${SHOTS}/${shot}` });
  const download = page.waitForEvent('download');
  await page.keyboard.press('v');
  const d = await download;
  await expect(elapsed).toBeHidden();
  return d;
}

/**
 * decodes the video and measures a frame after `at` seconds: mean luma and its variance. In a blank
 * page of its own: the studio's Content-Security-Policy lets it play no media (it needs none).
 */
async function frameStats(studioPage: Page, bytes: Buffer, type: string, at: number) {
  const page = await studioPage.context().newPage();
  const stats = await page.evaluate(
    async ({ b64, type, at }) => {
      const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const video = document.createElement('video');
      video.muted = true;
      video.src = URL.createObjectURL(new Blob([data], { type }));
      await video.play();
      while (video.currentTime < at && !video.ended) await new Promise((r) => setTimeout(r, 50));
      video.pause();
      const c = document.createElement('canvas');
      c.width = video.videoWidth;
      c.height = video.videoHeight;
      const ctx = c.getContext('2d')!;
      ctx.drawImage(video, 0, 0);
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
      return { width: c.width, height: c.height, mean, variance: sum2 / n - mean * mean };
    },
    { b64: bytes.toString('base64'), type, at },
  );
  await page.close();
  return stats;
}

test('v records the viewport to a WebM (and an MP4 where Chromium records one) that downloads on stop', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await page.setViewportSize({ width: 1024, height: 700 });
  await openStudio(page);
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(true);
  const model = await studio(page, (s) => s.sceneName);

  const webm = await record(page, 'webm', 2500, 'record-1024x700.png');
  expect(webm.suggestedFilename()).toMatch(new RegExp(`^${model}-\\d{8}-\\d{6}\\.webm$`));
  const bytes = await bytesOf(webm);
  expect(bytes.length).toBeGreaterThan(1000);
  expect([...bytes.subarray(0, 4)]).toEqual([0x1a, 0x45, 0xdf, 0xa3]); // EBML
  // the frames are the rendered scene (the canvas keeps preserveDrawingBuffer false): not black, not flat
  const f = await frameStats(page, bytes, 'video/webm', 1);
  const canvas = await page.locator('[data-testid="viewport"] canvas').boundingBox();
  expect(f.width).toBeGreaterThan(0.9 * canvas!.width);
  expect(f.mean).toBeGreaterThan(15); // the background is #1b1e24 (luma ≈ 29), black is 0
  expect(f.variance).toBeGreaterThan(20); // boxes, grid and ground, not one colour
  console.log(
    `webm: ${bytes.length} B, frame ${f.width}×${f.height} luma mean ${f.mean.toFixed(1)} variance ${f.variance.toFixed(1)}`,
  );

  const mp4Supported = await page.evaluate(() => MediaRecorder.isTypeSupported('video/mp4'));
  if (mp4Supported) {
    const mp4 = await record(page, 'mp4', 1500);
    expect(mp4.suggestedFilename()).toMatch(/\.mp4$/);
    const m = await bytesOf(mp4);
    expect(m.length).toBeGreaterThan(1000);
    expect(m.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const g = await frameStats(page, m, 'video/mp4', 0.5);
    expect(g.mean).toBeGreaterThan(15);
    expect(g.variance).toBeGreaterThan(20);
    console.log(`mp4: ${m.length} B, luma mean ${g.mean.toFixed(1)} variance ${g.variance.toFixed(1)}`);
  }
  expect(errors).toEqual([]);
});

test('the trajectory downloads as CSV and JSON: a column per joint coordinate, rows that parse back', async ({
  page,
}) => {
  const errors = watchConsole(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await openStudio(page);
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(50);
  await page.getByTestId('play-toggle').click();
  await expect.poll(() => studio(page, (s) => s.playing)).toBe(false);
  const step = await studio(page, (s) => s.step);
  const bodies = (await studio(page, (s) => s.scene()))!.bodies;
  await expect(page.getByTestId('trajectory-bound')).toContainText('4000 steps');
  await page.screenshot({ path: `${SHOTS}/record-1920x1080.png` });

  const csvDownload = page.waitForEvent('download');
  await page.getByTestId('export-trajectory-csv').click();
  const csvFile = await csvDownload;
  expect(csvFile.suggestedFilename()).toMatch(/\.trajectory\.csv$/);
  const table = parseTrajectoryCsv((await bytesOf(csvFile)).toString('utf8'));
  // box_stack: every body on a free joint, 7 coordinates and 6 velocities each
  expect(table.columns).toHaveLength(3 + 13 * bodies.length);
  expect(table.columns.slice(0, 3)).toEqual(['step', 'time', 'world']);
  expect(table.columns[3]).toBe(`${bodies[0]}_free.x`);
  expect(table.columns).toContain(`${bodies.at(-1)}_free.qw`);
  expect(table.columns.at(-1)).toBe(`${bodies.at(-1)}_free.wz`);
  expect(table.rows.length).toBe(Math.min(step + 1, 4000));
  expect(table.rows.at(-1)![0]).toBe(step);
  for (let i = 1; i < table.rows.length; i++) expect(table.rows[i][0]).toBe(table.rows[i - 1][0] + 1);

  const jsonDownload = page.waitForEvent('download');
  await page.getByTestId('export-trajectory-json').click();
  const json = JSON.parse((await bytesOf(await jsonDownload)).toString('utf8')) as {
    columns: string[];
    rows: number[][];
  };
  expect(json.columns).toEqual(table.columns);
  expect(json.rows).toEqual(table.rows);
  console.log(`trajectory: ${table.rows.length} rows × ${table.columns.length} columns`);
  expect(errors).toEqual([]);
});
