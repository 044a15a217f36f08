import type { CrawlRequest, CrawlResponse } from '../../api/crawl-schemas';
import { crawlRequestSchema } from '../../api/crawl-schemas';
import { ingestGitRequestSchema, type IngestGitRequest, type IngestGitResponse } from '../../api/git-schemas';
import { refreshIntervalMs, type RefreshRequest, type RefreshSchedule } from '../../api/refresh-schemas';
import { AppError, libraryNotFound } from '../../errors';
import type { LibrarySource, LibrarySourceStore, LibraryStore, RefreshScheduler } from '../../ports';
import { crawlLibrary } from '../crawl/crawl-library';
import { ingestLibraryFromGit } from '../git/ingest-library-from-git';
import type { JobMode, SubmitDeps, Submitted } from '../jobs/submit-job';

export interface RefreshDeps {
  libraries: Pick<LibraryStore, 'getLibrary'>;
  sources: LibrarySourceStore;
  scheduler: RefreshScheduler;
  now?: () => Date;
}

/**
 * API side of POST /api/crawl, before its job: the crawl's settings are kept as the library's source (so it can be
 * refreshed the same way), and `refreshEvery` sets its schedule; a request without it leaves a schedule as it was.
 */
export async function keepCrawlSource(deps: RefreshDeps, request: CrawlRequest, ownerId: string): Promise<void> {
  await keepSource(deps, 'crawl', request, ownerId);
}

/** The same for POST /api/ingest-git: a refresh of the library looks at the ref again, and reads a new commit in. */
export async function keepGitSource(deps: RefreshDeps, request: IngestGitRequest, ownerId: string): Promise<void> {
  await keepSource(deps, 'git', request, ownerId);
}

async function keepSource(
  deps: RefreshDeps,
  kind: LibrarySource['kind'],
  request: { libraryId: string; callbackUrl?: string; refreshEvery?: string },
  ownerId: string,
): Promise<void> {
  const { callbackUrl: _callback, refreshEvery, ...kept } = request;
  await deps.sources.putSource({ libraryId: request.libraryId, kind, request: kept, ownerId, refreshEvery });
  if (refreshEvery) await deps.scheduler.schedule(request.libraryId, refreshIntervalMs(refreshEvery));
}

/**
 * POST /api/refresh: with `every`, sets the library's schedule (null stops it) and answers it; without, reads the
 * library's source again now: a crawl with its kept settings (`replace` included), conditionally as every re-crawl
 * is, so unchanged pages keep their chunks and vectors; a git source's ref, read in only when it moved to another
 * commit. It answers as the crawl or the git ingestion does.
 */
export async function refreshLibrary(
  deps: RefreshDeps & { submit: SubmitDeps },
  request: RefreshRequest,
  mode: JobMode,
): Promise<{ schedule: RefreshSchedule | null } | { started: Submitted<CrawlResponse | IngestGitResponse> }> {
  const { libraryId } = request;
  if (!(await deps.libraries.getLibrary(libraryId))) throw libraryNotFound(libraryId);
  const source = await deps.sources.getSource(libraryId);
  if (!source) {
    throw new AppError(
      'NOT_REFRESHABLE',
      `Library '${libraryId}' has no kept source (it was not crawled or read from git, or was before sources were kept): crawl or read it again to refresh it`,
      400,
      { retryable: false },
    );
  }
  if (request.every !== undefined) {
    await deps.sources.setRefreshEvery(libraryId, request.every);
    if (request.every) await deps.scheduler.schedule(libraryId, refreshIntervalMs(request.every));
    else await deps.scheduler.unschedule(libraryId);
    return { schedule: await refreshScheduleOf(deps, libraryId) };
  }
  return { started: await startRefresh(deps, source, mode, request.callbackUrl) };
}

/**
 * Worker side of a scheduled refresh (`refresh-library`): the library's crawl again, as a job of its own owned by
 * whoever asked for the crawl; nothing for a library deleted, or no longer scheduled, since its scheduler last fired.
 */
export async function runScheduledRefresh(
  deps: Pick<RefreshDeps, 'libraries' | 'sources' | 'now'> & { submit: SubmitDeps },
  libraryId: string,
): Promise<{ jobId: string | null }> {
  const source = await deps.sources.getSource(libraryId);
  if (!source?.refreshEvery || !(await deps.libraries.getLibrary(libraryId))) return { jobId: null };
  // Started by no key: the dashboard's sessions see it, as they see every job.
  const started = await startRefresh(deps, source, { async: true });
  return { jobId: 'accepted' in started ? started.accepted.jobId : null };
}

/** A library's schedule as its record shows it; null when it has none. */
export async function refreshScheduleOf(
  deps: Pick<RefreshDeps, 'sources' | 'scheduler'>,
  libraryId: string,
): Promise<RefreshSchedule | null> {
  const source = await deps.sources.getSource(libraryId);
  if (!source?.refreshEvery) return null;
  const next = await deps.scheduler.nextRefreshAt(libraryId);
  return {
    every: source.refreshEvery,
    lastRefreshedAt: source.lastRefreshedAt?.toISOString() ?? null,
    nextRefreshAt: next?.toISOString() ?? null,
  };
}

/** A library forgets its source and its schedule with itself. */
export async function forgetLibrarySource(deps: Pick<RefreshDeps, 'sources' | 'scheduler'>, libraryId: string) {
  await deps.scheduler.unschedule(libraryId);
  await deps.sources.deleteSource(libraryId);
}

async function startRefresh(
  deps: Pick<RefreshDeps, 'sources' | 'now'> & { submit: SubmitDeps },
  source: LibrarySource,
  mode: JobMode,
  callbackUrl?: string,
): Promise<Submitted<CrawlResponse | IngestGitResponse>> {
  // Kept by an earlier release, a request may lack a newer field: its default is taken, as a request's would be.
  const request = { ...source.request, ...(callbackUrl ? { callbackUrl } : {}) };
  await deps.sources.markRefreshed(source.libraryId, (deps.now ?? (() => new Date()))());
  if (source.kind === 'git') {
    const git = ingestGitRequestSchema.parse(request);
    const unlessCommit = source.commit ?? undefined;
    return ingestLibraryFromGit(
      deps.submit,
      { ...git, ...(unlessCommit ? { unlessCommit } : {}) },
      source.ownerId,
      mode,
    );
  }
  return crawlLibrary(deps.submit, crawlRequestSchema.parse(request), source.ownerId, mode);
}
