import { parseSetCookie } from 'cookie';
import request from 'supertest';
import { cookieHeaderOf } from '@docshelf/testing/e2e/cookies';
import { ADMIN, makeChunks, startHarness, type Harness } from '@docshelf/testing/e2e/harness';

describe('dashboard sessions and API keys', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it('logs in with the boot-time admin and sets an HttpOnly, SameSite=Lax session cookie', async () => {
    const res = await request(h.app).post('/api/auth/login').send(ADMIN).expect(200);
    expect(res.body).toEqual({ user: { id: expect.any(String), email: ADMIN.email } });
    const setCookie = (res.headers['set-cookie'] as unknown as string[])[0]!;
    const cookie = parseSetCookie(setCookie);
    expect(cookie).toMatchObject({
      name: 'docshelf_session',
      value: expect.stringMatching(/^.{20,}$/),
      httpOnly: true,
      sameSite: 'lax',
    });
    expect(cookie.expires!.getTime()).toBeGreaterThan(Date.now());
    expect(cookie.secure).toBeUndefined();

    const session = await request(h.app).get('/api/auth/session').set('Cookie', cookieHeaderOf(setCookie)).expect(200);
    expect(session.body.user.email).toBe(ADMIN.email);
  });

  it('refuses a wrong password or unknown email with the same 401', async () => {
    const wrong = await request(h.app)
      .post('/api/auth/login')
      .send({ ...ADMIN, password: 'nope-nope' })
      .expect(401);
    const unknown = await request(h.app)
      .post('/api/auth/login')
      .send({ email: 'who@x.test', password: 'x' })
      .expect(401);
    expect(wrong.body).toEqual({ error: 'Invalid email or password', code: 'UNAUTHORIZED' });
    expect(unknown.body).toEqual(wrong.body);
    await request(h.app).post('/api/auth/login').send({ email: ADMIN.email }).expect(400);
  });

  it('logout ends the session', async () => {
    const cookie = await h.login();
    await request(h.app).get('/api/auth/session').set('Cookie', cookie).expect(200);
    await request(h.app).post('/api/auth/logout').set('Cookie', cookie).expect(200);
    await request(h.app).get('/api/auth/session').set('Cookie', cookie).expect(401);
    await request(h.app).get('/api/keys').set('Cookie', cookie).expect(401);
  });

  it('runs the key lifecycle: create shows the key once, list never does, revoke makes it stop working', async () => {
    const cookie = await h.login();
    const created = await request(h.app)
      .post('/api/keys')
      .set('Cookie', cookie)
      .send({ name: 'ci uploader', permissions: 'admin' })
      .expect(200);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'ci uploader',
      key: expect.stringMatching(/^dsk_[0-9a-f]{64}$/),
      keyPrefix: created.body.key.slice(0, 12),
      permissions: 'admin',
    });
    const key: string = created.body.key;

    const defaulted = await request(h.app).post('/api/keys').set('Cookie', cookie).send({ name: 'reader' }).expect(200);
    expect(defaulted.body.permissions).toBe('read');

    let list = await request(h.app).get('/api/keys').set('Cookie', cookie).expect(200);
    expect(JSON.stringify(list.body)).not.toContain(key.slice(12));
    const listed = list.body.keys.find((k: { id: string }) => k.id === created.body.id);
    expect(listed).toEqual({
      id: created.body.id,
      name: 'ci uploader',
      keyPrefix: key.slice(0, 12),
      permissions: 'admin',
      lastUsedAt: null,
      createdAt: expect.any(String),
    });

    await request(h.app)
      .post('/api/ingest')
      .set('Authorization', `Bearer ${key}`)
      .send({ libraryId: 'keyed', name: 'Keyed', chunks: makeChunks(1) })
      .expect(200);
    list = await request(h.app).get('/api/keys').set('Cookie', cookie).expect(200);
    const used = list.body.keys.find((k: { id: string }) => k.id === created.body.id);
    expect(Date.now() - new Date(used.lastUsedAt).getTime()).toBeLessThan(60_000);

    await request(h.app).delete(`/api/keys?id=${created.body.id}`).set('Cookie', cookie).expect(200, { success: true });
    const revoked = await request(h.app)
      .post('/api/ingest')
      .set('Authorization', `Bearer ${key}`)
      .send({ libraryId: 'keyed', name: 'Keyed', chunks: makeChunks(1) })
      .expect(401);
    expect(revoked.body.code).toBe('UNAUTHORIZED');
    list = await request(h.app).get('/api/keys').set('Cookie', cookie).expect(200);
    expect(list.body.keys.map((k: { id: string }) => k.id)).not.toContain(created.body.id);
  });

  it('never accepts an API key, even an admin one, on /api/keys or /api/auth/session (401)', async () => {
    const key = await h.createKey('admin');
    const auth = { Authorization: `Bearer ${key}` };
    await request(h.app).get('/api/keys').set(auth).expect(401);
    await request(h.app).post('/api/keys').set(auth).send({ name: 'escalate', permissions: 'admin' }).expect(401);
    await request(h.app).delete('/api/keys?id=x').set(auth).expect(401);
    await request(h.app).get('/api/auth/session').set(auth).expect(401);
  });

  it('a read key is 403 on admin endpoints, reads libraries, and garbage keys are 401', async () => {
    const read = await h.createKey('read');
    const auth = { Authorization: `Bearer ${read}` };
    const body = { libraryId: 'r', name: 'R', chunks: makeChunks(1) };
    const forbidden = await request(h.app).post('/api/ingest').set(auth).send(body).expect(403);
    expect(forbidden.body.code).toBe('FORBIDDEN');
    await request(h.app).post('/api/embed').set(auth).send({ libraryId: 'r' }).expect(403);
    await request(h.app).get('/api/libraries').set(auth).expect(200);

    await request(h.app).post('/api/ingest').send(body).expect(401);
    await request(h.app)
      .post('/api/ingest')
      .set('Authorization', 'Bearer dsk_' + '0'.repeat(64))
      .send(body)
      .expect(401);
    await request(h.app).post('/api/ingest').set('Authorization', 'Basic abc').send(body).expect(401);
    await request(h.app).post('/api/embed').send({ libraryId: 'r' }).expect(401);
  });

  it('key management errors: name missing 400, id missing 400, unknown id 404, no session 401', async () => {
    const cookie = await h.login();
    const noName = await request(h.app).post('/api/keys').set('Cookie', cookie).send({}).expect(400);
    expect(noName.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ path: 'name' })],
    });
    await request(h.app).post('/api/keys').set('Cookie', cookie).send({ name: 'x', permissions: 'owner' }).expect(400);
    const noId = await request(h.app).delete('/api/keys').set('Cookie', cookie).expect(400);
    expect(noId.body.details[0].path).toBe('id');
    const unknown = await request(h.app).delete('/api/keys?id=does-not-exist').set('Cookie', cookie).expect(404);
    expect(unknown.body.code).toBe('KEY_NOT_FOUND');
    await request(h.app).get('/api/keys').expect(401);
    await request(h.app).post('/api/keys').send({ name: 'x' }).expect(401);
    await request(h.app).delete('/api/keys?id=x').expect(401);
    await request(h.app).get('/api/keys').set('Cookie', 'docshelf_session=forged').expect(401);
  });
});

