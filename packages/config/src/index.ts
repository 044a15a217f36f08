import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { CRAWL_PAGES_CEILING, QUEUE_NAMES, webhookKeyOf, type QueueName } from '@docshelf/core';
import { ConfigError } from './config-error';
import { productionEnvSchema, readProductionAdapters } from './production-adapters';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .default('false')
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const CONCURRENCY_RANGE = 'expected an integer from 1 to 256';
const concurrency = z.coerce
  .number({ error: CONCURRENCY_RANGE })
  .int(CONCURRENCY_RANGE)
  .min(1, CONCURRENCY_RANGE)
  .max(256, CONCURRENCY_RANGE);

/** WORKER_CONCURRENCY_<QUEUE>: the jobs at once of one queue, when it differs from WORKER_CONCURRENCY. */
type ConcurrencyVariable = `WORKER_CONCURRENCY_${Uppercase<QueueName>}`;
const concurrencyVariable = (queue: QueueName) => `WORKER_CONCURRENCY_${queue.toUpperCase()}` as ConcurrencyVariable;
const concurrencyOverride = z.preprocess((v) => (v === '' ? undefined : v), concurrency.optional());
const queueConcurrencyShape = Object.fromEntries(
  QUEUE_NAMES.map((queue) => [concurrencyVariable(queue), concurrencyOverride]),
) as Record<ConcurrencyVariable, typeof concurrencyOverride>;

/** `WORKER_QUEUES`: a comma-separated subset of the queues, at least one. */
function readQueueList(value: string, ctx: z.RefinementCtx): QueueName[] {
  const queues = value
    .split(',')
    .map((q) => q.trim())
    .filter(Boolean);
  const unknown = queues.filter((q) => !(QUEUE_NAMES as readonly string[]).includes(q));
  if (unknown.length > 0 || queues.length === 0) {
    ctx.addIssue({
      code: 'custom',
      message: `unknown queue(s) ${unknown.join(', ') || '(none given)'}; known: ${QUEUE_NAMES.join(', ')}`,
    });
  }
  return queues as QueueName[];
}

