import type { ChunkHit, Library, StoredChunk } from '../domain/types';
import { AppError, libraryNotFound } from '../errors';
import type { Embedder, KeywordIndex, RecordStore, VectorIndex } from '../ports';
import { fuseRankings } from './fuse-rankings';
import { queryTerms } from './query-terms';

export type SearchMode = 'hybrid' | 'keyword' | 'vector';

export interface RetrievalDeps {
  records: Pick<RecordStore, 'getLibrary' | 'listLibraries' | 'getChunks' | 'listChunks'>;
  keywords: KeywordIndex;
  vectors: VectorIndex;
  embedder: Embedder;
}

export interface RankRequest {
  query: string;
  /** Libraries to search; absent or empty searches every library. */
  libraryIds?: string[];
  limit: number;
  /** Forces one ranking; by default hybrid where vectors exist and keyword alone elsewhere. */
  mode?: SearchMode;
}

export interface RankedChunk extends StoredChunk {
  libraryId: string;
  score: number;
}

export interface RankOutcome {
  mode: SearchMode;
  chunks: RankedChunk[];
}

/** Each ranking contributes this many candidates per result asked for, so fusion can lift a chunk from below the cut. */
const CANDIDATES_PER_RESULT = 4;
const MIN_CANDIDATES = 40;
const MAX_CANDIDATES = 500;
/** Vector queries run this many libraries at a time when a search spans every library. */
const VECTOR_QUERY_PARALLELISM = 8;
/** Fusion weights; the evaluation (`npm run eval:retrieval`) is what they were chosen by. */
const KEYWORD_WEIGHT = 1;
const VECTOR_WEIGHT = 1;

/**
 * Ranks a library's (or every library's) chunks for a question: BM25 keyword ranking fused by reciprocal rank fusion
 * with vector similarity of the question embedded by the model the library's vectors were made with. A library
 * without vectors (or with vectors of another model) is searched by keyword alone.
 */
export async function rankChunks(deps: RetrievalDeps, request: RankRequest): Promise<RankOutcome> {
  const scoped = request.libraryIds !== undefined && request.libraryIds.length > 0;
  const libraries = scoped ? await loadLibraries(deps.records, request.libraryIds!) : await deps.records.listLibraries();
  const withVectors = libraries.filter((library) => hasUsableVectors(library, deps.embedder));
  const mode = request.mode ?? (withVectors.length > 0 ? 'hybrid' : 'keyword');
  if (mode === 'vector' && withVectors.length === 0) {
    throw new AppError('NO_VECTORS', 'None of the libraries searched has vectors of this service\'s embedding model; search by keyword', 400, {
      retryable: false,
    });
  }
  const candidates = Math.min(MAX_CANDIDATES, Math.max(MIN_CANDIDATES, request.limit * CANDIDATES_PER_RESULT));
  const [keywordHits, vectorHits] = await Promise.all([
    mode === 'vector'
      ? []
      : deps.keywords.search({
          terms: queryTerms(request.query),
          libraryIds: scoped ? libraries.map((l) => l.id) : null,
          limit: candidates,
        }),
    mode === 'keyword' ? [] : rankByVector(deps, request.query, withVectors, candidates),
  ]);
  const ranked =
    mode === 'hybrid'
      ? fuseRankings([
          { hits: keywordHits, weight: KEYWORD_WEIGHT },
          { hits: vectorHits, weight: VECTOR_WEIGHT },
        ])
      : mode === 'keyword'
        ? keywordHits
        : vectorHits;
  return { mode, chunks: await hydrate(deps.records, ranked, request.limit) };
}

/** A library's vectors can be compared with the question only when this service's embedder made them. */
export function hasUsableVectors(library: Library, embedder: Embedder): boolean {
  return library.embeddingModel === embedder.model && library.embeddingDimensions === embedder.dimensions;
}

async function loadLibraries(records: RetrievalDeps['records'], ids: string[]): Promise<Library[]> {
  const unique = [...new Set(ids)];
  const libraries = await Promise.all(unique.map((id) => records.getLibrary(id)));
  const missing = unique.find((_, i) => libraries[i] === null);
  if (missing !== undefined) throw libraryNotFound(missing);
  return libraries as Library[];
}

async function rankByVector(deps: RetrievalDeps, query: string, libraries: Library[], limit: number): Promise<ChunkHit[]> {
  if (libraries.length === 0) return [];
  const [vector] = await deps.embedder.embed([query]);
  const hits: ChunkHit[] = [];
  for (let start = 0; start < libraries.length; start += VECTOR_QUERY_PARALLELISM) {
    const group = libraries.slice(start, start + VECTOR_QUERY_PARALLELISM);
    const matches = await Promise.all(group.map((library) => deps.vectors.query(library.id, vector!, limit)));
    matches.forEach((list, i) => list.forEach((m) => hits.push({ libraryId: group[i]!.id, chunkId: m.chunkId, score: m.score })));
  }
  // Scores of one model are comparable across libraries; ties keep library order.
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}

/** Reads the ranked chunks' text; a hit whose chunk is gone (deleted or replaced since it was indexed) is dropped. */
async function hydrate(records: RetrievalDeps['records'], hits: ChunkHit[], limit: number): Promise<RankedChunk[]> {
  // A few extra hits cover the ones that turn out stale.
  const wanted = hits.slice(0, limit + Math.min(limit, 10));
  const byLibrary = new Map<string, string[]>();
  for (const hit of wanted) byLibrary.set(hit.libraryId, [...(byLibrary.get(hit.libraryId) ?? []), hit.chunkId]);
  const found = new Map<string, StoredChunk>();
  await Promise.all(
    [...byLibrary].map(async ([libraryId, ids]) => {
      for (const chunk of await records.getChunks(libraryId, ids)) found.set(`${libraryId}\u0000${chunk.id}`, chunk);
    }),
  );
  const chunks: RankedChunk[] = [];
  for (const hit of wanted) {
    const chunk = found.get(`${hit.libraryId}\u0000${hit.chunkId}`);
    if (chunk) chunks.push({ ...chunk, libraryId: hit.libraryId, score: hit.score });
    if (chunks.length === limit) break;
  }
  return chunks;
}