describe('failed API-key checks are throttled per client address (API_KEY_MAX_FAILURES_PER_IP=3)', () => {
  let h: Harness;
  const from = (address: string) => ({ 'X-Forwarded-For': address });
  const badKey = (i: number) => ({ Authorization: `Bearer dsk_${String(i).padStart(64, '0')}` });
  beforeAll(async () => {
    h = await startHarness({
      API_KEY_MAX_FAILURES_PER_IP: '3',
      API_KEY_FAILURE_WINDOW_MINUTES: '10',
      TRUST_PROXY: 'true',
    });
  });
  afterAll(async () => h.close());

  it('answers 401 to the first 3 wrong keys, then 429 with Retry-After to any key from that address only', async () => {
    const readKey = await h.createKey('read');
    const attacker = from('203.0.113.7');
    for (let i = 0; i < 3; i++) {
      const res = await request(h.app).get('/api/search?q=x').set(attacker).set(badKey(i)).expect(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
    const limited = await request(h.app).get('/api/search?q=x').set(attacker).set(badKey(3)).expect(429);
    expect(limited.body).toEqual({ error: expect.stringContaining('API key'), code: 'RATE_LIMITED' });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(600);

    // Until the window ends a right key from that address is refused too: trying keys there tells nothing.
    await request(h.app)
      .post('/api/ingest')
      .set(attacker)
      .set('Authorization', `Bearer ${readKey}`)
      .send({ libraryId: 'x', name: 'X', chunks: makeChunks(1) })
      .expect(429);
    await request(h.app).get('/mcp').set(attacker).set(badKey(4)).expect(429);

    // Other addresses, sessions and requests without a key are not affected.
    await request(h.app)
      .get('/api/search?q=x')
      .set(from('203.0.113.8'))
      .set('Authorization', `Bearer ${readKey}`)
      .expect(200);
    await request(h.app).get('/api/search?q=x').set(from('203.0.113.8')).set(badKey(5)).expect(401);
    await request(h.app).get('/api/libraries').set(attacker).expect(200);
    const cookie = await h.login();
    await request(h.app).get('/api/keys').set(attacker).set('Cookie', cookie).expect(200);
  });
});
