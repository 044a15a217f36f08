import type { ChunksQuery, ChunksResponse } from '../api/retrieval-schemas';
import { libraryNotFound } from '../errors';
import type { LibraryStore } from '../ports';

/** GET /api/chunks: one page of a library's chunks with their text, in library order. */
export async function pageChunks(
  deps: { libraries: LibraryStore },
  query: Omit<ChunksQuery, never>,
): Promise<ChunksResponse> {
  const library = await deps.libraries.getLibrary(query.libraryId);
  if (!library) throw libraryNotFound(query.libraryId);
  const [chunks, total] = await Promise.all([
    deps.libraries.listChunks(query.libraryId, { offset: query.offset, limit: query.limit }),
    deps.libraries.countChunks(query.libraryId),
  ]);
  const end = query.offset + chunks.length;
  return {
    chunks: chunks.map((chunk) => ({
      id: chunk.id,
      title: chunk.title ?? null,
      url: chunk.url ?? null,
      content: chunk.content,
      tokenCount: chunk.tokenCount,
    })),
    total,
    nextOffset: end < total ? end : null,
  };
}
