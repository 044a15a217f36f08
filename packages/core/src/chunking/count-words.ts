const WORD = /[^\s]*[\p{L}\p{N}][^\s]*/gu;

/** Whitespace-separated tokens holding at least one letter or digit: Markdown markers (`-`, `##`, `|`, ```) are not words. */
export function countWords(text: string): number {
  return text.match(WORD)?.length ?? 0;
}
