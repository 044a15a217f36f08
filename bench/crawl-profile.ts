/**
 * Where the time of a browser render goes: renders every page of a site through BrowserPool at concurrency 4 and
 * prints the time spent per stage (context, network guard, document fetch, new page, goto, settle, read, close), then
 * a bare Playwright loop (one browser, one context, 4 tabs, goto + content()) over the same pages, for the ratio,
 * and the same loop extracting each page (Docshelf's extractor on the loop's thread): what extraction alone costs.
 * `npx tsx bench/crawl-profile.ts [generated|nodejs-doc|git-doc]`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BrowserPool, createAddressPolicy, extractPage, findChromium } from '@docshelf/crawler';
import { chromium } from 'playwright-core';
import { generateDocsSite } from '../test/fixtures/generated-docs-site';
import { serveFixtures } from '@docshelf/testing/e2e/fixture-site';

const DOCS = path.resolve(__dirname, '../.cache/debian-docs/usr/share/doc');

async function main() {
  const which = process.argv[2] ?? 'generated';
  const generated = generateDocsSite();
  const server =
    which === 'generated'
      ? await serveFixtures({ routes: generated.route })
      : await serveFixtures({ root: which === 'git-doc' ? path.join(DOCS, 'git-doc') : path.join(DOCS, 'nodejs/api') });
  const seed = `${server.origin}${which === 'generated' ? generated.indexPath : which === 'git-doc' ? '/git.html' : '/index.html'}`;
  const seedHtml = await (await fetch(seed)).text();
  const urls = [seed, ...extractPage(seedHtml, seed).links.filter((u) => !u.endsWith('/all.html'))].slice(0, 150);
  const policy = createAddressPolicy({ allowlist: ['127.0.0.1'] });
  const chromiumPath = findChromium(process.env.CHROMIUM_PATH)!;
  const legacy = process.env.PROFILE_LEGACY === '1';
  // The pool as it was before this work, with the same stage timers, for comparison (not part of the product).
  // PROFILE_LEGACY=1 loads a copy of an earlier pool, placed (uncommitted) beside the current one with the same timers.
  const legacyPath = path.join(__dirname, '../packages/crawler/src/browser/old-browser-pool.profile.ts');
  const legacyModule =
    legacy && fs.existsSync(legacyPath)
      ? ((await import(legacyPath)) as { BrowserPool: unknown; stageTotals: Record<string, number> })
      : undefined;
  const Pool = (legacyModule?.BrowserPool ?? BrowserPool) as typeof BrowserPool;
  const pool = new Pool({ chromiumPath, maxPages: 4, policy, pageMaxMb: 512 });
  await pool.render(urls[0]!);
  const totals: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < urls.length) {
        const page = await pool.render(urls[next++]!);
        for (const [stage, ms] of Object.entries(page.timings ?? {})) totals[stage] = (totals[stage] ?? 0) + ms;
      }
    }),
  );
  const ms = performance.now() - started;
  const stages = legacyModule ? legacyModule.stageTotals : totals;
  console.log(
    `${legacy ? 'legacy' : 'current'} pool, ${which}: ${urls.length} pages in ${(ms / 1000).toFixed(1)} s = ${(urls.length / (ms / 1000)).toFixed(2)} pages/s`,
  );
  const sum = Object.values(stages).reduce((a, b) => a + b, 0);
  for (const [stage, total] of Object.entries(stages)) {
    console.log(
      `  ${stage.padEnd(8)} ${(total / urls.length).toFixed(1).padStart(7)} ms/page  ${((100 * total) / sum).toFixed(0).padStart(3)}%`,
    );
  }
  await pool.close();
  const bareMs = await bareLoop(urls, chromiumPath, false);
  console.log(
    `bare Playwright loop: ${(urls.length / (bareMs / 1000)).toFixed(2)} pages/s; pool / bare = ${(bareMs / ms).toFixed(2)}`,
  );
  const extractingMs = await bareLoop(urls, chromiumPath, true);
  console.log(
    `bare loop + extractPage of each page: ${(urls.length / (extractingMs / 1000)).toFixed(2)} pages/s; / bare = ${(bareMs / extractingMs).toFixed(2)}`,
  );
  await server.close();
}

/** The bare loop of the benchmark; with `extract`, each page's HTML also goes through Docshelf's extractor. */
async function bareLoop(urls: string[], executablePath: string, extract: boolean): Promise<number> {
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const context = await browser.newContext();
  const tabs = await Promise.all(Array.from({ length: 4 }, () => context.newPage()));
  await tabs[0]!.goto(urls[0]!);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    tabs.map(async (tab) => {
      while (next < urls.length) {
        const url = urls[next++]!;
        await tab.goto(url, { waitUntil: 'load' });
        const html = await tab.content();
        if (extract) extractPage(html, url);
      }
    }),
  );
  const ms = performance.now() - started;
  await browser.close();
  return ms;
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
