import type { Database } from './sqlite.database';
import { statement } from './sqlite.statements';

/**
 * Keyword ranking whose work follows the top results rather than the library (MaxScore over FTS5's postings).
 *
 * FTS5's bm25() is a sum over the query's phrases, and one phrase adds at most idf × (k1 + 1) to any chunk however often
 * it occurs there. So with the terms ordered from rare to frequent, the chunks that hold none of the rare ("essential")
 * terms can score at most the sum of the frequent terms' bounds. Scoring only the chunks that hold an essential term
 * (all of their phrases, frequent ones included) gives exact scores for them; when the k-th best of those is above
 * that sum, no other chunk can enter the top k, and the answer is exactly the full query's. When it is not, the next
 * rarest term joins the essential ones and the check is repeated; past half the postings the full query runs instead.
 * The work is then the rare terms' postings plus a count of each term's documents, which FTS5 reads far faster than
 * it scores (and which is cached until the next write).
 */

/** FTS5's BM25 constant k1 (fts5_aux.c): a phrase's share of a chunk's score stays below idf × (k1 + 1). */
const K1 = 1.2;
/** FTS5 clamps an idf at or below zero (a term in most rows) to this. */
const MIN_IDF = 1e-6;
/** The essential terms start as those whose postings together are at most this share of the rows (at least one). */
const ESSENTIAL_SHARE = 0.02;
/** Past this share of the rows in essential postings pruning saves little: the full query runs. */
const GIVE_UP_SHARE = 0.5;
/** Document counts kept between writes; the cache is emptied when it grows past this many terms. */
const MAX_CACHED_COUNTS = 20_000;

export interface PrunedScope {
  /** Builds the MATCH expression of chunks holding any of `phrases` (quoted), within the searched libraries. */
  anyOf(phrases: string[]): string;
  /** Builds the MATCH expression of chunks holding any of `essential` and any of `others`. */
  bothOf(essential: string[], others: string[]): string;
  /** The MATCH expression whose matches bm25() counts as a phrase's documents (the phrase with its column filter). */
  counted(phrase: string): string;
  /** Bounds of the searched library's keys, or null for a search of several libraries. */
  range: [number, number] | null;
  /** bm25() weights of the lib, title and body columns. */
  weights: [number, number, number];
}

/** How a search was answered: for the benchmark and the tests. */
export interface PrunedPlan {
  terms: number;
  /** Terms whose postings were read; the rest only counted and bounded. */
  essential: number;
  /** False when the full query ran (one term, or the bounds never cut). */
  pruned: boolean;
  /** Chunks scored by bm25() in the pruned rounds. */
  scored: number;
  rounds: number;
}

export interface RankedRow {
  rowid: number;
  /** BM25, higher is better. */
  score: number;
}

export class PrunedKeywordSearch {
  private counts = new Map<string, number>();
  private countsStamp = '';

  constructor(private readonly db: Database) {}

  /** The top `limit` rows by BM25 (ties by key), or null when pruning cannot pay and the full query should run. */
  search(scope: PrunedScope, phrases: string[], limit: number, plan?: (p: PrunedPlan) => void): RankedRow[] | null {
    const rows = this.totalRows();
    const unique = [...new Set(phrases)];
    this.forgetCountsAfterWrites();
    const terms = unique.map((phrase) => ({ phrase, documents: this.documents(scope.counted(phrase)) }));
    const matching = terms.filter((term) => term.documents > 0).sort((a, b) => a.documents - b.documents);
    if (matching.length === 0) {
      plan?.({ terms: unique.length, essential: 0, pruned: true, scored: 0, rounds: 0 });
      return [];
    }
    if (rows === null || matching.length < 2) {
      plan?.({ terms: unique.length, essential: unique.length, pruned: false, scored: 0, rounds: 0 });
      return null;
    }
    const bound = (documents: number) =>
      Math.max(MIN_IDF, Math.log((rows - documents + 0.5) / (documents + 0.5))) * (K1 + 1);

    // A term in more than half the rows has its idf clamped to MIN_IDF by FTS5: it moves a score by less than
    // 3e-6, yet bm25() would read all of its postings in every query that names it. Pruned searches leave it out.
    const weighed = matching.filter((term) => term.documents <= rows / 2);
    const bounds = weighed.map((term) => bound(term.documents));
    /** The most a chunk holding none of the first `essential` terms can score. */
    const beyond = (essential: number) => bounds.slice(essential).reduce((sum, b) => sum + b, 0);

    let essential = 0;
    let postings = 0;
    let scoredRows = 0;
    let rounds = 0;
    while (essential < weighed.length - 1 && postings + weighed[essential]!.documents <= rows * ESSENTIAL_SHARE) {
      postings += weighed[essential++]!.documents;
    }
    if (essential === 0 && weighed.length > 0) postings += weighed[essential++]!.documents;
    while (essential > 0) {
      const rare = weighed.slice(0, essential).map((term) => term.phrase);
      const frequent = weighed.slice(essential).map((term) => term.phrase);
      const scored = this.scoreEssential(scope, rare, frequent);
      scoredRows += scored.length;
      rounds++;
      // The k-th best exact score so far only grows as terms join: the next round takes as many as it needs at once.
      const kth = scored.length >= limit ? scored[limit - 1]!.score : -Infinity;
      if (kth > beyond(essential)) {
        plan?.({ terms: unique.length, essential, pruned: true, scored: scoredRows, rounds });
        return scored.slice(0, limit);
      }
      let next = essential + 1;
      while (next < weighed.length && kth <= beyond(next)) next++;
      if (next > weighed.length) break;
      for (; essential < next; essential++) postings += weighed[essential]!.documents;
      if (postings > rows * GIVE_UP_SHARE) break;
    }
    plan?.({ terms: unique.length, essential: unique.length, pruned: false, scored: scoredRows, rounds });
    return null;
  }

