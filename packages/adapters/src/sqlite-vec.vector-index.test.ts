import path from 'node:path';
import { describeVectorIndexContract } from '@docshelf/testing/contracts/vector-index.contract';
import { SqliteVecVectorIndex, type SqliteVecVectorIndexOptions } from './sqlite-vec.vector-index';
import { openSqliteDatabase } from './sqlite.database';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';

announceContractTarget(
  'VectorIndex',
  'sqlite-vec',
  'real SQLite file with sqlite-vec in a temp dir, queries in SQL and in memory',
);
const onFile = (options: SqliteVecVectorIndexOptions) => async () => {
  const { dir, removeDir } = createTempDir();
  const index = new SqliteVecVectorIndex(openSqliteDatabase(path.join(dir, 'docshelf.db')), 8, {
    ownsDatabase: true,
    ...options,
  });
  return {
    index,
    cleanup: async () => {
      await index.close();
      removeDir();
    },
  };
};
describeVectorIndexContract('SqliteVecVectorIndex, every query in SQL', onFile({ cacheBytes: 0 }));
// Each query loads the library into memory as soon as it finds it unchanged, so the contract runs on that path.
describeVectorIndexContract('SqliteVecVectorIndex, libraries in memory', onFile({ loadAfterQueries: 1 }));

