import { expect, test, type Page } from '@playwright/test';
import { checkPage } from './support/check-page';
import { ADMIN, e2eEnv, HELD_PAGE } from './support/env';

/**
 * A user's day with the dashboard, in order, in one browser page: log in, manage keys, crawl the fixture site and
 * watch it, search it, embed a library, delete one, log out. Every page is scanned by axe and photographed.
 */
test.describe.configure({ mode: 'serial' });

let page: Page;
let base: string;
let site: string;

test.beforeAll(async ({ browser }) => {
  base = e2eEnv('baseUrl');
  site = e2eEnv('siteOrigin');
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1440, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  page = await context.newPage();
});

test.afterAll(async () => {
  await page.context().close();
});

async function logIn(): Promise<void> {
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

test('a visitor without a session is sent to the login page, which says when the credentials are wrong', async () => {
  await page.goto('/keys');
  await expect(page).toHaveURL(/\/login\?next=%2Fkeys$/);
  await expect(page.getByRole('heading', { name: 'Log in to Docshelf' })).toBeVisible();
  await checkPage(page, 'login');

  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByRole('alert')).toHaveText('Wrong email or password.');
  await checkPage(page, 'login-wrong-credentials');
});

test('the login page tells a rate-limited user how long to wait (429 RATE_LIMITED with Retry-After, from the API)', async () => {
  // The service under test allows LOGIN_MAX_ATTEMPTS_PER_ACCOUNT = 3 attempts per account; this account has no user.
  const attempt = async () => {
    const answered = page.waitForResponse((res) => res.url().endsWith('/api/auth/login'));
    await page.getByRole('button', { name: 'Log in' }).click();
    return (await answered).status();
  };
  await page.getByLabel('Email').fill('locked-out@docshelf.test');
  await page.getByLabel('Password').fill('guessing');
  for (let i = 0; i < 3; i++) {
    expect(await attempt()).toBe(401);
    await expect(page.getByRole('alert')).toHaveText('Wrong email or password.');
  }
  expect(await attempt()).toBe(429);
  await expect(page.getByRole('alert')).toHaveText(/^Too many login attempts\. Try again in \d+ (seconds?|minutes)\.$/);
  await checkPage(page, 'login-rate-limited');
});

test('logging in opens the page asked for; the libraries page starts empty', async () => {
  await logIn();
  await expect(page).toHaveURL(/\/keys$/);
  await expect(page.getByRole('heading', { name: 'API keys', level: 1 })).toBeVisible();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Libraries' }).click();
  await expect(page.getByRole('heading', { name: 'Libraries', level: 1 })).toBeVisible();
  await expect(page.getByText('No libraries yet.')).toBeVisible();
  await checkPage(page, 'libraries-empty');
});

