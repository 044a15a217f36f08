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
      worker: { queues: ['embed', 'backup', 'delete'], concurrency: 4 },
    });
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
    expect(config.privateHostAllowlist).toEqual(['127.0.0.1', 'docs.local']);
  });
});
