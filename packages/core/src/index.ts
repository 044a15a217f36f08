/**
 * The public face of @docshelf/core: what the other packages and the apps use, by name. Anything not listed here is
 * core's own. The package exports this file and `./schemas` (package.json), nothing else.
 */

// Errors and their codes
export {
  AppError,
  decodeAppError,
  encodeAppError,
  forbidden,
  libraryNotFound,
  rateLimited,
  restoredAppError,
  serviceUnavailable,
  unauthorized,
  validationFailed,
} from './errors';
export { ERROR_CODES, type ErrorCode } from './error-codes';

// Ports: what the packages and apps implement for core
export {
  type BackupBody,
  type BackupStorage,
  type UploadStore,
  type LibrarySource,
  type LibrarySourceStore,
  type RefreshScheduler,
  type ChunkPage,
  type CommitIngestionInput,
  type ConfirmedPage,
  type CrawledPage,
  type Embedder,
  type EmbedderState,
  type EmbedderStateStore,
  type EmbeddingModel,
  type EmbedScope,
  type KeywordIndex,
  type KeywordQuery,
  type LibrarySwap,
  type PageValidators,
  type RecordDatabase,
  type RecordStores,
  type LibraryStore,
  type AccountStore,
  type StagingStore,
  type StagedPage,
  type StagedPageContent,
  type StagedPageOutline,
  type VectorIndex,
} from './ports';
export {
  type HostThrottle,
  type LoadedPage,
  type LoadOptions,
  type PageLoader,
  type Renderer,
  type RevalidatedPage,
  type RevalidateOptions,
} from './crawl/page-loader';
export {
  type Admission,
  admissionKeyOf,
  type CrawlFrontier,
  type FoundLink,
  type FrontierScope,
  type FrontierStart,
  type FrontierSummary,
  type PageLinks,
} from './crawl/crawl-frontier';
export {
  type CancelOutcome,
  type FinalWrite,
  IDEMPOTENCY_WINDOW_MS,
  type JobOutcome,
  type JobStore,
  type NewJob,
  type StoredJob,
  toJobRecord,
} from './jobs/job-store';
export { type JobNotifier, type JobWatcher, type WorkflowHalter } from './jobs/job-signals';
export { type CallbackSender, webhookKeyOf } from './jobs/callback-sender';

// Resources and request/response schemas (the types every boundary is checked against)
export {
  type ApiKey,
  type ApiKeyCandidate,
  type ApiKeyRecord,
  type ChunkHit,
  type ChunkInput,
  type ChunkMeta,
  type ChunkToStore,
  type Library,
  type LibraryInput,
  type LibraryView,
  type Permission,
  type Session,
  type StoredChunk,
  type User,
  type UserWithPassword,
  type VectorMatch,
  type VectorRecord,
} from './domain/types';
export {
  compareNewestFirst,
  libraryIdSchema,
  newestFirst,
  parseLibraryId,
  versionedLibraryId,
  versionIdRange,
  versionOfLibraryId,
  type ParsedLibraryId,
} from './domain/library-id';
export { estimateTokens } from './domain/tokens';
export {
  type CreatedKey,
  createdKeySchema,
  createKeyRequestSchema,
  deleteKeyQuerySchema,
  embedRequestSchema,
  embedResponseSchema,
  ingestRequestSchema,
  ingestResponseSchema,
  type KeyListResponse,
  keyListResponseSchema,
  type LibraryDetailResponse,
  libraryDetailResponseSchema,
  type LibraryListResponse,
  libraryListResponseSchema,
  loginRequestSchema,
  type SuccessResponse,
  successSchema,
  type UserResponse,
  userResponseSchema,
} from './api/schemas';
export {
  CRAWL_PAGES_CEILING,
  crawlRequestSchema,
  crawlResponseSchema,
  ingestUrlRequestSchema,
} from './api/crawl-schemas';
export {
  gitRefSchema,
  ingestGitRequestSchema,
  ingestGitResponseSchema,
  type IngestGitRequest,
  type IngestGitResponse,
} from './api/git-schemas';
export type { GitDocFile, GitSource, GitSourceRead } from './sources/git-source';
export {
  ingestArchiveFieldsSchema,
  ingestArchiveResponseSchema,
  type IngestArchiveFields,
  type IngestArchiveResponse,
} from './api/archive-schemas';
export type { ArchiveContents, ArchiveSite, ArchiveSource } from './sources/archive-source';
export {
  chunksQuerySchema,
  chunksResponseSchema,
  contextQuerySchema,
  contextResponseSchema,
  libraryListQuerySchema,
  MAX_CONTEXT_TOKENS,
  MAX_QUERY_LENGTH,
  MIN_CONTEXT_TOKENS,
  searchQuerySchema,
  searchResponseSchema,
} from './api/retrieval-schemas';

