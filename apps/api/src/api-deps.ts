import type { Config } from '@docshelf/config';
import type {
  CallbackSender,
  Embedder,
  JobNotifier,
  JobRunner,
  JobStore,
  JobWatcher,
  KeywordIndex,
  AccountStore,
  LibraryStore,
  LibrarySourceStore,
  RefreshScheduler,
  RecordDatabase,
  StagingStore,
  UploadStore,
  VectorIndex,
  WorkflowHalter,
} from '@docshelf/core';
import type { Registry } from '@docshelf/observability';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { KeyFailureGuard } from './http/rate-limits';

/** The Redis side of the job queues, for Bull Board, readiness and the queue gauges; BullmqJobRunner is one. */
export interface QueueOps {
  allQueues(): Queue[];
  /** Throws, with the reason, when Redis cannot take a command right now. */
  ping(timeoutMs?: number): Promise<void>;
}

export interface ApiDeps {
  config: Pick<
    Config,
    | 'http'
    | 'sessionTtlMs'
    | 'publicLibraryDelete'
    | 'publicSearch'
    | 'mcp'
    | 'crawl'
    | 'metricsToken'
    | 'metricsPublic'
    | 'jobs'
    | 'security'
    | 'limits'
    | 'redis'
    | 'archive'
  >;
  libraries: LibraryStore;
  accounts: AccountStore;
  staging: StagingStore;
  /** The database of the three stores above, which readiness checks. */
  records: Pick<RecordDatabase, 'ping'>;
  /** The read side: keyword and vector rankings, and the embedders that turn a question into a vector. */
  keywords: KeywordIndex;
  vectors: VectorIndex;
  embedders: Embedder[];
  /** Enqueues and awaits jobs, follows their changes and halts cancelled ones (BullmqJobRunner does all four). */
  jobs: JobRunner & JobWatcher & JobNotifier & WorkflowHalter & RefreshScheduler;
  /** Records of the jobs clients follow. */
  jobStore: JobStore;
  /** How each library was last crawled, for refreshes. */
  sources: LibrarySourceStore;
  /** Uploaded archives, kept until the job that reads them ends (shared with the workers). */
  uploads: UploadStore;
  /** Checks callback URLs against the SSRF address policy. */
  callbacks: CallbackSender;
  queues: QueueOps;
  /** Where login attempts and request rates are counted, shared by every API replica; in-process counters when absent. */
  rateLimitRedis?: Redis;
  /** Wrong API keys per client address; buildApp sets it from its rate limits for every route. */
  keyFailures?: KeyFailureGuard;
  logger: Logger;
  /** Where /metrics collects from; the process registry in production, a fresh one per app when absent. */
  metrics?: Registry;
  /** True once shutdown began: /readyz answers 503 so load balancers stop sending traffic here. */
  isStopping?: () => boolean;
  /** The built dashboard (apps/web/dist unless set). */
  webDistDir?: string;
  /** Aborted when shutdown begins: open event streams end, so they do not hold the shutdown up. */
  shutdownSignal?: AbortSignal;
}
