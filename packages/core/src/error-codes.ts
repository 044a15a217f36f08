/**
 * Every error code Docshelf answers with: the HTTP statuses it comes with and what it means. AppError takes only these
 * codes, each with one of its statuses (the type check holds every `new AppError` to this table); the OpenAPI document
 * describes error responses from it, and a test holds the API reference's table of codes (docs/api.md) to it.
 */
export const ERROR_CODES = {
  BAD_REQUEST: { statuses: [400], meaning: 'The request is malformed, e.g. a path that does not percent-decode' },
  VALIDATION_FAILED: {
    statuses: [400],
    meaning: "The body or query failed validation; `details` name each field's path",
  },
  MALFORMED_JSON: { statuses: [400], meaning: 'The body is not valid JSON' },
  REQUEST_ABORTED: { statuses: [400], meaning: 'The client aborted the request while its body was read' },
  TOO_MANY_PAGES: { statuses: [400], meaning: 'A crawl asks for more pages than `CRAWL_MAX_PAGES`' },
  URL_TOO_LONG: {
    statuses: [400, 414],
    meaning: 'The request URL (414) or a URL in the body (400) is longer than `MAX_URL_LENGTH`',
  },
  URL_BLOCKED: { statuses: [400], meaning: 'The address policy refuses the URL (a private or reserved address)' },
  URL_UNREACHABLE: { statuses: [400], meaning: 'The URL could not be fetched (DNS, connection, TLS or timeout)' },
  NOT_A_REPOSITORY: {
    statuses: [400],
    meaning: 'The git URL answers, but not as a git repository over smart HTTP (or one that needs credentials)',
  },
  REF_NOT_FOUND: { statuses: [400], meaning: 'The git repository has no branch, tag or commit of that name' },
  REPOSITORY_TOO_LARGE: {
    statuses: [400],
    meaning: 'The git repository is larger than `GIT_MAX_BYTES` or has more files than `GIT_MAX_FILES`',
  },
  ARCHIVE_INVALID: {
    statuses: [400],
    meaning:
      'The upload is not a readable .zip or .tar.gz: not an archive, truncated or corrupt, encrypted, or a path leading out of it',
  },
  ARCHIVE_TOO_LARGE: {
    statuses: [400],
    meaning: 'The uploaded archive expands to more bytes, or holds more entries, than the archive limits allow',
  },
  NOT_REFRESHABLE: {
    statuses: [400],
    meaning:
      'A refresh was asked of a library with no kept crawl settings (not crawled, or crawled before they were kept)',
  },
  UPLOAD_GONE: {
    statuses: [400],
    meaning: 'The uploaded archive a job was to read is no longer stored (removed by an earlier attempt of the job)',
  },
  PAGE_FAILED: { statuses: [400], meaning: 'The page could not be rendered or read' },
  PAGE_GONE: { statuses: [400], meaning: 'A crawled page answered 404 or 410' },
  PAGE_HTTP_ERROR: { statuses: [400], meaning: 'A crawled page answered another HTTP error status' },
  NO_CONTENT: { statuses: [400], meaning: 'No content could be extracted from the page or pages' },
  NO_VECTORS: { statuses: [400], meaning: 'Vector search was asked of a library with no vectors' },
  CALLBACK_URL_BLOCKED: { statuses: [400], meaning: "The address policy refuses the job's `callbackUrl`" },
  CALLBACKS_DISABLED: {
    statuses: [400, 500],
    meaning: 'A `callbackUrl` was given but `WEBHOOK_SECRET` is not set (400; 500 when found at delivery)',
  },
  UNAUTHORIZED: { statuses: [401], meaning: 'A credential is missing or invalid, or the wrong kind for the endpoint' },
  FORBIDDEN: {
    statuses: [403],
    meaning:
      'A read key on an admin endpoint, a session request from another origin, or a browser /mcp call from an unknown origin or Host',
  },
  NOT_FOUND: { statuses: [404], meaning: 'No such route' },
  METHOD_NOT_ALLOWED: { statuses: [405], meaning: 'The route does not take that method' },
  NOT_ACCEPTABLE: { statuses: [406], meaning: 'The `Accept` header does not allow what the route answers with' },
  LIBRARY_NOT_FOUND: { statuses: [404], meaning: 'No library with that id' },
  KEY_NOT_FOUND: { statuses: [404], meaning: 'No API key with that id among the user’s' },
  JOB_NOT_FOUND: { statuses: [404], meaning: 'No job with that id (or not one this key started)' },
  JOB_CANCELLED: { statuses: [409], meaning: 'The job was cancelled while the request waited for it' },
  JOB_NOT_CANCELLABLE: { statuses: [409], meaning: 'The job has ended, or is already writing its results' },
  EMBEDDING_MISMATCH: {
    statuses: [409],
    meaning: "The library's vectors were made by another embedding model than the service's",
  },
  CRAWL_GONE: { statuses: [409], meaning: 'The crawl a page job belongs to is over, or was never started' },
  PAYLOAD_TOO_LARGE: {
    statuses: [413],
    meaning: 'The body is larger than `BODY_LIMIT`, or an uploaded archive larger than `ARCHIVE_UPLOAD_MAX_BYTES`',
  },
  TOO_MANY_CHUNKS: { statuses: [413], meaning: 'More chunks in one request than `MAX_CHUNKS_PER_REQUEST`' },
  CHUNK_TOO_LARGE: { statuses: [413], meaning: 'A chunk is larger than `MAX_CHUNK_BYTES`' },
  UNSUPPORTED_MEDIA_TYPE: { statuses: [415], meaning: 'The body is not `application/json`' },
  UNSUPPORTED_ENCODING: { statuses: [415], meaning: "The body's content encoding or charset is not supported" },
  RANGE_NOT_SATISFIABLE: { statuses: [416], meaning: 'A static file was asked for a range it does not have' },
  IDEMPOTENCY_KEY_REUSED: {
    statuses: [422],
    meaning: 'The `Idempotency-Key` was used for a different request in the last 24 hours',
  },
  UNSUPPORTED_CONTENT: { statuses: [422], meaning: 'The URL answered with a content type that is not a page or text' },
  RATE_LIMITED: { statuses: [429], meaning: 'Too many requests in the window; `Retry-After` says when to try again' },
  INTERNAL: { statuses: [500], meaning: 'An unexpected failure; its `errorId` is also in the log' },
  INVALID_JOB: { statuses: [500], meaning: "A job's payload failed validation in the worker" },
  UNKNOWN_JOB: { statuses: [500], meaning: 'A worker was handed a job name it does not know' },
  JOB_FAILED: { statuses: [500], meaning: 'The job failed without a code of its own' },
  JOB_NOT_AWAITABLE: { statuses: [500], meaning: 'The API does not await jobs of that name' },
  JOB_RECORD_MISSING: { statuses: [500], meaning: "The job's record is missing from the job store" },
  CHILD_JOB_FAILED: { statuses: [500], meaning: 'A child job of a workflow failed' },
  CHILD_JOB_MISSING: { statuses: [500], meaning: 'A workflow step found no outcome of one of its child jobs' },
  CRAWL_STATE_LOST: { statuses: [500], meaning: "A crawl's frontier in Redis is gone (expired, or Redis lost it)" },
  NO_WORKFLOW: { statuses: [500], meaning: 'A job that belongs to no workflow tried to add jobs to one' },
  STAGING_INCOMPLETE: { statuses: [500], meaning: "An ingestion's staged chunks are not all there" },
  CALLBACK_FAILED: { statuses: [502], meaning: 'A callback could not be delivered' },
  CALLBACK_REJECTED: { statuses: [502], meaning: "A callback's receiver answered with an error status" },
  EMBEDDING_FAILED: { statuses: [502], meaning: 'The embedding model failed or answered something invalid' },
  QUEUE_UNAVAILABLE: { statuses: [503], meaning: 'Redis, which holds the job queues, is unreachable' },
  NOT_READY: { statuses: [503], meaning: 'Readiness: a dependency (Redis, the record store) failed its check' },
  EMBEDDER_UNAVAILABLE: { statuses: [503], meaning: 'Vector search was asked of a service without an embedder' },
  BROWSER_UNAVAILABLE: {
    statuses: [503],
    meaning: 'No Chromium found to render pages with (install chromium or set `CHROMIUM_PATH`)',
  },
  JOB_TIMEOUT: {
    statuses: [504],
    meaning: 'The job did not end within the wait (`JOB_WAIT_TIMEOUT_MS`); it goes on, and `jobId` names it',
  },
} as const satisfies Record<string, { statuses: readonly number[]; meaning: string }>;

/** A code of ERROR_CODES, or `HTTP_<status>`: a library's client error (4xx) that has no code of ours. */
export type ErrorCode = keyof typeof ERROR_CODES | `HTTP_${number}`;

/** The statuses a code comes with (any, for `HTTP_<status>`). */
export type StatusOf<C extends ErrorCode> = C extends keyof typeof ERROR_CODES
  ? (typeof ERROR_CODES)[C]['statuses'][number]
  : number;

/** The codes that come with `status`. */
export type CodeWithStatus<S extends number> = {
  [C in keyof typeof ERROR_CODES]: S extends (typeof ERROR_CODES)[C]['statuses'][number] ? C : never;
}[keyof typeof ERROR_CODES];

/** Whether a code read back from a job record or a queue's failure is one of ours. */
export function isErrorCode(code: string): code is ErrorCode {
  return code in ERROR_CODES || /^HTTP_\d{3}$/.test(code);
}
