import type { AnyNode } from 'domhandler';
import { isElementNode, isTextNode } from './dom-nodes';

/** How much visible text a node holds: characters that are not white space, and how many of them are link text. */
export interface TextAmount {
  chars: number;
  linkChars: number;
}

/** Elements whose text is never shown as the page's text. */
const INVISIBLE_TEXT_TAGS = new Set(['script', 'style', 'noscript', 'template', 'head', 'title']);
const NO_TEXT: TextAmount = { chars: 0, linkChars: 0 };

/**
 * The visible text of `top` and of every element under it, measured in one walk: what judging each element by its
 * share of the page's text needs, without a `.text()` pass per element (quadratic on a deep page). The walk keeps its
 * own stack, so a page nested thousands of levels deep does not overflow the call stack.
 */
export function measureTextAmounts(top: AnyNode): Map<AnyNode, TextAmount> {
  const amounts = new Map<AnyNode, TextAmount>();
  // Each node is pushed twice: to open it (push its children) and, after them, to close it (sum their amounts).
  const stack: { node: AnyNode; closing: boolean }[] = [{ node: top, closing: false }];
  while (stack.length > 0) {
    const { node, closing } = stack.pop()!;
    if (isTextNode(node)) {
      const chars = countVisibleChars(node.data);
      amounts.set(node, { chars, linkChars: 0 });
      continue;
    }
    if (!('children' in node) || (isElementNode(node) && INVISIBLE_TEXT_TAGS.has(node.name))) {
      amounts.set(node, NO_TEXT);
      continue;
    }
    if (!closing) {
      stack.push({ node, closing: true });
      for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, closing: false });
      continue;
    }
    let chars = 0;
    let linkChars = 0;
    for (const child of node.children) {
      const amount = amounts.get(child) ?? NO_TEXT;
      chars += amount.chars;
      linkChars += amount.linkChars;
    }
    const isLink = isElementNode(node) && node.name === 'a' && node.attribs.href !== undefined;
    amounts.set(node, { chars, linkChars: isLink ? chars : linkChars });
  }
  return amounts;
}

function countVisibleChars(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Space, tab, line feed, carriage return, form feed and no-break space.
    if (code !== 32 && code !== 10 && code !== 9 && code !== 13 && code !== 12 && code !== 160) count += 1;
  }
  return count;
}

/** The share of an amount's text that is link text (0 for no text). */
export function linkDensity(amount: TextAmount): number {
  return amount.chars === 0 ? 0 : amount.linkChars / amount.chars;
}

/** A text's words, lower-cased: runs of letters and digits in any script. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The element's text with white space collapsed when that is at most `max` characters, else null: found without
 * building a longer text than needed, so asking it of every block of a page stays linear.
 */
export function shortText(element: AnyNode, max: number): string | null {
  let text = '';
  const stack: AnyNode[] = [element];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTextNode(node)) {
      text += node.data;
      if (text.length > max && collapse(text).length > max) return null;
    } else if (isElementNode(node)) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return collapse(text);
}

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();
