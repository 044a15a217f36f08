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
import { cookieHeaderOf } from '../test/support/cookies';
import { freePort, startService, type ServiceProcess } from '../test/support/service-process';
import { deleteRedisKeys } from '../test/support/harness';
import { serveBenchSites, type BenchSite as Site } from './bench-sites';
import { openMemoryCgroup, type MemoryCgroup } from './memory-cgroup';

const CONCURRENCY = 4;
const REPO = path.resolve(__dirname, '..');
const ADMIN = { email: 'bench@docshelf.test', password: 'bench password 1' };

interface Run {
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

// ---------------------------------------------------------------------------------------------- process tree memory

const PAGE_SIZE = 4096;

function processTable(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      /* gone */
    }
  }
  return children;
}

function treeOf(root: number, children = processTable()): number[] {
  const all = [root];
  for (let i = 0; i < all.length; i++) all.push(...(children.get(all[i]!) ?? []));
  return all;
}

/** Summed RSS (shared pages counted in every process) and PSS (shared pages split between their users), in MB. */
function memoryMb(pids: number[]): { rss: number; pss: number } {
  let rssPages = 0;
  let pssKb = 0;
  for (const pid of pids) {
    try {
      rssPages += Number(fs.readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
      pssKb += Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      /* gone */
    }
  }
  return { rss: (rssPages * PAGE_SIZE) / 2 ** 20, pss: pssKb / 1024 };
}

interface Peaks {
  rss: number;
  pss: number;
  cgroup?: number;
  workingSet?: number;
  /** CPU seconds (user + system) the tree used while sampled (a process's last 250 ms before it exits are missed). */
  cpuS: number;
  /** With BENCH_CRAWL_BREAKDOWN=1: the cgroup's memory.stat and the tree's memory by kind of process at the sampled peak. */
  atPeak?: { usageMb: number; stat: Record<string, number>; processes: Record<string, Kind> };
  /** With BENCH_CRAWL_BREAKDOWN=1: CPU seconds by kind of process. */
  cpuByKind?: CpuByKind;
}

const BREAKDOWN = process.env.BENCH_CRAWL_BREAKDOWN === '1';
/** BENCH_CRAWL_ENV='{"NAME":"value"}': settings for Docshelf's processes, to measure one against the defaults. */
const WORKER_ENV = JSON.parse(process.env.BENCH_CRAWL_ENV ?? '{}') as Record<string, string>;

interface Kind {
  count: number;
  rssMb: number;
  pssMb: number;
  anonMb: number;
}

/** Chromium's processes by their `--type`, Node's by the app or script they run, others by their program's name. */
function kindOf(cmdline: string): string {
  const [program = '', ...args] = cmdline.split('\0');
  // Chromium starts some of its helpers through /proc/self/exe; they carry a --type all the same.
  if (program.includes('chromium') || (program === '/proc/self/exe' && cmdline.includes('--type='))) {
    const type = /--type=([\w-]+)/.exec(cmdline)?.[1];
    const subType = type === 'utility' ? ` ${/--utility-sub-type=([\w.]+)/.exec(cmdline)?.[1] ?? ''}` : '';
    return `chromium ${type ?? 'browser'}${subType}`;
  }
  const name = program.split('/').pop()!;
  if (name !== 'node') return name;
  const app = /apps\/(\w+)\//.exec(cmdline)?.[1];
  return app
    ? `node ${app}`
    : `node ${
        args
          .find((a) => !a.startsWith('-'))
          ?.split('/')
          .pop() ?? ''
      }`.trim();
}

/** The tree's memory by kind of process (Node, Chromium's browser, renderer, GPU, utility...), from /proc. */
function breakdown(pids: number[]): Record<string, Kind> {
  const kinds: Record<string, Kind> = {};
  for (const pid of pids) {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0) / 1024;
      const kind = kindOf(cmdline);
      const k = (kinds[kind] ??= { count: 0, rssMb: 0, pssMb: 0, anonMb: 0 });
      k.count += 1;
      k.rssMb += kb('Rss');
      k.pssMb += kb('Pss');
      k.anonMb += kb('Anonymous');
    } catch {
      /* gone */
    }
  }
  return kinds;
}

function printBreakdown(label: string, atPeak: NonNullable<Peaks['atPeak']>): void {
  const mb = (name: string) => ((atPeak.stat[name] ?? 0) / 2 ** 20).toFixed(0);
  console.log(
    `${label} at the sampled peak ${atPeak.usageMb.toFixed(0)} MB: rss ${mb('total_rss')} cache ${mb('total_cache')} (shmem ${mb('total_shmem')}, mapped ${mb('total_mapped_file')}, active ${mb('total_active_file')}, inactive ${mb('total_inactive_file')})`,
  );
  for (const [kind, k] of Object.entries(atPeak.processes).sort((a, b) => b[1].pssMb - a[1].pssMb))
    console.log(
      `  ${kind.padEnd(40)} x${k.count}  PSS ${k.pssMb.toFixed(0).padStart(5)}  RSS ${k.rssMb.toFixed(0).padStart(5)}  anon ${k.anonMb.toFixed(0).padStart(5)}`,
    );
}

