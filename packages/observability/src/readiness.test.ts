import { evaluateReadiness } from './readiness';
import { refuseMetricsScrape } from './metrics-access';

describe('evaluateReadiness', () => {
  it('is ready when every check resolves', async () => {
    const report = await evaluateReadiness({ redis: async () => undefined, records: async () => undefined });
    expect(report).toEqual({ ready: true, body: { status: 'ready', checks: { redis: 'ok', records: 'ok' } } });
  });

  it('names each failing check with its message, in the error shape', async () => {
    const report = await evaluateReadiness({
      redis: async () => undefined,
      records: async () => {
        throw new Error('disk I/O error');
      },
    });
    expect(report).toEqual({
      ready: false,
      body: {
        status: 'not_ready',
        checks: { redis: 'ok', records: 'failed' },
        error: 'Not ready: records: disk I/O error',
        code: 'NOT_READY',
        details: [{ check: 'records', message: 'disk I/O error' }],
      },
    });
  });

  it('fails a check that hangs, after the timeout', async () => {
    const started = Date.now();
    const report = await evaluateReadiness({ redis: () => new Promise(() => undefined) }, 100);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(report.body.details).toEqual([{ check: 'redis', message: 'redis check timed out after 100 ms' }]);
  });
});

describe('refuseMetricsScrape', () => {
  const token = 'secret-token-123456';
  it('is closed without a token unless public, and needs the exact bearer token with one', () => {
    expect(refuseMetricsScrape(undefined, { public: false })?.status).toBe(403);
    expect(refuseMetricsScrape(undefined, { public: true })).toBeNull();
    expect(refuseMetricsScrape(undefined, { token, public: true })?.status).toBe(401);
    expect(refuseMetricsScrape('Bearer nope', { token, public: false })?.status).toBe(401);
    expect(refuseMetricsScrape(token, { token, public: false })?.status).toBe(401);
    expect(refuseMetricsScrape(`Bearer ${token}`, { token, public: false })).toBeNull();
  });
});
