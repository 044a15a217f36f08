import type { SearchResponse } from '../api/retrieval-schemas';
import { libraryVersions } from './library-versions';
import { rankChunks, type RetrievalDeps, type SearchMode } from './rank-chunks';
import { countTokens } from './token-count';

export interface SearchDocsRequest {
  query: string;
  libraryIds: string[];
  limit: number;
  mode?: SearchMode;
}

/**
 * GET /api/search: the best chunks for a question, each with its text, its BPE token count and its source (library
 * and version, page URL, when the page was fetched and its hash). Each page's best chunk comes before any page's
 * second, so the first results show the most pages that answer.
 */
export async function searchDocs(deps: RetrievalDeps, request: SearchDocsRequest): Promise<SearchResponse> {
  const { mode, chunks } = await rankChunks(deps, { ...request, onePerPageFirst: true });
  const versions = await libraryVersions(
    deps.libraries,
    chunks.map((chunk) => chunk.libraryId),
  );
  return {
    query: request.query,
    mode,
    results: chunks.map((chunk) => ({
      libraryId: chunk.libraryId,
      libraryVersion: versions.get(chunk.libraryId) ?? null,
      chunkId: chunk.id,
      title: chunk.title ?? null,
      url: chunk.url ?? null,
      fetchedAt: chunk.fetchedAt ?? null,
      contentHash: chunk.contentHash ?? null,
      content: chunk.content,
      score: chunk.score,
      tokens: chunk.bpeTokens ?? countTokens(chunk.content),
    })),
  };
}
