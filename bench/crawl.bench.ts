/**
 * Crawl speed and memory, side by side in one run at concurrency 4 over the same URL list: Docshelf in browser mode
 * and in `auto` mode (HTTP first) (each through `npm start`'s real API and worker processes, as a user runs it), a bare
 * Playwright loop, Crawlee's PlaywrightCrawler and plain HTTP fetch (each in a process of its own). Sites: the
 * generated 150-page fixture site and Debian's nodejs-doc and git-doc, all served on 127.0.0.1.
 *
 * For each: pages/s, ratios to the bare loop and to Crawlee, CPU time per page, and the memory of the process tree
 * (the worker and its Chromium children for Docshelf): the kernel's peak of a memory cgroup of its own (see
 * memory-cgroup.ts; where none can be made, "n/a"), the peak working set, peak PSS and peak summed RSS; then the share
 * of pages Docshelf rendered in Chromium and the share of chunk texts identical between auto and browser mode.
 * `npx tsx bench/crawl.bench.ts` runs this part alone (BENCH_CRAWL_SITES and BENCH_CRAWL_MODES narrow it).
 * BENCH_CRAWL_BREAKDOWN=1 prints, for each tree, what it held at its cgroup's highest sample: anonymous memory against
 * page cache (memory.stat), PSS by kind of process (Node, Chromium's browser, renderers, GPU and utility processes) and
 * the worker's main-thread heap, and the CPU each kind of process used a page (a Node process's main thread apart
 * from its other threads). BENCH_CRAWL_ENV='{"NAME":"value"}' passes settings to Docshelf's processes.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findChromium } from '@docshelf/crawler';
import { serveBenchSites, type BenchSite as Site } from './bench-sites';
import {
  allChunks,
  appPid,
  CONCURRENCY,
  metric,
  startDocshelf,
  stopDocshelf,
  waitForWorker,
  type Docshelf,
} from './docshelf-service';
import type { MemoryCgroup } from './memory-cgroup';
import {
  CLOCK_TICKS_PER_S,
  cgroupFor,
  cpuTicks,
  printBreakdown,
  printCpuByKind,
  samplePeakMemory,
  ticksOf,
  type Peaks,
} from './process-tree';

const REPO = path.resolve(__dirname, '..');

export interface Run {
  mode: string;
  pages: number;
  failed: number;
  ms: number;
  peakRssMb: number;
  peakPssMb: number;
  /** The tree's cgroup: the kernel's peak (anonymous + page cache) and the sampled peak working set. */
  cgroupPeakMb?: number;
  workingSetPeakMb?: number;
  /** CPU seconds of the process tree during the run. */
  cpuS: number;
  rendered?: number;
  chunks?: string[];
}

const BREAKDOWN = process.env.BENCH_CRAWL_BREAKDOWN === '1';
/** BENCH_CRAWL_ENV='{"NAME":"value"}': settings for Docshelf's processes, to measure one against the defaults. */
const WORKER_ENV = JSON.parse(process.env.BENCH_CRAWL_ENV ?? '{}') as Record<string, string>;

// --------------------------------------------------------------------------------------------------------- baselines

/**
 * One baseline in a process of its own over `urls`, its tree measured like Docshelf's: `http-cheerio` also parses each
 * page with cheerio (the least work a crawler does with a page) and reports when each page was done.
 */
