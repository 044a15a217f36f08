import path from 'node:path';
import { openSqliteDatabase } from './sqlite.database';
import { SqliteFtsKeywordIndex } from './sqlite-fts.keyword-index';
import { SqliteLibraryStore } from './sqlite.library-store';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';

describe('KeywordStatistics', () => {
  it("keeps no library's figures past a write to its chunks, by this process or another", async () => {
    const { dir, removeDir } = createTempDir();
    const file = path.join(dir, 'docshelf.sqlite');
    // The API's connection searches; the worker's writes.
    const api = openSqliteDatabase(file);
    const worker = openSqliteDatabase(file);
    try {
      const writer = new SqliteLibraryStore(worker);
      const commit = (id: string, chunks: { id: string; title?: string; content: string }[], replace = false) =>
        writer.commitIngestion({
          library: { id, name: id, sourceType: 'html' },
          ownerId: 'o',
          chunks,
          replace,
          ingestionId: `i-${chunks[0]!.id}`,
          now: new Date(),
        });
      await commit('acme/queue', [
        { id: 'retry', title: 'Retries', content: 'A failed job is retried three times before it is dead.' },
        { id: 'dead', title: 'Dead jobs', content: 'Dead jobs stay in the dead letter queue for a week.' },
        { id: 'ack', title: 'Acknowledging', content: 'A worker acknowledges a job once it is done.' },
      ]);
      const keywords = new SqliteFtsKeywordIndex(api);
      const search = (index = keywords) =>
        index.search({ terms: ['dead', 'job', 'retri'], libraryIds: ['acme/queue'], limit: 10 });
      const before = await search();
      expect(before.map((hit) => hit.chunkId).sort()).toEqual(['ack', 'dead', 'retry']);

      // Another library written: the first library's ranking is the same, with or without what was kept.
      await commit('other/mail', [{ id: 'bounce', content: 'A dead address bounces every job sent to it.' }]);
      expect(await search()).toEqual(before);

      // The library's own chunks written by the other connection: the next search ranks the new chunk, and scores every
      // chunk as a search that had kept nothing does.
      await commit('acme/queue', [
        { id: 'dead-2', title: 'Dead jobs again', content: 'Retry a dead job by hand: dead jobs are not retried.' },
      ]);
      const after = await search();
      expect(after.map((hit) => hit.chunkId)).toContain('dead-2');
      expect(after).toEqual(await search(new SqliteFtsKeywordIndex(api)));
      expect(after.find((hit) => hit.chunkId === 'dead')!.score).not.toBeCloseTo(
        before.find((hit) => hit.chunkId === 'dead')!.score,
        5,
      );

      // Replaced: the old chunks are gone from the ranking and the figures are the new chunks' alone.
      await commit('acme/queue', [{ id: 'only', content: 'Only one dead job here.' }], true);
      const replaced = await search();
      expect(replaced.map((hit) => hit.chunkId)).toEqual(['only']);
      expect(replaced).toEqual(await search(new SqliteFtsKeywordIndex(api)));
    } finally {
      api.close();
      worker.close();
      removeDir();
    }
  });
});
