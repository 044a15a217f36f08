/** The dashboard's side of the REST API: same origin, the session cookie, errors in the API's `{error, code}` shape. */
// The API's own types, inferred from its zod schemas in packages/core: types only, so no server code is bundled.
import type {
  AcceptedJob,
  ChunksResponse,
  CrawlResponse,
  CreatedKey,
  EmbedResponse,
  ErrorBody,
  IngestArchiveResponse,
  IngestGitResponse,
  JobList,
  JobRecord,
  JobState,
  KeyListResponse,
  LibraryDetailResponse,
  LibraryListResponse,
  LibraryView,
  Permission,
  RefreshScheduleResponse,
  SearchResponse,
  SuccessResponse,
  UserResponse,
} from '@docshelf/core/schemas';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds, from Retry-After (429). */
    readonly retryAfter?: number,
    readonly details?: unknown[],
  ) {
    super(message);
  }
}

// The API's types under the names the pages use.
export type { ApiKey, ErrorBody, JobProgress, JobState, RefreshSchedule, User } from '@docshelf/core/schemas';
export type Library = LibraryView;
export type Chunk = ChunksResponse['chunks'][number];
export type SearchResult = SearchResponse['results'][number];
/** A job; `result` is the body of the request that started it, whose fields depend on `type`. */
export type Job = Omit<JobRecord, 'result'> & {
  result?: Partial<CrawlResponse> &
    Partial<EmbedResponse> &
    Partial<IngestGitResponse> &
    Partial<IngestArchiveResponse>;
};

export const isFinal = (state: JobState) => state === 'completed' || state === 'failed' || state === 'cancelled';

/** `acme/widgets` → `/api/libraries/acme/widgets`, each segment encoded. */
export const libraryPath = (id: string) => id.split('/').map(encodeURIComponent).join('/');

/** `body` goes as JSON, or a FormData as multipart/form-data (the browser writes that Content-Type, with its boundary). */
async function call<T>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json', ...headers } };
  if (body instanceof FormData) {
    init.body = body;
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch {
    throw new ApiError(0, 'NETWORK', 'Docshelf did not answer. Check that the API is running and try again.');
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (res.status === 401 && !url.startsWith('/api/auth/') && location.pathname !== '/login') {
    // The session ended (logged out elsewhere, expired): log in again, then come back here.
    location.assign(`/login?next=${encodeURIComponent(location.pathname + location.search)}`);
  }
  if (!res.ok) {
    const err = (parsed ?? {}) as Partial<ErrorBody>;
    const retry = Number(res.headers.get('retry-after'));
    throw new ApiError(
      res.status,
      err.code ?? `HTTP_${res.status}`,
      err.error ?? `${res.status} ${res.statusText}`,
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
      err.details,
    );
  }
  return parsed as T;
}

const query = (params: Record<string, string | number | undefined>) =>
  new URLSearchParams(
    Object.entries(params)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  ).toString();

const ASYNC = { prefer: 'respond-async' };

export const api = {
  session: () => call<UserResponse>('GET', '/api/auth/session'),
  logIn: (email: string, password: string) => call<UserResponse>('POST', '/api/auth/login', { email, password }),
  logOut: () => call<SuccessResponse>('POST', '/api/auth/logout', {}),

  libraries: () => call<LibraryListResponse>('GET', '/api/libraries'),
  library: (id: string) => call<LibraryDetailResponse>('GET', `/api/libraries/${libraryPath(id)}`),
  deleteLibrary: (id: string) => call<SuccessResponse>('DELETE', `/api/libraries/${libraryPath(id)}`),
  chunks: (libraryId: string, offset: number, limit: number) =>
    call<ChunksResponse>('GET', `/api/chunks?${query({ libraryId, offset, limit })}`),
  search: (libraryId: string, q: string) =>
    call<SearchResponse>('GET', `/api/search?${query({ q, libraryId, limit: 10 })}`),
  embed: (libraryId: string, offset: number, limit: number) =>
    call<EmbedResponse>('POST', '/api/embed', { libraryId, offset, limit }),

  crawl: (body: Record<string, unknown>) => call<AcceptedJob>('POST', '/api/crawl', body, ASYNC),
  ingestUrl: (body: Record<string, unknown>) => call<AcceptedJob>('POST', '/api/ingest-url', body, ASYNC),
  ingestGit: (body: Record<string, unknown>) => call<AcceptedJob>('POST', '/api/ingest-git', body, ASYNC),
  /** The archive in the form's `file` part, the library's fields beside it. */
  ingestArchive: (form: FormData) => call<AcceptedJob>('POST', '/api/ingest-archive', form, ASYNC),
  /** Crawls the library again now with the settings its last crawl kept. */
  refresh: (libraryId: string) => call<AcceptedJob>('POST', '/api/refresh', { libraryId }, ASYNC),
  /** `every`: "12h", "1d", "7d" (hours or days); null stops the schedule. */
  setRefreshSchedule: (libraryId: string, every: string | null) =>
    call<RefreshScheduleResponse>('POST', '/api/refresh', { libraryId, every }),
  jobs: () => call<Omit<JobList, 'jobs'> & { jobs: Job[] }>('GET', `/api/jobs?${query({ limit: 20 })}`),
  job: (id: string) => call<Job>('GET', `/api/jobs/${encodeURIComponent(id)}`),
  cancelJob: (id: string) => call<Job>('DELETE', `/api/jobs/${encodeURIComponent(id)}`),

  keys: () => call<KeyListResponse>('GET', '/api/keys'),
  createKey: (name: string, permissions: Permission) => call<CreatedKey>('POST', '/api/keys', { name, permissions }),
  revokeKey: (id: string) => call<SuccessResponse>('DELETE', `/api/keys?${query({ id })}`),
};

/** A message a person can act on, for any failed call. */
export function messageOf(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
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
