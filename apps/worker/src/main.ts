import { buildAdapters } from '@docshelf/adapters';
import { ConfigError, createLogger, loadConfig } from '@docshelf/config';
import { startWorkers } from './worker';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config, 'docshelf-worker');
  const adapters = buildAdapters(config);
  const running = startWorkers(adapters, {
    redisUrl: config.redis.url,
    prefix: config.redis.prefix,
    queues: config.worker.queues,
    concurrency: config.worker.concurrency,
    logger,
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker stopping: finishing active jobs');
    await running.close();
    await adapters.close();
    logger.info('worker stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
