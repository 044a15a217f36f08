import {
  crawlRequestSchema,
  crawlResponseSchema,
  createKeyRequestSchema,
  deleteKeyQuerySchema,
  embedRequestSchema,
  embedResponseSchema,
  ingestRequestSchema,
  ingestResponseSchema,
  chunksQuerySchema,
  chunksResponseSchema,
  contextQuerySchema,
  contextResponseSchema,
  ingestUrlRequestSchema,
  jobListQuerySchema,
  jobListSchema,
  jobRecordSchema,
  libraryListQuerySchema,
  loginRequestSchema,
  searchQuerySchema,
  searchResponseSchema,
  createdKeySchema,
  keyListResponseSchema,
  libraryDetailResponseSchema,
  libraryListResponseSchema,
  successSchema,
  userResponseSchema,
} from '@docshelf/core';
import { healthBodySchema, readinessBodySchema } from '@docshelf/observability';
import { z } from 'zod';

/** Who may call an endpoint; each maps to the security requirements of the document. */
export type Access = 'admin' | 'session' | 'public' | 'library-delete' | 'metrics' | 'reader';

export interface Endpoint {
  method: 'get' | 'post' | 'delete';
  path: string;
  tag: 'Libraries' | 'Retrieval' | 'Ingestion' | 'Jobs' | 'API keys' | 'Dashboard session' | 'Operations';
  summary: string;
  description?: string;
  access: Access;
  /** Request and response schemas are named by their `.meta({ id })`, which is their name in the document. */
  body?: z.ZodType;
  query?: z.ZodObject;
  libraryIdParam?: boolean;
  /** The path has a job id, `{id}`. */
  jobIdParam?: boolean;
  /** Takes `Prefer: respond-async` and then answers 202 with the job. */
  respondAsync?: boolean;
  ok: { schema?: z.ZodType; description: string; contentType?: string };
  errors: number[];
}

const JOB_ERRORS = [400, 401, 403, 409, 413, 414, 415, 422, 500, 503, 504];

/** How a synchronous request relates to its job, said once for the four job endpoints. */
const RUNS_AS_JOB =
  ' Runs as one job in the worker. With `Prefer: respond-async` the answer is 202 with the job id at once; follow it at ' +
  '`/api/jobs/{id}` and `/api/jobs/{id}/events`. With `callbackUrl` the final job is POSTed there, signed with ' +
  'Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`).';
const READER = 'A read or admin API key or a session; anyone when the server runs with `PUBLIC_SEARCH=true`.';

const jsonRpcMessageSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    method: z.string(),
    params: z.record(z.string(), z.unknown()).optional(),
    id: z.union([z.string(), z.number()]).optional(),
  })
  .meta({
    id: 'McpMessage',
    description: 'A JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call, …)',
  });

