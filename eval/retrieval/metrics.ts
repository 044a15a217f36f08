/** Rank (1-based) of the first result whose page answers the question, or null when none of them does. */
export function firstHit(resultPages: string[], answers: string[]): number | null {
  const index = resultPages.findIndex((page) => answers.includes(page));
  return index === -1 ? null : index + 1;
}

export interface Scores {
  hitAt1: number;
  hitAt5: number;
  mrr: number;
  questions: number;
}

/** hit@1, hit@5 and mean reciprocal rank (over the top 10) of first-hit ranks. */
export function score(ranks: (number | null)[]): Scores {
  const n = ranks.length;
  const share = (predicate: (rank: number) => boolean) => ranks.filter((r) => r !== null && predicate(r)).length / n;
  return {
    hitAt1: share((r) => r === 1),
    hitAt5: share((r) => r <= 5),
    mrr: ranks.reduce<number>((sum, r) => sum + (r !== null && r <= 10 ? 1 / r : 0), 0) / n,
    questions: n,
  };
}
