import { z } from 'zod';
import {
  CRAWL_PAGES_CEILING,
  crawlOptionsSchema,
  crawlResponseSchema,
  embedAllSchema,
  httpUrlSchema,
} from '../api/crawl-schemas';
import { ingestArchiveFieldsSchema, ingestArchiveResponseSchema } from '../api/archive-schemas';
import { ingestGitRequestSchema, ingestGitResponseSchema } from '../api/git-schemas';
import { embedResponseSchema, ingestResponseSchema } from '../api/schemas';
import { jobLibraryIdSchema, libraryIdSchema } from '../domain/library-id';
import type { JobType } from './job-record';

/** Queue names are persisted in Redis keys: never rename one, or queued jobs are stranded. */
export const QUEUE_NAMES = ['embed', 'backup', 'delete', 'ingest', 'crawl', 'callbacks'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

const ingestionId = z.string().uuid();

/**
 * Every job: the queue it runs on and the zod schemas of its payload and result. Payloads are references only.
 * A job with a `jobType` is the root of what one request started: its result is the body the synchronous request
 * answers, its id is the job id clients see, and its record in the job store follows it.
 */
export const jobRegistry = {
  /** Commits staged chunks of POST /api/ingest, then indexes and backs them up in parallel. */
  'ingest-library': {
    queue: 'ingest',
    jobType: 'ingest',
    payload: z.object({
      ingestionId,
      libraryId: libraryIdSchema,
      name: z.string(),
      description: z.string().optional(),
      sourceUrl: z.string().optional(),
      sourceType: z.string(),
      version: z.string().optional(),
      replace: z.boolean(),
      skipEmbeddings: z.boolean(),
      embedAll: embedAllSchema,
      ownerId: z.string(),
      /** How many chunks the API staged under the ingestion id. */
      chunkCount: z.number().int().min(1),
    }),
    result: ingestResponseSchema,
  },
  /** Brings the vector index in line with one ingestion: clears what it replaced, embeds its chunks when asked. */
  'index-ingestion': {
    queue: 'embed',
    payload: z.object({
      libraryId: jobLibraryIdSchema,
      ingestionId,
      replace: z.boolean(),
      generate: z.boolean(),
      /** A replacement built by a re-crawl: chunks identical to this library's take its vectors instead of an embedding. */
      reuseVectorsOf: libraryIdSchema.optional(),
      /** Chunks the ingestion removed (pages a re-crawl found changed or gone): their vectors go too. */
      dropChunkIds: z.array(z.string()).optional(),
    }),
    result: z.object({ vectorized: z.boolean(), embedded: z.number().int().min(0) }),
  },
  /** Embeds one page of a library's chunks, or with `all` every chunk without a vector: the work behind POST /api/embed. */
  'embed-range': {
    queue: 'embed',
    jobType: 'embed',
    payload: z.object({
      libraryId: libraryIdSchema,
      offset: z.number().int().min(0),
      limit: z.number().int().min(1),
      /** Every chunk of the library not yet embedded, page after page; offset and limit are then unused. */
      all: z.boolean().optional(),
    }),
    result: embedResponseSchema,
  },
  /**
   * Writes a gzipped backup of what an ingestion changed: a snapshot of the library (fields and every chunk) for a
   * replacement or a library's first, otherwise an increment (the chunks it wrote and the ids it removed).
   */
  'write-backup': {
    queue: 'backup',
    payload: z.object({
      libraryId: libraryIdSchema,
      ingestionId,
      replace: z.boolean().optional(),
      removedChunkIds: z.array(z.string()).optional(),
    }),
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
    jobType: 'crawl',
    payload: z.object({
      crawlId: ingestionId,
      libraryId: libraryIdSchema,
      name: z.string(),
      description: z.string().optional(),
      urls: z.array(httpUrlSchema).min(1).max(CRAWL_PAGES_CEILING),
      replace: z.boolean(),
      ownerId: z.string(),
      options: crawlOptionsSchema,
    }),
    result: crawlResponseSchema,
  },
  /**
   * Fetches or renders one page, extracts it and stages its content and links under the crawl id (the commit orders
   * and chunks the pages from there: no page's links or text travel through Redis); in a crawl that follows links,
   * hands out the pages it found (through the crawl's frontier) as further jobs of the crawl,
   * after asking for those the library already knows conditionally itself (the unchanged ones need no job).
   */
  'crawl-page': {
    queue: 'crawl',
    payload: z.object({
      crawlId: ingestionId,
      url: httpUrlSchema,
      /** Admit the page's links through the crawl's frontier and add the pages handed out to the crawl. */
      fanOut: z.boolean().optional(),
      /** The seed of a crawl that follows links: its final origin joins the crawl, and it reads the sitemap if asked. */
      seed: z.boolean().optional(),
      renderer: crawlOptionsSchema.shape.renderer,
      /** robots.txt Crawl-delay of the site, in ms (the worker caps it at CRAWL_DELAY_MAX_S). */
      crawlDelayMs: z.number().int().min(0).optional(),
      /** The library crawled: its last crawl's validators of this page make the load conditional. */
      libraryId: libraryIdSchema.optional(),
    }),
    result: z.object({
      url: z.string(),
      finalUrl: z.string(),
      title: z.string(),
      renderedWith: z.enum(['browser', 'http']),
      /** Unchanged since the library's last crawl: not extracted again, its chunks stand. */
      unchanged: z.boolean().optional(),
      /**
       * Known pages this job handed out and found unchanged itself, each with one conditional request instead of a job
       * of its own: staged as unchanged (with the links they lead to), counted like pages crawled by their own jobs.
       */
      revalidated: z.array(z.string()).optional(),
      /**
       * What the crawl's `errors` say of this page though it was crawled: no content found in a page with text, links
       * or sitemap URLs skipped (over-long, or beyond the bounds).
       */
      notes: z.array(z.string().max(500)).max(10).optional(),
    }),
  },
  /** Fetches one URL (an llms.txt or a page), chunks it and replaces the library's chunks with it. */
  'ingest-url': {
    queue: 'ingest',
    jobType: 'ingest-url',
    payload: z.object({
      ingestionId,
      libraryId: libraryIdSchema,
      name: z.string(),
      description: z.string().optional(),
      sourceUrl: httpUrlSchema,
      sourceType: z.string(),
      embedAll: embedAllSchema,
      ownerId: z.string(),
    }),
    result: ingestResponseSchema,
  },
  /** Reads the documentation files of a git repository at a ref, chunks them and replaces the library's chunks. */
  'ingest-git': {
    queue: 'ingest',
    jobType: 'ingest-git',
    payload: ingestGitRequestSchema.omit({ callbackUrl: true, refreshEvery: true }).extend({
      ingestionId,
      ownerId: z.string(),
      /** A refresh's: the commit the library holds, which the ref still being at means nothing to do. */
      unlessCommit: z
        .string()
        .regex(/^[0-9a-f]{40,64}$/)
        .optional(),
    }),
    result: ingestGitResponseSchema,
  },
  /**
   * Reads an uploaded archive (kept in the upload store under the ingestion id until the job ends): its built site's
   * pages as a crawl reads them, or its documentation files, and replaces the library's chunks with them.
   */
  'ingest-archive': {
    queue: 'ingest',
    jobType: 'ingest-archive',
    // Not strict as the form is: a workflow's job data carries its state beside the payload.
    payload: z.object({
      ...ingestArchiveFieldsSchema.omit({ callbackUrl: true }).shape,
      embedAll: z.boolean(),
      ingestionId,
      ownerId: z.string(),
    }),
    result: ingestArchiveResponseSchema,
  },
  /**
   * Added by a library's job scheduler once per `refreshEvery`: starts a `crawl-site` or `ingest-git` job with the
   * library's kept source (a job of its own, followed like any), or does nothing for a library gone since.
   */
  'refresh-library': {
    queue: 'ingest',
    payload: z.object({ libraryId: libraryIdSchema }),
    result: z.object({ jobId: z.string().nullable() }),
  },
  /**
   * POSTs a finished job to its callbackUrl, signed; retried with backoff until the receiver answers 2xx. On a queue of
   * its own, so a receiver that hangs holds callback slots only, never those of ingests and crawls.
   */
  'deliver-callback': {
    queue: 'callbacks',
    payload: z.object({ jobId: z.string().uuid() }),
    result: z.object({ status: z.number().int() }),
  },
} as const satisfies Record<string, { queue: QueueName; jobType?: JobType; payload: z.ZodType; result: z.ZodType }>;

export type JobName = keyof typeof jobRegistry;
export type JobPayload<N extends JobName> = z.infer<(typeof jobRegistry)[N]['payload']>;
export type JobResult<N extends JobName> = z.infer<(typeof jobRegistry)[N]['result']>;

export const JOB_NAMES = Object.keys(jobRegistry) as JobName[];

export function jobsOfQueue(queue: QueueName): JobName[] {
  return JOB_NAMES.filter((name) => jobRegistry[name].queue === queue);
}

/** The root job of each job type. */
export const ROOT_JOBS = {
  ingest: 'ingest-library',
  crawl: 'crawl-site',
  'ingest-url': 'ingest-url',
  'ingest-git': 'ingest-git',
  'ingest-archive': 'ingest-archive',
  embed: 'embed-range',
} as const satisfies Record<JobType, JobName>;
export type RootJobName = (typeof ROOT_JOBS)[JobType];

/** The job type a job name starts, when it is a root. */
export function jobTypeOf(name: JobName): JobType | undefined {
  const spec = jobRegistry[name] as { jobType?: JobType };
  return spec.jobType;
}

/** Runs a job somewhere (a worker process in production) and resolves with its validated result. */
export interface JobRunner {
  /** Enqueues and awaits; a wait past `timeoutMs` throws 504 JOB_TIMEOUT naming the job, which goes on. */
  run<N extends JobName>(
    name: N,
    payload: JobPayload<N>,
    options?: { timeoutMs?: number; jobId?: string },
  ): Promise<JobResult<N>>;
  /** Enqueues without waiting; `jobId` makes the job's id the one clients see. */
  enqueue<N extends JobName>(name: N, payload: JobPayload<N>, options: { jobId: string }): Promise<void>;
}
