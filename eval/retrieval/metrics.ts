/** Rank (1-based) of the first result whose page answers the question, or null when none of them does. */
export function firstHit(resultPages: string[], answers: string[]): number | null {
  const index = resultPages.findIndex((page) => answers.includes(page));
  return index === -1 ? null : index + 1;
}

/**
 * nDCG@5 over pages: the results' distinct pages in order (a page's later chunks add nothing), each answering page
 * gaining 1 / log2(rank + 1), against the best order the question's answers allow.
 */
export function ndcgAt5(resultPages: string[], answers: string[]): number {
  const distinct = [...new Set(resultPages)].slice(0, 5);
  const gain = (rank: number) => 1 / Math.log2(rank + 1);
  const dcg = distinct.reduce((sum, page, i) => sum + (answers.includes(page) ? gain(i + 1) : 0), 0);
  const ideal = Array.from({ length: Math.min(answers.length, 5) }, (_, i) => gain(i + 1)).reduce((a, b) => a + b, 0);
  return dcg / ideal;
}

/** What one ranking answered to one question: the pages of its results, best first. */
export interface Outcome {
  pages: string[];
  answers: string[];
}

export interface Scores {
  hitAt1: number;
  hitAt5: number;
  mrr: number;
  ndcgAt5: number;
  questions: number;
}

/** hit@1, hit@5 and mean reciprocal rank (over the top 10) of the first answering result, and nDCG@5 over pages. */
export function score(outcomes: Outcome[]): Scores {
  const n = outcomes.length;
  const ranks = outcomes.map((outcome) => firstHit(outcome.pages, outcome.answers));
  const share = (predicate: (rank: number) => boolean) => ranks.filter((r) => r !== null && predicate(r)).length / n;
  return {
    hitAt1: share((r) => r === 1),
    hitAt5: share((r) => r <= 5),
    mrr: ranks.reduce<number>((sum, r) => sum + (r !== null && r <= 10 ? 1 / r : 0), 0) / n,
    ndcgAt5: outcomes.reduce((sum, outcome) => sum + ndcgAt5(outcome.pages, outcome.answers), 0) / n,
    questions: n,
  };
}

/** The middle value (the mean of the two middle ones for an even count); 0 for none. */
export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
