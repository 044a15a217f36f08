import {
  crawlPage,
  crawlSiteWorkflow,
  deliverCallback,
  embedLibraryPage,
  indexIngestion,
  ingestLibraryWorkflow,
  ingestArchiveWorkflow,
  ingestGitWorkflow,
  ingestUrlWorkflow,
  purgeLibrary,
  runScheduledRefresh,
  writeBackup,
  type JobContext,
  type JobName,
  type JobPayload,
  type JobResult,
  type JobRunner,
  type Workflow,
} from '@docshelf/core';
import type { WorkerDeps } from '../worker-deps';

export type JobHandler<N extends JobName> = (payload: JobPayload<N>, ctx: JobContext) => Promise<JobResult<N>>;

/** One processor per job, a function or a workflow of steps: the compiler refuses a registry entry without one. */
export type ProcessorMap = {
  // Each workflow's state type is its own (the runner parses it with the workflow's `state` schema); S is invariant, so
  // only `any` admits them all here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [N in JobName]: JobHandler<N> | Workflow<N, any>;
};

/** CRAWL_MAX_PAGES's default, where a worker is built without crawl limits. */
const DEFAULT_ARCHIVE_PAGES = 10_000;

/**
 * `queues` is where the worker adds jobs of its own (a scheduled refresh's crawl): always asynchronously, as nobody
 * waits for them in this process.
 */
export function buildProcessors(deps: WorkerDeps, queues: Pick<JobRunner, 'enqueue'>): ProcessorMap {
  const submit = {
    jobStore: deps.jobStore,
    jobs: {
      enqueue: queues.enqueue.bind(queues),
      run: () => Promise.reject(new Error('a worker starts jobs without waiting for them')),
    },
    jobRetentionMs: deps.jobRetentionMs,
    callbacks: { sender: deps.callbacks, webhookSecret: deps.webhookSecret },
  };
  const pages = {
    libraries: deps.libraries,
    staging: deps.staging,
    loader: deps.pages,
    swap: deps.swap,
    frontier: deps.frontier,
    maxDurationMs: deps.crawlLimits?.maxDurationMs,
    ...(deps.repetition ? { repetition: deps.repetition } : {}),
  };
  const pageDeps = {
    staging: deps.staging,
    loader: deps.pages,
    frontier: deps.frontier,
    throttle: deps.throttle,
    politeness: deps.crawlLimits,
  };
  return {
    'ingest-library': ingestLibraryWorkflow(deps),
    'index-ingestion': (payload, ctx) => indexIngestion(deps, payload, ctx),
    'embed-range': (payload, ctx) => embedLibraryPage(deps, payload, ctx),
    'write-backup': (payload) => writeBackup(deps, payload),
    'delete-library': (payload) => purgeLibrary(deps, payload),
    'crawl-site': crawlSiteWorkflow(pages),
    'crawl-page': (payload, ctx) => crawlPage(pageDeps, payload, ctx),
    'ingest-url': ingestUrlWorkflow(pages),
    'ingest-git': ingestGitWorkflow({
      libraries: deps.libraries,
      git: deps.git,
      swap: deps.swap,
      sources: deps.sources,
    }),
    'ingest-archive': ingestArchiveWorkflow({
      ...pages,
      uploads: deps.uploads,
      archives: deps.archives,
      maxPages: deps.crawlLimits?.maxPages ?? DEFAULT_ARCHIVE_PAGES,
    }),
    'refresh-library': (payload) =>
      runScheduledRefresh({ libraries: deps.libraries, sources: deps.sources, submit }, payload.libraryId),
    'deliver-callback': (payload) => deliverCallback(deps, payload),
  };
}
