import { createHash } from 'node:crypto';
import { parseMarkdownBlocksInSteps, STEP_ITEMS, type MarkdownBlock } from '../chunking/markdown-blocks';
import { runAtOnce, runInTurns, type Steps } from './next-turn';

/**
 * Boilerplate by repetition. A text line that stands on most pages of one crawl (a tagline, a "last modified" footer,
 * a copyright line, a version picker) is site chrome even where the markup does not say so, and is dropped before
 * the pages are chunked. What is never dropped: headings (they title the chunks), table rows, and code blocks of a
 * page whose content came from a content landmark (`<main>`, `<article>`, a generator's content root), where a
 * repeated example is part of the page.
 */
export interface RepetitionRule {
  /** A line on at least this share of the crawl's pages is chrome. */
  minShare: number;
  /** Crawls of fewer pages drop nothing: two pages sharing a line say nothing about a site. */
  minPages: number;
  /**
   * Chrome stands once on a page; a line that recurs within the pages holding it ("Added in: v1.0", "Returns:") is
   * the content's own vocabulary. A line is chrome only while its occurrences per page holding it average at most this.
   */
  maxPerPage: number;
}

export const DEFAULT_REPETITION_RULE: RepetitionRule = { minShare: 0.6, minPages: 5, maxPerPage: 1.5 };

/** One page's extracted content, as a crawl page job stages it. */
export interface PageText {
  markdown: string;
  /** True when the content came from a content landmark rather than the whole `<body>`. */
  landmark: boolean;
}

const MONTHS =
  /\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?)\b/g;
const WEEKDAYS = /\b(mon|tue|wed|thu|fri|sat|sun)[a-z]*day\b|\b(mon|tue|wed|thu|fri|sat|sun)\b/g;

/**
 * The key two lines share when they differ only in numbers, dates, link targets, case or spacing:
 * "Page last modified 2024-01-02" and "Page last modified 3 March 2025" are one line.
 */
export function normalizeLine(line: string): string {
  return line
    .toLowerCase()
    .replace(/\]\([^)]*\)/g, ']')
    .replace(MONTHS, '<m>')
    .replace(WEEKDAYS, '<d>')
    .replace(/\d+/g, '0')
    .replace(/[\s\u00a0]+/g, ' ')
    .trim();
}

const isTableLine = (line: string) => line.trimStart().startsWith('|');

/** A short hash of the normalised line: pages keep their keys between crawls, so keys stay small. */
const lineKey = (line: string) => createHash('sha1').update(normalizeLine(line)).digest('base64url').slice(0, 16);
const codeKey = (text: string) => lineKey(`\u0000code ${text}`);

/** The keys of the page's lines that repetition may drop, once per occurrence. */
export function repeatableKeysOf(page: PageText): string[] {
  return runAtOnce(repeatableKeysInSteps(page));
}

/** repeatableKeysOf in turns of the event loop: a page's Markdown may be megabytes. */
export function repeatableKeysInTurns(page: PageText): Promise<string[]> {
  return runInTurns(repeatableKeysInSteps(page));
}

function* repeatableKeysInSteps(page: PageText): Steps<string[]> {
  const blocks = yield* parseMarkdownBlocksInSteps(page.markdown);
  const keys: string[] = [];
  for (let index = 0; index < blocks.length; index += 1) {
    if (index > 0 && index % STEP_ITEMS === 0) yield;
    for (const key of keysOfBlock(blocks[index]!, page.landmark)) keys.push(key);
  }
  return keys;
}

function keysOfBlock(block: MarkdownBlock, landmark: boolean): string[] {
  if (block.kind === 'heading') return [];
  if (block.kind === 'code') return landmark ? [] : [codeKey(block.text)];
  return block.text
    .split('\n')
    .filter((line) => !isTableLine(line) && line.trim() !== '')
    .map(lineKey);
}

