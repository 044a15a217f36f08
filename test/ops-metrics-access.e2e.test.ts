import { Registry } from '@docshelf/observability';
import request from 'supertest';
import { startHealthServer } from '../apps/worker/src/ops/health-server';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';

const TOKEN = 'scrape-token-for-tests-0123456789';

describe('/metrics needs METRICS_TOKEN unless METRICS_PUBLIC=true (API in-process, worker health server)', () => {
  const harnesses: Harness[] = [];
  const apiWith = async (env: Record<string, string>) => {
    const h = await startHarness(env);
    harnesses.push(h);
    return h.app;
  };
  afterAll(async () => {
    await Promise.all(harnesses.map((h) => h.close()));
  });

  it('API: without a token and without METRICS_PUBLIC, /metrics is closed (403 saying how to open it)', async () => {
    const app = await apiWith({ METRICS_PUBLIC: 'false' });
    const res = await request(app).get('/metrics').expect(403);
    expect(res.body).toEqual({
      error: expect.stringMatching(/METRICS_TOKEN[\s\S]*METRICS_PUBLIC=true/),
      code: 'FORBIDDEN',
    });
    await request(app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(403);
  });

  it('API: METRICS_PUBLIC=true opens it; a METRICS_TOKEN, once set, is always needed', async () => {
    await request(await apiWith({ METRICS_PUBLIC: 'true' }))
      .get('/metrics')
      .expect(200);
    const guarded = await apiWith({ METRICS_TOKEN: TOKEN, METRICS_PUBLIC: 'true' });
    expect((await request(guarded).get('/metrics').expect(401)).body.code).toBe('UNAUTHORIZED');
    await request(guarded).get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
  });

  it.each([
    [{ metricsPublic: false }, 403],
    [{ metricsPublic: true }, 200],
    [{ metricsPublic: true, metricsToken: TOKEN }, 401],
  ])('worker health server %j: GET /metrics without a token answers %i', async (access, status) => {
    const server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      checks: () => ({}),
      describe: () => ({}),
      registry: new Registry(),
      ...access,
    });
    try {
      expect((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status).toBe(status);
    } finally {
      await server.close();
    }
  });
});
