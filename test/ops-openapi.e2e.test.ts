import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { Harness } from '@docshelf/testing/e2e/harness';
import { startOpenApiHarness } from '@docshelf/testing/e2e/openapi-document';

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
  beforeAll(async () => ({ h, doc } = await startOpenApiHarness()));
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

  it('names each operation by what it does, once: the generated client calls crawlSite, not postApiCrawl', () => {
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((methods) =>
      Object.values(methods).map((op) => op.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+(?:[A-Z][a-z]+)+$/);
    expect(ids.filter((id) => /^(get|post|delete)Api/.test(id))).toEqual([]);
    const byEndpoint = (method: string, p: string) => doc.paths[p][method].operationId;
    expect(byEndpoint('post', '/api/crawl')).toBe('crawlSite');
    expect(byEndpoint('get', '/api/search')).toBe('searchDocs');
    expect(byEndpoint('get', '/api/jobs/{id}/events')).toBe('followJob');
  });

  it('is the document the committed API client (packages/client) was generated from', () => {
    const script = path.resolve(__dirname, '../scripts/generate-client.mjs');
    const tsx = path.resolve(__dirname, '../node_modules/.bin/tsx');
    const checked = spawnSync(tsx, ['--conditions=@docshelf/source', script, '--check'], { encoding: 'utf8' });
    expect(checked.stderr).not.toContain('out of step');
    expect(checked.stdout).toContain('the committed document and client are those the API generates');
    expect(checked.status).toBe(0);
    const committed = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../packages/client/openapi.json'), 'utf8'));
    expect(committed).toEqual(doc);
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
});
