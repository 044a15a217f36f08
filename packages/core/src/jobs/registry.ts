import { z } from 'zod';
import { crawlOptionsSchema, httpUrlSchema } from '../api/crawl-schemas';
import { libraryIdSchema } from '../domain/library-id';

/** Queue names are persisted in Redis keys: never rename one, or queued jobs are stranded. */
export const QUEUE_NAMES = ['embed', 'backup', 'delete', 'ingest', 'crawl'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

const ingestionId = z.string().uuid();

/** Every job: the queue it runs on and the zod schemas of its payload and result. Payloads are references only. */
export const jobRegistry = {
  /** Brings the vector index in line with one ingestion: clears what it replaced, embeds its chunks when asked. */
  'index-ingestion': {
    queue: 'embed',
    payload: z.object({ libraryId: libraryIdSchema, ingestionId, replace: z.boolean(), generate: z.boolean() }),
    result: z.object({ vectorized: z.boolean(), embedded: z.number().int().min(0) }),
  },
  /** Embeds one page of a library's chunks: the work behind POST /api/embed. */
  'embed-range': {
    queue: 'embed',
    payload: z.object({
      libraryId: libraryIdSchema,
      offset: z.number().int().min(0),
      limit: z.number().int().min(1),
    }),
    result: z.object({
      processed: z.number().int().min(0),
      total: z.number().int().min(0),
      offset: z.number().int().min(0),
      nextOffset: z.number().int().min(0).nullable(),
      done: z.boolean(),
    }),
  },
  /** Writes a gzipped snapshot of a library (fields and every chunk) to backup storage. */
  'write-backup': {
    queue: 'backup',
    payload: z.object({ libraryId: libraryIdSchema, ingestionId }),
    result: z.object({ written: z.boolean(), name: z.string().optional(), chunks: z.number().int().min(0) }),
  },
  /** Removes a library's vectors, backups and records, in that order so a failed attempt can be retried. */
  'delete-library': {
    queue: 'delete',
    payload: z.object({ libraryId: libraryIdSchema }),
    result: z.object({ existed: z.boolean(), backupsDeleted: z.number().int().min(0) }),
  },
  /** Coordinates one crawl: the one place that decides which pages are fetched and when the crawl is complete. */
  'crawl-site': {
    queue: 'ingest',
    payload: z.object({
      crawlId: ingestionId,
      libraryId: libraryIdSchema,
      name: z.string(),
      description: z.string().optional(),
      urls: z.array(httpUrlSchema).min(1).max(150),
      replace: z.boolean(),
      ownerId: z.string(),
      options: crawlOptionsSchema,
    }),
    result: z.object({
      pagesDiscovered: z.number().int().min(0),
      pagesCrawled: z.number().int().min(0),
      chunksIngested: z.number().int().min(0),
      errors: z.array(z.string()),
    }),
  },
  /** Fetches or renders one page, extracts and chunks it, and stages the chunks under the crawl id. */
  'crawl-page': {
    queue: 'crawl',
    payload: z.object({
      crawlId: ingestionId,
      url: httpUrlSchema,
      discover: z.boolean(),
      renderer: crawlOptionsSchema.shape.renderer,
    }),
    result: z.object({
      url: z.string(),
      finalUrl: z.string(),
      title: z.string(),
      chunks: z.number().int().min(0),
      links: z.array(z.string()),
      renderedWith: z.enum(['browser', 'http']),
    }),
  },
  /** Fetches one URL (an llms.txt or a page), chunks it and replaces the library's chunks with it. */
  'ingest-url': {
    queue: 'ingest',
    payload: z.object({
      ingestionId,
      libraryId: libraryIdSchema,
      name: z.string(),
      description: z.string().optional(),
      sourceUrl: httpUrlSchema,
      sourceType: z.string(),
      ownerId: z.string(),
    }),
    result: z.object({ chunksIngested: z.number().int().min(0) }),
  },
} as const satisfies Record<string, { queue: QueueName; payload: z.ZodType; result: z.ZodType }>;

export type JobName = keyof typeof jobRegistry;
export type JobPayload<N extends JobName> = z.infer<(typeof jobRegistry)[N]['payload']>;
export type JobResult<N extends JobName> = z.infer<(typeof jobRegistry)[N]['result']>;

export const JOB_NAMES = Object.keys(jobRegistry) as JobName[];

export function jobsOfQueue(queue: QueueName): JobName[] {
  return JOB_NAMES.filter((name) => jobRegistry[name].queue === queue);
}

/** Runs a job somewhere (a worker process in production) and resolves with its validated result. */
export interface JobRunner {
  run<N extends JobName>(name: N, payload: JobPayload<N>, options?: { timeoutMs?: number }): Promise<JobResult<N>>;
}