const CLOCK_TICKS_PER_S = 100;

/** User + system clock ticks of a /proc stat file (a process's counts the threads that have ended). */
function ticksOf(statFile: string): number {
  const stat = fs.readFileSync(statFile, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU time so far of each process of a tree, in clock ticks. */
function cpuTicks(pids: number[]): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    try {
      ticks.set(pid, ticksOf(`/proc/${pid}/stat`));
    } catch {
      /* gone */
    }
  }
  return ticks;
}

/** CPU seconds by kind of process; a Node process's main thread apart from its other threads (extraction, GC, I/O). */
type CpuByKind = Record<string, number>;

function printCpuByKind(label: string, cpu: CpuByKind, pages: number): void {
  const total = Object.entries(cpu).reduce((sum, [kind, s]) => (kind.includes('outside') ? sum : sum + s), 0);
  console.log(`${label}: CPU ms a page by process (${((1000 * total) / Math.max(pages, 1)).toFixed(0)} in the tree)`);
  for (const [kind, s] of Object.entries(cpu).sort((a, b) => b[1] - a[1]))
    if (s > 0) console.log(`  ${kind.padEnd(52)} ${((1000 * s) / Math.max(pages, 1)).toFixed(1).padStart(7)}`);
}

/** Samples the memory of a process tree every 250 ms until stopped (and its cgroup's, when it has one); resolves with the peaks. */
function samplePeakMemory(root: () => number | undefined, cgroup?: MemoryCgroup): { stop(): Peaks } {
  const peak: Peaks = { rss: 0, pss: 0, cpuS: 0, ...(cgroup ? { workingSet: 0 } : {}) };
  // Per process: CPU ticks when first seen (already used before the measurement when it is the root) and last seen.
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  // With BENCH_CRAWL_BREAKDOWN=1: each process's kind, and for Node processes their main thread's ticks.
  const kinds = new Map<number, string>();
  const firstMain = new Map<number, number>();
  const lastMain = new Map<number, number>();
  let usagePeak = 0;
  const sample = () => {
    if (cgroup) peak.workingSet = Math.max(peak.workingSet!, cgroup.workingSetMb());
    const pid = root();
    if (!pid) return;
    const tree = treeOf(pid);
    if (cgroup && BREAKDOWN) {
      const usage = cgroup.usageMb();
      if (usage > usagePeak) {
        usagePeak = usage;
        peak.atPeak = { usageMb: usage, stat: cgroup.stat(), processes: breakdown(tree) };
      }
    }
    const now = memoryMb(tree);
    peak.rss = Math.max(peak.rss, now.rss);
    peak.pss = Math.max(peak.pss, now.pss);
    for (const [p, ticks] of cpuTicks(tree)) {
      const before = !first.has(p) && p === pid && first.size === 0;
      if (!first.has(p)) first.set(p, before ? ticks : 0);
      last.set(p, ticks);
      if (!BREAKDOWN) continue;
      try {
        // Chromium starts through a shell script that then runs the browser in its place: known once it has.
        if (!kinds.has(p) || kinds.get(p) === 'sh') kinds.set(p, kindOf(fs.readFileSync(`/proc/${p}/cmdline`, 'utf8')));
        if (!kinds.get(p)!.startsWith('node')) continue;
        const main = ticksOf(`/proc/${p}/task/${p}/stat`);
        if (!firstMain.has(p)) firstMain.set(p, before ? main : 0);
        lastMain.set(p, main);
      } catch {
        /* gone */
      }
    }
  };
  sample();
  const timer = setInterval(sample, 250);
  return {
    stop() {
      clearInterval(timer);
      sample();
      if (cgroup) peak.cgroup = cgroup.peakMb();
      peak.cpuS = [...last].reduce((sum, [p, ticks]) => sum + ticks - (first.get(p) ?? 0), 0) / CLOCK_TICKS_PER_S;
      if (BREAKDOWN) {
        peak.cpuByKind = {};
        for (const [p, ticks] of last) {
          const kind = kinds.get(p) ?? 'gone before it was seen';
          const s = (ticks - (first.get(p) ?? 0)) / CLOCK_TICKS_PER_S;
          const main = lastMain.has(p) ? (lastMain.get(p)! - (firstMain.get(p) ?? 0)) / CLOCK_TICKS_PER_S : undefined;
          const add = (name: string, value: number) => (peak.cpuByKind![name] = (peak.cpuByKind![name] ?? 0) + value);
          if (main === undefined) add(kind, s);
          else {
            add(`${kind}, main thread`, main);
            add(`${kind}, other threads`, s - main);
          }
        }
      }
      return peak;
    },
  };
}

let cgroups = 0;
/** A memory cgroup of its own for one measured process tree, or undefined where none can be made (not root). */
function cgroupFor(label: string): MemoryCgroup | undefined {
  return openMemoryCgroup(`docshelf-bench-${process.pid}-${++cgroups}-${label}`);
}

