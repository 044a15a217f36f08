import type { PageLoader } from '../../crawl/page-loader';
import { AppError } from '../../errors';
import type { ChildJob } from '../../jobs/workflow';
import {
  CRAWL_ID,
  fakeContext,
  fakeRecords,
  fakeSite,
  job,
  ORIGIN,
  page,
  run,
  keptPage,
} from '@docshelf/testing/fakes/crawl-site-fakes';
import { MemoryCrawlFrontier } from '@docshelf/testing/fakes/memory-crawl-frontier';
import { crawlPage } from './crawl-page';

describe('crawlSiteWorkflow: order and hand-out of pages (fake pages, fake records)', () => {
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
    const deps = { staging: store.records, loader: site.loader, frontier };
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
    const store = fakeRecords([
      keptPage('/', ['/a', '/b', '/c']),
      keptPage('/a', ['/a1']),
      keptPage('/b'),
      keptPage('/a1'),
    ]);
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
});
