/**
 * Keyword ranking whose work follows the top results rather than the chunks searched (MaxScore over FTS5's postings),
 * whichever statistics score the chunks (one library's, sqlite-fts.library-search.ts, or the whole table's,
 * sqlite-fts.table-search.ts).
 *
 * BM25 is a sum over the question's terms, and one term adds at most idf × (k1 + 1) to any chunk however often it
 * occurs there. So with the terms ordered from rare to frequent, the chunks that hold none of the rare ("essential")
 * terms can score at most the sum of the frequent terms' bounds. Scoring only the chunks that hold an essential term
 * (all of their terms, frequent ones included) gives exact scores for them; when the k-th best of those is above that
 * sum, no other chunk can enter the top k, and the answer is exactly the full search's. When it is not, the next
 * rarest term joins the essential ones and the check is repeated; past half the rows in essential postings every
 * chunk holding any term is scored instead.
 */

/** FTS5's BM25 constants (fts5_aux.c). */
export const K1 = 1.2;
export const B = 0.75;
/** FTS5 clamps an idf at or below zero (a term in most rows) to this. */
export const MIN_IDF = 1e-6;
/** The essential terms start as those whose postings together are at most this share of the rows (at least one). */
const ESSENTIAL_SHARE = 0.02;
/** Past this share of the rows in essential postings pruning saves little: every matching chunk is scored instead. */
const GIVE_UP_SHARE = 0.5;

/** How a search was answered: for the benchmark and the tests. */
export interface PrunedPlan {
  terms: number;
  /** Terms whose postings were read; the rest only counted and bounded. */
  essential: number;
  /** False when every chunk holding any term was scored (one term, or the bounds never cut). */
  pruned: boolean;
  /** Chunks scored in the pruned rounds. */
  scored: number;
  rounds: number;
}

export interface RankedRow {
  rowid: number;
  /** BM25, higher is better. */
  score: number;
}

/** A question's term as the statistics that score it count it. */
export interface PrunedTerm {
  /** The rows holding it. */
  documents: number;
  idf: number;
}

/** Scores the rows of one search: its terms, rare first, each in at least one row. */
export interface TermScoring {
  readonly terms: readonly PrunedTerm[];
  /**
   * The best `limit` of the rows holding one of the `rare` terms, each scored exactly with the `rare` and `frequent`
   * terms; and how many rows were read.
   */
  rankEssential(rare: number[], frequent: number[], limit: number): { top: RankedRow[]; read: number };
  /** The best `limit` of every row holding any term. */
  rankAll(limit: number): RankedRow[];
}

/** The idf of a term in `documents` of `rows` rows, as FTS5 computes it. */
export function bm25Idf(documents: number, rows: number): number {
  const idf = Math.log((rows - documents + 0.5) / (documents + 0.5));
  return idf > 0 ? idf : MIN_IDF;
}

/**
 * The top `limit` rows by the scoring's BM25 (ties by key): pruned where the bounds cut, else every matching row.
 * `rows` is what the postings are measured against (the rows the terms' idf counts); `terms` the question's count.
 */
export function searchPruned(
  scoring: TermScoring,
  rows: number,
  limit: number,
  options: { terms: number; pruning?: boolean; plan?: (p: PrunedPlan) => void },
): RankedRow[] {
  const plan = (p: Omit<PrunedPlan, 'terms'>) => options.plan?.({ ...p, terms: options.terms });
  if (scoring.terms.length === 0) {
    plan({ essential: 0, pruned: true, scored: 0, rounds: 0 });
    return [];
  }
  if (options.pruning !== false && scoring.terms.length >= 2) {
    const top = pruned(scoring, rows, limit, plan);
    if (top) return top;
  }
  plan({ essential: options.terms, pruned: false, scored: 0, rounds: 0 });
  return scoring.rankAll(limit);
}

/** The MaxScore rounds: the top rows, or null when pruning cannot pay. */
function pruned(
  scoring: TermScoring,
  rows: number,
  limit: number,
  plan: (p: Omit<PrunedPlan, 'terms'>) => void,
): RankedRow[] | null {
  // A term in more than half the rows has its idf clamped to MIN_IDF: it moves a score by less than 2.2e-6, yet
  // would be read in full. Pruned searches leave it out.
  const weighed = scoring.terms.flatMap((term, index) => (term.idf > MIN_IDF ? [index] : []));
  const documents = (at: number) => scoring.terms[weighed[at]!]!.documents;
  const bounds = weighed.map((index) => scoring.terms[index]!.idf * (K1 + 1));
  /** The most a chunk holding none of the first `essential` terms can score. */
  const beyond = (essential: number) => bounds.slice(essential).reduce((sum, b) => sum + b, 0);

  let essential = 0;
  let postings = 0;
  let scoredRows = 0;
  let rounds = 0;
  while (essential < weighed.length - 1 && postings + documents(essential) <= rows * ESSENTIAL_SHARE) {
    postings += documents(essential++);
  }
  if (essential === 0 && weighed.length > 0) postings += documents(essential++);
  while (essential > 0) {
    const { top, read } = scoring.rankEssential(weighed.slice(0, essential), weighed.slice(essential), limit);
    scoredRows += read;
    rounds++;
    // The k-th best exact score so far only grows as terms join: the next round takes as many as it needs at once.
    const kth = top.length >= limit ? top[limit - 1]!.score : -Infinity;
    if (kth > beyond(essential)) {
      plan({ essential, pruned: true, scored: scoredRows, rounds });
      return top;
    }
    let next = essential + 1;
    while (next < weighed.length && kth <= beyond(next)) next++;
    if (next > weighed.length) break;
    for (; essential < next; essential++) postings += documents(essential);
    if (postings > rows * GIVE_UP_SHARE) break;
  }
  return null;
}

/** The distinct phrases that some row holds, rarest first, each with the rows holding it (MaxScore's order). */
export function byRarity(
  phrases: string[],
  documents: (phrase: string) => number,
): { phrase: string; documents: number }[] {
  return [...new Set(phrases)]
    .map((phrase) => ({ phrase, documents: documents(phrase) }))
    .filter((term) => term.documents > 0)
    .sort((a, b) => a.documents - b.documents);
}
