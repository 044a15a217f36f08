import { ADMIN } from '@docshelf/testing/e2e/harness';
import { cleanUpOpsEnv, opsEnv, spawnApi, stopQuietly, type ApiProcess } from '@docshelf/testing/e2e/ops-processes';
import { startTestRedis, type TestRedis } from '@docshelf/testing/e2e/redis-server';
import { call, login, serverErrors, sessionCookieOf, type Answer } from '@docshelf/testing/reliability/auth-calls';
import { recordFigure } from '@docshelf/testing/reliability/figures';

describe('Limits while Redis is down (a real API process, a Redis it stops)', () => {
  let redis: TestRedis;
  let env: Record<string, string>;
  let api: ApiProcess | undefined;

  beforeAll(async () => {
    redis = await startTestRedis();
    env = opsEnv({
      REDIS_URL: redis.url,
      TRUST_PROXY: 'true',
      LOGIN_MAX_ATTEMPTS_PER_ACCOUNT: '3',
      RATE_LIMIT_PER_KEY: '1000',
    });
    api = await spawnApi(env);
  }, 60_000);
  afterAll(async () => {
    await stopQuietly(api);
    await redis.stop();
    await cleanUpOpsEnv(env);
  });

  it('keeps answering logins and searches, counting in memory, and never fails a request', async () => {
    const cookie = sessionCookieOf(await login(api!, ADMIN, '192.0.2.1'));
    const key = (
      await call(api!.baseUrl, 'POST', '/api/keys', {
        headers: { cookie },
        body: { name: 'reader', permissions: 'read' },
      })
    ).body.key;
    await redis.stop();
    const wrong: Answer[] = [];
    for (let i = 0; i < 5; i++)
      wrong.push(await login(api!, { email: ADMIN.email, password: 'not it' }, `203.0.113.${i + 1}`));
    const search = await call(api!.baseUrl, 'GET', '/api/search?q=widgets', {
      headers: { authorization: `Bearer ${key}` },
    });
    const session = await call(api!.baseUrl, 'GET', '/api/auth/session', { headers: { cookie } });
    await redis.start();
    recordFigure({
      scenario: 'auth: login and search limits with Redis down',
      requests: wrong.length + 2,
      faults: 1,
      serverErrors: serverErrors([...wrong, search, session]),
      rowsLost: 0,
      duplicates: 0,
      note: `login attempts ${wrong.map((w) => w.status).join('/')} (limit 3, counted in memory); search ${search.status}; session ${session.status}`,
    });
    expect(wrong.map((w) => w.status)).toEqual([401, 401, 401, 429, 429]);
    expect(search.status).toBe(200);
    expect(session.status).toBe(200);
  });
});