// --------------------------------------------------------------------------------------------------------- baselines

async function runBaseline(
  mode: 'playwright' | 'crawlee' | 'http',
  urls: string[],
  chromiumPath: string,
): Promise<Run> {
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
  const sampler = samplePeakMemory(() => child.pid, cgroup);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const peak = sampler.stop();
  if (peak.atPeak) printBreakdown(`${mode} on ${urls.length} URLs`, peak.atPeak);
  cgroup?.remove();
  if (code !== 0) throw new Error(`${mode} baseline failed (${code}):\n${err.slice(-2000)}`);
  const outcome = JSON.parse(out.trim().split('\n').pop()!) as { pages: number; failed: number; ms: number };
  if (peak.cpuByKind) printCpuByKind(`${mode} on ${urls.length} URLs`, peak.cpuByKind, outcome.pages);
  return { mode, ...outcome, ...peaksOf(peak) };
}

// ---------------------------------------------------------------------------------------------------------- Docshelf

interface Docshelf {
  service: ServiceProcess;
  prefix: string;
  dataDir: string;
  healthPort: number;
  key: string;
}

async function startDocshelf(env: Record<string, string> = {}): Promise<Docshelf> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-bench-'));
  const prefix = `docshelf-bench-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const healthPort = await freePort();
  const service = await startService(
    {
      DATA_DIR: dataDir,
      QUEUE_PREFIX: prefix,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
      WORKER_HEALTH_PORT: String(healthPort),
      WORKER_CONCURRENCY_CRAWL: String(CONCURRENCY),
      LOG_LEVEL: 'warn',
      CRAWL_WAIT_TIMEOUT_MS: '1800000',
      // Politeness is for other people's hosts; the baselines have none, and these sites are served locally.
      CRAWL_HOST_PAGES_PER_SECOND: '0',
      ...env,
    },
    dataDir,
  );
  const login = await fetch(`${service.baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  const cookie = cookieHeaderOf(login.headers.get('set-cookie'));
  const keyResponse = await fetch(`${service.baseUrl}/api/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name: 'bench', permissions: 'admin' }),
  });
  const { key } = (await keyResponse.json()) as { key: string };
  return { service, prefix, dataDir, healthPort, key };
}

async function stopDocshelf(d: Docshelf): Promise<void> {
  await d.service.stop();
  await deleteRedisKeys(d.prefix);
  fs.rmSync(d.dataDir, { recursive: true, force: true });
}

/** The API process and the Redis server: outside the measured tree, their CPU shown beside it with BENCH_CRAWL_BREAKDOWN=1. */
function outsideTicks(d: Docshelf): Record<string, number> {
  const ticks: Record<string, number> = {};
  const api = (processTable().get(d.service.child.pid!) ?? []).find((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('apps/api');
    } catch {
      return false;
    }
  });
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

/** The worker process: the child of `npm start`'s launcher that runs apps/worker. */
function workerPid(d: Docshelf): number | undefined {
  const children = processTable().get(d.service.child.pid!) ?? [];
  return children.find((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('apps/worker');
    } catch {
      return false;
    }
  });
}

async function metric(d: Docshelf, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${d.healthPort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return line ? Number(line.split(' ').pop()) : 0;
}

async function allChunks(d: Docshelf, libraryId: string): Promise<string[]> {
  const texts: string[] = [];
  for (let offset: number | null = 0; offset !== null;) {
    const response = await fetch(
      `${d.service.baseUrl}/api/chunks?libraryId=${encodeURIComponent(libraryId)}&offset=${offset}&limit=500`,
      {
        headers: { authorization: `Bearer ${d.key}` },
      },
    );
    const body = (await response.json()) as { chunks: Array<{ content: string }>; nextOffset: number | null };
    texts.push(...body.chunks.map((c) => c.content));
    offset = body.nextOffset;
  }
  return texts;
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
    const sampler = samplePeakMemory(() => pid, cgroup);
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
          rendered: await metric(d, 'crawl_pages_rendered_total'),
          chunks: await allChunks(d, libraryId),
        };
      }
      // The main thread's heap when the group is at its highest so far (every 250 ms: /metrics costs the worker CPU).
      if (BREAKDOWN && cgroup && ++polls % 5 === 0 && cgroup.usageMb() > mainThread.usageMb) {
        const usageMb = cgroup.usageMb();
        mainThread = {
          usageMb,
          heapUsed: (await metric(d, 'nodejs_heap_size_used_bytes')) / 2 ** 20,
          heapTotal: (await metric(d, 'nodejs_heap_size_total_bytes')) / 2 ** 20,
          external: (await metric(d, 'nodejs_external_memory_bytes')) / 2 ** 20,
          processRss: (await metric(d, 'process_resident_memory_bytes')) / 2 ** 20,
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

async function waitForWorker(d: Docshelf): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const pid = workerPid(d);
    if (pid) return pid;
    if (Date.now() > deadline) throw new Error('the worker process of npm start did not appear');
    await new Promise((r) => setTimeout(r, 100));
  }
}

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