/** A comma-separated list, entries trimmed, empty ones dropped. */
function splitList(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

/** `PUBLIC_HOSTS`: host names or IPs, each with an optional port (`docs.example.com`, `10.0.0.5:3000`, `[::1]:3000`). */
const HOST_ENTRY = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/;
function readHostList(value: string, ctx: z.RefinementCtx): string[] {
  const hosts = splitList(value).map((h) => h.toLowerCase());
  const bad = hosts.filter((h) => !HOST_ENTRY.test(h));
  if (bad.length > 0) {
    ctx.addIssue({ code: 'custom', message: `not a host or host:port: ${bad.join(', ')}` });
  }
  return hosts;
}

/** `MCP_ALLOWED_ORIGINS`: origins as browsers send them, `scheme://host[:port]` with nothing after. */
function readOriginList(value: string, ctx: z.RefinementCtx): string[] {
  return splitList(value).map((entry) => {
    const origin = URL.canParse(entry) ? new URL(entry).origin : 'null';
    if (origin === 'null' || origin !== entry.replace(/\/$/, '').toLowerCase()) {
      ctx.addIssue({ code: 'custom', message: `not an origin (scheme://host[:port]): ${entry}` });
    }
    return origin;
  });
}

const envSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'QUEUE_PREFIX may contain letters, digits, "_" and "-"')
    .default('docshelf'),
  DATA_DIR: z.string().default('./data'),
  ADMIN_EMAIL: z.string().email().optional(),
  ADMIN_PASSWORD: z.string().min(8, 'ADMIN_PASSWORD must be at least 8 characters').optional(),
  CHROMIUM_PATH: z.string().optional(),
  PRIVATE_HOST_ALLOWLIST: z.string().default(''),
  PUBLIC_LIBRARY_DELETE: booleanFlag,
  PUBLIC_SEARCH: booleanFlag,
  PUBLIC_HOSTS: z.string().default('').transform(readHostList),
  MCP_ALLOWED_ORIGINS: z.string().default('').transform(readOriginList),
  WORKER_QUEUES: z.string().default(QUEUE_NAMES.join(',')).transform(readQueueList),
  WORKER_CONCURRENCY: concurrency.default(4),
  ...queueConcurrencyShape,
  TRUST_PROXY: booleanFlag,
  BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb|gb)$/i, 'BODY_LIMIT looks like 50mb')
    .default('50mb'),
  JOB_WAIT_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000),
  CRAWL_WAIT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(30 * 60_000),
  PAGE_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(30_000),
  PAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .default(10 * 2 ** 20),
  PAGE_MAX_MEMORY_MB: z.coerce.number().int().min(64).default(512),
  CRAWL_MAX_DURATION_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(30 * 60_000),
  CRAWL_MAX_PAGES: z.coerce.number().int().min(1).max(CRAWL_PAGES_CEILING).default(10_000),
  GIT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .default(100 * 2 ** 20),
  GIT_MAX_FILES: z.coerce.number().int().min(1).default(100_000),
  GIT_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .default(2 * 2 ** 20),
  GIT_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(120_000),
  ARCHIVE_UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .default(100 * 2 ** 20),
  ARCHIVE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .default(200 * 2 ** 20),
  ARCHIVE_MAX_ENTRIES: z.coerce.number().int().min(1).default(100_000),
  ARCHIVE_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .default(10 * 2 ** 20),
  // The only parts of the worker's environment git sees: where git is, and the operator's certificate authorities.
  PATH: z.string().min(1).default('/usr/bin:/bin'),
  GIT_SSL_CAINFO: z.string().min(1).optional(),
  SSL_CERT_FILE: z.string().min(1).optional(),
  CRAWL_HOST_PAGES_PER_SECOND: z.coerce.number().min(0).default(10),
  CRAWL_DELAY_MAX_S: z.coerce.number().min(0).max(3_600).default(10),
  /** Threads that extract pages; unset = defaultExtractThreads, 0 = on the worker's event loop. */
  CRAWL_EXTRACT_THREADS: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce.number().int().min(0).max(64).optional(),
  ),
  CHROMIUM_SANDBOX: z.enum(['auto', 'on', 'off']).default('auto'),
  BROWSER_RECYCLE_PAGES: z.coerce.number().int().min(1).default(500),
  BROWSER_RECYCLE_MB: z.coerce.number().int().min(128).default(768),
  /** A line on at least this share of a crawl's pages is chrome and dropped; 0 turns the rule off. */
  CRAWL_REPEATED_LINE_SHARE: z.coerce.number().min(0).max(1).default(0.6),
  CRAWL_REPEATED_LINE_MIN_PAGES: z.coerce.number().int().min(2).max(10_000).default(5),
  SESSION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .default(24 * 7),
  EMBEDDING_DIMENSIONS: z.coerce.number().int().min(8).max(4096).default(256),
  VECTOR_CACHE_MB: z.coerce.number().int().min(0).max(1_048_576).default(256),
  /** Memory each process may give the local embedder's learned library models (questions are placed with them). */
  EMBEDDER_CACHE_MB: z.coerce.number().int().min(1).max(1_048_576).default(512),
  /** A library of at least this many vectors (or one that does not fit the cache) is searched through a graph; 0: never. */
  VECTOR_GRAPH_MIN_CHUNKS: z.coerce.number().int().min(0).default(30_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(25_000),
  METRICS_TOKEN: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
  ),
  METRICS_PUBLIC: booleanFlag,
  WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(1_000).default(30_000),
  WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(15_000),
  /** Any string of 16+ characters (its UTF-8 bytes are the key) or a Standard Webhooks `whsec_<base64>` secret. */
  WEBHOOK_SECRET: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .min(16, 'WEBHOOK_SECRET must be at least 16 characters')
      .superRefine((secret, ctx) => {
        try {
          webhookKeyOf(secret);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: `WEBHOOK_SECRET: ${(error as Error).message}` });
        }
      })
      .optional(),
  ),
  JOB_RETENTION_DAYS: z.coerce.number().int().min(7, 'JOB_RETENTION_DAYS must be at least 7').max(3650).default(30),
  SESSION_IDLE_MINUTES: z.coerce
    .number()
    .positive()
    .default(60 * 24),
  LOGIN_MAX_ATTEMPTS_PER_ACCOUNT: z.coerce.number().int().min(1).default(5),
  LOGIN_MAX_ATTEMPTS_PER_IP: z.coerce.number().int().min(1).default(20),
  LOGIN_WINDOW_MINUTES: z.coerce.number().positive().default(15),
  API_KEY_MAX_FAILURES_PER_IP: z.coerce.number().int().min(0).default(30),
  API_KEY_FAILURE_WINDOW_MINUTES: z.coerce.number().positive().default(15),
  RATE_LIMIT_PER_KEY: z.coerce.number().int().min(0).default(600),
  RATE_LIMIT_PER_IP: z.coerce.number().int().min(0).default(120),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().positive().default(60),
  MAX_CHUNKS_PER_REQUEST: z.coerce.number().int().min(1).default(10_000),
  MAX_CHUNK_BYTES: z.coerce.number().int().min(1_000).default(100_000),
  MAX_URL_LENGTH: z.coerce.number().int().min(256).max(4_096).default(4_096),
  ...productionEnvSchema.shape,
});

