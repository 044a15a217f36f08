import { readBackup } from '@docshelf/core';
import request from 'supertest';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { mutableSite, recordEmbeddedTexts } from '@docshelf/testing/e2e/mutable-site';

describe.each([
  { replace: true, renderer: 'http' },
  { replace: false, renderer: 'http' },
  { replace: true, renderer: 'browser' },
] as const)(
  're-crawling a library (replace: $replace, renderer: $renderer; real worker, site on 127.0.0.1)',
  ({ replace, renderer }) => {
    let h: Harness;
    let server: FixtureServer;
    let site: ReturnType<typeof mutableSite>;
    let auth: { Authorization: string };
    const embedded: string[] = [];
    const libraryId = `refresh/${replace ? 'replace' : 'update'}-${renderer}`;

    beforeAll(async () => {
      h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
      auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
      site = mutableSite(6);
      server = await serveFixtures({ routes: site.route });
      recordEmbeddedTexts(h.adapters.embedder, embedded);
    });
    afterAll(async () => {
      await server?.close();
      await h?.close();
    });

    const crawl = async () => {
      embedded.length = 0;
      site.statuses.length = 0;
      const body = { libraryId, name: 'Refresh', urls: [`${server.origin}/docs/index.html`], replace, renderer };
      return (await request(h.app).post('/api/crawl').set(auth).send(body).expect(200)).body;
    };
    const chunks = async () =>
      (await h.adapters.libraries.listChunks(libraryId, { offset: 0, limit: 1_000 })).map(
        ({ id, title, content, url }) => ({ id, title, content, url }),
      );
    const expectEveryChunkEmbedded = async () =>
      expect(await h.adapters.vectors.count(libraryId)).toBe((await chunks()).length);
    /** The backups (a snapshot and the increments of re-crawls that changed the library in place) restore it. */
    const expectBackupsToRestoreTheLibrary = async () =>
      expect(
        (await readBackup(h.adapters.backups, libraryId))?.chunks.map(({ id, title, content, url }) => ({
          id,
          title,
          content,
          url,
        })),
      ).toEqual(await chunks());

    it('keeps unchanged pages without extracting or embedding them again, and says so', async () => {
      const first = await crawl();
      expect(first).toMatchObject({ success: true, pagesCrawled: 7, pagesUnchanged: 0, vectorized: true });
      // The site is server-rendered: `auto` and `http` load no page in Chromium, `browser` loads every one.
      expect(first.pagesRendered).toBe(renderer === 'browser' ? 7 : 0);
      expect(embedded.length).toBe(first.chunksIngested);
      const before = await chunks();

      const again = await crawl();
      // Unchanged pages are answered by a 304: none is loaded in Chromium again.
      expect(again).toEqual({ ...first, pagesUnchanged: 7, pagesRendered: 0 });
      expect(embedded).toEqual([]);
      expect(site.statuses.filter((s) => s === 304)).toHaveLength(7);
      expect(await chunks()).toEqual(before);
      await expectEveryChunkEmbedded();
      // The kept vectors still find their pages.
      const hits = await request(h.app).get('/api/search').set(auth).query({ q: 'page3first', libraryId }).expect(200);
      expect(JSON.stringify(hits.body)).toContain('/docs/p3.html');
    }, 180_000);

    it('re-extracts and re-embeds only a page that changed', async () => {
      site.change(2);
      const result = await crawl();
      expect(result).toMatchObject({ pagesCrawled: 7, pagesUnchanged: 6 });
      expect(embedded.length).toBeGreaterThan(0);
      expect(embedded.every((text) => text.includes('Page 2'))).toBe(true);
      const text = (await chunks()).map((c) => c.content).join('\n');
      expect(text).toContain('page2second');
      expect(text).not.toContain('page2first');
      expect(text).toContain('page3first');
      await expectEveryChunkEmbedded();
      await expectBackupsToRestoreTheLibrary();
    }, 180_000);

    it('drops the chunks of a page that is gone (404), keeping the rest', async () => {
      site.remove(4);
      const result = await crawl();
      expect(result).toMatchObject({
        pagesCrawled: 6,
        pagesUnchanged: 6,
        errors: [`${server.origin}/docs/p4.html: HTTP 404`],
      });
      expect(embedded).toEqual([]);
      const all = await chunks();
      expect(all.some((c) => c.url?.endsWith('/docs/p4.html'))).toBe(false);
      expect(new Set(all.map((c) => c.url)).size).toBe(6);
      await expectEveryChunkEmbedded();
      await expectBackupsToRestoreTheLibrary();
    }, 180_000);
  },
);
