import type { EmbedResponse } from '../../api/schemas';
import type { JobContext } from '../../jobs/workflow';
import type { Embedder, LibraryStore, VectorIndex } from '../../ports';
import { chunkPages } from '../libraries/chunk-pages';
import { embedChunks } from './embed-chunks';

/** Chunks read and looked up in the vector index at a time: a few hundred chunks' text in memory, never a library's. */
export const EMBED_ALL_PAGE_SIZE = 250;

/**
 * Worker side of POST /api/embed { all: true }: walks the library in its order a page at a time and embeds the chunks
 * that have no vector yet. Progress counts them: phase `embed`, `total` the chunks left to embed.
 */
export async function embedRemainingChunks(
  deps: { libraries: LibraryStore; vectors: VectorIndex; embedder: Embedder },
  libraryId: string,
  ctx: Pick<JobContext, 'signal' | 'reportProgress'>,
  pageSize = EMBED_ALL_PAGE_SIZE,
): Promise<EmbedResponse> {
  const total = await deps.libraries.countChunks(libraryId);
  // Counting from the index spares reading the library twice; a page that finds more raises it (see below).
  let left = Math.max(0, total - (await deps.vectors.count(libraryId)));
  await ctx.reportProgress({ phase: 'embed', set: { done: 0, total: left } });
  let processed = 0;
  for await (const page of chunkPages(deps.libraries, libraryId, { pageSize })) {
    ctx.signal.throwIfAborted();
    const embedded = await deps.vectors.fetch(
      libraryId,
      page.map((chunk) => chunk.id),
    );
    const missing = page.filter((chunk) => !embedded.has(chunk.id));
    // Vectors of chunks no longer in the library make the first count short: done never passes total.
    if (processed + missing.length > left) {
      left = processed + missing.length;
      await ctx.reportProgress({ set: { total: left } });
    }
    processed += await embedChunks(deps, libraryId, missing, ctx);
  }
  return { libraryId, processed, total, offset: 0, nextOffset: null, done: true };
}
