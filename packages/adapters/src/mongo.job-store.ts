import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import {
  boundProgress,
  IDEMPOTENCY_WINDOW_MS,
  JOB_COUNTERS,
  MAX_PROGRESS_ERRORS,
  PROGRESS_COUNTERS,
  type CancelOutcome,
  type ErrorBody,
  type FinalWrite,
  type JobOutcome,
  type JobProgress,
  type JobState,
  type JobStore,
  type JobType,
  type NewJob,
  type ProgressChange,
  type StoredJob,
} from '@docshelf/core';

interface JobDoc {
  _id: string;
  type: JobType;
  libraryId: string;
  state: JobState;
  progress: JobProgress;
  result?: unknown;
  error?: ErrorBody;
  callbackUrl?: string;
  startedBy?: string;
  /** Scoped Idempotency-Key; unique while set, unset once older than the window and used again. */
  idempotencyKey?: string;
  requestHash?: string;
  errorStatus?: number;
  committing: boolean;
  createdAt: Date;
  startedAt?: Date;
  finishedAt?: Date;
  /** Insertion order, the tie-breaker for jobs created in the same millisecond. */
  seq: number;
}

export interface MongoJobStoreOptions {
  uri: string;
  /** Overrides the database named in the URI (tests use one database each). */
  dbName?: string;
}

let sequence = 0;
const nextSeq = () => Date.now() * 1_024 + (sequence++ % 1_024);
const ACTIVE: JobState[] = ['queued', 'running'];

/** JobStore on MongoDB: each transition is one conditional findOneAndUpdate, progress counters use $inc. */
export class MongoJobStore implements JobStore {
  private readonly connection: Connection;
  private readonly jobs: Model<JobDoc>;

  constructor(options: MongoJobStoreOptions) {
    this.connection = mongoose.createConnection(options.uri, {
      ...(options.dbName ? { dbName: options.dbName } : {}),
      serverSelectionTimeoutMS: 10_000,
    });
    const schema = new Schema<JobDoc>(
      {
        _id: String,
        type: { type: String, required: true },
        libraryId: { type: String, required: true },
        state: { type: String, required: true },
        progress: { type: Schema.Types.Mixed, required: true },
        result: Schema.Types.Mixed,
        error: Schema.Types.Mixed,
        callbackUrl: String,
        startedBy: String,
        idempotencyKey: String,
        requestHash: String,
        errorStatus: Number,
        committing: { type: Boolean, required: true },
        createdAt: { type: Date, required: true },
        startedAt: Date,
        finishedAt: Date,
        seq: { type: Number, required: true },
      },
      { versionKey: false, minimize: false, id: false },
    );
    schema.index({ createdAt: -1, seq: -1 });
    schema.index({ libraryId: 1, createdAt: -1, seq: -1 });
    schema.index({ finishedAt: 1 });
    schema.index(
      { idempotencyKey: 1 },
      { unique: true, partialFilterExpression: { idempotencyKey: { $type: 'string' } } },
    );
    this.jobs = this.connection.model<JobDoc>('Job', schema, 'jobs');
  }

  async createJob(job: NewJob): Promise<StoredJob> {
    const doc: JobDoc = {
      _id: job.id,
      type: job.type,
      libraryId: job.libraryId,
      state: 'queued',
      progress: { phase: 'queued', done: 0, total: 0 },
      ...(job.callbackUrl ? { callbackUrl: job.callbackUrl } : {}),
      ...(job.startedBy ? { startedBy: job.startedBy } : {}),
      ...(job.idempotency ? { idempotencyKey: job.idempotency.key, requestHash: job.idempotency.requestHash } : {}),
      committing: false,
      createdAt: job.createdAt,
      seq: nextSeq(),
    };
    if (job.idempotency) {
      const since = new Date(job.createdAt.getTime() - IDEMPOTENCY_WINDOW_MS);
      const earlier = await this.findJobByIdempotencyKey(job.idempotency.key, since);
      if (earlier) return earlier;
      await this.jobs.updateOne(
        { idempotencyKey: job.idempotency.key, createdAt: { $lt: since } },
        { $unset: { idempotencyKey: 1 } },
      );
    }
    try {
      await this.jobs.create(doc);
    } catch (error) {
      // Another request with the same key recorded its job first: that job answers this request too.
      const same =
        job.idempotency && (error as { code?: number }).code === 11000
          ? await this.findJobByIdempotencyKey(job.idempotency.key, new Date(0))
          : null;
      if (!same) throw error;
      return same;
    }
    return toStoredJob(doc);
  }

  async findJobByIdempotencyKey(key: string, since: Date): Promise<StoredJob | null> {
    const doc = await this.jobs.findOne({ idempotencyKey: key, createdAt: { $gte: since } }).lean<JobDoc>();
    return doc ? toStoredJob(doc) : null;
  }

  async getJob(id: string): Promise<StoredJob | null> {
    const doc = await this.jobs.findById(id).lean<JobDoc>();
    return doc ? toStoredJob(doc) : null;
  }

  async listJobs(filter: {
    libraryId?: string;
    state?: JobState;
    startedBy?: string;
    limit: number;
  }): Promise<StoredJob[]> {
    const query = {
      ...(filter.libraryId ? { libraryId: filter.libraryId } : {}),
      ...(filter.state ? { state: filter.state } : {}),
      ...(filter.startedBy ? { startedBy: filter.startedBy } : {}),
    };
    const docs = await this.jobs.find(query).sort({ createdAt: -1, seq: -1 }).limit(filter.limit).lean<JobDoc[]>();
    return docs.map(toStoredJob);
  }

