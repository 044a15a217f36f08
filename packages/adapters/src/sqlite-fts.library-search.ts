import type { Database } from './sqlite.database';
import type { KeywordStatistics, LibraryTotals } from './sqlite-fts.statistics';
import {
  B,
  K1,
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
 * BM25 of one library's chunks with that library's own statistics, pruned (sqlite-fts.pruned-search.ts).
 *
 * FTS5 has one table for every library, and its bm25() ranks with the whole table's figures (rows, average length,
 * the rows holding each phrase), so a library's ranking would move whenever another library is written. Here each
 * phrase is scored alone within the library's key range (or beside the rare phrases, whose shares are then taken
 * off): from bm25()'s share of a row, the whole table's idf of the phrase and the row's length (FTS5's docsize record)
 * give back the phrase's weighted count in the row, which is scored again with the library's rows, average length and
 * the library's rows holding the phrase (blended with a fixed background). The answer depends on the library alone.
 */

/** Title weight 2.5 and body weight 1 make every weighted count a multiple of this: recovered counts are rounded to it. */
const COUNT_STEP = 0.5;

export interface LibraryScope {
  /** Bounds of the library's keys. */
  range: [number, number];
  /** bm25() weights of the lib, title and body columns. */
  weights: [number, number, number];
}

/** A question's term as one library counts it. */
interface Term extends PrunedTerm {
  phrase: string;
  /** Its idf in the whole table, which bm25() ranks with. */
  tableIdf: number;
}

/** Document frequencies of a fixed corpus, blended with a library's own so that a small library's idf stays smooth. */
export interface KeywordBackground {
  /** The share of the corpus's documents holding the word (a query term, as typed). */
  share(word: string): number;
}

export class LibraryKeywordSearch {
  constructor(
    private readonly db: Database,
    private readonly statistics: KeywordStatistics,
    private readonly background: KeywordBackground | null,
  ) {}

  /**
   * The term's idf in the library: with a background, as if the library had as many rows again, holding the term as
   * often as the background's documents do (so the share of rows holding it is the mean of the two shares).
   */
  private idf(phrase: string, documents: number, rows: number): number {
    if (!this.background) return bm25Idf(documents, rows);
    const share = this.background.share(phrase.slice(1, -1).replace(/""/g, '"'));
    return bm25Idf(documents + rows * share, 2 * rows);
  }

  /** The top `limit` rows of the library by BM25 with its own statistics (ties by key). */
  search(
    scope: LibraryScope,
    phrases: string[],
    limit: number,
    options: { pruning?: boolean; plan?: (p: PrunedPlan) => void } = {},
  ): RankedRow[] {
    this.statistics.refresh();
    const table = this.statistics.store();
    const library = this.statistics.library(scope.range);
    const terms: Term[] = byRarity(phrases, (phrase) =>
      table ? this.statistics.documents(phrase, scope.range) : 0,
    ).map((term) => ({
      ...term,
      idf: this.idf(term.phrase, term.documents, library.rows),
      tableIdf: bm25Idf(this.statistics.documents(term.phrase, null), table!.rows),
    }));
    // With no table there are no terms, and its average length is never read.
    const tableLength = table ? table.tokens / table.rows : 0;
    const scoring = new LibraryScoring(this.db, scope, terms, library, tableLength);
    return searchPruned(scoring, library.rows, limit, { ...options, terms: new Set(phrases).size });
  }
}

/** The rows of one search, each term's share of them read from bm25() and scored again with the library's figures. */
class LibraryScoring implements TermScoring {
  private readonly slots = new Map<number, number>();
  private readonly rowids: number[] = [];
  /** bm25()'s share of each term in each row read (row slot × terms + term; 0 where the row does not hold it). */
  private shares: Float64Array;
  private readonly alone = new Set<number>();

  constructor(
    private readonly db: Database,
    private readonly scope: LibraryScope,
    readonly terms: Term[],
    private readonly library: LibraryTotals,
    /** The table's average row length, which bm25() normalises with. */
    private readonly tableLength: number,
  ) {
    if (!scope.weights.every((weight) => Number.isInteger(weight / COUNT_STEP))) {
      throw new Error(`column weights must be multiples of ${COUNT_STEP} for counts to be recovered exactly`);
    }
    this.shares = new Float64Array(64 * terms.length);
  }

