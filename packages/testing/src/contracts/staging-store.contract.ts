import { type CrawledPage, type LibraryStore, type StagedPageContent, type StagingStore } from '@docshelf/core';
import { at, chunk, ingestion, library, T0, type RecordStoresHarness } from './record-fixtures';

/** Behaviour every StagingStore adapter must show: staged pages and the pages crawls kept (with the commits and swaps of the library store that write them). `create` returns a fresh, empty store per test. */
export function describeStagingStoreContract(label: string, create: () => Promise<RecordStoresHarness>): void {
  describe(`StagingStore contract: ${label}`, () => {
    let harness: RecordStoresHarness;
    let store: StagingStore;
    let libraries: LibraryStore;

    beforeEach(async () => {
      harness = await create();
      store = harness.stores.staging;
      libraries = harness.stores.libraries;
    });

    afterEach(async () => {
      await harness.cleanup();
    });

    describe('staged crawl pages', () => {
      const now = new Date('2026-01-01T00:00:00.000Z');

      it('keeps pages per staging id in staging order, last write wins, until discarded', async () => {
        await store.stagePage({
          stagingId: 's1',
          url: 'https://d.test/a',
          chunks: [{ id: 'a1', content: 'A one' }],
          now,
        });
        await store.stagePage({ stagingId: 's1', url: 'https://d.test/b', chunks: [], now });
        await store.stagePage({
          stagingId: 's2',
          url: 'https://d.test/a',
          chunks: [{ id: 'x', content: 'other crawl' }],
          now,
        });
        await store.stagePage({
          stagingId: 's1',
          url: 'https://d.test/a',
          chunks: [{ id: 'a2', title: 'T', content: 'A two', url: 'https://d.test/a', tokenCount: 2 }],
          now,
        });
        expect(await store.listStagedPages('s1')).toEqual([
          {
            url: 'https://d.test/a',
            chunks: [{ id: 'a2', title: 'T', content: 'A two', url: 'https://d.test/a', tokenCount: 2 }],
          },
          { url: 'https://d.test/b', chunks: [] },
        ]);
        await store.discardStaging('s1');
        expect(await store.listStagedPages('s1')).toEqual([]);
        expect(await store.listStagedPages('s2')).toHaveLength(1);
      });

      it('discards stale staging left by crashed crawls', async () => {
        await store.stagePage({
          stagingId: 'old',
          url: 'https://d.test/a',
          chunks: [],
          now: new Date('2020-01-01T00:00:00Z'),
        });
        await store.stagePage({ stagingId: 'new', url: 'https://d.test/a', chunks: [], now });
        await store.discardStaging('none', new Date('2025-01-01T00:00:00Z'));
        expect(await store.listStagedPages('old')).toEqual([]);
        expect(await store.listStagedPages('new')).toHaveLength(1);
      });
    });

    describe('crawled pages (what a re-crawl compares against)', () => {
      const page = (url: string, extra: Partial<CrawledPage> = {}): CrawledPage => ({
        url,
        etag: `"${url}"`,
        lastModified: 'Tue, 02 Jan 2024 10:00:00 GMT',
        contentHash: `hash of ${url}`,
        chunkIds: [`${url}#1`],
        lineKeys: ['k1', 'k2'],
        links: ['https://d.test/b'],
        ...extra,
      });
      /** The pages a library kept, of every URL these tests use, in URL order. */
      const keptPages = async (libraryId: string) =>
        (
          await store.getCrawledPages(
            libraryId,
            ['a', 'b', 'c', 'd', 'e'].map((p) => `https://d.test/${p}`),
          )
        ).sort((x, y) => x.url.localeCompare(y.url));

      it('keeps staged page content beside the chunks, and a page staged again without it loses it', async () => {
        const content = {
          finalUrl: 'https://d.test/a',
          title: 'A',
          markdown: '# A\n\ntext',
          landmark: true,
          links: [],
          validators: { contentHash: 'h' },
        };
        await store.stagePage({ stagingId: 's1', url: 'https://d.test/a', chunks: [], page: content, now: T0 });
        await store.stagePage({
          stagingId: 's1',
          url: 'https://d.test/b',
          chunks: [],
          page: { ...content, markdown: '', unchanged: true },
          now: T0,
        });
        expect(await store.listStagedPages('s1')).toEqual([
          { url: 'https://d.test/a', chunks: [], page: content },
          { url: 'https://d.test/b', chunks: [], page: { ...content, markdown: '', unchanged: true } },
        ]);
        await store.stagePage({ stagingId: 's1', url: 'https://d.test/a', chunks: [], now: T0 });
        expect((await store.listStagedPages('s1'))[0]).toEqual({ url: 'https://d.test/a', chunks: [] });
      });

      it('reads staged pages by URL, and their outlines a page at a time in URL order without their text', async () => {
        const content = (url: string, extra: Partial<StagedPageContent> = {}): StagedPageContent => ({
          finalUrl: url,
          title: url,
          markdown: `# ${url}\n\ntext`,
          landmark: false,
          links: [`${url}/next`],
          lineKeys: [`key of ${url}`],
          ...extra,
        });
        const urls = ['https://d.test/c', 'https://d.test/a', 'https://d.test/e', 'https://d.test/b'];
        for (const url of urls)
          await store.stagePage({ stagingId: 's1', url, chunks: [], page: content(url), now: T0 });
        const { lineKeys: _keys, ...unchanged } = content('https://d.test/d', { unchanged: true, markdown: '' });
        await store.stagePage({ stagingId: 's1', url: 'https://d.test/d', chunks: [], page: unchanged, now: T0 });
        await store.stagePage({ stagingId: 's1', url: 'chunks/000000', chunks: [chunk('x1')], now: T0 });
        await store.stagePage({
          stagingId: 's2',
          url: 'https://d.test/a',
          chunks: [],
          page: content('other'),
          now: T0,
        });

        const first = await store.listStagedOutlines('s1', { limit: 4 });
        const rest = await store.listStagedOutlines('s1', { afterUrl: first.at(-1)!.url, limit: 4 });
        expect([...first, ...rest]).toEqual([
          { url: 'chunks/000000', links: [], unchanged: false, chunksOnly: true },
          ...['a', 'b', 'c'].map((p) => ({
            url: `https://d.test/${p}`,
            links: [`https://d.test/${p}/next`],
            lineKeys: [`key of https://d.test/${p}`],
            unchanged: false,
            chunksOnly: false,
          })),
          { url: 'https://d.test/d', links: ['https://d.test/d/next'], unchanged: true, chunksOnly: false },
          {
            url: 'https://d.test/e',
            links: ['https://d.test/e/next'],
            lineKeys: ['key of https://d.test/e'],
            unchanged: false,
            chunksOnly: false,
          },
        ]);
        expect(await store.listStagedOutlines('s1', { afterUrl: 'https://d.test/e', limit: 4 })).toEqual([]);

        const read = await store.getStagedPages('s1', ['https://d.test/e', 'https://d.test/a', 'https://d.test/none']);
        expect(read.sort((x, y) => x.url.localeCompare(y.url))).toEqual([
          { url: 'https://d.test/a', chunks: [], page: content('https://d.test/a') },
          { url: 'https://d.test/e', chunks: [], page: content('https://d.test/e') },
        ]);
        expect(await store.getStagedPages('s1', [])).toEqual([]);
      });

      it('reads kept pages by URL and counts them with their distinct chunks', async () => {
        const a = page('https://d.test/a', { chunkIds: ['a1', 'shared'] });
        const b = page('https://d.test/b', { chunkIds: ['b1', 'shared'] });
        await libraries.commitIngestion(
          ingestion({ chunks: [chunk('a1'), chunk('b1'), chunk('shared')], crawledPages: [a, b] }),
        );
        const read = await store.getCrawledPages('vercel/next.js', ['https://d.test/b', 'https://d.test/z']);
        expect(read).toEqual([b]);
        expect(await store.getCrawledPages('vercel/next.js', [])).toEqual([]);
        expect(await store.getCrawledPages('other/lib', ['https://d.test/a'])).toEqual([]);
        expect(await store.countCrawledPages('vercel/next.js')).toEqual({ pages: 2, chunks: 3 });
        expect(await store.countCrawledPages('other/lib')).toEqual({ pages: 0, chunks: 0 });
      });

      it('stores pages with a commit, updates them by URL, forgets removed ones and drops removed chunks in the same commit', async () => {
        const a = page('https://d.test/a', { chunkIds: ['a1', 'a2'] });
        const { etag: _none, ...b } = page('https://d.test/b', { chunkIds: ['b1'] });
        await libraries.commitIngestion(
          ingestion({ chunks: [chunk('a1'), chunk('a2'), chunk('b1')], crawledPages: [a, b] }),
        );
        expect(await store.getCrawledPage('vercel/next.js', 'https://d.test/a')).toEqual(a);
        expect(await store.getCrawledPage('vercel/next.js', 'https://d.test/b')).toEqual(b);
        expect(await store.getCrawledPage('other/lib', 'https://d.test/a')).toBeNull();

        const a2 = { ...a, contentHash: 'changed', chunkIds: ['a3'] };
        await libraries.commitIngestion(
          ingestion({
            chunks: [chunk('a3')],
            crawledPages: [a2],
            removeChunkIds: ['a1', 'a2', 'b1'],
            removeCrawledPages: ['https://d.test/b'],
            ingestionId: 'ing-2',
          }),
        );
        expect(await keptPages('vercel/next.js')).toEqual([a2]);
        expect(await store.countCrawledPages('vercel/next.js')).toEqual({ pages: 1, chunks: 1 });
        expect((await libraries.listChunkMeta('vercel/next.js')).map((c) => c.id)).toEqual(['a3']);
        expect((await libraries.getLibrary('vercel/next.js'))?.chunkCount).toBe(1);
      });

      it('replaces the pages with a replacing commit, swaps them in with a staged library and deletes them with the library', async () => {
        await libraries.commitIngestion(
          ingestion({ chunks: [chunk('a1')], crawledPages: [page('https://d.test/a'), page('https://d.test/b')] }),
        );
        await libraries.commitIngestion(
          ingestion({
            chunks: [chunk('c1')],
            replace: true,
            crawledPages: [page('https://d.test/c')],
            ingestionId: 'ing-2',
          }),
        );
        expect((await keptPages('vercel/next.js')).map((p) => p.url)).toEqual(['https://d.test/c']);

        const staged = '~staged/6f1c1e9e-3b0a-4c55-9a51-1f4f3b1c2d3e';
        await libraries.commitIngestion(
          ingestion({
            library: library({ id: staged }),
            chunks: [chunk('d1')],
            replace: true,
            crawledPages: [page('https://d.test/d')],
            ingestionId: 'ing-3',
          }),
        );
        expect(await libraries.swapLibrary(staged, 'vercel/next.js', at(5))).toBe(true);
        expect((await keptPages('vercel/next.js')).map((p) => p.url)).toEqual(['https://d.test/d']);
        expect(await keptPages(staged)).toEqual([]);

        await libraries.deleteLibrary('vercel/next.js');
        expect(await keptPages('vercel/next.js')).toEqual([]);
        expect(await store.countCrawledPages('vercel/next.js')).toEqual({ pages: 0, chunks: 0 });
      });
    });
  });
}
