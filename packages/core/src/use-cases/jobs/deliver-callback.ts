import { AppError } from '../../errors';
import { signCallback, type CallbackSender } from '../../jobs/callback-sender';
import { toJobRecord, type JobStore } from '../../jobs/job-store';
import type { JobPayload, JobResult } from '../../jobs/registry';

export interface CallbackDeps {
  jobStore: JobStore;
  callbacks: CallbackSender;
  /** WEBHOOK_SECRET; without it nothing is sent. */
  webhookSecret?: string;
}

/**
 * POSTs the finished job, as GET /api/jobs/:id shows it, signed as a Standard Webhooks message whose id is the job's
 * id; a non-2xx answer is retried with backoff.
 */
export async function deliverCallback(
  deps: CallbackDeps,
  job: JobPayload<'deliver-callback'>,
): Promise<JobResult<'deliver-callback'>> {
  const stored = await deps.jobStore.getJob(job.jobId);
  if (!stored?.callbackUrl) return { status: 0 };
  if (!deps.webhookSecret) {
    throw new AppError(
      'CALLBACKS_DISABLED',
      'WEBHOOK_SECRET is not set on this worker: callbacks cannot be signed',
      500,
      { retryable: false },
    );
  }
  const body = JSON.stringify(toJobRecord(stored));
  const status = await deps.callbacks.post(stored.callbackUrl, body, {
    ...signCallback(deps.webhookSecret, { id: stored.id, timestamp: new Date(), body }),
    'x-docshelf-job-id': stored.id,
  });
  if (status < 200 || status >= 300) {
    throw new AppError('CALLBACK_REJECTED', `Callback to ${stored.callbackUrl} answered HTTP ${status}`, 502, {
      retryable: true,
    });
  }
  return { status };
}
