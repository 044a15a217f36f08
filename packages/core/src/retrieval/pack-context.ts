import type { ContextResponse } from '../api/retrieval-schemas';
import { linksAsText } from './links-as-text';
import { withoutRepeatedHeadings } from './repeated-headings';
import type { RankedChunk } from './rank-chunks';
import { countTokens, truncateToTokens } from './token-count';

/** A piece of packed context: neighbouring chunks of one page merged, named by its first chunk, with its source. */
export type ContextPiece = ContextResponse['pieces'][number];

/** Each library's `version` (null: it has none), by library id: every piece names its library's. */
export type LibraryVersions = ReadonlyMap<string, string | null>;

export interface PackedContext {
  pieces: ContextPiece[];
  /** Tokens of the plain-text rendering (renderContext), never above the budget. */
  tokens: number;
  text: string;
}

const PIECE_SEPARATOR = '\n\n----------------------------------------\n\n';
/** After this many candidates in a row that do not fit, the budget is as full as it will get. */
const MAX_MISSES = 12;

interface Run {
  chunks: RankedChunk[];
  /** Rank of the best chunk in the run: runs of a page stay together, pages in order of their best chunk. */
  rank: number;
}

/**
 * Packs the best chunks into at most `budget` tokens of prompt text: chunks taken in rank order while they fit,
 * neighbouring chunks of one page merged in page order with their shared overlap written once, repeated text left
 * out, links written as their text, and pieces of one page kept together. The best chunk alone is cut to fit when
 * nothing else would.
 */
export function packContext(
  ranked: RankedChunk[],
  budget: number,
  versions: LibraryVersions = new Map(),
): PackedContext {
  const counter = new CachedCounter();
  let runs: Run[] = [];
  const added: RankedChunk[] = [];
  const seenTexts = new Set<string>();
  let misses = 0;
  for (const [rank, chunk] of ranked.entries()) {
    const fingerprint = chunk.content.replace(/\s+/g, ' ').trim();
    if (seenTexts.has(fingerprint)) continue;
    const trial = withChunk(runs, chunk, rank);
    if (estimateTokens(trial, versions, counter) <= budget) {
      runs = trial;
      added.push(chunk);
      seenTexts.add(fingerprint);
      misses = 0;
    } else if (runs.length === 0) {
      return truncated(chunk, rank, budget, versions);
    } else if (++misses >= MAX_MISSES) {
      break;
    }
  }
  // The estimate adds up pieces counted one by one; the exact count of the whole text has the last word.
  for (;;) {
    const packed = render(runs, versions, counter);
    if (packed.tokens <= budget || added.length === 0) return packed;
    const last = added.pop()!;
    runs = added.reduce<Run[]>((acc, chunk) => withChunk(acc, chunk, ranked.indexOf(chunk)), []);
    if (runs.length === 0) return truncated(last, ranked.indexOf(last), budget, versions);
  }
}

/** Token counts of piece texts already seen: a packing re-renders the same pieces many times. */
class CachedCounter {
  private readonly counts = new Map<string, number>();
  count(text: string): number {
    let n = this.counts.get(text);
    if (n === undefined) this.counts.set(text, (n = countTokens(text)));
    return n;
  }
}

function estimateTokens(runs: Run[], versions: LibraryVersions, counter: CachedCounter): number {
  const pieces = orderRuns(runs).map((run) => toPiece(run, versions));
  const texts = pieces.map((piece, i) => renderPiece(piece, continuesPage(pieces, i)));
  const separators = Math.max(0, texts.length - 1) * counter.count(PIECE_SEPARATOR);
  return texts.reduce((sum, text) => sum + counter.count(text), 0) + separators;
}

/** The runs with `chunk` added: joined to a run of the same page it directly follows or precedes, else a new run. */
function withChunk(runs: Run[], chunk: RankedChunk, rank: number): Run[] {
  const next = runs.map((run) => ({ ...run, chunks: [...run.chunks] }));
  const page = pageOf(chunk);
  const before = next.find(
    (run) => pageOf(run.chunks[0]!) === page && run.chunks.at(-1)!.position === chunk.position - 1,
  );
  const after = next.find((run) => pageOf(run.chunks[0]!) === page && run.chunks[0]!.position === chunk.position + 1);
  if (before && after) {
    before.chunks.push(chunk, ...after.chunks);
    before.rank = Math.min(before.rank, after.rank);
    next.splice(next.indexOf(after), 1);
  } else if (before) {
    before.chunks.push(chunk);
  } else if (after) {
    after.chunks.unshift(chunk);
  } else {
    next.push({ chunks: [chunk], rank });
  }
  return next;
}

function pageOf(chunk: RankedChunk): string {
  return `${chunk.libraryId}\u0000${chunk.url ?? `#${chunk.id}`}`;
}

/** Pages in order of their best chunk, a page's runs in page order. */
function orderRuns(runs: Run[]): Run[] {
  const pageRank = new Map<string, number>();
  for (const run of runs) {
    const page = pageOf(run.chunks[0]!);
    pageRank.set(page, Math.min(pageRank.get(page) ?? Infinity, run.rank));
  }
  return [...runs].sort(
    (a, b) =>
      pageRank.get(pageOf(a.chunks[0]!))! - pageRank.get(pageOf(b.chunks[0]!))! ||
      a.chunks[0]!.position - b.chunks[0]!.position,
  );
}

