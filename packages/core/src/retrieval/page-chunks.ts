import type { ChunksQuery, ChunksResponse } from '../api/retrieval-schemas';
import type { LibraryStore } from '../ports';
import { resolveLibrary } from './resolve-library';

/**
 * GET /api/chunks: one page of a library's chunks with their text, in library order. A base id reads its newest
 * version (resolveLibrary); the answer's `libraryId` names the library read.
 */
export async function pageChunks(
  deps: { libraries: LibraryStore },
  query: Omit<ChunksQuery, never>,
): Promise<ChunksResponse> {
  const { id: libraryId } = await resolveLibrary(deps.libraries, query.libraryId);
  const [chunks, total] = await Promise.all([
    deps.libraries.listChunks(libraryId, { offset: query.offset, limit: query.limit }),
    deps.libraries.countChunks(libraryId),
  ]);
  const end = query.offset + chunks.length;
  return {
    libraryId,
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
