/**
 * The crawl benchmark's baselines, each run in a process of its own so that its process tree (Node and Chromium) can
 * be measured alone: `tsx bench/crawl-baselines.ts <playwright|crawlee|http|http-cheerio> <urls.json> <concurrency>
 * <chromium>`. Prints one JSON line: pages loaded, pages failed, milliseconds from the first request to the last page
 * read (and for the HTTP loops, when each page was done, in ms from the start, in the order they were done).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { load } from 'cheerio';
import { chromium } from 'playwright-core';

interface Outcome {
  pages: number;
  failed: number;
  ms: number;
  doneAt?: number[];
}

/** A bare Playwright loop: one browser, `concurrency` tabs, goto + content() for each URL. */
async function playwrightLoop(urls: string[], concurrency: number, executablePath: string): Promise<Outcome> {
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const context = await browser.newContext();
  const tabs = await Promise.all(Array.from({ length: concurrency }, () => context.newPage()));
  let next = 0;
  let pages = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    tabs.map(async (tab) => {
      while (next < urls.length) {
        const url = urls[next++]!;
        try {
          await tab.goto(url, { waitUntil: 'load', timeout: 30_000 });
          if ((await tab.content()).length > 0) pages += 1;
        } catch {
          failed += 1;
        }
      }
    }),
  );
  const ms = performance.now() - started;
  await browser.close();
  return { pages, failed, ms };
}

/** Crawlee's PlaywrightCrawler over the same list, at a fixed concurrency, reading each page's HTML. */
async function crawleeCrawler(urls: string[], concurrency: number, executablePath: string): Promise<Outcome> {
  process.env.CRAWLEE_STORAGE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'crawlee-bench-'));
  const { PlaywrightCrawler, Configuration } = await import('@crawlee/playwright');
  const config = new Configuration({ persistStorage: false, purgeOnStart: true });
  let pages = 0;
  const crawler = new PlaywrightCrawler(
    {
      minConcurrency: concurrency,
      maxConcurrency: concurrency,
      maxRequestRetries: 0,
      launchContext: {
        launchOptions: {
          executablePath,
          headless: true,
          args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
        },
      },
      async requestHandler({ page }) {
        if ((await page.content()).length > 0) pages += 1;
      },
    },
    config,
  );
  const started = performance.now();
  const stats = await crawler.run(urls);
  const ms = performance.now() - started;
  return { pages, failed: stats.requestsFailed, ms };
}

/** Plain HTTP: fetch() and read the body, `concurrency` at a time; with `parse`, cheerio's load of each page too. */
async function httpFetch(urls: string[], concurrency: number, parse: boolean): Promise<Outcome> {
  let next = 0;
  let pages = 0;
  let failed = 0;
  const doneAt: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < urls.length) {
        const url = urls[next++]!;
        try {
          const response = await fetch(url);
          const html = await response.text();
          if (parse) load(html);
          if (html.length > 0 && response.ok) pages += 1;
          else failed += 1;
        } catch {
          failed += 1;
        }
        doneAt.push(Math.round(performance.now() - started));
      }
    }),
  );
  return { pages, failed, ms: performance.now() - started, doneAt };
}

async function main() {
  const [mode, urlsFile, concurrencyArg, executablePath] = process.argv.slice(2);
  const urls = JSON.parse(fs.readFileSync(urlsFile!, 'utf8')) as string[];
  const concurrency = Number(concurrencyArg);
  const outcome =
    mode === 'playwright'
      ? await playwrightLoop(urls, concurrency, executablePath!)
      : mode === 'crawlee'
        ? await crawleeCrawler(urls, concurrency, executablePath!)
        : await httpFetch(urls, concurrency, mode === 'http-cheerio');
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
