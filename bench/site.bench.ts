/**
 * Whole sites (`npm run bench -- site`, or alone: `npx tsx --conditions=@docshelf/source bench/site.bench.ts`):
 * Docshelf crawls two real documentation sites served on 127.0.0.1, renderer `auto`, 4 pages at once, no politeness,
 * asynchronously (`Prefer: respond-async`, followed through the job's event stream):
 * - Debian's rust-doc (about 32,000 pages), 10,000 of them, from /index.html, the site's front page, which leads to
 *   the books (the Book, the Reference, Rust by Example, the Rustonomicon...) and to std, core and alloc. Both
 *   candidate seeds reach 10,000 pages well within maxDepth 10 (/index.html: 3,002 pages within 3 links, 19,903
 *   within 4; /std/index.html: 1,969 within 2, 18,916 within 3), so the page budget ends the crawl either way; the
 *   front page is what a user crawling the whole site gives, and its pages mix long books with API pages;
 * - PostgreSQL's manual (about 1,170 pages), all of it.
 *
 * For each, beside a bare loop measured in the same run (Node's fetch and cheerio.load of the URLs the crawl fetched,
 * 4 at a time): pages/s for each successive 1,000 pages (from the job's progress events, each timed as it arrived)
 * and the last 1,000 against the first; CPU ms a page and peak memory of each process tree (worker with Chromium, API)
 * and of Redis; Redis's used_memory every second; the crawl's phases. Then on rust-doc: a worker SIGKILLed halfway and
 * replaced, a crawl cancelled at 90%, and two crawl workers sharing one crawl (plus a short run with politeness on).
 *
 * Knobs: BENCH_SITE_SITES (rust-doc,postgresql), BENCH_SITE_PAGES (rust-doc's pages, 10000), BENCH_SITE_RUNS
 * (main,kill,cancel,two-workers), BENCH_SITE_ENV='{"NAME":"value"}' (laid over the benchmark's settings for Docshelf's
 * processes, the kill run's WORKER_LOCK_DURATION_MS=15000 and WORKER_STALLED_INTERVAL_MS=5000 included),
 * BENCH_SITE_STEP (pages a step, 1000), BENCH_SITE_TIMEOUT_MIN (a run's limit, 60), BENCH_SITE_MAX_PSS_MB (a process
 * tree's limit, 6000), BENCH_SITE_POLITE_PAGES and BENCH_SITE_POLITE_RATE (300 pages at 20/s), BENCH_SITE_REDIS_URL
 * (a Redis to use; by default each run starts a redis-server of its own, so that its memory and CPU are the run's
 * alone).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SITE_BENCH_ENV } from './site-deployments';
import { serveLoggedSite } from './site-crawl';
import {
  printCancel,
  printKill,
  printMain,
  printPolite,
  printSummary,
  printTwoWorkers,
  type SummaryRow,
} from './site-report';
import { runCancel, runKill, runMain, runPolite, runTwoWorkers, type MainRun, type RunSettings } from './site-runs';

const REPO = path.resolve(__dirname, '..');
const DOCS = path.join(REPO, '.cache/debian-docs/usr/share/doc');
/** CRAWL_MAX_PAGES's default: the most a crawl may take, and all of PostgreSQL's manual. */
const CRAWL_MAX_PAGES = 10_000;

const env = process.env;
const list = (value: string | undefined, fallback: string) => (value ?? fallback).split(',').filter(Boolean);
const SITES = list(env.BENCH_SITE_SITES, 'rust-doc,postgresql');
const RUNS = list(env.BENCH_SITE_RUNS, 'main,kill,cancel,two-workers');
const PAGES = Number(env.BENCH_SITE_PAGES ?? CRAWL_MAX_PAGES);
const STEP = Number(env.BENCH_SITE_STEP ?? 1000);
const POLITE_PAGES = Number(env.BENCH_SITE_POLITE_PAGES ?? 300);
const POLITE_RATE = Number(env.BENCH_SITE_POLITE_RATE ?? 20);

