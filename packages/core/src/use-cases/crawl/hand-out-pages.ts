import type { RevalidatedPage } from '../../crawl/page-loader';
import type { JobPayload } from '../../jobs/registry';
import type { JobContext } from '../../jobs/workflow';
import type { CrawledPage, PageValidators, StagingStore } from '../../ports';
import { addPageJobs, admitLinks, admitLinksOfPages, type HandOutDeps } from './hand-out-links';
import { takeRestOfTurn, takeTurn, type PolitenessDeps } from './host-turns';

/** Most known pages one page job asks for conditionally itself; the known pages it hands out beyond them are jobs. */
export const REVALIDATIONS_PER_JOB = 500;
/** Conditional requests one page job has in flight at once. */
export const REVALIDATION_CONCURRENCY = 8;

type PageJob = JobPayload<'crawl-page'>;

export interface HandOutPagesDeps extends HandOutDeps, PolitenessDeps {
  staging: Pick<StagingStore, 'stagePage' | 'getCrawledPage'>;
}

/**
 * Admits a page's links and hands out the pages admitted. In a re-crawl a page the library kept is first asked for
 * conditionally by this job (REVALIDATION_CONCURRENCY at a time, each in its host's politeness turn): the unchanged
 * ones are staged as such and their kept links admitted together (one frontier call per ADMISSION_BATCH pages) and
 * handed out the same way, round after round, with no job of their own; a changed, failing or new page is a job.
 * Returns the page's links and the pages found unchanged here. A retried attempt does it again (the frontier answers
 * each admission as it did); one that fails for good hands out the pages its own page admitted as jobs
 * (handOutAgain), and those hand out theirs.
 */
export async function handOutLinks(
  deps: HandOutPagesDeps,
  job: PageJob,
  ctx: JobContext,
  page: { finalUrl: string; links: string[] },
): Promise<{ links: string[]; revalidated: string[]; notes: string[] }> {
  const { links, admitted, notes } = await admitLinks(deps, job, ctx, page);
  return { links, revalidated: await handOutPages(deps, job, ctx, admitted), notes };
}

async function handOutPages(
  deps: HandOutPagesDeps,
  job: PageJob,
  ctx: JobContext,
  admitted: string[],
): Promise<string[]> {
  const { libraryId } = job;
  if (!libraryId) {
    await addPageJobs(job, ctx, admitted);
    return [];
  }
  const { seed: _seed, ...crawl } = job;
  const revalidated: string[] = [];
  let budget = REVALIDATIONS_PER_JOB;
  // Round by round: the pages handed out, then the pages the unchanged ones among them lead to.
  for (let round = admitted; round.length > 0;) {
    const known: Array<[string, CrawledPage]> = [];
    const others: string[] = [];
    for (const url of round) {
      const page = budget > 0 ? await deps.staging.getCrawledPage(libraryId, url) : null;
      if (page) {
        budget -= 1;
        known.push([url, page]);
      } else others.push(url);
    }
    await addPageJobs(job, ctx, others);
    const answers = await mapConcurrently(known, REVALIDATION_CONCURRENCY, async ([url, page]) => {
      const answer = await revalidate(deps, { ...crawl, url }, page, ctx.signal);
      if (!answer) await addPageJobs(job, ctx, [url]);
      return answer;
    });
    const unchanged = known.flatMap(([url, page], i) => {
      const answer = answers[i];
      return answer ? [{ url, finalUrl: answer.url, links: page.links, validators: answer.validators }] : [];
    });
    for (const page of unchanged) await stageUnchanged(deps, job.crawlId, page.url, page);
    const next = await admitLinksOfPages(deps, crawl, ctx, unchanged);
    revalidated.push(...unchanged.map((page) => page.url));
    const n = unchanged.length;
    if (n > 0) await ctx.reportProgress({ add: { done: n, pagesCrawled: n, pagesUnchanged: n } });
    round = next.flat();
  }
  return revalidated;
}

/** One conditional request of a known page, in its host's turn. */
async function revalidate(
  deps: HandOutPagesDeps,
  job: PageJob,
  known: CrawledPage,
  signal: AbortSignal,
): Promise<RevalidatedPage | null> {
  const owed = await takeTurn(deps, job, Boolean(known.etag || known.lastModified), signal);
  const page = await deps.loader.revalidate(job.url, { renderer: job.renderer, known, signal });
  if (!page?.notModified) await takeRestOfTurn(deps, job.url, owed);
  return page;
}

/** Stages a page unchanged since the library's last crawl: its chunks stand, its kept links lead the crawl on. */
export async function stageUnchanged(
  deps: { staging: Pick<StagingStore, 'stagePage'>; now?: () => Date },
  crawlId: string,
  url: string,
  page: { finalUrl: string; links: string[]; validators?: PageValidators },
): Promise<void> {
  const { finalUrl, links, validators } = page;
  // Found unchanged now: the page's chunks are confirmed as of this request (see commit-crawl.ts).
  const now = (deps.now ?? (() => new Date()))();
  await deps.staging.stagePage({
    stagingId: crawlId,
    url,
    chunks: [],
    page: {
      finalUrl,
      title: '',
      markdown: '',
      landmark: false,
      links,
      validators,
      unchanged: true,
      fetchedAt: now.toISOString(),
    },
    now,
  });
}

/**
 * `fn` of each item, `concurrency` at a time, in the items' order. Rejects with the first failure once the calls in
 * flight have settled, starting none after it.
 */
async function mapConcurrently<T, R>(items: T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const lanes = await Promise.allSettled(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  const failure = lanes.find((settled) => settled.status === 'rejected');
  if (failure) throw failure.reason;
  return results;
}
