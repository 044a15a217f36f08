import type { CrawlRequest, CrawlResponse } from '../../api/crawl-schemas';
import { crawlRequestSchema } from '../../api/crawl-schemas';
import { refreshIntervalMs, type RefreshRequest, type RefreshSchedule } from '../../api/refresh-schemas';
import { AppError, libraryNotFound } from '../../errors';
import type { LibrarySource, LibrarySourceStore, LibraryStore, RefreshScheduler } from '../../ports';
import { crawlLibrary } from '../crawl/crawl-library';
import type { JobMode, SubmitDeps, Submitted } from '../jobs/submit-job';

export interface RefreshDeps {
  libraries: Pick<LibraryStore, 'getLibrary'>;
  sources: LibrarySourceStore;
  scheduler: RefreshScheduler;
  now?: () => Date;
}

/**
 * API side of POST /api/crawl, before its job: the crawl's settings are kept as the library's source (so it can be
 * refreshed the same way), and `refreshEvery` sets its schedule; a crawl without it leaves a schedule as it was.
 */
export async function keepCrawlSource(deps: RefreshDeps, request: CrawlRequest, ownerId: string): Promise<void> {
  const { callbackUrl: _callback, refreshEvery, ...crawl } = request;
  await deps.sources.putSource({ libraryId: request.libraryId, crawl, ownerId, refreshEvery });
  if (refreshEvery) await deps.scheduler.schedule(request.libraryId, refreshIntervalMs(refreshEvery));
}

/**
 * POST /api/refresh: with `every`, sets the library's schedule (null stops it) and answers it; without, crawls the
 * library again now with its kept settings (`replace` included), conditionally as every re-crawl is: unchanged pages
 * keep their chunks and vectors. It answers as a crawl does.
 */
export async function refreshLibrary(
  deps: RefreshDeps & { submit: SubmitDeps },
  request: RefreshRequest,
  mode: JobMode,
): Promise<{ schedule: RefreshSchedule | null } | { crawl: Submitted<CrawlResponse> }> {
  const { libraryId } = request;
  if (!(await deps.libraries.getLibrary(libraryId))) throw libraryNotFound(libraryId);
  const source = await deps.sources.getSource(libraryId);
  if (!source) {
    throw new AppError(
      'NOT_REFRESHABLE',
      `Library '${libraryId}' has no kept crawl settings (it was not crawled, or crawled before they were kept): crawl it again to refresh it`,
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
  return { crawl: await startRefresh(deps, source, mode, request.callbackUrl) };
}

/**
 * Worker side of a scheduled refresh (`refresh-library`): the library's crawl again, as a job of its own owned by
 * whoever asked for the crawl; nothing for a library deleted, or no longer scheduled, since its scheduler last fired.
 */
export async function runScheduledRefresh(
  deps: Pick<RefreshDeps, 'libraries' | 'sources' | 'now'> & { submit: SubmitDeps },
  libraryId: string,
): Promise<{ crawlJobId: string | null }> {
  const source = await deps.sources.getSource(libraryId);
  if (!source?.refreshEvery || !(await deps.libraries.getLibrary(libraryId))) return { crawlJobId: null };
  // Started by no key: the dashboard's sessions see it, as they see every job.
  const started = await startRefresh(deps, source, { async: true });
  return { crawlJobId: 'accepted' in started ? started.accepted.jobId : null };
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
): Promise<Submitted<CrawlResponse>> {
  // Kept by an earlier release, a source may lack a newer field: its default is taken, as a request's would be.
  const crawl = crawlRequestSchema.parse({ ...source.crawl, ...(callbackUrl ? { callbackUrl } : {}) });
  await deps.sources.markRefreshed(source.libraryId, (deps.now ?? (() => new Date()))());
  return crawlLibrary(deps.submit, crawl, source.ownerId, mode);
}
