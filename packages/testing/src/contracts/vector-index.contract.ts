import type { VectorIndex } from '@docshelf/core';

export interface VectorIndexHarness {
  index: VectorIndex;
  cleanup(): Promise<void>;
}

/** Unit vector along `axis`, optionally tilted towards `towards` by `tilt`. */
function axisVector(dimensions: number, axis: number, towards?: number, tilt = 0): number[] {
  const values = new Array<number>(dimensions).fill(0);
  values[axis % dimensions] = 1;
  if (towards !== undefined) values[towards % dimensions] = tilt;
  return values;
}

/** Behaviour every VectorIndex adapter must show; `create` returns a fresh, empty index (at least 4 dimensions) per test. */
export function describeVectorIndexContract(label: string, create: () => Promise<VectorIndexHarness>): void {
  describe(`VectorIndex contract: ${label}`, () => {
    let harness: VectorIndexHarness;
    let index: VectorIndex;
    let vec: (axis: number, towards?: number, tilt?: number) => number[];

    beforeEach(async () => {
      harness = await create();
      index = harness.index;
      vec = (axis, towards, tilt) => axisVector(index.dimensions, axis, towards, tilt);
    });

    afterEach(async () => {
      await harness.cleanup();
    });

    it('reports a positive dimension count', () => {
      expect(Number.isInteger(index.dimensions)).toBe(true);
      expect(index.dimensions).toBeGreaterThanOrEqual(4);
    });

    it('returns nothing for an empty library', async () => {
      expect(await index.count('empty')).toBe(0);
      expect(await index.query('empty', vec(0), 5)).toEqual([]);
    });

    it('ranks the exact match first with a score of about 1, best first', async () => {
      await index.upsert('lib', [
        { chunkId: 'far', values: vec(2) },
        { chunkId: 'near', values: vec(0, 1, 0.5) },
        { chunkId: 'exact', values: vec(0) },
      ]);
      const matches = await index.query('lib', vec(0), 3);
      expect(matches.map((m) => m.chunkId)).toEqual(['exact', 'near', 'far']);
      expect(matches[0]?.score).toBeCloseTo(1, 4);
      expect(matches[1]?.score).toBeCloseTo(1 / Math.sqrt(1.25), 3);
      expect(matches[2]?.score).toBeCloseTo(0, 4);
    });

    it('limits results to topK and tolerates topK above the number of vectors', async () => {
      await index.upsert('lib', [
        { chunkId: 'a', values: vec(0) },
        { chunkId: 'b', values: vec(1) },
        { chunkId: 'c', values: vec(2) },
      ]);
      expect(await index.query('lib', vec(0), 2)).toHaveLength(2);
      expect(await index.query('lib', vec(0), 100)).toHaveLength(3);
    });

    it('overwrites a vector on upsert by chunk id', async () => {
      await index.upsert('lib', [
        { chunkId: 'a', values: vec(0) },
        { chunkId: 'b', values: vec(1) },
      ]);
      await index.upsert('lib', [{ chunkId: 'a', values: vec(1, 0, 0.1) }]);
      expect(await index.count('lib')).toBe(2);
      const matches = await index.query('lib', vec(0), 2);
      expect(matches[0]?.chunkId).toBe('a');
      expect(matches[0]?.score).toBeLessThan(0.5);
      expect((await index.query('lib', vec(1), 1))[0]?.chunkId).toBe('b');
    });

    it('fetches stored vectors by chunk id, leaving out unknown ids and other libraries', async () => {
      const long = `chunk-${'x'.repeat(600)}`;
      await index.upsert('lib', [
        { chunkId: 'a', values: vec(0, 1, 0.5) },
        { chunkId: 'ü/%20', values: vec(1) },
        { chunkId: long, values: vec(2) },
      ]);
      await index.upsert('other', [{ chunkId: 'b', values: vec(3) }]);
      const found = await index.fetch('lib', ['a', 'ü/%20', long, 'b', 'missing']);
      expect([...found.keys()].sort()).toEqual(['a', long, 'ü/%20'].sort());
      const a = found.get('a')!;
      expect(a).toHaveLength(index.dimensions);
      // Stored as given or normalised: the direction is what must survive.
      const expected = vec(0, 1, 0.5);
      const cosine = a.reduce((sum, v, i) => sum + v * expected[i]!, 0) / Math.hypot(...a) / Math.hypot(...expected);
      expect(cosine).toBeGreaterThan(0.999);
      expect((await index.fetch('lib', [])).size).toBe(0);
      expect((await index.fetch('nobody', ['a'])).size).toBe(0);
    });

    it("moves a library's vectors over another's, leaving the source empty", async () => {
      await index.upsert('target', [
        { chunkId: 'old', values: vec(0) },
        { chunkId: 'same', values: vec(1) },
      ]);
      await index.upsert('~staged/x', [
        { chunkId: 'same', values: vec(2) },
        { chunkId: 'new', values: vec(3) },
        { chunkId: 'stray', values: vec(0) },
      ]);
      await index.upsert('bystander', [{ chunkId: 'same', values: vec(1) }]);
      await index.moveLibrary('~staged/x', 'target', ['same', 'new']);
      expect(await index.count('target')).toBe(2);
      expect(await index.count('~staged/x')).toBe(0);
      expect((await index.query('target', vec(2), 1))[0]).toMatchObject({ chunkId: 'same' });
      expect((await index.query('target', vec(3), 1))[0]).toMatchObject({ chunkId: 'new' });
      expect([...(await index.fetch('target', ['old', 'stray'])).keys()]).toEqual([]);
      expect(await index.count('bystander')).toBe(1);
    });

    it('keeps libraries apart, also `vercel` and `vercel/next.js` with equal chunk ids', async () => {
      await index.upsert('vercel', [{ chunkId: 'a', values: vec(0) }]);
      await index.upsert('vercel/next.js', [
        { chunkId: 'a', values: vec(1) },
        { chunkId: 'b', values: vec(2) },
      ]);
      expect(await index.count('vercel')).toBe(1);
      expect(await index.count('vercel/next.js')).toBe(2);
      const matches = await index.query('vercel', vec(1), 10);
      expect(matches).toHaveLength(1);
      expect(matches[0]?.chunkId).toBe('a');
      expect(matches[0]?.score).toBeCloseTo(0, 4);
    });

    it('keeps a library and its versions apart (`@` and `+` in ids)', async () => {
      await index.upsert('demo/lib', [{ chunkId: 'a', values: vec(0) }]);
      await index.upsert('demo/lib@1.2.0+build.5', [
        { chunkId: 'a', values: vec(1) },
        { chunkId: 'b', values: vec(2) },
      ]);
      expect(await index.count('demo/lib@1.2.0+build.5')).toBe(2);
      expect((await index.query('demo/lib@1.2.0+build.5', vec(1), 1))[0]?.chunkId).toBe('a');
      expect([...(await index.fetch('demo/lib@1.2.0+build.5', ['b'])).keys()]).toEqual(['b']);
      await index.deleteLibrary('demo/lib@1.2.0+build.5');
      expect(await index.count('demo/lib@1.2.0+build.5')).toBe(0);
      expect(await index.count('demo/lib')).toBe(1);
    });

    it('deletes chosen chunks only, ignoring unknown ids', async () => {
      await index.upsert('lib', [
        { chunkId: 'a', values: vec(0) },
        { chunkId: 'b', values: vec(1) },
        { chunkId: 'c', values: vec(2) },
      ]);
      await index.upsert('other', [{ chunkId: 'a', values: vec(0) }]);
      await index.deleteChunks('lib', ['a', 'c', 'unknown']);
      expect(await index.count('lib')).toBe(1);
      expect((await index.query('lib', vec(0), 10)).map((m) => m.chunkId)).toEqual(['b']);
      expect(await index.count('other')).toBe(1);
      await index.deleteChunks('lib', []);
      expect(await index.count('lib')).toBe(1);
    });

    it('deletes a whole library and accepts new vectors for it afterwards', async () => {
      await index.upsert('lib', [
        { chunkId: 'a', values: vec(0) },
        { chunkId: 'b', values: vec(1) },
      ]);
      await index.upsert('other', [{ chunkId: 'a', values: vec(0) }]);
      await index.deleteLibrary('lib');
      expect(await index.count('lib')).toBe(0);
      expect(await index.query('lib', vec(0), 5)).toEqual([]);
      expect(await index.count('other')).toBe(1);
      await index.deleteLibrary('never-existed');
      await index.upsert('lib', [{ chunkId: 'a', values: vec(1) }]);
      expect((await index.query('lib', vec(1), 5))[0]?.score).toBeCloseTo(1, 4);
    });

    it('handles a batch of many vectors', async () => {
      const records = Array.from({ length: 300 }, (_, i) => ({
        chunkId: `c${i}`,
        values: vec(i % 4, (i % 4) + 1, i / 300),
      }));
      await index.upsert('lib', records);
      expect(await index.count('lib')).toBe(300);
      const matches = await index.query('lib', vec(3), 10);
      expect(matches).toHaveLength(10);
      for (let i = 1; i < matches.length; i++) {
        expect(matches[i]?.score).toBeLessThanOrEqual(matches[i - 1]?.score as number);
      }
    });

    it('rejects vectors of the wrong length or with non-finite values, writing nothing', async () => {
      const short = vec(0).slice(1);
      await expect(
        index.upsert('lib', [
          { chunkId: 'a', values: vec(0) },
          { chunkId: 'b', values: short },
        ]),
      ).rejects.toThrow();
      const withNaN = vec(0);
      withNaN[1] = Number.NaN;
      await expect(index.upsert('lib', [{ chunkId: 'c', values: withNaN }])).rejects.toThrow();
      expect(await index.count('lib')).toBe(0);
      await expect(index.query('lib', [...vec(0), 0], 5)).rejects.toThrow();
    });
  });
}