/** The keys that stand on at least `minShare` of the pages, about once on each, when there are enough pages. */
export function findRepeatedKeys(pages: string[][], rule: RepetitionRule = DEFAULT_REPETITION_RULE): Set<string> {
  const repeated = new Set<string>();
  if (pages.length < rule.minPages) return repeated;
  const onPages = new Map<string, number>();
  const occurrences = new Map<string, number>();
  for (const keys of pages) {
    for (const key of keys) occurrences.set(key, (occurrences.get(key) ?? 0) + 1);
    for (const key of new Set(keys)) onPages.set(key, (onPages.get(key) ?? 0) + 1);
  }
  const needed = Math.max(2, Math.ceil(pages.length * rule.minShare));
  for (const [key, count] of onPages) {
    if (count >= needed && occurrences.get(key)! <= count * rule.maxPerPage) repeated.add(key);
  }
  return repeated;
}

/** Keys a crawl's first pass keeps counts for at most (a few MB), however many distinct lines its pages hold. */
export const REPEATED_KEY_COUNTERS = 50_000;

/**
 * findRepeatedKeys for a crawl too big to hold every page's keys at once: `readPages` yields each page's keys (one array
 * a page) and is read twice. The first pass keeps at most `counters` candidate keys with the Misra–Gries summary of
 * the pages' distinct keys, which keeps every key standing on more than (distinct keys of all pages) / (counters + 1)
 * pages; the second counts the candidates exactly. When the pages hold so many distinct lines that a key on minShare
 * of them could have been missed, the second pass counts every key instead. Answers what findRepeatedKeys answers.
 */
export async function findRepeatedKeysInPasses(
  readPages: () => AsyncIterable<string[]>,
  rule: RepetitionRule = DEFAULT_REPETITION_RULE,
  counters = REPEATED_KEY_COUNTERS,
): Promise<Set<string>> {
  const summary = new Map<string, number>();
  let pageCount = 0;
  let stream = 0;
  for await (const keys of readPages()) {
    pageCount += 1;
    for (const key of new Set(keys)) {
      stream += 1;
      const count = summary.get(key);
      if (count !== undefined) summary.set(key, count + 1);
      else if (summary.size < counters) summary.set(key, 1);
      else
        for (const [kept, n] of summary) {
          if (n === 1) summary.delete(kept);
          else summary.set(kept, n - 1);
        }
    }
  }
  if (pageCount < rule.minPages) return new Set();
  const needed = Math.max(2, Math.ceil(pageCount * rule.minShare));
  const complete = stream / (counters + 1) < needed;
  const onPages = new Map<string, number>();
  const occurrences = new Map<string, number>();
  for await (const keys of readPages()) {
    for (const key of keys) {
      if (complete && !summary.has(key)) continue;
      occurrences.set(key, (occurrences.get(key) ?? 0) + 1);
    }
    for (const key of new Set(keys)) if (occurrences.has(key)) onPages.set(key, (onPages.get(key) ?? 0) + 1);
  }
  const repeated = new Set<string>();
  for (const [key, count] of onPages) {
    if (count >= needed && occurrences.get(key)! <= count * rule.maxPerPage) repeated.add(key);
  }
  return repeated;
}

/** The page's markdown without its repeated lines; a block left empty goes with its separator. */
export function dropRepeatedLines(page: PageText, repeated: ReadonlySet<string>): string {
  return runAtOnce(dropRepeatedLinesInSteps(page, repeated));
}

/** dropRepeatedLines in turns of the event loop. */
export function dropRepeatedLinesInTurns(page: PageText, repeated: ReadonlySet<string>): Promise<string> {
  return runInTurns(dropRepeatedLinesInSteps(page, repeated));
}

function* dropRepeatedLinesInSteps(page: PageText, repeated: ReadonlySet<string>): Steps<string> {
  if (repeated.size === 0) return page.markdown;
  const blocks = yield* parseMarkdownBlocksInSteps(page.markdown);
  let out = '';
  for (let index = 0; index < blocks.length; index += 1) {
    if (index > 0 && index % STEP_ITEMS === 0) yield;
    const block = blocks[index]!;
    const text = keptText(block, page.landmark, repeated);
    if (text === '') continue;
    out += (out === '' ? '' : block.gap || '\n\n') + text;
  }
  return out;
}

function keptText(block: MarkdownBlock, landmark: boolean, repeated: ReadonlySet<string>): string {
  if (block.kind === 'heading') return block.text;
  if (block.kind === 'code') return !landmark && repeated.has(codeKey(block.text)) ? '' : block.text;
  return block.text
    .split('\n')
    .filter((line) => isTableLine(line) || line.trim() === '' || !repeated.has(lineKey(line)))
    .join('\n');
}
