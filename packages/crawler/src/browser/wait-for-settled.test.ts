import type { ServerResponse } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startFixtureServer, type FixtureServer } from '@docshelf/testing/targets/fixture-server';
import { findChromium } from './find-chromium';
import { SETTLE_TRACKER_SCRIPT } from './wait-for-settled';

const chromiumPath = findChromium(process.env.CHROMIUM_PATH);
if (!chromiumPath)
  console.warn('Skipping settle tracker tests: no Chromium found (set CHROMIUM_PATH or install chromium).');
const describeWithChromium = chromiumPath ? describe : describe.skip;

/** What the tracker counts as still pending in the page: short timers and its scripts' requests. */
const pendingIn = (page: Page) => page.evaluate(() => (globalThis as any).__docshelfSettle()[0] as number);

describeWithChromium('the settle tracker a rendered page runs', () => {
  let site: FixtureServer;
  let browser: Browser;
  let page: Page;
  // Held requests in the order they reached the server: the page counts a request before it leaves, so a test may
  // release it before the server has it, and must wait for it.
  const heldResponses: ServerResponse[] = [];
  let heldArrived: (() => void) | null = null;
  const release = async () => {
    while (heldResponses.length === 0) await new Promise<void>((resolve) => (heldArrived = resolve));
    heldResponses.shift()!.writeHead(200, { 'content-type': 'text/plain' }).end('late');
  };

  beforeAll(async () => {
    site = await startFixtureServer('127.0.0.1', (request, response) => {
      if (request.url === '/held') {
        heldResponses.push(response);
        heldArrived?.();
        heldArrived = null;
        return;
      }
      const type = request.url === '/' ? 'text/html' : 'text/plain';
      response.writeHead(200, { 'content-type': type }).end(type === 'text/html' ? '<p>Page</p>' : 'data');
    });
    browser = await chromium.launch({ executablePath: chromiumPath! });
    const context = await browser.newContext();
    await context.addInitScript(SETTLE_TRACKER_SCRIPT);
    page = await context.newPage();
    await page.goto(`${site.origin}/`);
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('counts a fetch until it is answered', async () => {
    await page.evaluate(() => {
      (globalThis as any).held = fetch('/held');
    });
    expect(await pendingIn(page)).toBe(1);
    await release();
    await page.evaluate(() => (globalThis as any).held);
    expect(await pendingIn(page)).toBe(0);
  });

  it('counts an XMLHttpRequest until it ends, a synchronous one included', async () => {
    // Strings: the page's own XMLHttpRequest, which Node's type library does not describe.
    await page.evaluate(`{
      const xhr = new XMLHttpRequest();
      globalThis.ended = new Promise((resolve) => xhr.addEventListener('loadend', resolve));
      xhr.open('GET', '/held');
      xhr.send();
    }`);
    expect(await pendingIn(page)).toBe(1);
    await release();
    await page.evaluate(() => (globalThis as any).ended);
    expect(await pendingIn(page)).toBe(0);

    await page.evaluate(`{
      const xhr = new XMLHttpRequest();
      xhr.open('GET', '/data', false);
      xhr.send();
    }`);
    expect(await pendingIn(page)).toBe(0);
  });
});
