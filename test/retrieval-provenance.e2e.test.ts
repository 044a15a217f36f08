import { createHash } from 'node:crypto';
import type http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import request from 'supertest';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const day = (iso: string) => iso.slice(0, 10);

/** Three server-rendered pages with ETags: a re-crawl is answered 304 unless a page changed. */
function docsSite() {
  const html = new Map<string, string>();
  const page = (title: string, text: string) =>
    `<!DOCTYPE html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`;
  html.set(
    '/docs/index.html',
    page('Gadgets', 'Gadget docs. <a href="/docs/install.html">Install</a> <a href="/docs/tuning.html">Tuning</a>'),
  );
  html.set(
    '/docs/install.html',
    page('Install', 'Install gadgets with the gizmoctl installer, then run gizmoctl init.'),
  );
  html.set('/docs/tuning.html', page('Tuning', 'Tune the flux capacitor by setting fluxLevel to eleven.'));
  const route = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const body = html.get(new URL(req.url ?? '/', 'http://site').pathname);
    if (body === undefined) return false;
    const etag = `"${sha256(body).slice(0, 16)}"`;
    if (req.headers['if-none-match'] === etag) res.writeHead(304, { etag }).end();
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag }).end(body);
    return true;
  };
  return {
    route,
    body: (p: string) => html.get(p)!,
    change: () =>
      html.set('/docs/tuning.html', page('Tuning', 'Tune the flux capacitor by setting fluxLevel to twelve.')),
  };
}

interface Sourced {
  libraryId: string;
  libraryVersion: string | null;
  url: string | null;
  fetchedAt: string | null;
  contentHash: string | null;
}

