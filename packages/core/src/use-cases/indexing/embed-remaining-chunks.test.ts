import type { StoredChunk } from '../../domain/types';
import type { ProgressChange } from '../../jobs/job-record';
import type { JobContext } from '../../jobs/workflow';
import type { Embedder, LibraryStore, VectorIndex } from '../../ports';
import { embedRemainingChunks } from './embed-remaining-chunks';

const LIBRARY = 'acme/docs';

/** A library of `count` chunks in memory, with vectors for `embedded` of them (and for any `orphans`). */
function fakeLibrary(count: number, embedded: string[] = [], orphans: string[] = []) {
  const chunks: StoredChunk[] = Array.from({ length: count }, (_, i) => ({
    id: `c${i}`,
    title: `Section ${i}`,
    content: `text of section ${i}`,
    tokenCount: 4,
    position: i,
  }));
  const vectors = new Map<string, number[]>([...embedded, ...orphans].map((id) => [id, [1, 0]]));
  const pagesRead: { afterPosition: number; limit: number }[] = [];
  const embedCalls: string[][] = [];
  const libraries = {
    getLibrary: async () => ({ id: LIBRARY, embeddingModel: 'fake', embeddingDimensions: 2 }),
    setEmbeddingModel: async () => undefined,
    countChunks: async () => chunks.length,
    listChunks: async (_id: string, page: { afterPosition: number; limit: number }) => {
      pagesRead.push(page);
      return chunks.filter((c) => c.position > page.afterPosition).slice(0, page.limit);
    },
  } as unknown as LibraryStore;
  const index = {
    count: async () => vectors.size,
    fetch: async (_id: string, ids: string[]) =>
      new Map(ids.filter((id) => vectors.has(id)).map((id) => [id, vectors.get(id)!])),
    upsert: async (_id: string, records: { chunkId: string; values: number[] }[]) => {
      for (const r of records) vectors.set(r.chunkId, r.values);
    },
  } as unknown as VectorIndex;
  const embedder: Embedder = {
    model: 'fake',
    dimensions: 2,
    embed: async (texts) => {
      embedCalls.push(texts);
      return texts.map(() => [0, 1]);
    },
  };
  return { deps: { libraries, vectors: index, embedder }, vectors, pagesRead, embedCalls };
}

function fakeContext(abortAfterReports = Infinity) {
  const reports: ProgressChange[] = [];
  const controller = new AbortController();
  const ctx: Pick<JobContext, 'signal' | 'reportProgress'> = {
    signal: controller.signal,
    reportProgress: async (change) => {
      reports.push(change);
      if (reports.length >= abortAfterReports) controller.abort();
    },
  };
  return { ctx, reports };
}

/** done and total as a job store would fold the reports (set raises, add adds). */
function progressOf(reports: ProgressChange[]) {
  let done = 0;
  let total = 0;
  const seen: { done: number; total: number }[] = [];
  for (const r of reports) {
    if (r.set?.done !== undefined) done = r.set.done;
    if (r.set?.total !== undefined) total = r.set.total;
    done += r.add?.done ?? 0;
    seen.push({ done, total });
  }
  return seen;
}

describe('embedRemainingChunks (POST /api/embed { all: true })', () => {
  it('embeds only the chunks without a vector, a page at a time, and answers the final page shape', async () => {
    const lib = fakeLibrary(10, ['c1', 'c4', 'c5']);
    const { ctx, reports } = fakeContext();
    const result = await embedRemainingChunks(lib.deps, LIBRARY, ctx, 4);
    expect(result).toEqual({ libraryId: LIBRARY, processed: 7, total: 10, offset: 0, nextOffset: null, done: true });
    expect(lib.vectors.size).toBe(10);
    const embeddedSections = lib.embedCalls.flat().map((text) => Number(/text of section (\d+)/.exec(text)![1]));
    expect(embeddedSections).toEqual([0, 2, 3, 6, 7, 8, 9]);
    // Never more than a page of chunks read at once.
    expect(lib.pagesRead).toEqual([
      { afterPosition: -1, limit: 4 },
      { afterPosition: 3, limit: 4 },
      { afterPosition: 7, limit: 4 },
    ]);
    expect(reports[0]).toEqual({ phase: 'embed', set: { done: 0, total: 7 } });
    expect(progressOf(reports).at(-1)).toEqual({ done: 7, total: 7 });
  });

  it('embeds nothing in a library whose chunks all have vectors', async () => {
    const lib = fakeLibrary(3, ['c0', 'c1', 'c2']);
    const { ctx } = fakeContext();
    const result = await embedRemainingChunks(lib.deps, LIBRARY, ctx, 2);
    expect(result).toMatchObject({ processed: 0, total: 3, done: true });
    expect(lib.embedCalls).toEqual([]);
  });

  it('raises the total when vectors of chunks no longer in the library made the first count short', async () => {
    const lib = fakeLibrary(6, [], ['gone1', 'gone2']);
    const { ctx, reports } = fakeContext();
    await embedRemainingChunks(lib.deps, LIBRARY, ctx, 4);
    const seen = progressOf(reports);
    expect(seen[0]).toEqual({ done: 0, total: 4 });
    expect(seen.every(({ done, total }) => done <= total)).toBe(true);
    expect(seen.at(-1)).toEqual({ done: 6, total: 6 });
  });

  it('stops between batches once the job is cancelled', async () => {
    const lib = fakeLibrary(300);
    // The first report opens the phase; the abort comes with the first batch embedded.
    const { ctx } = fakeContext(2);
    await expect(embedRemainingChunks(lib.deps, LIBRARY, ctx, 100)).rejects.toThrow();
    expect(lib.vectors.size).toBe(64);
    expect(lib.pagesRead).toHaveLength(1);
  });
});
