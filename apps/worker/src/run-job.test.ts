import { AppError, decodeAppError } from '@docshelf/core';
import type { BullmqWorkerQueues } from '@docshelf/queue';
import { UnrecoverableError, type Job } from 'bullmq';
import pino from 'pino';
import { MemoryJobStore } from '@docshelf/testing/fakes/memory-job-store';
import { createWorkerMetrics } from './ops/worker-metrics';
import type { ProcessorMap } from './processors';
import { runJob, type JobRuntime } from './run-job';

// One attempt of a job on in-memory ports: the job store in memory, the queues' notifications recorded.
const EMBEDDED = {
  libraryId: 'acme/docs',
  processed: 3,
  total: 3,
  offset: 0,
  nextOffset: null,
  done: true,
};

function runtime(processors: Partial<Record<string, (payload: unknown) => Promise<unknown>>>) {
  const jobStore = new MemoryJobStore();
  const enqueued: { name: string; jobId: string }[] = [];
  const queues = {
    jobChanged: async () => undefined,
    enqueue: async (name: string, _payload: unknown, options: { jobId: string }) =>
      void enqueued.push({ name, jobId: options.jobId }),
  } as unknown as BullmqWorkerQueues;
  const rt: JobRuntime = {
    processors: processors as unknown as ProcessorMap,
    jobStore,
    queues,
    logger: pino({ level: 'silent' }),
    metrics: createWorkerMetrics(),
  };
  return { rt, jobStore, enqueued };
}

function bullJob(name: string, data: unknown, attempt = { made: 0, of: 3 }): Job {
  return {
    id: `job-${name}`,
    name,
    data,
    queueName: 'embed',
    queueQualifiedName: 'bull:embed',
    attemptsMade: attempt.made,
    opts: { attempts: attempt.of },
  } as unknown as Job;
}

/** What the waiting API reads back from the failure BullMQ records. */
async function failureOf(run: Promise<unknown>): Promise<{ error: AppError; retried: boolean }> {
  try {
    await run;
  } catch (thrown) {
    const error = decodeAppError((thrown as Error).message);
    if (!error) throw thrown;
    return { error, retried: !(thrown instanceof UnrecoverableError) };
  }
  throw new Error('the job did not fail');
}

async function recordEmbedJob(jobStore: MemoryJobStore, id: string, callbackUrl?: string) {
  await jobStore.createJob({ id, type: 'embed', libraryId: 'acme/docs', callbackUrl, createdAt: new Date() });
}

describe('runJob: one attempt of one job', () => {
  it("runs a job's processor and answers its result", async () => {
    const { rt } = runtime({ 'delete-library': async () => ({ existed: true, backupsDeleted: 2 }) });
    await expect(runJob(rt, bullJob('delete-library', { libraryId: 'acme/docs' }), undefined)).resolves.toEqual({
      existed: true,
      backupsDeleted: 2,
    });
  });

  it('refuses a job it has no processor for, and a payload that fails validation, without a retry', async () => {
    const { rt } = runtime({});
    const unknown = await failureOf(runJob(rt, bullJob('no-such-job', {}), undefined));
    expect(unknown).toMatchObject({ error: { code: 'UNKNOWN_JOB' }, retried: false });
    const invalid = await failureOf(runJob(rt, bullJob('delete-library', { libraryId: 42 }), undefined));
    expect(invalid).toMatchObject({ error: { code: 'INVALID_JOB' }, retried: false });
    expect(invalid.error.details?.length).toBeGreaterThan(0);
  });

  it("records a root job's result in its job record and sends its callback", async () => {
    const { rt, jobStore, enqueued } = runtime({ 'embed-range': async () => EMBEDDED });
    await recordEmbedJob(jobStore, 'job-embed-range', 'https://hooks.example.com/docshelf');
    const job = bullJob('embed-range', { libraryId: 'acme/docs', offset: 0, limit: 10 });
    await expect(runJob(rt, job, undefined)).resolves.toEqual(EMBEDDED);
    expect(await jobStore.getJob('job-embed-range')).toMatchObject({ state: 'completed', result: EMBEDDED });
    expect(enqueued).toEqual([{ name: 'deliver-callback', jobId: 'job-embed-range.callback' }]);
  });

  it('answers a root job that an earlier attempt completed from its record, without running it again', async () => {
    let runs = 0;
    const { rt, jobStore } = runtime({
      'embed-range': async () => {
        runs += 1;
        return EMBEDDED;
      },
    });
    await recordEmbedJob(jobStore, 'job-embed-range');
    const job = bullJob('embed-range', { libraryId: 'acme/docs', offset: 0, limit: 10 });
    await runJob(rt, job, undefined);
    await expect(runJob(rt, job, undefined)).resolves.toEqual(EMBEDDED);
    expect(runs).toBe(1);
  });

  it('leaves a retryable failure to the next attempt, and records the failure of the last one', async () => {
    const unavailable = () => new AppError('EMBEDDING_FAILED', 'the model did not answer', 502, { retryable: true });
    const { rt, jobStore } = runtime({
      'embed-range': async () => {
        throw unavailable();
      },
    });
    await recordEmbedJob(jobStore, 'job-embed-range');
    const payload = { libraryId: 'acme/docs', offset: 0, limit: 10 };

    const first = await failureOf(runJob(rt, bullJob('embed-range', payload, { made: 0, of: 2 }), undefined));
    expect(first).toMatchObject({ error: { code: 'EMBEDDING_FAILED' }, retried: true });
    expect(await jobStore.getJob('job-embed-range')).toMatchObject({ state: 'running' });

    await failureOf(runJob(rt, bullJob('embed-range', payload, { made: 1, of: 2 }), undefined));
    expect(await jobStore.getJob('job-embed-range')).toMatchObject({
      state: 'failed',
      error: { code: 'EMBEDDING_FAILED', error: 'the model did not answer' },
      errorStatus: 502,
    });
  });

  it('turns an unexpected error into INTERNAL with an error id, and keeps its text out of the answer', async () => {
    const { rt } = runtime({
      'delete-library': async () => {
        throw new Error('ECONNRESET at /var/lib/secret-path');
      },
    });
    const { error, retried } = await failureOf(
      runJob(rt, bullJob('delete-library', { libraryId: 'acme/docs' }), undefined),
    );
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toMatch(/errorId [0-9a-f-]{36}/);
    expect(error.message).not.toContain('secret-path');
    expect(retried).toBe(true);
  });
});
