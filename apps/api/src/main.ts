import { buildAdapters } from '@docshelf/adapters';
import { ConfigError, createLogger, loadConfig } from '@docshelf/config';
import { ensureAdminUser } from '@docshelf/core';
import { BullmqJobRunner } from '@docshelf/queue';
import { buildApp } from './app';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config, 'docshelf-api');
  const adapters = buildAdapters(config);
  const jobs = new BullmqJobRunner({
    redisUrl: config.redis.url,
    prefix: config.redis.prefix,
    waitTimeoutMs: config.jobWaitTimeoutMs,
  });
  if (config.admin) {
    const user = await ensureAdminUser({ records: adapters.records, sessionTtlMs: config.sessionTtlMs }, config.admin);
    logger.info({ email: user.email }, 'dashboard user ready');
  } else {
    logger.warn('ADMIN_EMAIL and ADMIN_PASSWORD are not set: no dashboard user was created or updated');
  }

  const app = buildApp({ config, records: adapters.records, jobs, logger });
  const server = app.listen(config.http.port, config.http.host, () => {
    logger.info({ url: `http://${config.http.host}:${config.http.port}`, dataDir: config.dataDir }, 'api listening');
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'api stopping');
    server.close(async () => {
      await jobs.close();
      await adapters.close();
      logger.info('api stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
