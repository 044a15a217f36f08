import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { MIN_PARAGRAPH_CHARS, NO_TEXT, measureBlocks, parentElement, type Measures } from './block-measures';
import { isElementNode, removeNodes } from './dom-nodes';
import { removeLinkLists } from './link-lists';
import { findTeaserCards } from './teaser-cards';
import { linkDensity, wordsOf } from './text-amounts';

/**
 * Where a page has no documentation generator's root, the content root is a generic landmark (`<article>`, `<main>`,
 * `#content`) or the whole `<body>`: on a news or blog page that is the article with everything around it, related
 * stories, share bars, comments. This finds the block holding the page's prose, the way Readability and trafilatura
 * do: every paragraph of real text scores by its length and its commas, the score goes to its parent and, less, to
 * the ancestors above; a block's score is cut by its link density; the best block, widened where its neighbours score
 * alike, is the content. The headline above it and the siblings that are prose too stay; what else stands beside them
 * goes. One walk over the page: no element is asked for its text.
 */

/** Blocks that are a paragraph themselves: their text scores for the block around them (Readability's list). */
const PARAGRAPH_TAGS = new Set(['p', 'pre', 'td', 'h2', 'h3', 'h4', 'h5', 'h6', 'section']);

/** Blocks whose loose text (text beside their child blocks) makes a paragraph of their own. */
const CONTAINER_TAGS = new Set(['div', 'article', 'main', 'section', 'body', 'center', 'blockquote', 'td', 'form']);

/** How many ancestors above a paragraph its score reaches. */
const SCORE_LEVELS = 5;

/** Candidates scoring this share of the best one count as alternatives: three of them under one ancestor make it the content. */
const ALTERNATIVE_SHARE = 0.75;
const MIN_ALTERNATIVES = 3;

/** A sibling of the content block's kind holding this much prose (characters), mostly outside links, is content too. */
const MIN_PART_PROSE = 200;
/** Parts are looked for beside the content block and beside this many of its wrappers (Elementor's container, inner box, widget). */
const PART_WRAPPER_LEVELS = 3;
const MAX_PART_LINK_DENSITY = 0.25;

/** The content block is widened until it holds this share of the page's prose. */
const PROSE_SHARE = 0.6;

/** Between the headline and the content block, an element this much prose (a standfirst) stays whole. */
const LEDE_PROSE_SHARE = 0.6;

/** An `<h1>` with this share of its words in the document's `<title>` says what the title says. */
const TITLE_WORDS_SHARE = 0.6;

/** The share of its score a block named for readers' comments keeps (block-measures.ts, DISCUSSION_WORDS). */
const DISCUSSION_FACTOR = 1 / 3;

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

/**
 * The page's prose for a content block: all of it but that of the regions beside the block that are not the page's
 * (`elsewhere`: asides, teaser cards).
 */
function pageProseFor(best: Element, top: Element, measures: Measures, elsewhere: Element[]): number {
  let prose = measures.prose.get(top) ?? 0;
  for (const region of elsewhere) if (!isInside(best, region)) prose -= measures.prose.get(region) ?? 0;
  return prose;
}

