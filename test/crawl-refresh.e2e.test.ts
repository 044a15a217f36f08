import { createHash } from 'node:crypto';
import type http from 'node:http';
import { readBackup } from '@docshelf/core';
import request from 'supertest';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';

const WORDS =
  'queue worker retry backoff lock lease schedule cron payload handler timeout priority batch ack nack'.split(' ');
const prose = (seed: number, words: number) =>
  Array.from({ length: words }, (_, i) => WORDS[(seed * 5 + i * 7 + ((seed * i) % 3)) % WORDS.length]).join(' ');

/** A small site whose pages can change or disappear between crawls; pages carry ETag and Last-Modified. */
function mutableSite(pages: number) {
  const html = new Map<string, string>();
  const page = (n: number, revision: string) =>
    `<!DOCTYPE html><html><head><title>Page ${n}</title></head><body><nav><a href="/docs/index.html">Home</a></nav><main>
<h1>Page ${n}: ${revision}</h1><p>Keyword page${n}${revision}. ${prose(n, 120)}.</p><h2>More</h2><p>${prose(n + 50, 80)}.</p></main></body></html>`;
  const paths = Array.from({ length: pages }, (_, i) => `/docs/p${i + 1}.html`);
  html.set(
    '/docs/index.html',
    `<!DOCTYPE html><html><head><title>Index</title></head><body><main><h1>Docs</h1><p>${prose(0, 60)}.</p>
<ul>${paths.map((p) => `<li><a href="${p}">${p}</a></li>`).join('')}</ul></main></body></html>`,
  );
  paths.forEach((p, i) => html.set(p, page(i + 1, 'first')));
  const statuses: number[] = [];
  const route = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    if (!path.startsWith('/docs/')) return false;
    const body = html.get(path);
    if (body === undefined) {
      statuses.push(404);
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>Not found</h1></body></html>');
      return true;
    }
    const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
    const validators = { etag, 'last-modified': 'Tue, 02 Jan 2024 10:00:00 GMT' };
    const status = req.headers['if-none-match'] === etag ? 304 : 200;
    statuses.push(status);
    if (status === 304) res.writeHead(304, validators).end();
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...validators }).end(body);
    return true;
  };
  return {
    route,
    statuses,
    change: (n: number) => html.set(`/docs/p${n}.html`, page(n, 'second')),
    remove: (n: number) => html.delete(`/docs/p${n}.html`),
  };
}

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
    let embedded: string[];
    const libraryId = `refresh/${replace ? 'replace' : 'update'}-${renderer}`;

    beforeAll(async () => {
      h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
      auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
      site = mutableSite(6);
      server = await serveFixtures({ routes: site.route });
      // Every text the worker's embedder is asked for (the worker shares this embedder object).
      const embed = h.adapters.embedder.embed.bind(h.adapters.embedder);
      h.adapters.embedder.embed = async (texts, scope) => {
        if (scope?.kind === 'document') embedded.push(...texts);
        return embed(texts, scope);
      };
    });
    afterAll(async () => {
      await server?.close();
      await h?.close();
    });

    const crawl = async () => {
      embedded = [];
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
