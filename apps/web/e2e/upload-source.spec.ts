import { buildZip, type ArchiveTree } from '@docshelf/testing/targets/build-archive';
import { expect, test, type Page } from '@playwright/test';
import { checkPage } from './support/check-page';
import { ADMIN, e2eEnv } from './support/env';

// After dashboard.spec.ts (files run in name order): the user's day there starts with no library and no job.

/** A built docs site: an index linking to two pages, the same menu and footer on each, and a page no link reaches. */
function builtSite(): ArchiveTree {
  const page = (title: string, body: string) =>
    [
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} | Sprocket</title></head><body>`,
      '<nav><a href="index.html">Home</a> <a href="guide/install.html">Install</a> <a href="guide/tune.html">Tune</a></nav>',
      `<main><h1>${title}</h1>${body}</main>`,
      '<footer><p>Sprocket docs are built with Pagesmith 2.1.</p></footer>',
      '</body></html>',
    ].join('\n');
  const nested = (html: string) => html.replaceAll('href="', 'href="../');
  return {
    'html/index.html': page('Sprocket', '<p>Sprockets turn the gears of your dashboards.</p>'),
    'html/guide/install.html': nested(page('Install', '<p>Install it with <code>npm install sprocket</code>.</p>')),
    'html/guide/tune.html': nested(page('Tune', '<p>Set <code>SPROCKET_TEETH</code> before the first turn.</p>')),
    'html/old/draft.html': page('Draft', '<p>An unfinished page no link leads to.</p>'),
  };
}

async function logIn(page: Page): Promise<void> {
  await page.goto('/add');
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByRole('heading', { name: 'Add docs', level: 1 })).toBeVisible();
}

async function fillUploadForm(page: Page, libraryId: string, file: { name: string; buffer: Buffer }): Promise<void> {
  await page.getByLabel(/Upload a built site or Markdown files/).check();
  await expect(page.getByRole('heading', { name: 'Upload a built site or Markdown files' })).toBeVisible();
  await page.getByLabel('Library id').fill(libraryId);
  await page.getByLabel('Name', { exact: true }).fill('Sprocket');
  await page.getByLabel(/^Archive/).setInputFiles({ ...file, mimeType: 'application/octet-stream' });
}

test('the Add docs page uploads a zip of a built site, and the job reads its pages under the base URL', async ({
  browser,
}) => {
  const context = await browser.newContext({ baseURL: e2eEnv('baseUrl'), viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  try {
    await logIn(page);
    await fillUploadForm(page, 'sprocket/site', { name: 'site.zip', buffer: await buildZip(builtSite()) });
    await page.getByLabel(/Published at/).fill('https://sprocket.example.com/docs/');
    await checkPage(page, 'add-docs-archive');
    await page.getByRole('button', { name: 'Upload and read' }).click();

    await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('heading', { name: 'Archive ingestion into sprocket/site' })).toBeVisible();
    await expect(page.locator('.job-state .state')).toHaveText('completed');
    const counter = (name: string) => page.locator('.counters div').filter({ hasText: name }).locator('dd');
    await expect(counter('Pages and files read')).toHaveText('3');
    await expect(counter('Chunks written')).not.toHaveText('0');
    // The page no link reaches is named among the files not read, under its published URL.
    const notRead = page.getByRole('region', { name: 'Files not read' });
    await expect(notRead.getByRole('listitem')).toHaveCount(1);
    await expect(notRead).toContainText('https://sprocket.example.com/docs/old/draft.html');
    await checkPage(page, 'archive-completed');

    await page.getByRole('link', { name: 'Open library sprocket/site' }).click();
    await expect(page.getByRole('heading', { name: 'Sprocket', level: 1 })).toBeVisible();
    // Chunks link to their pages where the site is published.
    await expect(page.locator('a[href="https://sprocket.example.com/docs/guide/tune.html"]').first()).toBeAttached();
  } finally {
    await context.close();
  }
});

test('the form shows the API’s refusal of a field; an upload that is no archive fails its job with its message', async ({
  browser,
}) => {
  const base = e2eEnv('baseUrl');
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  try {
    await logIn(page);
    await fillUploadForm(page, 'sprocket notes', { name: 'notes.zip', buffer: Buffer.from('not an archive at all') });
    await page.getByRole('button', { name: 'Upload and read' }).click();
    // Refused before any job: the form stays, with the API's message.
    await expect(page.getByRole('alert')).toContainText('libraryId may contain only letters, digits');
    await expect(page).toHaveURL(/\/add$/);
    await checkPage(page, 'add-docs-archive-refused');

    await page.getByLabel('Library id').fill('sprocket/notes');
    await page.getByRole('button', { name: 'Upload and read' }).click();

    await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('heading', { name: 'Archive ingestion into sprocket/notes' })).toBeVisible();
    await expect(page.locator('.job-state .state')).toHaveText('failed');
    await expect(page.getByRole('alert')).toContainText(/^The job failed: .+\(ARCHIVE_INVALID\)$/);
    await checkPage(page, 'archive-failed');
    expect((await page.request.get(`${base}/api/libraries/sprocket/notes`)).status()).toBe(404);
  } finally {
    await context.close();
  }
});
