import {
  crawlPage,
  crawlSiteWorkflow,
  jobCancelled,
  type ChunkInput,
  type CommitIngestionInput,
  type CrawledPage,
  type JobContext,
  type JobPayload,
  type Library,
  type LoadedPage,
  type PageLoader,
  type ProgressChange,
  type StagedPageContent,
} from '@docshelf/core';
import { MemoryCrawlFrontier } from './memory-crawl-frontier';
import { runWorkflowInline } from './run-workflow-inline';

/**
 * A crawl run inline on fakes, for the crawl workflow's tests: a site of fake pages (and its robots.txt), a record
 * store in memory that keeps what the crawl stages and commits, a job context that records progress and can be
 * cancelled, and `run`, which drives crawlSiteWorkflow with crawlPage as its page jobs.
 */
export const ORIGIN = 'https://docs.test';
export const page = (path: string, links: string[] = [], status = 200): LoadedPage => ({
  url: `${ORIGIN}${path}`,
  status,
  renderedWith: 'http',
  text: '',
  markdown: `# Page ${path}\n\nThe content of ${path}.`,
  title: `Page ${path}`,
  links: links.map((l) => `${ORIGIN}${l}`),
});

/** A site in memory: the PageLoader port without a network. */
export function fakeSite(pages: LoadedPage[], robotsTxt: string | null = null) {
  const fetched: string[] = [];
  const loader: PageLoader = {
    async load(url) {
      fetched.push(new URL(url).pathname);
      const found = pages.find((p) => p.url === url);
      return found ?? { ...page(new URL(url).pathname), status: 404 };
    },
    async fetchSiteFile(url) {
      return url.endsWith('/robots.txt') ? robotsTxt : null;
    },
    revalidate: async () => null,
  };
  return { loader, fetched };
}

/** The record store methods a crawl uses, in memory; `known` are the pages the library's last crawl kept. */
export function fakeRecords(known: CrawledPage[] = []) {
  const staged = new Map<string, Map<string, { chunks: ChunkInput[]; page?: StagedPageContent }>>();
  const commits: CommitIngestionInput[] = [];
  const stagedOf = (stagingId: string) =>
    [...(staged.get(stagingId) ?? new Map<string, { chunks: ChunkInput[]; page?: StagedPageContent }>()).entries()].map(
      ([url, page]) => ({ url, ...page }),
    );
  return {
    commits,
    staged,
    records: {
      async stagePage(input: { stagingId: string; url: string; chunks: ChunkInput[]; page?: StagedPageContent }) {
        if (!staged.has(input.stagingId)) staged.set(input.stagingId, new Map());
        staged
          .get(input.stagingId)!
          .set(input.url, { chunks: input.chunks, ...(input.page ? { page: input.page } : {}) });
      },
      async listStagedPages(stagingId: string) {
        return stagedOf(stagingId);
      },
      async listStagedOutlines(stagingId: string, page: { afterUrl?: string; limit: number }) {
        return stagedOf(stagingId)
          .filter((p) => p.url > (page.afterUrl ?? ''))
          .sort((a, b) => (a.url < b.url ? -1 : 1))
          .slice(0, page.limit)
          .map((p) => ({
            url: p.url,
            links: p.page?.links ?? [],
            ...(p.page?.lineKeys ? { lineKeys: p.page.lineKeys } : {}),
            unchanged: p.page?.unchanged === true,
            chunksOnly: !p.page,
          }));
      },
      async getStagedPages(stagingId: string, urls: string[]) {
        return stagedOf(stagingId).filter((p) => urls.includes(p.url));
      },
      async getCrawledPages(_libraryId: string, urls: string[]) {
        return known.filter((page) => urls.includes(page.url));
      },
      async countCrawledPages() {
        return { pages: known.length, chunks: new Set(known.flatMap((page) => page.chunkIds)).size };
      },
      async getCrawledPage(_libraryId: string, url: string) {
        return known.find((page) => page.url === url) ?? null;
      },
      async getChunks() {
        return [];
      },
      async discardStaging(stagingId: string) {
        staged.delete(stagingId);
      },
      async commitIngestion(input: CommitIngestionInput) {
        commits.push(input);
        return { id: input.library.id } as Library;
      },
      async countChunks() {
        return commits.reduce((n, c) => n + c.chunks.length, 0);
      },
    },
  };
}

export function fakeContext(options: { cancelled?: boolean } = {}) {
  const reports: ProgressChange[] = [];
  const ctx: JobContext = {
    workflowId: 'crawl-1',
    signal: new AbortController().signal,
    reportProgress: async (change) => void reports.push(change),
    beginCommit: async () => {
      if (options.cancelled) throw jobCancelled('crawl-1');
    },
    addToWorkflow: async () => {
      throw new Error('the inline runner gives page jobs a context of their own');
    },
  };
  return { ctx, reports };
}

export const CRAWL_ID = '6f1c1e9e-3b0a-4c55-9a51-1f4f3b1c2d3e';
export const job = (
  urls: string[],
  options: Partial<JobPayload<'crawl-site'>['options']> = {},
): JobPayload<'crawl-site'> => ({
  crawlId: CRAWL_ID,
  libraryId: 'acme/docs',
  name: 'Acme',
  urls: urls.map((u) => `${ORIGIN}${u}`),
  replace: false,
  ownerId: 'owner-1',
  options: {
    maxDepth: 1,
    maxPages: 150,
    includePaths: [],
    excludePaths: [],
    respectRobotsTxt: true,
    useSitemap: false,
    renderer: 'http',
    embedAll: false,
    ...options,
  },
});

/** Runs the crawl inline; `added` lists, per page job that handed pages out, the paths it added as jobs. */
export async function run(
  site: Pick<ReturnType<typeof fakeSite>, 'loader'>,
  store: ReturnType<typeof fakeRecords>,
  payload: JobPayload<'crawl-site'>,
  ctx: JobContext,
) {
  const swap = { swapIn: async () => true, discard: async () => undefined };
  const deps = {
    libraries: store.records,
    staging: store.records,
    loader: site.loader,
    swap,
    frontier: new MemoryCrawlFrontier(),
  };
  const added: string[][] = [];
  const outcome = await runWorkflowInline(crawlSiteWorkflow(deps), payload, ctx, {
    'crawl-page': (p, pageCtx) =>
      crawlPage(deps, p, {
        ...pageCtx,
        addToWorkflow: async (children) => {
          added.push(children.map((c) => new URL((c.payload as { url: string }).url).pathname));
          await pageCtx.addToWorkflow(children);
        },
      }),
    'index-ingestion': async (p) => ({ vectorized: p.generate, embedded: 0 }),
    'write-backup': async () => ({ written: true, chunks: 0 }),
  });
  return { ...outcome, added };
}

/** What an earlier crawl kept of the page at `path` (its validators, hash, one chunk and its links). */
export const keptPage = (path: string, links: string[] = []): CrawledPage => ({
  url: `${ORIGIN}${path}`,
  etag: `"${path}"`,
  contentHash: `hash of ${path}`,
  chunkIds: [`chunk ${path}`],
  lineKeys: [],
  links: links.map((l) => `${ORIGIN}${l}`),
});
