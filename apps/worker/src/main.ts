import { buildAdapters } from '@docshelf/adapters';
import { ConfigError, createLogger, loadConfig } from '@docshelf/config';
import { createProcessRegistry, throttledErrorLog } from '@docshelf/observability';
import { RedisProbe, warnIfEvictionPolicyUnsafe } from '@docshelf/queue';
import { createCrawlRuntime } from './crawl-runtime';
import { drainWorkers } from './ops/drain-workers';
import { startHealthServer, type HealthServer } from './ops/health-server';
import { createWorkerMetrics } from './ops/worker-metrics';
import { workerReadinessChecks } from './ops/worker-readiness';
import { startWorkers } from './worker';

/** Time kept after the drain for handing jobs back and closing Redis and SQLite. */
const CLOSE_RESERVE_MS = 2_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config, 'docshelf-worker');
  const adapters = buildAdapters(config);
  const metrics = createWorkerMetrics(createProcessRegistry('worker'));
  const logRedisError = throttledErrorLog(logger, 'redis connection error; retrying');
  const redis = new RedisProbe(config.redis.url, (error) => logRedisError(error, 'redis'));
  void warnIfEvictionPolicyUnsafe(config.redis.url, logger);
  const crawl = createCrawlRuntime(config, logger);
  const running = startWorkers(
    { ...adapters, ...crawl, webhookSecret: config.jobs.webhookSecret, jobRetentionMs: config.jobs.retentionMs },
    {
      redisUrl: config.redis.url,
      prefix: config.redis.prefix,
      queues: config.worker.queues,
      concurrency: config.worker.concurrency,
      logger,
      metrics,
      lockDurationMs: config.worker.lockDurationMs,
      stalledIntervalMs: config.worker.stalledIntervalMs,
    },
  );

  let stopping = false;
  let health: HealthServer | undefined;
  if (config.worker.healthPort > 0) {
    const checks = workerReadinessChecks({ redis, records: adapters.records, running, isStopping: () => stopping });
    health = await startHealthServer({
      port: config.worker.healthPort,
      host: config.http.host,
      checks: () => checks,
      describe: () => ({ queues: running.status(), activeJobs: running.activeCount() }),
      registry: metrics.registry,
      metricsToken: config.metricsToken,
      metricsPublic: config.metricsPublic,
    });
    if (health.port === config.worker.healthPort) {
      logger.info({ port: health.port }, 'worker health endpoints listening (/healthz, /readyz, /metrics)');
    } else {
      // Several workers on one host need no settings of their own: the second one says where it listens instead.
      logger.warn(
        { port: health.port, requestedPort: config.worker.healthPort },
        `WORKER_HEALTH_PORT ${config.worker.healthPort} is in use (another worker on this host?); worker health endpoints listening on port ${health.port} instead`,
      );
    }
  }

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'worker received signal');
    setTimeout(() => {
      logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'worker shutdown deadline reached; exiting');
      process.exit(0);
    }, config.shutdownTimeoutMs).unref();
    const drainMs = Math.max(config.shutdownTimeoutMs - CLOSE_RESERVE_MS, config.shutdownTimeoutMs * 0.6);
    const outcome = await drainWorkers(running, drainMs, logger);
    // After a hand-back the processors may still be writing; exiting now is safer than closing SQLite under them.
    if (outcome === 'drained') {
      redis.close();
      await crawl.close().catch((error: unknown) => logger.warn({ err: error }, 'closing the browser failed'));
      await adapters.close();
    }
    await health?.close();
    // Lines still on their way out (a job's last log) are written before this one, not overtaken by the exit's flush.
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    logger.info({ ms: Date.now() - started, outcome }, 'worker stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
