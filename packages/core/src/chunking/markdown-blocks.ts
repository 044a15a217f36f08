/** A top-level piece of a Markdown document: a heading line, a fenced code block or a run of prose lines. */
export type MarkdownBlock =
  | { kind: 'heading'; text: string; gap: string; level: number; title: string }
  | { kind: 'code'; text: string; gap: string; fence: string; language: string; indent: string }
  | { kind: 'prose'; text: string; gap: string };

import { runAtOnce, type Steps } from '../crawl/next-turn';

/** Lines or blocks between two points where long work over a page may give the event loop a turn. */
export const STEP_ITEMS = 2_048;

const FENCE_OPEN = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;
const ATX_HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*(?:\s#+)?\s*$/;

/**
 * Splits Markdown into blocks, keeping fenced code whole. `gap` is the separator that stood before the
 * block in the source ("\n" or "\n\n"), so blocks can be joined back without re-flowing lists.
 */
export function parseMarkdownBlocks(markdown: string): MarkdownBlock[] {
  return runAtOnce(parseMarkdownBlocksInSteps(markdown));
}

/** parseMarkdownBlocks, yielding every STEP_ITEMS lines (a page's Markdown may be megabytes). */
export function* parseMarkdownBlocksInSteps(markdown: string): Steps<MarkdownBlock[]> {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: MarkdownBlock[] = [];
  let prose: string[] = [];
  let gap = '';
  let blankSeen = false;

  const pushBlock = (block: MarkdownBlock): void => {
    blocks.push(block);
    blankSeen = false;
  };
  const flushProse = (): void => {
    if (prose.length === 0) return;
    pushBlock({ kind: 'prose', text: prose.join('\n'), gap });
    prose = [];
  };
  const nextGap = (): string => (blocks.length === 0 && prose.length === 0 ? '' : blankSeen ? '\n\n' : '\n');

  let stepAt = 0;
  for (let index = 0; index < lines.length; index += 1) {
    if (index - stepAt >= STEP_ITEMS) {
      stepAt = index;
      yield;
    }
    const line = lines[index]!;
    const fence = FENCE_OPEN.exec(line);
    if (fence) {
      flushProse();
      const end = findFenceEnd(lines, index, fence[2]!);
      pushBlock({
        kind: 'code',
        text: lines.slice(index, end + 1).join('\n'),
        gap: nextGap(),
        fence: fence[2]!,
        language: fence[3] ?? '',
        indent: fence[1] ?? '',
      });
      index = end;
      continue;
    }
    const heading = ATX_HEADING.exec(line);
    if (heading) {
      flushProse();
      pushBlock({
        kind: 'heading',
        text: line.trim(),
        gap: nextGap(),
        level: heading[1]!.length,
        title: plainHeadingText(heading[2]!),
      });
      continue;
    }
    if (line.trim() === '') {
      flushProse();
      blankSeen = blocks.length > 0;
      continue;
    }
    if (prose.length === 0) gap = nextGap();
    prose.push(line);
  }
  flushProse();
  return blocks;
}

/** Index of the closing fence line, or the last line when the fence is never closed. */
function findFenceEnd(lines: string[], openIndex: number, fence: string): number {
  for (let index = openIndex + 1; index < lines.length; index += 1) {
    const candidate = lines[index]!.trim();
    if (candidate.startsWith(fence) && /^(`+|~+)$/.test(candidate) && candidate[0] === fence[0]) return index;
  }
  return lines.length - 1;
}

/** Heading text without inline Markdown, for chunk titles: links, code ticks, emphasis and escapes go. */
export function plainHeadingText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+/g, '')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}
