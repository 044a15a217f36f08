import type { AnyNode, Element } from 'domhandler';
import { isElementNode, isTextNode, removeNodes } from './dom-nodes';
import { wordsOf } from './text-amounts';

/**
 * A story's standfirst set as a heading under its headline: `<h1>` then an `<h2>` that is a sentence or two ("The
 * home-improvement retailer earned $2.8 billion in the third quarter."). It sums the story up for the front page; it
 * is not one of the story's sections, whose headings name them and end with no full stop. Told by its place and its
 * punctuation, not by names.
 */

/** A standfirst is a sentence of this many words at least. */
const MIN_WORDS = 8;
const SUBHEADING_TAGS = new Set(['h2', 'h3', 'h4', 'h5', 'h6']);
/** Ends as a sentence does: a full stop, not a question (a section may ask what it answers). */
const SENTENCE_END = /[.…]["'”’)]?$/;

/** Removes from `top`, an article's content, the heading right after its headline when it is a standfirst. */
export function removeStandfirst(top: Element): void {
  const headline = firstHeadline(top);
  if (!headline) return;
  let next: AnyNode | null = headline.next;
  while (next && isTextNode(next) && !/\S/.test(next.data)) next = next.next;
  if (!next || !isElementNode(next) || !SUBHEADING_TAGS.has(next.name)) return;
  const text = textOf(next).replace(/\s+/g, ' ').trim();
  if (wordsOf(text).length < MIN_WORDS || !SENTENCE_END.test(text)) return;
  removeNodes([next]);
}

function firstHeadline(top: Element): Element | null {
  const stack: Element[] = [top];
  while (stack.length > 0) {
    const element = stack.pop()!;
    if (element.name === 'h1') return element;
    for (let i = element.children.length - 1; i >= 0; i--) {
      const child = element.children[i]!;
      if (isElementNode(child)) stack.push(child);
    }
  }
  return null;
}

function textOf(element: Element): string {
  let text = '';
  const stack: AnyNode[] = [element];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTextNode(node)) text += node.data;
    else if (isElementNode(node)) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return text;
}
