import type { ChunkHit, Library, StoredChunk } from '../domain/types';
import { AppError } from '../errors';
import type { Embedder, KeywordIndex, LibraryStore, VectorIndex } from '../ports';
import { fuseRankings, RRF_K, type Ranking } from './fuse-rankings';
import { queryTerms } from './query-terms';
import { resolveLibraries } from './resolve-library';

export type SearchMode = 'hybrid' | 'keyword' | 'vector';

export interface RetrievalDeps {
  libraries: Pick<LibraryStore, 'getLibrary' | 'listLibraryVersions' | 'listLibraries' | 'getChunks' | 'listChunks'>;
  keywords: KeywordIndex;
  vectors: VectorIndex;
  /** Every embedder the service can run: a library's questions are embedded by the one that made its vectors. */
  embedders: Embedder[];
  /** Told when a question could not be embedded (the search goes on by keyword). */
  logger?: { warn(details: object, message: string): void };
}

export interface RankRequest {
  query: string;
  /** Libraries to search (a base id reads its newest version: resolveLibrary); absent or empty searches every library. */
  libraryIds?: string[];
  limit: number;
  /** Forces one ranking; by default hybrid where vectors exist and keyword alone elsewhere. */
  mode?: SearchMode;
  /** Puts the best chunk of each page before any page's second-best, so a few pages cannot fill the results. */
  onePerPageFirst?: boolean;
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
/** Pseudo-relevance feedback: the question's vector moves this far towards its best keyword hits' vectors (Rocchio). */
const FEEDBACK_WEIGHT = 0.5;
const FEEDBACK_CHUNKS = 5;

/**
 * Ranks a library's (or every library's) chunks for a question: BM25 keyword ranking fused by reciprocal rank fusion
 * with vector similarity of the question embedded by the model the library's vectors were made with. A library
 * without vectors (or with vectors of another model) is searched by keyword alone.
 */
export async function rankChunks(deps: RetrievalDeps, request: RankRequest): Promise<RankOutcome> {
  const scoped = request.libraryIds !== undefined && request.libraryIds.length > 0;
  const libraries = scoped
    ? await resolveLibraries(deps.libraries, request.libraryIds!)
    : await deps.libraries.listLibraries();
  const withVectors = libraries.filter((library) => embedderOf(library, deps.embedders) !== undefined);
  const mode = request.mode ?? (withVectors.length > 0 ? 'hybrid' : 'keyword');
  if (mode === 'vector' && withVectors.length === 0) {
    throw new AppError(
      'NO_VECTORS',
      "None of the libraries searched has vectors of this service's embedding model; search by keyword",
      400,
      {
        retryable: false,
      },
    );
  }
  const candidates = Math.min(MAX_CANDIDATES, Math.max(MIN_CANDIDATES, request.limit * CANDIDATES_PER_RESULT));
  const keywordHits =
    mode === 'vector'
      ? []
      : await deps.keywords.search({
          terms: queryTerms(request.query),
          libraryIds: scoped ? libraries.map((l) => l.id) : null,
          limit: candidates,
        });
  // In hybrid mode the keyword ranking's best chunks also steer the vector query; vector mode stays pure.
  const vector =
    mode === 'keyword'
      ? { hits: [], ran: false }
      : await rankByVector(deps, request.query, withVectors, candidates, keywordHits);
  const vectorHits = vector.hits;
  // A hybrid search whose embedder could not place the question (a remote model down) answers by keyword alone.
  if (mode === 'hybrid' && !vector.ran)
    return { mode: 'keyword', chunks: await hydrateFor(request, deps.libraries, keywordHits, candidates) };
  if (mode === 'vector' && !vector.ran) throw embedderUnavailable();
  const rankings = [
    { hits: keywordHits, weight: KEYWORD_WEIGHT },
    { hits: vectorHits, weight: VECTOR_WEIGHT },
  ];
  // Search answers pages: fused by page, one page's many chunks do not crowd out another page's one good chunk.
  if (mode === 'hybrid' && request.onePerPageFirst) {
    return { mode, chunks: await fusePages(deps.libraries, rankings, request.limit) };
  }
  const ranked = mode === 'hybrid' ? fuseRankings(rankings) : mode === 'keyword' ? keywordHits : vectorHits;
  return { mode, chunks: await hydrateFor(request, deps.libraries, ranked, candidates) };
}

async function hydrateFor(
  request: RankRequest,
  store: RetrievalDeps['libraries'],
  ranked: ChunkHit[],
  candidates: number,
): Promise<RankedChunk[]> {
  if (!request.onePerPageFirst) return hydrate(store, ranked, request.limit);
  const considered = ranked.slice(0, candidates);
  return hydrate(store, onePerPageFirst(considered, await pagesOf(store, [ranked], considered)), request.limit);
}

const embedderUnavailable = () =>
  new AppError(
    'EMBEDDER_UNAVAILABLE',
    'The embedding model could not embed the question; search by keyword or retry',
    503,
    { retryable: true },
  );

/** The embedder that made the library's vectors, when this service has it: only it can place a question among them. */
export function embedderOf(library: Library, embedders: Embedder[]): Embedder | undefined {
  return embedders.find((e) => e.model === library.embeddingModel && e.dimensions === library.embeddingDimensions);
}

/** Vector hits of the libraries whose embedder could place the question; `ran` is false when none could. */
async function rankByVector(
  deps: RetrievalDeps,
  query: string,
  libraries: Library[],
  limit: number,
  feedback: ChunkHit[],
): Promise<{ hits: ChunkHit[]; ran: boolean }> {
  const hits: ChunkHit[] = [];
  let ran = false;
  for (let start = 0; start < libraries.length; start += VECTOR_QUERY_PARALLELISM) {
    const group = libraries.slice(start, start + VECTOR_QUERY_PARALLELISM);
    const matches = await Promise.all(
      group.map(async (library) => {
        const embedded = await embedderOf(library, deps.embedders)!
          .embed([query], { libraryId: library.id, kind: 'query' })
          .catch((error: unknown) => {
            deps.logger?.warn({ err: error, libraryId: library.id }, 'question not embedded; searching by keyword');
            return null;
          });
        if (!embedded) return [];
        ran = true;
        const steered = await steerTowards(deps.vectors, library.id, embedded[0]!, feedback);
        return deps.vectors.query(library.id, steered, limit);
      }),
    );
    matches.forEach((list, i) =>
      list.forEach((m) => hits.push({ libraryId: group[i]!.id, chunkId: m.chunkId, score: m.score })),
    );
  }
  // Scores of one model are comparable across libraries; ties keep library order.
  return { hits: hits.sort((a, b) => b.score - a.score).slice(0, limit), ran };
}

/** Rocchio feedback: the question's vector plus FEEDBACK_WEIGHT times the mean vector of the library's best keyword hits. */
async function steerTowards(
  vectors: VectorIndex,
  libraryId: string,
  vector: number[],
  feedback: ChunkHit[],
): Promise<number[]> {
  const ids = feedback
    .filter((hit) => hit.libraryId === libraryId)
    .slice(0, FEEDBACK_CHUNKS)
    .map((hit) => hit.chunkId);
  if (ids.length === 0) return vector;
  const found = [...(await vectors.fetch(libraryId, ids)).values()];
  if (found.length === 0) return vector;
  const steered = [...vector];
  for (const v of found) {
    const length = lengthOf(v);
    if (length === 0) continue;
    const scale = FEEDBACK_WEIGHT / found.length / length;
    for (let d = 0; d < steered.length; d++) steered[d]! += scale * v[d]!;
  }
  const norm = lengthOf(steered);
  return norm === 0 ? vector : steered.map((value) => value / norm);
}

/** Euclidean length; Math.hypot(...v) spreads the vector into arguments, which is slow for hundreds of values. */
function lengthOf(vector: number[]): number {
  let squares = 0;
  for (const value of vector) squares += value * value;
  return Math.sqrt(squares);
}

/**
 * Reciprocal rank fusion of pages rather than chunks: in each ranking a page takes the rank of its first chunk among
 * the pages (so one page's many chunks do not push others down), pages are ordered by their fused score, and each
 * page's chunks follow the chunk-level fusion. Each page's best chunk comes first, then the others.
 */
async function fusePages(
  store: RetrievalDeps['libraries'],
  rankings: Ranking[],
  limit: number,
): Promise<RankedChunk[]> {
  const byChunk = fuseRankings(rankings);
  const pageOf = await pagesOf(
    store,
    rankings.map((ranking) => ranking.hits),
    byChunk,
  );
  const pageScores = new Map<string, number>();
  for (const { hits, weight } of rankings) {
    const seen = new Set<string>();
    for (const hit of hits) {
      const page = pageOf.get(hitKey(hit));
      if (page === undefined || seen.has(page)) continue;
      seen.add(page);
      pageScores.set(page, (pageScores.get(page) ?? 0) + weight / (RRF_K + seen.size));
    }
  }
  const firsts = new Map<string, ChunkHit>();
  const rest: ChunkHit[] = [];
  for (const hit of byChunk) {
    const page = pageOf.get(hitKey(hit));
    if (page === undefined) continue;
    if (firsts.has(page)) rest.push(hit);
    else firsts.set(page, { ...hit, score: pageScores.get(page) ?? 0 });
  }
  const ordered = [...firsts.values()].sort((a, b) => b.score - a.score);
  const floor = ordered.at(-1)?.score ?? 0;
  // Only the chunks that may be returned are read with their text.
  return hydrate(store, [...ordered, ...rest.map((hit) => ({ ...hit, score: Math.min(hit.score, floor) }))], limit);
}

/** Each page's best hit in rank order, then the others in rank order; hits without a page (chunk gone) are dropped. */
function onePerPageFirst(hits: ChunkHit[], pageOf: Map<string, string>): ChunkHit[] {
  const seen = new Set<string>();
  const firsts: ChunkHit[] = [];
  const rest: ChunkHit[] = [];
  for (const hit of hits) {
    const page = pageOf.get(hitKey(hit));
    if (page === undefined) continue;
    (seen.has(page) ? rest : firsts).push(hit);
    seen.add(page);
  }
  return [...firsts, ...rest];
}

const hitKey = (hit: { libraryId: string; chunkId: string }) => `${hit.libraryId}\u0000${hit.chunkId}`;

/** A chunk's page: its library and URL; a chunk without a URL is a page of its own. */
const pageKey = (libraryId: string, url: string | null | undefined, chunkId: string) =>
  `${libraryId}\u0000${url ?? `#${chunkId}`}`;

/**
 * The page of each hit. Keyword hits carry their chunk's URL; the others are read from the record store, and a hit
 * whose chunk is gone has no page.
 */
async function pagesOf(
  store: RetrievalDeps['libraries'],
  rankings: ChunkHit[][],
  hits: ChunkHit[],
): Promise<Map<string, string>> {
  const pages = new Map<string, string>();
  for (const ranking of rankings) {
    for (const hit of ranking)
      if (hit.url !== undefined) pages.set(hitKey(hit), pageKey(hit.libraryId, hit.url, hit.chunkId));
  }
  const found = await readChunks(
    store,
    hits.filter((hit) => !pages.has(hitKey(hit))),
  );
  for (const [key, chunk] of found) pages.set(key, pageKey(chunk.libraryId, chunk.url, chunk.id));
  return pages;
}

/** Reads the ranked chunks' text; a hit whose chunk is gone (deleted or replaced since it was indexed) is dropped. */
async function hydrate(store: RetrievalDeps['libraries'], hits: ChunkHit[], limit: number): Promise<RankedChunk[]> {
  // A few extra hits cover the ones that turn out stale.
  const wanted = hits.slice(0, limit + Math.min(limit, 10));
  const found = await readChunks(store, wanted);
  const chunks: RankedChunk[] = [];
  for (const hit of wanted) {
    const chunk = found.get(hitKey(hit));
    if (chunk) chunks.push({ ...chunk, score: hit.score });
    if (chunks.length === limit) break;
  }
  return chunks;
}

/** The hits' chunks as stored, by hit key; chunks that are gone are absent. */
async function readChunks(
  store: RetrievalDeps['libraries'],
  hits: ChunkHit[],
): Promise<Map<string, StoredChunk & { libraryId: string }>> {
  const byLibrary = new Map<string, string[]>();
  for (const hit of hits) byLibrary.set(hit.libraryId, [...(byLibrary.get(hit.libraryId) ?? []), hit.chunkId]);
  const found = new Map<string, StoredChunk & { libraryId: string }>();
  await Promise.all(
    [...byLibrary].map(async ([libraryId, ids]) => {
      for (const chunk of await store.getChunks(libraryId, ids))
        found.set(hitKey({ libraryId, chunkId: chunk.id }), { ...chunk, libraryId });
    }),
  );
  return found;
}
