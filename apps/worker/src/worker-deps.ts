import type {
  ArchiveSource,
  BackupStorage,
  CallbackSender,
  CrawlFrontier,
  Embedder,
  GitSource,
  HostThrottle,
  JobStore,
  LibrarySourceStore,
  LibrarySwap,
  PageLoader,
  LibraryStore,
  StagingStore,
  RepetitionRule,
  UploadStore,
  VectorIndex,
} from '@docshelf/core';

export interface WorkerDeps {
  libraries: LibraryStore;
  staging: StagingStore;
  vectors: VectorIndex;
  backups: BackupStorage;
  embedder: Embedder;
  jobStore: JobStore;
  /** Swaps a replacement built under a staging id into its library. */
  swap: LibrarySwap;
  /** Fetches and renders pages for crawls and URL ingestion, each within PAGE_TIMEOUT_MS. */
  pages: PageLoader;
  /** Which pages of each crawl are known and handed out, shared by the crawl's page jobs on every worker. */
  frontier: CrawlFrontier;
  /** Which lines a crawl drops as repeated chrome; the core default when absent. */
  repetition?: RepetitionRule;
  callbacks: CallbackSender;
  /** Reads git remotes for POST /api/ingest-git. */
  git: GitSource;
  /** Opens uploaded archives for POST /api/ingest-archive, which waits in `uploads` until its job ends. */
  archives: ArchiveSource;
  uploads: UploadStore;
  /** Spaces the pages of one host over every worker (CRAWL_HOST_PAGES_PER_SECOND, robots.txt Crawl-delay). */
  throttle?: HostThrottle;
  /** Crawl limits: politeness and CRAWL_MAX_DURATION_MS. */
  crawlLimits?: { hostPagesPerSecond: number; crawlDelayMaxMs: number; maxDurationMs: number; maxPages?: number };
  /** How each library was last crawled: a scheduled refresh crawls it again so. */
  sources: LibrarySourceStore;
  /** JOB_RETENTION: a job the worker starts (a scheduled refresh) prunes records older than this, as the API's do. */
  jobRetentionMs: number;
  /** WEBHOOK_SECRET: signs callbacks; without it none is sent. */
  webhookSecret?: string;
}
