import { buildAdapters } from '@docshelf/adapters';
import { ConfigError, createLogger, loadConfig } from '@docshelf/config';
import { ensureAdminUser } from '@docshelf/core';
import { createProcessRegistry, throttledErrorLog } from '@docshelf/observability';
import { createAddressPolicy, HttpCallbackSender } from '@docshelf/crawler';
import { BullmqJobRunner, warnIfEvictionPolicyUnsafe } from '@docshelf/queue';
import { Redis } from 'ioredis';
import { buildApp } from './app';
import { closeHttpServer } from './ops/close-http-server';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config, 'docshelf-api');
  const adapters = buildAdapters(config);
  const jobs = new BullmqJobRunner({
    redisUrl: config.redis.url,
    prefix: config.redis.prefix,
    waitTimeoutMs: config.jobWaitTimeoutMs,
    onError: throttledErrorLog(logger, 'redis connection error; retrying'),
  });
  void warnIfEvictionPolicyUnsafe(config.redis.url, logger);
  // Login attempts and request rates, counted in Redis for every replica; commands fail at once while it is away,
  // and the limiters count in memory meanwhile.
  const rateLimitRedis = new Redis(config.redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  const rateLimitRedisError = throttledErrorLog(
    logger,
    'rate limit redis connection error; counting in memory meanwhile',
  );
  rateLimitRedis.on('error', (error: Error) => rateLimitRedisError(error, 'rate-limits'));
  if (config.admin) {
    const user = await ensureAdminUser(
      { accounts: adapters.accounts, sessionTtlMs: config.sessionTtlMs },
      config.admin,
    );
    logger.info({ email: user.email }, 'dashboard user ready');
  } else {
    logger.warn('ADMIN_EMAIL and ADMIN_PASSWORD are not set: no dashboard user was created or updated');
  }

  let stopping = false;
  const shutdown = new AbortController();
  const app = buildApp({
    config,
    libraries: adapters.libraries,
    accounts: adapters.accounts,
    staging: adapters.staging,
    records: adapters.records,
    keywords: adapters.keywords,
    vectors: adapters.vectors,
    embedders: adapters.embedders,
    jobStore: adapters.jobStore,
    uploads: adapters.uploads,
    sources: adapters.sources,
    callbacks: new HttpCallbackSender(createAddressPolicy({ allowlist: config.privateHostAllowlist })),
    jobs,
    queues: jobs,
    rateLimitRedis,
    logger,
    metrics: createProcessRegistry('api'),
    isStopping: () => stopping,
    shutdownSignal: shutdown.signal,
  });
  const server = app.listen(config.http.port, config.http.host, () => {
    logger.info({ url: `http://${config.http.host}:${config.http.port}`, dataDir: config.dataDir }, 'api listening');
  });

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    shutdown.abort();
    const started = Date.now();
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'api stopping: finishing in-flight requests');
    // Whatever hangs below, the process is gone by the deadline.
    setTimeout(() => {
      logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'api shutdown deadline reached; exiting');
      process.exit(0);
    }, config.shutdownTimeoutMs).unref();
    // Leave a little time after the HTTP drain for closing Redis and SQLite.
    const drain = await closeHttpServer(
      server,
      Math.max(config.shutdownTimeoutMs - 2_000, config.shutdownTimeoutMs * 0.8),
    );
    if (drain === 'cut') logger.warn('in-flight requests were cut at the shutdown deadline');
    await jobs.close().catch((error: unknown) => logger.warn({ err: error }, 'closing queues failed'));
    rateLimitRedis.disconnect();
    await adapters.close();
    logger.info({ ms: Date.now() - started }, 'api stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
