import type { SubmitDeps } from '@docshelf/core';
import type { ApiDeps } from '../api-deps';

/** What starting a job needs, from the API's dependencies. */
export function submitDepsOf(deps: ApiDeps): SubmitDeps {
  return {
    jobStore: deps.jobStore,
    jobs: deps.jobs,
    jobRetentionMs: deps.config.jobs.retentionMs,
    callbacks: { sender: deps.callbacks, webhookSecret: deps.config.jobs.webhookSecret },
    watcher: deps.jobs,
  };
}