function render(runs: Run[], versions: LibraryVersions, counter: CachedCounter): PackedContext {
  const pieces = orderRuns(runs).map((run) => toPiece(run, versions, counter));
  const text = pieces.map((piece, i) => renderPiece(piece, continuesPage(pieces, i))).join(PIECE_SEPARATOR);
  return { pieces, text, tokens: countTokens(text) };
}

/** A run as a piece; its source is its first chunk's (a run's chunks are of one page, fetched together). */
function toPiece(run: Run, versions: LibraryVersions, counter?: CachedCounter): ContextPiece {
  const first = run.chunks[0]!;
  const joined = run.chunks.slice(1).reduce((text, chunk) => joinWithoutOverlap(text, chunk.content), first.content);
  const content = withoutRepeatedHeadings(linksAsText(joined), first.title);
  return {
    chunkId: first.id,
    libraryId: first.libraryId,
    libraryVersion: versions.get(first.libraryId) ?? null,
    title: first.title ?? null,
    url: first.url ?? null,
    fetchedAt: first.fetchedAt ?? null,
    contentHash: first.contentHash ?? null,
    content,
    tokens: counter?.count(content) ?? 0,
  };
}

/**
 * A piece under its title and source line. A page's pieces follow one another (orderRuns), so a piece continuing the
 * page of the piece before it is written without the source line that piece already gave.
 */
function renderPiece(piece: ContextPiece, continued = false): string {
  const heading = `### ${piece.title ?? piece.url ?? piece.chunkId}`;
  return continued ? `${heading}\n\n${piece.content}` : `${heading}\n${sourceLine(piece)}\n\n${piece.content}`;
}

/** Whether the i-th piece is of the same page as the one before it. */
function continuesPage(pieces: ContextPiece[], i: number): boolean {
  const previous = pieces[i - 1];
  const piece = pieces[i]!;
  return (
    previous !== undefined && piece.url !== null && previous.url === piece.url && previous.libraryId === piece.libraryId
  );
}

/**
 * One short line naming where the piece came from, e.g. `Source: https://nextjs.org/docs/app (vercel/next.js@15.1,
 * fetched 2025-01-02)`: a date is enough for a reader and costs fewer tokens than a timestamp.
 */
export function sourceLine(piece: Pick<ContextPiece, 'libraryId' | 'libraryVersion' | 'url' | 'fetchedAt'>): string {
  const { libraryId, libraryVersion, url, fetchedAt } = piece;
  // A versioned library's id already ends in its version ("python/stdlib@3.11").
  const library =
    libraryVersion && !libraryId.endsWith(`@${libraryVersion}`) ? `${libraryId}@${libraryVersion}` : libraryId;
  const about = fetchedAt ? `${library}, fetched ${fetchedAt.slice(0, 10)}` : library;
  return url ? `Source: ${url} (${about})` : `Source: ${about}`;
}

/** The best chunk cut down to what the budget leaves after its header. */
function truncated(chunk: RankedChunk, rank: number, budget: number, versions: LibraryVersions): PackedContext {
  const whole = toPiece({ chunks: [chunk], rank }, versions);
  const overhead = countTokens(renderPiece({ ...whole, content: '' }));
  for (let room = budget - overhead; room > 0; room -= Math.max(1, Math.ceil(room * 0.05))) {
    const content = truncateToTokens(whole.content, room);
    const piece = { ...whole, content, tokens: countTokens(content) };
    const text = renderPiece(piece);
    const tokens = countTokens(text);
    if (tokens <= budget && content !== '') return { pieces: [piece], text, tokens };
  }
  return { pieces: [], text: '', tokens: 0 };
}

/**
 * Appends `next` to `text`, writing once the text they share: a chunk repeats the last words of the chunk before it,
 * so the longest suffix of `text` that starts `next` is dropped from `next`.
 */
export function joinWithoutOverlap(text: string, next: string): string {
  const head = next.slice(0, 24);
  if (head.length < 8) return `${text}\n\n${next}`;
  const window = Math.max(0, text.length - 4_000);
  for (let at = text.indexOf(head, window); at !== -1; at = text.indexOf(head, at + 1)) {
    const suffix = text.slice(at);
    if (next.startsWith(suffix)) return text + next.slice(suffix.length);
  }
  // The overlap may differ in whitespace only (a paragraph break became a space): compare word by word.
  const words = next.split(/\s+/);
  const tailWords = text.slice(window).split(/\s+/);
  for (let size = Math.min(words.length - 1, tailWords.length, 200); size >= 5; size--) {
    if (tailWords.slice(-size).join(' ') === words.slice(0, size).join(' ')) {
      const rest = next.replace(new RegExp(`^\\s*${words.slice(0, size).map(escapeRegExp).join('\\s+')}`), '');
      return `${text}${rest}`;
    }
  }
  return `${text}\n\n${next}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
