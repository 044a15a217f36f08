import type { ChunkHit, KeywordIndex, KeywordQuery } from '@docshelf/core';
import type { Database } from './sqlite.database';
import { libraryKey } from './sqlite-fts.functions';
import { LibraryKeywordSearch, type KeywordBackground, type LibraryScope } from './sqlite-fts.library-search';
import type { PrunedPlan, RankedRow } from './sqlite-fts.pruned-search';
import { TableKeywordSearch, type TableScope } from './sqlite-fts.table-search';
import { KeywordStatistics } from './sqlite-fts.statistics';
import { GeneralTermsBackground } from './sqlite-fts.background';
import { statement } from './sqlite.statements';

/** BM25 weight of each FTS column: the library marker never scores, a title or heading match counts this much more. */
export const TITLE_WEIGHT = 2.5;
const BODY_WEIGHT = 1;
const WEIGHTS: LibraryScope['weights'] = [0, TITLE_WEIGHT, BODY_WEIGHT];

/** Keys of one library's chunks span this many values from its `seq_base` (see sqlite.database.ts). */
const KEY_RANGE = 2 ** 32;

export interface SqliteFtsKeywordIndexOptions {
  /** Told how each search was answered (pruned or every matching chunk scored), for benchmarks and tests. */
  onPlan?: (plan: PrunedPlan) => void;
  /** False scores every chunk holding any term (the pruning's reference). */
  pruning?: boolean;
  /** Document frequencies blended with a library's own; null ranks with the library's alone. Default: the general model's. */
  background?: KeywordBackground | null;
}

/**
 * KeywordIndex on the FTS5 table `chunk_search` in the record store's SQLite file (Porter stemming, BM25 over title
 * and content). Triggers on `chunks` keep it in step with every chunk write, replace and delete (sqlite.database.ts).
 * A search of one library ranks it with its own statistics, whatever else the table holds
 * (sqlite-fts.library-search.ts); a search of several libraries or of all ranks their chunks together with the whole
 * table's, as FTS5's bm25() does (sqlite-fts.table-search.ts), so its scores are not a one-library search's. Searches
 * are pruned: the same top results as scoring every matching chunk, at a cost that follows the question's rare terms.
 */
export class SqliteFtsKeywordIndex implements KeywordIndex {
  private readonly library: LibraryKeywordSearch;
  private readonly table: TableKeywordSearch;

  constructor(
    private readonly db: Database,
    private readonly options: SqliteFtsKeywordIndexOptions = {},
  ) {
    const background = options.background === undefined ? new GeneralTermsBackground() : options.background;
    const statistics = new KeywordStatistics(db);
    this.library = new LibraryKeywordSearch(db, statistics, background);
    this.table = new TableKeywordSearch(db, statistics);
  }

  async search(query: KeywordQuery): Promise<ChunkHit[]> {
    if (query.terms.length === 0 || query.limit < 1 || query.libraryIds?.length === 0) return [];
    // One read transaction, so every statement of the search sees the same state of the file: a write by another
    // process between them would pair the statistics of one state with the rows of another.
    const rows = this.db.transaction(() =>
      query.libraryIds?.length === 1 ? this.searchOne(query, query.libraryIds[0]!) : this.searchMarked(query),
    )();
    const wanted = query.libraryIds ? new Set(query.libraryIds) : null;
    return this.hydrate(rows).filter((row) => !wanted || wanted.has(row.libraryId));
  }

  /**
   * One library: its chunks' keys form one range, which FTS5 applies while it reads the index. In that range the
   * `lib` column holds only the library's own marker, left out of the terms, so no column filter is needed.
   */
  private searchOne(query: KeywordQuery, libraryId: string): RankedRow[] {
    const library = statement(this.db, 'SELECT seq_base FROM libraries WHERE id = ?').get(libraryId) as
      { seq_base: number } | undefined;
    const marker = libraryKey(libraryId);
    const terms = query.terms.filter((term) => term !== marker).map(quote);
    if (!library || terms.length === 0) return [];
    const scope: LibraryScope = { range: [library.seq_base, library.seq_base + KEY_RANGE - 1], weights: WEIGHTS };
    return this.library.search(scope, terms, query.limit, { pruning: this.options.pruning, plan: this.options.onPlan });
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
    const scope: TableScope = {
      anyOf: (phrases) => `${markers}${inText(phrases)}`,
      bothOf: (essential, others) => `${markers}${inText(essential)} AND ${inText(others)}`,
      counted: inTextColumns,
      weights: WEIGHTS,
    };
    return this.table.search(scope, query.terms.map(quote), query.limit, {
      pruning: this.options.pruning,
      plan: this.options.onPlan,
    });
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
