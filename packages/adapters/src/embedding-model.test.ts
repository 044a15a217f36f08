import path from 'node:path';
import { AppError, embedChunks, indexIngestion, type VectorIndex } from '@docshelf/core';
import { LocalEmbedder } from './local.embedder';
import { openSqliteDatabase } from './sqlite.database';
import { SqliteRecordStores } from './sqlite.record-stores';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';

/** A vector index that accepts anything: these tests are about the record of which model made the vectors. */
const anyVectors: VectorIndex = {
  dimensions: 0,
  upsert: async () => {},
  deleteChunks: async () => {},
  deleteLibrary: async () => {},
  count: async () => 0,
  query: async () => [],
  fetch: async () => new Map(),
  moveLibrary: async () => undefined,
  close: async () => {},
};

describe('a library remembers the embedding model of its vectors', () => {
  let removeDir: () => void;
  let records: SqliteRecordStores;

  beforeEach(async () => {
    const temp = createTempDir();
    removeDir = temp.removeDir;
    records = new SqliteRecordStores(openSqliteDatabase(path.join(temp.dir, 'docshelf.db')), { ownsDatabase: true });
    await records.libraries.commitIngestion({
      library: { id: 'lib', name: 'Lib', sourceType: 'upload' },
      ownerId: 'owner',
      chunks: [{ id: 'a', content: 'alpha' }],
      replace: false,
      ingestionId: 'ing-1',
      now: new Date(),
    });
  });

  afterEach(async () => {
    await records.close();
    removeDir();
  });

  it('is set by the first vectors and refuses another model with EMBEDDING_MISMATCH (409)', async () => {
    const chunks = await records.libraries.listChunks('lib', { offset: 0, limit: 10 });
    await embedChunks(
      { libraries: records.libraries, vectors: anyVectors, embedder: new LocalEmbedder(8) },
      'lib',
      chunks,
    );
    expect(await records.libraries.getLibrary('lib')).toMatchObject({
      embeddingModel: 'local-hash-v1',
      embeddingDimensions: 8,
    });
    const failure = await embedChunks(
      { libraries: records.libraries, vectors: anyVectors, embedder: new LocalEmbedder(16) },
      'lib',
      chunks,
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({
      code: 'EMBEDDING_MISMATCH',
      status: 409,
      retryable: false,
      message: expect.stringContaining('"replace": true'),
    });
  });

  it('is cleared by a replacing ingestion, which may then embed with the new model', async () => {
    const chunks = await records.libraries.listChunks('lib', { offset: 0, limit: 10 });
    await embedChunks(
      { libraries: records.libraries, vectors: anyVectors, embedder: new LocalEmbedder(8) },
      'lib',
      chunks,
    );
    const deps = { libraries: records.libraries, vectors: anyVectors, embedder: new LocalEmbedder(16) };
    await indexIngestion(deps, { libraryId: 'lib', ingestionId: 'ing-1', replace: true, generate: true });
    expect(await records.libraries.getLibrary('lib')).toMatchObject({
      embeddingModel: 'local-hash-v1',
      embeddingDimensions: 16,
    });
  });
});
