import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { hasChromeName, splitNameWords } from './chrome-names';
import { isElementNode, isTextNode, removeNodes } from './dom-nodes';
import { linkDensity, measureTextAmounts, type TextAmount } from './text-amounts';

/**
 * Where a page has no documentation generator's root, the content root is a generic landmark (`<article>`, `<main>`,
 * `#content`) or the whole `<body>`: on a news or blog page that is the article with everything around it, related
 * stories, share bars, comments. This finds the block holding the page's prose, the way Readability and trafilatura
 * do: every paragraph of real text scores by its length and its commas, the score goes to its parent and, less, to
 * the ancestors above; a block's score is cut by its link density; the best block, widened where its neighbours score
 * alike, is the content. The headline above it and the siblings that are prose too stay; what else stands beside them
 * goes. One walk over the page: no element is asked for its text.
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

/** Blocks that are a paragraph themselves: their text scores for the block around them (Readability's list). */
const PARAGRAPH_TAGS = new Set(['p', 'pre', 'td', 'h2', 'h3', 'h4', 'h5', 'h6', 'section']);
/** Blocks whose loose text (text beside their child blocks) makes a paragraph of their own. */
const CONTAINER_TAGS = new Set(['div', 'article', 'main', 'section', 'body', 'center', 'blockquote', 'td', 'form']);

/** A paragraph shorter than this (characters that are not white space) is a label, not prose. */
const MIN_PARAGRAPH_CHARS = 25;
/** How many ancestors above a paragraph its score reaches. */
const SCORE_LEVELS = 5;
/** Candidates scoring this share of the best one count as alternatives: three of them under one ancestor make it the content. */
const ALTERNATIVE_SHARE = 0.75;
const MIN_ALTERNATIVES = 3;
/** The content block is widened until it holds this share of the page's prose. */
const PROSE_SHARE = 0.6;
/** A paragraph with this share of its text in links is a teaser or a link list, not prose. */
const PROSE_MAX_LINK_DENSITY = 0.5;
/** Blocks whose text is a caption, not prose. */
const CAPTION_TAGS = new Set(['figure', 'figcaption']);
/** Between the headline and the content block, an element this much prose (a standfirst) stays whole. */
const LEDE_PROSE_SHARE = 0.6;
/**
 * Names of the regions readers write in (comments, replies): their prose is the readers', not the page's. A name is
 * weak evidence, so it only cuts the score of what it holds and keeps its prose out of the page's.
 */
const DISCUSSION_WORDS = new Set(['comment', 'comments', 'disqus', 'discussion', 'replies']);
const DISCUSSION_FACTOR = 1 / 3;
/** Blocks judged as link lists inside the content (removeLinkLists). */
const LINK_LIST_TAGS = new Set(['div', 'section', 'table', 'aside', 'nav', 'footer', 'header']);
/** Link text over this share of a block's text makes it a link list. */
const LINK_LIST_DENSITY = 0.5;
/** No block holding this share of the content's text is removed as a link list. */
const PAGE_SHARE = 0.5;
/** A link list holds this many links at least: a lone link between paragraphs ("Read more: …") is the article's. */
const LINK_LIST_MIN_LINKS = 2;
/**
 * A block of at least this many links whose text outside them is mostly cut-off excerpts (ending in "..." or "…",
 * one for at least half of the links) is a list of teasers of other pages ("Breaking news", "Latest"), however much
 * of its text is the excerpts'.
 */
const TEASER_MIN_LINKS = 3;
const EXCERPT_END = /(?:\.\.\.|…)\s*$/;
/** This many paragraphs (or divs) in a row, each one link and nothing else, are a link list too ("Sponsored links"). */
const LINK_RUN_MIN = 3;
const SUBHEADING_TAGS = new Set(['h2', 'h3', 'h4', 'h5', 'h6']);

/** A block's own starting score, by what it is (Readability's). */
function tagScore(tag: string): number {
  switch (tag) {
    case 'div':
    case 'article':
    case 'main':
      return 5;
    case 'pre':
    case 'td':
    case 'blockquote':
      return 3;
    case 'address':
    case 'ol':
    case 'ul':
    case 'dl':
    case 'dd':
    case 'dt':
    case 'li':
    case 'form':
      return -3;
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6':
    case 'th':
      return -5;
    default:
      return 0;
  }
}

/** Text a block holds directly (outside its child blocks). */
interface OwnText {
  chars: number;
  linkChars: number;
  commas: number;
}

