import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cookieHeaderOf } from '@docshelf/testing/e2e/cookies';
import { deleteRedisKeys, makeChunks, REDIS_URL } from '@docshelf/testing/e2e/harness';
import { startService, type ServiceProcess } from '@docshelf/testing/e2e/service-process';

/** The walk-through of docs/getting-started.md, against `npm start`'s real API and worker processes. */
describe('npm start as a new user runs it', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-svc-'));
  const env = {
    REDIS_URL,
    DATA_DIR: dataDir,
    QUEUE_PREFIX: `docshelf-svc-${randomBytes(4).toString('hex')}`,
    ADMIN_EMAIL: 'ops@docshelf.test',
    ADMIN_PASSWORD: 'a long enough password',
    LOG_LEVEL: 'info',
  };
  let service: ServiceProcess | undefined;

  afterAll(async () => {
    await service?.stop();
    await deleteRedisKeys(env.QUEUE_PREFIX);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, url: string, init: { body?: unknown; headers?: Record<string, string> } = {}) => {
    const res = await fetch(service!.baseUrl + url, {
      method,
      headers: { 'content-type': 'application/json', ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  it('goes from login to key to ingest to listing, survives a restart, then deletes', async () => {
    service = await startService(env, dataDir);

    const login = await call('POST', '/api/auth/login', {
      body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD },
    });
    expect(login.status).toBe(200);
    const cookie = cookieHeaderOf(login.headers.get('set-cookie'));

    const key = await call('POST', '/api/keys', {
      headers: { cookie },
      body: { name: 'uploader', permissions: 'admin' },
    });
    expect(key.status).toBe(200);
    const bearer = { authorization: `Bearer ${key.body.key}` };

    const ingest = await call('POST', '/api/ingest', {
      headers: bearer,
      body: { libraryId: 'readme/demo', name: 'Demo', chunks: makeChunks(12) },
    });
    expect(ingest.body).toEqual({ success: true, libraryId: 'readme/demo', chunksIngested: 12, vectorized: true });

    const list = await call('GET', '/api/libraries');
    expect(list.body.libraries).toEqual([expect.objectContaining({ id: 'readme/demo', chunkCount: 12 })]);

    expect(await service.stop()).toBe(0);
    expect(service.output()).toMatch(/api stopped/);
    expect(service.output()).toMatch(/worker stopped/);
    expect(service.output()).not.toContain(env.ADMIN_PASSWORD);
    expect(service.output()).not.toContain(key.body.key);

    service = await startService(env, dataDir);
    const again = await call('GET', '/api/libraries/readme/demo');
    expect(again.status).toBe(200);
    expect(again.body.chunks).toHaveLength(12);
    const embed = await call('POST', '/api/embed', { headers: bearer, body: { libraryId: 'readme/demo' } });
    expect(embed.body).toMatchObject({ processed: 12, total: 12, done: true });

    const del = await call('DELETE', '/api/libraries/readme/demo', { headers: bearer });
    expect(del.body).toEqual({ success: true });
    expect((await call('GET', '/api/libraries/readme/demo')).status).toBe(404);
    expect(fs.existsSync(path.join(dataDir, 'backups', encodeURIComponent('readme/demo')))).toBe(false);
  });
});
