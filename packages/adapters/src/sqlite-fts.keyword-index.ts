import type { ChunkHit, KeywordIndex, KeywordQuery } from '@docshelf/core';
import type { Database } from './sqlite.database';
import { libraryKey } from './sqlite-fts.functions';
import { statement } from './sqlite.statements';

/** BM25 weight of each FTS column: the library marker never scores, a title or heading match counts this much more. */
export const TITLE_WEIGHT = 2.5;
const BODY_WEIGHT = 1;

/** Keys of one library's chunks span this many values from its `seq_base` (see sqlite.database.ts). */
const KEY_RANGE = 2 ** 32;

/**
 * KeywordIndex on the FTS5 table `chunk_search` in the record store's SQLite file (Porter stemming, BM25 over title
 * and content). Triggers on `chunks` keep it in step with every chunk write, replace and delete (sqlite.database.ts).
 */
export class SqliteFtsKeywordIndex implements KeywordIndex {
  constructor(private readonly db: Database) {}

  async search(query: KeywordQuery): Promise<ChunkHit[]> {
    if (query.terms.length === 0 || query.limit < 1 || query.libraryIds?.length === 0) return [];
    const rows =
      query.libraryIds?.length === 1 ? this.searchOne(query, query.libraryIds[0]!) : this.searchMarked(query);
    const wanted = query.libraryIds ? new Set(query.libraryIds) : null;
    // FTS5's bm25() is lower for better matches; the port wants higher.
    return rows.filter((row) => !wanted || wanted.has(row.libraryId)).map((row) => ({ ...row, score: -row.score }));
  }

  /**
   * One library: its chunks' keys form one range, which FTS5 applies while it reads the index. In that range the
   * `lib` column holds only the library's own marker, left out of the terms, so no column filter is needed (a term
   * equal to another library's 15-19 digit marker would only count that library's chunks in its idf).
   */
  private searchOne(query: KeywordQuery, libraryId: string): ChunkHit[] {
    const library = statement(this.db, 'SELECT seq_base FROM libraries WHERE id = ?').get(libraryId) as
      { seq_base: number } | undefined;
    const marker = libraryKey(libraryId);
    const terms = query.terms.filter((term) => term !== marker);
    if (!library || terms.length === 0) return [];
    return statement(
      this.db,
      `${RANKED_SELECT} WHERE chunk_search MATCH ? AND rowid BETWEEN ? AND ? ORDER BY score LIMIT ?
       ) AS ranked JOIN chunks ON chunks.seq = ranked.rowid
       ORDER BY ranked.score, chunks.seq`,
    ).all(
      TITLE_WEIGHT,
      BODY_WEIGHT,
      terms.map(quote).join(' OR '),
      library.seq_base,
      library.seq_base + KEY_RANGE - 1,
      query.limit,
    ) as ChunkHit[];
  }

  /** Several libraries or all: the matches intersected with the libraries' marker tokens (see matchExpression). */
  private searchMarked(query: KeywordQuery): ChunkHit[] {
    return statement(
      this.db,
      `${RANKED_SELECT} WHERE chunk_search MATCH ? ORDER BY score LIMIT ?
       ) AS ranked JOIN chunks ON chunks.seq = ranked.rowid
       ORDER BY ranked.score, chunks.seq`,
    ).all(TITLE_WEIGHT, BODY_WEIGHT, matchExpression(query), query.limit) as ChunkHit[];
  }
}

const RANKED_SELECT = `SELECT chunks.library_id AS libraryId, chunks.id AS chunkId, chunks.url AS url, ranked.score AS score
  FROM (SELECT rowid, bm25(chunk_search, 0.0, ?, ?) AS score FROM chunk_search`;

/** Any term in title or body, within the given libraries; every term is quoted, so no query syntax gets through. */
export function matchExpression(query: Pick<KeywordQuery, 'terms' | 'libraryIds'>): string {
  const terms = `{title body} : (${query.terms.map(quote).join(' OR ')})`;
  if (!query.libraryIds) return terms;
  return `lib : (${query.libraryIds.map((id) => quote(libraryKey(id))).join(' OR ')}) AND ${terms}`;
}

const quote = (term: string) => `"${term.replace(/"/g, '""')}"`;
