import type { StoredChunk } from '../../domain/types';
import type { JobProgress } from '../../jobs/job-record';
import type { JobContext } from '../../jobs/workflow';
import type { Embedder, LibraryStore, VectorIndex } from '../../ports';
import { MemoryJobStore } from '@docshelf/testing/fakes/memory-job-store';
import { embedLibraryPage } from './embed-library-page';

const LIBRARY = 'acme/docs';
const JOB_ID = '00000000-0000-4000-8000-000000000001';

/** A library of `count` chunks without vectors, in memory. */
function fakeLibrary(count: number) {
  const chunks: StoredChunk[] = Array.from({ length: count }, (_, i) => ({
    id: `c${i}`,
    title: `Section ${i}`,
    content: `text of section ${i}`,
    tokenCount: 4,
    position: i,
  }));
  const libraries = {
    getLibrary: async () => ({ id: LIBRARY, embeddingModel: 'fake', embeddingDimensions: 2 }),
    setEmbeddingModel: async () => undefined,
    countChunks: async () => chunks.length,
    listChunks: async (_id: string, page: { offset: number; limit: number }) =>
      chunks.slice(page.offset, page.offset + page.limit),
  } as unknown as LibraryStore;
  const vectors = { upsert: async () => undefined } as unknown as VectorIndex;
  const embedder: Embedder = { model: 'fake', dimensions: 2, embed: async (texts) => texts.map(() => [0, 1]) };
  return { libraries, vectors, embedder };
}

/** One attempt of the job, writing its progress to `store`; it dies (aborts) after `dieAfter` reports. */
function attempt(store: MemoryJobStore, seen: JobProgress[], dieAfter = Infinity) {
  const controller = new AbortController();
  let reports = 0;
  const ctx = {
    signal: controller.signal,
    reportProgress: async (change) => {
      const progress = await store.recordProgress(JOB_ID, change, new Date());
      if (progress) seen.push(progress);
      if (++reports >= dieAfter) controller.abort();
    },
  } as JobContext;
  return ctx;
}

describe('embedLibraryPage progress across a retry', () => {
  it('counts the retried attempt from 0, so done ends at exactly the chunks of the range', async () => {
    const store = new MemoryJobStore();
    await store.createJob({ id: JOB_ID, type: 'embed', libraryId: LIBRARY, createdAt: new Date() });
    const deps = fakeLibrary(640);
    const job = { libraryId: LIBRARY, offset: 0, limit: 640 };

    // The first attempt embeds 4 batches of 64 and its worker dies.
    const first: JobProgress[] = [];
    await expect(embedLibraryPage(deps, job, attempt(store, first, 5))).rejects.toThrow();
    expect(first.at(-1)).toMatchObject({ phase: 'embedding', done: 256, total: 640 });

    const retry: JobProgress[] = [];
    await embedLibraryPage(deps, job, attempt(store, retry));
    // Each report of the retry counts what the retry embedded, never the first attempt's batches on top.
    const dones = retry.map((p) => p.done);
    expect(dones).toEqual([0, 64, 128, 192, 256, 320, 384, 448, 512, 576, 640]);
    expect((await store.getJob(JOB_ID))!.progress).toMatchObject({ done: 640, total: 640 });
  });
});
