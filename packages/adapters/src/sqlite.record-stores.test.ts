import path from 'node:path';
import { describeEmbedderStateStoreContract } from '@docshelf/testing/contracts/embedder-state-store.contract';
import { describeRecordStoresContract } from '@docshelf/testing/contracts/record-stores.contract';
import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { countTokens } from '@docshelf/core';
import { migrateSchema, openSqliteDatabase } from './sqlite.database';
import { registerSearchFunctions } from './sqlite-fts.functions';
import { SqliteRecordStores } from './sqlite.record-stores';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';

announceContractTarget('RecordStores', 'sqlite', 'real SQLite file (better-sqlite3) in a temp dir');
describeRecordStoresContract('SqliteRecordStores', async () => {
  const { dir, removeDir } = createTempDir();
  const store = new SqliteRecordStores(openSqliteDatabase(path.join(dir, 'docshelf.db')), { ownsDatabase: true });
  return {
    stores: store,
    cleanup: async () => {
      await store.close();
      removeDir();
    },
  };
});

describe('SqliteRecordStores on a shared file', () => {
  let dir: string;
  let removeDir: () => void;

  beforeEach(() => {
    ({ dir, removeDir } = createTempDir());
  });

  afterEach(() => {
    removeDir();
  });

  it('shows committed data to a second store on the same file, also after reopening', async () => {
    const file = path.join(dir, 'nested', 'docshelf.db');
    const writer = new SqliteRecordStores(openSqliteDatabase(file), { ownsDatabase: true });
    const reader = new SqliteRecordStores(openSqliteDatabase(file), { ownsDatabase: true });
    const library = await writer.libraries.commitIngestion({
      library: { id: 'vercel/next.js', name: 'Next.js', sourceType: 'github' },
      ownerId: 'owner-1',
      chunks: [{ id: 'a', content: 'alpha' }],
      replace: false,
      ingestionId: 'ing-1',
      now: new Date('2025-01-01T00:00:00.000Z'),
    });
    expect(await reader.libraries.getLibrary('vercel/next.js')).toEqual(library);
    await writer.close();
    await reader.close();

    const reopened = new SqliteRecordStores(openSqliteDatabase(file), { ownsDatabase: true });
    expect(await reopened.libraries.getLibrary('vercel/next.js')).toEqual(library);
    expect(
      (await reopened.libraries.listChunks('vercel/next.js', { offset: 0, limit: 10 })).map((c) => c.content),
    ).toEqual(['alpha']);
    await reopened.close();
  });

  it('leaves a shared Database open on close unless it owns it', async () => {
    const db = openSqliteDatabase(path.join(dir, 'docshelf.db'));
    await new SqliteRecordStores(db).close();
    expect(db.open).toBe(true);
    await new SqliteRecordStores(db, { ownsDatabase: true }).close();
    expect(db.open).toBe(false);
  });

  it('rolls the whole ingestion back when one chunk fails', async () => {
    const store = new SqliteRecordStores(openSqliteDatabase(path.join(dir, 'docshelf.db')), { ownsDatabase: true });
    const commit = store.libraries.commitIngestion({
      library: { id: 'lib', name: 'Lib', sourceType: 'upload' },
      ownerId: 'owner-1',
      // A null content violates NOT NULL, standing in for any failure midway.
      chunks: [
        { id: 'a', content: 'ok' },
        { id: 'b', content: null as unknown as string, tokenCount: 1 },
      ],
      replace: false,
      ingestionId: 'ing-1',
      now: new Date(),
    });
    // SqliteError comes from whichever jest sandbox loaded the native addon first, so match by message, not class.
    await expect(commit).rejects.toHaveProperty('message', expect.stringContaining('NOT NULL'));
    expect(await store.libraries.getLibrary('lib')).toBeNull();
    expect(await store.libraries.countChunks('lib')).toBe(0);
    await store.close();
  });

  it('numbers positions from 0 without gaps, also with repeated ids in one payload', async () => {
    const store = new SqliteRecordStores(openSqliteDatabase(path.join(dir, 'docshelf.db')), { ownsDatabase: true });
    const commit = (ids: string[], ingestionId: string) =>
      store.libraries.commitIngestion({
        library: { id: 'lib', name: 'Lib', sourceType: 'upload' },
        ownerId: 'owner-1',
        chunks: ids.map((id) => ({ id, content: id, tokenCount: 1 })),
        replace: false,
        ingestionId,
        now: new Date(),
      });
    await commit(['a', 'b', 'a'], 'ing-1');
    const ids = Array.from({ length: 450 }, (_, i) => `c${i}`);
    const library = await commit(['b', ...ids, 'c0'], 'ing-2');
    expect(library.chunkCount).toBe(452);
    const chunks = await store.libraries.listChunks('lib', { offset: 0, limit: 1000 });
    expect(chunks.map((c) => c.position)).toEqual(chunks.map((_, i) => i));
    expect(chunks.map((c) => c.id)).toEqual(['a', 'b', ...ids]);
    await store.close();
  });

  it('reads chunks written before token counts were stored without one, and counts them when they are written again', async () => {
    const file = path.join(dir, 'docshelf.db');
    // A file as the release before stored token counts left it.
    const old = new BetterSqlite3(file);
    sqliteVec.load(old);
    registerSearchFunctions(old);
    migrateSchema(old, 10);
    old
      .prepare(
        `INSERT INTO libraries (id, name, source_type, chunk_count, owner_id, created_at, updated_at)
                 VALUES ('acme/old', 'Old', 'llms_txt', 1, 'o', 't', 't')`,
      )
      .run();
    old
      .prepare(
        `INSERT INTO chunks (library_id, id, title, content, url, token_count, position, ingestion_id)
                 VALUES ('acme/old', 'a', 'Intro', 'an introduction to the legacy format', NULL, 5, 0, 'i')`,
      )
      .run();
    old.close();

    const store = new SqliteRecordStores(openSqliteDatabase(file), { ownsDatabase: true });
    const [before] = await store.libraries.getChunks('acme/old', ['a']);
    expect(before).toMatchObject({ id: 'a', content: 'an introduction to the legacy format', tokenCount: 5 });
    expect(before).not.toHaveProperty('bpeTokens');
    await store.libraries.commitIngestion({
      library: { id: 'acme/old', name: 'Old', sourceType: 'llms_txt' },
      ownerId: 'o',
      chunks: [{ id: 'a', content: 'the legacy format, rewritten' }],
      replace: false,
      ingestionId: 'i2',
      now: new Date(),
    });
    expect((await store.libraries.getChunks('acme/old', ['a']))[0]?.bpeTokens).toBe(
      countTokens('the legacy format, rewritten'),
    );
    await store.close();
  });

  it('reads chunks written before provenance was kept without it, and a re-crawl that finds their page unchanged fills it in', async () => {
    const file = path.join(dir, 'docshelf.db');
    // A file as the release before chunks kept their page's fetch time and hash left it.
    const old = new BetterSqlite3(file);
    sqliteVec.load(old);
    registerSearchFunctions(old);
    migrateSchema(old, 16);
    old
      .prepare(
        `INSERT INTO libraries (id, name, source_type, chunk_count, owner_id, created_at, updated_at)
                 VALUES ('acme/old', 'Old', 'crawl', 1, 'o', 't', 't')`,
      )
      .run();
    old
      .prepare(
        `INSERT INTO chunks (seq, library_id, id, title, content, url, token_count, position, ingestion_id)
         VALUES ((SELECT seq_base FROM libraries WHERE id = 'acme/old'), 'acme/old', 'a', 'Intro', 'the legacy text',
                 'https://old.test/', 5, 0, 'i')`,
      )
      .run();
    old.close();

    const store = new SqliteRecordStores(openSqliteDatabase(file), { ownsDatabase: true });
    const [before] = await store.libraries.getChunks('acme/old', ['a']);
    expect(before).toMatchObject({ id: 'a', content: 'the legacy text', url: 'https://old.test/' });
    expect(before).not.toHaveProperty('fetchedAt');
    expect(before).not.toHaveProperty('contentHash');
    await store.libraries.commitIngestion({
      library: { id: 'acme/old', name: 'Old', sourceType: 'crawl' },
      ownerId: 'o',
      chunks: [],
      replace: false,
      ingestionId: 'i2',
      now: new Date('2025-06-01T00:00:00.000Z'),
      confirmedPages: [{ chunkIds: ['a'], fetchedAt: '2025-06-01T00:00:00.000Z', contentHash: 'f00d' }],
    });
    expect((await store.libraries.getChunks('acme/old', ['a']))[0]).toEqual({
      ...before,
      fetchedAt: '2025-06-01T00:00:00.000Z',
      contentHash: 'f00d',
    });
    await store.close();
  });
});

announceContractTarget('EmbedderStateStore', 'sqlite', 'real SQLite file (better-sqlite3) in a temp dir');
describeEmbedderStateStoreContract('SqliteEmbedderStateStore', async () => {
  const { dir, removeDir } = createTempDir();
  const store = new SqliteRecordStores(openSqliteDatabase(path.join(dir, 'docshelf.db')), { ownsDatabase: true });
  return {
    states: store.embedderStates,
    libraries: store.libraries,
    cleanup: async () => {
      await store.close();
      removeDir();
    },
  };
});
