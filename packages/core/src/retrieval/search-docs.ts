import type { SearchResponse } from '../api/retrieval-schemas';
import { rankChunks, type RetrievalDeps, type SearchMode } from './rank-chunks';
import { countTokens } from './token-count';

export interface SearchDocsRequest {
  query: string;
  libraryIds: string[];
  limit: number;
  mode?: SearchMode;
}

/**
 * GET /api/search: the best chunks for a question, each with its text and its BPE token count. Each page's best chunk
 * comes before any page's second, so the first results show the most pages that answer.
 */
export async function searchDocs(deps: RetrievalDeps, request: SearchDocsRequest): Promise<SearchResponse> {
  const { mode, chunks } = await rankChunks(deps, { ...request, onePerPageFirst: true });
  return {
    query: request.query,
    mode,
    results: chunks.map((chunk) => ({
      libraryId: chunk.libraryId,
      chunkId: chunk.id,
      title: chunk.title ?? null,
      url: chunk.url ?? null,
      content: chunk.content,
      score: chunk.score,
      tokens: chunk.bpeTokens ?? countTokens(chunk.content),
    })),
  };
}
