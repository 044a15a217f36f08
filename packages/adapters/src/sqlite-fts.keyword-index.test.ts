import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { describeKeywordIndexContract } from '@docshelf/testing/contracts/keyword-index.contract';
import { migrateSchema, openSqliteDatabase } from './sqlite.database';
import { libraryKey, registerSearchFunctions } from './sqlite-fts.functions';
import { SqliteFtsKeywordIndex } from './sqlite-fts.keyword-index';
import { SqliteLibraryStore } from './sqlite.library-store';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';

announceContractTarget('KeywordIndex', 'sqlite-fts', 'FTS5 table in a real SQLite file (better-sqlite3) in a temp dir');
describeKeywordIndexContract('SqliteFtsKeywordIndex', async () => {
  const { dir, removeDir } = createTempDir();
  const db = openSqliteDatabase(path.join(dir, 'docshelf.sqlite'));
  return {
    libraries: new SqliteLibraryStore(db),
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
      old
        .prepare(
          `INSERT INTO libraries (id, name, source_type, chunk_count, owner_id, created_at, updated_at)
                   VALUES ('acme/old', 'Old', 'llms_txt', 2, 'o', 't', 't')`,
        )
        .run();
      const insert =
        old.prepare(`INSERT INTO chunks (library_id, id, title, content, url, token_count, position, ingestion_id)
                                  VALUES ('acme/old', ?, ?, ?, NULL, 5, ?, 'i')`);
      insert.run('second', 'Later', 'the legacy parser handles quoting', 1);
      insert.run('first', 'Intro', 'an introduction to the legacy format', 0);
      old.close();

      const db = openSqliteDatabase(file);
      const libraries = new SqliteLibraryStore(db);
      const hits = await new SqliteFtsKeywordIndex(db).search({
        terms: ['legacy'],
        libraryIds: ['acme/old'],
        limit: 10,
      });
      expect(hits.map((h) => h.chunkId).sort()).toEqual(['first', 'second']);
      expect((await libraries.listChunks('acme/old', { offset: 0, limit: 10 })).map((c) => c.id)).toEqual([
        'first',
        'second',
      ]);
      db.close();
    } finally {
      removeDir();
    }
  });

  it('re-keys chunks of files written before libraries had key ranges, and searches each library alone', async () => {
    const { dir, removeDir } = createTempDir();
    const file = path.join(dir, 'docshelf.sqlite');
    try {
      // A file as the release before key ranges left it: two libraries whose chunks were written in turns.
      const old = new BetterSqlite3(file);
      sqliteVec.load(old);
      registerSearchFunctions(old);
      migrateSchema(old, 11);
      const library =
        old.prepare(`INSERT INTO libraries (id, name, source_type, chunk_count, owner_id, created_at, updated_at)
                                   VALUES (?, ?, 'llms_txt', 2, 'o', 't', 't')`);
      library.run('acme/a', 'A');
      library.run('acme/b', 'B');
      const insert =
        old.prepare(`INSERT INTO chunks (library_id, id, title, content, url, token_count, position, ingestion_id)
                                  VALUES (?, ?, NULL, ?, NULL, 5, ?, 'i')`);
      insert.run('acme/a', 'a0', 'gearbox manual for library a', 0);
      insert.run('acme/b', 'b0', 'gearbox manual for library b', 0);
      insert.run('acme/a', 'a1', 'a second gearbox page', 1);
      insert.run('acme/b', 'b1', 'a second gearbox page of b', 1);
      old.close();

      const db = openSqliteDatabase(file);
      const libraries = new SqliteLibraryStore(db);
      const keywords = new SqliteFtsKeywordIndex(db);
      const found = async (libraryIds: string[] | null) =>
        (await keywords.search({ terms: ['gearbox'], libraryIds, limit: 10 })).map((h) => h.chunkId).sort();
      expect(await found(['acme/a'])).toEqual(['a0', 'a1']);
      expect(await found(['acme/b'])).toEqual(['b0', 'b1']);
      await libraries.commitIngestion({
        library: { id: 'acme/a', name: 'A', sourceType: 'llms_txt' },
        ownerId: 'o',
        chunks: [
          { id: 'a2', content: 'a third gearbox page' },
          { id: 'a0', content: 'rewritten without the word' },
        ],
        replace: false,
        ingestionId: 'i2',
        now: new Date(),
      });
      await libraries.commitIngestion({
        library: { id: 'acme/c', name: 'C', sourceType: 'llms_txt' },
        ownerId: 'o',
        chunks: [{ id: 'c0', content: 'gearbox of a later library' }],
        replace: false,
        ingestionId: 'i3',
        now: new Date(),
      });
      expect(await found(['acme/a'])).toEqual(['a1', 'a2']);
      expect(await found(['acme/b'])).toEqual(['b0', 'b1']);
      expect(await found(['acme/c'])).toEqual(['c0']);
      expect(await found(null)).toEqual(['a1', 'a2', 'b0', 'b1', 'c0']);
      db.close();
    } finally {
      removeDir();
    }
  });

  it("ranks a library with its own statistics: another library's chunks, added or deleted, change no id or score", async () => {
    const { dir, removeDir } = createTempDir();
    const db = openSqliteDatabase(path.join(dir, 'docshelf.sqlite'));
    try {
      const libraries = new SqliteLibraryStore(db);
      const commit = (id: string, chunks: { id: string; title?: string; content: string }[]) =>
        libraries.commitIngestion({
          library: { id, name: id, sourceType: 'html' },
          ownerId: 'o',
          chunks,
          replace: false,
          ingestionId: 'i',
          now: new Date(),
        });
      await commit('acme/cache', [
        { id: 'off', title: 'Turning the cache off', content: 'Set cache to false to turn caching off for a client.' },
        { id: 'ttl', title: 'Expiry', content: 'Entries leave the cache when their time to live ends.' },
        { id: 'keys', title: 'Cache keys', content: 'A key names an entry; the client hashes each request.' },
        { id: 'client', title: 'Client', content: 'The client sends requests and keeps a cache of responses.' },
      ]);
      const keywords = new SqliteFtsKeywordIndex(db);
      const search = () =>
        keywords.search({ terms: ['turn', 'cache', 'off', 'client'], libraryIds: ['acme/cache'], limit: 10 });
      const alone = await search();
      expect(alone.map((hit) => hit.chunkId)).toEqual(['off', 'client', 'keys', 'ttl']);

      // Another library whose chunks say "client" everywhere and "cache" or "off" seldom.
      await commit(
        'other/http',
        Array.from({ length: 30 }, (_, i) => ({
          id: `h${i}`,
          content: `The HTTP client retries request ${i}${i % 10 === 0 ? '; its cache can be turned off' : ''}.`,
        })),
      );
      expect(await search()).toEqual(alone);
      // Searched together, two libraries are ranked as one with the whole table's statistics, a library not searched
      // included: only their chunks, best first, each scored as FTS5's bm25() scores it (not as in its library alone).
      await commit('third/unsearched', [{ id: 'u', content: 'A cache in front of every client.' }]);
      const both = await keywords.search({
        terms: ['turn', 'cache', 'off', 'client'],
        libraryIds: ['acme/cache', 'other/http'],
        limit: 50,
      });
      const table = db
        .prepare(
          `SELECT c.id, -bm25(chunk_search, 0, 2.5, 1) AS score FROM chunk_search JOIN chunks c ON c.seq = chunk_search.rowid
           WHERE chunk_search MATCH '"turn" OR "cache" OR "off" OR "client"' AND c.library_id IN ('acme/cache', 'other/http')`,
        )
        .all() as { id: string; score: number }[];
      expect(both.map((hit) => hit.chunkId).sort()).toEqual(table.map((row) => row.id).sort());
      expect(both.map((hit) => hit.score)).toEqual([...both.map((hit) => hit.score)].sort((a, b) => b - a));
      // "client", in most of the table's chunks, weighs 1e-6 in bm25() and is left out of pruned searches.
      for (const row of table) expect(both.find((hit) => hit.chunkId === row.id)!.score).toBeCloseTo(row.score, 5);
      expect(both.find((hit) => hit.chunkId === 'off')!.score).not.toBeCloseTo(alone[0]!.score, 5);
      expect(await search()).toEqual(alone);
      expect(await libraries.deleteLibrary('other/http')).toBe(true);
      expect(await search()).toEqual(alone);
    } finally {
      db.close();
      removeDir();
    }
  });

  it('finds camelCase identifiers by their words', async () => {
    const { dir, removeDir } = createTempDir();
    const db = openSqliteDatabase(path.join(dir, 'docshelf.sqlite'));
    try {
      await new SqliteLibraryStore(db).commitIngestion({
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
      expect(
        (await keywords.search({ terms: ['read', 'sync'], libraryIds: null, limit: 5 })).map((h) => h.chunkId),
      ).toEqual(['sync']);
      expect(
        (await keywords.search({ terms: ['readfilesync'], libraryIds: null, limit: 5 })).map((h) => h.chunkId),
      ).toEqual(['sync']);
    } finally {
      db.close();
      removeDir();
    }
  });

  it('matches numbers in the text only, never a library marker, in one library, several or all', async () => {
    const { dir, removeDir } = createTempDir();
    const db = openSqliteDatabase(path.join(dir, 'docshelf.sqlite'));
    try {
      const libraries = new SqliteLibraryStore(db);
      const marker = libraryKey('acme/b');
      for (const [library, chunks] of [
        ['acme/a', [{ id: 'a0', content: `error 404 and the number ${marker} quoted in text` }]],
        [
          'acme/b',
          [
            { id: 'b0', content: 'error 404 when a page is missing' },
            { id: 'b1', content: 'no numbers here' },
          ],
        ],
      ] as const) {
        await libraries.commitIngestion({
          library: { id: library, name: library, sourceType: 'html' },
          ownerId: 'o',
          chunks: [...chunks],
          replace: false,
          ingestionId: 'i',
          now: new Date(),
        });
      }
      const keywords = new SqliteFtsKeywordIndex(db);
      const found = async (terms: string[], libraryIds: string[] | null) =>
        (await keywords.search({ terms, libraryIds, limit: 10 })).map((h) => h.chunkId).sort();
      for (const scope of [null, ['acme/a', 'acme/b']]) {
        expect(await found([marker], scope)).toEqual(['a0']);
        expect(await found(['404'], scope)).toEqual(['a0', 'b0']);
        expect(await found([marker, 'missing'], scope)).toEqual(['a0', 'b0']);
      }
      expect(await found([marker], ['acme/b'])).toEqual([]);
      expect(await found(['404'], ['acme/b'])).toEqual(['b0']);
    } finally {
      db.close();
      removeDir();
    }
  });
});