/** Every endpoint Docshelf serves: the API contract's (docs/api.md), the dashboard login, and the operator endpoints. */
export const ENDPOINTS: Endpoint[] = [
  {
    method: 'post',
    path: '/api/ingest',
    tag: 'Ingestion',
    access: 'admin',
    summary: 'Ingest pre-chunked documentation into a library',
    description:
      'Creates or updates the library, writes the chunks in one transaction, embeds them when the payload has 50 or fewer chunks, or whatever their number with `embedAll: true` (never with `skipEmbeddings: true`; both together are a 400), and writes a backup, then answers.' +
      RUNS_AS_JOB,
    respondAsync: true,
    body: ingestRequestSchema,
    ok: { schema: ingestResponseSchema, description: 'Ingested' },
    errors: JOB_ERRORS,
  },
  {
    method: 'post',
    path: '/api/crawl',
    tag: 'Ingestion',
    access: 'admin',
    summary: 'Crawl a documentation site into a library',
    description:
      'One seed URL: load it and follow same-origin links breadth-first up to `maxDepth` and `maxPages` (150 unless asked; at most CRAWL_MAX_PAGES, 10,000 by default, else 400 TOO_MANY_PAGES). Several URLs: crawl each, no discovery. Pages are fetched over HTTP and rendered in Chromium only when they need scripts (`renderer: "auto"`; `pagesRendered` counts them). Per-page failures are listed in `errors`; the library is embedded when it has 500 or fewer chunks, or whatever their number with `embedAll: true`. Crawl big sites with `Prefer: respond-async` and follow the job.' +
      RUNS_AS_JOB,
    respondAsync: true,
    body: crawlRequestSchema,
    ok: { schema: crawlResponseSchema, description: 'Crawled' },
    errors: JOB_ERRORS,
  },
  {
    method: 'post',
    path: '/api/ingest-url',
    tag: 'Ingestion',
    access: 'session',
    summary: 'Fetch one URL (an llms.txt or a page) into a library',
    description:
      'Replaces the library\'s chunks with the fetched content. `sourceType: "llms_txt"` parses an llms.txt file; any other value treats the URL as a plain page. The library is embedded when it has 500 or fewer chunks, or whatever their number with `embedAll: true`.' +
      RUNS_AS_JOB,
    respondAsync: true,
    body: ingestUrlRequestSchema,
    ok: { schema: ingestResponseSchema, description: 'Ingested' },
    errors: JOB_ERRORS,
  },
  {
    method: 'post',
    path: '/api/embed',
    tag: 'Ingestion',
    access: 'admin',
    summary: "Embed a page of a library's chunks, or all those without a vector",
    description:
      'Embeds chunks `[offset, offset + limit)` in library order. Repeat with `nextOffset` until `done` is true. With `all: true` one job embeds every chunk that has no vector yet and answers `processed` (chunks embedded), `total` (chunks in the library), `offset: 0`, `nextOffset: null`, `done: true`; its job progress is phase `embed`, `total` the chunks left to embed.' +
      RUNS_AS_JOB,
    respondAsync: true,
    body: embedRequestSchema,
    ok: { schema: embedResponseSchema, description: 'Embedded' },
    errors: [...JOB_ERRORS, 404],
  },
  {
    method: 'get',
    path: '/api/jobs',
    tag: 'Jobs',
    access: 'admin',
    query: jobListQuerySchema,
    summary: 'List jobs, newest first',
    description:
      'Jobs stay listed for JOB_RETENTION_DAYS after they end, whatever Redis keeps. An API key lists the jobs it started; a session every job.',
    ok: { schema: jobListSchema, description: 'The jobs' },
    errors: [400, 401, 403, 500],
  },
  {
    method: 'get',
    path: '/api/jobs/{id}',
    tag: 'Jobs',
    access: 'admin',
    jobIdParam: true,
    summary: 'A job: its state, progress and, once ended, result or error',
    description:
      "`result` is the body the synchronous request answers; `error` the error it answers. An API key reads, follows and cancels only the jobs it started (another's is 404 JOB_NOT_FOUND); a session every job.",
    ok: { schema: jobRecordSchema, description: 'The job' },
    errors: [401, 403, 404, 500],
  },
  {
    method: 'get',
    path: '/api/jobs/{id}/events',
    tag: 'Jobs',
    access: 'admin',
    jobIdParam: true,
    summary: 'Follow a job as server-sent events',
    description:
      '`event: progress` (data: the progress object) as work advances, then exactly one `completed` (data: the result), `failed` (data: the error) or `cancelled` (data: the job), and the stream ends. A client that connects after the end gets the final event at once.',
    ok: { description: 'The event stream', contentType: 'text/event-stream' },
    errors: [401, 403, 404],
  },
  {
    method: 'delete',
    path: '/api/jobs/{id}',
    tag: 'Jobs',
    access: 'admin',
    jobIdParam: true,
    summary: 'Cancel a queued or running job',
    description:
      "Answers once none of the job's work runs any more: a cancelled crawl fetches no further page and commits nothing. A job that has begun writing the library, or has ended, cannot be cancelled (409 JOB_NOT_CANCELLABLE).",
    ok: { schema: jobRecordSchema, description: 'The cancelled job' },
    errors: [401, 403, 404, 409, 500],
  },
  {
    method: 'get',
    path: '/api/libraries',
    tag: 'Libraries',
    access: 'public',
    summary: 'List every library, or those matching `q`',
    description:
      "Without `q`: every library. With `q`: libraries whose id, name or description match, best first (exact id or name, then the id's last segment, prefixes, then words).",
    query: libraryListQuerySchema,
    ok: { schema: libraryListResponseSchema, description: 'All libraries' },
    errors: [500],
  },
  {
    method: 'get',
    path: '/api/libraries/{id}',
    tag: 'Libraries',
    access: 'public',
    libraryIdParam: true,
    summary: 'Get a library with its chunk metadata',
    ok: {
      schema: libraryDetailResponseSchema,
      description: 'The library and its chunks (without content), in library order',
    },
    errors: [400, 404, 500],
  },
  {
    method: 'delete',
    path: '/api/libraries/{id}',
    tag: 'Libraries',
    access: 'library-delete',
    libraryIdParam: true,
    summary: 'Delete a library with its chunks, vectors and backups',
    description: 'Needs an admin API key or a session unless the server runs with `PUBLIC_LIBRARY_DELETE=true`.',
    ok: { schema: successSchema, description: 'Deleted' },
    errors: [400, 401, 403, 404, 500, 503, 504],
  },
  {
    method: 'get',
    path: '/api/search',
    tag: 'Retrieval',
    access: 'reader',
    query: searchQuerySchema,
    summary: 'Search chunks by a question',
    description: `Hybrid ranking: BM25 keyword ranking over titles and contents fused by reciprocal rank fusion with vector similarity of the question, embedded by each library's own embedding model; libraries without vectors are searched by keyword alone and \`mode\` says which ran. \`libraryId\` may repeat; absent searches every library. ${READER}`,
    ok: { schema: searchResponseSchema, description: 'Results, best first' },
    errors: [400, 401, 404, 429, 500],
  },
  {
    method: 'get',
    path: '/api/context',
    tag: 'Retrieval',
    access: 'reader',
    query: contextQuerySchema,
    summary: 'The most relevant text of a library, packed into a token budget',
    description: `At most \`tokens\` tokens (100–100,000) by the o200k_base BPE tokenizer; neighbouring chunks of one page merged in page order with their overlap written once; each piece with its source URL and title. \`format=txt\` (default) answers plain text ready for a prompt, \`json\` the pieces. ${READER}`,
    ok: {
      schema: contextResponseSchema,
      description: 'The packed context (JSON with `format=json`; plain text otherwise)',
    },
    errors: [400, 401, 404, 429, 500],
  },
  {
    method: 'get',
    path: '/api/chunks',
    tag: 'Retrieval',
    access: 'reader',
    query: chunksQuerySchema,
    summary: "A page of a library's chunks with their text",
    description: `In library order; repeat with \`nextOffset\` until it is null. ${READER}`,
    ok: { schema: chunksResponseSchema, description: 'The chunks' },
    errors: [400, 401, 404, 429, 500],
  },
  {
    method: 'post',
    path: '/mcp',
    tag: 'Retrieval',
    access: 'reader',
    summary: 'Model Context Protocol server (Streamable HTTP)',
    description: `Stateless MCP over Streamable HTTP with the tools \`resolve-library-id {libraryName, query?}\`, \`query-docs {libraryId, query, tokens?}\` and \`get-library-docs {context7CompatibleLibraryID, topic?, tokens?}\`, named as Context7 names them. Clients send \`Accept: application/json, text/event-stream\`; GET and DELETE answer 405. A browser request (one with \`Origin\`) from another origin than this service's, not listed in MCP_ALLOWED_ORIGINS, or for a \`Host\` outside PUBLIC_HOSTS (loopback and IP addresses when empty) answers 403. ${READER}`,
    body: jsonRpcMessageSchema,
    ok: { description: 'The JSON-RPC response', contentType: 'application/json' },
    errors: [400, 401, 403, 405, 406, 415, 429],
  },
  {
    method: 'get',
    path: '/api/keys',
    tag: 'API keys',
    access: 'session',
    summary: "List the session user's API keys",
    description: 'The full key value is never included.',
    ok: { schema: keyListResponseSchema, description: 'The keys' },
    errors: [401, 500],
  },
  {
    method: 'post',
    path: '/api/keys',
    tag: 'API keys',
    access: 'session',
    summary: 'Create an API key',
    body: createKeyRequestSchema,
    ok: { schema: createdKeySchema, description: 'Created; `key` is shown only in this response' },
    errors: [400, 401, 415, 500],
  },
  {
    method: 'delete',
    path: '/api/keys',
    tag: 'API keys',
    access: 'session',
    query: deleteKeyQuerySchema,
    summary: 'Revoke an API key',
    ok: { schema: successSchema, description: 'Revoked; the key no longer authenticates' },
    errors: [400, 401, 404, 500],
  },
  {
    method: 'post',
    path: '/api/auth/login',
    tag: 'Dashboard session',
    access: 'public',
    summary: 'Log in to the dashboard',
    description:
      'Sets the `docshelf_session` cookie (HttpOnly, SameSite=Lax, Secure over https) with a new session id. Attempts are limited per account and per address (429 with Retry-After); an unknown user and a wrong password answer alike.',
    body: loginRequestSchema,
    ok: { schema: userResponseSchema, description: 'Logged in' },
    errors: [400, 401, 403, 415, 429, 500],
  },
  {
    method: 'post',
    path: '/api/auth/logout',
    tag: 'Dashboard session',
    access: 'public',
    summary: 'End the dashboard session',
    ok: { schema: successSchema, description: 'Logged out (also when there was no session)' },
    errors: [500],
  },
  {
    method: 'get',
    path: '/api/auth/session',
    tag: 'Dashboard session',
    access: 'session',
    summary: 'The logged-in user',
    ok: { schema: userResponseSchema, description: "The session's user" },
    errors: [401],
  },
  {
    method: 'get',
    path: '/healthz',
    tag: 'Operations',
    access: 'public',
    summary: 'Liveness: the process answers',
    ok: { schema: healthBodySchema, description: 'Alive' },
    errors: [],
  },
  {
    method: 'get',
    path: '/readyz',
    tag: 'Operations',
    access: 'public',
    summary: 'Readiness: Redis and the record store are reachable',
    description: 'Answers 503 with each failing check named (and `shutdown` while the process is stopping).',
    ok: { schema: readinessBodySchema, description: 'Ready' },
    errors: [503],
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'Operations',
    access: 'metrics',
    summary: 'Prometheus metrics',
    description:
      'HTTP request counts and latency by route and status, jobs per queue and state, Node process metrics. Needs `Authorization: Bearer <METRICS_TOKEN>` (401 without it); without a METRICS_TOKEN it is closed (403) unless METRICS_PUBLIC=true.',
    ok: { description: 'Prometheus text exposition format', contentType: 'text/plain' },
    errors: [401],
  },
  {
    method: 'get',
    path: '/api/openapi.json',
    tag: 'Operations',
    access: 'public',
    summary: 'This OpenAPI 3.1 document',
    ok: { description: 'The document', contentType: 'application/json' },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/docs',
    tag: 'Operations',
    access: 'public',
    summary: 'Readable API reference (HTML rendered from this document)',
    ok: { description: 'The reference page', contentType: 'text/html' },
    errors: [],
  },
  {
    method: 'get',
    path: '/admin/queues',
    tag: 'Operations',
    access: 'session',
    summary: 'Bull Board: the job queues',
    description: 'A browser without a session gets a 401 page with a login form; API keys are refused (401).',
    ok: { description: 'The dashboard', contentType: 'text/html' },
    errors: [401, 503],
  },
];
