import { createHash } from 'node:crypto';
import { ADMIN } from '@docshelf/testing/e2e/harness';
import { cleanUpOpsEnv, opsEnv, spawnApi, stopQuietly, type ApiProcess } from '@docshelf/testing/e2e/ops-processes';
import { call, login, serverErrors, sessionCookieOf, type Answer } from '@docshelf/testing/reliability/auth-calls';
import { recordFigure } from '@docshelf/testing/reliability/figures';

describe('Auth across two API replicas on one Redis and one record store (real processes)', () => {
  let env: Record<string, string>;
  let a: ApiProcess | undefined;
  let b: ApiProcess | undefined;

  beforeAll(async () => {
    env = opsEnv({
      TRUST_PROXY: 'true',
      PUBLIC_SEARCH: 'true',
      LOGIN_MAX_ATTEMPTS_PER_ACCOUNT: '5',
      LOGIN_MAX_ATTEMPTS_PER_IP: '12',
      LOGIN_WINDOW_MINUTES: '10',
      RATE_LIMIT_PER_KEY: '10',
      RATE_LIMIT_PER_IP: '6',
      RATE_LIMIT_WINDOW_SECONDS: '600',
    });
    // One process first: it creates the SQLite schema and the admin user, then its twin opens the same file.
    a = await spawnApi(env);
    b = await spawnApi(env);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([stopQuietly(a), stopQuietly(b)]);
    await cleanUpOpsEnv(env);
  });

  const adminCookie = async (api: ApiProcess, client = '192.0.2.1') => sessionCookieOf(await login(api, ADMIN, client));

  it('rotates the session id at login and destroys it at logout, on every replica', async () => {
    // A cookie planted before login (session fixation) never becomes the session.
    const planted = 'docshelf_session=attacker-chosen-value';
    const first = await login(a!, ADMIN, '192.0.2.1', { cookie: planted });
    expect(first.status).toBe(200);
    const s1 = sessionCookieOf(first);
    expect(s1).not.toBe(planted);
    expect((await call(b!.baseUrl, 'GET', '/api/auth/session', { headers: { cookie: planted } })).status).toBe(401);
    expect((await call(b!.baseUrl, 'GET', '/api/auth/session', { headers: { cookie: s1 } })).status).toBe(200);

    // Logging in again while logged in gives a new id; the old one is gone.
    const s2 = sessionCookieOf(await login(b!, ADMIN, '192.0.2.1', { cookie: s1 }));
    expect(s2).not.toBe(s1);
    expect((await call(a!.baseUrl, 'GET', '/api/auth/session', { headers: { cookie: s1 } })).status).toBe(401);

    // Logout on one replica: the cookie is refused on both from then on.
    expect((await call(a!.baseUrl, 'POST', '/api/auth/logout', { headers: { cookie: s2 } })).status).toBe(200);
    for (const api of [a!, b!]) {
      const after = await call(api.baseUrl, 'GET', '/api/keys', { headers: { cookie: s2 } });
      expect(after.status).toBe(401);
      expect(after.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('refuses cookie-authenticated state-changing requests from another origin, and leaves API keys alone', async () => {
    const cookie = await adminCookie(a!);
    const keysBefore = (await call(a!.baseUrl, 'GET', '/api/keys', { headers: { cookie } })).body.keys.length;
    const forged = [
      await call(a!.baseUrl, 'POST', '/api/keys', {
        headers: { cookie, origin: 'https://evil.example' },
        body: { name: 'forged', permissions: 'admin' },
      }),
      await call(b!.baseUrl, 'POST', '/api/keys', {
        headers: { cookie, 'sec-fetch-site': 'cross-site' },
        body: { name: 'forged', permissions: 'admin' },
      }),
      await call(a!.baseUrl, 'POST', '/api/keys', {
        headers: { cookie, origin: 'null' },
        body: { name: 'forged', permissions: 'admin' },
      }),
      await call(b!.baseUrl, 'DELETE', '/api/libraries/some/library', {
        headers: { cookie, origin: 'http://127.0.0.1:1' },
      }),
      await call(a!.baseUrl, 'POST', '/api/auth/logout', { headers: { cookie, origin: 'https://evil.example' } }),
      await call(a!.baseUrl, 'POST', '/api/auth/login', {
        headers: { 'sec-fetch-site': 'cross-site', 'x-forwarded-for': '192.0.2.1' },
        body: ADMIN,
      }),
    ];
    for (const answer of forged) {
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ code: 'FORBIDDEN', error: expect.stringMatching(/[Cc]ross-(site|origin)/) });
    }
    // Nothing was written, and the session survived the forged logout.
    expect((await call(a!.baseUrl, 'GET', '/api/keys', { headers: { cookie } })).body.keys.length).toBe(keysBefore);
    // The service's own pages (same Origin, same-origin fetch metadata) work.
    const own = await call(a!.baseUrl, 'POST', '/api/keys', {
      headers: { cookie, origin: a!.baseUrl, 'sec-fetch-site': 'same-origin' },
      body: { name: 'from the dashboard', permissions: 'admin' },
    });
    expect(own.status).toBe(200);
    // An API key is no ambient credential: the same foreign Origin does not matter to it.
    const withKey = await call(b!.baseUrl, 'POST', '/api/ingest', {
      headers: {
        authorization: `Bearer ${own.body.key}`,
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
        prefer: 'respond-async',
      },
      body: { libraryId: 'csrf/key', name: 'Key', chunks: [{ id: 'a', content: 'Sent with an API key.' }] },
    });
    expect(withKey.status).toBe(202);
    recordFigure({
      scenario: 'auth: cross-origin requests with a session',
      requests: forged.length + 2,
      faults: forged.length,
      serverErrors: serverErrors([...forged, own, withKey]),
      rowsLost: 0,
      duplicates: 0,
      note: `${forged.filter((f) => f.status === 403).length}/${forged.length} forged requests answered 403, 0 writes; API key with a foreign Origin accepted`,
    });
  });

  it("refuses a well-formed key that shares a real key's prefix but not its secret", async () => {
    const cookie = await adminCookie(a!);
    const real = (
      await call(a!.baseUrl, 'POST', '/api/keys', { headers: { cookie }, body: { name: 'real', permissions: 'admin' } })
    ).body.key as string;
    // Same public prefix, a different secret with a valid checksum, so it passes the format check and reaches the comparison.
    const body = real.slice(4, 60);
    const forgedBody = body.slice(0, 8) + (body[8] === 'a' ? 'b' : 'a') + body.slice(9);
    const forged = `dsk_${forgedBody}${createHash('sha256').update(forgedBody).digest('hex').slice(0, 8)}`;
    expect(forged.slice(0, 12)).toBe(real.slice(0, 12));
    expect(
      (await call(b!.baseUrl, 'GET', '/api/jobs', { headers: { authorization: `Bearer ${forged}` } })).status,
    ).toBe(401);
    expect((await call(b!.baseUrl, 'GET', '/api/jobs', { headers: { authorization: `Bearer ${real}` } })).status).toBe(
      200,
    );
  });

  it('refuses a revoked key on the very next request, on the other replica', async () => {
    const cookie = await adminCookie(a!);
    const rounds = 10;
    const nextRequests: Answer[] = [];
    for (let i = 0; i < rounds; i++) {
      const created = await call(a!.baseUrl, 'POST', '/api/keys', {
        headers: { cookie },
        body: { name: `revoked ${i}`, permissions: 'admin' },
      });
      const bearer = { authorization: `Bearer ${created.body.key}` };
      expect((await call(b!.baseUrl, 'GET', '/api/jobs', { headers: bearer })).status).toBe(200);
      expect(
        (await call(a!.baseUrl, 'DELETE', `/api/keys?id=${created.body.id}`, { headers: { cookie } })).status,
      ).toBe(200);
      nextRequests.push(await call(b!.baseUrl, 'GET', '/api/jobs', { headers: bearer }));
    }
    recordFigure({
      scenario: 'auth: key revoked on one replica',
      requests: rounds * 4,
      faults: rounds,
      serverErrors: serverErrors(nextRequests),
      rowsLost: 0,
      duplicates: 0,
      note: `${nextRequests.filter((r) => r.status === 401).length}/${rounds} refused (401) by the other replica on its very next request`,
    });
    for (const answer of nextRequests) expect(answer).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
  });

  it('limits search, context, chunks and MCP per key and per anonymous address, across replicas', async () => {
    const cookie = await adminCookie(a!);
    const key = (
      await call(a!.baseUrl, 'POST', '/api/keys', {
        headers: { cookie },
        body: { name: 'reader', permissions: 'read' },
      })
    ).body.key;
    const bearer = { authorization: `Bearer ${key}` };
    const routes = [
      '/api/search?q=widgets',
      '/api/chunks?libraryId=acme/widgets',
      '/api/context?libraryId=acme/widgets&query=cache',
    ];
    const keyed: Answer[] = [];
    for (let i = 0; i < 13; i++)
      keyed.push(await call((i % 2 ? b! : a!).baseUrl, 'GET', routes[i % routes.length]!, { headers: bearer }));
    const mcp = await call(b!.baseUrl, 'POST', '/mcp', {
      headers: { ...bearer, accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    // Ten requests of the key pass whichever replica answers; the rest, MCP included, are refused.
    expect(keyed.slice(0, 10).every((r) => r.status !== 429)).toBe(true);
    for (const refused of [...keyed.slice(10), mcp]) {
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', error: expect.any(String) });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Another key has its own allowance.
    const other = (
      await call(a!.baseUrl, 'POST', '/api/keys', {
        headers: { cookie },
        body: { name: 'reader 2', permissions: 'read' },
      })
    ).body.key;
    expect(
      (await call(b!.baseUrl, 'GET', '/api/search?q=widgets', { headers: { authorization: `Bearer ${other}` } }))
        .status,
    ).toBe(200);

    // Without a credential (PUBLIC_SEARCH), per client address.
    const anonymous: Answer[] = [];
    for (let i = 0; i < 8; i++)
      anonymous.push(
        await call((i % 2 ? b! : a!).baseUrl, 'GET', '/api/search?q=widgets', {
          headers: { 'x-forwarded-for': '198.51.100.7' },
        }),
      );
    expect(anonymous.slice(0, 6).map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(anonymous.slice(6).map((r) => r.status)).toEqual([429, 429]);
    expect(
      (await call(a!.baseUrl, 'GET', '/api/search?q=widgets', { headers: { 'x-forwarded-for': '198.51.100.8' } }))
        .status,
    ).toBe(200);
    recordFigure({
      scenario: 'auth: retrieval rate limit per key (2 replicas)',
      requests: keyed.length + 1 + anonymous.length,
      faults: 0,
      serverErrors: serverErrors([...keyed, mcp, ...anonymous]),
      rowsLost: 0,
      duplicates: 0,
      note: `key limit 10: ${keyed.filter((r) => r.status === 429).length + 1} of ${keyed.length + 1} refused (MCP too); address limit 6: ${anonymous.filter((r) => r.status === 429).length} of ${anonymous.length} refused`,
    });
  });

  it('limits login attempts per account and per address, one limit shared by both replicas', async () => {
    // Per account: wrong passwords from changing addresses, alternating replicas.
    const wrong = { email: ADMIN.email, password: 'not the password' };
    const perAccount: Answer[] = [];
    for (let i = 0; i < 7; i++) perAccount.push(await login(i % 2 ? b! : a!, wrong, `203.0.113.${i + 1}`));
    expect(perAccount.slice(0, 5).map((r) => r.status)).toEqual(Array(5).fill(401));
    for (const refused of perAccount.slice(5)) {
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', error: 'Too many login attempts; try again later' });
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(600);
    }
    // Even the right password waits: the account is locked for the window, whichever replica is asked.
    const right = await login(a!, ADMIN, '203.0.113.99');
    expect(right.status).toBe(429);
    expect(right.headers.get('set-cookie')).toBeNull();

    // Per address: unknown accounts, one address, alternating replicas.
    const perIp: Answer[] = [];
    for (let i = 0; i < 14; i++)
      perIp.push(
        await login(i % 2 ? b! : a!, { email: `nobody-${i}@docshelf.test`, password: 'guess' }, '198.51.100.50'),
      );
    expect(perIp.slice(0, 12).map((r) => r.status)).toEqual(Array(12).fill(401));
    expect(perIp.slice(12).map((r) => r.status)).toEqual([429, 429]);
    expect((await login(b!, { email: 'nobody-else@docshelf.test', password: 'guess' }, '198.51.100.51')).status).toBe(
      401,
    );

    recordFigure({
      scenario: 'auth: login attempts across 2 replicas',
      requests: perAccount.length + 1 + perIp.length + 1,
      faults: perAccount.length + perIp.length,
      serverErrors: serverErrors([...perAccount, right, ...perIp]),
      rowsLost: 0,
      duplicates: 0,
      note: `per account 5: attempt 6 on answered 429 (Retry-After ${perAccount[5]!.headers.get('retry-after')} s); per address 12: attempt 13 on 429`,
    });
  });
});
