import {
  boundProgress,
  IDEMPOTENCY_WINDOW_MS,
  JOB_COUNTERS,
  MAX_PROGRESS_ERRORS,
  PROGRESS_COUNTERS,
  type CancelOutcome,
  type FinalWrite,
  type JobOutcome,
  type JobProgress,
  type JobState,
  type JobStore,
  type JobType,
  type NewJob,
  type ProgressChange,
  type ProgressCounter,
  type StoredJob,
} from '@docshelf/core';
import type { Statement } from 'better-sqlite3';
import type { Database } from './sqlite.database';

interface JobRow {
  id: string;
  type: JobType;
  library_id: string;
  state: JobState;
  phase: JobProgress['phase'];
  done: number;
  total: number;
  pages_discovered: number | null;
  pages_crawled: number | null;
  pages_failed: number | null;
  pages_unchanged: number | null;
  pages_rendered: number | null;
  chunks_ingested: number | null;
  errors: string | null;
  result: string | null;
  error: string | null;
  callback_url: string | null;
  started_by: string | null;
  idempotency_key: string | null;
  request_hash: string | null;
  error_status: number | null;
  committing: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** Column of each progress counter: a fixed map, so no caller-supplied name ever reaches SQL. */
const COLUMNS: Record<ProgressCounter, string> = {
  done: 'done',
  total: 'total',
  pagesDiscovered: 'pages_discovered',
  pagesCrawled: 'pages_crawled',
  pagesFailed: 'pages_failed',
  pagesRendered: 'pages_rendered',
  pagesUnchanged: 'pages_unchanged',
  chunksIngested: 'chunks_ingested',
};
const ACTIVE = `state IN ('queued', 'running')`;

/** JobStore in the service's SQLite file; every transition is one conditional UPDATE, so concurrent writers agree. */
export class SqliteJobStore implements JobStore {
  private readonly statements = new Map<string, Statement<unknown[]>>();

  constructor(private readonly db: Database) {}

