import { expect, test, type Page } from '@playwright/test';
import { checkPage } from './support/check-page';
import { ADMIN, e2eEnv } from './support/env';

// After dashboard.spec.ts (files run in name order): the user's day there starts with no library and no job.

const DAY_MS = 24 * 3_600_000;

async function logIn(page: Page): Promise<void> {
  await page.goto('/add');
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByRole('heading', { name: 'Add docs', level: 1 })).toBeVisible();
}

const counter = (page: Page, name: string) =>
  page.locator('.counters div', { has: page.getByText(name, { exact: true }) }).locator('dd');

/** The value beside `name` in the library page's schedule. */
const scheduled = (page: Page, name: string) =>
  page.locator('.schedule dt', { hasText: name }).locator('xpath=following-sibling::dd[1]');

test('a crawl set to run daily shows its schedule; Refresh now crawls again with pages unchanged; the schedule stops', async ({
  browser,
}) => {
  const base = e2eEnv('baseUrl');
  const site = e2eEnv('siteOrigin');
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  try {
    await logIn(page);
    await page.getByLabel('Library id').fill('widgetry/guides');
    await page.getByLabel('Name', { exact: true }).fill('Widgetry guides');
    // Two URLs are crawled exactly, as plain HTML: the test waits on the schedule, not on Chromium.
    await page
      .getByLabel('Seed URLs, one per line')
      .fill(`${site}/guide/getting-started.html\n${site}/guide/configuration.html`);
    await expect(page.getByLabel('Crawl again')).toHaveValue('');
    await page.getByLabel('Crawl again').selectOption({ label: 'daily' });
    await page.getByText('Crawl options').click();
    await page.getByLabel('Renderer').selectOption('http');
    await checkPage(page, 'add-docs-crawl-again');
    await page.getByRole('button', { name: 'Start crawl' }).click();

    await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('heading', { name: 'Crawl of widgetry/guides' })).toBeVisible();
    await expect(page.locator('.job-state .state')).toHaveText('completed');
    await expect(counter(page, 'Pages crawled')).toHaveText('2');

    // The libraries table marks the library crawled again on a schedule.
    await page.goto('/libraries');
    const row = page.getByRole('row', { name: /Widgetry guides/ });
    await expect(row).toContainText('refreshed daily');
    await checkPage(page, 'libraries-refreshed');

    await row.getByRole('link', { name: 'Widgetry guides' }).click();
    await expect(page.getByRole('heading', { name: 'Widgetry guides', level: 1 })).toBeVisible();
    const refresh = page.getByRole('region', { name: 'Refresh' });
    await expect(scheduled(page, 'Crawled again')).toHaveText('daily');
    await expect(scheduled(page, 'Last refreshed')).toHaveText('never');
    await expect(refresh.getByLabel('Schedule')).toHaveValue('1d');
    // The first refresh is one interval after the crawl asked for it.
    const next = Date.parse((await scheduled(page, 'Next refresh').locator('time').getAttribute('datetime')) ?? '');
    expect(Math.abs(next - (Date.now() + DAY_MS))).toBeLessThan(10 * 60_000);
    await checkPage(page, 'library-refresh');

    await refresh.getByRole('button', { name: 'Refresh now' }).click();
    await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('heading', { name: 'Crawl of widgetry/guides' })).toBeVisible();
    await expect(page.locator('.job-state .state')).toHaveText('completed');
    await expect(counter(page, 'Pages crawled')).toHaveText('2');
    await expect(counter(page, 'Pages unchanged')).toHaveText('2');
    await checkPage(page, 'refresh-completed');

    await page.getByRole('link', { name: 'Open library widgetry/guides' }).first().click();
    await expect(scheduled(page, 'Crawled again')).toHaveText('daily');
    await expect(scheduled(page, 'Last refreshed').locator('time')).toBeVisible();

    await refresh.getByLabel('Schedule').selectOption('off');
    await refresh.getByRole('button', { name: 'Set schedule' }).click();
    await expect(refresh.getByText('Not refreshed on a schedule.')).toBeVisible();
    await expect(refresh.getByLabel('Schedule')).toHaveValue('off');
    const library = await page.request.get(`${base}/api/libraries/widgetry/guides`);
    expect(((await library.json()) as { library: { refresh?: unknown } }).library.refresh).toBeUndefined();
    await checkPage(page, 'library-refresh-off');
  } finally {
    await context.close();
  }
});

test('a library ingested as a crawl without kept settings shows the API’s refusal to refresh it', async ({
  browser,
}) => {
  const base = e2eEnv('baseUrl');
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  try {
    await logIn(page);
    for (const [libraryId, sourceType] of [
      ['widgetry/pasted', 'crawl'],
      ['widgetry/notes', 'llms_txt'],
    ] as const) {
      const ingested = await page.request.post(`${base}/api/ingest`, {
        data: {
          libraryId,
          name: 'Pasted pages',
          sourceType,
          chunks: [{ id: 'intro', content: 'Widgets are configured in widgetry.toml.' }],
        },
      });
      expect(ingested.status()).toBe(200);
    }

    // Only a crawled or git library has a refresh.
    await page.goto('/libraries/widgetry/notes');
    await expect(page.locator('.metadata')).toContainText('widgetry/notes');
    await expect(page.getByRole('heading', { name: 'Refresh' })).toHaveCount(0);

    await page.goto('/libraries/widgetry/pasted');
    const refresh = page.getByRole('region', { name: 'Refresh' });
    await expect(refresh.getByText('Not refreshed on a schedule.')).toBeVisible();
    await refresh.getByRole('button', { name: 'Refresh now' }).click();
    await expect(refresh.getByRole('alert')).toContainText('has no kept source');
    await expect(page).toHaveURL(/\/libraries\/widgetry\/pasted$/);
    await refresh.getByLabel('Schedule').selectOption({ label: 'weekly' });
    await refresh.getByRole('button', { name: 'Set schedule' }).click();
    await expect(refresh.getByRole('alert')).toContainText('has no kept source');
    await expect(refresh.getByText('Not refreshed on a schedule.')).toBeVisible();
    await checkPage(page, 'library-refresh-refused');
  } finally {
    await context.close();
  }
});
