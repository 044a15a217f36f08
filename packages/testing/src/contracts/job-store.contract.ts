import { toJobRecord, type JobStore, type NewJob } from '@docshelf/core';

export interface JobStoreHarness {
  store: JobStore;
  cleanup(): Promise<void>;
}

const T0 = new Date('2025-01-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
let counter = 0;
const newJob = (overrides: Partial<NewJob> = {}): NewJob => ({
  id: `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`,
  type: 'crawl',
  libraryId: 'acme/docs',
  createdAt: T0,
  ...overrides,
});

/** Behaviour every JobStore adapter must show; `create` returns a fresh, empty store per test. */
export function describeJobStoreContract(label: string, create: () => Promise<JobStoreHarness>): void {
  describe(`JobStore contract: ${label}`, () => {
    let harness: JobStoreHarness;
    let store: JobStore;

    beforeEach(async () => {
      harness = await create();
      store = harness.store;
    });
    afterEach(async () => harness.cleanup());

    it('creates a queued job and reads it back; an unknown id is null', async () => {
      const job = newJob({ callbackUrl: 'https://hooks.example/done' });
      const created = await store.createJob(job);
      expect(created).toEqual({
        id: job.id,
        type: 'crawl',
        libraryId: 'acme/docs',
        state: 'queued',
        progress: { phase: 'queued', done: 0, total: 0 },
        createdAt: T0.toISOString(),
        callbackUrl: 'https://hooks.example/done',
      });
      expect(await store.getJob(job.id)).toEqual(created);
      expect(toJobRecord(created)).not.toHaveProperty('callbackUrl');
      expect(await store.getJob('00000000-0000-4000-8000-ffffffffffff')).toBeNull();
    });

    it('lists newest first, filtered by library and state, up to the limit', async () => {
      const a = await store.createJob(newJob({ createdAt: at(1), libraryId: 'lib/a' }));
      const b = await store.createJob(newJob({ createdAt: at(2), libraryId: 'lib/b', type: 'ingest' }));
      const c = await store.createJob(newJob({ createdAt: at(2), libraryId: 'lib/a', type: 'embed' }));
      await store.recordProgress(a.id, { phase: 'crawling' }, at(3));
      expect((await store.listJobs({ limit: 10 })).map((j) => j.id)).toEqual([c.id, b.id, a.id]);
      expect((await store.listJobs({ libraryId: 'lib/a', limit: 10 })).map((j) => j.id)).toEqual([c.id, a.id]);
      expect((await store.listJobs({ state: 'running', limit: 10 })).map((j) => j.id)).toEqual([a.id]);
      expect((await store.listJobs({ libraryId: 'lib/b', state: 'running', limit: 10 })).map((j) => j.id)).toEqual([]);
      expect((await store.listJobs({ limit: 2 })).map((j) => j.id)).toEqual([c.id, b.id]);
    });

    it('records who started a job and lists by it, keeping it out of what clients see', async () => {
      const mine = await store.createJob(newJob({ createdAt: at(1), startedBy: 'key:k1' }));
      await store.createJob(newJob({ createdAt: at(2), startedBy: 'user:u1' }));
      expect(mine.startedBy).toBe('key:k1');
      expect((await store.getJob(mine.id))!.startedBy).toBe('key:k1');
      expect((await store.listJobs({ startedBy: 'key:k1', limit: 10 })).map((j) => j.id)).toEqual([mine.id]);
      expect(await store.listJobs({ startedBy: 'key:k2', limit: 10 })).toEqual([]);
      expect(await store.listJobs({ limit: 10 })).toHaveLength(2);
      expect(toJobRecord(mine)).not.toHaveProperty('startedBy');
    });

    it('makes a queued job running with its first progress; startedAt is stamped once', async () => {
      const job = await store.createJob(newJob());
      expect(
        await store.recordProgress(job.id, { phase: 'crawling', set: { total: 150, pagesDiscovered: 150 } }, at(1)),
      ).toEqual({
        phase: 'crawling',
        done: 0,
        total: 150,
        pagesDiscovered: 150,
      });
      expect(await store.getJob(job.id)).toMatchObject({ state: 'running', startedAt: at(1).toISOString() });
      await store.recordProgress(job.id, { add: { done: 1, pagesCrawled: 1 } }, at(2));
      expect(await store.recordProgress(job.id, { add: { done: 1, pagesFailed: 1 } }, at(3))).toEqual({
        phase: 'crawling',
        done: 2,
        total: 150,
        pagesDiscovered: 150,
        pagesCrawled: 1,
        pagesFailed: 1,
      });
      expect(await store.getJob(job.id)).toMatchObject({
        startedAt: at(1).toISOString(),
        progress: { done: 2, pagesCrawled: 1 },
      });
      expect(
        await store.recordProgress('00000000-0000-4000-8000-ffffffffffff', { add: { done: 1 } }, at(1)),
      ).toBeNull();
    });

    it('records no progress for a job that ended, and never restarts it', async () => {
      const job = await store.createJob(newJob());
      expect(await store.cancelJob(job.id, at(1))).toBe('cancelled');
      expect(await store.recordProgress(job.id, { add: { done: 1 } }, at(2))).toBeNull();
      expect(await store.getJob(job.id)).toMatchObject({
        state: 'cancelled',
        progress: { done: 0 },
        finishedAt: at(1).toISOString(),
      });
      expect(await store.getJob(job.id)).not.toHaveProperty('startedAt');
    });

    it('adds concurrent increments without losing any', async () => {
      const job = await store.createJob(newJob());
      await Promise.all(
        Array.from({ length: 40 }, () => store.recordProgress(job.id, { add: { done: 1, pagesCrawled: 1 } }, at(1))),
      );
      expect((await store.getJob(job.id))!.progress).toMatchObject({ done: 40, pagesCrawled: 40 });
    });

    it('appends per-page errors as they happen, concurrent ones too, keeping the latest 50', async () => {
      const job = await store.createJob(newJob());
      await store.recordProgress(job.id, { phase: 'crawling', errors: ['http://x/a: HTTP 404'] }, at(1));
      const second = await store.recordProgress(
        job.id,
        { add: { pagesFailed: 1 }, errors: ['http://x/b: timed out', 'http://x/c: HTTP 500'] },
        at(1),
      );
      expect(second).toMatchObject({
        pagesFailed: 1,
        errors: ['http://x/a: HTTP 404', 'http://x/b: timed out', 'http://x/c: HTTP 500'],
      });
      await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          store.recordProgress(job.id, { errors: [`http://x/p${i}: HTTP 404`] }, at(2)),
        ),
      );
      const { errors } = (await store.getJob(job.id))!.progress;
      expect(errors).toHaveLength(50);
      expect(new Set(errors).size).toBe(50);
      expect(errors!.every((e) => /^http:\/\/x\/p\d+: HTTP 404$/.test(e))).toBe(true);
      await store.finishJob(job.id, { state: 'failed', error: { error: 'x', code: 'X' } }, at(3), {
        progress: { errors: ['http://x/last: HTTP 410'] },
      });
      expect((await store.getJob(job.id))!.progress.errors!.at(-1)).toBe('http://x/last: HTTP 410');
      const quiet = await store.createJob(newJob());
      expect(await store.recordProgress(quiet.id, { add: { done: 1 } }, at(1))).not.toHaveProperty('errors');
    });

    it('never moves progress back: a late count raises counters, a new phase starts done and total anew', async () => {
      const job = await store.createJob(newJob());
      await store.recordProgress(job.id, { phase: 'crawling', set: { pagesCrawled: 1, done: 1, total: 10 } }, at(1));
      // Page jobs add as they finish; the coordinator's count, taken earlier, arrives late.
      await store.recordProgress(job.id, { add: { pagesCrawled: 2, done: 2 } }, at(1));
      const late = await store.recordProgress(
        job.id,
        { phase: 'crawling', set: { pagesCrawled: 2, done: 2, total: 10 } },
        at(1),
      );
      expect(late).toMatchObject({ phase: 'crawling', pagesCrawled: 3, done: 3, total: 10 });
      const next = await store.recordProgress(
        job.id,
        { phase: 'indexing', set: { done: 0, total: 4, chunksIngested: 4 } },
        at(1),
      );
      expect(next).toMatchObject({ phase: 'indexing', done: 0, total: 4, pagesCrawled: 3, chunksIngested: 4 });
    });

    it('assigns exact counts even below what was counted live, and adds to them afterwards', async () => {
      const job = await store.createJob(newJob());
      // A page retried after its worker died was counted twice live: 1,003 crawled of 1,000.
      await store.recordProgress(job.id, { phase: 'crawling', add: { pagesCrawled: 1003, pagesFailed: 2 } }, at(1));
      const exact = await store.recordProgress(
        job.id,
        { phase: 'crawling', set: { done: 1000, total: 1000 }, exact: { pagesCrawled: 998, pagesFailed: 2 } },
        at(1),
      );
      expect(exact).toMatchObject({ pagesCrawled: 998, pagesFailed: 2, done: 1000, total: 1000 });
      expect(
        await store.recordProgress(job.id, { exact: { pagesRendered: 3 }, add: { pagesRendered: 1 } }, at(1)),
      ).toMatchObject({ pagesCrawled: 998, pagesRendered: 4 });
    });

    it('never reports done above total, however often retried work added to it, and keeps the exact count', async () => {
      const job = await store.createJob(newJob({ type: 'embed' }));
      await store.recordProgress(job.id, { phase: 'embedding', set: { done: 0, total: 5000 } }, at(1));
      await store.recordProgress(job.id, { add: { done: 4000 } }, at(1));
      // A retried attempt embeds again what the first one had counted: 7,048 counted of 5,000.
      const over = await store.recordProgress(job.id, { add: { done: 3048 } }, at(1));
      expect(over).toMatchObject({ done: 5000, total: 5000 });
      expect((await store.getJob(job.id))!.progress).toMatchObject({ done: 5000, total: 5000 });
      expect((await store.listJobs({ limit: 1 }))[0]!.progress).toMatchObject({ done: 5000, total: 5000 });
      // An exact count replaces what was counted live.
      expect(await store.recordProgress(job.id, { exact: { done: 4990 } }, at(1))).toMatchObject({
        done: 4990,
        total: 5000,
      });
      await store.finishJob(job.id, { state: 'completed', result: {} }, at(2), { progress: { exact: { done: 5000 } } });
      expect((await store.getJob(job.id))!.progress).toMatchObject({ phase: 'done', done: 5000, total: 5000 });
    });

    it('completes with the result, or fails with the error, exactly once', async () => {
      const ok = await store.createJob(newJob());
      await store.recordProgress(ok.id, { phase: 'indexing' }, at(1));
      const result = { success: true, libraryId: 'acme/docs', pagesCrawled: 3, errors: ['x: HTTP 404'] };
      expect(await store.finishJob(ok.id, { state: 'completed', result }, at(2))).toBe(true);
      expect(await store.finishJob(ok.id, { state: 'failed', error: { error: 'late', code: 'LATE' } }, at(3))).toBe(
        false,
      );
      expect(await store.getJob(ok.id)).toMatchObject({
        state: 'completed',
        result,
        finishedAt: at(2).toISOString(),
        progress: { phase: 'done' },
      });
      expect(await store.recordProgress(ok.id, { add: { done: 1 } }, at(4))).toBeNull();

      const bad = await store.createJob(newJob());
      const error = { error: 'No content could be extracted', code: 'NO_CONTENT', details: ['x: HTTP 404'] };
      expect(await store.finishJob(bad.id, { state: 'failed', error }, at(2))).toBe(true);
      const failed = await store.getJob(bad.id);
      expect(failed).toMatchObject({ state: 'failed', error, finishedAt: at(2).toISOString() });
      expect(failed).not.toHaveProperty('result');
      expect(failed).not.toHaveProperty('startedAt');
    });

    it('ends a job whose start and last progress were not written yet in the same write', async () => {
      const short = await store.createJob(newJob());
      const last = { progress: { phase: 'embedding' as const, set: { total: 1 }, add: { done: 1 } }, startedAt: at(1) };
      expect(await store.finishJob(short.id, { state: 'completed', result: { processed: 1 } }, at(2), last)).toBe(true);
      expect(await store.getJob(short.id)).toMatchObject({
        state: 'completed',
        startedAt: at(1).toISOString(),
        finishedAt: at(2).toISOString(),
        progress: { phase: 'done', done: 1, total: 1 },
      });

      const started = await store.createJob(newJob());
      await store.recordProgress(started.id, { phase: 'crawling', set: { pagesCrawled: 3 } }, at(1));
      await store.finishJob(started.id, { state: 'failed', error: { error: 'x', code: 'X' } }, at(3), {
        progress: { add: { pagesFailed: 1 } },
        startedAt: at(2),
      });
      expect(await store.getJob(started.id)).toMatchObject({
        state: 'failed',
        startedAt: at(1).toISOString(),
        progress: { phase: 'crawling', pagesCrawled: 3, pagesFailed: 1 },
      });
    });

    it('cancels until the job claims its commit, and never after it ended', async () => {
      const early = await store.createJob(newJob());
      await store.recordProgress(early.id, { phase: 'crawling' }, at(1));
      expect(await store.cancelJob(early.id, at(2))).toBe('cancelled');
      expect(await store.claimCommit(early.id, at(2))).toBe(false);
      expect(await store.finishJob(early.id, { state: 'completed', result: {} }, at(3))).toBe(false);
      expect(await store.getJob(early.id)).toMatchObject({ state: 'cancelled', finishedAt: at(2).toISOString() });

      const late = await store.createJob(newJob());
      expect(await store.claimCommit(late.id, at(1))).toBe(true);
      expect(await store.getJob(late.id)).toMatchObject({
        state: 'running',
        startedAt: at(1).toISOString(),
        progress: { phase: 'committing' },
      });
      expect(await store.claimCommit(late.id, at(2))).toBe(true);
      expect(await store.cancelJob(late.id, at(2))).toBe('committing');
      await store.finishJob(late.id, { state: 'completed', result: { ok: true } }, at(3));
      expect(await store.cancelJob(late.id, at(4))).toBe('finished');
      expect(await store.cancelJob('00000000-0000-4000-8000-ffffffffffff', at(4))).toBe('unknown');
    });

    it('answers a repeated idempotency key with the first job for 24 hours, then forgets it', async () => {
      const key = { key: 'user-1:order-42', requestHash: 'hash-a' };
      const first = await store.createJob(newJob({ createdAt: at(0), idempotency: key }));
      expect(first.requestHash).toBe('hash-a');
      const again = await store.createJob(
        newJob({ createdAt: at(60), idempotency: { ...key, requestHash: 'hash-b' } }),
      );
      expect(again.id).toBe(first.id);
      expect(again.requestHash).toBe('hash-a');
      expect((await store.findJobByIdempotencyKey(key.key, at(-1)))?.id).toBe(first.id);
      expect(await store.findJobByIdempotencyKey(key.key, at(1))).toBeNull();
      expect(await store.findJobByIdempotencyKey('user-2:order-42', at(-1))).toBeNull();
      expect(toJobRecord(again)).not.toHaveProperty('requestHash');

      const dayLater = await store.createJob(newJob({ createdAt: at(24 * 60 + 1), idempotency: key }));
      expect(dayLater.id).not.toBe(first.id);
      expect((await store.findJobByIdempotencyKey(key.key, at(-1)))?.id).toBe(dayLater.id);
      expect((await store.getJob(first.id))?.id).toBe(first.id);
    });

    it('keeps the HTTP status a failed job answered with, out of what clients see', async () => {
      const job = await store.createJob(newJob());
      await store.finishJob(
        job.id,
        { state: 'failed', error: { error: 'No content', code: 'NO_CONTENT' }, status: 400 },
        at(1),
      );
      const failed = await store.getJob(job.id);
      expect(failed).toMatchObject({ state: 'failed', errorStatus: 400, error: { code: 'NO_CONTENT' } });
      expect(toJobRecord(failed!)).not.toHaveProperty('errorStatus');
    });

    it('prunes jobs that ended before a date, keeping running and recent ones', async () => {
      const old = await store.createJob(newJob());
      const recent = await store.createJob(newJob());
      const running = await store.createJob(newJob());
      await store.finishJob(old.id, { state: 'completed', result: {} }, at(1));
      await store.finishJob(recent.id, { state: 'completed', result: {} }, at(10));
      await store.recordProgress(running.id, { phase: 'crawling' }, at(0));
      expect(await store.pruneJobs(at(5))).toBe(1);
      expect(await store.getJob(old.id)).toBeNull();
      expect(await store.getJob(recent.id)).not.toBeNull();
      expect(await store.getJob(running.id)).not.toBeNull();
    });
  });
}
