import type { ChunkHit, KeywordIndex, KeywordQuery } from '@docshelf/core';
import type { Database } from './sqlite.database';
import { libraryKey } from './sqlite-fts.functions';
import { PrunedKeywordSearch, type PrunedPlan, type PrunedScope, type RankedRow } from './sqlite-fts.pruned-search';
import { statement } from './sqlite.statements';

/** BM25 weight of each FTS column: the library marker never scores, a title or heading match counts this much more. */
export const TITLE_WEIGHT = 2.5;
const BODY_WEIGHT = 1;
const WEIGHTS: PrunedScope['weights'] = [0, TITLE_WEIGHT, BODY_WEIGHT];

/** Keys of one library's chunks span this many values from its `seq_base` (see sqlite.database.ts). */
const KEY_RANGE = 2 ** 32;

export interface SqliteFtsKeywordIndexOptions {
  /** Told how each search was answered (pruned or the full query), for benchmarks and tests. */
  onPlan?: (plan: PrunedPlan) => void;
  /** False runs every search as the full query, which scores every chunk holding any term (the pruning's reference). */
  pruning?: boolean;
}

/**
 * KeywordIndex on the FTS5 table `chunk_search` in the record store's SQLite file (Porter stemming, BM25 over title
 * and content). Triggers on `chunks` keep it in step with every chunk write, replace and delete (sqlite.database.ts).
 * Searches are pruned (sqlite-fts.pruned-search.ts): the same top results as scoring every matching chunk, at a cost
 * that follows the question's rare terms.
 */
export class SqliteFtsKeywordIndex implements KeywordIndex {
  private readonly pruned: PrunedKeywordSearch;

  constructor(
    private readonly db: Database,
    private readonly options: SqliteFtsKeywordIndexOptions = {},
  ) {
    this.pruned = new PrunedKeywordSearch(db);
  }

  async search(query: KeywordQuery): Promise<ChunkHit[]> {
    if (query.terms.length === 0 || query.limit < 1 || query.libraryIds?.length === 0) return [];
    const rows =
      query.libraryIds?.length === 1 ? this.searchOne(query, query.libraryIds[0]!) : this.searchMarked(query);
    const wanted = query.libraryIds ? new Set(query.libraryIds) : null;
    return this.hydrate(rows).filter((row) => !wanted || wanted.has(row.libraryId));
  }

  /**
   * One library: its chunks' keys form one range, which FTS5 applies while it reads the index. In that range the
   * `lib` column holds only the library's own marker, left out of the terms, so no column filter is needed (a term
   * equal to another library's 15-19 digit marker would only count that library's chunks in its idf).
   */
  private searchOne(query: KeywordQuery, libraryId: string): RankedRow[] {
    const library = statement(this.db, 'SELECT seq_base FROM libraries WHERE id = ?').get(libraryId) as
      { seq_base: number } | undefined;
    const marker = libraryKey(libraryId);
    const terms = query.terms.filter((term) => term !== marker).map(quote);
    if (!library || terms.length === 0) return [];
    const range: [number, number] = [library.seq_base, library.seq_base + KEY_RANGE - 1];
    const scope: PrunedScope = {
      anyOf: (phrases) => phrases.join(' OR '),
      bothOf: (essential, others) => `(${essential.join(' OR ')}) AND (${others.join(' OR ')})`,
      counted: (phrase) => phrase,
      range,
      weights: WEIGHTS,
    };
    return this.ranked(scope, terms, query.limit);
  }

  /**
   * Several libraries or all: the matches intersected with the libraries' marker tokens. Only a term of digits can
   * equal a marker, so only such a term is kept to the title and body columns: a column filter makes FTS5 read the
   * positions of every posting, about twice the cost of the plain term.
   */
  private searchMarked(query: KeywordQuery): RankedRow[] {
    const markers = query.libraryIds
      ? `lib : (${query.libraryIds.map((id) => quote(libraryKey(id))).join(' OR ')}) AND `
      : '';
    const inText = (phrases: string[]) => `(${phrases.map(inTextColumns).join(' OR ')})`;
    const scope: PrunedScope = {
      anyOf: (phrases) => `${markers}${inText(phrases)}`,
      bothOf: (essential, others) => `${markers}${inText(essential)} AND ${inText(others)}`,
      counted: inTextColumns,
      range: null,
      weights: WEIGHTS,
    };
    return this.ranked(scope, query.terms.map(quote), query.limit);
  }

  /** The pruned search where it can answer, else the full query: every chunk holding any term scored, the best kept. */
  private ranked(scope: PrunedScope, phrases: string[], limit: number): RankedRow[] {
    if (this.options.pruning !== false) {
      const rows = this.pruned.search(scope, phrases, limit, this.options.onPlan);
      if (rows) return rows;
    }
    const select = `SELECT rowid, -bm25(chunk_search, ?, ?, ?) AS score FROM chunk_search WHERE chunk_search MATCH ?`;
    const match = scope.anyOf(phrases);
    const rows = scope.range
      ? statement(this.db, `${select} AND rowid BETWEEN ? AND ? ORDER BY score DESC, rowid LIMIT ?`).all(
          ...scope.weights,
          match,
          ...scope.range,
          limit,
        )
      : statement(this.db, `${select} ORDER BY score DESC, rowid LIMIT ?`).all(...scope.weights, match, limit);
    return rows as RankedRow[];
  }

  /** The chunks of ranked keys, in rank order. */
  private hydrate(rows: RankedRow[]): ChunkHit[] {
    if (rows.length === 0) return [];
    const found = statement(
      this.db,
      `SELECT seq, library_id AS libraryId, id AS chunkId, url FROM chunks WHERE seq IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(rows.map((row) => row.rowid))) as (Omit<ChunkHit, 'score'> & { seq: number })[];
    const bySeq = new Map(found.map(({ seq, ...hit }) => [seq, hit]));
    return rows.flatMap((row) => {
      const hit = bySeq.get(row.rowid);
      return hit ? [{ ...hit, score: row.score }] : [];
    });
  }
}

const quote = (term: string) => `"${term.replace(/"/g, '""')}"`;

/** A quoted term as matched in the title and body only, when it could be a library marker (digits). */
const inTextColumns = (phrase: string) => (/^"\d+"$/.test(phrase) ? `({title body} : ${phrase})` : phrase);