export async function runBaseline(
  mode: 'playwright' | 'crawlee' | 'http' | 'http-cheerio',
  urls: string[],
  chromiumPath = '',
): Promise<Run & { doneAt?: number[] }> {
  const file = path.join(os.tmpdir(), `crawl-bench-urls-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify(urls));
  const tsx = require.resolve('tsx/cli');
  const child = spawn(
    process.execPath,
    [tsx, path.join(__dirname, 'crawl-baselines.ts'), mode, file, String(CONCURRENCY), chromiumPath],
    {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // Joined at once: Node is still starting, Chromium is not launched yet.
  const cgroup = cgroupFor(mode);
  cgroup?.add(child.pid!);
  const sampler = samplePeakMemory(() => child.pid, cgroup, { breakdown: BREAKDOWN });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const peak = sampler.stop();
  if (peak.atPeak) printBreakdown(`${mode} on ${urls.length} URLs`, peak.atPeak);
  cgroup?.remove();
  if (code !== 0) throw new Error(`${mode} baseline failed (${code}):\n${err.slice(-2000)}`);
  const outcome = JSON.parse(out.trim().split('\n').pop()!) as {
    pages: number;
    failed: number;
    ms: number;
    doneAt?: number[];
  };
  if (peak.cpuByKind) printCpuByKind(`${mode} on ${urls.length} URLs`, peak.cpuByKind, outcome.pages);
  return { mode, ...outcome, ...peaksOf(peak) };
}

// ---------------------------------------------------------------------------------------------------------- Docshelf

/** The API process and the Redis server: outside the measured tree, their CPU shown beside it with BENCH_CRAWL_BREAKDOWN=1. */
function outsideTicks(d: Docshelf): Record<string, number> {
  const ticks: Record<string, number> = {};
  const api = appPid(d, 'api');
  if (api) ticks['node api (outside the tree)'] = cpuTicks([api]).get(api) ?? 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'redis-server')
        ticks['redis-server (outside the tree)'] = ticksOf(`/proc/${entry}/stat`);
    } catch {
      /* gone */
    }
  }
  return ticks;
}

/**
 * One crawl through the API (asynchronous mode), timed from the request to the end of its crawling phase: the commit,
 * embedding and backup that follow are not page loading, and none of the baselines does them.
 */
async function runDocshelf(
  site: Site,
  renderer: 'browser' | 'default',
  env: Record<string, string> = {},
): Promise<Run> {
  const d = await startDocshelf(env);
  const healthUrl = `http://127.0.0.1:${d.healthPort}`;
  let cgroup: MemoryCgroup | undefined;
  try {
    const libraryId = `bench/${site.name}-${renderer}`;
    const body = {
      libraryId,
      name: `${site.name} ${renderer}`,
      urls: [site.seed],
      maxDepth: 2,
      maxPages: site.urls.length,
      excludePaths: site.excludePaths,
      // The default renderer is browser; `auto` (HTTP first) is the candidate default this benchmark decides on.
      renderer: renderer === 'browser' ? 'browser' : 'auto',
    };
    // The worker (and the Chromium it launches for this crawl) in a cgroup of its own, its peak counted from here.
    const pid = await waitForWorker(d);
    cgroup = cgroupFor(`docshelf-${renderer}`);
    cgroup?.add(pid);
    cgroup?.resetPeak();
    const sampler = samplePeakMemory(() => pid, cgroup, { breakdown: BREAKDOWN });
    const outsideBefore = BREAKDOWN ? outsideTicks(d) : {};
    const started = performance.now();
    const accepted = await fetch(`${d.service.baseUrl}/api/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${d.key}`, prefer: 'respond-async' },
      body: JSON.stringify(body),
    });
    const { jobId } = (await accepted.json()) as { jobId: string };
    let crawledMs = 0;
    let polls = 0;
    let mainThread = { usageMb: 0, heapUsed: 0, heapTotal: 0, external: 0, processRss: 0 };
    for (;;) {
      const job = (await (
        await fetch(`${d.service.baseUrl}/api/jobs/${jobId}`, { headers: { authorization: `Bearer ${d.key}` } })
      ).json()) as {
        state: string;
        progress: { phase: string };
        result?: { pagesCrawled: number; errors: string[] };
        error?: unknown;
      };
      if (!crawledMs && job.progress.phase !== 'crawling' && job.progress.phase !== 'queued')
        crawledMs = performance.now() - started;
      if (job.state === 'failed' || job.state === 'cancelled')
        throw new Error(`crawl of ${site.name} failed: ${JSON.stringify(job.error)}`);
      if (job.state === 'completed') {
        const peak = sampler.stop();
        if (peak.atPeak) {
          printBreakdown(`Docshelf ${renderer} on ${site.name}`, peak.atPeak);
          console.log(
            `  the worker's main thread at ${mainThread.usageMb.toFixed(0)} MB (from /metrics): ${Object.entries(
              mainThread,
            )
              .slice(1)
              .map(([k, v]) => `${k} ${v.toFixed(0)} MB`)
              .join(', ')}`,
          );
        }
        const result = job.result!;
        if (peak.cpuByKind) {
          for (const [name, ticks] of Object.entries(outsideTicks(d)))
            peak.cpuByKind[name] = (ticks - (outsideBefore[name] ?? ticks)) / CLOCK_TICKS_PER_S;
          printCpuByKind(`Docshelf ${renderer} on ${site.name}`, peak.cpuByKind, result.pagesCrawled);
        }
        if (result.errors.length > 0) console.log(`Docshelf ${renderer} on ${site.name}: ${result.errors.join('; ')}`);
        return {
          mode: renderer,
          pages: result.pagesCrawled,
          failed: result.errors.length,
          ms: crawledMs || performance.now() - started,
          ...peaksOf(peak),
          rendered: await metric(healthUrl, 'crawl_pages_rendered_total'),
          chunks: (await allChunks(d.service.baseUrl, d.key, libraryId)).map((c) => c.content),
        };
      }
      // The main thread's heap when the group is at its highest so far (every 250 ms: /metrics costs the worker CPU).
      if (BREAKDOWN && cgroup && ++polls % 5 === 0 && cgroup.usageMb() > mainThread.usageMb) {
        const usageMb = cgroup.usageMb();
        mainThread = {
          usageMb,
          heapUsed: (await metric(healthUrl, 'nodejs_heap_size_used_bytes')) / 2 ** 20,
          heapTotal: (await metric(healthUrl, 'nodejs_heap_size_total_bytes')) / 2 ** 20,
          external: (await metric(healthUrl, 'nodejs_external_memory_bytes')) / 2 ** 20,
          processRss: (await metric(healthUrl, 'process_resident_memory_bytes')) / 2 ** 20,
        };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await stopDocshelf(d);
    cgroup?.remove();
  }
}

const peaksOf = (peak: Peaks) => ({
  cpuS: peak.cpuS,
  peakRssMb: peak.rss,
  peakPssMb: peak.pss,
  ...(peak.cgroup === undefined ? {} : { cgroupPeakMb: peak.cgroup }),
  ...(peak.workingSet === undefined ? {} : { workingSetPeakMb: peak.workingSet }),
});

// ------------------------------------------------------------------------------------------------------------ report

/** Share of chunk texts of `a` that `b` has too (as a multiset), over the larger of the two counts. */
function identicalShare(a: string[], b: string[]): number {
  const counts = new Map<string, number>();
  b.forEach((t) => counts.set(t, (counts.get(t) ?? 0) + 1));
  let same = 0;
  for (const t of a) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      same += 1;
      counts.set(t, n - 1);
    }
  }
  return same / Math.max(a.length, b.length, 1);
}

