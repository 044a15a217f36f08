import type { StoredChunk } from '../domain/types';
import type { Embedder, VectorIndex } from '../ports';

const EMBED_BATCH_SIZE = 64;

/** The text a chunk is embedded from: its heading gives the content its context. */
export function embeddingTextOf(chunk: Pick<StoredChunk, 'title' | 'content'>): string {
  return chunk.title ? `${chunk.title}\n\n${chunk.content}` : chunk.content;
}

export async function embedChunks(
  deps: { embedder: Embedder; vectors: VectorIndex },
  libraryId: string,
  chunks: StoredChunk[],
): Promise<number> {
  for (let start = 0; start < chunks.length; start += EMBED_BATCH_SIZE) {
    const batch = chunks.slice(start, start + EMBED_BATCH_SIZE);
    const vectors = await deps.embedder.embed(batch.map(embeddingTextOf));
    await deps.vectors.upsert(
      libraryId,
      batch.map((chunk, i) => ({ chunkId: chunk.id, values: vectors[i]! })),
    );
  }
  return chunks.length;
}
