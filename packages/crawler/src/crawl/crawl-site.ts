import {
  AppError,
  type ChunkInput,
  type JobPayload,
  type JobResult,
  type JobRunner,
  type RecordStore,
} from '@docshelf/core';
import type { AddressPolicy } from '../fetch/address-policy';
import { safeFetch } from '../fetch/safe-fetch';
import { normalizePageUrl } from '../extract/page-links';
import { buildPathFilter } from './path-patterns';
import { ALLOW_ALL, parseRobotsTxt, type RobotsRules } from './robots-txt';
import { parseSitemapUrls } from './sitemap';

export const CRAWLER_USER_AGENT = 'DocshelfBot';
const STALE_STAGING_MS = 24 * 3600_000;

export interface CrawlSiteDeps {
  records: RecordStore;
  jobs: JobRunner;
  policy: AddressPolicy;
  /** How long to wait for one page job, queueing included. */
  pageWaitMs: number;
  now?: () => Date;
}

type Job = JobPayload<'crawl-site'>;

/**
 * The crawl coordinator: fans pages out as crawl-page jobs level by level (breadth-first), collects their results,
 * and commits every staged chunk in one transaction. A failed page becomes an `errors` entry, never a hung crawl.
 */
export async function crawlSite(deps: CrawlSiteDeps, job: Job): Promise<JobResult<'crawl-site'>> {
  const discovery = job.urls.length === 1;
  const seeds = [...new Set(job.urls.map((u) => normalizePageUrl(u, u) ?? u))];
  // A seed that redirects (http → https, / → /index.html) brings its final origin into scope.
  const origins = new Set([new URL(seeds[0]!).origin]);
  const origin = new URL(seeds[0]!).origin;
  const inScope = buildPathFilter(job.options.includePaths, job.options.excludePaths);
  const robots = job.options.respectRobotsTxt ? await loadRobots(deps.policy, origin) : ALLOW_ALL;
  const errors: string[] = [];
  const found = new Set(seeds);
  const crawled: string[] = [];

  const admit = (url: string, queue: string[]) => {
    if (found.has(url) || !origins.has(new URL(url).origin) || !inScope(url)) return;
    found.add(url);
    if (robots.isAllowed(url)) queue.push(url);
  };

  for (const url of seeds.filter((u) => !robots.isAllowed(u))) errors.push(`${url}: disallowed by robots.txt`);
  let level = seeds.filter((url) => robots.isAllowed(url));
  let budget = discovery ? job.options.maxPages : seeds.length;
  const sitemapUrls = discovery && job.options.useSitemap ? await loadSitemap(deps.policy, origin) : [];

  for (let depth = 0; level.length > 0 && budget > 0; depth++) {
    const batch = level.slice(0, budget);
    budget -= batch.length;
    const discover = discovery && depth < job.options.maxDepth;
    const results = await Promise.allSettled(
      batch.map((url) =>
        deps.jobs.run('crawl-page', { crawlId: job.crawlId, url, discover, renderer: job.options.renderer }, { timeoutMs: deps.pageWaitMs }),
      ),
    );
    const next: string[] = [];
    if (depth === 0) sitemapUrls.forEach((url) => admit(url, next));
    results.forEach((result, i) => {
      if (result.status === 'rejected') {
        errors.push(`${batch[i]}: ${(result.reason as Error).message}`);
        return;
      }
      crawled.push(batch[i]!);
      const finalUrl = normalizePageUrl(result.value.finalUrl, result.value.finalUrl);
      if (depth === 0 && finalUrl) origins.add(new URL(finalUrl).origin);
      // The page under its final URL is already crawled.
      if (finalUrl && origins.has(new URL(finalUrl).origin)) found.add(finalUrl);
      result.value.links.forEach((link) => admit(link, next));
    });
    level = next;
  }

  const chunks = await collectChunks(deps.records, job.crawlId, crawled);
  const now = (deps.now ?? (() => new Date()))();
  try {
    if (chunks.length === 0) {
      throw new AppError('NO_CONTENT', `No content could be extracted from ${seeds.join(', ')}`, 400, {
        retryable: false,
        details: errors,
      });
    }
    await deps.records.commitIngestion({
      library: { id: job.libraryId, name: job.name, description: job.description, sourceUrl: seeds[0], sourceType: 'crawl' },
      ownerId: job.ownerId,
      chunks,
      replace: job.replace,
      ingestionId: job.crawlId,
      now,
    });
  } finally {
    await deps.records.discardStaging(job.crawlId, new Date(now.getTime() - STALE_STAGING_MS));
  }
  return {
    pagesDiscovered: discovery ? found.size : seeds.length,
    pagesCrawled: crawled.length,
    chunksIngested: chunks.length,
    errors,
  };
}

/** Chunks in crawl order; a chunk id seen twice (two URLs serving one page) is kept once. */
async function collectChunks(records: RecordStore, crawlId: string, crawled: string[]): Promise<ChunkInput[]> {
  const staged = new Map((await records.listStagedPages(crawlId)).map((page) => [page.url, page.chunks]));
  const seen = new Set<string>();
  const chunks: ChunkInput[] = [];
  for (const url of crawled) {
    for (const chunk of staged.get(url) ?? []) {
      if (seen.has(chunk.id)) continue;
      seen.add(chunk.id);
      chunks.push(chunk);
    }
  }
  return chunks;
}

/** A missing or unreadable robots.txt allows everything, as the robots exclusion protocol says. */
async function loadRobots(policy: AddressPolicy, origin: string): Promise<RobotsRules> {
  try {
    const response = await safeFetch(`${origin}/robots.txt`, { policy, timeoutMs: 10_000, maxBytes: 512 * 1024 });
    return response.status === 200 ? parseRobotsTxt(response.body.toString('utf8'), CRAWLER_USER_AGENT) : ALLOW_ALL;
  } catch {
    return ALLOW_ALL;
  }
}

async function loadSitemap(policy: AddressPolicy, origin: string): Promise<string[]> {
  try {
    const response = await safeFetch(`${origin}/sitemap.xml`, { policy, timeoutMs: 10_000 });
    if (response.status !== 200) return [];
    return parseSitemapUrls(response.body.toString('utf8')).flatMap((u) => normalizePageUrl(u, origin) ?? []);
  } catch {
    return [];
  }
}
