export interface ChunkOverlap {
  text: string;
  words: number;
  /** Set when the overlap starts inside a code block and so re-opens its fence. */
  reopenedFence?: string;
}

type LineKind = 'prose' | 'blank' | 'fence-open' | 'code' | 'fence-close';
interface Candidate {
  position: number;
  preferred: boolean;
  /** The fence line to re-open when the candidate lies inside a code block. */
  reopen?: string;
}

const WORD = /[^\s]*[\p{L}\p{N}][^\s]*/gu;
const FENCE = /^\s*(`{3,}|~{3,})/;
const SENTENCE_END = /[.!?:;]["')\]]*\s+(?=\S)/g;

/**
 * The tail of a chunk to repeat at the start of the next one: about `overlapWords` words starting at a
 * line or sentence start when one is close to the target, else at a word. A tail that starts inside a code
 * block re-opens the fence, so the next chunk never begins inside unterminated code.
 */
export function selectOverlap(previous: string, overlapWords: number): ChunkOverlap | null {
  const wordStarts = [...previous.matchAll(WORD)].map((match) => match.index);
  const maxWords = Math.min(Math.ceil(overlapWords * 1.5), Math.floor(wordStarts.length / 2));
  const minWords = Math.max(1, Math.floor(overlapWords * 0.5));
  if (overlapWords <= 0 || maxWords < 1) return null;
  const wordsFrom = (position: number): number => wordStarts.length - lowerBound(wordStarts, position);

  const earliest = wordStarts[wordStarts.length - maxWords] ?? 0;
  const candidates = listCandidates(previous, wordStarts, earliest).filter((candidate) => {
    const words = wordsFrom(candidate.position);
    return words >= 1 && words <= maxWords;
  });
  const closest = (pool: Candidate[]): Candidate | undefined =>
    pool.reduce<Candidate | undefined>((best, candidate) => {
      if (!best) return candidate;
      const distance = Math.abs(wordsFrom(candidate.position) - overlapWords);
      return distance < Math.abs(wordsFrom(best.position) - overlapWords) ? candidate : best;
    }, undefined);
  const preferred = candidates.filter((c) => c.preferred && wordsFrom(c.position) >= minWords);
  const chosen = closest(preferred) ?? closest(candidates.filter((c) => !c.preferred));
  if (!chosen) return null;
  const tail = previous.slice(chosen.position);
  const text = chosen.reopen ? `${chosen.reopen}\n${tail}` : tail;
  return { text, words: wordsFrom(chosen.position), ...(chosen.reopen ? { reopenedFence: chosen.reopen } : {}) };
}

function listCandidates(text: string, wordStarts: number[], earliest: number): Candidate[] {
  const candidates: Candidate[] = [];
  const proseRanges: Array<[number, number]> = [];
  let offset = 0;
  let openFence: { marker: string; line: string } | null = null;
  for (const line of text.split('\n')) {
    const kind = classifyLine(line, openFence);
    if (kind === 'fence-open') openFence = { marker: FENCE.exec(line)![1]!, line };
    if (kind === 'fence-close') openFence = null;
    if (kind === 'fence-open' || kind === 'prose') candidates.push({ position: offset, preferred: true });
    if (kind === 'code' && line.trim() !== '')
      candidates.push({ position: offset, preferred: true, reopen: openFence!.line });
    if (kind === 'prose') {
      proseRanges.push([offset, offset + line.length]);
      for (const match of line.matchAll(SENTENCE_END)) {
        candidates.push({ position: offset + match.index + match[0].length, preferred: true });
      }
    }
    offset += line.length + 1;
  }
  for (const start of wordStarts) {
    if (start < earliest) continue;
    if (proseRanges.some(([from, to]) => start > from && start < to))
      candidates.push({ position: start, preferred: false });
  }
  return candidates;
}

function classifyLine(line: string, openFence: { marker: string } | null): LineKind {
  const fence = FENCE.exec(line);
  if (openFence) {
    const closes = fence && line.trim() === fence[1] && fence[1].startsWith(openFence.marker);
    return closes ? 'fence-close' : 'code';
  }
  if (fence) return 'fence-open';
  return line.trim() === '' ? 'blank' : 'prose';
}

function lowerBound(sorted: number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
