import { countWords } from './count-words';
import { runAtOnce, type Steps } from '../crawl/next-turn';
import { STEP_ITEMS, type MarkdownBlock } from './markdown-blocks';

/** The smallest piece the packer places: a block, or part of a block too long for one chunk. */
export interface ChunkUnit {
  text: string;
  words: number;
  /** Separator before this unit when it follows the previous unit in the same chunk. */
  gap: string;
  /** Headings that contain the unit's start, outermost first (an H3 under its H2 under the H1). */
  heading: string[];
  /** The unit opens with a heading: the best place to start a chunk. */
  startsSection: boolean;
  /** Set on the second and later pieces of a split code block, so an overlap can be merged into them. */
  continuesCode?: { fence: string; language: string };
}

export interface UnitLimits {
  /** Largest prose unit, in words. */
  maxWords: number;
  /** A code block up to this many words stays whole, even past maxWords. */
  maxCodeWords: number;
}

type Segment = { text: string; gap: string };

/**
 * Turns blocks into units: headings are glued to the block that follows them (a chunk never ends on a
 * heading), oversized prose is cut at lines, then sentences, then words, and only very long code is cut,
 * at line boundaries, re-opening the fence in each piece.
 */
export function buildChunkUnits(blocks: MarkdownBlock[], limits: UnitLimits): ChunkUnit[] {
  return runAtOnce(buildChunkUnitsInSteps(blocks, limits));
}

/** buildChunkUnits, yielding every STEP_ITEMS blocks. */
export function* buildChunkUnitsInSteps(blocks: MarkdownBlock[], limits: UnitLimits): Steps<ChunkUnit[]> {
  const units: ChunkUnit[] = [];
  let pendingHeadings: Extract<MarkdownBlock, { kind: 'heading' }>[] = [];
  const open: { level: number; title: string }[] = [];
  let heading: string[] = [];

  for (let index = 0; index < blocks.length; index += 1) {
    if (index > 0 && index % STEP_ITEMS === 0) yield;
    const block = blocks[index]!;
    if (block.kind === 'heading') {
      pendingHeadings.push(block);
      while (open.length > 0 && open.at(-1)!.level >= block.level) open.pop();
      open.push({ level: block.level, title: block.title });
      heading = open.map((h) => h.title);
      continue;
    }
    const pieces = block.kind === 'code' ? splitCode(block, limits) : splitProse(block.text, limits.maxWords);
    pieces.forEach((piece, index) => {
      const first = index === 0;
      const prefix = first ? pendingHeadings.map((h, i) => (i === 0 ? '' : h.gap) + h.text).join('') : '';
      const text = prefix === '' ? piece.text : `${prefix}${block.gap || '\n\n'}${piece.text}`;
      units.push({
        text,
        words: countWords(text),
        gap: first ? (pendingHeadings[0]?.gap ?? block.gap) : piece.gap,
        heading,
        startsSection: first && pendingHeadings.length > 0,
        ...(block.kind === 'code' && !first ? { continuesCode: { fence: block.fence, language: block.language } } : {}),
      });
    });
    pendingHeadings = [];
  }
  if (pendingHeadings.length > 0) {
    const text = pendingHeadings.map((h, i) => (i === 0 ? '' : h.gap) + h.text).join('');
    units.push({ text, words: countWords(text), gap: pendingHeadings[0]!.gap, heading, startsSection: true });
  }
  return units;
}

function splitCode(block: Extract<MarkdownBlock, { kind: 'code' }>, limits: UnitLimits): Segment[] {
  if (countWords(block.text) <= limits.maxCodeWords) return [{ text: block.text, gap: block.gap }];
  const lines = block.text.split('\n');
  const closed = lines.length > 1 && lines[lines.length - 1]!.trim().startsWith(block.fence);
  const body = lines.slice(1, closed ? -1 : undefined);
  const open = lines[0]!;
  const close = `${block.indent}${block.fence}`;
  return packSegments(
    body.map((text) => ({ text, gap: '\n' })),
    limits.maxWords,
  ).map((piece) => ({
    text: `${open}\n${piece.text}\n${close}`,
    gap: '\n\n',
  }));
}

/** Cuts prose at the coarsest boundary that fits: lines (list items, table rows), then sentences, then words. */
export function splitProse(text: string, maxWords: number): Segment[] {
  if (countWords(text) <= maxWords) return [{ text, gap: '' }];
  const lines = text.split('\n');
  if (lines.length > 1) {
    const header = tableHeader(lines);
    const rows = header ? lines.slice(2) : lines;
    const pieces = packSegments(
      rows.flatMap((line) =>
        splitProse(line, maxWords - countWords(header ?? '')).map((s, i) => ({ ...s, gap: i === 0 ? '\n' : ' ' })),
      ),
      maxWords - countWords(header ?? ''),
    );
    // A table cut in pieces repeats its header so every piece stays a table.
    return header ? pieces.map((piece) => ({ text: `${header}\n${piece.text}`, gap: '\n\n' })) : pieces;
  }
  const sentences = text.split(/(?<=[.!?]["')\]]*)\s+(?=\S)/);
  if (sentences.length > 1)
    return packSegments(
      sentences.map((s) => ({ text: s, gap: ' ' })),
      maxWords,
    );
  const words = text.split(/\s+/).filter((word) => word !== '');
  return packSegments(
    words.map((word) => ({ text: word, gap: ' ' })),
    maxWords,
  );
}

function tableHeader(lines: string[]): string | null {
  const [head, rule] = lines;
  if (!head || !rule || !/^\s*\|/.test(head) || !/^\s*\|?\s*:?-{3,}/.test(rule)) return null;
  return `${head}\n${rule}`;
}

/** Greedily joins segments into pieces of at most `maxWords` words (a lone larger segment stays whole). */
function packSegments(segments: Segment[], maxWords: number): Segment[] {
  const pieces: Segment[] = [];
  let current: Segment | null = null;
  let currentWords = 0;
  for (const segment of segments) {
    const words = countWords(segment.text);
    if (current && currentWords + words > maxWords) {
      pieces.push(current);
      current = null;
    }
    if (current) {
      current.text += segment.gap + segment.text;
      currentWords += words;
    } else {
      current = { text: segment.text, gap: segment.gap };
      currentWords = words;
    }
  }
  if (current) pieces.push(current);
  return pieces;
}
