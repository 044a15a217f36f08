// `npm test`: lint (ESLint and Prettier) and types, then jest (service and reliability suites), then the dashboard in
// Chromium (Playwright). npm's `pretest` has built the API, the worker and the dashboard before this runs.
// Ends with the Node it ran on and one line adding both runs, `N passed, N failed, N skipped`, and exits non-zero if
// either failed.
// Arguments are passed to jest (`npm test -- test/libraries.e2e.test.ts` runs that file, and no browser tests).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const bin = (name) => path.resolve('node_modules/.bin', name);
const run = (command, args, env = {}) =>
  spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;

const countsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-test-counts-'));
const readCounts = (file, exitCode) => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // A run that crashed before reporting counts is one failure.
    return { passed: 0, failed: exitCode === 0 ? 0 : 1, skipped: 0 };
  }
};

const jestArgs = process.argv.slice(2);
// Process-based tests run the compiled API and worker (apps/*/dist, built by `pretest`). Lint runs with the whole
// suite, not for one file.
for (const step of [...(jestArgs.length === 0 ? ['lint'] : []), 'typecheck']) {
  if (run('npm', ['run', step]) !== 0) {
    process.stdout.write(`\nnpm run ${step} failed\n0 passed, 1 failed, 0 skipped\n`);
    process.exit(1);
  }
}

const jestFile = path.join(countsDir, 'jest.json');
const jestCode = run(bin('jest'), jestArgs, { DOCSHELF_TEST_COUNTS: jestFile });
const runs = [{ code: jestCode, counts: readCounts(jestFile, jestCode) }];

if (jestArgs.length === 0) {
  const browserFile = path.join(countsDir, 'playwright.json');
  const browserCode = run(bin('playwright'), ['test', '-c', 'apps/web/playwright.config.ts'], {
    DOCSHELF_TEST_COUNTS: browserFile,
  });
  runs.push({ code: browserCode, counts: readCounts(browserFile, browserCode) });
}
fs.rmSync(countsDir, { recursive: true, force: true });

const total = runs.reduce(
  (sum, { counts }) => ({
    passed: sum.passed + counts.passed,
    failed: sum.failed + counts.failed,
    skipped: sum.skipped + counts.skipped,
  }),
  { passed: 0, failed: 0, skipped: 0 },
);
process.stdout.write(`\nRan on Node ${process.version} (${process.execPath})`);
process.stdout.write(`\n${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
process.exit(runs.some(({ code }) => code !== 0) || total.failed > 0 ? 1 : 0);
