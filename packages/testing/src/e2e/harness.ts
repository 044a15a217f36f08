import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { cookieHeaderOf } from './cookies';
import { buildApp } from '@docshelf/api';
import { buildAdapters, type Adapters } from '@docshelf/adapters';
import { loadConfig, type Config } from '@docshelf/config';
import { ensureAdminUser, type QueueName } from '@docshelf/core';
import { BullmqJobRunner } from '@docshelf/queue';
import { createCrawlRuntime, startWorkers, type CrawlRuntime, type RunningWorkers } from '@docshelf/worker';
import pino from 'pino';
import request from 'supertest';
import type { Express } from 'express';
import { deleteRedisKeys } from './redis-keys';

export { deleteRedisKeys };

export const ADMIN = { email: 'admin@docshelf.test', password: 'correct horse battery' };
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Harness {
  app: Express;
  config: Readonly<Config>;
  adapters: Adapters;
  /** The API's side of the queues. */
  jobs: BullmqJobRunner;
  dataDir: string;
  prefix: string;
  /** Logs in as the configured admin and returns the Cookie header value. */
  login(): Promise<string>;
  /** Creates a key through the API and returns its full value. */
  createKey(permissions: 'read' | 'admin', name?: string): Promise<string>;
  /** Starts one more in-process worker for `queues` (e.g. one the harness leaves unserved); resolves with its stop function. */
  startWorker(queues: QueueName[]): () => Promise<void>;
  /** Serves the app on a loopback port (once) and returns its base URL, for clients that stream (SSE). */
  baseUrl(): Promise<string>;
  /** Stops the API side and the worker, keeping DATA_DIR; start() again reopens the same files. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** The real thing in one process: Express app, BullMQ worker, real Redis, SQLite in a fresh data dir. */
export async function startHarness(
  env: Record<string, string> = {},
  options: { redisUrl?: string } = {},
): Promise<Harness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-test-'));
  const prefix = `docshelf-test-${randomBytes(4).toString('hex')}`;
  const redisUrl = options.redisUrl ?? REDIS_URL;
  const config = loadConfig({
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    DATA_DIR: dataDir,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    JOB_WAIT_TIMEOUT_MS: '30000',
    LOG_LEVEL: 'silent',
    // Tests scrape /metrics freely unless they test its guard.
    METRICS_PUBLIC: 'true',
    ...env,
  });
  const logger = pino({ level: 'silent' });

  let adapters!: Adapters;
  let jobs!: BullmqJobRunner;
  let workers!: RunningWorkers;
  let crawl!: CrawlRuntime;
  let app!: Express;

  const boot = async () => {
    adapters = buildAdapters(config);
    jobs = new BullmqJobRunner({ redisUrl, prefix, waitTimeoutMs: config.jobWaitTimeoutMs });
    crawl = createCrawlRuntime(config, logger);
    workers = startWorkers(
      { ...adapters, ...crawl, webhookSecret: config.jobs.webhookSecret, jobRetentionMs: config.jobs.retentionMs },
      {
        redisUrl,
        prefix,
        queues: config.worker.queues,
        concurrency: config.worker.concurrency,
        logger,
      },
    );
    await ensureAdminUser({ accounts: adapters.accounts, sessionTtlMs: config.sessionTtlMs }, config.admin!);
    app = buildApp({ config, ...adapters, callbacks: crawl.callbacks, jobs, queues: jobs, logger });
  };
  let server: http.Server | undefined;
  const shutdown = async () => {
    if (server) {
      server.closeAllConnections();
      await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    }
    await workers.close();
    await Promise.all([jobs.close(), crawl.close()]);
    await adapters.close();
  };
  await boot();

  const harness: Harness = {
    get app() {
      return app;
    },
    get adapters() {
      return adapters;
    },
    get jobs() {
      return jobs;
    },
    config,
    dataDir,
    prefix,
    async login() {
      const res = await request(app).post('/api/auth/login').send(ADMIN).expect(200);
      return cookieHeaderOf((res.headers['set-cookie'] as unknown as string[])[0]);
    },
    async createKey(permissions, name = `${permissions} key`) {
      const cookie = await harness.login();
      const res = await request(app).post('/api/keys').set('Cookie', cookie).send({ name, permissions }).expect(200);
      return res.body.key as string;
    },
    startWorker(queues) {
      const extra = startWorkers(
        { ...adapters, ...crawl, webhookSecret: config.jobs.webhookSecret, jobRetentionMs: config.jobs.retentionMs },
        {
          redisUrl,
          prefix,
          queues,
          concurrency: config.worker.concurrency,
          logger,
        },
      );
      return () => extra.close();
    },
    async baseUrl() {
      server ??= await new Promise<http.Server>((resolve) => {
        const listening = http
          .createServer((req, res) => app(req, res))
          .listen(0, '127.0.0.1', () => resolve(listening));
      });
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async restart() {
      await shutdown();
      await boot();
    },
    async close() {
      await shutdown();
      await deleteRedisKeys(prefix, redisUrl);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** `count` chunks of roughly `words` words each, with ids c0000, c0001, … */
export function makeChunks(count: number, { words = 40, tag = 'doc' }: { words?: number; tag?: string } = {}) {
  return Array.from({ length: count }, (_, i) => ({
    id: `c${String(i).padStart(4, '0')}`,
    title: `${tag} section ${i}`,
    content: Array.from({ length: words }, (_, w) => `${tag}${i}word${w % 17}`).join(' '),
    url: `https://docs.example.com/${tag}/${i}`,
  }));
}
