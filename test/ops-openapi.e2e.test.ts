import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import request from 'supertest';
import { DOCS_SITE, serveFixtures, type FixtureServer } from './support/fixture-server';
import { makeChunks, startHarness, type Harness } from './support/harness';

const VALIDATOR = path.resolve(
  __dirname,
  '../node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js',
);

/** The endpoints of the API contract, as `METHOD /path` with `:id` as `{id}` and the query string dropped. */
const CONTRACT_ENDPOINTS = [
  'POST /api/ingest',
  'POST /api/crawl',
  'POST /api/ingest-url',
  'POST /api/embed',
  'GET /api/libraries',
  'GET /api/libraries/{id}',
  'DELETE /api/libraries/{id}',
  'GET /api/keys',
  'POST /api/keys',
  'DELETE /api/keys',
];

function validate(document: unknown): { valid: boolean; errors?: unknown } {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-')), 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(document));
  try {
    return JSON.parse(execFileSync(process.execPath, [VALIDATOR, file], { encoding: 'utf8' }));
  } catch (error) {
    return JSON.parse((error as { stdout: string }).stdout);
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

describe('OpenAPI document and reference page', () => {
  let h: Harness;
  let doc: any;
  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    doc = (await request(h.app).get('/api/openapi.json').expect(200).expect('content-type', /json/)).body;
  });
  afterAll(async () => h.close());

  it('is a valid OpenAPI 3.1 document (checked by @seriousme/openapi-schema-validator)', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(validate(doc)).toEqual({ valid: true });
    // The validator does reject a broken document, so the check above means something.
    const broken = { ...doc, paths: { ...doc.paths, '/api/ingest': { post: { responses: 'none' } } } };
    expect(validate(broken).valid).toBe(false);
  });

  it('describes every route the app serves under /api, /mcp and the operator paths, and no other', () => {
    // Express's own table of routes: each route file's router, and the routes registered on the app itself.
    type Layer = {
      route?: { path: string | string[]; methods: Record<string, boolean> };
      handle?: { stack?: Layer[] };
    };
    const layers = (h.app as unknown as { router: { stack: Layer[] } }).router.stack;
    const served = layers
      .flatMap((layer) => (layer.route ? [layer] : (layer.handle?.stack ?? [])))
      .flatMap(({ route }) =>
        route
          ? [route.path]
              .flat()
              .flatMap((path) =>
                Object.keys(route.methods).map(
                  (m) => `${m.toUpperCase()} ${String(path).replace(/[:*](\w+)/g, '{$1}')}`,
                ),
              )
          : [],
      )
      // The dashboard's static files, and what /mcp answers 405 to, are not API operations.
      .filter((endpoint) => !/^\w+ \/(?!api\/|mcp$|healthz$|readyz$|metrics$|admin\/queues$)/.test(endpoint))
      .filter((endpoint) => !['GET /mcp', 'DELETE /mcp'].includes(endpoint));
    const listed = Object.entries(doc.paths as Record<string, object>).flatMap(([p, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect([...new Set(served)].sort()).toEqual([...listed].filter((e) => e !== 'GET /admin/queues').sort());
  });

  it('lists every endpoint of the API contract, plus login, health, metrics and the read side', () => {
    const listed = Object.entries(doc.paths as Record<string, object>).flatMap(([p, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(listed).toEqual(expect.arrayContaining(CONTRACT_ENDPOINTS));
    expect(listed).toEqual(
      expect.arrayContaining([
        'POST /api/auth/login',
        'POST /api/auth/logout',
        'GET /api/auth/session',
        'GET /healthz',
        'GET /readyz',
        'GET /metrics',
      ]),
    );
    expect(listed).toEqual(
      expect.arrayContaining(['GET /api/search', 'GET /api/context', 'GET /api/chunks', 'POST /mcp']),
    );
    const search = (doc.paths as Record<string, Record<string, { parameters: { name: string; required: boolean }[] }>>)[
      '/api/search'
    ]!.get!;
    expect(search.parameters.map((p) => [p.name, p.required])).toEqual([
      ['q', true],
      ['libraryId', false],
      ['limit', false],
      ['mode', false],
    ]);
    expect(listed).toEqual(
      expect.arrayContaining([
        'GET /api/jobs',
        'GET /api/jobs/{id}',
        'GET /api/jobs/{id}/events',
        'DELETE /api/jobs/{id}',
      ]),
    );
  });

  it('describes request bodies, responses, credentials and the error shape from the zod schemas', () => {
    const schemas = doc.components.schemas;
    expect(schemas.IngestRequest.required).toEqual(expect.arrayContaining(['libraryId', 'name', 'chunks']));
    expect(schemas.IngestRequest.properties.chunks.items.required).toEqual(['id', 'content']);
    // CRAWL_MAX_PAGES, the operator's limit, is checked beyond the schema's ceiling.
    expect(schemas.CrawlRequest.properties.urls).toMatchObject({ type: 'array', minItems: 1, maxItems: 1_000_000 });
    expect(schemas.CrawlRequest.properties.renderer).toMatchObject({ default: 'auto' });
    expect(schemas.EmbedRequest.properties.limit).toMatchObject({ default: 200, maximum: 5000 });
    expect(schemas.EmbedRequest.properties.all).toMatchObject({ type: 'boolean' });
    for (const name of ['IngestRequest', 'CrawlRequest', 'IngestUrlRequest']) {
      expect(schemas[name].properties.embedAll).toMatchObject({ type: 'boolean', default: false });
    }
    expect(schemas.EmbedResponse.properties.nextOffset).toBeDefined();
    expect(schemas.CreatedKey.required).toEqual(
      expect.arrayContaining(['id', 'name', 'key', 'keyPrefix', 'permissions']),
    );
    expect(schemas.Library.required).toEqual(
      expect.arrayContaining(['id', 'name', 'sourceType', 'chunkCount', 'ownerId', 'createdAt', 'updatedAt']),
    );
    expect(schemas.Error).toMatchObject({ required: ['error', 'code'], properties: { details: { type: 'array' } } });

    expect(doc.components.securitySchemes).toMatchObject({
      apiKey: { type: 'http', scheme: 'bearer' },
      session: { type: 'apiKey', in: 'cookie', name: 'docshelf_session' },
    });
    const op = (method: string, p: string) => doc.paths[p][method];
    expect(op('post', '/api/ingest').security).toEqual([{ apiKey: [] }, { session: [] }]);
    expect(op('post', '/api/ingest-url').security).toEqual([{ session: [] }]);
    expect(op('get', '/api/keys').security).toEqual([{ session: [] }]);
    expect(op('get', '/api/libraries').security).toEqual([]);
    expect(op('post', '/api/crawl').requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CrawlRequest',
    });
    expect(op('post', '/api/crawl').responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CrawlResponse',
    });
    expect(op('post', '/api/ingest').responses['401'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
    expect(op('delete', '/api/keys').parameters).toEqual([
      expect.objectContaining({ name: 'id', in: 'query', required: true }),
    ]);
    expect(op('get', '/api/libraries/{id}').parameters).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', required: true }),
    ]);

    // Asynchronous mode: the four job endpoints take Prefer and may answer 202; jobs have endpoints of their own.
    for (const p of ['/api/ingest', '/api/crawl', '/api/ingest-url', '/api/embed']) {
      expect(op('post', p).parameters).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'Prefer', in: 'header', required: false })]),
      );
      expect(op('post', p).responses['202'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/AcceptedJob',
      });
      expect(
        schemas[op('post', p).requestBody.content['application/json'].schema.$ref.split('/').pop()].properties
          .callbackUrl,
      ).toBeDefined();
    }
    expect(schemas.AcceptedJob.required).toEqual(expect.arrayContaining(['jobId', 'state', 'statusUrl']));
    expect(schemas.Job.required).toEqual(
      expect.arrayContaining(['id', 'type', 'libraryId', 'state', 'progress', 'createdAt']),
    );
    expect(schemas.Library.properties.vectorCount).toMatchObject({ type: 'integer' });
    expect(schemas.Library.required).toEqual(expect.arrayContaining(['chunkCount', 'vectorCount']));
    expect(schemas.Job.properties.progress.properties.errors).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
    expect(schemas.Job.properties.state.enum).toEqual(['queued', 'running', 'completed', 'failed', 'cancelled']);
    expect(op('get', '/api/jobs/{id}').responses['404']).toBeDefined();
    expect(op('get', '/api/jobs/{id}/events').responses['200'].content['text/event-stream']).toBeDefined();
    expect(op('delete', '/api/jobs/{id}').responses['409']).toBeDefined();
    expect(op('get', '/api/jobs').parameters.map((p: { name: string }) => p.name)).toEqual([
      'libraryId',
      'state',
      'limit',
    ]);
  });

  it('renders a self-contained reference page at /api/docs', async () => {
    const res = await request(h.app)
      .get('/api/docs')
      .expect(200)
      .expect('content-type', /text\/html/);
    for (const endpoint of CONTRACT_ENDPOINTS) {
      const [method, p] = endpoint.split(' ');
      expect(res.text).toContain(`${method}</span> ${p}`);
    }
    expect(res.text).toContain('chunks[].content');
    expect(res.text).toContain('docshelf_session');
    // Nothing is fetched from elsewhere: no external scripts, styles, fonts or images.
    expect(res.text).not.toMatch(/(src|href)=["']?(https?:)?\/\//i);
    expect(res.text).not.toMatch(/@import|<script|<link/i);
  });

  describe('every response body the API sends matches the document', () => {
    let site: FixtureServer;
    let cookie: string;
    let admin: { Authorization: string };
    let check: (method: string, path: string, res: request.Response) => request.Response;
    beforeAll(async () => {
      site = await serveFixtures({ root: DOCS_SITE });
      cookie = await h.login();
      admin = { Authorization: `Bearer ${await h.createKey('admin')}` };
      // The document's own components, as Ajv reads JSON Schema 2020-12 (OpenAPI 3.1's dialect).
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      ajv.addSchema({ $id: 'openapi.json', components: doc.components });
      check = (method, path, res) => {
        const response = doc.paths[path]?.[method]?.responses?.[String(res.status)];
        if (!response)
          throw new Error(`${method.toUpperCase()} ${path} answered ${res.status}, which the document does not list`);
        const schema = response.content['application/json'].schema as { $ref: string };
        const validate = ajv.compile({ $ref: `openapi.json${schema.$ref}` });
        if (!validate(res.body)) {
          throw new Error(
            `${method.toUpperCase()} ${path} ${res.status} does not match ${schema.$ref}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body)}`,
          );
        }
        return res;
      };
    });
    afterAll(async () => site?.close());

    it("the API contract's library and key endpoints, and their errors", async () => {
      const chunks = [...makeChunks(2), { id: 'bare', content: 'A chunk with neither title nor url nor token count.' }];
      check(
        'post',
        '/api/ingest',
        await request(h.app)
          .post('/api/ingest')
          .set(admin)
          .send({ libraryId: 'doc/check', name: 'Check', version: '1.0', chunks })
          .expect(200),
      );
      check(
        'post',
        '/api/ingest',
        await request(h.app).post('/api/ingest').set(admin).send({ libraryId: 'doc/check', name: 'Check' }).expect(400),
      );
      check(
        'post',
        '/api/ingest',
        await request(h.app).post('/api/ingest').send({ libraryId: 'doc/check', name: 'Check', chunks }).expect(401),
      );
      check(
        'post',
        '/api/embed',
        await request(h.app).post('/api/embed').set(admin).send({ libraryId: 'doc/check', limit: 2 }).expect(200),
      );
      check(
        'post',
        '/api/embed',
        await request(h.app).post('/api/embed').set(admin).send({ libraryId: 'doc/none' }).expect(404),
      );
      const crawl = check(
        'post',
        '/api/crawl',
        await request(h.app)
          .post('/api/crawl')
          .set(admin)
          .send({
            libraryId: 'doc/crawled',
            name: 'Crawled',
            urls: [`${site.origin}/index.html`, `${site.origin}/gone.html`],
            renderer: 'http',
          })
          .expect(200),
      );
      expect(crawl.body.errors).toEqual([expect.stringContaining('/gone.html')]);
      check(
        'post',
        '/api/ingest-url',
        await request(h.app)
          .post('/api/ingest-url')
          .set('Cookie', cookie)
          .send({ libraryId: 'doc/llms', name: 'Llms', sourceUrl: `${site.origin}/llms.txt`, sourceType: 'llms_txt' })
          .expect(200),
      );

      const list = check('get', '/api/libraries', await request(h.app).get('/api/libraries').expect(200));
      expect(list.body.libraries.map((l: { id: string }) => l.id)).toEqual(
        expect.arrayContaining(['doc/check', 'doc/crawled', 'doc/llms']),
      );
      const one = check('get', '/api/libraries/{id}', await request(h.app).get('/api/libraries/doc/check').expect(200));
      expect(one.body.chunks.map((c: { id: string }) => c.id)).toContain('bare');
      check('get', '/api/libraries/{id}', await request(h.app).get('/api/libraries/doc/none').expect(404));
      check(
        'delete',
        '/api/libraries/{id}',
        await request(h.app).delete('/api/libraries/doc/llms').set(admin).expect(200),
      );

      const created = check(
        'post',
        '/api/keys',
        await request(h.app)
          .post('/api/keys')
          .set('Cookie', cookie)
          .send({ name: 'checked', permissions: 'read' })
          .expect(200),
      );
      check('get', '/api/keys', await request(h.app).get('/api/keys').set('Cookie', cookie).expect(200));
      check('get', '/api/keys', await request(h.app).get('/api/keys').set(admin).expect(401));
      check(
        'delete',
        '/api/keys',
        await request(h.app).delete(`/api/keys?id=${created.body.id}`).set('Cookie', cookie).expect(200),
      );
      check(
        'delete',
        '/api/keys',
        await request(h.app).delete(`/api/keys?id=${created.body.id}`).set('Cookie', cookie).expect(404),
      );
    });

    it('the read side, jobs, the dashboard session and health', async () => {
      await request(h.app)
        .post('/api/ingest')
        .set(admin)
        .send({ libraryId: 'doc/read', name: 'Read', chunks: makeChunks(3) })
        .expect(200);
      check(
        'get',
        '/api/search',
        await request(h.app).get('/api/search?q=doc&libraryId=doc/read').set(admin).expect(200),
      );
      check(
        'get',
        '/api/context',
        await request(h.app).get('/api/context?libraryId=doc/read&query=doc&format=json').set(admin).expect(200),
      );
      check(
        'get',
        '/api/chunks',
        await request(h.app).get('/api/chunks?libraryId=doc/read&limit=2').set(admin).expect(200),
      );
      check(
        'get',
        '/api/chunks',
        await request(h.app).get('/api/chunks?libraryId=doc/read&limit=9999').set(admin).expect(400),
      );

      const accepted = check(
        'post',
        '/api/ingest',
        await request(h.app)
          .post('/api/ingest')
          .set(admin)
          .set('Prefer', 'respond-async')
          .send({ libraryId: 'doc/async', name: 'Async', chunks: makeChunks(2) })
          .expect(202),
      );
      check('get', '/api/jobs/{id}', await request(h.app).get(accepted.body.statusUrl).set(admin).expect(200));
      const jobs = check('get', '/api/jobs', await request(h.app).get('/api/jobs').set(admin).expect(200));
      expect(
        jobs.body.jobs.some((job: { state: string; result?: unknown }) => job.state === 'completed' && job.result),
      ).toBe(true);
      check(
        'get',
        '/api/jobs/{id}',
        await request(h.app).get('/api/jobs/00000000-0000-4000-8000-000000000000').set(admin).expect(404),
      );

      check(
        'post',
        '/api/auth/login',
        await request(h.app)
          .post('/api/auth/login')
          .send({ email: 'nobody@docshelf.test', password: 'wrong password' })
          .expect(401),
      );
      check(
        'get',
        '/api/auth/session',
        await request(h.app).get('/api/auth/session').set('Cookie', cookie).expect(200),
      );
      check('get', '/healthz', await request(h.app).get('/healthz').expect(200));
      check('get', '/readyz', await request(h.app).get('/readyz').expect(200));
      check(
        'post',
        '/api/auth/logout',
        await request(h.app)
          .post('/api/auth/logout')
          .set('Cookie', await h.login())
          .expect(200),
      );
    });

    it('rejects a body that drifts from the document (the check above can fail)', () => {
      const drifted = { status: 200, body: { libraries: [{ id: 'x', name: 'X' }] } } as request.Response;
      expect(() => check('get', '/api/libraries', drifted)).toThrow(
        /does not match #\/components\/schemas\/LibraryList/,
      );
      const extra = { status: 200, body: { status: 'ok', uptime: 1 } } as request.Response;
      expect(() => check('get', '/healthz', extra)).toThrow(/additional properties/);
    });
  });
});
