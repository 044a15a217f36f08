import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '@docshelf/api';
import pino from 'pino';
import request from 'supertest';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';

/** A stand-in build of apps/web: the API's serving is tested here, the dashboard itself in a browser (apps/web/e2e). */
function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-web-dist-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><title>Docshelf</title><script type="module" src="/assets/index-abc.js"></script>',
  );
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc.js'), 'console.log("dashboard")');
  fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

describe('the dashboard served by the API at /', () => {
  let h: Harness;
  let dist: string;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());
  beforeEach(() => {
    dist = fakeBuild();
  });
  afterEach(() => fs.rmSync(dist, { recursive: true, force: true }));

  // The harness's service with the stand-in build: buildApp takes the directory as a dependency.
  const app = () =>
    buildApp({
      config: h.config,
      ...h.adapters,
      callbacks: { assertAllowed: () => Promise.resolve(), post: () => Promise.resolve(200) },
      jobs: h.jobs,
      queues: h.jobs,
      logger: pino({ level: 'silent' }),
      webDistDir: dist,
    });

  it('answers every dashboard route with index.html under a strict CSP, and assets with long caching', async () => {
    const server = app();
    for (const route of [
      '/',
      '/login',
      '/libraries',
      '/libraries/acme/widgets',
      '/add',
      '/jobs/0b8f2c1e-1111-4222-8333-444455556666',
      '/keys',
    ]) {
      const res = await request(server)
        .get(route)
        .expect(200)
        .expect('content-type', /text\/html/);
      expect(res.text).toContain('<title>Docshelf</title>');
      expect(res.headers['cache-control']).toBe('no-cache');
      const csp = res.headers['content-security-policy'] as string;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    const asset = await request(server)
      .get('/assets/index-abc.js')
      .expect(200)
      .expect('content-type', /javascript/);
    expect(asset.headers['cache-control']).toContain('immutable');
    expect(asset.headers['content-security-policy']).toContain("default-src 'self'");
    await request(server).get('/favicon.svg').expect(200).expect('content-type', /svg/);
  });

  it('never answers API, MCP, admin or operations paths with the dashboard', async () => {
    const server = app();
    for (const route of [
      '/api/nothing',
      '/api/libraries/acme/none',
      '/mcp/x',
      '/admin/other',
      '/assets/missing.js',
      '/unknown-page',
    ]) {
      const res = await request(server).get(route).set('accept', 'text/html');
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/json/);
      expect((res.body as { code: string }).code).toMatch(/NOT_FOUND/);
    }
    await request(server).get('/healthz').expect(200).expect('content-type', /json/);
    await request(server).get('/api/openapi.json').expect(200).expect('content-type', /json/);
    await request(server)
      .get('/api/docs')
      .expect(200)
      .expect((res) => expect(res.text).not.toContain('/assets/index-abc.js'));
  });

  it('says how to build the dashboard when there is no build', async () => {
    fs.rmSync(path.join(dist, 'index.html'));
    const res = await request(app())
      .get('/libraries')
      .expect(503)
      .expect('content-type', /text\/html/);
    expect(res.text).toContain('npm run build:web');
  });
});
