import Ajv2020 from 'ajv/dist/2020';
import request from 'supertest';
import { DOCS_SITE, serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { makeChunks, type Harness } from '@docshelf/testing/e2e/harness';
import { startOpenApiHarness } from '@docshelf/testing/e2e/openapi-document';

describe('OpenAPI document and reference page', () => {
  describe('every response body the API sends matches the document', () => {
    let h: Harness;
    let doc: any;
    let check: (method: string, path: string, res: request.Response) => request.Response;
    let site: FixtureServer;
    let cookie: string;
    let admin: { Authorization: string };
    beforeAll(async () => {
      ({ h, doc } = await startOpenApiHarness());
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
    afterAll(async () => {
      await site?.close();
      await h.close();
    });

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
