import type { PageLoader } from '../../crawl/page-loader';
import { AppError } from '../../errors';
import {
  fakeContext,
  fakeRecords,
  fakeSite,
  job,
  keptPage,
  ORIGIN,
  page,
  run,
} from '@docshelf/testing/fakes/crawl-site-fakes';
import { MemoryCrawlFrontier } from '@docshelf/testing/fakes/memory-crawl-frontier';
import { runWorkflowInline } from '@docshelf/testing/fakes/run-workflow-inline';
import { crawlPage } from './crawl-page';
import { crawlSiteWorkflow } from './crawl-site.workflow';

describe('crawlSiteWorkflow: what a crawl commits (fake pages, fake records)', () => {
  it('commits a replacement that finds the library exactly as it is in place; one more chunk, and it replaces', async () => {
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
      const store = fakeRecords([keptPage('/', ['/a']), keptPage('/a')]);
      const records = {
        ...store.records,
        countChunks: async () => chunksInLibrary,
        getChunks: async (_libraryId: string, ids: string[]) =>
          ids.map((id, position) => ({ id, content: `The text of ${id}.`, tokenCount: 5, position })),
      };
      const swap = { swapIn: async () => true, discard: async () => undefined };
      const deps = { libraries: records, staging: records, loader, swap, frontier: new MemoryCrawlFrontier() };
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
      // Copied or left in place, the unchanged pages' chunks take this crawl's fetch time and their page's hash.
      const provenance = replaced
        ? commit.chunks.map((c) => c.contentHash)
        : (commit.confirmedPages ?? []).map((p) => p.contentHash);
      expect(provenance.sort()).toEqual(['hash of /', 'hash of /a']);
      for (const c of replaced ? commit.chunks : (commit.confirmedPages ?? []))
        expect(c.fetchedAt).toEqual(expect.any(String));
      expect(children.find((c) => c.name === 'index-ingestion')!.payload).toMatchObject({ replace: replaced });
    }
  });

  it("stamps a page's chunks with when it was fetched and its hash; an unchanged page's chunks are confirmed as of now", async () => {
    const fresh = { ...page('/', ['/a']), validators: { etag: '"new"', contentHash: 'hash of / now' } };
    const loader: PageLoader = {
      ...fakeSite([]).loader,
      load: async (url, options) =>
        new URL(url).pathname === '/' ? fresh : { ...page('/a'), validators: options.known, unchanged: true },
      revalidate: async (url, { known }) => ({ url, validators: known, notModified: true }),
    };
    const store = fakeRecords([keptPage('/a')]);
    const started = new Date().toISOString();
    await run({ loader }, store, job(['/']), fakeContext().ctx);
    const ended = new Date().toISOString();
    const chunks = store.commits.flatMap((commit) => commit.chunks);
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ url: `${ORIGIN}/`, contentHash: 'hash of / now' });
      expect(chunk.fetchedAt! >= started && chunk.fetchedAt! <= ended).toBe(true);
    }
    // The unchanged page's chunk stays as it is, and records that it was seen unchanged by this crawl.
    const confirmed = store.commits.flatMap((commit) => commit.confirmedPages ?? []);
    expect(confirmed).toEqual([{ chunkIds: ['chunk /a'], fetchedAt: expect.any(String), contentHash: 'hash of /a' }]);
    expect(confirmed[0]!.fetchedAt >= started && confirmed[0]!.fetchedAt <= ended).toBe(true);
    expect(chunks.map((c) => c.id)).not.toContain('chunk /a');
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
