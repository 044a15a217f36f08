import request from 'supertest';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';

const SECRET_TEXT = 'Middleware runs before every handler';
const QUERY_DOCS = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'query-docs', arguments: { libraryId: 'acme/router', query: 'middleware' } },
};

async function ingestLibrary(h: Harness): Promise<void> {
  const admin = await h.createKey('admin');
  await request(h.app)
    .post('/api/ingest')
    .set('Authorization', `Bearer ${admin}`)
    .send({
      libraryId: 'acme/router',
      name: 'Acme Router',
      chunks: [{ id: 'middleware', title: 'Middleware', content: `${SECRET_TEXT}. Register it with router.use(fn).` }],
    })
    .expect(200);
}

/** POST /mcp with `headers` (Host, Origin) and no credential: what a browser page would send. */
function callMcp(h: Harness, headers: Record<string, string>) {
  return request(h.app).post('/mcp').set('Accept', 'application/json, text/event-stream').set(headers).send(QUERY_DOCS);
}

describe('/mcp refuses browser requests from other origins (PUBLIC_SEARCH=true, no PUBLIC_HOSTS)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ PUBLIC_SEARCH: 'true', MCP_ALLOWED_ORIGINS: 'https://inspector.example' });
    await ingestLibrary(h);
  });
  afterAll(async () => h.close());

  it('answers a DNS-rebinding-shaped request (foreign Host and the matching Origin, no key) with 403 and no text', async () => {
    const res = await callMcp(h, { Host: 'evil.example:3000', Origin: 'http://evil.example:3000' }).expect(403);
    expect(res.body).toEqual({ error: expect.stringContaining('PUBLIC_HOSTS'), code: 'FORBIDDEN' });
    expect(res.text).not.toContain(SECRET_TEXT);
  });

  it('answers a foreign Origin on the server’s own Host with 403 in the error shape', async () => {
    const res = await callMcp(h, { Host: '127.0.0.1:3000', Origin: 'https://evil.example' }).expect(403);
    expect(res.body).toEqual({ error: expect.stringContaining('MCP_ALLOWED_ORIGINS'), code: 'FORBIDDEN' });
    expect(res.text).not.toContain(SECRET_TEXT);
  });

  it('refuses a foreign Origin on GET and DELETE too', async () => {
    await request(h.app).get('/mcp').set('Origin', 'https://evil.example').expect(403);
    await request(h.app).delete('/mcp').set('Origin', 'https://evil.example').expect(403);
  });

  it('serves its own origin on a loopback Host, and an origin listed in MCP_ALLOWED_ORIGINS', async () => {
    const own = await callMcp(h, { Host: '127.0.0.1:3000', Origin: 'http://127.0.0.1:3000' }).expect(200);
    expect(own.text).toContain(SECRET_TEXT);
    const listed = await callMcp(h, { Host: 'localhost:3000', Origin: 'https://inspector.example' }).expect(200);
    expect(listed.text).toContain(SECRET_TEXT);
  });

  it('serves requests without Origin (agents, CLIs) as before, whatever their Host', async () => {
    const res = await callMcp(h, { Host: 'evil.example:3000' }).expect(200);
    expect(res.text).toContain(SECRET_TEXT);
  });
});

describe('/mcp with PUBLIC_HOSTS set', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ PUBLIC_SEARCH: 'true', PUBLIC_HOSTS: 'docs.example.com, 127.0.0.1:3000' });
    await ingestLibrary(h);
  });
  afterAll(async () => h.close());

  it('serves a browser request whose Host is a public host (any port unless one is named) and Origin its own', async () => {
    for (const host of ['docs.example.com', 'docs.example.com:8443', '127.0.0.1:3000']) {
      const res = await callMcp(h, { Host: host, Origin: `http://${host}` }).expect(200);
      expect(res.text).toContain(SECRET_TEXT);
    }
  });

  it('refuses a browser request for any other Host, even a loopback one on another port', async () => {
    for (const host of ['other.example', '127.0.0.1:4000', 'localhost:3000']) {
      const res = await callMcp(h, { Host: host, Origin: `http://${host}` }).expect(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
  });
});
