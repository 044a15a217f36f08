import type { ChunkInput } from '../domain/types';
import { estimateTokens } from '../domain/tokens';
import { computeChunkId } from './chunk-id';
import { selectOverlap, type ChunkOverlap } from './chunk-overlap';
import { runAtOnce, runInTurns, type Steps } from '../crawl/next-turn';
import { buildChunkUnitsInSteps, type ChunkUnit } from './chunk-units';
import { parseMarkdownBlocksInSteps } from './markdown-blocks';

export { countWords } from './count-words';

export interface ChunkMarkdownOptions {
  pageUrl: string;
  pageTitle: string;
  /** Words per chunk, overlap included. */
  targetWords?: number;
  /** Words repeated from the end of a chunk at the start of the next. */
  overlapWords?: number;
}

const DEFAULT_TARGET_WORDS = 500;
const DEFAULT_OVERLAP_WORDS = 50;
/** A last chunk may run this much over the target rather than leave a tiny chunk behind. */
const FINAL_CHUNK_SLACK = 1.1;
/** A heading boundary wins over a closer paragraph boundary when the chunk is at least this full. */
const SECTION_BREAK_FILL = 0.85;
/** A chunk should not end on a heading followed by only this many words: the section belongs to the next chunk. */
const MIN_SECTION_LEAD_WORDS = 40;
/** How a chunk's title joins its page's title and the headings above it ("Child process › Spawning"). */
export const TITLE_SEPARATOR = ' › ';

/**
 * Splits a page's Markdown into chunks of about `targetWords` words, consecutive chunks sharing about
 * `overlapWords` words. Chunks end at block boundaries (a heading when one is near the target), never
 * inside fenced code unless a code block is over twice the target.
 */
export function chunkMarkdown(markdown: string, options: ChunkMarkdownOptions): ChunkInput[] {
  return runAtOnce(chunkMarkdownInSteps(markdown, options));
}

/**
 * chunkMarkdown in turns of the event loop, none much over 20 ms: the Markdown of a crawled page may be megabytes (a
 * page of 300,000 short sections held a worker's event loop 2 s at once). The chunks are chunkMarkdown's.
 */
export function chunkMarkdownInTurns(markdown: string, options: ChunkMarkdownOptions): Promise<ChunkInput[]> {
  return runInTurns(chunkMarkdownInSteps(markdown, options));
}

function* chunkMarkdownInSteps(markdown: string, options: ChunkMarkdownOptions): Steps<ChunkInput[]> {
  const targetWords = options.targetWords ?? DEFAULT_TARGET_WORDS;
  const overlapWords = Math.min(options.overlapWords ?? DEFAULT_OVERLAP_WORDS, Math.floor(targetWords / 2));
  const units = yield* buildChunkUnitsInSteps(yield* parseMarkdownBlocksInSteps(markdown), {
    maxWords: Math.max(1, targetWords - overlapWords),
    maxCodeWords: targetWords * 2,
  });
  // Words from each unit to the end: what is left is read, not summed again, at every chunk (a page of 300,000 short
  // sections made that quadratic, minutes of a worker's event loop).
  const wordsFrom = new Array<number>(units.length + 1).fill(0);
  for (let i = units.length - 1; i >= 0; i--) wordsFrom[i] = wordsFrom[i + 1]! + units[i]!.words;
  const chunks: ChunkInput[] = [];
  let overlap: ChunkOverlap | null = null;
  let start = 0;
  while (start < units.length) {
    if (start > 0) yield;
    const end = selectChunkEnd(units, start, wordsFrom[start]!, overlap?.words ?? 0, targetWords, overlapWords);
    const body = units.slice(start, end);
    const content = joinOverlap(overlap, body);
    chunks.push({
      id: computeChunkId(options.pageUrl, chunks.length, content),
      title: composeChunkTitle(options.pageTitle, body[0]!.heading),
      content,
      url: options.pageUrl,
      tokenCount: estimateTokens(content),
    });
    overlap = selectOverlap(content, overlapWords);
    start = end;
  }
  return chunks;
}

