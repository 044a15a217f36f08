import path from 'node:path';
import { describeVectorIndexContract } from './contracts/vector-index.contract';
import { SqliteVecVectorIndex } from './sqlite-vec.vector-index';
import { openSqliteDatabase } from './sqlite.database';
import { createTempDir } from './testing/temp-dir';
import { announceContractTarget } from './testing/announce-target';

announceContractTarget('VectorIndex', 'sqlite-vec', 'real SQLite file with sqlite-vec in a temp dir');
describeVectorIndexContract('SqliteVecVectorIndex', async () => {
  const { dir, removeDir } = createTempDir();
  const index = new SqliteVecVectorIndex(openSqliteDatabase(path.join(dir, 'docshelf.db')), 8, { ownsDatabase: true });
  return {
    index,
    cleanup: async () => {
      await index.close();
      removeDir();
    },
  };
});

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
    expect(() => new SqliteVecVectorIndex(db, 384)).toThrow('vector index was created with 256 dimensions, embedder produces 384');
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
