import type { AnyNode, Element } from 'domhandler';
import { hasChromeName, splitNameWords } from './chrome-names';
import { isElementNode, isTextNode } from './dom-nodes';
import { measureTextAmounts, type TextAmount } from './text-amounts';

/**
 * One walk over a content root measuring what choosing its content block needs (content-blocks.ts): the text each
 * block holds directly (its characters, link text and commas), each element's prose, and the regions whose text is
 * not the page's own (readers' comments, footers, navigation, asides, dialogs). No element is asked for its text.
 */

/** Elements whose text is never the page's. */
const SKIPPED_TAGS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'title',
  'svg',
  'iframe',
  'object',
  'embed',
  'canvas',
  'button',
  'select',
  'textarea',
  'input',
]);

/** Elements that start a block: text inside one belongs to it, not to the block around it. */
export const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'center',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);

/** A paragraph shorter than this (characters that are not white space) is a label, not prose. */
export const MIN_PARAGRAPH_CHARS = 25;

/** A paragraph with this share of its text in links is a teaser or a link list, not prose. */
const PROSE_MAX_LINK_DENSITY = 0.5;

/** Blocks whose text is a caption, not prose. */
const CAPTION_TAGS = new Set(['figure', 'figcaption']);

/**
 * Names of the regions readers write in (comments, replies): their prose is the readers', not the page's. A name is
 * weak evidence, so it only cuts the score of what it holds and keeps its prose out of the page's.
 */
const DISCUSSION_WORDS = new Set(['comment', 'comments', 'disqus', 'discussion', 'replies']);

/** Text a block holds directly (outside its child blocks). */
interface OwnText {
  chars: number;
  linkChars: number;
  commas: number;
}

export interface Measures {
  amounts: Map<AnyNode, TextAmount>;
  /** Each block's own text: what it says beside its child blocks. */
  own: Map<Element, OwnText>;
  /** Blocks in document order. */
  blocks: Element[];
  /** Every element's place in document order. */
  order: Map<Element, number>;
  /** Characters of prose each element holds: paragraphs of text outside links, captions and discussions. */
  prose: Map<Element, number>;
  /** Elements inside (or being) a region named for readers' comments. */
  discussion: Set<Element>;
  /** Elements inside (or being) a chrome landmark or a dialog (UNSCORED_TAGS, UNSCORED_ROLES): their prose scores nothing. */
  unscored: Set<Element>;
  /**
   * The outermost regions whose prose is not the page's: landmarks of chrome (`footer`, `nav`, `aside` and their
   * roles), elements named as chrome or as readers' comments. A footer's legal text or a comment is prose, but the
   * content block is not widened to take it in.
   */
  asides: Element[];
  /** Whether code (a `<pre>` or `<code>` holding text) stands anywhere under the root. */
  holdsCode: boolean;
}

