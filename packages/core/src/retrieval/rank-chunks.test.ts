import type { ChunkHit, Library, StoredChunk } from '../domain/types';
import { AppError } from '../errors';
import type { Embedder, KeywordIndex, KeywordQuery, VectorIndex } from '../ports';
import { rankChunks, type RetrievalDeps } from './rank-chunks';

const library = (id: string, embeddingModel?: string): Library => ({
  id,
  name: id,
  sourceType: 'llms_txt',
  chunkCount: 3,
  ownerId: 'o',
  createdAt: 't',
  updatedAt: 't',
  ...(embeddingModel ? { embeddingModel, embeddingDimensions: 2 } : {}),
});
const stored = (id: string, position: number): StoredChunk => ({
  id,
  position,
  content: `text of ${id}`,
  tokenCount: 3,
});

/** Ports as plain objects: the keyword and vector rankings are fixed lists, so only the use case's logic is tested. */
function fakes(options: {
  libraries: Library[];
  keyword: ChunkHit[];
  vector: Record<string, { chunkId: string; score: number }[]>;
  chunks: Record<string, StoredChunk[]>;
}) {
  const keywordQueries: KeywordQuery[] = [];
  const embedded: string[] = [];
  const queried: number[][] = [];
  const deps: RetrievalDeps = {
    libraries: {
      getLibrary: async (id) => options.libraries.find((l) => l.id === id) ?? null,
      listLibraryVersions: async (baseId) => options.libraries.filter((l) => l.id.startsWith(`${baseId}@`)),
      listLibraries: async () => options.libraries,
      getChunks: async (libraryId, ids) => (options.chunks[libraryId] ?? []).filter((c) => ids.includes(c.id)),
      listChunks: async () => [],
    },
    keywords: { search: async (query) => (keywordQueries.push(query), options.keyword) } satisfies KeywordIndex,
    vectors: {
      query: async (libraryId: string, vector: number[]) => (queried.push(vector), options.vector[libraryId] ?? []),
      fetch: async (_libraryId: string, ids: string[]) =>
        new Map(ids.filter((id) => id === 'k1').map((id) => [id, [0, 1]])),
    } as unknown as VectorIndex,
    embedders: [
      {
        model: 'm',
        dimensions: 2,
        embed: async (texts: string[]) => (embedded.push(...texts), texts.map(() => [1, 0])),
      } satisfies Embedder,
    ],
  };
  return { deps, keywordQueries, embedded, queried };
}

describe('rankChunks', () => {
  it('fuses keyword and vector rankings where the library has vectors of this embedder', async () => {
    const { deps, keywordQueries, embedded, queried } = fakes({
      libraries: [library('a', 'm')],
      keyword: [
        { libraryId: 'a', chunkId: 'k1', score: 9 },
        { libraryId: 'a', chunkId: 'both', score: 5 },
      ],
      vector: {
        a: [
          { chunkId: 'both', score: 0.9 },
          { chunkId: 'v1', score: 0.8 },
        ],
      },
      chunks: { a: [stored('k1', 0), stored('both', 1), stored('v1', 2)] },
    });
    const outcome = await rankChunks(deps, { query: 'How do I rotate keys?', libraryIds: ['a'], limit: 10 });
    expect(outcome.mode).toBe('hybrid');
    expect(outcome.chunks.map((c) => c.id)).toEqual(['both', 'k1', 'v1']);
    expect(outcome.chunks[0]).toMatchObject({ libraryId: 'a', content: 'text of both' });
    expect(keywordQueries[0]).toEqual({ terms: ['rotate', 'keys'], libraryIds: ['a'], limit: 40 });
    expect(embedded).toEqual(['How do I rotate keys?']);
    // The question's vector [1, 0] moved half way towards the best keyword hit's vector [0, 1], unit length again.
    expect(queried[0]![0]).toBeCloseTo(2 / Math.sqrt(5));
    expect(queried[0]![1]).toBeCloseTo(1 / Math.sqrt(5));
    // Vector mode alone is not steered by keyword hits.
    await rankChunks(deps, { query: 'rotate', libraryIds: ['a'], limit: 10, mode: 'vector' });
    expect(queried[1]).toEqual([1, 0]);
  });

  it("fuses pages when results are grouped by page: one page's many chunks do not push another page down", async () => {
    const onPage = (id: string, position: number, url: string): StoredChunk => ({ ...stored(id, position), url });
    const { deps } = fakes({
      libraries: [library('a', 'm')],
      // Keyword: three chunks of page A, then page B's. Vector: page B first, then page A.
      keyword: ['a1', 'a2', 'a3', 'b1'].map((chunkId, i) => ({ libraryId: 'a', chunkId, score: 9 - i })),
      vector: {
        a: [
          { chunkId: 'b1', score: 0.9 },
          { chunkId: 'a1', score: 0.8 },
          { chunkId: 'c1', score: 0.7 },
        ],
      },
      chunks: {
        a: [
          onPage('a1', 0, 'https/A'),
          onPage('a2', 1, 'https/A'),
          onPage('a3', 2, 'https/A'),
          onPage('b1', 3, 'https/B'),
          onPage('c1', 4, 'https/C'),
        ],
      },
    });
    // Chunk-level fusion would put a1 (ranks 1 and 2) before b1 (ranks 4 and 1); by page, A and B are 1st and 2nd
    // in one ranking each and tie, and B's one chunk is not behind A's second and third.
    const grouped = await rankChunks(deps, { query: 'q', libraryIds: ['a'], limit: 10, onePerPageFirst: true });
    expect(grouped.chunks.slice(0, 3).map((c) => c.url)).toEqual(['https/A', 'https/B', 'https/C']);
    expect(grouped.chunks[0]!.score).toBe(grouped.chunks[1]!.score);
    expect(grouped.chunks.slice(3).map((c) => c.id)).toEqual(['a2', 'a3']);
    const scores = grouped.chunks.map((c) => c.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
  });

  it('searches by keyword alone when no library has vectors of this embedder, and drops hits whose chunk is gone', async () => {
    const { deps, embedded } = fakes({
      libraries: [library('a'), library('b', 'another-model')],
      keyword: [
        { libraryId: 'a', chunkId: 'gone', score: 9 },
        { libraryId: 'b', chunkId: 'b1', score: 5 },
      ],
      vector: {},
      chunks: { b: [stored('b1', 0)] },
    });
    const outcome = await rankChunks(deps, { query: 'anything', limit: 5 });
    expect(outcome.mode).toBe('keyword');
    expect(outcome.chunks.map((c) => [c.libraryId, c.id])).toEqual([['b', 'b1']]);
    expect(embedded).toEqual([]);
    await expect(rankChunks(deps, { query: 'anything', limit: 5, mode: 'vector' })).rejects.toMatchObject({
      code: 'NO_VECTORS',
      status: 400,
    });
  });

  it('answers 404 for a library that does not exist', async () => {
    const { deps } = fakes({ libraries: [], keyword: [], vector: {}, chunks: {} });
    const error = await rankChunks(deps, { query: 'x', libraryIds: ['nope'], limit: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'LIBRARY_NOT_FOUND', status: 404 });
  });
});
