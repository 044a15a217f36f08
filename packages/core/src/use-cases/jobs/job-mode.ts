import type { AcceptedJob } from '../../jobs/job-record';

/** What an Idempotency-Key names: the caller's key, and a hash of the request it was first sent with. */
export interface Idempotency {
  key: string;
  requestHash: string;
}

/**
 * Synchronous requests await their job (up to `timeoutMs`); `Prefer: respond-async` ones get the job id at once. With
 * `idempotency`, a repeat of a request within 24 hours is answered by the first one's job.
 */
export type JobMode = ({ async: true } | { async: false; timeoutMs?: number }) & {
  idempotency?: Idempotency;
  /** Who asks: `key:<api key id>` or `user:<user id>`, recorded on the job (an API key sees only its own jobs). */
  startedBy?: string;
};

/** What a submission answers: an asynchronous job accepted (its id and status URL), or a synchronous one's result. */
export type Submitted<R> = { accepted: AcceptedJob } | { result: R };
