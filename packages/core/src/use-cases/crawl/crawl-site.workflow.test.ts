import type { LoadedPage, PageLoader } from '../../crawl/page-loader';
import type { ChunkInput, Library } from '../../domain/types';
import { AppError } from '../../errors';
import type { ProgressChange } from '../../jobs/job-record';
import type { JobPayload } from '../../jobs/registry';
import { jobCancelled, type ChildJob, type JobContext } from '../../jobs/workflow';
import type { CommitIngestionInput, CrawledPage, StagedPageContent } from '../../ports';
import { MemoryCrawlFrontier } from '../../testing/memory-crawl-frontier';
import { runWorkflowInline } from '../../testing/run-workflow-inline';
import { crawlPage } from './crawl-page';
import { crawlSiteWorkflow } from './crawl-site.workflow';

const ORIGIN = 'https://docs.test';
const page = (path: string, links: string[] = [], status = 200): LoadedPage => ({
  url: `${ORIGIN}${path}`,
  status,
  renderedWith: 'http',
  text: '',
  markdown: `# Page ${path}\n\nThe content of ${path}.`,
  title: `Page ${path}`,
  links: links.map((l) => `${ORIGIN}${l}`),
});

/** A site in memory: the PageLoader port without a network. */
function fakeSite(pages: LoadedPage[], robotsTxt: string | null = null) {
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
function fakeRecords(known: CrawledPage[] = []) {
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

function fakeContext(options: { cancelled?: boolean } = {}) {
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

const CRAWL_ID = '6f1c1e9e-3b0a-4c55-9a51-1f4f3b1c2d3e';
const job = (urls: string[], options: Partial<JobPayload<'crawl-site'>['options']> = {}): JobPayload<'crawl-site'> => ({
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
async function run(
  site: Pick<ReturnType<typeof fakeSite>, 'loader'>,
  store: ReturnType<typeof fakeRecords>,
  payload: JobPayload<'crawl-site'>,
  ctx: JobContext,
) {
  const swap = { swapIn: async () => true, discard: async () => undefined };
  const deps = { records: store.records, loader: site.loader, swap, frontier: new MemoryCrawlFrontier() };
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

describe('crawlSiteWorkflow (fake pages, fake records)', () => {
  it('crawls the seed and its links breadth-first within maxPages, minding robots.txt and the origin, and commits once', async () => {
    const site = fakeSite(
      [
        page('/', ['/a', '/b', '/private/c', '/d', '/a']),
        { ...page('/a', ['/deeper']), renderedWith: 'browser' },
        page('/b'),
        page('/d'),
      ],
      'User-agent: *\nDisallow: /private/\n',
    );
    const store = fakeRecords();
    const { ctx, reports } = fakeContext();
    const { result, children } = await run(site, store, job(['/'], { maxPages: 3 }), ctx);

    expect(result).toEqual({
      success: true,
      libraryId: 'acme/docs',
      pagesDiscovered: 5,
      pagesCrawled: 3,
      pagesRendered: 1,
      pagesUnchanged: 0,
      chunksIngested: 3,
      vectorized: true,
      errors: [],
    });
    expect(site.fetched).toEqual(['/', '/a', '/b']);
    expect(children.map((c) => c.name)).toEqual([
      'crawl-page',
      'crawl-page',
      'crawl-page',
      'index-ingestion',
      'write-backup',
    ]);
    expect(store.commits).toHaveLength(1);
    expect(store.commits[0]!.chunks.map((c) => c.url)).toEqual([`${ORIGIN}/`, `${ORIGIN}/a`, `${ORIGIN}/b`]);
    expect(store.staged.size).toBe(0);
    // Page jobs add what they find as they go; the coordinator sets the exact counts at the start and once all are done.
    expect(reports[0]).toEqual({
      phase: 'crawling',
      set: { pagesDiscovered: 1, pagesCrawled: 0, pagesFailed: 0, pagesRendered: 0, done: 0, total: 1 },
    });
    expect(reports).toContainEqual({ add: { pagesDiscovered: 4, total: 2 } });
    expect(reports).toContainEqual({ add: { done: 1, pagesCrawled: 1, pagesRendered: 1 } });
    // Once every page is done, the exact counts: assigned, so a page counted twice live is not left overcounted.
    expect(reports).toContainEqual({
      phase: 'crawling',
      set: { done: 3, total: 3 },
      exact: { pagesDiscovered: 5, pagesCrawled: 3, pagesFailed: 0, pagesRendered: 1, pagesUnchanged: 0 },
    });
  });

  it("hands a page's links out as soon as that page is done, and commits its pages in breadth-first order", async () => {
    const site = fakeSite([
      page('/', ['/a', '/b']),
      page('/a', ['/a1', '/b']),
      page('/b', ['/b1', '/a1']),
      page('/a1', ['/deep']),
      page('/b1'),
    ]);
    const store = fakeRecords();
    const { ctx } = fakeContext();
    const { result, added } = await run(site, store, job(['/'], { maxDepth: 2 }), ctx);
    // Each page job adds the new pages it found, once each; /a1's links are two levels down: not followed.
    expect(added).toEqual([['/a', '/b'], ['/a1'], ['/b1']]);
    expect(result).toMatchObject({ pagesDiscovered: 5, pagesCrawled: 5, errors: [] });
    expect(store.commits[0]!.chunks.map((c) => new URL(c.url!).pathname)).toEqual(['/', '/a', '/b', '/a1', '/b1']);
  });

  it('a page job retried after it stopped mid-way hands out again what its first attempt admitted', async () => {
    const site = fakeSite([page('/', ['/a', '/b'])]);
    const store = fakeRecords();
    const frontier = new MemoryCrawlFrontier();
    const { ctx } = fakeContext();
    await frontier.open(CRAWL_ID, {
      origins: [ORIGIN],
      includePaths: [],
      excludePaths: [],
      robotsTxt: null,
      useSitemap: false,
      found: [`${ORIGIN}/`],
      scheduled: [`${ORIGIN}/`],
      budget: 149,
      maxDepth: 1,
    });
    const payload = {
      crawlId: CRAWL_ID,
      url: `${ORIGIN}/`,
      discover: true,
      fanOut: true,
      seed: true,
      renderer: 'http' as const,
    };
    const deps = { records: store.records, loader: site.loader, frontier };
    const crashing = { ...ctx, addToWorkflow: async () => Promise.reject(new Error('the worker stopped')) };
    await expect(crawlPage(deps, payload, crashing)).rejects.toThrow('the worker stopped');
    // The page failed before its next attempt could load it again: what it admitted is still handed out.
    const added: string[] = [];
    const failing = {
      ...deps,
      loader: {
        ...site.loader,
        load: async () => Promise.reject(new AppError('URL_UNREACHABLE', 'connection reset', 400)),
      },
    };
    const retry = {
      ...ctx,
      addToWorkflow: async (children: ChildJob[]) =>
        void added.push(...children.map((c) => (c.payload as { url: string }).url)),
    };
    await expect(crawlPage(failing, payload, retry)).rejects.toMatchObject({ code: 'URL_UNREACHABLE' });
    expect(added).toEqual([`${ORIGIN}/a`, `${ORIGIN}/b`]);
  });

  it('in a re-crawl, asks for the known pages a page hands out itself: only changed and new pages get jobs', async () => {
    const site = fakeSite([
      page('/', ['/a', '/b', '/c']),
      page('/a', ['/a1']),
      page('/b', ['/b1']),
      page('/c'),
      page('/a1'),
      page('/b1'),
    ]);
    const kept = (path: string, links: string[] = []): CrawledPage => ({
      url: `${ORIGIN}${path}`,
      etag: `"${path}"`,
      contentHash: `hash of ${path}`,
      chunkIds: [`chunk ${path}`],
      lineKeys: [],
      links: links.map((l) => `${ORIGIN}${l}`),
    });
    const store = fakeRecords([kept('/', ['/a', '/b', '/c']), kept('/a', ['/a1']), kept('/b'), kept('/a1')]);
    const revalidated: string[] = [];
    const loader: PageLoader = {
      ...site.loader,
      async load(url, options) {
        const path = new URL(url).pathname;
        if (path !== '/' || !options.known) return site.loader.load(url, options);
        site.fetched.push(path);
        return { ...page('/'), markdown: '', validators: options.known, unchanged: true, notModified: true };
      },
      async revalidate(url, { known }) {
        const path = new URL(url).pathname;
        revalidated.push(path);
        return path === '/b' ? null : { url, validators: known, notModified: true };
      },
    };
    const { ctx, reports } = fakeContext();
    const { result, added } = await run({ loader }, store, job(['/'], { maxDepth: 2 }), ctx);
    // /c is new: a job at once; /b changed: a job once its conditional request says so; /a and /a1 need none.
    expect(revalidated).toEqual(['/a', '/b', '/a1']);
    expect(added).toEqual([['/c'], ['/b'], ['/b1']]);
    expect(site.fetched).toEqual(['/', '/c', '/b', '/b1']);
    expect(result).toMatchObject({ pagesDiscovered: 6, pagesCrawled: 6, pagesUnchanged: 3, errors: [] });
    // Live progress counts the pages checked without a job like any other.
    expect(reports.reduce((n, r) => n + (r.add?.pagesUnchanged ?? 0), 0)).toBe(3);
    const [commit, removal] = store.commits;
    // In breadth-first order; the fake pages that came whole carry no validators, so only the unchanged are recorded.
    expect(commit!.crawledPages!.map((p) => new URL(p.url).pathname)).toEqual(['/', '/a', '/a1']);
    expect(commit!.chunks.map((c) => new URL(c.url!).pathname)).toEqual(['/b', '/c', '/b1']);
    // The changed page's old chunk goes, once every page is in; the unchanged pages' chunks stand.
    expect(removal).toMatchObject({ chunks: [], removeChunkIds: ['chunk /b'], removeCrawledPages: [] });
    expect(store.commits).toHaveLength(2);
  });

  it('commits a replacement that finds the library exactly as it is in place; one more chunk, and it replaces', async () => {
    const kept = (path: string, links: string[] = []): CrawledPage => ({
      url: `${ORIGIN}${path}`,
      etag: `"${path}"`,
      contentHash: `hash of ${path}`,
      chunkIds: [`chunk ${path}`],
      lineKeys: [],
      links: links.map((l) => `${ORIGIN}${l}`),
    });
    const site = fakeSite([page('/', ['/a']), page('/a')]);
    const loader: PageLoader = {
      ...site.loader,
      load: async (url, options) => ({ ...page(new URL(url).pathname), validators: options.known, unchanged: true }),
      revalidate: async (url, { known }) => ({ url, validators: known, notModified: true }),
    };
    for (const [chunksInLibrary, replaced] of [
      [2, false],
      [3, true],
    ] as const) {
      const store = fakeRecords([kept('/', ['/a']), kept('/a')]);
      const records = {
        ...store.records,
        countChunks: async () => chunksInLibrary,
        getChunks: async (_libraryId: string, ids: string[]) =>
          ids.map((id, position) => ({ id, content: `The text of ${id}.`, tokenCount: 5, position })),
      };
      const swap = { swapIn: async () => true, discard: async () => undefined };
      const deps = { records, loader, swap, frontier: new MemoryCrawlFrontier() };
      const { result, children } = await runWorkflowInline(
        crawlSiteWorkflow(deps),
        { ...job(['/']), replace: true },
        fakeContext().ctx,
        {
          'crawl-page': (p, pageCtx) => crawlPage(deps, p, pageCtx),
          'index-ingestion': async (p) => ({ vectorized: p.generate, embedded: 0 }),
          'write-backup': async () => ({ written: true, chunks: 0 }),
        },
      );
      expect(result).toMatchObject({ pagesCrawled: 2, pagesUnchanged: 2, chunksIngested: 2, errors: [] });
      const commit = store.commits[0]!;
      expect(commit.replace).toBe(replaced);
      expect(commit.library.id === 'acme/docs').toBe(!replaced);
      expect(commit.chunks).toHaveLength(replaced ? 2 : 0);
      expect(children.find((c) => c.name === 'index-ingestion')!.payload).toMatchObject({ replace: replaced });
    }
  });

  it('turns a failed page into an errors entry and crawls several URLs without discovery', async () => {
    const site = fakeSite([page('/a', ['/never']), page('/b')]);
    const store = fakeRecords();
    const { result } = await run(site, store, job(['/a', '/missing', '/b']), fakeContext().ctx);
    expect(result).toMatchObject({ pagesDiscovered: 3, pagesCrawled: 2, errors: [`${ORIGIN}/missing: HTTP 404`] });
    expect(site.fetched).toEqual(['/a', '/missing', '/b']);
  });

  it('fails with NO_CONTENT when no page had content, committing nothing', async () => {
    const site = fakeSite([]);
    const store = fakeRecords();
    const failure = run(site, store, job(['/gone']), fakeContext().ctx);
    await expect(failure).rejects.toMatchObject({
      code: 'NO_CONTENT',
      status: 400,
      details: [`${ORIGIN}/gone: HTTP 404`],
    });
    expect(store.commits).toEqual([]);
  });

  it('commits nothing when the job was cancelled before its commit', async () => {
    const site = fakeSite([page('/')]);
    const store = fakeRecords();
    await expect(run(site, store, job(['/']), fakeContext({ cancelled: true }).ctx)).rejects.toBeInstanceOf(AppError);
    expect(store.commits).toEqual([]);
  });

  it('commits a big crawl a hundred pages a write, in breadth-first order, without reading every staged page at once', async () => {
    const paths = Array.from({ length: 249 }, (_, i) => `/p${String(i).padStart(3, '0')}`);
    // The seed links to the pages in reverse; each page links to its successor, which it does not lead to first.
    const site = fakeSite([
      page('/', [...paths].reverse()),
      ...paths.map((path, i) => page(path, paths.slice(i + 1, i + 2))),
    ]);
    const store = fakeRecords();
    const listed = jest.spyOn(store.records, 'listStagedPages');
    const { ctx, reports } = fakeContext();
    const { result } = await run(site, store, { ...job(['/'], { maxPages: 250 }), replace: true }, ctx);
    expect(result).toMatchObject({ pagesCrawled: 250, chunksIngested: 250, errors: [] });
    expect(store.commits.map((c) => [c.chunks.length, c.replace])).toEqual([
      [100, true],
      [100, false],
      [50, false],
    ]);
    const written = store.commits.flatMap((c) => c.chunks.map((chunk) => new URL(chunk.url!).pathname));
    expect(written).toEqual(['/', ...[...paths].reverse()]);
    expect(listed).not.toHaveBeenCalled();
    expect(reports).toContainEqual({
      phase: 'committing',
      set: { total: 250, pagesUnchanged: 0 },
      exact: { done: 0 },
    });
    expect(reports).toContainEqual({ set: { done: 250 } });
  });
});
