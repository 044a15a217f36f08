import type { ChunkHit } from '../domain/types';

/** The usual RRF constant: it damps the gap between the first ranks so one list cannot dominate with its top hit. */
export const RRF_K = 60;

export interface Ranking {
  hits: ChunkHit[];
  /** How much this ranking counts in the fusion (1 = as much as any other). */
  weight: number;
}

const keyOf = (hit: ChunkHit) => `${hit.libraryId}\u0000${hit.chunkId}`;

/**
 * Reciprocal rank fusion: each ranking gives a chunk weight / (k + rank); the sums order the result. Ties keep the
 * order of the first ranking that has the chunk, so the fusion of one list is that list.
 */
export function fuseRankings(rankings: Ranking[], k = RRF_K): ChunkHit[] {
  const fused = new Map<string, { hit: ChunkHit; score: number; order: number }>();
  let order = 0;
  for (const { hits, weight } of rankings) {
    hits.forEach((hit, rank) => {
      const key = keyOf(hit);
      const entry = fused.get(key) ?? { hit, score: 0, order: order++ };
      entry.score += weight / (k + rank + 1);
      fused.set(key, entry);
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ hit, score }) => ({ libraryId: hit.libraryId, chunkId: hit.chunkId, score }));
}
