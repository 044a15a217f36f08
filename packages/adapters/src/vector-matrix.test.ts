import { VectorMatrix } from './vector-matrix';

/** A deterministic pseudo-random source (mulberry32). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const blob = (values: number[]) => Buffer.from(Float32Array.from(values).buffer);
const cosine = (a: number[], b: number[]) => {
  const dot = a.reduce((sum, v, i) => sum + v * b[i]!, 0);
  return dot / Math.hypot(...a) / Math.hypot(...b);
};

describe('VectorMatrix', () => {
  it('finds the nearest vectors by cosine similarity, as a direct computation does, for any dimension count', () => {
    for (const dimensions of [8, 13, 256]) {
      const next = seeded(dimensions);
      const vector = () => Array.from({ length: dimensions }, () => next() * 2 - 1);
      const stored = Array.from({ length: 1_500 }, (_, i) => ({ chunkId: `c${i}`, values: vector() }));
      const matrix = VectorMatrix.fromRows(
        stored.map((s) => ({ chunkId: s.chunkId, embedding: blob(s.values) })),
        dimensions,
      );
      for (let q = 0; q < 10; q++) {
        const query = vector();
        const expected = stored
          .map((s) => ({ chunkId: s.chunkId, score: cosine(s.values, query) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, 20);
        const got = matrix.nearest(query, 20);
        expect(got.map((m) => m.chunkId)).toEqual(expected.map((m) => m.chunkId));
        got.forEach((m, i) => expect(m.score).toBeCloseTo(expected[i]!.score, 5));
      }
    }
  });

  it('orders equal scores by chunk id, answers topK above its size, and gives back unit vectors', () => {
    const rows = [
      { chunkId: 'b', embedding: blob([2, 0, 0, 0, 0, 0, 0, 0, 0]) },
      { chunkId: 'a', embedding: blob([1, 0, 0, 0, 0, 0, 0, 0, 0]) },
      { chunkId: 'c', embedding: blob([0, 3, 0, 0, 0, 0, 0, 0, 0]) },
    ];
    const matrix = VectorMatrix.fromRows(rows, 9);
    expect(matrix.nearest([5, 0, 0, 0, 0, 0, 0, 0, 0], 10)).toEqual([
      { chunkId: 'a', score: 1 },
      { chunkId: 'b', score: 1 },
      { chunkId: 'c', score: 0 },
    ]);
    expect(matrix.nearest([1, 0, 0, 0, 0, 0, 0, 0, 0], 0)).toEqual([]);
    expect(matrix.vectorsOf(['c', 'missing'])).toEqual(new Map([['c', [0, 1, 0, 0, 0, 0, 0, 0, 0]]]));
  });
});
