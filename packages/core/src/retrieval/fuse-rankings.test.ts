import { fuseRankings } from './fuse-rankings';

const hits = (...ids: string[]) => ids.map((chunkId, i) => ({ libraryId: 'lib', chunkId, score: 100 - i }));

describe('fuseRankings (reciprocal rank fusion)', () => {
  it('puts a chunk that both rankings like above one that only one ranks first', () => {
    const fused = fuseRankings([
      { hits: hits('a', 'b', 'c'), weight: 1 },
      { hits: hits('d', 'b', 'a'), weight: 1 },
    ]);
    expect(fused.map((h) => h.chunkId)).toEqual(['a', 'b', 'd', 'c']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 63);
  });

  it('keeps the order of a single ranking and follows weights', () => {
    expect(fuseRankings([{ hits: hits('x', 'y', 'z'), weight: 1 }]).map((h) => h.chunkId)).toEqual(['x', 'y', 'z']);
    const weighted = fuseRankings([
      { hits: hits('a'), weight: 1 },
      { hits: hits('b'), weight: 2 },
    ]);
    expect(weighted.map((h) => h.chunkId)).toEqual(['b', 'a']);
  });

  it('tells equal chunk ids of different libraries apart', () => {
    const fused = fuseRankings([
      {
        hits: [
          { libraryId: 'one', chunkId: 'c', score: 1 },
          { libraryId: 'two', chunkId: 'c', score: 1 },
        ],
        weight: 1,
      },
    ]);
    expect(fused).toHaveLength(2);
  });
});
