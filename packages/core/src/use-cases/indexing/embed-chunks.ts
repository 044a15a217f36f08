import type { StoredChunk } from '../../domain/types';
import { embeddingMismatch } from '../../errors';
import type { JobContext } from '../../jobs/workflow';
import type { Embedder, LibraryStore, VectorIndex } from '../../ports';
import { withoutLinkTargets } from '../../retrieval/query-terms';

const EMBED_BATCH_SIZE = 64;

/** The text a chunk is embedded from: its heading gives the content its context; link addresses are noise. */
export function embeddingTextOf(chunk: Pick<StoredChunk, 'title' | 'content'>): string {
  const content = withoutLinkTargets(chunk.content);
  return chunk.title ? `${chunk.title}\n\n${content}` : content;
}

/** Embeds in batches; each batch is reported as done, and a cancelled job stops between batches. */
export async function embedChunks(
  deps: { libraries: LibraryStore; embedder: Embedder; vectors: VectorIndex },
  libraryId: string,
  chunks: StoredChunk[],
  ctx?: Pick<JobContext, 'signal' | 'reportProgress'>,
): Promise<number> {
  if (chunks.length === 0) return 0;
  await claimEmbeddingModel(deps, libraryId);
  for (let start = 0; start < chunks.length; start += EMBED_BATCH_SIZE) {
    ctx?.signal.throwIfAborted();
    const batch = chunks.slice(start, start + EMBED_BATCH_SIZE);
    const vectors = await deps.embedder.embed(batch.map(embeddingTextOf), { libraryId, kind: 'document' });
    await deps.vectors.upsert(
      libraryId,
      batch.map((chunk, i) => ({ chunkId: chunk.id, values: vectors[i]! })),
    );
    await ctx?.reportProgress({ add: { done: batch.length } });
  }
  return chunks.length;
}

/** Vectors of two models in one library would be compared as if alike: the first model to write one owns it. */
async function claimEmbeddingModel(
  deps: { libraries: LibraryStore; embedder: Embedder },
  libraryId: string,
): Promise<void> {
  const library = await deps.libraries.getLibrary(libraryId);
  const current = { model: deps.embedder.model, dimensions: deps.embedder.dimensions };
  if (!library?.embeddingModel) {
    await deps.libraries.setEmbeddingModel(libraryId, current);
    return;
  }
  if (library.embeddingModel !== current.model || library.embeddingDimensions !== current.dimensions) {
    throw embeddingMismatch(
      libraryId,
      `${library.embeddingModel} (${library.embeddingDimensions})`,
      `${current.model} (${current.dimensions})`,
    );
  }
}