  /**
   * Exact BM25 of every chunk holding an essential term, its frequent terms' shares included: the rare terms' shares
   * of every such chunk, then the whole score of those that also hold a frequent term. (bm25() counts the documents of
   * each of its query's phrases on every run, so the frequent terms, whose counts cost the most, are in one query only.)
   */
  private scoreEssential(scope: PrunedScope, rare: string[], frequent: string[]): RankedRow[] {
    const scores = new Map<number, number>();
    for (const [rowid, score] of this.scored(scope, scope.anyOf(rare))) scores.set(rowid, score);
    if (frequent.length > 0) {
      for (const [rowid, score] of this.scored(scope, scope.bothOf(rare, frequent))) scores.set(rowid, score);
    }
    return [...scores]
      .map(([rowid, score]) => ({ rowid, score: -score }))
      .sort((a, b) => b.score - a.score || a.rowid - b.rowid);
  }

  private scored(scope: PrunedScope, match: string): [number, number][] {
    const [lib, title, body] = scope.weights;
    const select = `SELECT rowid, bm25(chunk_search, ?, ?, ?) FROM chunk_search WHERE chunk_search MATCH ?`;
    if (!scope.range) return statement(this.db, select).raw().all(lib, title, body, match) as [number, number][];
    return statement(this.db, `${select} AND rowid BETWEEN ? AND ?`)
      .raw()
      .all(lib, title, body, match, ...scope.range) as [number, number][];
  }

  /** The rows of the whole index (what bm25() takes as N), from FTS5's totals record; null if it cannot be read. */
  private totalRows(): number | null {
    const record = statement(this.db, 'SELECT block FROM chunk_search_data WHERE id = 1').get() as
      { block: Buffer } | undefined;
    return record ? readVarint(record.block) : null;
  }

  /** How many rows of the whole index match `match`, kept until the next write to the database. */
  private documents(match: string): number {
    let documents = this.counts.get(match);
    if (documents === undefined) {
      documents = (statement(this.db, COUNT).pluck().get(match) as number) ?? 0;
      this.counts.set(match, documents);
    }
    return documents;
  }

  /** Empties the counts when the database was written since they were taken (or when they have grown too many). */
  private forgetCountsAfterWrites(): void {
    const stamp = this.writeStamp();
    if (stamp !== this.countsStamp || this.counts.size >= MAX_CACHED_COUNTS) {
      this.counts = new Map();
      this.countsStamp = stamp;
    }
  }

  /** Changes whenever this connection or another has written since (other connections through data_version). */
  private writeStamp(): string {
    const version = statement(this.db, 'PRAGMA data_version').pluck().get() as number;
    const changes = statement(this.db, 'SELECT total_changes()').pluck().get() as number;
    return `${version}:${changes}`;
  }
}

const COUNT = 'SELECT count(*) FROM chunk_search WHERE chunk_search MATCH ?';

/** SQLite's variable-length integer (1–9 bytes, big-endian groups of 7 bits, the ninth byte whole), as FTS5 writes it. */
export function readVarint(bytes: Uint8Array): number | null {
  let value = 0;
  for (let i = 0; i < 9 && i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (i === 8) return value * 256 + byte;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return value;
  }
  return null;
}
