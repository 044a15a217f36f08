import path from 'node:path';
import { ConfigError, loadConfig } from './index';

describe('loadConfig', () => {
  it('fills the documented defaults from an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      http: { port: 3000, host: '0.0.0.0', bodyLimit: '50mb', trustProxy: false },
      redis: { url: 'redis://127.0.0.1:6379', prefix: 'docshelf' },
      dataDir: path.resolve('./data'),
      publicLibraryDelete: false,
      worker: { queues: ['embed', 'backup', 'delete', 'ingest', 'crawl'], concurrency: { embed: 4, backup: 4, delete: 4, ingest: 4, crawl: 4 } },
    });
    expect(config).toMatchObject({
      shutdownTimeoutMs: 25_000,
      worker: { healthPort: 3001, lockDurationMs: 30_000, stalledIntervalMs: 15_000 },
    });
    expect(config.metricsToken).toBeUndefined();
    expect(config.admin).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('names every invalid variable in one error', () => {
    expect(() => loadConfig({ PORT: 'eighty', REDIS_URL: 'nope', WORKER_CONCURRENCY: '0' })).toThrow(
      /PORT[\s\S]*REDIS_URL[\s\S]*WORKER_CONCURRENCY/,
    );
    expect(() => loadConfig({ ADMIN_EMAIL: 'a@b.test' })).toThrow(ConfigError);
    expect(() => loadConfig({ WORKER_QUEUES: 'embed,bogus' })).toThrow(/bogus/);
  });

  it('parses flags and lists', () => {
    const config = loadConfig({ PUBLIC_LIBRARY_DELETE: 'true', WORKER_QUEUES: ' backup , delete ', PRIVATE_HOST_ALLOWLIST: '127.0.0.1, docs.local' });
    expect(config.publicLibraryDelete).toBe(true);
    expect(config.worker.queues).toEqual(['backup', 'delete']);
    expect(loadConfig({ WORKER_CONCURRENCY: '2', WORKER_CONCURRENCY_CRAWL: '8' }).worker.concurrency).toMatchObject({ crawl: 8, embed: 2 });
    expect(() => loadConfig({ WORKER_CONCURRENCY_CRAWL: 'lots' })).toThrow(/WORKER_CONCURRENCY_CRAWL/);
    expect(config.privateHostAllowlist).toEqual(['127.0.0.1', 'docs.local']);
  });

  it('reads the operations settings', () => {
    const config = loadConfig({ SHUTDOWN_TIMEOUT_MS: '5000', WORKER_HEALTH_PORT: '0', METRICS_TOKEN: 'a-long-scrape-token' });
    expect(config).toMatchObject({ shutdownTimeoutMs: 5000, metricsToken: 'a-long-scrape-token', worker: { healthPort: 0 } });
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({ METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
    expect(() => loadConfig({ WORKER_HEALTH_PORT: '70000' })).toThrow(/WORKER_HEALTH_PORT/);
  });
});