function report(site: Site, runs: Run[]): void {
  const rate = (r: Run | undefined) => (r ? r.pages / (r.ms / 1000) : NaN);
  const bare = runs.find((r) => r.mode === 'playwright');
  const crawlee = runs.find((r) => r.mode === 'crawlee');
  const browser = runs.find((r) => r.mode === 'browser');
  const auto = runs.find((r) => r.mode === 'default');
  console.log(
    `\ncrawl ${site.name}: ${site.urls.length} URLs, concurrency ${CONCURRENCY} (Docshelf through npm start's processes, CRAWL_HOST_PAGES_PER_SECOND=0)`,
  );
  console.log(
    `${'mode'.padEnd(22)} ${'pages'.padStart(5)} ${'failed'.padStart(6)} ${'s'.padStart(7)} ${'pages/s'.padStart(8)} ${'x bare'.padStart(7)} ${'x crawlee'.padStart(9)} ${'CPU ms/page'.padStart(11)} ${'cgroup peak MB'.padStart(14)} ${'working set MB'.padStart(14)} ${'peak PSS MB'.padStart(11)} ${'RSS sum MB'.padStart(10)} ${'rendered'.padStart(8)}`,
  );
  for (const r of runs) {
    const name =
      {
        browser: 'Docshelf browser',
        default: 'Docshelf auto',
        playwright: 'bare Playwright loop',
        crawlee: 'Crawlee Playwright',
        http: 'plain HTTP fetch',
      }[r.mode] ?? r.mode;
    const rendered = r.rendered === undefined ? '' : `${((100 * r.rendered) / Math.max(r.pages, 1)).toFixed(0)}%`;
    console.log(
      `${name.padEnd(22)} ${String(r.pages).padStart(5)} ${String(r.failed).padStart(6)} ${(r.ms / 1000).toFixed(1).padStart(7)} ${rate(r).toFixed(2).padStart(8)} ${(rate(r) / rate(bare)).toFixed(2).padStart(7)} ${(rate(r) / rate(crawlee)).toFixed(2).padStart(9)} ${((1000 * r.cpuS) / Math.max(r.pages, 1)).toFixed(0).padStart(11)} ${(r.cgroupPeakMb?.toFixed(0) ?? 'n/a').padStart(14)} ${(r.workingSetPeakMb?.toFixed(0) ?? 'n/a').padStart(14)} ${r.peakPssMb.toFixed(0).padStart(11)} ${r.peakRssMb.toFixed(0).padStart(10)} ${rendered.padStart(8)}`,
    );
  }
  if (!auto || !browser) return;
  const share = identicalShare(auto.chunks ?? [], browser.chunks ?? []);
  console.log(
    `chunk texts identical, auto vs browser: ${(100 * share).toFixed(1)}% (${auto.chunks?.length} vs ${browser.chunks?.length} chunks)`,
  );
}

export async function benchCrawl(): Promise<void> {
  const chromiumPath = findChromium(process.env.CHROMIUM_PATH);
  if (!chromiumPath) {
    console.warn('crawl benchmark skipped: no Chromium (install chromium or set CHROMIUM_PATH)');
    return;
  }
  const only = process.env.BENCH_CRAWL_SITES?.split(',');
  // BENCH_CRAWL_MODES=playwright,browser runs only those (for a quick look; the recorded run runs all five).
  const modes = process.env.BENCH_CRAWL_MODES?.split(',');
  const mode = (name: string) => !modes || modes.includes(name);
  const sites = await serveBenchSites(only);
  try {
    for (const site of sites) {
      const runs: Run[] = [];
      if (mode('playwright')) runs.push(await runBaseline('playwright', site.urls, chromiumPath));
      if (mode('crawlee')) runs.push(await runBaseline('crawlee', site.urls, chromiumPath));
      if (mode('http')) runs.push(await runBaseline('http', site.urls, chromiumPath));
      if (mode('browser')) runs.push(await runDocshelf(site, 'browser', WORKER_ENV));
      if (mode('default')) runs.push(await runDocshelf(site, 'default', WORKER_ENV));
      report(site, runs);
    }
  } finally {
    await Promise.all(sites.map((s) => s.server.close()));
  }
}

if (require.main === module) {
  benchCrawl().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
