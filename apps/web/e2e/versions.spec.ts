import { expect, test } from '@playwright/test';
import { checkPage } from './support/check-page';
import { ADMIN, e2eEnv } from './support/env';

// After dashboard.spec.ts and git-source.spec.ts (files run in name order): their libraries are listed too.

test("the libraries table lists a library's versions in one row, newest first, and a menu picks one", async ({
  browser,
}) => {
  const base = e2eEnv('baseUrl');
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto('/libraries');
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('heading', { name: 'Libraries', level: 1 })).toBeVisible();
    const before = await page.request.get(`${base}/api/libraries`);
    const librariesBefore = ((await before.json()) as { libraries: unknown[] }).libraries.length;

    // 1.10.0 first, so neither creation order nor string order would put it first: semver does.
    for (const version of ['1.10.0', '1.2.0']) {
      const ingested = await page.request.post(`${base}/api/ingest`, {
        data: {
          libraryId: `demo/lib@${version}`,
          name: 'Demo client',
          sourceUrl: `https://demo.example/${version}/`,
          chunks: [{ id: 'setup', content: `Version ${version}: start the demo client with demo.start().` }],
        },
      });
      expect(ingested.status()).toBe(200);
    }

    await page.reload();
    const row = page.getByRole('row', { name: /Demo client/ });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText('demo/lib');
    await expect(row).toContainText('https://demo.example/1.10.0/');
    const menu = row.getByLabel('Version of demo/lib');
    await expect(menu.locator('option')).toHaveText(['1.10.0', '1.2.0']);
    await expect(menu).toHaveValue('demo/lib@1.10.0');
    await expect(row.getByRole('link', { name: 'Demo client' })).toHaveAttribute(
      'href',
      '/libraries/demo/lib%401.10.0',
    );
    // One row per library, whatever its number of versions.
    await expect(page.getByText(`of ${librariesBefore + 1} libraries`)).toBeVisible();
    await checkPage(page, 'libraries-versions');

    await menu.selectOption('demo/lib@1.2.0');
    await expect(row).toContainText('https://demo.example/1.2.0/');
    await row.getByRole('link', { name: 'Demo client' }).click();
    await expect(page).toHaveURL(/\/libraries\/demo\/lib%401\.2\.0$/);
    await expect(page.locator('.metadata')).toContainText('demo/lib@1.2.0');
  } finally {
    await context.close();
  }
});
