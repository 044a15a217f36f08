import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildAdapters, type Adapters } from '@docshelf/adapters';
import { loadConfig } from '@docshelf/config';
import { ensureAdminUser, serviceUnavailable, type JobName, type JobRunner } from '@docshelf/core';
import pino from 'pino';
import request from 'supertest';
import type { Express } from 'express';
import { buildApp } from './app';

const ADMIN = { email: 'admin@docshelf.test', password: 'correct horse battery' };

/**
 * The job side as the API sees it, in memory: it notes what the API asks for and answers each job with `answer`, or
 * refuses as the queue's runner does when Redis cannot be reached.
 */
function fakeJobs(answer: (name: JobName, payload: unknown) => unknown) {
  const asked: { name: JobName; payload: unknown }[] = [];
  let unreachable = false;
  const jobs = {
    async run(name: JobName, payload: unknown) {
      if (unreachable) throw serviceUnavailable('QUEUE_UNAVAILABLE', 'The job queue is unavailable: ECONNREFUSED');
      asked.push({ name, payload });
      return answer(name, payload);
    },
    async enqueue(name: JobName, payload: unknown) {
      asked.push({ name, payload });
    },
    async jobChanged() {},
    watchJob: () => () => undefined,
    haltWorkflow: async () => true,
    // Refresh schedules: none is set by these tests (test/refresh.e2e.test.ts runs them on BullMQ).
    schedule: async () => undefined,
    unschedule: async () => undefined,
    nextRefreshAt: async () => null,
  };
  return { jobs: jobs as unknown as JobRunner & typeof jobs, asked, setUnreachable: () => (unreachable = true) };
}

/** buildApp on the embedded stores in a temporary data dir, with the queue faked: no Redis, no worker, no build. */
async function startApp(answer: (name: JobName, payload: unknown) => unknown = () => ({})) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-app-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'silent',
  });
  const adapters = buildAdapters(config);
  await ensureAdminUser({ accounts: adapters.accounts, sessionTtlMs: config.sessionTtlMs }, config.admin!);
  const queue = fakeJobs(answer);
  const app = buildApp({
    config,
    ...adapters,
    jobs: queue.jobs,
    queues: { allQueues: () => [], ping: async () => undefined },
    callbacks: { assertAllowed: async () => undefined, post: async () => 200 },
    logger: pino({ level: 'silent' }),
  });
  const close = async () => {
    await adapters.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { app, adapters, queue, close };
}

async function sessionCookie(app: Express): Promise<string> {
  const res = await request(app).post('/api/auth/login').send(ADMIN).expect(200);
  return (res.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
}

async function seedLibrary(adapters: Adapters) {
  await adapters.libraries.commitIngestion({
    library: { id: 'acme/widgets', name: 'Widgets', sourceType: 'json' },
    ownerId: 'owner-1',
    chunks: [
      { id: 'install', title: 'Install', content: 'Install the widget toolkit with npm install widgets.' },
      { id: 'resize', title: 'Resize', content: 'A widget is resized by dragging its corner handle.' },
    ],
    replace: false,
    ingestionId: 'ing-1',
    now: new Date('2025-01-01T00:00:00Z'),
  });
}

describe('the API on in-process ports (buildApp, embedded stores, a faked queue)', () => {
  let started: Awaited<ReturnType<typeof startApp>>;

  afterEach(async () => {
    await started.close();
  });

  it('lists and shows a library to anyone, and searches it for a session', async () => {
    started = await startApp();
    await seedLibrary(started.adapters);
    const { app } = started;

    const listed = await request(app).get('/api/libraries').expect(200);
    expect(listed.body.libraries.map((library: { id: string }) => library.id)).toEqual(['acme/widgets']);
    const shown = await request(app).get('/api/libraries/acme/widgets').expect(200);
    expect(shown.body.chunks.map((chunk: { id: string }) => chunk.id)).toEqual(['install', 'resize']);
    await request(app).get('/api/libraries/acme/nothing').expect(404);

    const cookie = await sessionCookie(app);
    const found = await request(app)
      .get('/api/search')
      .query({ q: 'how do I resize a widget', libraryId: 'acme/widgets' })
      .set('Cookie', cookie)
      .expect(200);
    expect(found.body.mode).toBe('keyword');
    expect(found.body.results[0]).toMatchObject({ libraryId: 'acme/widgets', chunkId: 'resize' });
  });

  it('answers bad input and missing credentials in the error shape, asking the queue for nothing', async () => {
    started = await startApp();
    const { app, queue } = started;

    const unauthenticated = await request(app).get('/api/search').query({ q: 'widgets' }).expect(401);
    expect(unauthenticated.body).toMatchObject({ code: 'UNAUTHORIZED', error: expect.any(String) });

    const cookie = await sessionCookie(app);
    const invalid = await request(app)
      .post('/api/ingest')
      .set('Cookie', cookie)
      .send({ libraryId: 'not a library id', name: 'x', chunks: [] });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('VALIDATION_FAILED');
    expect(queue.asked).toEqual([]);
    expect(await started.adapters.libraries.listLibraries()).toEqual([]);
  });

  it("asks the queue to delete a library, and answers 503 when the queue can't be reached", async () => {
    started = await startApp((name) => (name === 'delete-library' ? { deleted: true } : {}));
    await seedLibrary(started.adapters);
    const { app, queue } = started;
    const key = await request(app)
      .post('/api/keys')
      .set('Cookie', await sessionCookie(app))
      .send({ name: 'deploy', permissions: 'admin' })
      .expect(200);
    const bearer = `Bearer ${key.body.key as string}`;

    await request(app).delete('/api/libraries/acme/widgets').set('Authorization', bearer).expect(200);
    expect(queue.asked).toEqual([{ name: 'delete-library', payload: { libraryId: 'acme/widgets' } }]);

    queue.setUnreachable();
    const down = await request(app).delete('/api/libraries/acme/widgets').set('Authorization', bearer);
    expect(down.status).toBe(503);
    expect(down.body.code).toBe('QUEUE_UNAVAILABLE');
  });
});
