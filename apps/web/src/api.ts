/** The dashboard's side of the REST API, through the generated client: same origin, the session cookie. */
import {
  ApiError,
  cancelJob,
  connect,
  crawlSite,
  createKey,
  deleteLibrary,
  embedChunks,
  getJob,
  getLibrary,
  getSession,
  ingestArchive,
  ingestGit,
  ingestUrl,
  listChunks,
  listJobs,
  listKeys,
  listLibraries,
  logIn,
  logOut,
  refreshLibrary,
  revokeKey,
  searchDocs,
  type AcceptedJob,
  type ApiKey,
  type ChunksResponse,
  type CrawlRequest,
  type CrawlResponse,
  type EmbedResponse,
  type IngestArchiveFields,
  type IngestArchiveResponse,
  type IngestGitRequest,
  type IngestGitResponse,
  type IngestUrlRequest,
  type Job as JobRecord,
  type RefreshScheduleResponse,
  type SearchResponse,
} from '@docshelf/client';

export { ApiError };

// The API's types under the names the pages use.
export type { ApiKey, Error as ErrorBody, Library, RefreshSchedule, User } from '@docshelf/client';
export type Chunk = ChunksResponse['chunks'][number];
export type SearchResult = SearchResponse['results'][number];
export type JobState = JobRecord['state'];
export type JobProgress = JobRecord['progress'];
/** A job; `result` is the body of the request that started it, whose fields depend on `type`. */
export type Job = Omit<JobRecord, 'result'> & {
  result?: Partial<CrawlResponse> &
    Partial<EmbedResponse> &
    Partial<IngestGitResponse> &
    Partial<IngestArchiveResponse>;
};

export const isFinal = (state: JobState) => state === 'completed' || state === 'failed' || state === 'cancelled';

/** A library id with each segment encoded, for the dashboard's own `/libraries/…` links. */
export const libraryPath = (id: string) => id.split('/').map(encodeURIComponent).join('/');

/** Shown for status 0: no answer came (the API is down, or the network is). */
const NO_ANSWER = 'Docshelf did not answer. Check that the API is running and try again.';

// The page's own origin; `new Request` resolves the client's relative URLs against it.
const client = connect({ baseUrl: '', credentials: 'same-origin' });

client.interceptors.response.use((response, request) => {
  const loggingIn = new URL(request.url).pathname.startsWith('/api/auth/') || location.pathname === '/login';
  if (response.status === 401 && !loggingIn) {
    // The session ended (logged out elsewhere, expired): log in again, then come back here.
    location.assign(`/login?next=${encodeURIComponent(location.pathname + location.search)}`);
  }
  return response;
});

/** Sent with each request that starts a job, so it answers 202 with the job at once. */
const RESPOND_ASYNC = { Prefer: 'respond-async' };

/** The job a RESPOND_ASYNC request started: its answer is the 202's, not the body the request answers without it. */
const startedJob = async (call: Promise<{ data: unknown }>) => (await call).data as AcceptedJob;

export const api = {
  session: async () => (await getSession({ client })).data,
  logIn: async (email: string, password: string) => (await logIn({ client, body: { email, password } })).data,
  logOut: async () => (await logOut({ client })).data,

  libraries: async () => (await listLibraries({ client })).data,
  library: async (id: string) => (await getLibrary({ client, path: { id } })).data,
  deleteLibrary: async (id: string) => (await deleteLibrary({ client, path: { id } })).data,
  chunks: async (libraryId: string, offset: number, limit: number) =>
    (await listChunks({ client, query: { libraryId, offset: String(offset), limit: String(limit) } })).data,
  search: async (libraryId: string, q: string) =>
    (await searchDocs({ client, query: { q, libraryId, limit: '10' } })).data,
  /** Without RESPOND_ASYNC: the answer is the batch's outcome, which the page's loop reads. */
  embed: async (libraryId: string, offset: number, limit: number) =>
    (await embedChunks({ client, body: { libraryId, offset, limit } })).data as EmbedResponse,

  crawl: (body: CrawlRequest) => startedJob(crawlSite({ client, body, headers: RESPOND_ASYNC })),
  ingestUrl: (body: IngestUrlRequest) => startedJob(ingestUrl({ client, body, headers: RESPOND_ASYNC })),
  ingestGit: (body: IngestGitRequest) => startedJob(ingestGit({ client, body, headers: RESPOND_ASYNC })),
  /** Sent as multipart/form-data: the archive in the `file` part, the library's fields beside it. */
  ingestArchive: (body: IngestArchiveFields & { file: Blob }) =>
    startedJob(ingestArchive({ client, body, headers: RESPOND_ASYNC })),
  /** Crawls the library again now with the settings its last crawl kept. */
  refresh: (libraryId: string) => startedJob(refreshLibrary({ client, body: { libraryId }, headers: RESPOND_ASYNC })),
  /** `every`: "12h", "1d", "7d" (hours or days); null stops the schedule. With `every` the answer is the schedule. */
  setRefreshSchedule: async (libraryId: string, every: string | null) =>
    (await refreshLibrary({ client, body: { libraryId, every } })).data as RefreshScheduleResponse,
  jobs: async () => (await listJobs({ client, query: { limit: 20 } })).data as { jobs: Job[] },
  job: async (id: string) => (await getJob({ client, path: { id } })).data as Job,
  cancelJob: async (id: string) => (await cancelJob({ client, path: { id } })).data as Job,

  keys: async () => (await listKeys({ client })).data,
  createKey: async (name: string, permissions: ApiKey['permissions']) =>
    (await createKey({ client, body: { name, permissions } })).data,
  revokeKey: async (id: string) => (await revokeKey({ client, query: { id } })).data,
};

/** A message a person can act on, for any failed call. */
export function messageOf(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.status === 0) return NO_ANSWER;
  if (error.status === 429) return `Too many attempts. Try again in ${waitText(error.retryAfter)}.`;
  return error.message;
}

/** Retry-After as a person reads it: "42 seconds", "15 minutes", or "a moment" when the API gave none. */
export function waitText(seconds: number | undefined): string {
  if (!seconds) return 'a moment';
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}