/** One walk over `top`: the text each block holds directly, its commas and link text, and the prose under each element. */
export function measureBlocks(top: Element): Measures {
  const amounts = measureTextAmounts(top);
  const own = new Map<Element, OwnText>();
  const blocks: Element[] = [];
  const elements: Element[] = [];
  const order = new Map<Element, number>();
  const discussion = new Set<Element>();
  const unscored = new Set<Element>();
  const asides: Element[] = [];
  let holdsCode = false;
  const stack: {
    node: AnyNode;
    block: Element;
    inLink: boolean;
    inDiscussion: boolean;
    inAside: boolean;
    inUnscored: boolean;
  }[] = [{ node: top, block: top, inLink: false, inDiscussion: false, inAside: false, inUnscored: false }];
  while (stack.length > 0) {
    const { node, block, inLink, inDiscussion, inAside, inUnscored } = stack.pop()!;
    if (isTextNode(node)) {
      const amount = amounts.get(node);
      if (!amount || amount.chars === 0) continue;
      let text = own.get(block);
      if (!text) own.set(block, (text = { chars: 0, linkChars: 0, commas: 0 }));
      text.chars += amount.chars;
      if (inLink) text.linkChars += amount.chars;
      text.commas += countCommas(node.data);
      continue;
    }
    if (!isElementNode(node) || SKIPPED_TAGS.has(node.name)) continue;
    // An empty `<pre>` (a video embed's placeholder) is no code.
    if ((node.name === 'pre' || node.name === 'code') && (amounts.get(node) ?? NO_TEXT).chars > 0) holdsCode = true;
    order.set(node, elements.length);
    elements.push(node);
    const isBlock = node === top || BLOCK_TAGS.has(node.name);
    if (isBlock) blocks.push(node);
    const inDiscussionHere = inDiscussion || hasDiscussionName(node);
    if (inDiscussionHere) discussion.add(node);
    const inUnscoredHere = inUnscored || (node !== top && isUnscoredRegion(node));
    if (inUnscoredHere) unscored.add(node);
    const isAside = !inAside && node !== top && (inDiscussionHere || isChromeRegion(node));
    if (isAside) asides.push(node);
    const inLinkHere = inLink || (node.name === 'a' && node.attribs.href !== undefined);
    for (let i = node.children.length - 1; i >= 0; i--)
      stack.push({
        node: node.children[i]!,
        block: isBlock ? node : block,
        inLink: inLinkHere,
        inDiscussion: inDiscussionHere,
        inAside: inAside || isAside,
        inUnscored: inUnscoredHere,
      });
  }
  const prose = new Map<Element, number>();
  for (const block of blocks) {
    const text = own.get(block);
    if (!text || text.chars < MIN_PARAGRAPH_CHARS || CAPTION_TAGS.has(block.name) || discussion.has(block)) continue;
    if (text.linkChars / text.chars >= PROSE_MAX_LINK_DENSITY) continue;
    prose.set(block, text.chars - text.linkChars);
  }
  // Children come after their parents in document order: summed from the last, each element's prose is complete
  // when it is added to its parent's.
  for (let i = elements.length - 1; i > 0; i--) {
    const element = elements[i]!;
    const amount = prose.get(element);
    const parent = parentElement(element);
    if (amount && parent && element !== top) prose.set(parent, (prose.get(parent) ?? 0) + amount);
  }
  return { amounts, own, blocks, order, prose, discussion, unscored, asides, holdsCode };
}

const CHROME_REGION_TAGS = new Set(['footer', 'nav', 'aside']);
const CHROME_REGION_ROLES = new Set(['navigation', 'contentinfo', 'complementary']);

/**
 * Chrome landmarks and dialogs, by tag or role. A page whose only prose is its footer's copyright line or a search
 * dialog's help (a 404 page: "Page not found" is under a paragraph's length) must not take that for its content.
 */
const UNSCORED_TAGS = new Set(['footer', 'nav', 'aside', 'dialog']);
const UNSCORED_ROLES = new Set(['navigation', 'contentinfo', 'complementary', 'dialog', 'alertdialog', 'search']);

function isUnscoredRegion(element: Element): boolean {
  const { role } = element.attribs;
  return UNSCORED_TAGS.has(element.name) || (role !== undefined && UNSCORED_ROLES.has(role));
}

function isChromeRegion(element: Element): boolean {
  if (CHROME_REGION_TAGS.has(element.name)) return true;
  const { id, class: className, role } = element.attribs;
  return (role !== undefined && CHROME_REGION_ROLES.has(role)) || hasChromeName(id, className);
}

function hasDiscussionName(element: Element): boolean {
  const { id, class: className } = element.attribs;
  if (!id && !className) return false;
  return `${id ?? ''} ${className ?? ''}`
    .split(/\s+/)
    .flatMap(splitNameWords)
    .some((word) => DISCUSSION_WORDS.has(word));
}

function countCommas(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Comma, Arabic comma, ideographic comma, fullwidth comma.
    if (code === 44 || code === 0x60c || code === 0x3001 || code === 0xff0c) count += 1;
  }
  return count;
}

export const NO_TEXT: TextAmount = { chars: 0, linkChars: 0 };

export function parentElement(node: AnyNode): Element | null {
  const parent = node.parent;
  return parent && isElementNode(parent) ? parent : null;
}
