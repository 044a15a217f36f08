import path from 'node:path';
import { z } from 'zod';
import { QUEUE_NAMES, type QueueName } from '@docshelf/core';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .default('false')
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

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
  WORKER_QUEUES: z.string().default(QUEUE_NAMES.join(',')),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  TRUST_PROXY: booleanFlag,
  BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb|gb)$/i, 'BODY_LIMIT looks like 50mb').default('50mb'),
  JOB_WAIT_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000),
  SESSION_TTL_HOURS: z.coerce.number().positive().default(24 * 7),
  EMBEDDING_DIMENSIONS: z.coerce.number().int().min(8).max(4096).default(256),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  env: string;
  http: { port: number; host: string; bodyLimit: string; trustProxy: boolean };
  redis: { url: string; prefix: string };
  dataDir: string;
  admin?: { email: string; password: string };
  chromiumPath?: string;
  privateHostAllowlist: string[];
  publicLibraryDelete: boolean;
  worker: { queues: QueueName[]; concurrency: number };
  jobWaitTimeoutMs: number;
  sessionTtlMs: number;
  embedding: { dimensions: number };
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads and validates the environment once; the only place in Docshelf that looks at process.env. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (Boolean(e.ADMIN_EMAIL) !== Boolean(e.ADMIN_PASSWORD)) {
    throw new ConfigError('Invalid configuration:\n  ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
  }
  const queues = e.WORKER_QUEUES.split(',').map((q) => q.trim()).filter(Boolean);
  const unknown = queues.filter((q) => !(QUEUE_NAMES as readonly string[]).includes(q));
  if (unknown.length > 0 || queues.length === 0) {
    throw new ConfigError(
      `Invalid configuration:\n  WORKER_QUEUES: unknown queue(s) ${unknown.join(', ') || '(none given)'}; known: ${QUEUE_NAMES.join(', ')}`,
    );
  }
  return Object.freeze({
    env: e.NODE_ENV,
    http: { port: e.PORT, host: e.HOST, bodyLimit: e.BODY_LIMIT, trustProxy: e.TRUST_PROXY },
    redis: { url: e.REDIS_URL, prefix: e.QUEUE_PREFIX },
    dataDir: path.resolve(e.DATA_DIR),
    admin: e.ADMIN_EMAIL && e.ADMIN_PASSWORD ? { email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD } : undefined,
    chromiumPath: e.CHROMIUM_PATH,
    privateHostAllowlist: e.PRIVATE_HOST_ALLOWLIST.split(',').map((h) => h.trim()).filter(Boolean),
    publicLibraryDelete: e.PUBLIC_LIBRARY_DELETE,
    worker: { queues: queues as QueueName[], concurrency: e.WORKER_CONCURRENCY },
    jobWaitTimeoutMs: e.JOB_WAIT_TIMEOUT_MS,
    sessionTtlMs: e.SESSION_TTL_HOURS * 3600_000,
    embedding: { dimensions: e.EMBEDDING_DIMENSIONS },
    logLevel: e.LOG_LEVEL,
  });
}
export * from './logger';