test('an API key is shown once with a copy button and a warning, works, and stops working once revoked', async () => {
  await page.getByRole('link', { name: 'API keys' }).click();
  await expect(page.getByText('No keys yet.')).toBeVisible();
  await checkPage(page, 'keys');

  await page.getByLabel('Key name').fill('docs reader');
  await page.getByRole('radio', { name: 'read' }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByText('Copy this key now: it will not be shown again.')).toBeVisible();
  const key = await page.getByLabel('Full key').inputValue();
  expect(key).toMatch(/^dsk_[0-9a-f]{64}$/);
  await page.getByRole('button', { name: 'Copy key' }).click();
  await expect(page.getByText('Copied to the clipboard.')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  const row = page.getByRole('row', { name: /docs reader/ });
  await expect(row).toContainText(key.slice(0, 12));
  await expect(row).toContainText('read');
  await expect(row).toContainText('never');
  await checkPage(page, 'keys-created');

  // The key reads through the API; its page is the only place the full value ever showed.
  const search = await page.request.get(`${base}/api/search?q=widgets`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(search.status()).toBe(200);
  await page.getByRole('button', { name: 'I have copied the key' }).click();
  await page.reload();
  await expect(page.getByRole('row', { name: /docs reader/ })).toBeVisible();
  await expect(page.locator('body')).not.toContainText(key);
  await expect(page.getByRole('row', { name: /docs reader/ })).not.toContainText('never');

  await page.getByRole('button', { name: 'Revoke key docs reader' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke key docs reader?' });
  await expect(dialog).toBeVisible();
  await checkPage(page, 'keys-revoke-confirm');
  await dialog.getByRole('button', { name: 'Revoke docs reader' }).click();
  await expect(page.getByText('Key docs reader was revoked; it no longer works.')).toBeVisible();
  await expect(page.getByRole('row', { name: /docs reader/ })).toHaveCount(0);
  const refused = await page.request.get(`${base}/api/search?q=widgets`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(refused.status()).toBe(401);
});

test('a crawl of the fixture site shows live progress and page errors, then links to its library', async () => {
  await page.getByRole('link', { name: 'Add docs' }).first().click();
  await expect(page.getByRole('heading', { name: 'Add docs', level: 1 })).toBeVisible();
  await page.getByText('Crawl options').click();
  await expect(page.getByLabel('Link depth')).toHaveValue('1');
  await expect(page.getByLabel('Most pages')).toHaveValue('150');
  await expect(page.getByLabel('Renderer')).toHaveValue('auto');
  await expect(page.getByLabel('Respect robots.txt')).toBeChecked();
  await checkPage(page, 'add-docs');

  await page.getByLabel('Library id').fill('widgetry/docs');
  await page.getByLabel('Name', { exact: true }).fill('Widgetry');
  await page.getByLabel('Seed URLs, one per line').fill(`${site}/index.html`);
  await page.getByRole('button', { name: 'Start crawl' }).click();
  await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: 'Crawl of widgetry/docs' })).toBeVisible();

  // The reference page waits for the test; everything else is crawled meanwhile, and the 404 shows as it happens.
  await expect(page.getByText(`${site}/missing.html: HTTP 404`)).toBeVisible();
  await expect(counter('Pages crawled')).not.toHaveText('0');
  await expect(counter('Pages failed')).toHaveText('1');
  await expect(page.locator('.job-state .state')).toHaveText('running');
  await expect(page.getByRole('button', { name: 'Cancel job' })).toBeVisible();
  await checkPage(page, 'crawl-running');

  expect((await page.request.get(`${site}/__release`)).status()).toBe(204);
  const open = page.getByRole('link', { name: 'Open library widgetry/docs' });
  await expect(open).toBeVisible();
  await expect(page.locator('.job-state .state')).toHaveText('completed');
  await expect(page.getByRole('button', { name: 'Cancel job' })).toHaveCount(0);
  await expect(counter('Pages failed')).toHaveText('1');
  await expect(page.getByText(`${site}${HELD_PAGE}`)).toHaveCount(0);
  await checkPage(page, 'crawl-completed');

  await page.getByRole('link', { name: 'Add docs' }).first().click();
  const recent = page.getByRole('row', { name: /widgetry\/docs/ });
  await expect(recent).toContainText('completed');
  await page.getByRole('link', { name: /crawl/ }).first().click();
  await expect(open).toBeVisible();
  await open.click();
  await expect(page.getByRole('heading', { name: 'Widgetry', level: 1 })).toBeVisible();
});

test('a running crawl can be cancelled from its page', async () => {
  expect((await page.request.get(`${site}/__hold`)).status()).toBe(204);
  await page.goto('/add');
  await page.getByLabel('Library id').fill('widgetry/cancelled');
  await page.getByLabel('Name', { exact: true }).fill('Cancelled crawl');
  await page.getByLabel('Seed URLs, one per line').fill(`${site}${HELD_PAGE}`);
  await page.getByRole('button', { name: 'Start crawl' }).click();
  await expect(page.locator('.job-state .state')).toHaveText('running');
  await page.getByRole('button', { name: 'Cancel job' }).click();
  await expect(page.getByText('The job was cancelled; nothing was written to the library.')).toBeVisible();
  expect((await page.request.get(`${site}/__release`)).status()).toBe(204);
  expect((await page.request.get(`${base}/api/libraries/widgetry/cancelled`)).status()).toBe(404);
});

test('the libraries table lists the crawled library with its share embedded, and filters', async () => {
  await page.goto('/libraries');
  const row = page.getByRole('row', { name: /Widgetry/ });
  await expect(row).toContainText('widgetry/docs');
  await expect(row).toContainText(`${site}/index.html`);
  await expect(row).toContainText(/100 % \(\d+ of \d+\)/);
  await checkPage(page, 'libraries');
  await page.getByLabel('Filter libraries').fill('nothing like this');
  await expect(page.getByText('0 of 1 libraries')).toBeVisible();
  await page.getByLabel('Filter libraries').fill('widgetry');
  await expect(page.getByText('1 of 1 libraries')).toBeVisible();
});

test('a library page shows its metadata and chunks, and its search box ranks chunks with their source links', async () => {
  await page.getByRole('link', { name: 'Widgetry' }).click();
  await expect(page.getByRole('heading', { name: 'Widgetry', level: 1 })).toBeVisible();
  await expect(page.locator('.metadata')).toContainText('widgetry/docs');
  await expect(page.getByRole('button', { name: 'Embed the rest' })).toHaveCount(0);
  const first = page.locator('.chunk-list details').first();
  await first.locator('summary').click();
  await expect(first.locator('pre')).toBeVisible();

  await page.getByLabel('Question or keywords').fill('configure widget options');
  await page.getByRole('button', { name: 'Search' }).click();
  const results = page.locator('.results > li');
  await expect(results.first()).toBeVisible();
  await expect(page.getByText(/results for “configure widget options” \(hybrid ranking\)/)).toBeVisible();
  await expect(results.first().getByRole('link')).toHaveAttribute('href', new RegExp(`^${site}/`));
  await expect(results.first()).toContainText(/\d+ tokens/);
  await checkPage(page, 'library');
});

test('"Embed the rest" drives /api/embed to the end with a progress bar', async () => {
  const chunks = Array.from({ length: 260 }, (_, i) => ({
    id: `c${i}`,
    title: `Part ${i}`,
    content: `Gadget part ${i} explains how gadgets ${i % 7 === 0 ? 'connect to widgets' : 'store settings'} in detail.`,
  }));
  const ingested = await page.request.post(`${base}/api/ingest`, {
    data: { libraryId: 'acme/gadgets', name: 'Acme Gadgets', chunks, skipEmbeddings: true },
  });
  expect(ingested.status()).toBe(200);

  await page.goto('/libraries/acme/gadgets');
  await expect(page.getByText('0 of 260 chunks have a vector.')).toBeVisible();
  await checkPage(page, 'library-not-embedded');
  await page.getByRole('button', { name: 'Embed the rest' }).click();
  await expect(page.getByText('Done: 260 of 260 chunks embedded.')).toBeVisible();
  await expect(page.getByRole('progressbar', { name: 'Chunks embedded' })).toHaveAttribute('value', '260');
  await expect(page.locator('.metadata')).toContainText('100 % (260 of 260)');
  await page.getByRole('link', { name: 'Libraries', exact: true }).first().click();
  await expect(page.getByRole('row', { name: /Acme Gadgets/ })).toContainText('100 % (260 of 260)');
  await checkPage(page, 'libraries-two');
});

test('only http(s) URLs become links: a javascript: or data: source or chunk URL is shown as text', async () => {
  const hostile = [
    'javascript:alert(document.domain)',
    'data:text/html,<script>alert(1)</script>',
    'JaVaScRiPt:void(0)',
  ];
  const ingested = await page.request.post(`${base}/api/ingest`, {
    data: {
      libraryId: 'acme/hostile-links',
      name: 'Hostile links',
      sourceUrl: hostile[0],
      chunks: [
        ...hostile.map((url, i) => ({ id: `h${i}`, title: `Hostile ${i}`, content: `Hostile link ${i}.`, url })),
        { id: 'ok', title: 'Fine', content: 'A fine link.', url: 'https://docs.example.com/fine' },
      ],
    },
  });
  expect(ingested.status()).toBe(200);

  await page.goto('/libraries/acme/hostile-links');
  await expect(page.locator('.metadata')).toContainText(hostile[0]!);
  for (const title of ['Hostile 0', 'Hostile 1', 'Hostile 2', 'Fine']) {
    await page.locator('summary', { hasText: title }).click();
  }
  for (const url of hostile) await expect(page.getByText(url, { exact: true }).first()).toBeVisible();
  await expect(page.getByRole('link', { name: 'https://docs.example.com/fine' })).toHaveAttribute(
    'href',
    'https://docs.example.com/fine',
  );
  const hrefs = await page.locator('a[href]').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
  expect(hrefs.filter((href) => !/^(https?:\/\/|\/|#)/i.test(href))).toEqual([]);

  await page.getByLabel('Question or keywords').fill('hostile link');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Hostile 1', level: 3 })).toBeVisible();
  const afterSearch = await page
    .locator('a[href]')
    .evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
  expect(afterSearch.filter((href) => !/^(https?:\/\/|\/|#)/i.test(href))).toEqual([]);

  expect((await page.request.delete(`${base}/api/libraries/acme/hostile-links`)).status()).toBe(200);
});

test('deleting a library asks for a confirmation that names it', async () => {
  await page.goto('/libraries/widgetry/docs');
  await page.getByRole('button', { name: 'Delete library' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete Widgetry?' });
  await expect(dialog).toContainText('widgetry/docs');
  await checkPage(page, 'library-delete-confirm');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect((await page.request.get(`${base}/api/libraries/widgetry/docs`)).status()).toBe(200);

  await page.getByRole('button', { name: 'Delete library' }).click();
  await dialog.getByRole('button', { name: 'Delete widgetry/docs' }).click();
  await expect(page.getByText('Library widgetry/docs was deleted.')).toBeVisible();
  await expect(page.getByRole('row', { name: /widgetry\/docs/ })).toHaveCount(0);
  expect((await page.request.get(`${base}/api/libraries/widgetry/docs`)).status()).toBe(404);
});

test('the header links to Bull Board and the API reference, which open with the session', async () => {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Job queues' })).toHaveAttribute('href', '/admin/queues');
  await expect(nav.getByRole('link', { name: 'API reference' })).toHaveAttribute('href', '/api/docs');
  await nav.getByRole('link', { name: 'Job queues' }).click();
  await expect(page).toHaveURL(/\/admin\/queues/);
  await expect(page.getByText('Docshelf queues').first()).toBeVisible();
  await page.goBack();
  await nav.getByRole('link', { name: 'API reference' }).click();
  await expect(page).toHaveURL(/\/api\/docs$/);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Docshelf');
  await page.goBack();
  await expect(page.getByRole('heading', { name: 'Libraries', level: 1 })).toBeVisible();
});

test('the dashboard works from the keyboard, with a visible focus', async () => {
  await page.goto('/libraries');
  // The first Tab must land on the rendered page, not on the document before the app has drawn its links.
  await expect(page.getByRole('heading', { name: 'Libraries', level: 1 })).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Docshelf', exact: true })).toBeFocused();
  expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'API keys' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'API keys', level: 1 })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Key name')).toBeFocused();
  await page.keyboard.type('keyboard key');
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('Full key')).toHaveValue(/^dsk_/);
});

test('logging out ends the session: dashboard pages lead to the login page again', async () => {
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page.getByRole('heading', { name: 'Log in to Docshelf' })).toBeVisible();
  expect((await page.request.get(`${base}/api/keys`)).status()).toBe(401);
  await page.goto('/libraries');
  await expect(page).toHaveURL(/\/login\?next=%2Flibraries$/);
});

test('unknown dashboard pages say so; API paths are never answered with the dashboard', async () => {
  await logIn();
  await expect(page.getByRole('heading', { name: 'Libraries', level: 1 })).toBeVisible();
  await page.goto('/jobs/00000000-0000-4000-8000-000000000000');
  await expect(page.getByRole('heading', { name: 'Job not found' })).toBeVisible();
  await page.goto('/libraries/no/such-library');
  await expect(page.getByRole('heading', { name: 'Library not found' })).toBeVisible();
  await checkPage(page, 'library-not-found');
  const api = await page.request.get(`${base}/api/nothing-here`, { headers: { accept: 'text/html' } });
  expect(api.status()).toBe(404);
  expect(await api.json()).toMatchObject({ code: 'NOT_FOUND' });
});

function counter(name: string) {
  return page.locator('.counters div', { has: page.getByText(name, { exact: true }) }).locator('dd');
}
