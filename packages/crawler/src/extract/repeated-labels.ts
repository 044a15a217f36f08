import type { Element } from 'domhandler';
import { BLOCK_TAGS } from './block-measures';
import { holds, isElementNode, removeNodes } from './dom-nodes';
import { shortText, wordsOf } from './text-amounts';

/**
 * Labels an article repeats between its paragraphs: a block of one short line, the same line again and again
 * ("Advertisement" over each ad slot, "Story continues below"). A story never says one short line three times as a
 * paragraph of its own; told by repetition, not by the words: a block of three words at most, no digits (a rating's
 * "5/5" is a value), no link, alone in its wrapper (an ad slot, empty here; a "Pros" over its list is not alone).
 * Headings, table cells and list items are never judged: a comparison's and a table's values repeat by nature.
 */

/** A label is this short at most (characters)… */
const MAX_LABEL_CHARS = 30;
/** …and words. */
const MAX_LABEL_WORDS = 3;
/** The same label stands alone this many times at least. */
const MIN_REPEATS = 3;
/** Never judged, nor what is inside them. */
const KEPT_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'code', 'table', 'li', 'dl', 'a']);

/** Removes from `top`, an article's content, the blocks that are one short line said MIN_REPEATS times or more. */
export function removeRepeatedLabels(top: Element): void {
  const labels = new Map<string, Element[]>();
  const stack: Element[] = [top];
  while (stack.length > 0) {
    const element = stack.pop()!;
    for (const child of element.children) {
      if (!isElementNode(child) || KEPT_TAGS.has(child.name)) continue;
      const text = BLOCK_TAGS.has(child.name) ? shortText(child, MAX_LABEL_CHARS) : null;
      if (
        text &&
        wordsOf(text).length > 0 &&
        wordsOf(text).length <= MAX_LABEL_WORDS &&
        !/\p{N}/u.test(text) &&
        !holdsLink(child) &&
        labelsNothing(child, text)
      ) {
        const key = text.toLowerCase();
        const same = labels.get(key);
        if (same) same.push(child);
        else labels.set(key, [child]);
      } else stack.push(child);
    }
  }
  removeNodes([...labels.values()].filter((same) => same.length >= MIN_REPEATS).flat());
}

const holdsLink = (element: Element) => holds(element, (node) => node.name === 'a');

/** Whether the label stands over nothing with text: its wrapper says no more than it does (an ad slot, empty here). */
function labelsNothing(label: Element, text: string): boolean {
  const parent = label.parent;
  if (!parent || !isElementNode(parent)) return true;
  return shortText(parent, MAX_LABEL_CHARS) === text;
}
