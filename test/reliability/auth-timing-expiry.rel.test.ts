import path from 'node:path';
import Database from 'better-sqlite3';
import { hashSessionToken } from '@docshelf/core';
import { ADMIN } from '@docshelf/testing/e2e/harness';
import { cleanUpOpsEnv, opsEnv, spawnApi, stopQuietly, type ApiProcess } from '@docshelf/testing/e2e/ops-processes';
import {
  call,
  login,
  median,
  serverErrors,
  sessionCookieOf,
  type Answer,
} from '@docshelf/testing/reliability/auth-calls';
import { recordFigure } from '@docshelf/testing/reliability/figures';

describe('Login timing and session expiry (a real API process with short expiries)', () => {
  const IDLE_MS = 2_400;
  const TTL_MS = 7_200;
  let env: Record<string, string>;
  let api: ApiProcess | undefined;

  beforeAll(async () => {
    env = opsEnv({
      TRUST_PROXY: 'true',
      LOGIN_MAX_ATTEMPTS_PER_ACCOUNT: '1000',
      LOGIN_MAX_ATTEMPTS_PER_IP: '1000',
      SESSION_IDLE_MINUTES: String(IDLE_MS / 60_000),
      SESSION_TTL_HOURS: String(TTL_MS / 3_600_000),
    });
    api = await spawnApi(env);
  }, 60_000);
  afterAll(async () => {
    await stopQuietly(api);
    await cleanUpOpsEnv(env);
  });

  /** The session's stored last use, read from the record store the API writes. */
  const lastUsedAt = (cookie: string): number => {
    const db = new Database(path.join(env.DATA_DIR!, 'docshelf.sqlite'), { readonly: true });
    try {
      const row = db
        .prepare('SELECT last_used_at FROM sessions WHERE token_hash = ?')
        .get(hashSessionToken(cookie.split('=')[1]!)) as { last_used_at: string } | undefined;
      if (!row) throw new Error('session row not found');
      return Date.parse(row.last_used_at);
    } finally {
      db.close();
    }
  };
  const waitUntil = async (condition: () => boolean, pollMs = 100) => {
    while (!condition()) await new Promise((r) => setTimeout(r, pollMs));
  };

  it('answers an unknown user and a wrong password alike, and about as fast', async () => {
    const unknown: Answer[] = [];
    const wrong: Answer[] = [];
    // A few warm-up rounds, then interleaved samples so load on the machine hits both alike.
    for (let i = 0; i < 3; i++) await login(api!, { email: 'warm-up@docshelf.test', password: 'x' }, '192.0.2.200');
    for (let i = 0; i < 25; i++) {
      unknown.push(
        await login(api!, { email: `nobody-${i}@docshelf.test`, password: 'some password' }, `192.0.2.${i + 1}`),
      );
      wrong.push(await login(api!, { email: ADMIN.email, password: `wrong password ${i}` }, `192.0.2.${i + 1}`));
    }
    const ratio = median(unknown.map((r) => r.ms)) / median(wrong.map((r) => r.ms));
    recordFigure({
      scenario: 'auth: unknown user vs wrong password',
      requests: unknown.length + wrong.length,
      faults: 0,
      serverErrors: serverErrors([...unknown, ...wrong]),
      rowsLost: 0,
      duplicates: 0,
      note: `median ${median(unknown.map((r) => r.ms)).toFixed(1)} ms vs ${median(wrong.map((r) => r.ms)).toFixed(1)} ms (ratio ${ratio.toFixed(2)}); same status and body`,
    });
    expect(new Set([...unknown, ...wrong].map((r) => `${r.status} ${JSON.stringify(r.body)}`))).toEqual(
      new Set(['401 {"error":"Invalid email or password","code":"UNAUTHORIZED"}']),
    );
    // Both run the same scrypt; a generous bound, since the machine is shared.
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });

  it('expires a session left idle, and keeps one in use alive until its absolute expiry', async () => {
    // Idle: used, then left alone until its stored last use is older than the idle expiry.
    const idle = sessionCookieOf(await login(api!, ADMIN, '192.0.2.1'));
    expect((await call(api!.baseUrl, 'GET', '/api/auth/session', { headers: { cookie: idle } })).status).toBe(200);
    const lastUse = lastUsedAt(idle);
    await waitUntil(() => Date.now() - lastUse > IDLE_MS);
    const afterIdle = await call(api!.baseUrl, 'GET', '/api/auth/session', { headers: { cookie: idle } });
    expect(afterIdle).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });

    // In use every few hundred ms (well inside the idle expiry): accepted until the absolute expiry, then refused.
    const loggedInAt = Date.now();
    const busy = sessionCookieOf(await login(api!, ADMIN, '192.0.2.1'));
    const uses: { at: number; status: number }[] = [];
    for (;;) {
      const answer = await call(api!.baseUrl, 'GET', '/api/auth/session', { headers: { cookie: busy } });
      uses.push({ at: Date.now(), status: answer.status });
      if (answer.status !== 200) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    const refused = uses.at(-1)!;
    const accepted = uses.slice(0, -1);
    expect(refused.status).toBe(401);
    // Every use before the refusal worked, the session outlived its idle expiry by being used, and the refusal came
    // only once its absolute lifetime had passed.
    expect(accepted.every((u) => u.status === 200)).toBe(true);
    expect(accepted.at(-1)!.at - loggedInAt).toBeGreaterThan(IDLE_MS);
    expect(refused.at - loggedInAt).toBeGreaterThanOrEqual(TTL_MS);
    recordFigure({
      scenario: 'auth: session idle and absolute expiry',
      requests: uses.length + 4,
      faults: 0,
      serverErrors: 0,
      rowsLost: 0,
      duplicates: 0,
      note: `idle ${IDLE_MS} ms: refused after it; absolute ${TTL_MS} ms: ${accepted.length} uses accepted, refused ${refused.at - loggedInAt} ms after login`,
    });
  });
});
