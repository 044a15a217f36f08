/**
 * Figures computed from a measured crawl: pages/s by successive steps of pages, the most requests in any window,
 * when each phase began and ended, and how two libraries' chunks differ.
 */
import fs from 'node:fs';
import path from 'node:path';
import { refreshTarget } from '../packages/crawler/src/extract/refresh-target';
import { isPage, type CrawlRun, type RequestEntry } from './site-crawl';
import type { ChunkDigest } from './site-runs';

export interface StepRate {
  /** Pages done before the step and at its end (the last step may be shorter). */
  from: number;
  to: number;
  pagesPerSecond: number;
}

/** The first time (ms) at which `done` reached `count`, from samples in time order. */
function reachedAt(samples: Array<{ t: number; done: number }>, count: number): number | undefined {
  return samples.find((s) => s.done >= count)?.t;
}

/** Pages/s of each successive `step` pages from time 0, the last step ending with the last page done. */
export function ratesByStep(samples: Array<{ t: number; done: number }>, step: number): StepRate[] {
  const total = samples.at(-1)?.done ?? 0;
  const rates: StepRate[] = [];
  for (let from = 0, fromT = 0; from < total;) {
    const to = Math.min(from + step, total);
    const toT = reachedAt(samples, to)!;
    rates.push({ from, to, pagesPerSecond: (to - from) / Math.max((toT - fromT) / 1000, 1e-3) });
    [from, fromT] = [to, toT];
  }
  return rates;
}

/** Pages/s of the last `step` pages done against the first `step` (both whole steps when there are enough pages). */
export function lastOverFirst(samples: Array<{ t: number; done: number }>, step: number): number {
  const total = samples.at(-1)?.done ?? 0;
  const pages = Math.min(step, total);
  if (pages === 0) return Number.NaN;
  const first = pages / Math.max(reachedAt(samples, pages)! / 1000, 1e-3);
  const last = pages / Math.max((reachedAt(samples, total)! - reachedAt(samples, total - pages)!) / 1000, 1e-3);
  return last / first;
}

/** A baseline's page-done times (ms from its start) as samples of pages done. */
export const samplesOfDoneTimes = (doneAt: number[]) =>
  [...doneAt].sort((a, b) => a - b).map((t, i) => ({ t, done: i + 1 }));

/** The most entries in any window of `windowMs` (half open: [t, t + windowMs)). */
export function mostInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

/** Ms from the crawl request to the end of crawling (the commit's start, or the job's end when it never committed). */
export const crawlEndMs = (crawl: CrawlRun) =>
  crawl.phaseAt.committing ?? crawl.phaseAt.indexing ?? crawl.phaseAt.end ?? 0;

/** Pages answered (crawled + failed) as the job's counters say at its end. */
export function pagesDone(crawl: CrawlRun): { crawled: number; failed: number; done: number } {
  const crawled = crawl.result?.pagesCrawled ?? crawl.lastProgress?.pagesCrawled ?? 0;
  const failed = crawl.lastProgress?.pagesFailed ?? 0;
  return { crawled, failed, done: crawled + failed };
}

/** The crawl's pages/s: pages answered over the time to the end of crawling. */
export const crawlRate = (crawl: CrawlRun) => pagesDone(crawl).done / Math.max(crawlEndMs(crawl) / 1000, 1e-3);

export interface ChunkComparison {
  /** Chunk texts (as a multiset) only in `a`, only in `b`, and of those, the ones of pages both libraries have. */
  onlyA: number;
  onlyB: number;
  differOnSharedPages: number;
  /** Pages (chunk URLs) only one of the two has. */
  pagesOnlyA: number;
  pagesOnlyB: number;
}

export function compareChunks(a: ChunkDigest[], b: ChunkDigest[]): ChunkComparison {
  const unmatched = (from: ChunkDigest[], against: ChunkDigest[]) => {
    const counts = new Map<string, number>();
    against.forEach((c) => counts.set(c.hash, (counts.get(c.hash) ?? 0) + 1));
    return from.filter((c) => {
      const n = counts.get(c.hash) ?? 0;
      if (n > 0) counts.set(c.hash, n - 1);
      return n === 0;
    });
  };
  const onlyA = unmatched(a, b);
  const onlyB = unmatched(b, a);
  const pagesA = new Set(a.map((c) => c.url));
  const pagesB = new Set(b.map((c) => c.url));
  return {
    onlyA: onlyA.length,
    onlyB: onlyB.length,
    differOnSharedPages: onlyA.filter((c) => pagesB.has(c.url)).length + onlyB.filter((c) => pagesA.has(c.url)).length,
    pagesOnlyA: [...pagesA].filter((url) => !pagesB.has(url)).length,
    pagesOnlyB: [...pagesB].filter((url) => !pagesA.has(url)).length,
  };
}

/** Chunk ids that appear more than once. */
export function repeatedIds(chunks: ChunkDigest[]): number {
  return chunks.length - new Set(chunks.map((c) => c.id)).size;
}

/** Of the paths (with their queries) fetched more than once, those first fetched before `at` and again after it. */
export const inFlightAt = (requests: RequestEntry[], twice: string[], at: number) =>
  twice.filter((target) => {
    const times = requests.filter((r) => r.client === 'http' && r.target === target).map((r) => r.at);
    return Math.min(...times) < at && Math.max(...times) > at;
  });

/** rustdoc's redirect stubs are a few hundred bytes; a page with content is larger. */
const STUB_MAX_BYTES = 4096;

/** The redirect stubs (pages whose meta refresh leaves at once) among the pages requested, each with where it leads. */
export function redirectStubsOf(root: string, requests: RequestEntry[]): Map<string, string> {
  const stubs = new Map<string, string>();
  for (const page of new Set(requests.filter(isPage).map((r) => r.path))) {
    const file = path.join(root, decodeURIComponent(page.endsWith('/') ? `${page}index.html` : page));
    try {
      if (fs.statSync(file).size > STUB_MAX_BYTES) continue;
      const target = refreshTarget(fs.readFileSync(file, 'utf8'), `http://127.0.0.1${page}`);
      if (target) stubs.set(page, new URL(target).pathname);
    } catch {
      /* not a file: a 404 */
    }
  }
  return stubs;
}

/** How soon after its stub a request for the stub's target counts as the same page job following the refresh. */
const HOP_MS = 1000;

/** Requests for a stub's target made right after the stub itself: the hop of a page job that followed the refresh. */
export function redirectHops(requests: RequestEntry[], stubs: Map<string, string>): Set<RequestEntry> {
  const hops = new Set<RequestEntry>();
  const lastStubFor = new Map<string, number>();
  for (const r of requests) {
    if (r.client !== 'http') continue;
    const stubbedAt = lastStubFor.get(r.path);
    if (stubbedAt !== undefined && r.at - stubbedAt <= HOP_MS) {
      hops.add(r);
      lastStubFor.delete(r.path);
    }
    const target = stubs.get(r.path);
    if (target) lastStubFor.set(target, r.at);
  }
  return hops;
}