  /** Prepared once per SQL text: jobs are written several times per request, so compiling each time shows. */
  private sql(text: string): Statement<unknown[]> {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  async createJob(job: NewJob): Promise<StoredJob> {
    const create = this.db.transaction(() => {
      if (job.idempotency) {
        const since = new Date(job.createdAt.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString();
        const earlier = this.sql('SELECT * FROM jobs WHERE idempotency_key = ?').get(job.idempotency.key) as
          JobRow | undefined;
        if (earlier && earlier.created_at >= since) return toStoredJob(earlier);
        if (earlier) this.sql('UPDATE jobs SET idempotency_key = NULL WHERE id = ?').run(earlier.id);
      }
      const row = this.sql(
        `INSERT INTO jobs (id, type, library_id, state, phase, callback_url, started_by, created_at, idempotency_key, request_hash)
         VALUES (?, ?, ?, 'queued', 'queued', ?, ?, ?, ?, ?) RETURNING *`,
      ).get(
        job.id,
        job.type,
        job.libraryId,
        job.callbackUrl ?? null,
        job.startedBy ?? null,
        job.createdAt.toISOString(),
        job.idempotency?.key ?? null,
        job.idempotency?.requestHash ?? null,
      ) as JobRow;
      return toStoredJob(row);
    });
    return create.immediate();
  }

  async findJobByIdempotencyKey(key: string, since: Date): Promise<StoredJob | null> {
    const row = this.sql('SELECT * FROM jobs WHERE idempotency_key = ? AND created_at >= ?').get(
      key,
      since.toISOString(),
    ) as JobRow | undefined;
    return row ? toStoredJob(row) : null;
  }

  async getJob(id: string): Promise<StoredJob | null> {
    return this.read(id);
  }

  async listJobs(filter: {
    libraryId?: string;
    state?: JobState;
    startedBy?: string;
    limit: number;
  }): Promise<StoredJob[]> {
    const rows = this.sql(
      `SELECT * FROM jobs WHERE (@libraryId IS NULL OR library_id = @libraryId) AND (@state IS NULL OR state = @state)
         AND (@startedBy IS NULL OR started_by = @startedBy)
         ORDER BY created_at DESC, rowid DESC LIMIT @limit`,
    ).all({
      libraryId: filter.libraryId ?? null,
      state: filter.state ?? null,
      startedBy: filter.startedBy ?? null,
      limit: filter.limit,
    }) as JobRow[];
    return rows.map(toStoredJob);
  }

  async recordProgress(id: string, change: ProgressChange, startedAt: Date): Promise<JobProgress | null> {
    const progress = progressAssignments(change);
    const row = this.sql(
      `UPDATE jobs SET ${[...progress.assignments, `state = 'running'`, 'started_at = COALESCE(started_at, ?)'].join(', ')}
       WHERE id = ? AND ${ACTIVE} RETURNING *`,
    ).get(...progress.params, startedAt.toISOString(), id) as JobRow | undefined;
    return row ? progressOf(row) : null;
  }

  async claimCommit(id: string, startedAt: Date): Promise<boolean> {
    const claim = this.sql(
      `UPDATE jobs SET committing = 1, phase = 'committing', state = 'running', started_at = COALESCE(started_at, ?) WHERE id = ? AND ${ACTIVE}`,
    );
    return claim.run(startedAt.toISOString(), id).changes > 0;
  }

  async finishJob(id: string, outcome: JobOutcome, at: Date, last: FinalWrite = {}): Promise<boolean> {
    const completed = outcome.state === 'completed';
    // A completed job is in phase `done`, whatever phase its last progress named.
    const progress = progressAssignments({ ...last.progress, phase: completed ? 'done' : last.progress?.phase });
    const assignments = [
      ...progress.assignments,
      'state = ?',
      'result = ?',
      'error = ?',
      'error_status = ?',
      'finished_at = ?',
      'started_at = COALESCE(started_at, ?)',
    ];
    const finish = this.sql(`UPDATE jobs SET ${assignments.join(', ')} WHERE id = ? AND ${ACTIVE}`);
    const result = completed ? JSON.stringify(outcome.result) : null;
    const error = completed ? null : JSON.stringify(outcome.error);
    const status = outcome.state === 'failed' ? (outcome.status ?? null) : null;
    const params = [
      ...progress.params,
      outcome.state,
      result,
      error,
      status,
      at.toISOString(),
      last.startedAt?.toISOString() ?? null,
      id,
    ];
    return finish.run(...params).changes > 0;
  }

  async cancelJob(id: string, at: Date): Promise<CancelOutcome> {
    const cancelled = this.sql(
      `UPDATE jobs SET state = 'cancelled', finished_at = ? WHERE id = ? AND ${ACTIVE} AND committing = 0`,
    ).run(at.toISOString(), id).changes;
    if (cancelled > 0) return 'cancelled';
    const row = this.sql('SELECT state, committing FROM jobs WHERE id = ?').get(id) as
      Pick<JobRow, 'state' | 'committing'> | undefined;
    if (!row) return 'unknown';
    return row.state === 'queued' || row.state === 'running' ? 'committing' : 'finished';
  }

  async pruneJobs(before: Date): Promise<number> {
    return this.sql('DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?').run(before.toISOString())
      .changes;
  }

  private read(id: string): StoredJob | null {
    const row = this.sql('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
    return row ? toStoredJob(row) : null;
  }
}

/** SET clauses for a progress change: a counter set replaces, a counter added to adds (from 0 when unset). */
function progressAssignments(change: ProgressChange): { assignments: string[]; params: unknown[] } {
  const assignments: string[] = [];
  const params: unknown[] = [];
  if (change.phase) {
    assignments.push('phase = ?');
    params.push(change.phase);
  }
  for (const counter of PROGRESS_COUNTERS) {
    const exact = change.exact?.[counter];
    const set = change.set?.[counter];
    const add = change.add?.[counter];
    if (exact === undefined && set === undefined && add === undefined) continue;
    const column = COLUMNS[counter];
    if (exact !== undefined) {
      assignments.push(`${column} = ?`);
      params.push(exact + (add ?? 0));
    } else if (set === undefined) {
      assignments.push(`${column} = COALESCE(${column}, 0) + ?`);
      params.push(add ?? 0);
    } else if (change.phase && !(JOB_COUNTERS as readonly string[]).includes(counter)) {
      // A phase's own counter: raised within the phase, set anew when the phase changes (the right side reads the
      // row as it was before this update).
      assignments.push(`${column} = CASE WHEN phase = ? THEN MAX(COALESCE(${column}, 0), ?) ELSE ? END`);
      params.push(change.phase, set + (add ?? 0), set + (add ?? 0));
    } else {
      assignments.push(`${column} = MAX(COALESCE(${column}, 0), ?)`);
      params.push(set + (add ?? 0));
    }
  }
  if (change.errors?.length) {
    // Appended in the same UPDATE, in order, keeping the latest MAX_PROGRESS_ERRORS.
    assignments.push(`errors = (SELECT json_group_array(value ORDER BY part, key) FROM (
      SELECT part, key, value, ROW_NUMBER() OVER (ORDER BY part DESC, key DESC) AS latest FROM (
        SELECT 0 AS part, key, value FROM json_each(COALESCE(errors, '[]'))
        UNION ALL SELECT 1 AS part, key, value FROM json_each(?)
      )
    ) WHERE latest <= ${MAX_PROGRESS_ERRORS})`);
    params.push(JSON.stringify(change.errors));
  }
  return { assignments, params };
}

function progressOf(row: JobRow): JobProgress {
  const progress: JobProgress = { phase: row.phase, done: row.done, total: row.total };
  for (const counter of JOB_COUNTERS) {
    const value = row[COLUMNS[counter] as keyof JobRow] as number | null;
    if (value !== null) progress[counter] = value;
  }
  if (row.errors !== null) progress.errors = JSON.parse(row.errors) as string[];
  return boundProgress(progress);
}

function toStoredJob(row: JobRow): StoredJob {
  return {
    id: row.id,
    type: row.type,
    libraryId: row.library_id,
    state: row.state,
    progress: progressOf(row),
    ...(row.result === null ? {} : { result: JSON.parse(row.result) as unknown }),
    ...(row.error === null ? {} : { error: JSON.parse(row.error) as StoredJob['error'] }),
    createdAt: row.created_at,
    ...(row.started_at === null ? {} : { startedAt: row.started_at }),
    ...(row.finished_at === null ? {} : { finishedAt: row.finished_at }),
    ...(row.callback_url === null ? {} : { callbackUrl: row.callback_url }),
    ...(row.started_by === null ? {} : { startedBy: row.started_by }),
    ...(row.error_status === null ? {} : { errorStatus: row.error_status }),
    ...(row.request_hash === null ? {} : { requestHash: row.request_hash }),
  };
}