  async recordProgress(id: string, change: ProgressChange, startedAt: Date): Promise<JobProgress | null> {
    const { $set, $max, $inc, $push } = progressUpdate(change);
    const doc = await this.jobs
      .findOneAndUpdate(
        { _id: id, state: { $in: ACTIVE } },
        {
          $set: { ...$set, state: 'running' },
          ...($max ? { $max } : {}),
          ...($inc ? { $inc } : {}),
          ...($push ? { $push } : {}),
          $min: { startedAt },
        },
        { new: true },
      )
      .lean<JobDoc>();
    return doc ? toStoredJob(doc).progress : null;
  }

  async claimCommit(id: string, startedAt: Date): Promise<boolean> {
    const claimed = await this.jobs.updateOne(
      { _id: id, state: { $in: ACTIVE } },
      { $set: { committing: true, state: 'running', 'progress.phase': 'committing' }, $min: { startedAt } },
    );
    return claimed.matchedCount > 0;
  }

  async finishJob(id: string, outcome: JobOutcome, at: Date, last: FinalWrite = {}): Promise<boolean> {
    const completed = outcome.state === 'completed';
    // A completed job is in phase `done`, whatever phase its last progress named.
    const { $set, $max, $inc, $push } = progressUpdate({
      ...last.progress,
      phase: completed ? 'done' : last.progress?.phase,
    });
    const ended = completed
      ? { state: 'completed', result: outcome.result }
      : { state: 'failed', error: outcome.error, ...(outcome.status ? { errorStatus: outcome.status } : {}) };
    const update = {
      $set: { ...$set, ...ended, finishedAt: at },
      ...($max ? { $max } : {}),
      ...($inc ? { $inc } : {}),
      ...($push ? { $push } : {}),
      // $min sets a missing startedAt and keeps an earlier one.
      ...(last.startedAt ? { $min: { startedAt: last.startedAt } } : {}),
    };
    return (await this.jobs.updateOne({ _id: id, state: { $in: ACTIVE } }, update)).matchedCount > 0;
  }

  async cancelJob(id: string, at: Date): Promise<CancelOutcome> {
    const cancelled = await this.jobs.updateOne(
      { _id: id, state: { $in: ACTIVE }, committing: false },
      { $set: { state: 'cancelled', finishedAt: at } },
    );
    if (cancelled.matchedCount > 0) return 'cancelled';
    const doc = await this.jobs.findById(id, { state: 1 }).lean<Pick<JobDoc, 'state'>>();
    if (!doc) return 'unknown';
    return ACTIVE.includes(doc.state) ? 'committing' : 'finished';
  }

  async pruneJobs(before: Date): Promise<number> {
    return (await this.jobs.deleteMany({ finishedAt: { $lt: before } })).deletedCount;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}

/**
 * $set, $max and $inc on `progress.*` for a change: a job's counters are raised (they never go back), a phase's
 * `done` and `total` are set, a counter added to adds (from 0 when unset).
 */
function progressUpdate(change: ProgressChange): {
  $set: Record<string, unknown>;
  $max?: Record<string, number>;
  $inc?: Record<string, number>;
  $push?: Record<string, { $each: string[]; $slice: number }>;
} {
  const $set: Record<string, unknown> = {};
  const $max: Record<string, number> = {};
  const $inc: Record<string, number> = {};
  if (change.phase) $set['progress.phase'] = change.phase;
  for (const counter of PROGRESS_COUNTERS) {
    const exact = change.exact?.[counter];
    const set = change.set?.[counter];
    const add = change.add?.[counter];
    if (exact !== undefined) $set[`progress.${counter}`] = exact + (add ?? 0);
    else if (set !== undefined && (JOB_COUNTERS as readonly string[]).includes(counter))
      $max[`progress.${counter}`] = set + (add ?? 0);
    else if (set !== undefined) $set[`progress.${counter}`] = set + (add ?? 0);
    else if (add !== undefined) $inc[`progress.${counter}`] = add;
  }
  // Appended atomically and capped to the latest, so page jobs on several workers report side by side.
  const $push = change.errors?.length
    ? { 'progress.errors': { $each: change.errors, $slice: -MAX_PROGRESS_ERRORS } }
    : undefined;
  return {
    $set,
    ...(Object.keys($max).length > 0 ? { $max } : {}),
    ...(Object.keys($inc).length > 0 ? { $inc } : {}),
    ...($push ? { $push } : {}),
  };
}

function toStoredJob(doc: JobDoc): StoredJob {
  const progress: JobProgress = { phase: doc.progress.phase, done: doc.progress.done, total: doc.progress.total };
  for (const counter of JOB_COUNTERS) {
    if (typeof doc.progress[counter] === 'number') progress[counter] = doc.progress[counter];
  }
  if (Array.isArray(doc.progress.errors) && doc.progress.errors.length > 0) progress.errors = [...doc.progress.errors];
  return {
    id: doc._id,
    type: doc.type,
    libraryId: doc.libraryId,
    state: doc.state,
    progress: boundProgress(progress),
    ...(doc.result === undefined ? {} : { result: doc.result }),
    ...(doc.error === undefined ? {} : { error: doc.error }),
    ...(doc.errorStatus === undefined ? {} : { errorStatus: doc.errorStatus }),
    ...(doc.requestHash === undefined ? {} : { requestHash: doc.requestHash }),
    createdAt: doc.createdAt.toISOString(),
    ...(doc.startedAt ? { startedAt: doc.startedAt.toISOString() } : {}),
    ...(doc.finishedAt ? { finishedAt: doc.finishedAt.toISOString() } : {}),
    ...(doc.callbackUrl ? { callbackUrl: doc.callbackUrl } : {}),
    ...(doc.startedBy ? { startedBy: doc.startedBy } : {}),
  };
}
