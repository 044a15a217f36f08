import type { KeywordQuery } from '@docshelf/core';
import { describeKeywordIndexContract } from '@docshelf/testing/contracts/keyword-index.contract';
import {
  ATLAS_TITLE_BOOST,
  MongoKeywordIndex,
  atlasSearchPipeline,
  textSearchFilter,
  textSearchString,
} from './mongo.keyword-index';
import type { MongoRecordDatabase } from './mongo.record-database';
import { MongoRecordStores } from './mongo.record-stores';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';
import { mongoTarget } from '@docshelf/testing/targets/mongo-target';

const mongo = mongoTarget();
afterAll(async () => mongo.stop());

if (mongo.description) {
  announceContractTarget('KeywordIndex', 'mongo text index (mongoose)', mongo.description);
  describeKeywordIndexContract(
    'MongoKeywordIndex',
    async () => {
      // A database per test: a fresh, empty store without touching anyone else's data.
      const db = await mongo.freshDatabase();
      const records = new MongoRecordStores({ uri: db.uri, dbName: db.dbName });
      return {
        libraries: records.libraries,
        keywords: new MongoKeywordIndex(records.database),
        cleanup: async () => {
          await db.drop();
          await records.close();
        },
      };
    },
    {
      bm25: false,
      reason: "MongoDB's textScore weighs term frequency and field weights but not how rare a term is (no IDF)",
    },
  );
} else {
  const reason = mongo.skipReason;
  announceContractTarget('KeywordIndex', 'mongo text index (mongoose)', reason);
  describe.skip(`KeywordIndex contract: mongo — ${reason}`, () => {
    it('runs against a real MongoDB replica set', () => {});
  });
}

describe('MongoKeywordIndex queries', () => {
  it('searches any of the terms as plain words: no phrase, no negation', () => {
    expect(textSearchString(['widget', 'gizmo'])).toBe('widget gizmo');
    expect(textSearchString(['"exact phrase"', '-excluded', 'topic"', '--twice', 'pre-market', '"', '-', ' '])).toBe(
      'exact phrase excluded topic twice pre market',
    );
    expect(textSearchString(['{a b}', '$where', 'title:'])).toBe('{a b} $where title:');
  });

  it('builds a $text filter, within the libraries asked for', () => {
    expect(textSearchFilter({ terms: ['widget', '-gizmo'], libraryIds: null, limit: 5 })).toEqual({
      $text: { $search: 'widget gizmo' },
    });
    expect(textSearchFilter({ terms: ['widget'], libraryIds: ['acme/a', 'acme/b'], limit: 5 })).toEqual({
      $text: { $search: 'widget' },
      libraryId: { $in: ['acme/a', 'acme/b'] },
    });
  });

  it('builds an Atlas Search pipeline: title boosted, any term, libraries filtered, best first with the search score', () => {
    const should = (terms: string[]) => [
      {
        text: { query: terms, path: ['title', 'pageLead', 'headings'], score: { boost: { value: ATLAS_TITLE_BOOST } } },
      },
      { text: { query: terms, path: 'content' } },
    ];
    expect(atlasSearchPipeline({ terms: ['read', 'file'], libraryIds: ['node/fs'], limit: 7 }, 'chunk_search')).toEqual(
      [
        {
          $search: {
            index: 'chunk_search',
            compound: {
              should: should(['read', 'file']),
              minimumShouldMatch: 1,
              filter: [{ in: { path: 'libraryId', value: ['node/fs'] } }],
            },
          },
        },
        { $limit: 7 },
        { $project: { _id: 0, libraryId: 1, id: 1, url: 1, score: { $meta: 'searchScore' } } },
      ],
    );
    expect(atlasSearchPipeline({ terms: ['read', ' '], libraryIds: null, limit: 3 }, 'chunk_search')?.[0]).toEqual({
      $search: { index: 'chunk_search', compound: { should: should(['read']), minimumShouldMatch: 1 } },
    });
  });

  it('sends one query per search, best textScore first, and maps its rows to hits with their url', async () => {
    const rows = [
      { libraryId: 'acme/docs', id: 'a', url: 'https://docs.example.com/a', score: 2 },
      { libraryId: 'acme/docs', id: 'b', score: 1 },
    ];
    const calls: unknown[][] = [];
    const cursor = {
      sort: (...args: unknown[]) => (calls.push(['sort', ...args]), cursor),
      limit: (...args: unknown[]) => (calls.push(['limit', ...args]), cursor),
      lean: async () => rows,
    };
    const chunks = {
      find: (...args: unknown[]) => (calls.push(['find', ...args]), cursor),
      aggregate: async (...args: unknown[]) => (calls.push(['aggregate', ...args]), rows),
    };
    const store = { chunkModel: async () => chunks } as unknown as MongoRecordDatabase;
    const hits = [
      { libraryId: 'acme/docs', chunkId: 'a', url: 'https://docs.example.com/a', score: 2 },
      { libraryId: 'acme/docs', chunkId: 'b', url: null, score: 1 },
    ];
    const query: KeywordQuery = { terms: ['widget'], libraryIds: ['acme/docs'], limit: 2 };

    await expect(new MongoKeywordIndex(store).search(query)).resolves.toEqual(hits);
    expect(calls).toEqual([
      ['find', textSearchFilter(query), { _id: 0, libraryId: 1, id: 1, url: 1, score: { $meta: 'textScore' } }],
      ['sort', { score: { $meta: 'textScore' }, libraryId: 1, position: 1 }],
      ['limit', 2],
    ]);
    calls.length = 0;
    await expect(new MongoKeywordIndex(store, { atlasSearchIndex: 'chunk_search' }).search(query)).resolves.toEqual(
      hits,
    );
    expect(calls).toEqual([['aggregate', atlasSearchPipeline(query, 'chunk_search')]]);
  });

  it('asks nothing of the server when nothing can match', async () => {
    const nothingToFind: KeywordQuery[] = [
      { terms: [], libraryIds: null, limit: 5 },
      { terms: ['widget'], libraryIds: [], limit: 5 },
      { terms: ['widget'], libraryIds: null, limit: 0 },
    ];
    const onlySyntax: KeywordQuery = { terms: ['"', '-', ' '], libraryIds: null, limit: 5 };
    for (const query of nothingToFind) {
      expect(textSearchFilter(query)).toBeNull();
      expect(atlasSearchPipeline(query, 'chunk_search')).toBeNull();
    }
    expect(textSearchFilter(onlySyntax)).toBeNull();

    const store = {
      chunkModel: () => Promise.reject(new Error('no query was expected')),
    } as unknown as MongoRecordDatabase;
    const text = new MongoKeywordIndex(store);
    const atlas = new MongoKeywordIndex(store, { atlasSearchIndex: 'chunk_search' });
    for (const query of [...nothingToFind, onlySyntax]) await expect(text.search(query)).resolves.toEqual([]);
    for (const query of nothingToFind) await expect(atlas.search(query)).resolves.toEqual([]);
  });
});
