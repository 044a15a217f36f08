import path from 'node:path';
import { defineConfig } from '@playwright/test';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The dashboard in the system Chromium against a real API, worker, Redis and the fixture docs site (global setup).
 * One worker: the tests walk one service through a user's day, and the machine is small.
 */
export default defineConfig({
  testDir: './e2e',
  globalSetup: './e2e/support/global-setup.ts',
  workers: 1,
  fullyParallel: false,
  // A crawl renders pages in Chromium on a shared machine: allow it time, but every wait is for an event.
  timeout: 180_000,
  expect: { timeout: 60_000 },
  outputDir: path.resolve(__dirname, '../../.cache/playwright-results'),
  reporter: [['list'], [path.resolve(__dirname, 'e2e/support/summary-reporter.cjs')]],
  use: {
    launchOptions: { executablePath: chromium },
    trace: 'retain-on-failure',
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
});
