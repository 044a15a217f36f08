import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { describeKeywordIndexContract } from './contracts/keyword-index.contract';
import { migrateSchema, openSqliteDatabase } from './sqlite.database';
import { registerSearchFunctions } from './sqlite-fts.functions';
import { SqliteFtsKeywordIndex } from './sqlite-fts.keyword-index';
import { SqliteRecordStore } from './sqlite.record-store';
import { announceContractTarget } from './testing/announce-target';
import { createTempDir } from './testing/temp-dir';

announceContractTarget('KeywordIndex', 'sqlite-fts', 'FTS5 table in a real SQLite file (better-sqlite3) in a temp dir');
describeKeywordIndexContract('SqliteFtsKeywordIndex', async () => {
  const { dir, removeDir } = createTempDir();
  const db = openSqliteDatabase(path.join(dir, 'docshelf.sqlite'));
  return {
    records: new SqliteRecordStore(db),
    keywords: new SqliteFtsKeywordIndex(db),
    cleanup: async () => {
      db.close();
      removeDir();
    },
  };
});

describe('SqliteFtsKeywordIndex', () => {
  it('indexes chunks written before the search index existed, keeping their ids and order', async () => {
    const { dir, removeDir } = createTempDir();
    const file = path.join(dir, 'docshelf.sqlite');
    try {
      // A file as the release before keyword search left it: three migrations, chunks keyed by (library, id).
      const old = new BetterSqlite3(file);
      sqliteVec.load(old);
      registerSearchFunctions(old);
      migrateSchema(old, 3);
      old.prepare(`INSERT INTO libraries (id, name, source_type, chunk_count, owner_id, created_at, updated_at)
                   VALUES ('acme/old', 'Old', 'llms_txt', 2, 'o', 't', 't')`).run();
      const insert = old.prepare(`INSERT INTO chunks (library_id, id, title, content, url, token_count, position, ingestion_id)
                                  VALUES ('acme/old', ?, ?, ?, NULL, 5, ?, 'i')`);
      insert.run('second', 'Later', 'the legacy parser handles quoting', 1);
      insert.run('first', 'Intro', 'an introduction to the legacy format', 0);
      old.close();

      const db = openSqliteDatabase(file);
      const records = new SqliteRecordStore(db);
      const hits = await new SqliteFtsKeywordIndex(db).search({ terms: ['legacy'], libraryIds: ['acme/old'], limit: 10 });
      expect(hits.map((h) => h.chunkId).sort()).toEqual(['first', 'second']);
      expect((await records.listChunks('acme/old', { offset: 0, limit: 10 })).map((c) => c.id)).toEqual(['first', 'second']);
      db.close();
    } finally {
      removeDir();
    }
  });

  it('finds camelCase identifiers by their words', async () => {
    const { dir, removeDir } = createTempDir();
    const db = openSqliteDatabase(path.join(dir, 'docshelf.sqlite'));
    try {
      await new SqliteRecordStore(db).commitIngestion({
        library: { id: 'node/fs', name: 'fs', sourceType: 'html' },
        ownerId: 'o',
        chunks: [
          { id: 'sync', title: 'fs.readFileSync(path)', content: 'Returns the contents of the path.' },
          { id: 'other', title: 'fs.stat', content: 'Statistics about a file.' },
        ],
        replace: false,
        ingestionId: 'i',
        now: new Date(),
      });
      const keywords = new SqliteFtsKeywordIndex(db);
      expect((await keywords.search({ terms: ['read', 'sync'], libraryIds: null, limit: 5 })).map((h) => h.chunkId)).toEqual(['sync']);
      expect((await keywords.search({ terms: ['readfilesync'], libraryIds: null, limit: 5 })).map((h) => h.chunkId)).toEqual(['sync']);
    } finally {
      db.close();
      removeDir();
    }
  });
});
