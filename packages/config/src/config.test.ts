import os from 'node:os';
import path from 'node:path';
import { ConfigError, defaultExtractThreads, loadConfig } from './index';

describe('loadConfig', () => {
  it('fills the documented defaults from an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      http: { port: 3000, host: '0.0.0.0', bodyLimit: '50mb', trustProxy: false },
      redis: { url: 'redis://127.0.0.1:6379', prefix: 'docshelf' },
      dataDir: path.resolve('./data'),
      publicLibraryDelete: false,
      publicSearch: false,
      worker: {
        queues: ['embed', 'backup', 'delete', 'ingest', 'crawl', 'callbacks'],
        concurrency: { embed: 4, backup: 4, delete: 4, ingest: 4, crawl: 4, callbacks: 4 },
      },
    });
    expect(config).toMatchObject({
      shutdownTimeoutMs: 25_000,
      worker: { healthPort: 3001, lockDurationMs: 30_000, stalledIntervalMs: 15_000 },
    });
    expect(config.security).toEqual({
      sessionIdleMs: 24 * 3600_000,
      login: { perAccount: 5, perIp: 20, windowMs: 15 * 60_000 },
      keyFailures: { perIp: 30, windowMs: 15 * 60_000 },
      retrieval: { perKey: 600, perIp: 120, windowMs: 60_000 },
    });
    expect(config.metricsToken).toBeUndefined();
    expect(config.metricsPublic).toBe(false);
    expect(config.admin).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('names every invalid variable in one error', () => {
    expect(() => loadConfig({ PORT: 'eighty', REDIS_URL: 'nope', WORKER_CONCURRENCY: '0' })).toThrow(
      /PORT[\s\S]*REDIS_URL[\s\S]*WORKER_CONCURRENCY/,
    );
    expect(() => loadConfig({ ADMIN_EMAIL: 'a@b.test' })).toThrow(ConfigError);
    expect(() => loadConfig({ WORKER_QUEUES: 'embed,bogus' })).toThrow(/WORKER_QUEUES: unknown queue\(s\) bogus/);
    // Per-queue concurrency is part of the env schema: its variables are named with the others.
    expect(() =>
      loadConfig({ PORT: 'eighty', WORKER_CONCURRENCY_CRAWL: '0', WORKER_CONCURRENCY_EMBED: 'lots' }),
    ).toThrow(
      /PORT[\s\S]*WORKER_CONCURRENCY_EMBED: expected an integer from 1 to 256[\s\S]*WORKER_CONCURRENCY_CRAWL: expected an integer from 1 to 256/,
    );
  });

  it('extracts pages in the CPUs left to the event loop and Chromium, at most one per crawl job, unless CRAWL_EXTRACT_THREADS says', () => {
    const expected = Math.max(0, Math.min(os.availableParallelism() - 2, 4));
    expect(loadConfig({}).crawl.extractThreads).toBe(expected);
    expect(loadConfig({ CRAWL_EXTRACT_THREADS: '' }).crawl.extractThreads).toBe(expected);
    expect(defaultExtractThreads(2, 4)).toBe(0);
    expect(defaultExtractThreads(1, 4)).toBe(0);
    expect(defaultExtractThreads(4, 4)).toBe(2);
    expect(defaultExtractThreads(16, 4)).toBe(4);
    expect(defaultExtractThreads(16, 1)).toBe(1);
    expect(loadConfig({ CRAWL_EXTRACT_THREADS: '0' }).crawl.extractThreads).toBe(0);
    expect(loadConfig({ CRAWL_EXTRACT_THREADS: '6' }).crawl.extractThreads).toBe(6);
    expect(() => loadConfig({ CRAWL_EXTRACT_THREADS: 'many' })).toThrow(/CRAWL_EXTRACT_THREADS/);
  });

  it('parses flags and lists', () => {
    const config = loadConfig({
      PUBLIC_LIBRARY_DELETE: 'true',
      WORKER_QUEUES: ' backup , delete ',
      PRIVATE_HOST_ALLOWLIST: '127.0.0.1, docs.local',
    });
    expect(config.publicLibraryDelete).toBe(true);
    expect(loadConfig({ PUBLIC_SEARCH: 'true' }).publicSearch).toBe(true);
    expect(config.worker.queues).toEqual(['backup', 'delete']);
    expect(loadConfig({ WORKER_CONCURRENCY: '2', WORKER_CONCURRENCY_CRAWL: '8' }).worker.concurrency).toMatchObject({
      crawl: 8,
      embed: 2,
    });
    expect(() => loadConfig({ WORKER_CONCURRENCY_CRAWL: 'lots' })).toThrow(/WORKER_CONCURRENCY_CRAWL/);
    expect(loadConfig({ WORKER_CONCURRENCY: '3', WORKER_CONCURRENCY_BACKUP: '' }).worker.concurrency).toEqual({
      embed: 3,
      backup: 3,
      delete: 3,
      ingest: 3,
      crawl: 3,
      callbacks: 3,
    });
    expect(loadConfig({ WORKER_CONCURRENCY_CALLBACKS: '16' }).worker.concurrency).toMatchObject({
      callbacks: 16,
      ingest: 4,
    });
    expect(config.privateHostAllowlist).toEqual(['127.0.0.1', 'docs.local']);
  });

  it('reads the hosts browsers reach the service by, and the origins allowed to call /mcp', () => {
    expect(loadConfig({}).http.publicHosts).toEqual([]);
    expect(loadConfig({}).mcp.allowedOrigins).toEqual([]);
    const config = loadConfig({
      PUBLIC_HOSTS: ' Docs.Example.com , 10.0.0.5:3000,[::1]:3000',
      MCP_ALLOWED_ORIGINS: 'https://inspector.example/, http://localhost:6274',
    });
    expect(config.http.publicHosts).toEqual(['docs.example.com', '10.0.0.5:3000', '[::1]:3000']);
    expect(config.mcp.allowedOrigins).toEqual(['https://inspector.example', 'http://localhost:6274']);
    expect(() => loadConfig({ PUBLIC_HOSTS: 'https://docs.example.com' })).toThrow(/PUBLIC_HOSTS: not a host/);
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example/path' })).toThrow(
      /MCP_ALLOWED_ORIGINS: not an origin/,
    );
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'inspector.example' })).toThrow(/MCP_ALLOWED_ORIGINS/);
  });

  it('reads the job settings: retention of ended jobs, and the secret that signs callbacks', () => {
    expect(loadConfig({}).jobs).toEqual({ retentionMs: 30 * 24 * 3600_000, webhookSecret: undefined });
    expect(loadConfig({ JOB_RETENTION_DAYS: '7', WEBHOOK_SECRET: 'sixteen-chars-ok' }).jobs).toEqual({
      retentionMs: 7 * 24 * 3600_000,
      webhookSecret: 'sixteen-chars-ok',
    });
    expect(loadConfig({ WEBHOOK_SECRET: '' }).jobs.webhookSecret).toBeUndefined();
    expect(() => loadConfig({ JOB_RETENTION_DAYS: '1' })).toThrow(/JOB_RETENTION_DAYS/);
    expect(() => loadConfig({ WEBHOOK_SECRET: 'short' })).toThrow(/WEBHOOK_SECRET/);
    // A Standard Webhooks secret: whsec_ and the base64 of at least 16 bytes.
    const standard = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    expect(loadConfig({ WEBHOOK_SECRET: standard }).jobs.webhookSecret).toBe(standard);
    expect(() => loadConfig({ WEBHOOK_SECRET: 'whsec_not*base64*at*all' })).toThrow(/WEBHOOK_SECRET: .*base64/);
    expect(() => loadConfig({ WEBHOOK_SECRET: `whsec_${Buffer.alloc(8).toString('base64')}` })).toThrow(
      /WEBHOOK_SECRET: .*16 bytes/,
    );
  });

  it('reads the operations settings', () => {
    const config = loadConfig({
      SHUTDOWN_TIMEOUT_MS: '5000',
      WORKER_HEALTH_PORT: '0',
      METRICS_TOKEN: 'a-long-scrape-token',
    });
    expect(config).toMatchObject({
      shutdownTimeoutMs: 5000,
      metricsToken: 'a-long-scrape-token',
      worker: { healthPort: 0 },
    });
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({ METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
    expect(() => loadConfig({ WORKER_HEALTH_PORT: '70000' })).toThrow(/WORKER_HEALTH_PORT/);
  });
});

