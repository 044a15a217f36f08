import {
  embedLibraryPage,
  indexIngestion,
  purgeLibrary,
  writeBackup,
  type JobName,
  type JobPayload,
  type JobResult,
} from '@docshelf/core';
import type { WorkerDeps } from '../worker-deps';

export type Processor<N extends JobName> = (payload: JobPayload<N>) => Promise<JobResult<N>>;

/** One processor per job: the compiler refuses a registry entry without one. */
export type ProcessorMap = { [N in JobName]: Processor<N> };

export function buildProcessors(deps: WorkerDeps): ProcessorMap {
  return {
    'index-ingestion': (payload) => indexIngestion(deps, payload),
    'embed-range': (payload) => embedLibraryPage(deps, payload),
    'write-backup': (payload) => writeBackup(deps, payload),
    'delete-library': (payload) => purgeLibrary(deps, payload),
  };
}