interface Measures {
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
  /** Whether code (`<pre>`, `<code>`) stands anywhere under the root. */
  holdsCode: boolean;
}

/** One walk over `top`: the text each block holds directly, its commas and link text, and the prose under each element. */
function measureBlocks(top: Element): Measures {
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
    if (node.name === 'pre' || node.name === 'code') holdsCode = true;
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

/** The page's prose for a content block: all of it but that of the aside regions around or beside the block. */
function pageProseFor(best: Element, top: Element, measures: Measures): number {
  let prose = measures.prose.get(top) ?? 0;
  for (const aside of measures.asides) if (!isInside(best, aside)) prose -= measures.prose.get(aside) ?? 0;
  return prose;
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

/** Readability's content score of every block that holds paragraphs, within `top`. */
function scoreBlocks(top: Element, measures: Measures): Map<Element, number> {
  const scores = new Map<Element, number>();
  const add = (element: Element, score: number) => {
    scores.set(element, (scores.get(element) ?? tagScore(element.name)) + score);
  };
  for (const block of measures.blocks) {
    const text = measures.own.get(block);
    // Readers' comments, a footer's legal lines and a dialog's help are not the page's prose: they raise no block's score.
    if (!text || text.chars < MIN_PARAGRAPH_CHARS || measures.discussion.has(block) || measures.unscored.has(block))
      continue;
    let first: Element | null;
    if (PARAGRAPH_TAGS.has(block.name)) first = block === top ? null : parentElement(block);
    else if (CONTAINER_TAGS.has(block.name)) first = block;
    else continue;
    const score = 1 + text.commas + Math.min(Math.floor(text.chars / 100), 3);
    let level = 0;
    for (let element = first; element && level < SCORE_LEVELS; element = parentElement(element), level++) {
      add(element, score / (level === 0 ? 1 : level === 1 ? 2 : level * 3));
      if (element === top) break;
    }
  }
  for (const [element, score] of scores) {
    const weight = measures.discussion.has(element) ? DISCUSSION_FACTOR : 1;
    scores.set(element, score * weight * (1 - linkDensity(measures.amounts.get(element) ?? NO_TEXT)));
  }
  return scores;
}

const NO_TEXT: TextAmount = { chars: 0, linkChars: 0 };

function parentElement(node: AnyNode): Element | null {
  const parent = node.parent;
  return parent && isElementNode(parent) ? parent : null;
}

/** The best-scoring block, widened to the ancestor holding its close rivals or scoring better than it (Readability). */
function selectBestBlock(top: Element, scores: Map<Element, number>): Element | null {
  const ranked = [...scores].filter(([, score]) => score > 0).sort((a, b) => b[1] - a[1]);
  if (ranked.length === 0) return null;
  let [best, bestScore] = ranked[0]!;
  // Paragraphs split among several blocks: the ancestor holding three close rivals is the content.
  const rivals = ranked
    .slice(1, 5)
    .filter(([, score]) => score >= bestScore * ALTERNATIVE_SHARE)
    .map(([element]) => ancestorsOf(element, top));
  if (rivals.length >= MIN_ALTERNATIVES) {
    for (let parent = parentElement(best); parent && parent !== top; parent = parentElement(parent)) {
      if (rivals.filter((ancestors) => ancestors.has(parent)).length >= MIN_ALTERNATIVES) {
        best = parent;
        break;
      }
    }
  }
  bestScore = scores.get(best) ?? bestScore;
  // An ancestor scoring better than the block (its other children hold prose too) is the content.
  const threshold = bestScore / 3;
  let last = bestScore;
  for (let parent = parentElement(best); parent && best !== top; parent = parentElement(parent)) {
    const score = scores.get(parent);
    if (score === undefined) {
      if (parent === top) break;
      continue;
    }
    if (score < threshold) break;
    if (score > last) {
      best = parent;
      break;
    }
    last = score;
    if (parent === top) break;
  }
  return best;
}

function ancestorsOf(element: Element, top: Element): Set<Element> {
  const ancestors = new Set<Element>();
  for (let parent = parentElement(element); parent; parent = parentElement(parent)) {
    ancestors.add(parent);
    if (parent === top) break;
  }
  return ancestors;
}

/** Whether a sibling of the content block is content too: it scores near it, or it is a paragraph of prose. */
function isProseSibling(
  sibling: Element,
  bestScore: number,
  measures: Measures,
  scores: Map<Element, number>,
): boolean {
  const score = scores.get(sibling) ?? 0;
  if (score >= Math.max(10, bestScore * 0.2)) return true;
  if (sibling.name !== 'p') return false;
  const amount = measures.amounts.get(sibling) ?? NO_TEXT;
  const density = linkDensity(amount);
  if (amount.chars > 80) return density < 0.25;
  return density === 0 && amount.chars > 0;
}

/** The content block and the siblings that are content too. */
function withProseSiblings(best: Element, measures: Measures, scores: Map<Element, number>): Element[] {
  const parent = parentElement(best);
  if (!parent) return [best];
  const bestScore = scores.get(best) ?? 0;
  return parent.children.filter(
    (sibling): sibling is Element =>
      isElementNode(sibling) && (sibling === best || isProseSibling(sibling, bestScore, measures, scores)),
  );
}

/**
 * Narrows a generic content root to the block holding the page's prose, with the headline above it, the siblings
 * that are prose too and the prose between headline and block (a standfirst); everything else inside the new root
 * is removed. Returns `root` itself when its prose is not in one block of it.
 */
export function selectContentBlock($: CheerioAPI, root: Cheerio<Element>): Cheerio<Element> {
  const top = root[0];
  if (!top) return root;
  const measures = measureBlocks(top);
  // Code is documentation's: its headings, tables and examples beside the longest prose block are content, which the
  // sibling rules below, made for articles, would drop. The landmark is kept as it is.
  if (measures.holdsCode) return root;
  const scores = scoreBlocks(top, measures);
  let best = selectBestBlock(top, scores);
  if (!best) return root;
  let kept = withProseSiblings(best, measures, scores);
  // Widened until it holds most of the page's prose: a block that won on commas (a caption) or one of several
  // chunks of an article is not the content alone.
  while (
    best !== top &&
    kept.reduce((sum, e) => sum + (measures.prose.get(e) ?? 0), 0) < pageProseFor(best, top, measures) * PROSE_SHARE
  ) {
    best = parentElement(best) ?? top;
    kept = best === top ? [top] : withProseSiblings(best, measures, scores);
  }
  // A block alone in its parent is its parent.
  while (best !== top && kept.length === 1) {
    const parent = parentElement(best);
    if (!parent || parent.children.filter(isElementNode).length !== 1) break;
    best = parent;
    kept = [best];
  }
  if (best === top) return root;
  const headline = findHeadline(measures.blocks, best);
  if (headline) kept.push(headline);
  const newRoot = commonAncestor(kept, top);
  prune($, newRoot, new Set(kept), headline, best, measures);
  removeLinkLists(newRoot, measures);
  return $(newRoot);
}

/**
 * Removes from the content the blocks that are lists of links, named or not: teaser lists ("More stories", "Top
 * video"), tag lists and link bars among or after an article's paragraphs (Readability's conditional cleaning). The
 * heading over such a list goes with it. Only blocks holding less than half the content's text are judged.
 */
function removeLinkLists(newRoot: Element, measures: Measures): void {
  const rootChars = (measures.amounts.get(newRoot) ?? NO_TEXT).chars;
  const doomed: Element[] = [];
  const stack: Element[] = [newRoot];
  while (stack.length > 0) {
    const element = stack.pop()!;
    for (const child of element.children) {
      if (!isElementNode(child)) continue;
      const amount = measures.amounts.get(child) ?? NO_TEXT;
      if (amount.chars === 0) continue;
      if (
        LINK_LIST_TAGS.has(child.name) &&
        amount.chars < rootChars * PAGE_SHARE &&
        (isLinkList(amount, child) || isTeaserList(child))
      ) {
        doomed.push(child);
        const heading = headingBefore(child);
        if (heading) doomed.push(heading);
      } else stack.push(child);
    }
    doomed.push(...linkRuns(element, measures, rootChars));
  }
  removeNodes(doomed);
}

/** Links to other pages, each followed by a cut-off excerpt of that page: a teaser list, not the page's own text. */
function isTeaserList(element: Element): boolean {
  const links = countLinks(element);
  if (links < TEASER_MIN_LINKS) return false;
  let excerpts = 0;
  const stack: AnyNode[] = [...element.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTextNode(node)) {
      if (EXCERPT_END.test(node.data)) excerpts += 1;
    } else if (isElementNode(node) && node.name !== 'a') stack.push(...node.children);
  }
  return excerpts >= TEASER_MIN_LINKS && excerpts * 2 >= links;
}

/**
 * Runs of LINK_RUN_MIN or more sibling paragraphs or divs that are each a single link and nothing else (together under
 * half the content's text): a list of links written as paragraphs. One such paragraph among others is the article's.
 */
function linkRuns(parent: Element, measures: Measures, rootChars: number): Element[] {
  const found: Element[] = [];
  let run: Element[] = [];
  const close = () => {
    const chars = run.reduce((sum, p) => sum + (measures.amounts.get(p) ?? NO_TEXT).chars, 0);
    if (run.length >= LINK_RUN_MIN && chars < rootChars * PAGE_SHARE) found.push(...run);
    run = [];
  };
  for (const child of parent.children) {
    if (isTextNode(child) && !/\S/.test(child.data)) continue;
    if (isElementNode(child) && (child.name === 'p' || child.name === 'div') && isWholeLink(child, measures))
      run.push(child);
    else close();
  }
  close();
  return found;
}

/** A paragraph whose text is all one link's. */
function isWholeLink(paragraph: Element, measures: Measures): boolean {
  const amount = measures.amounts.get(paragraph) ?? NO_TEXT;
  return amount.chars > 0 && amount.linkChars >= amount.chars && countLinks(paragraph) === 1;
}

/**
 * Removes from `newRoot` what is neither kept nor on the way to it; between the headline and the content block, prose
 * stays (a standfirst) and the rest goes (bylines, dates, share bars, the lead image's caption).
 */
function prune(
  $: CheerioAPI,
  newRoot: Element,
  kept: Set<Element>,
  headline: Element | null,
  best: Element,
  measures: Measures,
): void {
  if (kept.has(newRoot)) return;
  const onPath = new Set<Element>();
  for (const element of kept)
    for (let node: Element | null = element; node && node !== newRoot; node = parentElement(node)) onPath.add(node);
  const from = headline ? measures.order.get(headline)! : Infinity;
  const to = measures.order.get(best)!;
  const between = (element: Element) => {
    const place = measures.order.get(element);
    return place !== undefined && place > from && place < to;
  };
  const doomed: Element[] = [];
  const stack: { element: Element; lede: boolean }[] = [{ element: newRoot, lede: false }];
  while (stack.length > 0) {
    const { element, lede } = stack.pop()!;
    for (const child of element.children) {
      if (!isElementNode(child) || kept.has(child)) continue;
      if (onPath.has(child)) {
        stack.push({ element: child, lede: false });
        continue;
      }
      if (!(lede || between(child))) {
        doomed.push(child);
        continue;
      }
      const prose = measures.prose.get(child) ?? 0;
      const chars = (measures.amounts.get(child) ?? NO_TEXT).chars;
      if (prose === 0) doomed.push(child);
      else if (prose < chars * LEDE_PROSE_SHARE) stack.push({ element: child, lede: true });
    }
  }
  removeNodes(doomed);
}

/** The page's headline: the last `<h1>` before the content block, unless the block holds one. */
function findHeadline(blocks: Element[], best: Element): Element | null {
  let headline: Element | null = null;
  let passed = false;
  for (const block of blocks) {
    if (block === best) passed = true;
    if (block.name !== 'h1') continue;
    if (!passed) headline = block;
    else if (isInside(block, best)) return null;
  }
  return headline;
}

function isInside(node: Element, ancestor: Element): boolean {
  for (let parent = parentElement(node); parent; parent = parentElement(parent)) if (parent === ancestor) return true;
  return false;
}

function commonAncestor(elements: Element[], top: Element): Element {
  let common = elements[0]!;
  for (const element of elements.slice(1)) {
    const ancestors = new Set<Element>();
    for (let node: Element | null = element; node; node = node === top ? null : parentElement(node))
      ancestors.add(node);
    while (!ancestors.has(common) && common !== top) common = parentElement(common) ?? top;
  }
  return common;
}

/** Mostly link text, in several links. */
function isLinkList(amount: TextAmount, element: Element): boolean {
  return linkDensity(amount) >= LINK_LIST_DENSITY && countLinks(element) >= LINK_LIST_MIN_LINKS;
}

function countLinks(element: Element): number {
  let count = 0;
  const stack: AnyNode[] = [...element.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElementNode(node)) continue;
    if (node.name === 'a' && node.attribs.href !== undefined) count += 1;
    else stack.push(...node.children);
  }
  return count;
}

/** The heading standing right before `element`: the list's title ("More stories"), which goes with it. */
function headingBefore(element: Element): Element | null {
  for (let node = element.prev; node; node = node.prev) {
    if (isTextNode(node) && !/\S/.test(node.data)) continue;
    return isElementNode(node) && SUBHEADING_TAGS.has(node.name) ? node : null;
  }
  return null;
}
