import type { Database } from './sqlite.database';
import type { KeywordStatistics } from './sqlite-fts.statistics';
import {
  bm25Idf,
  byRarity,
  searchPruned,
  type PrunedPlan,
  type PrunedTerm,
  type RankedRow,
  type TermScoring,
} from './sqlite-fts.pruned-search';
import { statement } from './sqlite.statements';

/**
 * BM25 of the chunks of several libraries, or of all, with the whole table's statistics, as FTS5's bm25() gives it:
 * every library's rows, their average length and the rows holding each phrase, whichever libraries are searched.
 * One pass over the table, pruned (sqlite-fts.pruned-search.ts), whatever the number of libraries.
 */

export interface TableScope {
  /** Builds the MATCH expression of chunks holding any of `phrases` (quoted), within the searched libraries. */
  anyOf(phrases: string[]): string;
  /** Builds the MATCH expression of chunks holding any of `essential` and any of `others`. */
  bothOf(essential: string[], others: string[]): string;
  /** The MATCH expression whose matches bm25() counts as a phrase's documents (the phrase with its column filter). */
  counted(phrase: string): string;
  /** bm25() weights of the lib, title and body columns. */
  weights: [number, number, number];
}

interface Term extends PrunedTerm {
  phrase: string;
}

export class TableKeywordSearch {
  constructor(
    private readonly db: Database,
    private readonly statistics: KeywordStatistics,
  ) {}

  /** The top `limit` rows matching the scope by bm25() (ties by key). */
  search(
    scope: TableScope,
    phrases: string[],
    limit: number,
    options: { pruning?: boolean; plan?: (p: PrunedPlan) => void } = {},
  ): RankedRow[] {
    this.statistics.refresh();
    const table = this.statistics.store();
    const terms: Term[] = byRarity(phrases, (phrase) =>
      table ? this.statistics.documents(scope.counted(phrase), null) : 0,
    ).map((term) => ({ ...term, idf: bm25Idf(term.documents, table!.rows) }));
    const scoring = new TableScoring(this.db, scope, terms);
    return searchPruned(scoring, table?.rows ?? 0, limit, { ...options, terms: new Set(phrases).size });
  }
}

/** Rows scored by bm25() itself, whose statistics are the table's. */
class TableScoring implements TermScoring {
  constructor(
    private readonly db: Database,
    private readonly scope: TableScope,
    readonly terms: Term[],
  ) {}

  /**
   * The rare terms' shares of every row holding one, then the whole score of those that also hold a frequent term.
   * (bm25() counts the documents of each of its query's phrases on every run, so the frequent terms, whose counts
   * cost the most, are in one query only.)
   */
  rankEssential(rare: number[], frequent: number[], limit: number): { top: RankedRow[]; read: number } {
    const phrases = (indexes: number[]) => indexes.map((index) => this.terms[index]!.phrase);
    const scores = new Map<number, number>();
    for (const [rowid, score] of this.scored(this.scope.anyOf(phrases(rare)))) scores.set(rowid, score);
    if (frequent.length > 0) {
      const both = this.scope.bothOf(phrases(rare), phrases(frequent));
      for (const [rowid, score] of this.scored(both)) scores.set(rowid, score);
    }
    const top = [...scores]
      .map(([rowid, score]) => ({ rowid, score: -score }))
      .sort((a, b) => b.score - a.score || a.rowid - b.rowid);
    return { top: top.slice(0, limit), read: scores.size };
  }

  rankAll(limit: number): RankedRow[] {
    const match = this.scope.anyOf(this.terms.map((term) => term.phrase));
    return statement(this.db, `${SCORED_BEST} ORDER BY score DESC, rowid LIMIT ?`).all(
      ...this.scope.weights,
      match,
      limit,
    ) as RankedRow[];
  }

  /** bm25()'s score of each row matching `match` (negative, as FTS5 gives it). */
  private scored(match: string): [number, number][] {
    return statement(this.db, SCORED)
      .raw()
      .all(...this.scope.weights, match) as [number, number][];
  }
}

const SCORED = 'SELECT rowid, bm25(chunk_search, ?, ?, ?) FROM chunk_search WHERE chunk_search MATCH ?';
const SCORED_BEST = 'SELECT rowid, -bm25(chunk_search, ?, ?, ?) AS score FROM chunk_search WHERE chunk_search MATCH ?';
