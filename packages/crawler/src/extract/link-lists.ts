import type { AnyNode, Element } from 'domhandler';
import { NO_TEXT, type Measures } from './block-measures';
import { findOutermost, isElementNode, isTextNode, removeNodes } from './dom-nodes';
import { linkDensity, measureTextAmounts, shortText, type TextAmount } from './text-amounts';

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

/**
 * Removes from the content the blocks that are lists of links, named or not: teaser lists ("More stories", "Top
 * video"), tag lists and link bars among or after an article's paragraphs (Readability's conditional cleaning), and
 * blocks of nothing but teaser cards (`cards`, teaser-cards.ts). The heading over such a list goes with it. Only
 * blocks holding less than half the content's text are judged.
 */
export function removeLinkLists(newRoot: Element, measures: Measures, cards: ReadonlySet<Element>): void {
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
        amount.chars < rootChars * PAGE_SHARE &&
        ((LINK_LIST_TAGS.has(child.name) && (isLinkList(amount, child) || isTeaserList(child))) || isRail(child, cards))
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

/** A block of teaser cards and nothing else (teaser-cards.ts). */
function isRail(element: Element, cards: ReadonlySet<Element>): boolean {
  let count = 0;
  for (const child of element.children) {
    if (isTextNode(child) && !/\S/.test(child.data)) continue;
    if (!isElementNode(child) || !cards.has(child)) return false;
    count += 1;
  }
  return count > 0;
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

/**
 * The heading standing right before `element`, alone or in a wrapper of its own: the list's title ("More stories"),
 * which goes with it.
 */
function headingBefore(element: Element): Element | null {
  for (let node = element.prev; node; node = node.prev) {
    if (isTextNode(node) && !/\S/.test(node.data)) continue;
    return isElementNode(node) && (SUBHEADING_TAGS.has(node.name) || holdsOnlyHeading(node)) ? node : null;
  }
  return null;
}

/** A wrapper of one subheading and nothing else (a rail's `rail__header`). */
function holdsOnlyHeading(element: Element): boolean {
  const children = element.children.filter((child) => !(isTextNode(child) && !/\S/.test(child.data)));
  const only = children[0];
  return (
    children.length === 1 &&
    only !== undefined &&
    isElementNode(only) &&
    (SUBHEADING_TAGS.has(only.name) || holdsOnlyHeading(only))
  );
}

/** Link text over this share of an article's paragraph makes it a list of other stories. */
const ARTICLE_LINK_LIST_DENSITY = 0.8;
/** A list of other stories names this many at least: a sentence may link two pages. */
const ARTICLE_LINK_LIST_MIN_LINKS = 3;

/**
 * Removes from an article's content the paragraphs that are nothing but links to other pages ("Don't miss: …"), with
 * the heading over them, the paragraphs pointing to another story in capitals (isShoutedLink), and the clusters of
 * such links inside a paragraph (findLinkClusters). A list (`<ul>`) of links stays: an article's list of resources is
 * as often its own. In documentation a paragraph of links is an index and stays: only an article's content is
 * searched.
 */
export function removeArticleLinkLists(top: Element): void {
  removeNodes(findLinkClusters(top, measureTextAmounts(top)));
  const amounts = measureTextAmounts(top);
  const rootChars = (amounts.get(top) ?? NO_TEXT).chars;
  const doomed: Element[] = [];
  const stack: Element[] = [top];
  while (stack.length > 0) {
    const element = stack.pop()!;
    for (const child of element.children) {
      if (!isElementNode(child)) continue;
      const amount = amounts.get(child) ?? NO_TEXT;
      const isList =
        child.name === 'p' &&
        amount.chars > 0 &&
        amount.chars < rootChars * PAGE_SHARE &&
        linkDensity(amount) >= ARTICLE_LINK_LIST_DENSITY &&
        countPageLinks(child) >= ARTICLE_LINK_LIST_MIN_LINKS;
      if (isList) {
        doomed.push(child);
        const heading = headingBefore(child);
        if (heading) doomed.push(heading);
      } else if (child.name === 'p' && isShoutedLink(child, amount)) {
        doomed.push(child);
      } else stack.push(child);
    }
  }
  removeNodes(doomed);
}

/** A label in capitals before a link to another story ("SEE MORE:", "READ MORE:"), its colon included. */
const SHOUTED_LABEL = /^[^\p{Ll}]{2,30}:\s*/u;
/** A pointer to another story is a line: a longer paragraph is the article's. */
const SHOUTED_LINK_MAX_CHARS = 200;

/**
 * A paragraph pointing to another story in capitals: one link and nothing else, the link's text in capitals ("GET FOX
 * BUSINESS ON THE GO BY CLICKING HERE"), or a label in capitals before it ("SEE MORE: Hong Kong protests: …").
 */
function isShoutedLink(paragraph: Element, amount: TextAmount): boolean {
  if (amount.linkChars === 0 || countPageLinks(paragraph) !== 1) return false;
  const text = shortText(paragraph, SHOUTED_LINK_MAX_CHARS);
  const link = findOutermost(paragraph, isPageLink)[0];
  const linkText = link && shortText(link, SHOUTED_LINK_MAX_CHARS);
  if (!text || !linkText) return false;
  if (linkText === text) return isCapitals(text) && text.includes(' ');
  const label = SHOUTED_LABEL.exec(text);
  return label !== null && isCapitals(label[0]) && text.slice(label[0].length) === linkText;
}

function isCapitals(text: string): boolean {
  return /\p{Lu}/u.test(text) && !/\p{Ll}/u.test(text);
}

/** Links to other pages under `element`: not to a place in this one. */
const countPageLinks = (element: Element) => findOutermost(element, isPageLink).length;

function isPageLink(element: Element): boolean {
  const href = element.name === 'a' ? element.attribs.href : undefined;
  return href !== undefined && href !== '' && !href.startsWith('#');
}

/** An inline cluster of links holds this much text at least (characters that are not white space). */
const LINK_CLUSTER_MIN_CHARS = 100;

/**
 * Clusters of links inside a paragraph: an inline element (a person's name's pop-up card, "Sanders doubles down… |
 * Hillicon Valley… | MORE") of nothing but links to other pages, ARTICLE_LINK_LIST_MIN_LINKS of them at least. The
 * paragraph's own sentence stays.
 */
function findLinkClusters(top: Element, amounts: Map<AnyNode, TextAmount>): Element[] {
  const found: Element[] = [];
  const stack: { element: Element; inParagraph: boolean }[] = [{ element: top, inParagraph: false }];
  while (stack.length > 0) {
    const { element, inParagraph } = stack.pop()!;
    for (const child of element.children) {
      if (!isElementNode(child)) continue;
      // The innermost cluster: the name's own link in the sentence, beside its card, stays.
      if (inParagraph && isLinkCluster(child, amounts) && !child.children.some((c) => isLinkCluster(c, amounts)))
        found.push(child);
      else stack.push({ element: child, inParagraph: inParagraph || child.name === 'p' });
    }
  }
  return found;
}

function isLinkCluster(node: AnyNode, amounts: Map<AnyNode, TextAmount>): boolean {
  if (!isElementNode(node) || node.name === 'a') return false;
  const amount = amounts.get(node) ?? NO_TEXT;
  return (
    amount.chars >= LINK_CLUSTER_MIN_CHARS &&
    amount.linkChars >= amount.chars &&
    countPageLinks(node) >= ARTICLE_LINK_LIST_MIN_LINKS
  );
}
