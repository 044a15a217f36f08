import { expect, test } from '@playwright/test';
import { checkPage } from './support/check-page';
import { ADMIN, e2eEnv } from './support/env';

// After dashboard.spec.ts (files run in name order): the user's day there starts with no library and no job.

test('the Add docs page reads a git repository at a tag, and the job links to its library', async ({ browser }) => {
  const context = await browser.newContext({ baseURL: e2eEnv('baseUrl'), viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto('/add');
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('heading', { name: 'Add docs', level: 1 })).toBeVisible();

    await page.getByLabel(/Read a git repository/).check();
    await expect(page.getByRole('heading', { name: 'Read a git repository' })).toBeVisible();
    await checkPage(page, 'add-docs-git');
    await page.getByLabel('Library id').fill('widget/git');
    await page.getByLabel('Name', { exact: true }).fill('Widget');
    await page.getByLabel('Repository URL').fill(`${e2eEnv('gitOrigin')}/widget.git`);
    await page.getByLabel(/Branch, tag or commit/).fill('v1.0.0');
    await page.getByLabel(/Page URL template/).fill('https://widget.example.com/{path}');
    await page.getByRole('button', { name: 'Start reading' }).click();

    await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('heading', { name: 'Git ingestion into widget/git' })).toBeVisible();
    await expect(page.locator('.job-state .state')).toHaveText('completed');
    const counter = (name: string) => page.locator('.counters div').filter({ hasText: name }).locator('dd');
    await expect(counter('Files read')).toHaveText('2');
    await checkPage(page, 'git-completed');
    await page.getByRole('link', { name: 'Open library widget/git' }).click();
    await expect(page.getByRole('heading', { name: 'Widget', level: 1 })).toBeVisible();
    // The chunk list links each chunk to its page, the template's URL.
    await expect(page.locator('a[href="https://widget.example.com/docs/install"]').first()).toBeAttached();
  } finally {
    await context.close();
  }
});
