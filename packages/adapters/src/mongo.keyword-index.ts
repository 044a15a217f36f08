import type { PipelineStage, QueryFilter } from 'mongoose';
import type { ChunkHit, KeywordIndex, KeywordQuery } from '@docshelf/core';
import type { ChunkDoc } from './mongo.models';
import type { MongoRecordDatabase } from './mongo.record-database';

/** Atlas Search boost of a title match: 2.5× a body match, as in SQLite FTS and the text index's weights. */
export const ATLAS_TITLE_BOOST = 2.5;

export interface MongoKeywordIndexOptions {
  /** Name of an Atlas Search index on `chunks` (docs/production.md, MongoDB); the plain text index `chunk_text` when absent. */
  atlasSearchIndex?: string;
}

type ScoredChunk = Pick<ChunkDoc, 'libraryId' | 'id' | 'url'> & { score: number };

/**
 * KeywordIndex on the record store's `chunks` collection: the text index `chunk_text` by default (English stemming
 * and stop words, title weighted, scored by term frequency without IDF), or an Atlas Search index (Lucene BM25)
 * where one is configured. MongoDB keeps either in step with the store's writes; Atlas Search within seconds.
 */
export class MongoKeywordIndex implements KeywordIndex {
  constructor(
    private readonly database: MongoRecordDatabase,
    private readonly options: MongoKeywordIndexOptions = {},
  ) {}

  async search(query: KeywordQuery): Promise<ChunkHit[]> {
    const index = this.options.atlasSearchIndex;
    const rows = index ? await this.searchAtlas(query, index) : await this.searchText(query);
    return rows.map((row) => ({ libraryId: row.libraryId, chunkId: row.id, url: row.url ?? null, score: row.score }));
  }

  private async searchText(query: KeywordQuery): Promise<ScoredChunk[]> {
    const filter = textSearchFilter(query);
    if (!filter) return [];
    const chunks = await this.database.chunkModel();
    return chunks
      .find(filter, { _id: 0, libraryId: 1, id: 1, url: 1, score: { $meta: 'textScore' } })
      .sort({ score: { $meta: 'textScore' }, libraryId: 1, position: 1 })
      .limit(query.limit)
      .lean<ScoredChunk[]>();
  }

  private async searchAtlas(query: KeywordQuery, index: string): Promise<ScoredChunk[]> {
    const pipeline = atlasSearchPipeline(query, index);
    if (!pipeline) return [];
    const chunks = await this.database.chunkModel();
    return chunks.aggregate<ScoredChunk>(pipeline);
  }
}

/** A search with no words to look for, no library to look in or no room for a hit finds nothing. */
const findsNothing = (query: KeywordQuery, hasWords: boolean) =>
  !hasWords || query.limit < 1 || query.libraryIds?.length === 0;

/**
 * The `$search` string of a `$text` query: the terms as plain words, any of which may match. `"` opens a phrase and a
 * leading `-` negates a word there; the text index splits words at both anyway, so spaces in their place match the same.
 */
export function textSearchString(terms: string[]): string {
  return terms.join(' ').replace(/["-]/g, ' ').split(/\s+/).filter(Boolean).join(' ');
}

/** The `find` filter of a `$text` search, or null when it could match nothing. */
export function textSearchFilter(query: KeywordQuery): QueryFilter<ChunkDoc> | null {
  const words = textSearchString(query.terms);
  if (findsNothing(query, words.length > 0)) return null;
  return { $text: { $search: words }, ...(query.libraryIds ? { libraryId: { $in: query.libraryIds } } : {}) };
}

/** An Atlas Search aggregation over `index`, best first, or null when it could match nothing. */
export function atlasSearchPipeline(query: KeywordQuery, index: string): PipelineStage[] | null {
  // The text operator analyses its query with the field's analyzer; it has no syntax of its own to escape.
  const terms = query.terms.filter((term) => term.trim().length > 0);
  if (findsNothing(query, terms.length > 0)) return null;
  return [
    {
      $search: {
        index,
        compound: {
          should: [
            {
              text: {
                query: terms,
                path: ['title', 'pageLead', 'headings'],
                score: { boost: { value: ATLAS_TITLE_BOOST } },
              },
            },
            { text: { query: terms, path: 'content' } },
          ],
          // Beside a filter, should clauses are optional unless at least one is required to match.
          minimumShouldMatch: 1,
          ...(query.libraryIds ? { filter: [{ in: { path: 'libraryId', value: query.libraryIds } }] } : {}),
        },
      },
    },
    { $limit: query.limit },
    { $project: { _id: 0, libraryId: 1, id: 1, url: 1, score: { $meta: 'searchScore' } } },
  ];
}
