import type { RecordDatabase } from '@docshelf/core';
import express from 'express';
import request from 'supertest';
import { healthRoutes } from './health.route';

/** Readiness with fakes: the record store failing, and a process that is shutting down. */
function appWith(options: { recordsFail?: boolean; stopping?: boolean }) {
  const records = {
    ping: async () => {
      if (options.recordsFail) throw new Error('SQLITE_CANTOPEN: unable to open database file');
    },
  } as unknown as RecordDatabase;
  const queues = { allQueues: () => [], ping: async () => undefined };
  return express().use(healthRoutes({ records, queues, isStopping: () => options.stopping ?? false }));
}

describe('GET /readyz', () => {
  it('answers 503 naming the record store when it fails', async () => {
    const res = await request(appWith({ recordsFail: true }))
      .get('/readyz')
      .expect(503);
    expect(res.body).toEqual({
      status: 'not_ready',
      checks: { redis: 'ok', records: 'failed' },
      error: 'Not ready: records: SQLITE_CANTOPEN: unable to open database file',
      code: 'NOT_READY',
      details: [{ check: 'records', message: 'SQLITE_CANTOPEN: unable to open database file' }],
    });
  });

  it('answers 503 while the process shuts down, and /healthz stays 200', async () => {
    const app = appWith({ stopping: true });
    const res = await request(app).get('/readyz').expect(503);
    expect(res.body.checks).toEqual({ redis: 'ok', records: 'ok', shutdown: 'failed' });
    await request(app).get('/healthz').expect(200, { status: 'ok' });
  });
});