/** Every environment variable the configuration reads (`.env.example` documents each: a test checks it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/** Reads the environment into the typed config: the shape every process gets, derived in one place. */
export const configSchema = envSchema.transform((e, ctx) => {
  if (Boolean(e.ADMIN_EMAIL) !== Boolean(e.ADMIN_PASSWORD)) {
    ctx.addIssue({ code: 'custom', path: [], message: 'ADMIN_EMAIL and ADMIN_PASSWORD must be set together' });
  }
  const concurrency = Object.fromEntries(
    QUEUE_NAMES.map((queue) => [queue, e[concurrencyVariable(queue)] ?? e.WORKER_CONCURRENCY]),
  ) as Record<QueueName, number>;
  return {
    env: e.NODE_ENV,
    http: {
      port: e.PORT,
      host: e.HOST,
      bodyLimit: e.BODY_LIMIT,
      trustProxy: e.TRUST_PROXY,
      /** Host names (optionally with a port) browsers reach this service by; empty = loopback names and IPs only. */
      publicHosts: e.PUBLIC_HOSTS,
    },
    redis: { url: e.REDIS_URL, prefix: e.QUEUE_PREFIX },
    dataDir: path.resolve(e.DATA_DIR),
    admin: e.ADMIN_EMAIL && e.ADMIN_PASSWORD ? { email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD } : undefined,
    chromiumPath: e.CHROMIUM_PATH,
    privateHostAllowlist: e.PRIVATE_HOST_ALLOWLIST.split(',')
      .map((h) => h.trim())
      .filter(Boolean),
    publicLibraryDelete: e.PUBLIC_LIBRARY_DELETE,
    /** When true search, context, chunks and MCP answer without a credential. */
    publicSearch: e.PUBLIC_SEARCH,
    /** Origins of other sites whose pages may call /mcp from a browser. */
    mcp: { allowedOrigins: e.MCP_ALLOWED_ORIGINS },
    worker: {
      queues: e.WORKER_QUEUES,
      /** Jobs at once per queue: WORKER_CONCURRENCY_<QUEUE> overrides WORKER_CONCURRENCY for one queue. */
      concurrency,
      /** Port of the worker's /healthz, /readyz and /metrics; 0 = no health server. */
      healthPort: e.WORKER_HEALTH_PORT,
      /** A crashed worker's job goes back to the queue at most lockDurationMs + stalledIntervalMs after the crash. */
      lockDurationMs: e.WORKER_LOCK_DURATION_MS,
      stalledIntervalMs: e.WORKER_STALLED_INTERVAL_MS,
    },
    /** How long a SIGTERM/SIGINT may take before the process exits anyway. */
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    /** When set, /metrics needs `Authorization: Bearer <token>`. */
    metricsToken: e.METRICS_TOKEN,
    /** Without a token, /metrics is closed (403) unless this is true. */
    metricsPublic: e.METRICS_PUBLIC,
    jobWaitTimeoutMs: e.JOB_WAIT_TIMEOUT_MS,
    /** Job records: how long ended jobs stay readable, and the secret that signs callbacks (none are accepted without it). */
    jobs: { retentionMs: e.JOB_RETENTION_DAYS * 24 * 3600_000, webhookSecret: e.WEBHOOK_SECRET },
    crawl: {
      waitTimeoutMs: e.CRAWL_WAIT_TIMEOUT_MS,
      pageTimeoutMs: e.PAGE_TIMEOUT_MS,
      /** Limit on a fetched body (document or subresource): a larger or endless response is cut there and fails. */
      pageMaxBytes: e.PAGE_MAX_BYTES,
      /** A renderer past this RSS is stopped; its page fails alone. */
      pageMaxMemoryMb: e.PAGE_MAX_MEMORY_MB,
      /** The most pages one crawl may ask for (`maxPages`, or URLs in `urls`); a request above it is refused. */
      maxPages: e.CRAWL_MAX_PAGES,
      /** After this long a crawl schedules no more pages and keeps what it has. */
      maxDurationMs: e.CRAWL_MAX_DURATION_MS,
      /** Politeness: pages per host per second over all workers (0 = no limit). */
      hostPagesPerSecond: e.CRAWL_HOST_PAGES_PER_SECOND,
      /** robots.txt Crawl-delay is honoured up to this many seconds. */
      crawlDelayMaxS: e.CRAWL_DELAY_MAX_S,
      /** Threads extracting pages (HTML to markdown) beside the worker's event loop; 0 = on the event loop itself. */
      extractThreads: e.CRAWL_EXTRACT_THREADS ?? defaultExtractThreads(os.availableParallelism(), concurrency.crawl),
      /** A line on at least minShare of a crawl's pages (and minPages of them) is chrome and dropped. */
      repeatedLines: { minShare: e.CRAWL_REPEATED_LINE_SHARE, minPages: e.CRAWL_REPEATED_LINE_MIN_PAGES },
    },
    /** A git source (POST /api/ingest-git): what one read may fetch and read, and for how long. */
    git: {
      /** Bytes the fetched commit may take on disk; git is stopped past them (400 REPOSITORY_TOO_LARGE). */
      maxBytes: e.GIT_MAX_BYTES,
      /** Files of the commit's tree (400 REPOSITORY_TOO_LARGE past them). */
      maxFiles: e.GIT_MAX_FILES,
      /** A selected file larger than this is skipped and listed in the answer's `errors`. */
      maxFileBytes: e.GIT_MAX_FILE_BYTES,
      /** Discovery, fetch and reading the files together. */
      timeoutMs: e.GIT_TIMEOUT_MS,
      /** What git gets of the worker's environment (nothing else of it reaches git). */
      environment: {
        PATH: e.PATH,
        ...(e.GIT_SSL_CAINFO ? { GIT_SSL_CAINFO: e.GIT_SSL_CAINFO } : {}),
        ...(e.SSL_CERT_FILE ? { SSL_CERT_FILE: e.SSL_CERT_FILE } : {}),
      },
    },
    /** An uploaded archive (POST /api/ingest-archive): what the upload may be, and what one read may expand to and hold. */
    archive: {
      /** Bytes of the upload itself, as sent; the API stops reading past them (413 PAYLOAD_TOO_LARGE). */
      uploadMaxBytes: e.ARCHIVE_UPLOAD_MAX_BYTES,
      /** Bytes the archive may expand to as it is read; the read stops past them (400 ARCHIVE_TOO_LARGE). */
      maxBytes: e.ARCHIVE_MAX_BYTES,
      /** Entries of any kind (400 ARCHIVE_TOO_LARGE past them). */
      maxEntries: e.ARCHIVE_MAX_ENTRIES,
      /** A page or documentation file larger than this is skipped and listed in the answer's `errors`. */
      maxFileBytes: e.ARCHIVE_MAX_FILE_BYTES,
    },
    browser: {
      sandbox: e.CHROMIUM_SANDBOX,
      recycleAfterPages: e.BROWSER_RECYCLE_PAGES,
      recycleAfterMb: e.BROWSER_RECYCLE_MB,
    },
    /** Absolute session lifetime (from login); see also security.sessionIdleMs. */
    sessionTtlMs: e.SESSION_TTL_HOURS * 3600_000,
    security: {
      /** A session unused for this long is refused. */
      sessionIdleMs: e.SESSION_IDLE_MINUTES * 60_000,
      /** Failed logins allowed per account and per client IP within windowMs (shared by replicas through Redis). */
      login: {
        perAccount: e.LOGIN_MAX_ATTEMPTS_PER_ACCOUNT,
        perIp: e.LOGIN_MAX_ATTEMPTS_PER_IP,
        windowMs: e.LOGIN_WINDOW_MINUTES * 60_000,
      },
      /** Wrong API keys allowed per client IP within windowMs; then every key from there is refused. 0 = unlimited. */
      keyFailures: { perIp: e.API_KEY_MAX_FAILURES_PER_IP, windowMs: e.API_KEY_FAILURE_WINDOW_MINUTES * 60_000 },
      /** Search, context, chunks and MCP requests per key (per IP without a credential) per windowMs; 0 = unlimited. */
      retrieval: {
        perKey: e.RATE_LIMIT_PER_KEY,
        perIp: e.RATE_LIMIT_PER_IP,
        windowMs: e.RATE_LIMIT_WINDOW_SECONDS * 1_000,
      },
    },
    /** Sizes a request may have beyond BODY_LIMIT. */
    limits: { chunksPerRequest: e.MAX_CHUNKS_PER_REQUEST, chunkBytes: e.MAX_CHUNK_BYTES, urlLength: e.MAX_URL_LENGTH },
    /**
     * vectorCacheBytes: memory each process may give searched libraries' vectors (0 = none); graphMinVectors: the
     * size from which a library is searched through an approximate graph (0 = never); modelCacheBytes: memory for
     * the local embedder's learned models.
     */
    embedding: {
      dimensions: e.EMBEDDING_DIMENSIONS,
      vectorCacheBytes: e.VECTOR_CACHE_MB * 2 ** 20,
      graphMinVectors: e.VECTOR_GRAPH_MIN_CHUNKS,
      modelCacheBytes: e.EMBEDDER_CACHE_MB * 2 ** 20,
    },
    /** Which engine serves each port, with that engine's settings; embedded ones by default. */
    adapters: readProductionAdapters(e, ctx),
    logLevel: e.LOG_LEVEL,
  };
});

/** The configuration every process runs with: the output of the env schema, never declared twice. */
export type Config = z.output<typeof configSchema>;

/**
 * Extraction threads when CRAWL_EXTRACT_THREADS is unset: the CPUs left once the worker's event loop and Chromium have
 * one each, at most one per crawl job at once. A thread is a V8 of its own that loads and warms up the extraction code
 * for each crawl (it stops when idle) and collects its own garbage: on 2 CPUs, where Chromium keeps both busy, the
 * event loop extracts with 15–30% less CPU a page and 60–120 MB less memory (bench/results.md).
 */
export function defaultExtractThreads(cpus: number, crawlConcurrency: number): number {
  return Math.max(0, Math.min(cpus - 2, crawlConcurrency));
}

/** Reads and validates the environment once; the only place in Docshelf that looks at process.env. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) =>
      i.path.length > 0 ? `  ${i.path.join('.')}: ${i.message}` : `  ${i.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.freeze(parsed.data);
}
export * from './logger';
export { ConfigError } from './config-error';
export type { ProductionAdapters } from './production-adapters';
