import request from 'supertest';
import { DOCS_SITE, serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { freePort } from '@docshelf/testing/e2e/service-process';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';

describe('POST /api/ingest-url (session only)', () => {
  let h: Harness;
  let site: FixtureServer;
  let cookie: string;

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    site = await serveFixtures({ root: DOCS_SITE });
    cookie = await h.login();
  });
  afterAll(async () => {
    await site.close();
    await h.close();
  });

  const ingestUrl = (body: object) => request(h.app).post('/api/ingest-url').set('Cookie', cookie).send(body);
  const chunksOf = (libraryId: string) => h.adapters.libraries.listChunks(libraryId, { offset: 0, limit: 1_000 });

  it('parses an llms.txt by its structure: header, one chunk per section, the Optional section marked', async () => {
    const res = await ingestUrl({
      libraryId: 'llms/widgetry',
      name: 'Widgetry',
      sourceUrl: `${site.origin}/llms.txt`,
      sourceType: 'llms_txt',
    }).expect(200);
    expect(res.body).toEqual({ success: true, libraryId: 'llms/widgetry', chunksIngested: 4, vectorized: true });
    const chunks = await chunksOf('llms/widgetry');
    expect(chunks.map((c) => c.title)).toEqual([
      'Widgetry',
      'Widgetry › Docs',
      'Widgetry › API',
      expect.stringMatching(/^Widgetry › Optional.*optional/i),
    ]);
    expect(chunks[0]!.content).toContain('Widgetry builds dashboards');
    expect(chunks[1]!.content).toContain('https://widgetry.test/guide/configuration.html');
    const library = (await request(h.app).get('/api/libraries/llms/widgetry').expect(200)).body.library;
    expect(library).toMatchObject({ sourceType: 'llms_txt', sourceUrl: `${site.origin}/llms.txt`, chunkCount: 4 });
  });

  it('extracts a plain page without its chrome, and replaces the chunks of an existing library', async () => {
    await ingestUrl({
      libraryId: 'page/config',
      name: 'Config',
      sourceUrl: `${site.origin}/guide/getting-started.html`,
      sourceType: 'html',
    }).expect(200);
    const res = await ingestUrl({
      libraryId: 'page/config',
      name: 'Config',
      sourceUrl: `${site.origin}/guide/configuration.html`,
      sourceType: 'html',
    }).expect(200);
    expect(res.body).toMatchObject({ chunksIngested: 1, vectorized: true });
    const chunks = await chunksOf('page/config');
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.content).toContain('refreshInterval');
    expect(chunks[0]!.content).not.toMatch(/CHROME|npm install widgetry/);
    expect(await h.adapters.vectors.count('page/config')).toBe(1);
  });

  it('renders a script-shell page in the browser', async () => {
    await ingestUrl({
      libraryId: 'page/shell',
      name: 'Shell',
      sourceUrl: `${site.origin}/shell.html`,
      sourceType: 'page',
    }).expect(200);
    const chunks = await chunksOf('page/shell');
    expect(chunks.map((c) => c.content).join('\n')).toContain('SHELLRENDERED');
  });

  it('answers 400 for an unreachable URL, an HTTP error and a blocked address', async () => {
    const port = await freePort();
    const refused = await ingestUrl({
      libraryId: 'bad/a',
      name: 'A',
      sourceUrl: `http://127.0.0.1:${port}/llms.txt`,
      sourceType: 'llms_txt',
    }).expect(400);
    expect(refused.body.code).toBe('URL_UNREACHABLE');
    const missing = await ingestUrl({
      libraryId: 'bad/b',
      name: 'B',
      sourceUrl: `${site.origin}/nope.txt`,
      sourceType: 'llms_txt',
    }).expect(400);
    expect(missing.body).toMatchObject({ code: 'URL_UNREACHABLE', error: expect.stringContaining('HTTP 404') });
    const blocked = await ingestUrl({
      libraryId: 'bad/c',
      name: 'C',
      sourceUrl: 'http://[::ffff:127.0.0.2]:9/latest/meta-data/',
      sourceType: 'page',
    }).expect(400);
    expect(blocked.body.code).toBe('URL_BLOCKED');
    await request(h.app).get('/api/libraries/bad/a').expect(404);
  });

  it('answers 400 NO_CONTENT with the reason for a page whose text no rule calls content, and writes nothing', async () => {
    const prose = 'The only prose of this page stands in a form field, which is never content. '.repeat(6);
    const fields = await serveFixtures({
      routes: (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<html><body><main><h1>Field</h1><textarea>${prose}</textarea></main></body></html>`);
        return true;
      },
    });
    try {
      const res = await ingestUrl({
        libraryId: 'bad/field',
        name: 'Field',
        sourceUrl: `${fields.origin}/field`,
        sourceType: 'page',
      }).expect(400);
      expect(res.body).toMatchObject({
        code: 'NO_CONTENT',
        error: expect.stringMatching(/no content found in a page whose body holds about \d+ words of text/),
      });
      await request(h.app).get('/api/libraries/bad/field').expect(404);
    } finally {
      await fields.close();
    }
  });

  it('refuses API keys, even admin ones (401), and validates its body', async () => {
    const key = await h.createKey('admin');
    const body = { libraryId: 'k', name: 'K', sourceUrl: `${site.origin}/llms.txt`, sourceType: 'llms_txt' };
    await request(h.app).post('/api/ingest-url').set('Authorization', `Bearer ${key}`).send(body).expect(401);
    await request(h.app).post('/api/ingest-url').send(body).expect(401);
    const missing = await ingestUrl({ libraryId: 'k', name: 'K', sourceType: 'llms_txt' }).expect(400);
    expect(missing.body.details[0].path).toBe('sourceUrl');
    await ingestUrl({ libraryId: 'k', name: 'K', sourceUrl: `${site.origin}/llms.txt` }).expect(400);
  });
});
