import path from 'node:path';
import type { ChunkInput } from '@docshelf/core';
import { SqliteLibrarySwap } from './sqlite.library-swap';
import { openSqliteDatabase } from './sqlite.database';
import { SqliteFtsKeywordIndex } from './sqlite-fts.keyword-index';
import { SqliteLibraryStore } from './sqlite.library-store';
import { SqliteVecVectorIndex } from './sqlite-vec.vector-index';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';

const STAGED = '~staged/6f1c1e9e-3b0a-4c55-9a51-1f4f3b1c2d3e';
const unit = (axis: number) => Array.from({ length: 4 }, (_, i) => (i === axis ? 1 : 0));

describe('SqliteLibrarySwap (records, keyword index, vectors and embedder states in one SQLite file)', () => {
  let removeDir: () => void;
  let db: ReturnType<typeof openSqliteDatabase>;
  let libraries: SqliteLibraryStore;
  let vectors: SqliteVecVectorIndex;
  let swap: SqliteLibrarySwap;

  beforeEach(async () => {
    const temp = createTempDir();
    removeDir = temp.removeDir;
    db = openSqliteDatabase(path.join(temp.dir, 'docshelf.sqlite'));
    libraries = new SqliteLibraryStore(db);
    vectors = new SqliteVecVectorIndex(db, 4);
    swap = new SqliteLibrarySwap(db, libraries, vectors);
    const commit = (id: string, chunks: ChunkInput[]) =>
      libraries.commitIngestion({
        library: { id, name: id, sourceType: 'html' },
        ownerId: 'o',
        chunks,
        replace: true,
        ingestionId: id,
        now: new Date(),
      });
    await commit('acme/docs', [{ id: 'old', content: 'the legacy gearbox' }]);
    await vectors.upsert('acme/docs', [{ chunkId: 'old', values: unit(0) }]);
    await commit(STAGED, [{ id: 'new', content: 'the electric motor' }]);
    await vectors.upsert(STAGED, [{ chunkId: 'new', values: unit(1) }]);
  });

  afterEach(() => {
    db.close();
    removeDir();
  });

  const searchable = async (word: string) =>
    (await new SqliteFtsKeywordIndex(db).search({ terms: [word], libraryIds: ['acme/docs'], limit: 5 })).map(
      (h) => h.chunkId,
    );

  it('swaps chunks, keyword index and vectors in together', async () => {
    expect(await swap.swapIn(STAGED, 'acme/docs', new Date())).toBe(true);
    expect((await libraries.listChunks('acme/docs', { offset: 0, limit: 5 })).map((c) => c.id)).toEqual(['new']);
    expect(await searchable('motor')).toEqual(['new']);
    expect(await searchable('gearbox')).toEqual([]);
    expect((await vectors.query('acme/docs', unit(1), 5)).map((m) => m.chunkId)).toEqual(['new']);
    expect(await vectors.count(STAGED)).toBe(0);
    expect(await swap.swapIn(STAGED, 'acme/docs', new Date())).toBe(false);
  });

  it('changes nothing when any part of the swap fails', async () => {
    vectors.moveLibraryNow = () => {
      throw new Error('disk full');
    };
    await expect(swap.swapIn(STAGED, 'acme/docs', new Date())).rejects.toThrow('disk full');
    expect((await libraries.listChunks('acme/docs', { offset: 0, limit: 5 })).map((c) => c.id)).toEqual(['old']);
    expect(await searchable('gearbox')).toEqual(['old']);
    expect((await vectors.query('acme/docs', unit(0), 5)).map((m) => m.chunkId)).toEqual(['old']);
    expect(await libraries.getLibrary(STAGED)).not.toBeNull();
  });

  it('discards a replacement that will not be swapped in', async () => {
    await swap.discard(STAGED);
    expect(await libraries.getLibrary(STAGED)).toBeNull();
    expect(await vectors.count(STAGED)).toBe(0);
    expect(await libraries.countChunks('acme/docs')).toBe(1);
  });
});