describe('SqliteVecVectorIndex on a file', () => {
  let dir: string;
  let removeDir: () => void;
  let file: string;

  beforeEach(() => {
    ({ dir, removeDir } = createTempDir());
    file = path.join(dir, 'docshelf.db');
  });

  afterEach(() => {
    removeDir();
  });

  it('keeps vectors across reopening', async () => {
    const index = new SqliteVecVectorIndex(openSqliteDatabase(file), 4, { ownsDatabase: true });
    await index.upsert('lib', [{ chunkId: 'a', values: [1, 0, 0, 0] }]);
    await index.close();
    const reopened = new SqliteVecVectorIndex(openSqliteDatabase(file), 4, { ownsDatabase: true });
    expect(await reopened.query('lib', [1, 0, 0, 0], 1)).toEqual([{ chunkId: 'a', score: expect.closeTo(1, 5) }]);
    await reopened.close();
  });

  it('refuses to reopen with other dimensions', async () => {
    await new SqliteVecVectorIndex(openSqliteDatabase(file), 256, { ownsDatabase: true }).close();
    const db = openSqliteDatabase(file);
    expect(() => new SqliteVecVectorIndex(db, 384)).toThrow(
      'vector index was created with 256 dimensions, embedder produces 384',
    );
    db.close();
  });

  it('rejects all-zero vectors, whose cosine distance is undefined', async () => {
    const index = new SqliteVecVectorIndex(openSqliteDatabase(file), 4, { ownsDatabase: true });
    await expect(index.upsert('lib', [{ chunkId: 'a', values: [0, 0, 0, 0] }])).rejects.toThrow(/all zeros/);
    await expect(index.query('lib', [0, 0, 0, 0], 3)).rejects.toThrow(/all zeros/);
    await index.close();
  });

  it('answers topK above the sqlite-vec limit and zero topK', async () => {
    const index = new SqliteVecVectorIndex(openSqliteDatabase(file), 4, { ownsDatabase: true });
    await index.upsert('lib', [{ chunkId: 'a', values: [1, 0, 0, 0] }]);
    expect(await index.query('lib', [1, 0, 0, 0], 10_000)).toHaveLength(1);
    expect(await index.query('lib', [1, 0, 0, 0], 0)).toEqual([]);
    await index.close();
  });

  it('ranks in memory exactly as sqlite-vec does, within float precision', async () => {
    const db = openSqliteDatabase(file);
    const inSql = new SqliteVecVectorIndex(db, 32, { cacheBytes: 0 });
    const inMemory = new SqliteVecVectorIndex(db, 32, { loadAfterQueries: 1 });
    const next = seeded(7);
    const vector = () => Array.from({ length: 32 }, () => next() * 2 - 1);
    await inSql.upsert(
      'lib',
      Array.from({ length: 1_200 }, (_, i) => ({ chunkId: `c${i}`, values: vector() })),
    );
    for (let q = 0; q < 20; q++) {
      const question = vector();
      const expected = await inSql.query('lib', question, 25);
      const got = await inMemory.query('lib', question, 25);
      expect(got.map((m) => m.chunkId)).toEqual(expected.map((m) => m.chunkId));
      got.forEach((m, i) => expect(m.score).toBeCloseTo(expected[i]!.score, 5));
    }
    db.close();
  });

  it("sees another process's writes on its next query once a library is in memory", async () => {
    // Two connections to one file, as the API and the worker have.
    const api = new SqliteVecVectorIndex(openSqliteDatabase(file), 4, { ownsDatabase: true, loadAfterQueries: 1 });
    const worker = new SqliteVecVectorIndex(openSqliteDatabase(file), 4, { ownsDatabase: true, cacheBytes: 0 });
    await worker.upsert('lib', [
      { chunkId: 'a', values: [1, 0, 0, 0] },
      { chunkId: 'b', values: [0, 1, 0, 0] },
    ]);
    expect((await api.query('lib', [0, 0.3, 1, 0], 1))[0]?.chunkId).toBe('b');
    await worker.upsert('lib', [{ chunkId: 'c', values: [0, 0, 1, 0] }]);
    expect((await api.query('lib', [0, 0.3, 1, 0], 1))[0]?.chunkId).toBe('c');
    expect([...(await api.fetch('lib', ['a', 'c'])).keys()].sort()).toEqual(['a', 'c']);
    await worker.deleteChunks('lib', ['c']);
    expect((await api.query('lib', [0, 0.3, 1, 0], 3)).map((m) => m.chunkId)).not.toContain('c');
    await worker.upsert('lib', [{ chunkId: 'a', values: [0, 0, 1, 0] }]);
    expect((await api.query('lib', [0, 0.3, 1, 0], 1))[0]?.chunkId).toBe('a');
    await worker.deleteLibrary('lib');
    expect(await api.query('lib', [0, 0.3, 1, 0], 3)).toEqual([]);
    await api.close();
    await worker.close();
  });

  it('answers a library larger than its memory budget from SQL', async () => {
    const index = new SqliteVecVectorIndex(openSqliteDatabase(file), 4, {
      ownsDatabase: true,
      cacheBytes: 100,
      loadAfterQueries: 1,
    });
    await index.upsert(
      'lib',
      Array.from({ length: 50 }, (_, i) => ({ chunkId: `c${i}`, values: [1, i, 0, 0] })),
    );
    for (let q = 0; q < 3; q++)
      expect((await index.query('lib', [1, 0, 0, 0], 2)).map((m) => m.chunkId)).toEqual(['c0', 'c1']);
    await index.close();
  });

  it('keeps a library searched lately in memory rather than loading another in its place', async () => {
    // Room for one library of 100 vectors, not two: searched in turns, they must not be loaded in turns.
    const options = { ownsDatabase: true, cacheBytes: 20_000, loadAfterQueries: 1, graphMinVectors: 0 };
    const index = new SqliteVecVectorIndex(openSqliteDatabase(file), 4, options);
    const vectors = (shift: number) =>
      Array.from({ length: 100 }, (_, i) => ({ chunkId: `c${i}`, values: [1, i + shift, 0, 0] }));
    await index.upsert('first', vectors(0));
    await index.upsert('second', vectors(1));
    expect(await index.warm('first')).toBe('matrix');
    expect(await index.warm('second')).toBe('sql');
    for (let q = 0; q < 3; q++) {
      expect((await index.query('first', [1, 0, 0, 0], 1))[0]!.chunkId).toBe('c0');
      expect((await index.query('second', [1, 1, 0, 0], 1))[0]!.chunkId).toBe('c0');
    }
    expect(await index.warm('first')).toBe('matrix');
    await index.close();

    // Once the first has not been searched for busyMs, it makes room.
    const idle = new SqliteVecVectorIndex(openSqliteDatabase(file), 4, { ...options, busyMs: 0 });
    expect(await idle.warm('first')).toBe('matrix');
    expect(await idle.warm('second')).toBe('matrix');
    await idle.close();

    // With graphs, the library that does not fit is searched through its graph, which costs only its ids.
    const graphs = new SqliteVecVectorIndex(openSqliteDatabase(file), 4, { ...options, graphMinVectors: 1_000 });
    expect(await graphs.warm('first')).toBe('matrix');
    expect(await graphs.warm('second')).toBe('graph');
    expect((await graphs.query('second', [1, 1, 0, 0], 1))[0]!.chunkId).toBe('c0');
    expect(await graphs.warm('first')).toBe('matrix');
    await graphs.close();
  });

  it('shares one Database with another index instance', async () => {
    const db = openSqliteDatabase(file);
    const first = new SqliteVecVectorIndex(db, 4);
    const second = new SqliteVecVectorIndex(db, 4);
    await first.upsert('lib', [{ chunkId: 'a', values: [0, 1, 0, 0] }]);
    expect(await second.count('lib')).toBe(1);
    await first.close();
    expect(db.open).toBe(true);
    db.close();
  });
});

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