/**
 * Index after the last unit of the chunk starting at `start` (`remaining` words from there to the end). Chunk sizes
 * are balanced over the rest of the page, so a page of 1.2 targets gives two even chunks rather than a full one and a
 * scrap.
 */
function selectChunkEnd(
  units: ChunkUnit[],
  start: number,
  remaining: number,
  overlap: number,
  target: number,
  overlapWords: number,
): number {
  if (remaining + overlap <= target * FINAL_CHUNK_SLACK) return units.length;
  const capacity = Math.max(1, target - overlap);
  const chunksLeft = 1 + Math.ceil(Math.max(0, remaining - capacity) / Math.max(1, target - overlapWords));
  const goal = Math.ceil((remaining + overlap + (chunksLeft - 1) * overlapWords) / chunksLeft) - overlap;

  let bestEnd = start + 1;
  let bestDistance = Infinity;
  // Where the chunk would end were short section leads not passed over: used when the chunk would otherwise hold one
  // short section alone, every later end being another (a page of nothing but short sections), so chunks still fill
  // up instead of holding one section each.
  let anyEnd = start + 1;
  let anyDistance = Infinity;
  let sectionEnd: number | null = null;
  let sectionDistance = Infinity;
  let words = 0;
  for (let end = start + 1; end <= units.length; end += 1) {
    words += units[end - 1]!.words;
    if (words > capacity && end > start + 1) break;
    const last = units[end - 1]!;
    if (Math.abs(words - goal) < anyDistance) [anyEnd, anyDistance] = [end, Math.abs(words - goal)];
    if (last.startsSection && last.words < MIN_SECTION_LEAD_WORDS && end > start + 1 && end < units.length) continue;
    const distance = Math.abs(words - goal);
    if (distance < bestDistance) [bestEnd, bestDistance] = [end, distance];
    const next = units[end];
    if (next?.startsSection && words >= goal * SECTION_BREAK_FILL && distance < sectionDistance) {
      [sectionEnd, sectionDistance] = [end, distance];
    }
  }
  const first = units[start]!;
  const alone = bestEnd === start + 1 && first.startsSection && first.words < MIN_SECTION_LEAD_WORDS;
  return sectionEnd ?? (alone ? anyEnd : bestEnd);
}

/** Renders body units after the overlap; a re-opened code overlap merges into the code piece it precedes. */
function joinOverlap(overlap: ChunkOverlap | null, body: ChunkUnit[]): string {
  const [first, ...rest] = body;
  let text = first!.text;
  if (overlap) {
    const mergesCode = overlap.reopenedFence !== undefined && first!.continuesCode !== undefined;
    text = mergesCode
      ? `${overlap.text.slice(0, overlap.text.lastIndexOf('\n'))}\n${first!.text.slice(first!.text.indexOf('\n') + 1)}`
      : `${overlap.text}${first!.gap.startsWith('\n') || first!.gap === '' ? '\n\n' : first!.gap}${first!.text}`;
  }
  for (const unit of rest) text += (unit.gap === '' ? '\n\n' : unit.gap) + unit.text;
  return text;
}

/** Headings of a title below the page title: the innermost few say where a chunk is without making titles long. */
const MAX_TITLE_HEADINGS = 3;

/**
 * "<page title> › <heading> › <subheading>": the page title, then the headings that contain the chunk (the innermost
 * three), leaving out a heading that repeats the page title.
 */
export function composeChunkTitle(pageTitle: string, heading: string | string[] | null): string {
  const title = pageTitle.trim();
  const path = (Array.isArray(heading) ? heading : heading ? [heading] : [])
    .map((h) => h.trim())
    .filter((h) => h !== '');
  const below = path.filter((h, i) => !(i === 0 && h.toLowerCase() === title.toLowerCase())).slice(-MAX_TITLE_HEADINGS);
  if (title === '') return below.join(TITLE_SEPARATOR);
  return [title, ...below].join(TITLE_SEPARATOR);
}