describe('loadConfig: production adapters', () => {
  it('uses the embedded engines by default', () => {
    expect(loadConfig({}).adapters).toEqual({
      records: { kind: 'sqlite' },
      vectors: { kind: 'sqlite-vec' },
      backups: { kind: 'fs' },
      embedder: { kind: 'local' },
    });
  });

  it('reads each production engine with its settings and defaults', () => {
    const config = loadConfig({
      RECORD_STORE: 'mongo',
      MONGODB_URI: 'mongodb://db:27017/docshelf?replicaSet=rs0',
      VECTOR_INDEX: 'pinecone',
      PINECONE_API_KEY: 'pc-key',
      PINECONE_INDEX: 'docs',
      BACKUP_STORAGE: 'gcs',
      GCS_BUCKET: 'docshelf-backups',
      STORAGE_EMULATOR_HOST: 'localhost:4443',
      EMBEDDER: 'openai',
      OPENAI_API_KEY: 'sk-test',
    });
    expect(config.adapters).toEqual({
      records: { kind: 'mongo', uri: 'mongodb://db:27017/docshelf?replicaSet=rs0' },
      vectors: {
        kind: 'pinecone',
        apiKey: 'pc-key',
        indexName: 'docs',
        indexHost: undefined,
        controllerHost: undefined,
      },
      backups: { kind: 'gcs', bucket: 'docshelf-backups', projectId: undefined, apiEndpoint: 'http://localhost:4443' },
      embedder: {
        kind: 'openai',
        apiKey: 'sk-test',
        baseUrl: undefined,
        model: 'text-embedding-3-small',
        dimensions: 1536,
        maxConcurrency: 4,
        maxRetries: 6,
        timeoutMs: 60_000,
      },
    });
    expect(
      loadConfig({
        BACKUP_STORAGE: 'gcs',
        GCS_BUCKET: 'b-1',
        GCS_API_ENDPOINT: 'http://gcs:4443',
        STORAGE_EMULATOR_HOST: 'other:1',
      }).adapters.backups,
    ).toMatchObject({ apiEndpoint: 'http://gcs:4443' });
    expect(
      loadConfig({ EMBEDDER: 'openai', OPENAI_BASE_URL: 'http://ollama:11434/v1' }).adapters.embedder,
    ).toMatchObject({ apiKey: 'not-needed' });
  });

  it('names every missing setting of a selected engine at once', () => {
    expect(() =>
      loadConfig({ RECORD_STORE: 'mongo', VECTOR_INDEX: 'pinecone', BACKUP_STORAGE: 'gcs', EMBEDDER: 'openai' }),
    ).toThrow(
      /MONGODB_URI[\s\S]*PINECONE_INDEX or PINECONE_INDEX_HOST[\s\S]*PINECONE_API_KEY[\s\S]*GCS_BUCKET[\s\S]*OPENAI_API_KEY/,
    );
    expect(() => loadConfig({ RECORD_STORE: 'postgres' })).toThrow(/RECORD_STORE/);
    expect(() => loadConfig({ OPENAI_EMBEDDING_DIMENSIONS: '0', OPENAI_MAX_CONCURRENCY: 'many' })).toThrow(
      /OPENAI_EMBEDDING_DIMENSIONS[\s\S]*OPENAI_MAX_CONCURRENCY/,
    );
    expect(() => loadConfig({ MONGODB_URI: 'postgres://x' })).toThrow(/MONGODB_URI/);
  });
});