// Jobs: the registry, records, workflows, submission and following
export {
  JOB_NAMES,
  type JobName,
  type JobPayload,
  jobRegistry,
  type JobResult,
  type JobRunner,
  jobsOfQueue,
  jobTypeOf,
  QUEUE_NAMES,
  type QueueName,
} from './jobs/registry';
export {
  acceptedJobSchema,
  appendProgressErrors,
  boundProgress,
  type ErrorBody,
  errorBodyOf,
  errorBodySchema,
  JOB_COUNTERS,
  jobIdSchema,
  jobListQuerySchema,
  jobListSchema,
  type JobPhase,
  type JobProgress,
  jobRecordSchema,
  type JobState,
  type JobType,
  MAX_PROGRESS_ERRORS,
  PROGRESS_COUNTERS,
  type ProgressChange,
  type ProgressCounter,
} from './jobs/job-record';
export {
  type ChildJob,
  type ChildOutcome,
  jobCancelled,
  type JobContext,
  standaloneJobContext,
  type Workflow,
} from './jobs/workflow';
export { type Idempotency, type JobMode, type SubmitDeps, type Submitted } from './use-cases/jobs/submit-job';
export { announceEnd, endRootJob, type LifecycleDeps, openRootJob } from './use-cases/jobs/job-lifecycle';
export { cancelJob, jobNotFound, listJobs, readJob } from './use-cases/jobs/manage-jobs';
export { followJob, type JobEvent } from './use-cases/jobs/follow-job';
export { deliverCallback } from './use-cases/jobs/deliver-callback';

// Accounts: passwords, sessions, API keys
export { hashSessionToken, SESSION_COOKIE } from './auth/session-token';
export { ensureAdminUser, logIn, logOut, resolveSession } from './use-cases/accounts/sessions';
export { authenticateApiKey, createApiKey, listApiKeys, revokeApiKey } from './use-cases/accounts/api-keys';

// Ingestion
export { ingestLibrary } from './use-cases/ingest/ingest-library';
export { ingestLibraryWorkflow } from './use-cases/ingest/ingest-library.workflow';

// Indexing: embeddings and vectors
export { embedChunks, embeddingTextOf } from './use-cases/indexing/embed-chunks';
export { indexIngestion } from './use-cases/indexing/index-ingestion';
export { embedLibraryPage, requestEmbedding } from './use-cases/indexing/embed-library-page';

// Libraries and backups
export { purgeLibrary, requestLibraryDeletion } from './use-cases/libraries/delete-library';
export { chunkPages } from './use-cases/libraries/chunk-pages';
export { writeBackup } from './use-cases/backups/write-backup';
export { readBackup } from './use-cases/backups/read-backup';

// Crawls: requests, workflows, pages, chunking of what they load
export { crawlLibrary, ingestLibraryFromUrl } from './use-cases/crawl/crawl-library';
export { crawlSiteWorkflow } from './use-cases/crawl/crawl-site.workflow';
export { crawlPage } from './use-cases/crawl/crawl-page';
export { ingestUrlWorkflow } from './use-cases/crawl/ingest-url.workflow';
export { GIT_AUTO_EMBED_LIMIT, ingestGitWorkflow } from './use-cases/git/ingest-git.workflow';
export { ingestLibraryFromGit } from './use-cases/git/ingest-library-from-git';
export {
  forgetLibrarySource,
  keepCrawlSource,
  keepGitSource,
  refreshLibrary,
  refreshScheduleOf,
  runScheduledRefresh,
  type RefreshDeps,
} from './use-cases/refresh/library-refresh';
export {
  refreshEverySchema,
  refreshRequestSchema,
  refreshScheduleResponseSchema,
  refreshScheduleSchema,
  type RefreshRequest,
  type RefreshSchedule,
} from './api/refresh-schemas';
export { ingestArchiveWorkflow, type IngestArchiveDeps } from './use-cases/archive/ingest-archive.workflow';
export { ingestLibraryFromArchive, removeUnclaimedUpload } from './use-cases/archive/ingest-library-from-archive';
export { normalizePageUrl } from './crawl/page-url';
export { DEFAULT_REPETITION_RULE, type RepetitionRule } from './crawl/repeated-blocks';
export { chunkMarkdown } from './chunking/chunk-markdown';

// Retrieval: ranking, fusion, context
export {
  buildContext,
  chunkHeadings,
  countTokens,
  identifierParts,
  packContext,
  pageChunks,
  pageLeads,
  queryTerms,
  rankLibraries,
  resolveLibraries,
  resolveLibrary,
  type LibraryResolver,
  type RetrievalDeps,
  searchableText,
  searchableTitle,
  searchDocs,
  withoutLinkTargets,
} from './retrieval';
