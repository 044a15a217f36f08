import type { JobStore } from '@docshelf/core';
import { JobRecordWriter, mergeProgress } from './job-record-writer';

describe('progress buffering', () => {
  it('merges changes as if applied one after the other', () => {
    expect(
      mergeProgress({ phase: 'crawling', set: { total: 10 }, add: { done: 1 } }, { add: { done: 2, pagesCrawled: 1 } }),
    ).toEqual({
      phase: 'crawling',
      set: { total: 10 },
      add: { done: 3, pagesCrawled: 1 },
    });
    expect(mergeProgress({ add: { done: 4 } }, { phase: 'indexing', set: { done: 0 } })).toEqual({
      phase: 'indexing',
      set: { done: 0 },
      add: {},
    });
    expect(mergeProgress({ set: { done: 5 } }, { add: { done: 2 } })).toEqual({
      phase: undefined,
      set: { done: 7 },
      add: {},
    });
  });

  it('merges exact counts: a later exact one replaces, a later set raises and adds add to an earlier one', () => {
    expect(mergeProgress({ add: { pagesCrawled: 5 } }, { exact: { pagesCrawled: 3 } })).toMatchObject({
      exact: { pagesCrawled: 3 },
      add: {},
    });
    expect(mergeProgress({ exact: { pagesCrawled: 3 } }, { add: { pagesCrawled: 2 } })).toMatchObject({
      exact: { pagesCrawled: 5 },
    });
    expect(mergeProgress({ exact: { pagesCrawled: 3 } }, { set: { pagesCrawled: 7 } })).toMatchObject({
      exact: { pagesCrawled: 7 },
      set: {},
    });
    expect(mergeProgress({ exact: { pagesCrawled: 9 } }, { set: { pagesCrawled: 7 } })).toMatchObject({
      exact: { pagesCrawled: 9 },
    });
  });

  it('keeps per-page errors of merged changes in order', () => {
    expect(
      mergeProgress(
        { add: { pagesFailed: 1 }, errors: ['a: HTTP 404'] },
        { add: { pagesFailed: 1 }, errors: ['b: HTTP 500'] },
      ),
    ).toEqual({
      phase: undefined,
      set: {},
      add: { pagesFailed: 2 },
      errors: ['a: HTTP 404', 'b: HTTP 500'],
    });
    expect(mergeProgress({ add: { done: 1 } }, { add: { done: 1 } })).not.toHaveProperty('errors');
  });

  it('writes a later change of phase at once, and counts together when flushed', async () => {
    const writes: unknown[] = [];
    const jobStore = {
      recordProgress: async (_id: string, change: unknown) => (
        writes.push(change),
        { phase: 'embedding', done: 0, total: 0 }
      ),
    } as unknown as JobStore;
    const notified: string[] = [];
    const writer = new JobRecordWriter(
      {
        jobStore,
        notifier: { jobChanged: async (id) => void notified.push(id) },
        onError: (e) => {
          throw e;
        },
      },
      'job-1',
      false,
    );
    await writer.report({ phase: 'committing', set: { done: 0, total: 128 } });
    await writer.report({ add: { done: 64 } });
    expect(writes).toEqual([]);
    await writer.report({ phase: 'indexing', set: { done: 0 } });
    expect(writes).toEqual([{ phase: 'indexing', set: { done: 0, total: 128 }, add: {} }]);
    await writer.report({ add: { done: 64 } });
    await writer.report({ phase: 'indexing', add: { done: 1 } });
    await writer.flush();
    await writer.flush();
    expect(writes).toEqual([
      { phase: 'indexing', set: { done: 0, total: 128 }, add: {} },
      { phase: 'indexing', set: {}, add: { done: 65 } },
    ]);
    expect(notified).toEqual(['job-1', 'job-1']);
  });

  it('leaves the start and the last counts of a short root job to the write that ends it', async () => {
    const calls: string[] = [];
    const jobStore = { recordProgress: async () => (calls.push('progress'), null) } as unknown as JobStore;
    const writer = new JobRecordWriter(
      {
        jobStore,
        notifier: { jobChanged: async () => undefined },
        onError: (e) => {
          throw e;
        },
      },
      'job-2',
      true,
    );
    await writer.report({ phase: 'embedding', set: { total: 1 } });
    await writer.report({ add: { done: 1 } });
    const last = await writer.takeFinalWrite();
    expect(last).toEqual({
      progress: { phase: 'embedding', set: { total: 1 }, add: { done: 1 } },
      startedAt: expect.any(Date),
    });
    await writer.flush();
    expect(calls).toEqual([]);
  });
});
