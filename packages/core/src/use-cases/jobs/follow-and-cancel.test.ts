import { MemoryJobStore } from '@docshelf/testing/fakes/memory-job-store';
import type { JobWatcher } from '../../jobs/job-signals';
import { followJob, type JobEvent } from './follow-job';
import { cancelJob } from './manage-jobs';

const ID = '6f1c1e9e-3b0a-4c55-9a51-1f4f3b1c2d3e';

/** A watcher the test fires by hand, as a worker's job-changed event would. */
function manualWatcher() {
  const listeners = new Set<() => void>();
  const watcher: JobWatcher = {
    watchJob: (_id, onChange) => {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
  };
  return { watcher, fire: () => listeners.forEach((l) => l()), count: () => listeners.size };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('followJob', () => {
  it('sends progress when it changes, then one final event, and stops watching', async () => {
    const jobStore = new MemoryJobStore();
    await jobStore.createJob({ id: ID, type: 'crawl', libraryId: 'acme/docs', createdAt: new Date() });
    const { watcher, fire, count } = manualWatcher();
    const events: JobEvent[] = [];
    const following = followJob(
      { jobStore, watcher, pollMs: 60_000 },
      ID,
      (e) => events.push(e),
      new AbortController().signal,
    );
    await tick();
    expect(events).toEqual([{ event: 'progress', data: { phase: 'queued', done: 0, total: 0 } }]);

    await jobStore.recordProgress(ID, { phase: 'crawling', set: { pagesCrawled: 1 } }, new Date());
    fire();
    fire();
    await tick();
    fire();
    await tick();
    expect(events.map((e) => e.event)).toEqual(['progress', 'progress']);
    expect(events[1]).toEqual({ event: 'progress', data: { phase: 'crawling', done: 0, total: 0, pagesCrawled: 1 } });

    await jobStore.finishJob(ID, { state: 'completed', result: { success: true } }, new Date());
    fire();
    await following;
    expect(events[events.length - 1]).toEqual({ event: 'completed', data: { success: true } });
    expect(count()).toBe(0);
  });

  it('gives a job that has ended its final event at once', async () => {
    const jobStore = new MemoryJobStore();
    await jobStore.createJob({ id: ID, type: 'ingest', libraryId: 'acme/docs', createdAt: new Date() });
    await jobStore.finishJob(ID, { state: 'failed', error: { error: 'No content', code: 'NO_CONTENT' } }, new Date());
    const events: JobEvent[] = [];
    await followJob(
      { jobStore, watcher: manualWatcher().watcher },
      ID,
      (e) => events.push(e),
      new AbortController().signal,
    );
    expect(events).toEqual([{ event: 'failed', data: { error: 'No content', code: 'NO_CONTENT' } }]);
  });

  it('answers JOB_NOT_FOUND for an unknown job, and stops when the client goes away', async () => {
    const jobStore = new MemoryJobStore();
    await expect(
      followJob({ jobStore, watcher: manualWatcher().watcher }, ID, () => undefined, new AbortController().signal),
    ).rejects.toMatchObject({
      code: 'JOB_NOT_FOUND',
      status: 404,
    });
    await jobStore.createJob({ id: ID, type: 'ingest', libraryId: 'acme/docs', createdAt: new Date() });
    const gone = new AbortController();
    const { watcher, count } = manualWatcher();
    const following = followJob({ jobStore, watcher }, ID, () => undefined, gone.signal);
    await tick();
    gone.abort();
    await following;
    expect(count()).toBe(0);
  });
});

describe('cancelJob', () => {
  const halted: string[] = [];
  const deps = (jobStore: MemoryJobStore) => ({
    jobStore,
    halter: { haltWorkflow: async (id: string) => (halted.push(id), true) },
    notifier: { jobChanged: async () => undefined },
  });

  it('cancels a running job and halts its workflow before answering', async () => {
    const jobStore = new MemoryJobStore();
    await jobStore.createJob({ id: ID, type: 'crawl', libraryId: 'acme/docs', createdAt: new Date() });
    await jobStore.recordProgress(ID, { phase: 'crawling' }, new Date());
    expect(await cancelJob(deps(jobStore), ID)).toMatchObject({ id: ID, state: 'cancelled' });
    expect(halted).toEqual([ID]);
  });

  it('refuses a job that has begun its commit or has ended (409), and an unknown one (404)', async () => {
    const jobStore = new MemoryJobStore();
    await jobStore.createJob({ id: ID, type: 'crawl', libraryId: 'acme/docs', createdAt: new Date() });
    await jobStore.claimCommit(ID, new Date());
    await expect(cancelJob(deps(jobStore), ID)).rejects.toMatchObject({ code: 'JOB_NOT_CANCELLABLE', status: 409 });
    await jobStore.finishJob(ID, { state: 'completed', result: {} }, new Date());
    await expect(cancelJob(deps(jobStore), ID)).rejects.toMatchObject({ code: 'JOB_NOT_CANCELLABLE', status: 409 });
    await expect(cancelJob(deps(jobStore), '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      code: 'JOB_NOT_FOUND',
    });
  });
});
