import type { Element } from 'domhandler';
import { BLOCK_TAGS } from './block-measures';
import { isElementNode, removeNodes } from './dom-nodes';
import { shortText } from './text-amounts';

/**
 * A story's dateline: a block saying when it was published or updated and nothing else ("Updated Nov 19, 6:55 AM;
 * Posted Nov 19, 6:51 AM", "PUBLISHED: 10:48, Tue, Nov 19, 2019 | UPDATED: 11:05, Tue, Nov 19, 2019"). Told by its
 * text: dates, times and the words that announce them, no other word. Readability keeps it, as a line of the story.
 */

/** A dateline is this short at most (characters): a line, not a paragraph. */
const MAX_CHARS = 160;
const ANNOUNCING = new Set(['published', 'updated', 'posted', 'modified']);
const DATE_WORDS = new Set([
  ...ANNOUNCING,
  ...['last', 'on', 'at', 'am', 'pm', 'a', 'p', 'm', 'st', 'nd', 'rd', 'th'],
  ...['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec'],
  ...['january', 'february', 'march', 'april', 'june', 'july', 'august', 'september', 'october', 'november'],
  'december',
  ...['mon', 'tue', 'tues', 'wed', 'thu', 'thur', 'thurs', 'fri', 'sat', 'sun'],
  ...['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
  ...[
    'et',
    'pt',
    'ct',
    'mt',
    'est',
    'edt',
    'pst',
    'pdt',
    'cst',
    'cdt',
    'mst',
    'mdt',
    'gmt',
    'utc',
    'bst',
    'cet',
    'ist',
  ],
]);
const HEADING_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** Removes the datelines under `top`, an article's content (headings are never one). */
export function removeDatelines(top: Element): void {
  const doomed: Element[] = [];
  const stack: Element[] = [top];
  while (stack.length > 0) {
    const element = stack.pop()!;
    for (const child of element.children) {
      if (!isElementNode(child) || HEADING_TAGS.has(child.name)) continue;
      const text = BLOCK_TAGS.has(child.name) ? shortText(child, MAX_CHARS) : null;
      if (text !== null && isDateline(text)) doomed.push(child);
      else stack.push(child);
    }
  }
  removeNodes(doomed);
}

function isDateline(text: string): boolean {
  const tokens = text.toLowerCase().match(/\p{L}+|\p{N}+/gu) ?? [];
  return (
    tokens.some((token) => ANNOUNCING.has(token)) &&
    tokens.some((token) => /^\d+$/.test(token)) &&
    tokens.every((token) => /^\d+$/.test(token) || DATE_WORDS.has(token))
  );
}
