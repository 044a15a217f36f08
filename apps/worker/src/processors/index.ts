import {
  embedLibraryPage,
  indexIngestion,
  purgeLibrary,
  writeBackup,
  type JobName,
  type JobPayload,
  type JobResult,
} from '@docshelf/core';
import { crawlPage, crawlSite, ingestUrl } from '@docshelf/crawler';
import type { WorkerDeps } from '../worker-deps';

export type Processor<N extends JobName> = (payload: JobPayload<N>) => Promise<JobResult<N>>;

/** One processor per job: the compiler refuses a registry entry without one. */
export type ProcessorMap = { [N in JobName]: Processor<N> };

export function buildProcessors(deps: WorkerDeps): ProcessorMap {
  const loader = { policy: deps.policy, browser: deps.browser, timeoutMs: deps.pageTimeoutMs };
  return {
    'index-ingestion': (payload) => indexIngestion(deps, payload),
    'embed-range': (payload) => embedLibraryPage(deps, payload),
    'write-backup': (payload) => writeBackup(deps, payload),
    'delete-library': (payload) => purgeLibrary(deps, payload),
    'crawl-site': (payload) => crawlSite({ ...deps, pageWaitMs: deps.crawlWaitMs }, payload),
    'crawl-page': (payload) => crawlPage({ records: deps.records, loader }, payload),
    'ingest-url': (payload) => ingestUrl({ records: deps.records, loader }, payload),
  };
}
