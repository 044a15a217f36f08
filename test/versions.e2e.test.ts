import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { DOCS_SITE, serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';

/** Two releases of one library: the same pages, each release's text its own, so a read shows which it came from. */
const release = (version: string, call: string) => [
  {
    id: 'setup',
    title: 'Demo › Setup',
    url: `https://demo.example/${version}/setup`,
    content: `Start the demo client with ${call}; version ${version} reads its settings from demo.config.json.`,
  },
  {
    id: 'retries',
    title: 'Demo › Retries',
    url: `https://demo.example/${version}/retries`,
    content: `In version ${version} a failed request is retried three times before ${call} reports the error.`,
  },
];

describe('library versions: side by side, read by base id, exact id and MCP (API + worker + Redis + SQLite)', () => {
  let h: Harness;
  let admin: string;
  let reader: string;

  const ingest = (body: object) =>
    request(h.app)
      .post('/api/ingest')
      .set('Authorization', `Bearer ${admin}`)
      .send({ name: 'Demo', description: 'The demo client library', ...body });
  const read = (path: string, query: Record<string, string>) =>
    request(h.app).get(path).query(query).set('Authorization', `Bearer ${reader}`);
  /** The ids of the `demo/…` libraries there are. */
  const libraryIds = async () =>
    ((await request(h.app).get('/api/libraries').expect(200)).body.libraries as { id: string }[])
      .map((l) => l.id)
      .filter((id) => id.startsWith('demo/'));

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    admin = await h.createKey('admin');
    reader = await h.createKey('read');
    // 1.10.0 first: the later-created 1.2.0 and string order would both pick 1.2.0; semver picks 1.10.0.
    await ingest({ libraryId: 'demo/lib@1.10.0', chunks: release('1.10.0', 'demo.start()') }).expect(200);
    await ingest({ libraryId: 'demo/lib@1.2.0', version: '1.2.0', chunks: release('1.2.0', 'demo.connect()') }).expect(
      200,
    );
  });
  afterAll(async () => {
    await h.close();
  });

  it('keeps each version a library of its own, its version field that version', async () => {
    expect(await libraryIds()).toEqual(['demo/lib@1.10.0', 'demo/lib@1.2.0']);
    for (const version of ['1.2.0', '1.10.0']) {
      const res = await request(h.app).get(`/api/libraries/demo/lib@${version}`).expect(200);
      expect(res.body.library).toMatchObject({ id: `demo/lib@${version}`, version, chunkCount: 2 });
      expect(res.body.chunks.map((c: { url: string }) => c.url)).toEqual([
        `https://demo.example/${version}/setup`,
        `https://demo.example/${version}/retries`,
      ]);
    }
  });

  it('reads the newest version by semver order for a base id, and says which it read', async () => {
    const search = await read('/api/search', { q: 'how is a failed request retried', libraryId: 'demo/lib' }).expect(
      200,
    );
    expect(search.body.results.length).toBeGreaterThan(0);
    for (const result of search.body.results) {
      expect(result).toMatchObject({ libraryId: 'demo/lib@1.10.0', libraryVersion: '1.10.0' });
      expect(result.content).toContain('demo.start()');
    }

    const context = await read('/api/context', { libraryId: 'demo/lib', query: 'retries', format: 'json' }).expect(200);
    expect(context.body.libraryId).toBe('demo/lib@1.10.0');
    expect(context.body.pieces.map((p: { libraryId: string }) => p.libraryId)).toEqual(
      context.body.pieces.map(() => 'demo/lib@1.10.0'),
    );
    const text = await read('/api/context', { libraryId: 'demo/lib', query: 'retries' }).expect(200);
    expect(text.text).toMatch(/\(demo\/lib@1\.10\.0, fetched \d{4}-\d\d-\d\d\)/);
    expect(text.text).not.toContain('demo.connect()');

    const chunks = await read('/api/chunks', { libraryId: 'demo/lib' }).expect(200);
    expect(chunks.body).toMatchObject({ libraryId: 'demo/lib@1.10.0', total: 2, nextOffset: null });
    expect(chunks.body.chunks[0].content).toContain('demo.start()');
  });

  it('reads exactly the version an id names', async () => {
    const search = await read('/api/search', { q: 'retried', libraryId: 'demo/lib@1.2.0' }).expect(200);
    expect(search.body.results.map((r: { libraryId: string }) => r.libraryId)).toContain('demo/lib@1.2.0');
    expect(search.body.results.every((r: { content: string }) => r.content.includes('demo.connect()'))).toBe(true);

    const context = await read('/api/context', { libraryId: 'demo/lib@1.2.0', query: 'settings', format: 'json' });
    expect(context.status).toBe(200);
    expect(context.body.libraryId).toBe('demo/lib@1.2.0');
    expect(context.body.pieces[0].content).toContain('demo.connect()');

    const chunks = await read('/api/chunks', { libraryId: 'demo/lib@1.2.0' }).expect(200);
    expect(chunks.body.libraryId).toBe('demo/lib@1.2.0');
  });

  it('answers 404 LIBRARY_NOT_FOUND for a version that does not exist, naming those that do', async () => {
    for (const [path, query] of [
      ['/api/search', { q: 'retries', libraryId: 'demo/lib@9.0.0' }],
      ['/api/context', { query: 'retries', libraryId: 'demo/lib@9.0.0' }],
      ['/api/chunks', { libraryId: 'demo/lib@9.0.0' }],
    ] as const) {
      const res = await read(path, query).expect(404);
      expect(res.body).toEqual({
        error: "Library 'demo/lib@9.0.0' not found; its versions are demo/lib@1.10.0, demo/lib@1.2.0",
        code: 'LIBRARY_NOT_FOUND',
      });
    }
    const unknown = await read('/api/search', { q: 'retries', libraryId: 'demo/other' }).expect(404);
    expect(unknown.body.code).toBe('LIBRARY_NOT_FOUND');
    await request(h.app).get('/api/libraries/demo/lib@9.0.0').expect(404);
  });

  it('refuses a version with characters a version may not have, and writes nothing', async () => {
    const res = await ingest({ libraryId: 'demo/lib@2.0!', chunks: release('2.0', 'demo.go()') }).expect(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(res.body.details)).toContain(
      'the version after \\"@\\" may contain only letters, digits, \\".\\", \\"_\\", \\"-\\" and \\"+\\"',
    );
    const twice = await ingest({ libraryId: 'demo/lib@1@2', chunks: release('2.0', 'demo.go()') }).expect(400);
    expect(JSON.stringify(twice.body.details)).toContain('only once');
    const search = await read('/api/search', { q: 'retries', libraryId: 'demo/lib@2.0 beta' }).expect(400);
    expect(search.body.code).toBe('VALIDATION_FAILED');
    expect(await libraryIds()).toEqual(['demo/lib@1.10.0', 'demo/lib@1.2.0']);
  });

  it('refuses a body version that contradicts the id, and writes nothing', async () => {
    const res = await ingest({
      libraryId: 'demo/lib@2.0.0',
      version: '2.1.0',
      chunks: release('2.0.0', 'demo.go()'),
    }).expect(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(res.body.details).toEqual([
      expect.objectContaining({
        path: 'version',
        message: "version '2.1.0' contradicts libraryId 'demo/lib@2.0.0', which is version '2.0.0'",
      }),
    ]);
    expect(await libraryIds()).toEqual(['demo/lib@1.10.0', 'demo/lib@1.2.0']);
    expect(await h.adapters.backups.list('demo/lib@2.0.0')).toEqual([]);
  });

  it('gives a crawled or URL-fetched library the version its id names', async () => {
    const site: FixtureServer = await serveFixtures({ root: DOCS_SITE });
    try {
      await request(h.app)
        .post('/api/crawl')
        .set('Authorization', `Bearer ${admin}`)
        .send({
          libraryId: 'site/widgetry@2.0.0-beta.1',
          name: 'Widgetry',
          urls: [`${site.origin}/guide/getting-started.html`],
          renderer: 'http',
        })
        .expect(200);
      await request(h.app)
        .post('/api/ingest-url')
        .set('Cookie', await h.login())
        .send({
          libraryId: 'llms/widgetry@2024.11',
          name: 'Widgetry',
          sourceUrl: `${site.origin}/llms.txt`,
          sourceType: 'llms_txt',
        })
        .expect(200);
    } finally {
      await site.close();
    }
    const crawled = await request(h.app).get('/api/libraries/site/widgetry@2.0.0-beta.1').expect(200);
    expect(crawled.body.library).toMatchObject({ sourceType: 'crawl', version: '2.0.0-beta.1' });
    const fetched = await request(h.app).get('/api/libraries/llms/widgetry@2024.11').expect(200);
    expect(fetched.body.library).toMatchObject({ sourceType: 'llms_txt', version: '2024.11' });
    const context = await read('/api/context', { libraryId: 'llms/widgetry', query: 'dashboards', format: 'json' });
    expect(context.body.libraryId).toBe('llms/widgetry@2024.11');
  });

  describe('over MCP', () => {
    let server: http.Server;
    let client: Client;
    const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

    beforeAll(async () => {
      server = h.app.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', resolve));
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      client = new Client({ name: 'docshelf-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${reader}` } },
        }),
      );
    });
    afterAll(async () => {
      await client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('resolve-library-id lists the library once with its versions, newest first', async () => {
      const text = textOf(await client.callTool({ name: 'resolve-library-id', arguments: { libraryName: 'demo' } }));
      expect(text.match(/Library ID: /g)).toHaveLength(1);
      expect(text).toContain('- Library ID: demo/lib\n');
      expect(text).toContain('- Version: 1.10.0\n');
      expect(text).toContain(
        '- Versions (newest first; pass one as its Library ID): demo/lib@1.10.0, demo/lib@1.2.0\n',
      );
    });

    it("query-docs reads a version given in Context7's /org/project/<version> form, and the newest by base id", async () => {
      const old = await client.callTool({
        name: 'query-docs',
        arguments: { libraryId: '/demo/lib/1.2.0', query: 'how do I start the client', tokens: 500 },
      });
      expect(old.isError).toBeFalsy();
      expect(textOf(old)).toContain('demo.connect()');
      expect(textOf(old)).toMatch(/\(demo\/lib@1\.2\.0, fetched /);
      expect(textOf(old)).not.toContain('demo.start()');

      const newest = textOf(
        await client.callTool({ name: 'query-docs', arguments: { libraryId: '/demo/lib', query: 'start the client' } }),
      );
      expect(newest).toContain('demo.start()');
      expect(newest).not.toContain('demo.connect()');

      const missing = await client.callTool({
        name: 'query-docs',
        arguments: { libraryId: '/demo/lib/9.0.0', query: 'start' },
      });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toContain("Library 'demo/lib/9.0.0' not found");
    });
  });
});
