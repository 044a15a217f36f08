import type { ChunkInput } from '../../domain/types';
import type { StagingStore } from '../../ports';

/** Chunks per staged batch: a few MB, well under MongoDB's 16 MB document limit for 500-word chunks. */
const BATCH_SIZE = 1_000;
const batchKey = (index: number) => `chunks/${String(index).padStart(6, '0')}`;

/**
 * Keeps an ingestion's chunks in the record store until the worker commits them, so the job in Redis carries only
 * the ingestion id however large the payload. Uses the crawl staging area, one entry per batch.
 */
export async function stageChunks(
  store: Pick<StagingStore, 'stagePage'>,
  stagingId: string,
  chunks: ChunkInput[],
  now: Date,
): Promise<void> {
  for (let start = 0, index = 0; start < chunks.length; start += BATCH_SIZE, index++) {
    await store.stagePage({ stagingId, url: batchKey(index), chunks: chunks.slice(start, start + BATCH_SIZE), now });
  }
}

/** The staged chunks in the order they were sent. */
export async function readStagedChunks(
  store: Pick<StagingStore, 'listStagedPages'>,
  stagingId: string,
): Promise<ChunkInput[]> {
  const batches = (await store.listStagedPages(stagingId)).filter((page) => page.url.startsWith('chunks/'));
  batches.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  return batches.flatMap((batch) => batch.chunks);
}