describe('provenance: every search result and context piece names its library, version, page and fetch (API + worker + Redis + SQLite)', () => {
  let h: Harness;
  let server: FixtureServer;
  let site: ReturnType<typeof docsSite>;
  let admin: { Authorization: string };
  let reader: { Authorization: string };

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    admin = { Authorization: `Bearer ${await h.createKey('admin')}` };
    reader = { Authorization: `Bearer ${await h.createKey('read')}` };
    site = docsSite();
    server = await serveFixtures({ routes: site.route });
  });
  afterAll(async () => {
    await server?.close();
    await h?.close();
  });

  const search = async (q: string, libraryId: string) =>
    (await request(h.app).get('/api/search').query({ q, libraryId }).set(reader).expect(200)).body
      .results as (Sourced & {
      chunkId: string;
    })[];
  const contextJson = async (query: string, libraryId: string) =>
    (await request(h.app).get('/api/context').query({ libraryId, query, format: 'json' }).set(reader).expect(200)).body
      .pieces as (Sourced & { chunkId: string })[];
  const contextTxt = async (query: string, libraryId: string) =>
    (await request(h.app).get('/api/context').query({ libraryId, query }).set(reader).expect(200)).text;
  const crawl = async (libraryId: string, replace = false) => {
    const body = { libraryId, name: 'Gadgets', urls: [`${server.origin}/docs/index.html`], replace, renderer: 'http' };
    const started = new Date().toISOString();
    const result = (await request(h.app).post('/api/crawl').set(admin).send(body).expect(200)).body;
    return { result, started, ended: new Date().toISOString() };
  };
  const within = (iso: string | null, window: { started: string; ended: string }) =>
    expect(iso !== null && iso >= window.started && iso <= window.ended).toBe(true);

  it("shows an ingest's library version, time and each page's hash in search, context JSON and context text", async () => {
    const chunks = [
      { id: 'w1', title: 'Widgets › Install', url: 'https://acme.test/install', content: 'Install widgets with npm.' },
      { id: 'w2', title: 'Widgets › Install', url: 'https://acme.test/install', content: 'Widgets need Node 22.' },
      { id: 'w3', title: 'Widgets › Themes', content: 'Dark widgets use the theme option.' },
    ];
    const started = new Date().toISOString();
    const body = { libraryId: 'acme/widgets', name: 'Widgets', version: '2.0', chunks };
    await request(h.app).post('/api/ingest').set(admin).send(body).expect(200);
    const window = { started, ended: new Date().toISOString() };

    const [hit] = await search('install widgets npm', 'acme/widgets');
    expect(hit).toMatchObject({
      libraryId: 'acme/widgets',
      libraryVersion: '2.0',
      url: 'https://acme.test/install',
      // Both chunks of the page carry the hash of its text as sent.
      contentHash: sha256('Install widgets with npm.\n\nWidgets need Node 22.'),
    });
    within(hit!.fetchedAt, window);
    const themes = (await search('dark theme option', 'acme/widgets')).find((r) => r.chunkId === 'w3');
    expect(themes).toMatchObject({ url: null, contentHash: sha256('Dark widgets use the theme option.') });

    const pieces = await contextJson('install widgets npm', 'acme/widgets');
    expect(pieces[0]).toMatchObject({
      libraryId: 'acme/widgets',
      libraryVersion: '2.0',
      url: 'https://acme.test/install',
      fetchedAt: hit!.fetchedAt,
      contentHash: hit!.contentHash,
    });
    const text = await contextTxt('install widgets npm', 'acme/widgets');
    expect(text).toContain(
      `### Widgets › Install\nSource: https://acme.test/install (acme/widgets@2.0, fetched ${day(hit!.fetchedAt!)})\n\n`,
    );
    expect(text).toContain(`### Widgets › Themes\nSource: acme/widgets@2.0, fetched ${day(hit!.fetchedAt!)}\n\n`);
  });

  it("shows a crawled page's fetch time and the hash of its body; an unchanged re-crawl confirms them as of its own fetch", async () => {
    const first = await crawl('acme/gadgets');
    expect(first.result).toMatchObject({ success: true, pagesCrawled: 3, pagesUnchanged: 0 });
    const [hit] = await search('gizmoctl installer', 'acme/gadgets');
    expect(hit).toMatchObject({
      libraryId: 'acme/gadgets',
      libraryVersion: null,
      url: `${server.origin}/docs/install.html`,
      // The crawl's own hash of the page (the one its next crawl compares), stored with each chunk.
      contentHash: sha256(site.body('/docs/install.html')),
    });
    within(hit!.fetchedAt, first);
    const [piece] = await contextJson('gizmoctl installer', 'acme/gadgets');
    expect(piece).toMatchObject({ libraryId: 'acme/gadgets', libraryVersion: null, fetchedAt: hit!.fetchedAt });
    expect(await contextTxt('gizmoctl installer', 'acme/gadgets')).toContain(
      `Source: ${server.origin}/docs/install.html (acme/gadgets, fetched ${day(hit!.fetchedAt!)})\n`,
    );

    await new Promise((resolve) => setTimeout(resolve, 20));
    site.change();
    const second = await crawl('acme/gadgets');
    expect(second.result).toMatchObject({ pagesCrawled: 3, pagesUnchanged: 2 });
    // The unchanged page keeps its chunk and hash, and says it was last fetched by the second crawl.
    const [again] = await search('gizmoctl installer', 'acme/gadgets');
    expect(again).toMatchObject({ chunkId: hit!.chunkId, contentHash: hit!.contentHash });
    within(again!.fetchedAt, second);
    // The changed page's chunks carry its new hash.
    const [tuning] = await search('flux capacitor twelve', 'acme/gadgets');
    expect(tuning).toMatchObject({ contentHash: sha256(site.body('/docs/tuning.html')) });
    within(tuning!.fetchedAt, second);

    // A replacing re-crawl copies the unchanged pages' chunks with the same confirmation.
    const third = await crawl('acme/gadgets', true);
    expect(third.result).toMatchObject({ pagesCrawled: 3, pagesUnchanged: 3 });
    within((await search('gizmoctl installer', 'acme/gadgets'))[0]!.fetchedAt, third);
  });

  it('answers null provenance for chunks stored before it was kept, and a source line without a date', async () => {
    const body = { libraryId: 'acme/legacy', name: 'Legacy', chunks: [{ id: 'l1', content: 'Legacy sprocket docs.' }] };
    await request(h.app).post('/api/ingest').set(admin).send(body).expect(200);
    // A row as a release before this one wrote it.
    const db = new Database(path.join(h.dataDir, 'docshelf.sqlite'));
    db.prepare("UPDATE chunks SET fetched_at = NULL, content_hash = NULL WHERE library_id = 'acme/legacy'").run();
    db.close();

    const [hit] = await search('sprocket', 'acme/legacy');
    expect(hit).toMatchObject({ libraryId: 'acme/legacy', libraryVersion: null, fetchedAt: null, contentHash: null });
    const [piece] = await contextJson('sprocket', 'acme/legacy');
    expect(piece).toMatchObject({ libraryVersion: null, fetchedAt: null, contentHash: null });
    expect(await contextTxt('sprocket', 'acme/legacy')).toBe('### l1\nSource: acme/legacy\n\nLegacy sprocket docs.');
  });
});