/** The regions whose prose is not the page's: asides and teaser cards, none inside another. */
function regionsElsewhere(top: Element, measures: Measures, cards: Set<Element>): Element[] {
  const regions = new Set([...measures.asides, ...cards]);
  return [...regions].filter((region) => {
    for (let parent = parentElement(region); parent && parent !== top; parent = parentElement(parent))
      if (regions.has(parent)) return false;
    return true;
  });
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

/**
 * Whether a sibling of the content block is another part of the same text: a block of the block's own kind (its tag
 * and class, numbering tokens aside) holding prose, as a page builder splits a post over several containers.
 */
function isSameKindPart(sibling: Element, best: Element, measures: Measures): boolean {
  if (sibling.name !== best.name) return false;
  const kind = classKind(best);
  if (kind === '' || classKind(sibling) !== kind) return false;
  const amount = measures.amounts.get(sibling) ?? NO_TEXT;
  return (measures.prose.get(sibling) ?? 0) >= MIN_PART_PROSE && linkDensity(amount) < MAX_PART_LINK_DENSITY;
}

/** A class without the tokens that number an element (`elementor-element-98fbbca`, `post-7816`). */
function classKind(element: Element): string {
  return (element.attribs.class ?? '')
    .split(/\s+/)
    .filter((token) => token !== '' && !/\d/.test(token))
    .sort()
    .join(' ');
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
  const cards = new Set(findTeaserCards(measures));
  const elsewhere = regionsElsewhere(top, measures, cards);
  // Widened until it holds most of the page's prose: a block that won on commas (a caption) or one of several
  // chunks of an article is not the content alone.
  while (
    best !== top &&
    kept.reduce((sum, e) => sum + (measures.prose.get(e) ?? 0), 0) <
      pageProseFor(best, top, measures, elsewhere) * PROSE_SHARE
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
  // The story's opening parts, scored too low to be kept beside its longest: before the block or before one of its
  // wrappers (a page builder's text widget inside a container of its own); a part after it of the same kind is as often
  // a press release's boilerplate, and is taken only when parts before it were.
  let part: Element | null = best;
  for (let level = 0; part && part !== top && level <= PART_WRAPPER_LEVELS; part = parentElement(part), level++) {
    let before = 0;
    for (let sibling = part.prev; sibling; sibling = sibling.prev)
      if (isElementNode(sibling) && !kept.includes(sibling) && isSameKindPart(sibling, part, measures)) {
        kept.push(sibling);
        before++;
      }
    // After it too when parts come before it: the block is then one part among several, not the text before an
    // "About us" of the same kind.
    if (before > 0)
      for (let sibling = part.next; sibling; sibling = sibling.next)
        if (isElementNode(sibling) && !kept.includes(sibling) && isSameKindPart(sibling, part, measures))
          kept.push(sibling);
  }
  const headline = findHeadline($, measures.blocks, best);
  if (headline) kept.push(headline);
  const newRoot = commonAncestor(kept, top);
  prune($, newRoot, new Set(kept), headline, best, measures);
  removeLinkLists(newRoot, measures, cards);
  return $(newRoot);
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

/**
 * The page's headline: the last `<h1>` before the content block that says what the document's `<title>` says, else
 * the last `<h1>` before it (a page whose sections are `<h1>`s has its headline above the first); none when the block
 * holds one.
 */
function findHeadline($: CheerioAPI, blocks: Element[], best: Element): Element | null {
  let last: Element | null = null;
  let titled: Element | null = null;
  let passed = false;
  const title = new Set(wordsOf(documentTitle($, best)));
  for (const block of blocks) {
    if (block === best) passed = true;
    if (block.name !== 'h1') continue;
    if (passed) {
      if (isInside(block, best)) return null;
      continue;
    }
    last = block;
    if (saysTitle($(block).text(), title)) titled = block;
  }
  return titled ?? last;
}

/** Whether a heading says what the document's title says: most of its words are the title's (`titleWords`). */
export function saysTitle(heading: string, titleWords: Set<string>): boolean {
  const words = wordsOf(heading);
  return words.length > 0 && words.filter((word) => titleWords.has(word)).length >= words.length * TITLE_WORDS_SHARE;
}

/** The `<title>` of the document holding `node`, found under `<html>` and `<head>` without a pass over the page. */
function documentTitle($: CheerioAPI, node: Element): string {
  let document: AnyNode = node;
  while (document.parent) document = document.parent;
  const childNamed = (parent: AnyNode | undefined, name: string) =>
    parent && 'children' in parent
      ? parent.children.find((child): child is Element => isElementNode(child) && child.name === name)
      : undefined;
  const title = childNamed(childNamed(childNamed(document, 'html'), 'head'), 'title');
  return title ? $(title).text() : '';
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
