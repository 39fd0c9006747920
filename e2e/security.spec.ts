/**
 * Security of the studio in a real browser (SPEC §8): the Content-Security-Policy is in force and the
 * app runs without violating it; scene names, file names and links never become HTML; a link that
 * names a scene on another host fetches nothing until the user agrees.
 */
import { expect, test, type Page } from '@playwright/test';
import { encodeLinkForTest } from './link_fixture';
import { openStudio, studio, watchConsole } from './helpers';

const XSS = '<img src=x onerror="window.__xss=1">';

/** records CSP violations (window.__csp) and dialogs (alert/confirm) of a page */
async function watchSecurity(page: Page): Promise<{ dialogs: string[] }> {
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.__csp.push(`${e.violatedDirective}: ${e.blockedURI || e.sample}`),
    );
  });
  return { dialogs };
}

const violations = (page: Page) => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);

/** nothing from the input became an element or ran */
async function expectNoInjection(page: Page): Promise<void> {
  expect(await page.locator('img[src="x"]').count()).toBe(0);
  expect(await page.locator('script:not([src])').count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
}

test('the Content-Security-Policy is sent and enforced, and the studio runs within it', async ({ page }) => {
  const errors = watchConsole(page);
  const sec = await watchSecurity(page);
  const res = await page.goto('/');
  const header = res!.headers()['content-security-policy'];
  expect(header).toContain("script-src 'self'");
  expect(header).toContain("object-src 'none'");
  expect(header).toContain("frame-ancestors 'none'");
  expect(await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')).toContain(
    "default-src 'self'",
  );
  await page.waitForFunction(
    () => (window as unknown as { __sapStudio?: { ready: boolean } }).__sapStudio?.ready,
  );
  await expect.poll(() => studio(page, (s) => s.step)).toBeGreaterThan(20);
  expect(await violations(page)).toEqual([]);

  // an inline script (what an injection would need) is refused by the policy
  const ran = await page.evaluate(async () => {
    const s = document.createElement('script');
    s.textContent = 'window.__inline = 1';
    document.head.appendChild(s);
    await new Promise((r) => setTimeout(r, 50));
    return (window as unknown as { __inline?: number }).__inline === 1;
  });
  expect(ran).toBe(false);
  expect((await violations(page)).some((v) => v.startsWith('script-src'))).toBe(true);
  expect(sec.dialogs).toEqual([]);
  // the refused inline script is the only console error
  expect(errors.filter((e) => !/Content Security Policy/.test(e))).toEqual([]);
});

test('scene names, file names and links are shown as text, never as HTML', async ({ page }) => {
  const errors = watchConsole(page);
  const sec = await watchSecurity(page);
  await openStudio(page);

  // a scene whose name, description and file name are markup
  const sceneNamed = (name: string) =>
    `schema_version: 1\nname: '${name}'\ndescription: '<script>window.__xss=2</script><b>bold</b>'\nbodies:\n  - id: '${XSS}'\n    transform: {p: [0, 0, 0.5]}\n    shapes: [{type: box, hx: 0.1, hy: 0.1, hz: 0.1}]\n`;
  const scene = sceneNamed(XSS);
  await page.getByTestId('file-input').setInputFiles({
    name: `${XSS}.yaml`,
    mimeType: 'application/yaml',
    buffer: Buffer.from(scene),
  });
  await expect.poll(() => studio(page, (s) => s.sceneName)).toBe(XSS);
  const info = page.getByTestId('scene-info');
  await expect(info).toContainText(XSS);
  await expect(info).toContainText('<script>window.__xss=2</script><b>bold</b>');
  expect(await info.locator('b', { hasText: 'bold' }).count()).toBe(0);
  await expectNoInjection(page);

  // an error message that quotes a file name with markup
  await page.getByTestId('file-input').setInputFiles({
    name: `<svg onload="window.__xss=3">.urdf`,
    mimeType: 'application/xml',
    buffer: Buffer.from(
      '<robot name="r"><link name="a"><inertial><mass value="<b>x</b>"/></inertial></link></robot>',
    ),
  });
  const banner = page.getByTestId('error-banner');
  await expect(banner).toContainText('<svg onload="window.__xss=3">.urdf');
  expect(await banner.locator('svg').count()).toBe(0);
  await expectNoInjection(page);

  // a link with markup in its inline scene name and in a catalog id
  const linked = `${XSS} from a link`;
  const inline = encodeLinkForTest({
    v: 1,
    scene: { kind: 'inline', name: `${XSS}.yaml`, text: sceneNamed(linked) },
  });
  await page.goto(`/#link=${inline}`);
  await expect.poll(() => studio(page, (s) => s.sceneName)).toBe(linked);
  await expect(page.getByTestId('scene-info')).toContainText(`${XSS}.yaml`);
  const badId = encodeLinkForTest({ v: 1, scene: { kind: 'catalog', id: XSS } });
  await page.goto(`/#link=${badId}`);
  await expect(page.getByTestId('error-banner')).toContainText('scene.id');
  await expectNoInjection(page);
  expect(await violations(page)).toEqual([]);
  expect(sec.dialogs).toEqual([]);
  expect(errors).toEqual([]);
});

test('a link with a URL scene on another host asks first and fetches nothing before the answer', async ({
  page,
}) => {
  const errors = watchConsole(page);
  const host = 'scenes.example.test';
  const requests: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes(host)) requests.push(r.url());
  });
  const box = Buffer.from(
    'schema_version: 1\nname: remote_box\nbodies:\n  - id: b\n    transform: {p: [0, 0, 0.3]}\n    shapes: [{type: box, hx: 0.1, hy: 0.1, hz: 0.1}]\n',
  );
  await page.route(`https://${host}/**`, (route) =>
    route.fulfill({
      status: 200,
      body: box,
      headers: { 'content-type': 'text/yaml', 'access-control-allow-origin': '*' },
    }),
  );
  const url = `https://${host}/robots/<b>remote</b>.yaml`;
  const link = encodeLinkForTest({ v: 1, scene: { kind: 'url', url }, sim: { speed: 0.5 } });

  // decline: nothing is fetched, the default scene runs
  await openStudio(page, `#link=${link}`);
  const dialog = page.getByTestId('url-consent');
  await expect(dialog).toBeVisible();
  await expect(page.getByTestId('url-consent-host')).toHaveText(host);
  await expect(page.getByTestId('url-consent-url')).toContainText('<b>remote</b>');
  expect(await dialog.locator('b', { hasText: 'remote' }).count()).toBe(0);
  expect(await studio(page, (s) => s.sceneName)).toBe('box_stack');
  await page.waitForTimeout(500);
  expect(requests).toEqual([]);
  await page.getByTestId('url-consent-cancel').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('notice')).toContainText('was not loaded');
  expect(requests).toEqual([]);
  expect(await studio(page, (s) => s.sceneName)).toBe('box_stack');

  // accept: now it is fetched (once) and loaded
  await page.goto('/');
  await openStudio(page, `#link=${link}`);
  await expect(dialog).toBeVisible();
  expect(requests).toEqual([]);
  await page.getByTestId('url-consent-load').click();
  await expect.poll(() => studio(page, (s) => s.sceneName)).toBe('remote_box');
  expect(requests).toHaveLength(1);
  expect(errors).toEqual([]);
});
