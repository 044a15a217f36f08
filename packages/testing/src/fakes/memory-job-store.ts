import {
  appendProgressErrors,
  boundProgress,
  IDEMPOTENCY_WINDOW_MS,
  JOB_COUNTERS,
  PROGRESS_COUNTERS,
  type CancelOutcome,
  type FinalWrite,
  type JobOutcome,
  type JobProgress,
  type JobStore,
  type NewJob,
  type ProgressChange,
  type StoredJob,
} from '@docshelf/core';

/** A JobStore in memory for fast tests of use cases; the adapters' contract suite runs against it too. */
export class MemoryJobStore implements JobStore {
  private readonly jobs = new Map<string, StoredJob & { committing: boolean; seq: number; idempotencyKey?: string }>();
  private seq = 0;

  async createJob(job: NewJob): Promise<StoredJob> {
    if (job.idempotency) {
      const since = new Date(job.createdAt.getTime() - IDEMPOTENCY_WINDOW_MS);
      const earlier = await this.findJobByIdempotencyKey(job.idempotency.key, since);
      if (earlier) return earlier;
      for (const old of this.jobs.values()) if (old.idempotencyKey === job.idempotency.key) delete old.idempotencyKey;
    }
    const stored = {
      id: job.id,
      type: job.type,
      libraryId: job.libraryId,
      state: 'queued' as const,
      progress: { phase: 'queued' as const, done: 0, total: 0 },
      createdAt: job.createdAt.toISOString(),
      ...(job.callbackUrl ? { callbackUrl: job.callbackUrl } : {}),
      ...(job.startedBy ? { startedBy: job.startedBy } : {}),
      ...(job.idempotency ? { idempotencyKey: job.idempotency.key, requestHash: job.idempotency.requestHash } : {}),
      committing: false,
      seq: this.seq++,
    };
    this.jobs.set(job.id, stored);
    return view(stored);
  }

  async findJobByIdempotencyKey(key: string, since: Date): Promise<StoredJob | null> {
    const job = [...this.jobs.values()].find((j) => j.idempotencyKey === key && j.createdAt >= since.toISOString());
    return job ? view(job) : null;
  }

  async getJob(id: string): Promise<StoredJob | null> {
    const job = this.jobs.get(id);
    return job ? view(job) : null;
  }

  async listJobs(filter: {
    libraryId?: string;
    state?: StoredJob['state'];
    startedBy?: string;
    limit: number;
  }): Promise<StoredJob[]> {
    return [...this.jobs.values()]
      .filter(
        (j) =>
          (!filter.libraryId || j.libraryId === filter.libraryId) &&
          (!filter.state || j.state === filter.state) &&
          (!filter.startedBy || j.startedBy === filter.startedBy),
      )
      .sort((a, b) => (a.createdAt === b.createdAt ? b.seq - a.seq : a.createdAt < b.createdAt ? 1 : -1))
      .slice(0, filter.limit)
      .map(view);
  }

  async recordProgress(id: string, change: ProgressChange, startedAt: Date): Promise<JobProgress | null> {
    const job = this.active(id);
    if (!job) return null;
    start(job, startedAt);
    applyProgress(job.progress, change);
    return boundProgress({ ...job.progress });
  }

  async claimCommit(id: string, startedAt: Date): Promise<boolean> {
    const job = this.active(id);
    if (!job) return false;
    start(job, startedAt);
    job.committing = true;
    job.progress.phase = 'committing';
    return true;
  }

  async finishJob(id: string, outcome: JobOutcome, at: Date, last: FinalWrite = {}): Promise<boolean> {
    const job = this.active(id);
    if (!job) return false;
    if (last.progress) applyProgress(job.progress, last.progress);
    if (last.startedAt) job.startedAt ??= last.startedAt.toISOString();
    job.state = outcome.state;
    if (outcome.state === 'completed') {
      job.result = outcome.result;
      job.progress.phase = 'done';
    } else {
      job.error = outcome.error;
      if (outcome.status) job.errorStatus = outcome.status;
    }
    job.finishedAt = at.toISOString();
    return true;
  }

  async cancelJob(id: string, at: Date): Promise<CancelOutcome> {
    const job = this.jobs.get(id);
    if (!job) return 'unknown';
    if (job.state !== 'queued' && job.state !== 'running') return 'finished';
    if (job.committing) return 'committing';
    job.state = 'cancelled';
    job.finishedAt = at.toISOString();
    return 'cancelled';
  }

  async pruneJobs(before: Date): Promise<number> {
    let removed = 0;
    for (const [id, job] of this.jobs) {
      if (job.finishedAt && job.finishedAt < before.toISOString()) removed += Number(this.jobs.delete(id));
    }
    return removed;
  }

  private active(id: string) {
    const job = this.jobs.get(id);
    return job && (job.state === 'queued' || job.state === 'running') ? job : undefined;
  }
}

function start(job: StoredJob, at: Date): void {
  job.state = 'running';
  job.startedAt ??= at.toISOString();
}

function applyProgress(progress: JobProgress, change: ProgressChange): void {
  const newPhase = change.phase !== undefined && change.phase !== progress.phase;
  if (change.phase) progress.phase = change.phase;
  for (const counter of PROGRESS_COUNTERS) {
    const exact = change.exact?.[counter];
    const set = change.set?.[counter];
    const add = change.add?.[counter];
    const phaseCounter = !(JOB_COUNTERS as readonly string[]).includes(counter);
    if (exact !== undefined) progress[counter] = exact + (add ?? 0);
    else if (set !== undefined) {
      const value = set + (add ?? 0);
      progress[counter] = phaseCounter && newPhase ? value : Math.max(progress[counter] ?? 0, value);
    } else if (add !== undefined) progress[counter] = (progress[counter] ?? 0) + add;
  }
  if (change.errors?.length) progress.errors = appendProgressErrors(progress.errors, change.errors);
}

function view({
  committing: _committing,
  seq: _seq,
  idempotencyKey: _key,
  ...job
}: StoredJob & { committing: boolean; seq: number; idempotencyKey?: string }): StoredJob {
  return { ...structuredClone(job), progress: boundProgress(job.progress) };
}