const overrides = JSON.parse(env.BENCH_SITE_ENV ?? '{}') as Record<string, string>;
const settings: RunSettings = {
  env: { ...SITE_BENCH_ENV, ...overrides },
  overrides,
  limits: {
    timeoutMs: Number(env.BENCH_SITE_TIMEOUT_MIN ?? 60) * 60_000,
    maxPssMb: Number(env.BENCH_SITE_MAX_PSS_MB ?? 6000),
  },
  ...(env.BENCH_SITE_REDIS_URL ? { redisUrl: env.BENCH_SITE_REDIS_URL } : {}),
};

/** The site's folder (postgresql-doc's is versioned), or undefined when it is not unpacked. */
function siteRoot(name: string): string | undefined {
  const folder =
    name === 'rust-doc'
      ? 'rust-doc'
      : fs.existsSync(DOCS)
        ? fs.readdirSync(DOCS).find((entry) => /^postgresql-doc-\d+$/.test(entry))
        : undefined;
  const root = folder && path.join(DOCS, folder, 'html');
  return root && fs.existsSync(path.join(root, 'index.html')) ? root : undefined;
}

/** Unpacks the sites when one is missing; says how when that fails. */
function ensureSites(): void {
  if (SITES.every((name) => siteRoot(name))) return;
  console.log('unpacking the whole sites: bash scripts/fetch-debian-docs.sh --whole-sites');
  spawnSync('bash', ['scripts/fetch-debian-docs.sh', '--whole-sites'], { cwd: REPO, stdio: 'inherit' });
  for (const name of SITES.filter((site) => !siteRoot(site)))
    console.warn(`${name} is missing under ${DOCS}: run \`bash scripts/fetch-debian-docs.sh --whole-sites\``);
}

/** Runs one part; a failure is printed and the benchmark goes on with the next. */
async function attempt<T>(label: string, run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run();
  } catch (error) {
    console.log(`\n${label} did not run to its end: ${(error as Error).stack ?? String(error)}`);
    return undefined;
  }
}

export async function benchSite(): Promise<void> {
  ensureSites();
  const overrides = env.BENCH_SITE_ENV ? `; BENCH_SITE_ENV ${env.BENCH_SITE_ENV}` : '';
  console.log(
    `\nwhole-site crawls: ${SITES.join(', ')}; rust-doc ${PAGES} pages; runs ${RUNS.join(', ')}; renderer auto, WORKER_CONCURRENCY_CRAWL=4, CRAWL_HOST_PAGES_PER_SECOND=0, maxDepth 10${overrides}; Redis: ${settings.redisUrl ?? 'a redis-server of each run’s own'}`,
  );
  const rows: SummaryRow[] = [];
  const record = (row: SummaryRow | undefined) => row && rows.push(row);
  for (const name of SITES) {
    const root = siteRoot(name);
    if (!root) continue;
    const served = await serveLoggedSite(root);
    try {
      const site = { name, seedPath: '/index.html', maxPages: name === 'rust-doc' ? PAGES : CRAWL_MAX_PAGES, served };
      let main: MainRun | undefined;
      if (RUNS.includes('main')) {
        main = await attempt(`${name} main run`, () => runMain(site, settings));
        if (main) record(printMain(name, main, STEP));
      }
      // The runs that take a crawl apart: on rust-doc, the site large enough to be halfway through for a while.
      if (name !== 'rust-doc') continue;
      if (RUNS.includes('kill')) {
        const kill = await attempt('worker kill run', () => runKill(site, settings, main));
        if (kill) record(printKill(name, kill, main, STEP));
      }
      if (main) delete main.chunks;
      if (RUNS.includes('cancel')) {
        const cancel = await attempt('cancel run', () => runCancel(site, settings));
        if (cancel) record(printCancel(name, cancel, STEP));
      }
      if (RUNS.includes('two-workers')) {
        const two = await attempt('two-workers run', () => runTwoWorkers(site, settings));
        if (two) record(printTwoWorkers(name, two, main, STEP));
        const polite = await attempt('politeness run', () => runPolite(site, settings, POLITE_PAGES, POLITE_RATE));
        if (polite) record(printPolite(name, polite, STEP));
      }
    } finally {
      await served.server.close();
    }
  }
  printSummary(rows);
}

if (require.main === module) {
  benchSite().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
