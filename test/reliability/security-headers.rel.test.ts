import { chromium, type Browser, type Page } from 'playwright-core';
import { ADMIN } from '@docshelf/testing/e2e/harness';
import { cleanUpOpsEnv, opsEnv, spawnApi, stopQuietly, type ApiProcess } from '@docshelf/testing/e2e/ops-processes';
import { recordFigure } from '@docshelf/testing/reliability/figures';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Collects what a page reports about its Content-Security-Policy: violation events and console refusals. */
function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  page.on('pageerror', (error) => violations.push(`page error: ${error.message}`));
  return violations;
}

function expectSecurityHeaders(headers: Record<string, string>): void {
  const csp = headers['content-security-policy'] ?? '';
  const directives = new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name!, values]),
  );
  expect(directives.get('script-src')).toEqual(["'self'"]);
  expect(directives.get('script-src-attr')).toEqual(["'none'"]);
  expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
  expect(directives.get('object-src')).toEqual(["'none'"]);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-frame-options']).toBe('DENY');
}

describe('Security headers on every HTML page, rendered in real Chromium (a real API process)', () => {
  let env: Record<string, string>;
  let api: ApiProcess | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    env = opsEnv();
    [api, browser] = await Promise.all([
      spawnApi(env),
      chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stopQuietly(api);
    await cleanUpOpsEnv(env);
  });

  it('serves /api/docs, the queue login page and Bull Board with a strict policy, and each renders with no violation', async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const violations = watchCsp(page);
    const pages: string[] = [];

    // The API reference.
    const docs = await page.goto(`${api!.baseUrl}/api/docs`);
    expect(docs!.status()).toBe(200);
    expectSecurityHeaders(await docs!.allHeaders());
    await expect(page.locator('h1').textContent()).resolves.toMatch(/Docshelf/);
    // Its styles applied: the stylesheet is inline CSS, which the policy allows (no inline script is).
    expect(await page.evaluate('getComputedStyle(document.body).display')).toBe('grid');
    pages.push('/api/docs');

    // Without a session a browser gets the login page; its script is a file, so the policy lets it run.
    const login = await page.goto(`${api!.baseUrl}/admin/queues`);
    expect(login!.status()).toBe(401);
    expectSecurityHeaders(await login!.allHeaders());
    pages.push('/admin/queues (login)');
    await page.fill('#email', ADMIN.email);
    await page.fill('#password', 'not the password');
    await page.click('button[type=submit]');
    await expect(
      page.locator('#error').filter({ hasText: 'Invalid email or password' }).waitFor(),
    ).resolves.toBeUndefined();
    await page.fill('#password', ADMIN.password);
    const [board] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${api!.baseUrl}/admin/queues` && r.status() === 200),
      page.click('button[type=submit]'),
    ]);
    expectSecurityHeaders(await board.allHeaders());
    // Bull Board's React app renders its queues (its scripts are files under the board's path).
    await page.getByText('ingest', { exact: false }).first().waitFor({ timeout: 20_000 });
    pages.push('/admin/queues (Bull Board)');

    // JSON and the script file carry the headers too.
    const script = await page.request.get(`${api!.baseUrl}/admin/login.js`);
    expect(script.headers()['content-type']).toMatch(/javascript/);
    expectSecurityHeaders(script.headers());

    // Framing is refused: a page on another origin that embeds the reference gets an empty frame.
    const framer = await context.newPage();
    await framer.route('http://framer.test/', (route) =>
      route.fulfill({ contentType: 'text/html', body: `<iframe id="f" src="${api!.baseUrl}/api/docs"></iframe>` }),
    );
    await framer.goto('http://framer.test/', { waitUntil: 'load' });
    const embedded = framer.frames().find((frame) => frame !== framer.mainFrame())!;
    // Chromium replaces a frame it refuses with its error page.
    expect(embedded.url()).toMatch(/^chrome-error:/);
    expect(await embedded.locator('body').textContent()).not.toMatch(/Docshelf/);

    recordFigure({
      scenario: 'security headers: HTML pages in Chromium',
      requests: pages.length + 3,
      faults: 1,
      serverErrors: 0,
      rowsLost: 0,
      duplicates: 0,
      note: `${pages.length} pages rendered, ${violations.length} CSP violations; framing by another origin refused`,
    });
    expect(violations).toEqual([]);
    await context.close();
  });
});
