/**
 * Approximate token count for English prose and code with a BPE tokenizer (cl100k-like):
 * words count about 1.3 tokens each and punctuation runs count on their own.
 */
export function estimateTokens(text: string): number {
  const words = text.match(/[\p{L}\p{N}_]+/gu)?.length ?? 0;
  const symbols = text.match(/[^\p{L}\p{N}_\s]/gu)?.length ?? 0;
  return Math.ceil(words * 1.3 + symbols * 0.5);
}