  rankEssential(rare: number[], frequent: number[], limit: number): { top: RankedRow[]; read: number } {
    for (const index of rare) this.scoreAlone(index);
    for (const index of frequent) this.scoreBeside(index, rare);
    return this.ranked([...rare, ...frequent], limit);
  }

  rankAll(limit: number): RankedRow[] {
    const all = this.terms.map((_, index) => index);
    all.forEach((index) => this.scoreAlone(index));
    return this.ranked(all, limit).top;
  }

  /** Reads the term's share of every row of the library that holds it (once a search). */
  private scoreAlone(index: number): void {
    if (this.alone.has(index)) return;
    this.alone.add(index);
    for (const [rowid, score] of this.scored(this.terms[index]!.phrase)) {
      const at = this.slot(rowid) * this.terms.length; // before this.shares is read: a new slot may grow it
      this.shares[at + index] = -score;
    }
  }

  /**
   * Reads the term's share of the rows that also hold a rare term (read alone before): bm25() of both, less the rare
   * terms' shares. Only those rows are read, however many hold the term.
   */
  private scoreBeside(index: number, rare: number[]): void {
    const match = `${this.terms[index]!.phrase} AND (${rare.map((r) => this.terms[r]!.phrase).join(' OR ')})`;
    for (const [rowid, score] of this.scored(match)) {
      const at = this.slot(rowid) * this.terms.length;
      this.shares[at + index] = rare.reduce((rest, r) => rest - this.shares[at + r]!, -score);
    }
  }

  /** The best `limit` rows read so far, scored with the given terms, best first (ties by key); and how many were read. */
  private ranked(terms: number[], limit: number): { top: RankedRow[]; read: number } {
    const read = this.rowids.length;
    const scores = new Float64Array(read);
    const base = this.scope.range[0];
    for (let slot = 0; slot < read; slot++) {
      const norm = K1 * (1 - B + (B * this.library.lengths[this.rowids[slot]! - base]!) / this.libraryLength);
      let score = 0;
      for (const index of terms) {
        const count = this.count(slot, index);
        if (count > 0) score += this.terms[index]!.idf * ((count * (K1 + 1)) / (count + norm));
      }
      scores[slot] = score;
    }
    // Only rows at or above the limit-th best score are sorted.
    const floor = read > limit ? scores.slice().sort()[read - limit]! : -Infinity;
    const top: RankedRow[] = [];
    for (let slot = 0; slot < read; slot++) {
      if (scores[slot]! >= floor) top.push({ rowid: this.rowids[slot]!, score: scores[slot]! });
    }
    top.sort((a, b) => b.score - a.score || a.rowid - b.rowid);
    return { top: top.slice(0, limit), read };
  }

  private get libraryLength(): number {
    return this.library.tokens / this.library.rows;
  }

  /** The term's weighted count in the row, from its share of bm25()'s score: share = idf × c(k1+1) / (c + norm). */
  private count(slot: number, index: number): number {
    const share = this.shares[slot * this.terms.length + index]!;
    if (share <= 0) return 0;
    const saturation = share / this.terms[index]!.tableIdf;
    if (saturation >= K1 + 1) return Infinity;
    const tokens = this.library.lengths[this.rowids[slot]! - this.scope.range[0]]!;
    const norm = K1 * (1 - B + (B * tokens) / this.tableLength);
    return Math.max(COUNT_STEP, Math.round((saturation * norm) / (K1 + 1 - saturation) / COUNT_STEP) * COUNT_STEP);
  }

  /** The row's slot, taken when the row is first read. */
  private slot(rowid: number): number {
    let slot = this.slots.get(rowid);
    if (slot === undefined) {
      slot = this.rowids.length;
      this.slots.set(rowid, slot);
      this.rowids.push(rowid);
      if ((slot + 1) * this.terms.length > this.shares.length) {
        const grown = new Float64Array(this.shares.length * 2);
        grown.set(this.shares);
        this.shares = grown;
      }
    }
    return slot;
  }

  /** bm25()'s score of each row of the library matching `match` (negative, as FTS5 gives it). */
  private scored(match: string): [number, number][] {
    const [lib, title, body] = this.scope.weights;
    return statement(this.db, SCORED)
      .raw()
      .all(lib, title, body, match, ...this.scope.range) as [number, number][];
  }
}

const SCORED =
  'SELECT rowid, bm25(chunk_search, ?, ?, ?) FROM chunk_search WHERE chunk_search MATCH ? AND rowid BETWEEN ? AND ?';
